//! Repair: the deferred rows take the leftover columns, then attacked queens swap with
//! random partners while the surplus on diagonals drops.

use super::board::Board;
use super::{SearchStats, TRIES};
use rand::Rng;

impl Board {
    /// Gives each deferred row a column from the deferred rows' slots: the first
    /// conflict-free one among a few random ones, else the least-attacked seen. Returns the
    /// rows placed under attack.
    pub(super) fn place_deferred(&mut self, rows: &[u32], rng: &mut impl Rng) -> Vec<u32> {
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
    pub(super) fn repair(
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
