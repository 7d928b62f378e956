//! Two memory hints used by the large-board hot loops: prefetching a cache line, and asking
//! Linux for transparent huge pages on a big table read at random (fewer TLB misses).

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
