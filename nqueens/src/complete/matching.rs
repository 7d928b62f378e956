//! Maximum bipartite matching (Hopcroft–Karp) on a dense bit matrix.
//!
//! Used as an impossibility proof: the free rows of a partial placement can only be completed
//! if they can be matched to distinct free columns through free cells.
//! (`pathfinding::kuhn_munkres` solves the weighted problem in O(n³), far too slow for the
//! thousands of rows checked here.)

/// Size of a maximum matching of the bipartite graph with `rows` left vertices and `cols`
/// right vertices, where row `i` is adjacent to column `j` iff bit `j` of
/// `bits[i * words .. (i + 1) * words]` is set.
///
/// # Panics
/// If `bits.len() < rows * words` or a set bit is `>= cols`.
///
/// # Complexity
/// O(E · √V) for `E` set bits and `V = rows + cols`, plus O(rows · words) per phase to scan
/// the rows.
///
/// # Examples
/// ```
/// use nqueens::complete::matching::maximum_matching;
/// // Row 0 – {col 0, col 1}, row 1 – {col 0}: both rows can be matched.
/// assert_eq!(maximum_matching(2, 2, &[0b11, 0b01], 1), 2);
/// // Both rows only reach column 0.
/// assert_eq!(maximum_matching(2, 2, &[0b01, 0b01], 1), 1);
/// ```
pub fn maximum_matching(rows: usize, cols: usize, bits: &[u64], words: usize) -> usize {
    assert!(bits.len() >= rows * words);
    let mut hk = HopcroftKarp {
        rows,
        cols,
        bits,
        words,
        row_mate: vec![FREE; rows],
        col_mate: vec![FREE; cols],
        dist: vec![u32::MAX; rows],
        size: 0,
    };
    hk.greedy();
    let mut queue = Vec::with_capacity(rows);
    while hk.layer(&mut queue) {
        hk.augment();
    }
    hk.size
}

/// No mate yet.
const FREE: u32 = u32::MAX;

/// The matching being grown, over the graph of [`maximum_matching`].
struct HopcroftKarp<'a> {
    rows: usize,
    cols: usize,
    bits: &'a [u64],
    words: usize,
    /// Column matched to each row, or [`FREE`].
    row_mate: Vec<u32>,
    /// Row matched to each column, or [`FREE`].
    col_mate: Vec<u32>,
    /// Layer of each row in the current phase (`u32::MAX`: not reached, or a dead end).
    dist: Vec<u32>,
    /// Pairs matched so far.
    size: usize,
}

/// The columns adjacent to row `i` (set bits of its `words` words), in increasing order.
fn neighbours(bits: &[u64], words: usize, i: usize) -> impl Iterator<Item = usize> + '_ {
    bits[i * words..(i + 1) * words]
        .iter()
        .enumerate()
        .flat_map(|(w, &word)| {
            let mut b = word;
            std::iter::from_fn(move || {
                (b != 0).then(|| {
                    let j = w * 64 + b.trailing_zeros() as usize;
                    b &= b - 1;
                    j
                })
            })
        })
}

impl HopcroftKarp<'_> {
    /// Greedy start: most rows match at once on the dense boards we see.
    fn greedy(&mut self) {
        for i in 0..self.rows {
            if let Some(j) =
                neighbours(self.bits, self.words, i).find(|&j| self.col_mate[j] == FREE)
            {
                self.row_mate[i] = j as u32;
                self.col_mate[j] = i as u32;
                self.size += 1;
            }
        }
    }

    /// BFS from the free rows, layering rows by alternating-path length; true when some
    /// layer reaches a free column (an augmenting path exists).
    fn layer(&mut self, queue: &mut Vec<u32>) -> bool {
        queue.clear();
        for i in 0..self.rows {
            if self.row_mate[i] == FREE {
                self.dist[i] = 0;
                queue.push(i as u32);
            } else {
                self.dist[i] = u32::MAX;
            }
        }
        let mut found = false;
        let mut head = 0;
        while head < queue.len() {
            let i = queue[head] as usize;
            head += 1;
            for j in neighbours(self.bits, self.words, i) {
                let m = self.col_mate[j];
                if m == FREE {
                    found = true;
                } else if self.dist[m as usize] == u32::MAX {
                    self.dist[m as usize] = self.dist[i] + 1;
                    queue.push(m);
                }
            }
        }
        found
    }

    /// DFS along the layers from each free row (iterative: paths can be thousands long),
    /// augmenting the matching along every path found.
    fn augment(&mut self) {
        let (rows, cols, words) = (self.rows, self.cols, self.words);
        let mut it: Vec<usize> = vec![0; rows];
        for start in 0..rows {
            if self.row_mate[start] != FREE {
                continue;
            }
            let mut path: Vec<(usize, usize)> = Vec::new(); // (row, col taken)
            let mut i = start;
            loop {
                let mut advanced = false;
                while it[i] < cols {
                    let j = it[i];
                    it[i] += 1;
                    if self.bits[i * words + j / 64] & (1 << (j % 64)) == 0 {
                        continue;
                    }
                    let m = self.col_mate[j];
                    if m == FREE {
                        // Augment along the path.
                        path.push((i, j));
                        for &(r, c) in &path {
                            self.row_mate[r] = c as u32;
                            self.col_mate[c] = r as u32;
                        }
                        self.size += 1;
                        path.clear();
                        advanced = true;
                        break;
                    }
                    if self.dist[m as usize] == self.dist[i] + 1 {
                        path.push((i, j));
                        i = m as usize;
                        advanced = true;
                        break;
                    }
                }
                if path.is_empty() {
                    break; // augmented, or the start row is a dead end
                }
                if !advanced {
                    // Dead end: never enter row i again in this phase.
                    self.dist[i] = u32::MAX;
                    let (prev, _) = path.pop().unwrap();
                    i = prev;
                }
            }
            self.dist[start] = u32::MAX;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Exhaustive maximum matching for small graphs.
    fn brute(rows: usize, adj: &[u64]) -> usize {
        fn go(i: usize, rows: usize, adj: &[u64], used: u64) -> usize {
            if i == rows {
                return 0;
            }
            let mut best = go(i + 1, rows, adj, used);
            let mut b = adj[i] & !used;
            while b != 0 {
                let j = b.trailing_zeros();
                b &= b - 1;
                best = best.max(1 + go(i + 1, rows, adj, used | 1 << j));
            }
            best
        }
        go(0, rows, adj, 0)
    }

    #[test]
    fn agrees_with_brute_force() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        for _ in 0..3000 {
            let rows = rng.random_range(0..8);
            let cols = rng.random_range(1..8);
            let p = rng.random_range(0.05..0.6);
            let adj: Vec<u64> = (0..rows)
                .map(|_| (0..cols).fold(0u64, |a, j| a | ((rng.random_bool(p) as u64) << j)))
                .collect();
            assert_eq!(
                maximum_matching(rows, cols, &adj, 1),
                brute(rows, &adj),
                "{adj:?}"
            );
        }
    }

    #[test]
    fn long_augmenting_paths() {
        // Row i reaches columns i and i+1; the greedy start takes column i+1... force a chain:
        // row 0 → {0,1}, row i → {i} ∪ {i+1} except last row → {0}.
        let n: usize = 3000;
        let words = n.div_ceil(64);
        let mut bits = vec![0u64; n * words];
        let mut set = |i: usize, j: usize| bits[i * words + j / 64] |= 1 << (j % 64);
        for i in 0..n - 1 {
            set(i, i + 1);
            set(i, i);
        }
        set(n - 1, 0);
        assert_eq!(maximum_matching(n, n, &bits, words), n);
    }
}
