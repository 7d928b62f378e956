//! Exact search on a pocket: a few rows, each with a short list of candidate cells, one cell
//! per row such that no two chosen cells share a line. The weighted walk
//! ([`super::weighted`]) takes the queens of a pocket around its last conflicts off the board
//! and asks this search for a conflict-free way to put them back.
//!
//! Depth-first with forward checking: each row's candidates are one `u64` bit set, each
//! candidate keeps the set of candidates it rules out in every other row, the row with the
//! fewest candidates left goes next.

use rand::Rng;

/// Most rows of a pocket (one bit each in the set of open rows).
pub const MAX_ROWS: usize = 64;
/// Most candidate cells of a row (one bit each in the row's set).
pub const MAX_CELLS: usize = 64;

/// Searches one candidate per row (indices into `rows[j]`) with no two chosen candidates of
/// different rows sharing a line id; a candidate is the list of its `L` line ids. `None` when
/// there is none or when `node_limit` placements did not find one; `nodes` gets the
/// placements made.
///
/// # Panics
/// When there are more than [`MAX_ROWS`] rows or a row has more than [`MAX_CELLS`]
/// candidates.
///
/// # Complexity
/// O(C · L · log(C · L) + C · R) to set up for C candidates and R rows, then O(R) per
/// placement, at most `node_limit` placements.
pub fn solve<const L: usize>(
    rows: &[Vec<[u32; L]>],
    node_limit: u64,
    rng: &mut impl Rng,
    nodes: &mut u64,
) -> Option<Vec<usize>> {
    let k = rows.len();
    assert!(k <= MAX_ROWS, "a pocket of {k} rows");
    assert!(rows.iter().all(|r| r.len() <= MAX_CELLS));
    let mut offset = Vec::with_capacity(k + 1);
    offset.push(0);
    for r in rows {
        offset.push(offset.last().unwrap() + r.len());
    }
    let total = offset[k];
    // (line, candidate, row), sorted by line: candidates of one line rule each other out.
    let mut on_line: Vec<(u32, u32, u32)> = Vec::with_capacity(total * L);
    for (j, r) in rows.iter().enumerate() {
        for (b, lines) in r.iter().enumerate() {
            for &l in lines {
                on_line.push((l, (offset[j] + b) as u32, j as u32));
            }
        }
    }
    on_line.sort_unstable();
    let mut conf = vec![0u64; total * k];
    for group in on_line.chunk_by(|a, b| a.0 == b.0) {
        for &(_, a, ra) in group {
            for &(_, b, rb) in group {
                if ra != rb {
                    let bit = b as usize - offset[rb as usize];
                    conf[a as usize * k + rb as usize] |= 1 << bit;
                }
            }
        }
    }
    let mut search = Search {
        k,
        offset,
        conf,
        choice: vec![0; k],
        nodes: 0,
        node_limit,
    };
    let dom: Vec<u64> = rows
        .iter()
        .map(|r| {
            if r.len() == 64 {
                u64::MAX
            } else {
                (1 << r.len()) - 1
            }
        })
        .collect();
    let open = if k == 64 { u64::MAX } else { (1 << k) - 1 };
    let found = search.go(&dom, open, rng);
    *nodes += search.nodes.min(node_limit);
    match found {
        Some(true) => Some(search.choice),
        _ => None,
    }
}

struct Search {
    k: usize,
    offset: Vec<usize>,
    /// `conf[c * k + j]`: the candidates of row `j` that candidate `c` rules out.
    conf: Vec<u64>,
    choice: Vec<usize>,
    nodes: u64,
    node_limit: u64,
}

impl Search {
    /// `Some(true)`: every open row got a candidate (in `choice`); `Some(false)`: none
    /// exists; `None`: the node limit was reached.
    fn go(&mut self, dom: &[u64], open: u64, rng: &mut impl Rng) -> Option<bool> {
        if open == 0 {
            return Some(true);
        }
        let mut row = 0;
        let mut fewest = u32::MAX;
        for j in bits(open) {
            let c = dom[j].count_ones();
            if c < fewest {
                (row, fewest) = (j, c);
            }
        }
        if fewest == 0 {
            return Some(false);
        }
        let rest = open & !(1 << row);
        // Candidates from a random one on, so that repeated pockets differ.
        let turn = rng.random_range(0..64);
        let order = dom[row].rotate_right(turn);
        // On the stack: one of these per placement would otherwise be an allocation.
        let mut next = [0u64; MAX_ROWS];
        for r in bits(order) {
            let b = (r + turn as usize) % 64;
            self.nodes += 1;
            if self.nodes > self.node_limit {
                return None;
            }
            let c = self.offset[row] + b;
            let ruled = &self.conf[c * self.k..(c + 1) * self.k];
            let mut dead = false;
            for j in bits(rest) {
                next[j] = dom[j] & !ruled[j];
                dead |= next[j] == 0;
            }
            if dead {
                continue;
            }
            self.choice[row] = b;
            if self.go(&next[..self.k], rest, rng)? {
                return Some(true);
            }
        }
        Some(false)
    }
}

/// The set bits of `x`, lowest first.
fn bits(mut x: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (x != 0).then(|| {
            let b = x.trailing_zeros() as usize;
            x &= x - 1;
            b
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Every choice of one candidate per row, by brute force: is one conflict-free?
    fn brute<const L: usize>(rows: &[Vec<[u32; L]>]) -> bool {
        fn go<const L: usize>(rows: &[Vec<[u32; L]>], used: &mut Vec<u32>) -> bool {
            let Some((first, rest)) = rows.split_first() else {
                return true;
            };
            first.iter().any(|lines| {
                if lines.iter().any(|l| used.contains(l)) {
                    return false;
                }
                let n = used.len();
                used.extend_from_slice(lines);
                let ok = go(rest, used);
                used.truncate(n);
                ok
            })
        }
        go(rows, &mut Vec::new())
    }

    #[test]
    fn agrees_with_brute_force_on_random_pockets() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let (mut yes, mut no) = (0, 0);
        for _ in 0..400 {
            let k = rng.random_range(1..=6);
            let rows: Vec<Vec<[u32; 3]>> = (0..k)
                .map(|_| {
                    (0..rng.random_range(0..=4))
                        .map(|_| std::array::from_fn(|f| f as u32 * 100 + rng.random_range(0..6)))
                        .collect()
                })
                .collect();
            let got = solve(&rows, u64::MAX, &mut rng, &mut 0);
            assert_eq!(got.is_some(), brute(&rows), "{rows:?}");
            if let Some(choice) = got {
                yes += 1;
                let mut used = Vec::new();
                for (r, &b) in rows.iter().zip(&choice) {
                    assert!(r[b].iter().all(|l| !used.contains(l)));
                    used.extend_from_slice(&r[b]);
                }
            } else {
                no += 1;
            }
        }
        // Both answers occur, so both branches were checked.
        assert!(yes > 50 && no > 50, "{yes} YES, {no} NO");
    }

    #[test]
    fn the_node_limit_stops_the_search() {
        // 20 rows on 19 columns: no answer, and proving it takes more than 100 placements.
        let rows: Vec<Vec<[u32; 1]>> = (0..20).map(|_| (0..19).map(|c| [c]).collect()).collect();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut nodes = 0;
        assert_eq!(solve(&rows, 100, &mut rng, &mut nodes), None);
        assert_eq!(nodes, 100);
    }
}
