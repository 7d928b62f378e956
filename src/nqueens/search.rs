//! A random N-Queens solution by greedy placement and conflict repair (the QS4 family of
//! Sosič and Gu; seeds 000 and 003 describe variants).
//!
//! The board is a permutation `cols` (one queen per row and per column, so only diagonals can
//! clash) plus, per diagonal direction, one occupancy bit per diagonal and a small map of the
//! diagonals that hold more than one queen. Three stages:
//!
//! 1. **Scramble**: `cols` starts as a keyed pseudo-random permutation of `0..n`, computed
//!    entry by entry (no random memory access); from 2^20 rows a second thread computes it
//!    block by block while the greedy stage consumes it.
//! 2. **Greedy** (single candidates): row by row, the unused columns are `cols[r..]`. Row
//!    `r` tries up to [`TRIES`] random ones from the next [`WINDOW`] slots (a window that
//!    stays in cache) and takes the first whose two diagonals are empty, swapping it into
//!    `cols[r]`. A row that
//!    finds none, and each of the last `tail` rows, is *deferred*. The first candidates of a
//!    row (about three quarters of the recent mean number of tries, at most [`BATCH`]) are
//!    drawn [`AHEAD`] rows early and their diagonal bits prefetched, so the loop waits on
//!    memory much less than once per try; the loop is bound by memory traffic.
//!
//!    **Greedy by blocks** (boards from 2^20 rows, rows [`BLOCK_ROWS`] in percent): a
//!    random block of 64 consecutive columns is tested *at once* — the up-diagonals `r + c`
//!    of the block are 64 consecutive bits, the down-diagonals `r − c + n − 1` 64 consecutive
//!    bits in reverse order, and a taken-column bitset gives 64 more — so three word
//!    windows (three cache lines, prefetched ahead) give every free column of the block, and
//!    the row takes a random one. Afterwards the free columns are put back, in a random
//!    order, as the unused part of `cols` for the last rows.
//! 3. **Repair**: each deferred row takes a column from the deferred rows' slots (the first
//!    conflict-free of a few random ones, else the least-attacked); then attacked queens are
//!    swapped with random partners, a swap kept only when the number of surplus queens on
//!    diagonals drops. A repair that stalls (tiny boards) restarts the whole search with the
//!    same random stream.
//!
//! Memory: `4n` bytes for `cols`, `(2n − 1) / 4` bytes of diagonal bits, `n / 8` bytes of
//! column bits while blocks are used, the free columns once (`0.4n` bytes at 10^8), and a
//! map whose size is the number of crowded diagonals (at most the number of deferred rows):
//! about 5 bytes per queen.

use super::mem::{prefetch, random_access_vec};
use ahash::AHashMap;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// About the memory [`search`] needs per queen at its peak, output buffers included
/// (measured: 4.89 GB at N = 10^9), to refuse a board that cannot fit before allocating.
pub const BYTES_PER_QUEEN: f64 = 5.0;

/// Random candidate columns a row tries in the greedy stage before it is deferred.
pub const TRIES: usize = 48;

/// Candidates for row `r` come from slots `r..r + WINDOW`: 16 KB of `cols`, always cached.
pub const WINDOW: usize = 4096;

/// How many rows ahead the first candidates are drawn and their diagonals prefetched.
pub const AHEAD: usize = 32;

/// Most candidates of one row drawn ahead (late rows need several tries).
pub const BATCH: usize = 12;

/// Candidates drawn together once a row has used up its prefetched ones.
const GROUP: usize = 4;

/// Bits stored before diagonal 0, so that every 64-bit window is in bounds.
const PAD: usize = 64;

/// Boards from this size on switch to testing blocks of 64 columns in the middle rows.
const HYBRID_FROM: usize = 1 << 20;

/// The middle rows, in percent of the board, tested by blocks. Early rows find a free
/// column at the first single try, which costs two cache lines against a block's three; in
/// the last rows few blocks hold a free column. Measured at 10^8: blocks in 35–90 % or
/// 45–90 % take about 7 s of CPU against 9.8 s with single candidates only (noise ±1 s
/// between runs on the loaded machine; 45–85, 55–90 were slower).
const BLOCK_ROWS: (usize, usize) = (35, 90);

