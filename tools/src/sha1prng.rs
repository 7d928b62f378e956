//! Java's `SecureRandom.getInstance("SHA1PRNG")`, byte for byte, with the `java.util.Random`
//! helpers the official tester draws its numbers with.
//!
//! The official QueenAttack tester seeds a fresh SHA1PRNG with `setSeed(seed)` and then only calls
//! `nextInt(bound)` and `nextLong()`. Reproducing those streams exactly is what makes
//! the generator (`gen`, which uses this module) write the same inputs as the official tester.
//!
//! How SHA1PRNG works (Sun provider):
//! * `setSeed` on a fresh instance: `state = SHA-1(seed bytes)`, where `setSeed(long)` passes the
//!   eight bytes of the seed, least significant first;
//! * output comes in 20-byte blocks: `block = SHA-1(state)`, then `state += block + 1` as a
//!   little-endian sum of *signed* bytes (see [`Sha1Prng::next_bytes`]);
//! * bytes of a block left over by one request are used first by the next request.

use sha1::{Digest, Sha1};

/// Size of one SHA-1 digest, the block size of the generator.
const BLOCK: usize = 20;

/// A SHA1PRNG stream seeded like `SecureRandom.setSeed(long)` on a fresh instance.
///
/// # Examples
///
/// ```
/// use tools::sha1prng::Sha1Prng;
///
/// let mut a = Sha1Prng::new(1);
/// let mut b = Sha1Prng::new(1);
/// // Same seed, same stream; bounds are respected.
/// let x = a.next_int(23);
/// assert_eq!(x, b.next_int(23));
/// assert!((0..23).contains(&x));
/// ```
#[derive(Clone, Debug)]
pub struct Sha1Prng {
    state: [u8; BLOCK],
    block: [u8; BLOCK],
    /// Bytes of `block` already handed out (`BLOCK` when a new block is needed).
    used: usize,
}

impl Sha1Prng {
    /// A generator in the state of `SecureRandom.getInstance("SHA1PRNG")` after `setSeed(seed)`.
    ///
    /// The seed is Java's `long`; pass negative Java seeds as their two's complement `u64`.
    pub fn new(seed: u64) -> Self {
        let state: [u8; BLOCK] = Sha1::digest(seed.to_le_bytes()).into();
        Sha1Prng {
            state,
            block: [0; BLOCK],
            used: BLOCK,
        }
    }

    /// Makes the next 20-byte block and advances the state.
    fn refill(&mut self) {
        self.block = Sha1::digest(self.state).into();
        update_state(&mut self.state, &self.block);
        self.used = 0;
    }

    /// Fills `out` like `SecureRandom.nextBytes`: leftover bytes of the last block first.
    pub fn next_bytes(&mut self, out: &mut [u8]) {
        for byte in out.iter_mut() {
            if self.used == BLOCK {
                self.refill();
            }
            *byte = self.block[self.used];
            self.used += 1;
        }
    }

    /// `SecureRandom.next(bits)`: `ceil(bits / 8)` bytes, big-endian, shifted down to `bits` bits.
    ///
    /// # Panics
    ///
    /// If `bits` is not in `1..=32`.
    pub fn next(&mut self, bits: u32) -> i32 {
        assert!((1..=32).contains(&bits), "next(bits) needs 1..=32 bits");
        let bytes = bits.div_ceil(8) as usize;
        let mut buf = [0u8; 4];
        self.next_bytes(&mut buf[..bytes]);
        let mut v: u32 = 0;
        for &b in &buf[..bytes] {
            v = (v << 8) | u32::from(b);
        }
        (v >> (8 * bytes as u32 - bits)) as i32
    }

    /// `java.util.Random.nextInt(bound)`: uniform in `0..bound`, with Java's rejection rule.
    ///
    /// # Panics
    ///
    /// If `bound <= 0` (Java throws there).
    pub fn next_int(&mut self, bound: i32) -> i32 {
        assert!(bound > 0, "bound must be positive");
        let r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            return ((i64::from(bound) * i64::from(r)) >> 31) as i32;
        }
        let mut u = r;
        loop {
            let r = u % bound;
            // Java: `u - r + m < 0` in 32-bit arithmetic, i.e. the last partial range.
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }

    /// `java.util.Random.nextLong()`: two 32-bit draws, the first one high, the second added
    /// as a signed value.
    pub fn next_long(&mut self) -> i64 {
        let hi = i64::from(self.next(32));
        let lo = i64::from(self.next(32));
        (hi << 32).wrapping_add(lo)
    }

