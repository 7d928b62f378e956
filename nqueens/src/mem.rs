//! Memory: two hints used by the large-board hot loops (prefetching a cache line, and asking
//! Linux for transparent huge pages on a big table read at random: fewer TLB misses), and a
//! check of a job's memory needs against what the machine and `ulimit -v` allow, so that a
//! huge board is refused with a message rather than aborted by a failed allocation.

/// Hints the CPU to load the cache line holding `x`; a no-op off x86-64.
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults and never changes memory; SSE is
    // part of the x86-64 baseline.
    #[allow(unused_unsafe)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Buffers from this size on are worth huge pages.
const HUGE_FROM: usize = 8 << 20;

/// A zeroed vector of `len` elements whose pages Linux may back with 2 MB huge pages: for
/// big tables read at random (diagonal bitsets), where TLB misses would dominate. (Buffers
/// written front to back gain nothing: measured slower, as each huge page is zeroed whole.)
///
/// The advice is a hint (`madvise(MADV_HUGEPAGE)` on the 2 MB-aligned interior, before the
/// first write); it is skipped for small buffers and off Linux, and its failure is ignored.
pub(crate) fn random_access_vec<T: Copy + Default>(len: usize) -> Vec<T> {
    // `vec![zero; len]` of a large size comes straight from fresh, untouched pages.
    let v = vec![T::default(); len];
    #[cfg(target_os = "linux")]
    {
        let bytes = std::mem::size_of_val(v.as_slice());
        if bytes >= HUGE_FROM {
            const HUGE: usize = 2 << 20;
            let start = v.as_ptr() as usize;
            let lo = start.next_multiple_of(HUGE);
            let hi = (start + bytes) / HUGE * HUGE;
            if hi > lo {
                // SAFETY: the range lies inside the vector's allocation; MADV_HUGEPAGE does
                // not change its contents or validity, only how pages are backed.
                unsafe {
                    libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
                }
            }
        }
    }
    v
}

/// Bytes this process may still allocate: the smaller of the memory Linux reports available
/// (`MemAvailable` in `/proc/meminfo`) and the room left under the address-space limit
/// (`ulimit -v`, minus the address space already mapped). `None` where neither is known.
///
/// # Complexity
/// Reads two small `/proc` files.
pub fn available_bytes() -> Option<u64> {
    let mut best: Option<u64> = None;
    let mut keep = |v: u64| best = Some(best.map_or(v, |b| b.min(v)));
    if let Ok(info) = std::fs::read_to_string("/proc/meminfo") {
        let avail = info
            .lines()
            .find_map(|l| l.strip_prefix("MemAvailable:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
        if let Some(kb) = avail {
            keep(kb * 1024);
        }
    }
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit only writes the struct we pass.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } == 0;
        if ok && lim.rlim_cur != libc::RLIM_INFINITY {
            // The first field of /proc/self/statm is the mapped size in pages.
            let mapped = std::fs::read_to_string("/proc/self/statm")
                .ok()
                .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
                .map_or(0, |pages| pages * 4096);
            keep(lim.rlim_cur.saturating_sub(mapped));
        }
    }
    best
}

/// Refuses a job that needs about `bytes` of memory when less is available (see
/// [`available_bytes`]), with a message naming `what` and both sizes; `Ok` when it fits or
/// nothing is known.
///
/// # Examples
/// ```
/// use nqueens::mem::check_memory;
/// assert!(check_memory("a tiny job", 1000).is_ok());
/// assert!(check_memory("an absurd job", u64::MAX).is_err());
/// ```
pub fn check_memory(what: &str, bytes: u64) -> Result<(), String> {
    match available_bytes() {
        Some(avail) if bytes > avail => Err(format!(
            "{what} needs about {:.1} GB of memory, but only {:.1} GB are available \
             (MemAvailable, ulimit -v)",
            bytes as f64 / 1e9,
            avail as f64 / 1e9
        )),
        _ => Ok(()),
    }
}