/// Blocks of 64 columns a middle row tests before it is deferred.
const BLOCK_TRIES: usize = 16;

/// Bits `at..at + 64` of a bitset as one word (bit `i` of the result is bit `at + i`).
///
/// # Panics
/// If the bitset has fewer than `at / 64 + 2` words.
#[inline(always)]
fn window(words: &[u64], at: usize) -> u64 {
    let (w, b) = (at / 64, at % 64);
    // Shifting by 64 is not allowed: `b == 0` takes nothing from the next word.
    (words[w] >> b) | ((words[w + 1] << 1) << (63 - b))
}

/// What the search reports while it runs (for progress lines on big boards).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// `done` of `total` rows were visited by the greedy stage.
    Greedy { done: usize, total: usize },
    /// The greedy stage left `deferred` rows to the repair stage.
    Repairing { deferred: usize },
    /// The repair stalled; the search starts over (attempt number `attempt`, from 1).
    Restart { attempt: u32 },
}

/// Counts from one run of [`search_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Candidate columns the greedy stage tried, over all attempts.
    pub greedy_tries: u64,
    /// Rows the greedy stage deferred, in the last attempt.
    pub deferred: usize,
    /// Swap candidates evaluated by the repair stage, over all attempts.
    pub repair_tries: u64,
    /// Swaps the repair stage kept, over all attempts.
    pub repair_swaps: u64,
    /// Times the search started over.
    pub restarts: u32,
}

/// A random solution for `n` queens, deterministic for a given `seed`: entry `r` is the
/// 0-based column of the queen in row `r`. `None` when `n` has no solution (0, 2, 3).
///
/// # Panics
/// If `n ≥ u32::MAX` (columns are stored as `u32`).
///
/// # Complexity
/// Expected O(n) time (a few cached candidate checks per row) and about `4.6n` bytes.
///
/// # Examples
/// ```
/// use queenattack::nqueens::search::search;
/// use queenattack::nqueens::{find_conflict, Placement};
/// let cols = search(1000, 7).unwrap();
/// assert_eq!(cols, search(1000, 7).unwrap()); // same seed, same board
/// let p = Placement::Cols { n: 1000, cols: cols.iter().map(|&c| c + 1).collect() };
/// assert_eq!(find_conflict(&p, false), None);
/// assert_eq!(search(3, 7), None);
/// ```
pub fn search(n: usize, seed: u64) -> Option<Vec<u32>> {
    search_with(n, seed, |_| {}).map(|(cols, _)| cols)
}

/// [`search`] that also reports [`Progress`] and returns [`SearchStats`].
///
/// # Panics
/// If `n ≥ u32::MAX`.
pub fn search_with(
    n: usize,
    seed: u64,
    mut progress: impl FnMut(Progress),
) -> Option<(Vec<u32>, SearchStats)> {
    assert!(n < u32::MAX as usize, "n = {n} does not fit in u32 columns");
    match n {
        0 | 2 | 3 => return None,
        1 => return Some((vec![0], SearchStats::default())),
        _ => {}
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut stats = SearchStats::default();
    let mut board = Board::new(n);
    let mut attempt = 0;
    loop {
        if attempt > 0 {
            board.clear();
            stats.restarts += 1;
            progress(Progress::Restart { attempt });
        }
        attempt += 1;
        let scramble = Scramble::new(n, &mut rng);
        let deferred = std::thread::scope(|s| {
            let mut feed = Feed::start(s, &scramble, &mut board.cols);
            board.greedy(&mut feed, &mut rng, &mut stats, &mut progress)
        });
        stats.deferred = deferred.len();
        progress(Progress::Repairing {
            deferred: deferred.len(),
        });
        let mut attacked = board.place_deferred(&deferred, &mut rng);
        if board.repair(&mut attacked, &mut rng, &mut stats) {
            return Some((board.cols, stats));
        }
    }
}

/// A uniform random index in `0..len` from 64 random bits (Lemire's multiply-shift).
#[inline(always)]
fn below(bits: u64, len: usize) -> usize {
    ((u128::from(bits) * len as u128) >> 64) as usize
}

/// A keyed pseudo-random permutation of `0..n`: rounds of odd multiplication, xor-shift and
/// key xor, each a bijection on `k`-bit integers (`2^k ≥ n`, `2^(k−1) < n`), with cycle
/// walking to stay below `n` (fewer than two rounds of walking on average).
struct Scramble {
    n: u64,
    mask: u64,
    shift: u32,
    keys: [(u64, u64); 3],
}

impl Scramble {
    fn new(n: usize, rng: &mut impl Rng) -> Self {
        let bits = (usize::BITS - (n.max(2) - 1).leading_zeros()).max(2);
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let mut key = || (rng.random::<u64>() | 1, rng.random::<u64>() & mask);
        Scramble {
            n: n as u64,
            mask,
            shift: bits.div_ceil(2),
            keys: [key(), key(), key()],
        }
    }

    #[inline(always)]
    fn round(&self, mut x: u64) -> u64 {
        for &(mul, add) in &self.keys {
            x = x.wrapping_mul(mul) & self.mask;
            x ^= x >> self.shift;
            x ^= add;
        }
        x
    }

    /// The image of `i < n`: walking ends because `round` permutes `0..2^k`.
    #[inline(always)]
    fn apply(&self, i: u64) -> u32 {
        let mut x = self.round(i);
        while x >= self.n {
            x = self.round(x);
        }
        x as u32
    }

    /// `out[i] = apply(start + i)`.
    fn fill(&self, start: usize, out: &mut [u32]) {
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = self.apply((start + i) as u64);
        }
    }
}

