//! The proof's depth-first search ([`proof`](super::proof)) on several threads.
//!
//! The top of the tree is searched as on one thread, down to the first depth where it has at
//! least [`SUBTREES_PER_THREAD`] nodes per thread; the threads then take those nodes' subtrees
//! one at a time, in the search's own order (cheapest first), and share the cheapest board
//! any of them has found, which prunes for all. A subtree is always searched in full unless
//! the deadline comes, so a split search that finishes has searched every board below its
//! cap, as one thread would: the floor it proves is the same, found sooner.

use super::ascent::Weights;
use super::lines::Lines;
use super::{Best, OneColour};
use ahash::AHashSet;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// Threads the proofs of [`one_colour_floor`](super::one_colour_floor) may use (1: the
/// calling thread alone): set by the binary from `--threads` with `--bound` or
/// `--with-bound`.
static PROOF_THREADS: AtomicUsize = AtomicUsize::new(1);

/// Lets the one-colour proofs use up to `threads` threads from now on (at least 1; at most
/// the cores the process may use).
pub(crate) fn set_proof_threads(threads: usize) {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    PROOF_THREADS.store(threads.clamp(1, cores), Ordering::Relaxed);
}

/// See [`set_proof_threads`].
pub(crate) fn proof_threads() -> usize {
    PROOF_THREADS.load(Ordering::Relaxed)
}

/// Subtrees handed out per thread: their sizes differ by orders of magnitude, and a thread
/// left with the last big one works alone. Seed 2016 (N = 27), `--bound --bound-time 10
/// --threads 2` on the 2-core machine, one run each: the search of cap 27.2834 took 6.34 s,
/// 6.62 s and 6.65 s with 16, 64 and 256 subtrees per thread (one thread: cap 27.0964 took
/// 6.61 s, cap 26.7082 1.06–1.31 s): no difference at two threads; 64 leaves room for more.
const SUBTREES_PER_THREAD: usize = 64;

/// A capped search that took less than this (seconds) is not worth threads: the next one is
/// split only after a search this long.
pub(super) const SPLIT_AFTER: f64 = 0.005;

/// A node of the proof's search handed to a thread: its depth, lines, bound and cells.
pub(super) struct Subtree {
    pub(super) depth: usize,
    pub(super) lines: Lines,
    pub(super) bound: f64,
    pub(super) cells: Vec<usize>,
    pub(super) weights: Weights,
}

/// The cheapest board's cost found by any thread (the bits of a non-negative `f64`, which
/// order as the numbers do).
pub(super) struct Shared(AtomicU64);

impl Shared {
    fn new() -> Shared {
        Shared(AtomicU64::new(f64::INFINITY.to_bits()))
    }

    /// The cheapest cost so far (`∞`: none).
    pub(super) fn get(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed))
    }

    /// Records a board's cost (a negative one is not shared: it only prunes less).
    pub(super) fn lower(&self, cost: f64) {
        if cost >= 0.0 {
            self.0.fetch_min(cost.to_bits(), Ordering::Relaxed);
        }
    }
}

/// What one thread's share of a split search left: its cheapest board, whether the deadline
/// cut it, its node count.
type Outcome = (Best<Vec<usize>>, bool, u32);

impl<'a> OneColour<'a> {
    /// [`OneColour::run_most_constrained`] on up to `threads` threads, this one among them:
    /// every board below `cap` searched; `false` when the deadline cut it. One thread, a keep
    /// list longer than one (the shared cost prunes like a keep list of one) or a tiny board:
    /// the search of one thread.
    pub(super) fn run_split(&mut self, cap: f64, threads: usize) -> bool {
        if threads <= 1 || self.best.keep != 1 || self.n < 4 {
            return self.run_most_constrained(cap);
        }
        self.cap = cap;
        if self.prefix.is_empty() {
            self.tables();
        }
        let Some(ahead) = self.root_ahead else {
            return true;
        };
        let Some(subtrees) = self.top(self.root - ahead, threads) else {
            return false;
        };
        let shared = Arc::new(Shared::new());
        shared.lower(self.best.threshold());
        let next = AtomicUsize::new(0);
        let this = &*self;
        let work = || this.worker(&shared).take(&subtrees, &next);
        let outcomes: Vec<Option<Outcome>> = std::thread::scope(|scope| {
            // a thread that cannot start leaves its share to the others
            let helpers: Vec<_> = (1..threads)
                .filter_map(|_| {
                    std::thread::Builder::new()
                        .name("proof".to_string())
                        .spawn_scoped(scope, work)
                        .ok()
                })
                .collect();
            let mut all = vec![Some(work())];
            all.extend(helpers.into_iter().map(|h| h.join().ok()));
            all
        });
        for outcome in outcomes {
            let Some((best, out_of_time, nodes)) = outcome else {
                // a thread that panicked may have left its subtree half searched
                self.out_of_time = true;
                continue;
            };
            self.out_of_time |= out_of_time;
            self.nodes = self.nodes.wrapping_add(nodes);
            for (cost, cells) in best.into_sorted() {
                self.best.offer(cost, cells);
            }
        }
        !self.out_of_time
    }

