//! The board of the search: queens as a permutation plus, per diagonal direction, an
//! occupancy bit per diagonal and a map of the crowded ones.

use super::PAD;
use crate::mem::random_access_vec;
use ahash::AHashMap;

/// Queen counts for one direction of diagonals: a bit per diagonal for "at least one", and a
/// map holding the queens beyond the first on the few crowded diagonals.
pub(super) struct Diagonals {
    pub(super) bits: Vec<u64>,
    pub(super) extra: AHashMap<u32, u32>,
}

impl Diagonals {
    /// Room for `len` diagonals stored from bit [`PAD`], with spare bits on both sides so
    /// that any 64-bit window around a diagonal is in bounds.
    pub(super) fn new(len: usize) -> Self {
        Diagonals {
            bits: random_access_vec((len + 2 * PAD).div_ceil(64) + 1),
            extra: AHashMap::new(),
        }
    }

    #[inline(always)]
    pub(super) fn occupied(&self, d: usize) -> bool {
        let s = d + PAD;
        self.bits[s / 64] >> (s % 64) & 1 != 0
    }

    #[inline(always)]
    pub(super) fn word(&self, d: usize) -> &u64 {
        &self.bits[(d + PAD) / 64]
    }

    #[inline(always)]
    pub(super) fn count(&self, d: usize) -> u32 {
        if self.occupied(d) {
            1 + self.extra.get(&(d as u32)).copied().unwrap_or(0)
        } else {
            0
        }
    }

    /// Marks an empty diagonal occupied.
    #[inline(always)]
    pub(super) fn set(&mut self, d: usize) {
        let s = d + PAD;
        self.bits[s / 64] |= 1 << (s % 64);
    }

    /// Adds a queen; returns whether the diagonal was occupied already.
    #[inline(always)]
    pub(super) fn add(&mut self, d: usize) -> bool {
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
    pub(super) fn remove(&mut self, d: usize) -> bool {
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

    pub(super) fn clear(&mut self) {
        self.bits.fill(0);
        self.extra.clear();
    }
}

/// Queens as a permutation plus diagonal counts.
pub(super) struct Board {
    pub(super) n: usize,
    /// `cols[r]`: the column of the queen in row `r`.
    pub(super) cols: Vec<u32>,
    /// Down-right diagonals, indexed `r − c + n − 1`.
    pub(super) down: Diagonals,
    /// Down-left diagonals, indexed `r + c`.
    pub(super) up: Diagonals,
    /// Queens beyond the first on every diagonal, summed: 0 means solved.
    pub(super) surplus: u64,
}

impl Board {
    pub(super) fn new(n: usize) -> Self {
        Board {
            n,
            cols: vec![0; n],
            down: Diagonals::new(2 * n - 1),
            up: Diagonals::new(2 * n - 1),
            surplus: 0,
        }
    }

    #[inline(always)]
    pub(super) fn diagonals(&self, r: usize, c: usize) -> (usize, usize) {
        (r + self.n - 1 - c, r + c)
    }

    /// Queens already on the two diagonals of `(r, c)`.
    #[inline(always)]
    pub(super) fn load(&self, r: usize, c: usize) -> u32 {
        let (d, u) = self.diagonals(r, c);
        self.down.count(d) + self.up.count(u)
    }

    #[inline(always)]
    pub(super) fn add(&mut self, r: usize, c: usize) {
        let (d, u) = self.diagonals(r, c);
        self.surplus += u64::from(self.down.add(d)) + u64::from(self.up.add(u));
    }

    #[inline(always)]
    pub(super) fn remove(&mut self, r: usize, c: usize) {
        let (d, u) = self.diagonals(r, c);
        self.surplus -= u64::from(self.down.remove(d)) + u64::from(self.up.remove(u));
    }

    /// Whether the queen in row `r` shares a diagonal.
    #[inline(always)]
    pub(super) fn attacked(&self, r: usize) -> bool {
        let (d, u) = self.diagonals(r, self.cols[r] as usize);
        self.down.count(d) > 1 || self.up.count(u) > 1
    }

    pub(super) fn clear(&mut self) {
        self.down.clear();
        self.up.clear();
        self.surplus = 0;
    }

    /// Rows left to the repair stage at the bottom of the board, where a free diagonal pair
    /// gets rare and the greedy stage would spend many tries per row.
    pub(super) fn tail(&self) -> usize {
        if self.n < 64 {
            self.n
        } else {
            (self.n / 32).min(1000)
        }
    }
}