/// Boards from this size on get their initial permutation from a second thread, chunk by
/// chunk, while the greedy stage consumes it.
const STREAM_FROM: usize = 1 << 20;

/// Entries per chunk sent by the scrambling thread.
const FEED_CHUNK: usize = 1 << 16;

/// The initial permutation as it arrives: `cols[..filled]` hold it already.
struct Feed {
    chunks: Option<Receiver<Vec<u32>>>,
    recycle: Option<SyncSender<Vec<u32>>>,
    filled: usize,
}

impl Feed {
    /// Fills `cols` now (small boards) or starts a scrambling thread in `scope`.
    fn start<'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        scramble: &'scope Scramble,
        cols: &mut [u32],
    ) -> Feed {
        let n = cols.len();
        if n < STREAM_FROM {
            scramble.fill(0, cols);
            return Feed {
                chunks: None,
                recycle: None,
                filled: n,
            };
        }
        let (send, chunks) = sync_channel::<Vec<u32>>(16);
        let (recycle, reuse) = sync_channel::<Vec<u32>>(16);
        scope.spawn(move || {
            let mut start = 0;
            while start < n {
                let len = FEED_CHUNK.min(n - start);
                let mut chunk = reuse.try_recv().unwrap_or_default();
                chunk.resize(len, 0);
                scramble.fill(start, &mut chunk);
                if send.send(chunk).is_err() {
                    return; // the consumer stopped early
                }
                start += len;
            }
        });
        Feed {
            chunks: Some(chunks),
            recycle: Some(recycle),
            filled: 0,
        }
    }

    /// Makes sure `cols[..upto]` (clamped to the board) hold the permutation.
    #[inline(always)]
    fn ensure(&mut self, cols: &mut [u32], upto: usize) {
        while self.filled < upto.min(cols.len()) {
            self.pull(cols);
        }
    }

    #[cold]
    fn pull(&mut self, cols: &mut [u32]) {
        let chunk = self
            .chunks
            .as_ref()
            .and_then(|c| c.recv().ok())
            .expect("the scrambling thread sends every chunk");
        cols[self.filled..self.filled + chunk.len()].copy_from_slice(&chunk);
        self.filled += chunk.len();
        if let Some(recycle) = &self.recycle {
            let _ = recycle.try_send(chunk);
        }
    }
}

/// Progress lines about every tenth of the board (a counter: no division per row).
struct Report {
    every: usize,
    next: usize,
    total: usize,
}

impl Report {
    fn new(n: usize) -> Self {
        let every = (n / 10).max(1);
        Report {
            every,
            next: every,
            total: n,
        }
    }

    #[inline(always)]
    fn tick(&mut self, row: usize, progress: &mut impl FnMut(Progress)) {
        if row == self.next {
            progress(Progress::Greedy {
                done: row,
                total: self.total,
            });
            self.next += self.every;
        }
    }
}