    /// The nodes at the first depth with at least [`SUBTREES_PER_THREAD`] per thread (or the
    /// deepest tried), in the search's order, the root's bound being `root`; `None` when the
    /// deadline came first.
    fn top(&mut self, root: f64, threads: usize) -> Option<Vec<Subtree>> {
        let want = SUBTREES_PER_THREAD * threads;
        let mut depth = 1;
        loop {
            self.subtrees.clear();
            self.split_depth = depth;
            let start = Weights::from_lines(&self.lines);
            self.constrained(0, Lines::default(), root, (&start, None));
            self.split_depth = usize::MAX;
            if self.out_of_time {
                return None;
            }
            if self.subtrees.len() >= want || self.subtrees.is_empty() || depth + 2 >= self.n {
                return Some(std::mem::take(&mut self.subtrees));
            }
            depth += 1;
        }
    }

    /// A search of its own for one thread of [`OneColour::run_split`]: the same tables and
    /// cap, an empty keep list of one, pruning also by `shared`.
    fn worker(&self, shared: &Arc<Shared>) -> OneColour<'a> {
        OneColour {
            n: self.n,
            cap: self.cap,
            root: self.root,
            root_ahead: self.root_ahead,
            members: self.members,
            dist: self.dist,
            order: self.order.clone(),
            best: Best::new(1),
            cells: Vec::with_capacity(self.n),
            offered: AHashSet::new(),
            nodes: 0,
            reduced: self.reduced.clone(),
            prefix: self.prefix.clone(),
            deadline: self.deadline,
            out_of_time: false,
            shared: Some(Arc::clone(shared)),
            split_depth: usize::MAX,
            subtrees: Vec::new(),
            lines: Vec::new(),
            ascent_tables: self.ascent_tables.clone(),
            ascent: None,
            scratch: Vec::new(),
        }
    }

    /// Searches the subtrees in turn (the next one not yet taken by any thread) until none is
    /// left or the deadline comes.
    fn take(mut self, subtrees: &[Subtree], next: &AtomicUsize) -> Outcome {
        while !self.out_of_time {
            let Some(node) = subtrees.get(next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            self.cells.clone_from(&node.cells);
            self.constrained(node.depth, node.lines, node.bound, (&node.weights, None));
        }
        (self.best, self.out_of_time, self.nodes)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{finds_the_minimum_below_any_cap, random_case};
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::time::{Duration, Instant};

    #[test]
    fn a_split_search_finds_the_brute_force_minimum_below_any_cap() {
        finds_the_minimum_below_any_cap(54, 60, |search, cap| search.run_split(cap, 3));
    }

    /// On boards with thousands of nodes, several threads end on the cheapest board of one.
    #[test]
    fn threads_find_what_one_thread_finds_on_bigger_boards() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(55);
        let members: Vec<usize> = (0..12).collect();
        let far = Instant::now() + Duration::from_secs(3600);
        let mut split = 0;
        for case in 0..16 {
            let n = rng.random_range(9..=12);
            let (walls, dist) = random_case(n, &mut rng);
            let least = |threads: usize| {
                let mut search = OneColour::new(n, &walls, &members[..n], &dist, 1, far)?;
                assert!(search.run_split(f64::INFINITY, threads), "case {case}");
                search.best.into_sorted().first().map(|b| b.0)
            };
            let one = least(1);
            for threads in [2, 4] {
                match (one, least(threads)) {
                    (Some(a), Some(b)) => assert!((a - b).abs() < 1e-6, "case {case}: {a} vs {b}"),
                    (a, b) => assert_eq!(a, b, "case {case}"),
                }
            }
            split += usize::from(one.is_some());
        }
        assert!(split >= 8, "only {split} boards with an N-Queens board");
    }

    #[test]
    fn a_split_search_cut_by_its_deadline_says_so() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(56);
        let n = 24;
        let (walls, dist) = random_case(n, &mut rng);
        let members: Vec<usize> = (0..n).collect();
        let end = Instant::now() + Duration::from_millis(50);
        let mut search = OneColour::new(n, &walls, &members, &dist, 1, end).expect("a board");
        let started = Instant::now();
        assert!(
            !search.run_split(f64::INFINITY, 2),
            "24 × 24 searched in 50 ms"
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the threads outlived the deadline"
        );
    }

    #[test]
    fn the_shared_cost_only_goes_down() {
        let shared = Shared::new();
        assert_eq!(shared.get(), f64::INFINITY);
        shared.lower(3.5);
        shared.lower(7.0);
        shared.lower(-1.0);
        assert_eq!(shared.get(), 3.5);
        shared.lower(0.25);
        assert_eq!(shared.get(), 0.25);
    }
}
