//! Memory: how many runs of `--threads` fit in what the process may still take, and what
//! happens when an allocation fails anyway.
//!
//! **Prevention.** Every run on a thread of its own reserves its stack and, for its
//! allocations, a glibc arena (64 MiB of address space each); under an address-space limit
//! (`ulimit -v`) 64 runs took it all and the next allocation aborted the process with an
//! empty stdout. [`runs_that_fit`] counts those reservations against the limits
//! (`RLIMIT_AS`, `RLIMIT_DATA`) and a run's working memory against the memory available.
//!
//! **Safety net.** [`Guarded`], the binary's global allocator, is the system allocator except
//! when an allocation fails: a worker thread (a run of `--threads`, the bound's thread; see
//! [`mark_worker`]) then stops for good, holding what it has, while the main thread answers
//! at its deadline without it; any other thread calls the last resort the binary gives
//! (which writes the best answer so far and ends the process). The standard library would
//! abort instead, and an allocator must not unwind.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

thread_local! {
    /// Whether this thread is a worker whose failed allocation only stops it.
    static WORKER: Cell<bool> = const { Cell::new(false) };
}

/// Workers stopped by a failed allocation.
static STOPPED: AtomicUsize = AtomicUsize::new(0);
/// Set while the last resort runs: a failure inside it aborts instead of recursing.
static IN_LAST_RESORT: AtomicBool = AtomicBool::new(false);

/// Marks the calling thread as a worker: if one of its allocations fails, the thread stops
/// for good (it sleeps; the process ends without it) instead of ending the process.
pub fn mark_worker() {
    WORKER.with(|w| w.set(true));
}

/// Workers stopped so far by a failed allocation (they never end).
pub fn stopped_workers() -> usize {
    STOPPED.load(Ordering::SeqCst)
}

/// Held by the tests that count stopped workers, here and in `threads` (a worker stopped by
/// another test would look like one of theirs).
#[cfg(test)]
pub(crate) static STOPPED_WORKERS_TEST: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The system allocator, with a failed allocation handled as the [module](self) says.
/// `last_resort` gets the layout that failed and must not return (nor allocate: a failure
/// inside it aborts).
pub struct Guarded {
    last_resort: fn(Layout) -> !,
}

impl Guarded {
    /// The allocator, calling `last_resort` when an allocation of a thread that is not a
    /// worker fails.
    pub const fn new(last_resort: fn(Layout) -> !) -> Guarded {
        Guarded { last_resort }
    }

    #[cold]
    fn failed(&self, layout: Layout) -> ! {
        if WORKER.with(|w| w.get()) {
            STOPPED.fetch_add(1, Ordering::SeqCst);
            super::output::write_stderr(
                b"queenattack: out of memory: a search thread stops; the rest go on without it\n",
            );
            // holds no lock of the process (nothing allocates under the checkpoint's), so
            // nothing waits for it
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
        if IN_LAST_RESORT.swap(true, Ordering::SeqCst) {
            std::process::abort();
        }
        (self.last_resort)(layout)
    }
}

// SAFETY: every call goes to `System` unchanged; only a null result is handled, and never
// by returning.
unsafe impl GlobalAlloc for Guarded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            self.failed(layout);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            self.failed(layout);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            // the layout asked for, for the message
            self.failed(Layout::from_size_align(new_size, layout.align()).unwrap_or(layout));
        }
        p
    }
}

/// Address space a run on a thread of its own reserves: its stack and a glibc arena.
const RUN_ADDRESS_SPACE: u64 = (8 + 64) << 20;
/// Memory a run may touch: the largest measured (N = 128, C = 1: 60 MB more per run at 6 s;
/// N = 30, C = 6: 5 MB), rounded up.
const RUN_RESIDENT: u64 = 64 << 20;
/// Kept free for the main thread and for what the runs' estimates miss.
const RESERVE: u64 = 64 << 20;

/// What limits the runs: its name and the bytes left under it.
#[derive(Clone, Debug, PartialEq)]
pub struct Room {
    /// What the bytes are: `ulimit -v (RLIMIT_AS)`, `ulimit -d (RLIMIT_DATA)`, `free memory`.
    pub what: &'static str,
    /// Bytes left under it.
    pub left: u64,
}