/// Queen counts for one direction of diagonals: a bit per diagonal for "at least one", and a
/// map holding the queens beyond the first on the few crowded diagonals.
struct Diagonals {
    bits: Vec<u64>,
    extra: AHashMap<u32, u32>,
}

impl Diagonals {
    /// Room for `len` diagonals stored from bit [`PAD`], with spare bits on both sides so
    /// that any 64-bit window around a diagonal is in bounds.
    fn new(len: usize) -> Self {
        Diagonals {
            bits: random_access_vec((len + 2 * PAD).div_ceil(64) + 1),
            extra: AHashMap::new(),
        }
    }

    #[inline(always)]
    fn occupied(&self, d: usize) -> bool {
        let s = d + PAD;
        self.bits[s / 64] >> (s % 64) & 1 != 0
    }

    #[inline(always)]
    fn word(&self, d: usize) -> &u64 {
        &self.bits[(d + PAD) / 64]
    }

    #[inline(always)]
    fn count(&self, d: usize) -> u32 {
        if self.occupied(d) {
            1 + self.extra.get(&(d as u32)).copied().unwrap_or(0)
        } else {
            0
        }
    }

    /// Marks an empty diagonal occupied.
    #[inline(always)]
    fn set(&mut self, d: usize) {
        let s = d + PAD;
        self.bits[s / 64] |= 1 << (s % 64);
    }

    /// Adds a queen; returns whether the diagonal was occupied already.
    #[inline(always)]
    fn add(&mut self, d: usize) -> bool {
        if self.occupied(d) {
            *self.extra.entry(d as u32).or_insert(0) += 1;
            true
        } else {
            self.set(d);
            false
        }
    }

    /// Removes a queen; returns whether another queen stays on the diagonal.
    #[inline(always)]
    fn remove(&mut self, d: usize) -> bool {
        debug_assert!(self.occupied(d));
        match self.extra.get_mut(&(d as u32)) {
            Some(k) => {
                *k -= 1;
                if *k == 0 {
                    self.extra.remove(&(d as u32));
                }
                true
            }
            None => {
                let s = d + PAD;
                self.bits[s / 64] &= !(1 << (s % 64));
                false
            }
        }
    }

    fn clear(&mut self) {
        self.bits.fill(0);
        self.extra.clear();
    }
}

/// Queens as a permutation plus diagonal counts.
struct Board {
    n: usize,
    /// `cols[r]`: the column of the queen in row `r`.
    cols: Vec<u32>,
    /// Down-right diagonals, indexed `r − c + n − 1`.
    down: Diagonals,
    /// Down-left diagonals, indexed `r + c`.
    up: Diagonals,
    /// Queens beyond the first on every diagonal, summed: 0 means solved.
    surplus: u64,
}

impl Board {
    fn new(n: usize) -> Self {
        Board {
            n,
            cols: vec![0; n],
            down: Diagonals::new(2 * n - 1),
            up: Diagonals::new(2 * n - 1),
            surplus: 0,
        }
    }

    #[inline(always)]
    fn diagonals(&self, r: usize, c: usize) -> (usize, usize) {
        (r + self.n - 1 - c, r + c)
    }

    /// Queens already on the two diagonals of `(r, c)`.
    #[inline(always)]
    fn load(&self, r: usize, c: usize) -> u32 {
        let (d, u) = self.diagonals(r, c);
        self.down.count(d) + self.up.count(u)
    }

    #[inline(always)]
    fn add(&mut self, r: usize, c: usize) {
        let (d, u) = self.diagonals(r, c);
        self.surplus += u64::from(self.down.add(d)) + u64::from(self.up.add(u));
    }

    #[inline(always)]
    fn remove(&mut self, r: usize, c: usize) {
        let (d, u) = self.diagonals(r, c);
        self.surplus -= u64::from(self.down.remove(d)) + u64::from(self.up.remove(u));
    }

    /// Whether the queen in row `r` shares a diagonal.
    #[inline(always)]
    fn attacked(&self, r: usize) -> bool {
        let (d, u) = self.diagonals(r, self.cols[r] as usize);
        self.down.count(d) > 1 || self.up.count(u) > 1
    }

    fn clear(&mut self) {
        self.down.clear();
        self.up.clear();
        self.surplus = 0;
    }

