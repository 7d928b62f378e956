//! The permutation source of the search: a keyed pseudo-random permutation of `0..n`
//! computed entry by entry, and the feed that streams it from a second thread on large boards.

use rand::Rng;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// A keyed pseudo-random permutation of `0..n`: rounds of odd multiplication, xor-shift and
/// key xor, each a bijection on `k`-bit integers (`2^k ≥ n`, `2^(k−1) < n`), with cycle
/// walking to stay below `n` (fewer than two rounds of walking on average).
pub(super) struct Scramble {
    pub(super) n: u64,
    pub(super) mask: u64,
    pub(super) shift: u32,
    pub(super) keys: [(u64, u64); 3],
}

impl Scramble {
    pub(super) fn new(n: usize, rng: &mut impl Rng) -> Self {
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
    pub(super) fn round(&self, mut x: u64) -> u64 {
        for &(mul, add) in &self.keys {
            x = x.wrapping_mul(mul) & self.mask;
            x ^= x >> self.shift;
            x ^= add;
        }
        x
    }

    /// The image of `i < n`: walking ends because `round` permutes `0..2^k`.
    #[inline(always)]
    pub(super) fn apply(&self, i: u64) -> u32 {
        let mut x = self.round(i);
        while x >= self.n {
            x = self.round(x);
        }
        x as u32
    }

    /// `out[i] = apply(start + i)`.
    pub(super) fn fill(&self, start: usize, out: &mut [u32]) {
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = self.apply((start + i) as u64);
        }
    }
}

/// Boards from this size on get their initial permutation from a second thread, chunk by
/// chunk, while the greedy stage consumes it.
pub(super) const STREAM_FROM: usize = 1 << 20;

/// Entries per chunk sent by the scrambling thread.
pub(super) const FEED_CHUNK: usize = 1 << 16;

/// The initial permutation as it arrives: `cols[..filled]` hold it already.
pub(super) struct Feed {
    pub(super) chunks: Option<Receiver<Vec<u32>>>,
    pub(super) recycle: Option<SyncSender<Vec<u32>>>,
    pub(super) filled: usize,
}

impl Feed {
    /// Fills `cols` now (small boards) or starts a scrambling thread in `scope`.
    pub(super) fn start<'scope>(
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
    pub(super) fn ensure(&mut self, cols: &mut [u32], upto: usize) {
        while self.filled < upto.min(cols.len()) {
            self.pull(cols);
        }
    }

    #[cold]
    pub(super) fn pull(&mut self, cols: &mut [u32]) {
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
