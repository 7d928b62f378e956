//! The permutation source of the search on boards below [`super::HYBRID_FROM`] rows (and of
//! the free columns after the block rows): a keyed pseudo-random permutation of `0..n`
//! computed entry by entry.

use rand::Rng;

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