    /// Rows left to the repair stage at the bottom of the board, where a free diagonal pair
    /// gets rare and the greedy stage would spend many tries per row.
    fn tail(&self) -> usize {
        if self.n < 64 {
            self.n
        } else {
            (self.n / 32).min(1000)
        }
    }

    /// Places rows `0..n − tail` on empty diagonals where the tries allow; returns the
    /// deferred rows (each keeps an unused column in its own `cols` slot). Large boards test
    /// blocks of 64 columns in the middle rows (see [`BLOCK_ROWS`]), single candidates from
    /// the permutation before and after.
    fn greedy(
        &mut self,
        feed: &mut Feed,
        rng: &mut Xoshiro256PlusPlus,
        stats: &mut SearchStats,
        progress: &mut impl FnMut(Progress),
    ) -> Vec<u32> {
        let n = self.n;
        let end = n - self.tail();
        let (from, to) = if n >= HYBRID_FROM {
            (n / 100 * BLOCK_ROWS.0, n / 100 * BLOCK_ROWS.1)
        } else {
            (end, end)
        };
        let mut deferred = Vec::new();
        let mut report = Report::new(n);
        self.single_rows(
            0,
            from,
            feed,
            rng,
            stats,
            &mut deferred,
            &mut report,
            progress,
        );
        if from < to {
            feed.ensure(&mut self.cols, n);
            let mut used = self.columns_taken(from, &deferred);
            self.block_rows(
                from,
                to,
                &mut used,
                rng,
                stats,
                &mut deferred,
                &mut report,
                progress,
            );
            self.refill(to, &used, &deferred, rng);
        }
        self.single_rows(
            to,
            end,
            feed,
            rng,
            stats,
            &mut deferred,
            &mut report,
            progress,
        );
        feed.ensure(&mut self.cols, n);
        deferred.extend(end as u32..n as u32);
        progress(Progress::Greedy { done: n, total: n });
        deferred
    }