/// How many of `wanted` runs on threads of their own fit in the memory left (at least 1:
/// one run always runs, on the calling thread when no second fits), and the tightest limit
/// when it is fewer than `wanted`.
pub fn runs_that_fit(wanted: usize) -> (usize, Option<Room>) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = |key: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(key))?;
        line[key.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse::<u64>()
            .ok()
            .map(|k| k << 10)
    };
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let available = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|k| k << 10);
    // the soft limit in bytes, `None` when unlimited or unknown (a closure: the resource's
    // type differs between C libraries)
    let soft_limit = |resource| {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `limit` is a valid `rlimit` to fill.
        let ok = unsafe { libc::getrlimit(resource, &mut limit) } == 0;
        (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
    };
    let mut rooms = Vec::new();
    for (resource, what, key) in [
        (libc::RLIMIT_AS, "ulimit -v (RLIMIT_AS)", "VmSize:"),
        (libc::RLIMIT_DATA, "ulimit -d (RLIMIT_DATA)", "VmData:"),
    ] {
        if let (Some(limit), Some(used)) = (soft_limit(resource), kb(key)) {
            let left = limit.saturating_sub(used);
            rooms.push((Room { what, left }, RUN_ADDRESS_SPACE));
        }
    }
    if let Some(left) = available {
        rooms.push((
            Room {
                what: "free memory",
                left,
            },
            RUN_RESIDENT,
        ));
    }
    fit(wanted, &rooms)
}

/// [`runs_that_fit`] given each room and what a run takes of it.
fn fit(wanted: usize, rooms: &[(Room, u64)]) -> (usize, Option<Room>) {
    let mut runs = wanted.max(1);
    let mut tightest = None;
    for (room, per_run) in rooms {
        let fits = (room.left.saturating_sub(RESERVE) / per_run) as usize;
        // one run needs no thread of its own
        let fits = if fits >= 2 { fits } else { 1 };
        if fits < runs {
            runs = fits;
            tightest = Some(room.clone());
        }
    }
    (runs, tightest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn room(mib: u64) -> Room {
        Room {
            what: "test",
            left: mib << 20,
        }
    }

    #[test]
    fn the_tightest_room_decides() {
        // no limit: every run
        assert_eq!(fit(64, &[]), (64, None));
        // 1 GB of address space: (1000 - 64) / 72 = 13 runs
        let (runs, why) = fit(
            64,
            &[
                (room(1000), RUN_ADDRESS_SPACE),
                (room(20_000), RUN_RESIDENT),
            ],
        );
        assert_eq!(runs, 13);
        assert_eq!(why, Some(room(1000)));
        // room for one thread only: one run, on the calling thread
        assert_eq!(fit(64, &[(room(140), RUN_ADDRESS_SPACE)]).0, 1);
        assert_eq!(fit(64, &[(room(0), RUN_ADDRESS_SPACE)]).0, 1);
        // fewer wanted than fit: no limit named
        assert_eq!(fit(4, &[(room(1000), RUN_ADDRESS_SPACE)]), (4, None));
    }

    /// A last resort that unwinds, for this test only (the binary's ends the process): the
    /// allocator is called directly here, not as the global allocator.
    fn last_resort(layout: Layout) -> ! {
        panic!("last resort for {} bytes", layout.size())
    }

    #[test]
    fn a_failed_allocation_stops_a_worker_and_calls_the_last_resort_elsewhere() {
        static ALLOCATOR: Guarded = Guarded::new(last_resort);
        let _counting = STOPPED_WORKERS_TEST
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        // more than any address space: the system allocator returns null
        let huge = Layout::from_size_align(1 << 62, 8).unwrap();
        let before = stopped_workers();
        std::thread::spawn(move || {
            mark_worker();
            // SAFETY: a valid layout of non-zero size; the call never returns here
            unsafe { ALLOCATOR.alloc(huge) };
            unreachable!("a worker whose allocation failed stops");
        });
        let waited = std::time::Instant::now();
        while stopped_workers() == before {
            assert!(
                waited.elapsed() < Duration::from_secs(30),
                "the worker did not stop"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        // SAFETY: as above; here the last resort unwinds
        let failed = std::panic::catch_unwind(|| unsafe { ALLOCATOR.alloc_zeroed(huge) });
        let message = failed.expect_err("the last resort runs");
        let text = message
            .downcast_ref::<String>()
            .expect("a formatted message");
        assert_eq!(text, &format!("last resort for {} bytes", 1u64 << 62));
        // an allocation that succeeds is the system's
        let small = Layout::from_size_align(64, 8).unwrap();
        // SAFETY: a valid layout; the block is freed with the same layout
        unsafe {
            let p = ALLOCATOR.alloc(small);
            assert!(!p.is_null());
            ALLOCATOR.dealloc(p, small);
        }
    }

    #[test]
    fn this_process_has_room_for_a_run() {
        let (runs, _) = runs_that_fit(2);
        assert!((1..=2).contains(&runs));
    }
}