    /// A double in `[0, 1)` from the top 53 bits of [`Sha1Prng::next_long`]
    /// (`(nextLong() >>> 11) * 2^-53`).
    pub fn next_unit_double(&mut self) -> f64 {
        ((self.next_long() as u64) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// The tester's `randomInt(a, b)`: `a + nextInt(b - a + 1)`, or `a` without a draw if `b <= a`.
    pub fn random_int(&mut self, a: i32, b: i32) -> i32 {
        if b <= a {
            return a;
        }
        a + self.next_int(b - a + 1)
    }

    /// The tester's `randomDouble(a, b)`: `a + (b - a) * u` with `u` from
    /// [`Sha1Prng::next_unit_double`], kept below `b`; `a` without a draw if `b <= a`.
    pub fn random_double(&mut self, a: f64, b: f64) -> f64 {
        if b <= a {
            return a;
        }
        let x = a + (b - a) * self.next_unit_double();
        if x >= b {
            next_down(b)
        } else {
            x
        }
    }
}

/// `state = state + block + 1` the way Java's `updateState` does it: bytes taken as signed
/// (−128..127), the carry propagated with an arithmetic shift (so it can be −1), and one added to
/// the first byte if nothing changed. Note that this is *not* a plain 160-bit addition.
fn update_state(state: &mut [u8; BLOCK], block: &[u8; BLOCK]) {
    let mut carry: i32 = 1;
    let mut changed = false;
    for (s, &b) in state.iter_mut().zip(block.iter()) {
        let v = i32::from(*s as i8) + i32::from(b as i8) + carry;
        let t = v as u8;
        changed |= *s != t;
        *s = t;
        carry = v >> 8;
    }
    if !changed {
        state[0] = state[0].wrapping_add(1);
    }
}

/// The largest double below `x` (Java's `Math.nextDown`) for finite positive or negative `x`.
fn next_down(x: f64) -> f64 {
    if x == 0.0 {
        return -f64::from_bits(1);
    }
    let bits = x.to_bits();
    if x > 0.0 {
        f64::from_bits(bits - 1)
    } else {
        f64::from_bits(bits + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The state after seeding is SHA-1 of the little-endian seed bytes, and the first block is
    /// SHA-1 of that state.
    #[test]
    fn first_block_is_sha1_of_seeded_state() {
        let mut g = Sha1Prng::new(42);
        let mut out = [0u8; 20];
        g.next_bytes(&mut out);
        let state = Sha1::digest(42u64.to_le_bytes());
        let block = Sha1::digest(state);
        assert_eq!(&out[..], &block[..]);
    }

    /// Requests of any size see the same byte stream.
    #[test]
    fn leftover_bytes_are_used_by_the_next_request() {
        let mut whole = Sha1Prng::new(7);
        let mut big = [0u8; 97];
        whole.next_bytes(&mut big);
        let mut pieces = Sha1Prng::new(7);
        let mut got = Vec::new();
        for size in [3usize, 1, 17, 20, 4, 25, 27] {
            let mut buf = vec![0u8; size];
            pieces.next_bytes(&mut buf);
            got.extend_from_slice(&buf);
        }
        assert_eq!(got, big.to_vec());
    }

    /// The state update uses signed bytes: the carry differs from unsigned addition.
    #[test]
    fn state_update_uses_signed_bytes() {
        let block_of = |first: &[u8]| {
            let mut b = [0u8; BLOCK];
            b[..first.len()].copy_from_slice(first);
            b
        };
        // -1 + 1 + 1 = 1, no carry (unsigned addition would carry here).
        let mut s = block_of(&[0xFF]);
        update_state(&mut s, &block_of(&[0x01]));
        assert_eq!(s, block_of(&[0x01]));
        // 127 + 127 + 1 = 255 -> byte 0xFF, carry 0.
        let mut s = block_of(&[0x7F]);
        update_state(&mut s, &block_of(&[0x7F]));
        assert_eq!(s, block_of(&[0xFF]));
        // -128 + -128 + 1 = -255 -> byte 0x01, carry -1 that turns every zero byte into 0xFF.
        let mut s = block_of(&[0x80]);
        update_state(&mut s, &block_of(&[0x80]));
        let mut expect = [0xFFu8; BLOCK];
        expect[0] = 0x01;
        assert_eq!(s, expect);
        // 0 + -1 + 1 = 0 everywhere: nothing changed, so the first byte is bumped.
        let mut s = [0u8; BLOCK];
        update_state(&mut s, &block_of(&[0xFF]));
        assert_eq!(s, block_of(&[0x01]));
    }

    #[test]
    fn next_bits_takes_the_high_bits_big_endian() {
        let mut a = Sha1Prng::new(11);
        let mut b = a.clone();
        let mut buf = [0u8; 4];
        b.next_bytes(&mut buf);
        assert_eq!(a.next(32), i32::from_be_bytes(buf));
        let mut buf = [0u8; 4];
        let mut c = a.clone();
        c.next_bytes(&mut buf);
        assert_eq!(a.next(31), (u32::from_be_bytes(buf) >> 1) as i32);
        let mut buf = [0u8; 1];
        let mut c = a.clone();
        c.next_bytes(&mut buf);
        assert_eq!(a.next(3), i32::from(buf[0] >> 5));
    }

    #[test]
    fn next_int_stays_in_bounds() {
        let mut g = Sha1Prng::new(5);
        for bound in [1, 2, 3, 7, 8, 23, 1 << 30, i32::MAX] {
            for _ in 0..200 {
                let x = g.next_int(bound);
                assert!((0..bound).contains(&x), "{x} not below {bound}");
            }
        }
    }

    #[test]
    fn random_ranges_are_inclusive_and_doubles_below_b() {
        let mut g = Sha1Prng::new(9);
        let mut seen = [false; 4];
        for _ in 0..500 {
            let x = g.random_int(8, 11);
            seen[(x - 8) as usize] = true;
            let d = g.random_double(0.0, 0.25);
            assert!((0.0..0.25).contains(&d));
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(g.random_int(5, 5), 5);
        assert_eq!(g.random_double(0.25, 0.25), 0.25);
        assert_eq!(next_down(1.0), 1.0 - f64::EPSILON / 2.0);
    }
}