    /// The greedy stage on rows `start..stop` with single candidates from the unused part of
    /// the permutation, `cols[r..]`.
    #[allow(clippy::too_many_arguments)]
    fn single_rows(
        &mut self,
        start: usize,
        stop: usize,
        feed: &mut Feed,
        rng: &mut Xoshiro256PlusPlus,
        stats: &mut SearchStats,
        deferred: &mut Vec<u32>,
        report: &mut Report,
        progress: &mut impl FnMut(Progress),
    ) {
        // Tries are measured over blocks of this many rows to size the prefetched batches.
        const BLOCK: usize = 256;
        // Row r's first candidates (slots), drawn AHEAD rows early so their diagonal bits can
        // be prefetched; as many as the recent rows needed tries on average, at most BATCH.
        let mut ring = [[0usize; BATCH]; AHEAD];
        let mut batch = [1usize; AHEAD];
        let mut want = 1;
        feed.ensure(&mut self.cols, start + AHEAD + WINDOW + 128);
        for row in start..(start + AHEAD).min(stop) {
            self.draw(rng, row, 1, &mut ring[row % AHEAD]);
        }
        let (mut tries, mut block_tries) = (0u64, 0usize);
        for r in start..stop {
            let (slots, k) = (ring[r % AHEAD], batch[r % AHEAD]);
            feed.ensure(&mut self.cols, r + AHEAD + WINDOW + 128);
            if r + AHEAD < stop {
                self.draw(rng, r + AHEAD, want, &mut ring[(r + AHEAD) % AHEAD]);
                batch[(r + AHEAD) % AHEAD] = want;
            }
            // The window's leading edge is read in random order, which hides it from the
            // hardware's stream prefetcher: fetch it explicitly.
            if let Some(edge) = self.cols.get(r + AHEAD + WINDOW + 64) {
                prefetch(edge);
            }
            report.tick(r, progress);
            let mut placed = false;
            let mut t = 0;
            let mut group = slots;
            let mut size = k;
            'tries: while t < TRIES {
                for &j in &group[..size] {
                    t += 1;
                    let (d, u) = self.diagonals(r, self.cols[j] as usize);
                    if !self.down.occupied(d) && !self.up.occupied(u) {
                        self.down.set(d);
                        self.up.set(u);
                        self.cols.swap(r, j);
                        placed = true;
                        break 'tries;
                    }
                }
                // Out of prefetched candidates: draw the next few together so their cache
                // misses overlap instead of following one another.
                size = GROUP.min(TRIES - t);
                self.draw(rng, r, size, &mut group);
            }
            if !placed {
                deferred.push(r as u32);
            }
            tries += t as u64;
            block_tries += t;
            if r % BLOCK == BLOCK - 1 {
                // Three quarters of the recent mean: every prefetch costs memory bandwidth,
                // which bounds this loop (measured: 1.5× the mean was ~5% slower).
                want = (block_tries * 3 / 4).div_ceil(BLOCK).clamp(1, BATCH);
                block_tries = 0;
            }
        }
        stats.greedy_tries += tries;
    }

    /// The taken-column bitset once rows `..start` are placed: every column except those in
    /// `cols[start..]` and in the deferred rows' slots; bits from `n` on stay set (no such
    /// column), with a spare word for 64-bit windows.
    fn columns_taken(&self, start: usize, deferred: &[u32]) -> Vec<u64> {
        let mut used = random_access_vec(self.n.div_ceil(64) + 2);
        used.fill(u64::MAX);
        let free = self.cols[start..]
            .iter()
            .chain(deferred.iter().map(|&r| &self.cols[r as usize]));
        for &c in free {
            used[c as usize / 64] &= !(1 << (c % 64));
        }
        used
    }

    /// Bit `i` set when column `c0 + i` is free and both its diagonals through row `r` are
    /// empty: the up-diagonals `r + c` of the block are consecutive bits, the down-diagonals
    /// `r − c + n − 1` consecutive bits in reverse order.
    #[inline(always)]
    fn free_block(&self, used: &[u64], r: usize, c0: usize) -> u64 {
        let (c, u, d) = self.block_at(r, c0);
        // The window starting 63 below the down-diagonal of column c0 holds that of column
        // c0 + i at bit 63 − i, hence the reversal.
        let down = window(&self.down.bits, d).reverse_bits();
        !(window(used, c) | window(&self.up.bits, u) | down)
    }

    /// Where the three windows of the block of columns from `c0` in row `r` start (bit
    /// positions in the column, up and down bitsets).
    #[inline(always)]
    fn block_at(&self, r: usize, c0: usize) -> (usize, usize, usize) {
        (c0, r + c0 + PAD, r + self.n - c0 + PAD - 64)
    }

    #[inline(always)]
    fn prefetch_block(&self, used: &[u64], r: usize, c0: usize) {
        let (c, u, d) = self.block_at(r, c0);
        prefetch(&used[c / 64]);
        prefetch(&self.up.bits[u / 64]);
        prefetch(&self.down.bits[d / 64]);
    }

    /// The greedy stage on rows `start..stop` by blocks: a random block of 64 consecutive
    /// columns is tested with three word windows (three cache lines, prefetched [`AHEAD`]
    /// rows early) and the row takes a random free column of it.
    #[allow(clippy::too_many_arguments)]
    fn block_rows(
        &mut self,
        start: usize,
        stop: usize,
        used: &mut [u64],
        rng: &mut Xoshiro256PlusPlus,
        stats: &mut SearchStats,
        deferred: &mut Vec<u32>,
        report: &mut Report,
        progress: &mut impl FnMut(Progress),
    ) {
        let n = self.n;
        let mut first = [0usize; AHEAD];
        for row in start..(start + AHEAD).min(stop) {
            first[row % AHEAD] = below(rng.random(), n);
            self.prefetch_block(used, row, first[row % AHEAD]);
        }
        let mut tries = 0u64;
        for r in start..stop {
            let mut c0 = first[r % AHEAD];
            if r + AHEAD < stop {
                let next = below(rng.random(), n);
                first[r % AHEAD] = next;
                self.prefetch_block(used, r + AHEAD, next);
            }
            report.tick(r, progress);
            let mut placed = false;
            for t in 0..BLOCK_TRIES {
                if t > 0 {
                    c0 = below(rng.random(), n);
                }
                let free = self.free_block(used, r, c0);
                if free != 0 {
                    tries += t as u64 + 1;
                    // A random free column of the block: rotate, take the lowest.
                    let turn = rng.random::<u32>() % 64;
                    let c = c0 + ((free.rotate_right(turn).trailing_zeros() + turn) % 64) as usize;
                    self.cols[r] = c as u32;
                    used[c / 64] |= 1 << (c % 64);
                    let (d, u) = self.diagonals(r, c);
                    self.down.set(d);
                    self.up.set(u);
                    placed = true;
                    break;
                }
            }
            if !placed {
                tries += BLOCK_TRIES as u64;
                deferred.push(r as u32);
            }
        }
        stats.greedy_tries += tries;
    }

    /// After the block rows: the free columns, in a random order, go to the deferred rows'
    /// slots and to `cols[start..]`, so single-candidate rows can follow.
    fn refill(&mut self, start: usize, used: &[u64], deferred: &[u32], rng: &mut impl Rng) {
        let n = self.n;
        let free: Vec<u32> = (0..n as u32)
            .filter(|&c| used[c as usize / 64] >> (c % 64) & 1 == 0)
            .collect();
        debug_assert_eq!(free.len(), n - start + deferred.len());
        let order = Scramble::new(free.len(), rng);
        let mut shuffled = (0..free.len() as u64).map(|i| free[order.apply(i) as usize]);
        for &r in deferred {
            self.cols[r as usize] = shuffled.next().expect("a free column per deferred row");
        }
        for (slot, c) in self.cols[start..].iter_mut().zip(shuffled) {
            *slot = c;
        }
    }

    /// Draws `k` candidate slots for `row` into `slots` and prefetches their diagonal bits.
    #[inline(always)]
    fn draw(&self, rng: &mut Xoshiro256PlusPlus, row: usize, k: usize, slots: &mut [usize]) {
        let span = WINDOW.min(self.n - row);
        for slot in &mut slots[..k] {
            *slot = row + below(rng.random(), span);
            let (d, u) = self.diagonals(row, self.cols[*slot] as usize);
            prefetch(self.down.word(d));
            prefetch(self.up.word(u));
        }
    }

    /// Gives each deferred row a column from the deferred rows' slots: the first
    /// conflict-free one among a few random ones, else the least-attacked seen. Returns the
    /// rows placed under attack.
    fn place_deferred(&mut self, rows: &[u32], rng: &mut impl Rng) -> Vec<u32> {
        let mut attacked = Vec::new();
        for k in 0..rows.len() {
            let r = rows[k] as usize;
            let mut best = (u32::MAX, k);
            for _ in 0..TRIES.min(rows.len() - k) {
                let m = rng.random_range(k..rows.len());
                let load = self.load(r, self.cols[rows[m] as usize] as usize);
                if load < best.0 {
                    best = (load, m);
                    if load == 0 {
                        break;
                    }
                }
            }
            // Rows keep their identity; only the columns in their slots trade places.
            self.cols.swap(r, rows[best.1] as usize);
            self.add(r, self.cols[r] as usize);
            if best.0 > 0 {
                attacked.push(r as u32);
            }
        }
        attacked
    }

    /// Swaps attacked queens with random partners while that lowers the surplus. Every
    /// crowded diagonal keeps at least one queen listed in `suspects`. Returns true when
    /// solved, false when stalled.
    fn repair(
        &mut self,
        suspects: &mut Vec<u32>,
        rng: &mut impl Rng,
        stats: &mut SearchStats,
    ) -> bool {
        let n = self.n;
        // Tries without progress before this start is given up.
        let patience = 50 * n as u64 + 20_000;
        let mut idle = 0u64;
        let mut k = 0;
        while self.surplus > 0 {
            if k >= suspects.len() {
                k = 0;
            }
            let i = suspects[k] as usize;
            if !self.attacked(i) {
                suspects.swap_remove(k);
                continue;
            }
            let j = rng.random_range(0..n);
            if j == i {
                continue;
            }
            stats.repair_tries += 1;
            let (ci, cj) = (self.cols[i] as usize, self.cols[j] as usize);
            let before = self.surplus;
            self.remove(i, ci);
            self.remove(j, cj);
            self.add(i, cj);
            self.add(j, ci);
            if self.surplus < before {
                self.cols.swap(i, j);
                stats.repair_swaps += 1;
                idle = 0;
                if self.attacked(j) {
                    suspects.push(j as u32);
                }
            } else {
                self.remove(i, cj);
                self.remove(j, ci);
                self.add(i, ci);
                self.add(j, cj);
                idle += 1;
                if idle > patience {
                    return false;
                }
            }
            k += 1;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nqueens::verify::is_peaceful_permutation as peaceful;

    #[test]
    fn scramble_is_a_permutation() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        for n in [1usize, 2, 3, 5, 64, 1000, 4097, (1 << 20) + 1] {
            let mut out = vec![0u32; n];
            Scramble::new(n, &mut rng).fill(0, &mut out);
            let mut seen = vec![false; n];
            for &x in &out {
                assert!(!seen[x as usize], "n = {n}: {x} twice");
                seen[x as usize] = true;
            }
        }
    }

    #[test]
    fn windows_read_any_bit_offset() {
        let words = [0x0123_4567_89AB_CDEFu64, 0xFEDC_BA98_7654_3210, 0];
        for at in 0..=64 {
            let expected = (0..64).fold(0u64, |w, i| {
                let bit = words[(at + i) / 64] >> ((at + i) % 64) & 1;
                w | bit << i
            });
            assert_eq!(window(&words, at), expected, "at = {at}");
        }
    }

    #[test]
    fn free_block_matches_cell_by_cell() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
        for n in [5usize, 64, 65, 200, 1000] {
            let mut board = Board::new(n);
            // Queens anywhere (attacks allowed) in a scrambled permutation's first rows.
            Scramble::new(n, &mut rng).fill(0, &mut board.cols);
            let placed = n / 3;
            for r in 0..placed {
                board.add(r, board.cols[r] as usize);
            }
            let used = board.columns_taken(placed, &[]);
            for _ in 0..300 {
                let (r, c0) = (rng.random_range(0..n), rng.random_range(0..n));
                let block = board.free_block(&used, r, c0);
                for i in 0..64 {
                    let c = c0 + i;
                    let free = c < n
                        && !board.cols[..placed].contains(&(c as u32))
                        && board.load(r, c) == 0;
                    assert_eq!(block >> i & 1 == 1, free, "n={n} r={r} c={c}");
                }
            }
        }
    }

    #[test]
    fn diagonal_counts_follow_adds_and_removes() {
        let mut d = Diagonals::new(130);
        assert!(!d.add(129));
        assert!(d.add(129));
        assert!(d.add(129));
        assert_eq!(d.count(129), 3);
        assert!(d.remove(129));
        assert!(d.remove(129));
        assert!(!d.remove(129));
        assert_eq!(d.count(129), 0);
        assert!(d.extra.is_empty());
    }

    #[test]
    fn solves_small_and_medium_boards() {
        assert_eq!(search(0, 1), None);
        assert_eq!(search(2, 1), None);
        assert_eq!(search(3, 1), None);
        assert_eq!(search(1, 1), Some(vec![0]));
        for n in (4..300).chain([1000, 4096, 65_537, STREAM_FROM + 5]) {
            for seed in 0..2 {
                let cols = search(n, seed).unwrap();
                assert!(peaceful(&cols), "n = {n} seed = {seed}");
            }
        }
    }

    #[test]
    fn deterministic_per_seed_and_varies_across_seeds() {
        let a = search(5000, 11).unwrap();
        assert_eq!(a, search(5000, 11).unwrap());
        assert_ne!(a, search(5000, 12).unwrap());
        // With the scrambling thread and the block rows too.
        let n = HYBRID_FROM + 3;
        let b = search(n, 11).unwrap();
        assert!(peaceful(&b));
        assert_eq!(b, search(n, 11).unwrap());
    }

    #[test]
    fn reports_progress_and_stats() {
        let mut seen = Vec::new();
        let (_, stats) = search_with(100_000, 3, |p| seen.push(p)).unwrap();
        assert!(seen.contains(&Progress::Greedy {
            done: 100_000,
            total: 100_000
        }));
        // The tail alone is deferred, plus a few rows that ran out of tries.
        assert!(
            stats.deferred >= 1000 && stats.deferred < 10_000,
            "{stats:?}"
        );
        assert!(stats.greedy_tries >= 99_000);
    }
}
