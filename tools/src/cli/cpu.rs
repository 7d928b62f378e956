//! Runs that got much less CPU than wall time: a solver starved by a busy machine answers
//! worse than it can, and its score looks like a bad solver's.
//!
//! The rule: a run is *starved* when it ran at least [`MIN_WALL_MS`] of wall time and its CPU
//! time (user + system, the solver's processes, see [`super::exec::RunOutcome::cpu`]) is below
//! [`STARVED_SHARE`] of it. A single-threaded solver that computes until its deadline (as
//! `queenattack` does) uses about one core for the whole run; below half a core it lost more
//! than half of its time to other processes, as if it had run at under half the limit. A
//! solver with several threads uses more than one core, so the rule misses some of its
//! starved runs but never flags a healthy one; a solver that sleeps or waits on purpose is
//! flagged (the warnings say so). Runs shorter than [`MIN_WALL_MS`] (process start, a solver
//! that answers at once) are not judged.
//!
//! `tester ab` goes further ([`unfair_pair`]): a pair does not count when an arm was starved
//! or got less than [`EVEN_SHARE`] of the other arm's share (an arm niced or in a smaller
//! cgroup gets, say, 60 % of a core: above half, yet far behind). There only runs that used at
//! least half their time limit are judged: a run that ended sooner was not cut short by its
//! time, so the CPU it got did not shape its answer (and a fixture that answers at once on a
//! loaded machine is not called starved).

use super::report::SeedResult;

/// Below this share of its wall time in CPU time a run is starved.
pub const STARVED_SHARE: f64 = 0.5;

/// Runs shorter than this (milliseconds of wall time) are never called starved.
pub const MIN_WALL_MS: u64 = 200;

/// The CPU time of `r` as a share of its wall time, when both are known and the run lasted
/// at least [`MIN_WALL_MS`].
pub fn cpu_share(r: &SeedResult) -> Option<f64> {
    let (wall, cpu) = (r.wall_ms?, r.cpu_ms?);
    (wall >= MIN_WALL_MS).then(|| cpu as f64 / wall as f64)
}

/// Whether `r` is starved (see the module documentation).
///
/// # Examples
///
/// ```
/// use tools::cli::cpu::starved;
/// use tools::cli::report::SeedResult;
/// use tools::input::Input;
///
/// let input = Input::new(1, 1, vec![1]).unwrap();
/// let mut r = SeedResult::judged(2, &input, None, "0\n");
/// (r.wall_ms, r.cpu_ms) = (Some(1000), Some(300));
/// assert!(starved(&r));
/// r.cpu_ms = Some(600);
/// assert!(!starved(&r));
/// (r.wall_ms, r.cpu_ms) = (Some(100), Some(1)); // too short to tell
/// assert!(!starved(&r));
/// ```
pub fn starved(r: &SeedResult) -> bool {
    cpu_share(r).is_some_and(|share| share < STARVED_SHARE)
}

/// `seed 2 (31 %), seed 5 (40 %), …`: the first starved runs of `results` with their share.
fn listed(results: &[&SeedResult]) -> String {
    let mut parts: Vec<String> = results
        .iter()
        .take(5)
        .map(|r| {
            let share = cpu_share(r).unwrap_or(0.0);
            format!("seed {} ({:.0} %)", r.seed, 100.0 * share)
        })
        .collect();
    if results.len() > 5 {
        parts.push("…".to_string());
    }
    parts.join(", ")
}

/// What a run's report warns about its starved seeds; `None` when none is.
pub fn run_warning(results: &[SeedResult]) -> Option<String> {
    let starved: Vec<&SeedResult> = results.iter().filter(|r| starved(r)).collect();
    if starved.is_empty() {
        return None;
    }
    Some(format!(
        "{} of {} seeds got less than half a core while they ran (CPU time under {:.0} % of \
         their wall time: {}): the machine was busy (other work, or more --jobs than free \
         cores), and a starved solver answers worse than it can. Their scores say little about \
         the solver: run them again on a quiet machine or with fewer --jobs (a solver that \
         sleeps or waits on purpose is counted too); `cpu_ms` and `wall_ms` in results.json \
         give each seed's times",
        starved.len(),
        results.len(),
        100.0 * STARVED_SHARE,
        listed(&starved)
    ))
}

/// In an A/B, a pair whose arm got less than this share of the other arm's CPU share (each
/// capped at one core) ran unevenly: the arm that got less computed less than its solver can.
pub const EVEN_SHARE: f64 = 0.9;

/// Whether `r` ran at least half of its time limit `limit` (seconds): only then was the time
/// what bounded it, so only then did the CPU it got shape its answer. A run that ended sooner
/// (the solver was done, a fixture that answers at once) is not judged on its CPU.
fn time_bound(r: &SeedResult, limit: f64) -> bool {
    r.wall_ms
        .is_some_and(|wall| wall as f64 >= 500.0 * limit && limit > 0.0)
}

/// The CPU share of a time-bound run of an A/B arm with limit `limit` (see [`cpu_share`]),
/// capped at one core (a solver's extra threads do not make up for another's lost core).
fn arm_share(r: &SeedResult, limit: f64) -> Option<f64> {
    time_bound(r, limit)
        .then(|| cpu_share(r))
        .flatten()
        .map(|s| s.min(1.0))
}

/// Why a pair of an A/B is not counted: `A got 31 % of a core` (an arm under
/// [`STARVED_SHARE`]) or `A got 62 % of a core, B 99 %` (one under [`EVEN_SHARE`] of the
/// other's share). Only runs that ran at least half their time limit are judged; `limits`
/// holds A's and B's, in seconds. `None`: the pair counts.
///
/// # Examples
///
/// ```
/// use tools::cli::cpu::unfair_pair;
/// use tools::cli::report::SeedResult;
/// use tools::input::Input;
///
/// let input = Input::new(1, 1, vec![1]).unwrap();
/// let run = |wall, cpu| {
///     let mut r = SeedResult::judged(2, &input, None, "0\n");
///     (r.wall_ms, r.cpu_ms) = (Some(wall), Some(cpu));
///     r
/// };
/// assert_eq!(unfair_pair(&run(1000, 980), &run(1000, 990), [1.0, 1.0]), None);
/// assert_eq!(unfair_pair(&run(1000, 300), &run(1000, 990), [1.0, 1.0]).unwrap(), "A got 30 % of a core");
/// assert_eq!(unfair_pair(&run(1000, 600), &run(1000, 990), [1.0, 1.0]).unwrap(), "A got 60 % of a core, B 99 %");
/// // A run that ended before half its limit is not judged: the time did not bound it.
/// assert_eq!(unfair_pair(&run(1000, 300), &run(1000, 990), [10.0, 1.0]), None);
/// ```
pub fn unfair_pair(a: &SeedResult, b: &SeedResult, limits: [f64; 2]) -> Option<String> {
    let shares = [arm_share(a, limits[0]), arm_share(b, limits[1])];
    let percent = |s: f64| format!("{:.0} %", 100.0 * s);
    let starved = shares
        .iter()
        .zip(['A', 'B'])
        .filter_map(|(s, label)| Some((s.filter(|&s| s < STARVED_SHARE)?, label)))
        .min_by(|x, y| x.0.total_cmp(&y.0));
    if let Some((share, label)) = starved {
        return Some(format!("{label} got {} of a core", percent(share)));
    }
    let [Some(sa), Some(sb)] = shares else {
        return None;
    };
    (sa.min(sb) < EVEN_SHARE * sa.max(sb))
        .then(|| format!("A got {} of a core, B {}", percent(sa), percent(sb)))
}

/// The geometric mean of B's CPU share over A's (each capped at one core), over the pairs of
/// `pairs` (A's result, B's result) where both runs were time-bound (`limits`: A's and B's
/// time limits in seconds), and how many pairs that is; `None` when none was.
pub fn share_ratio<'a>(
    pairs: impl IntoIterator<Item = (&'a SeedResult, &'a SeedResult)>,
    limits: [f64; 2],
) -> Option<(f64, usize)> {
    let logs: Vec<f64> = pairs
        .into_iter()
        .filter_map(|(a, b)| {
            let (sa, sb) = (arm_share(a, limits[0])?, arm_share(b, limits[1])?);
            (sa > 0.0 && sb > 0.0).then(|| (sb / sa).ln())
        })
        .collect();
    (!logs.is_empty()).then(|| {
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        (mean.exp(), logs.len())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Input;

    fn run(seed: u64, wall: u64, cpu: u64) -> SeedResult {
        let input = Input::new(1, 1, vec![1]).unwrap();
        let mut r = SeedResult::judged(seed, &input, None, "0\n");
        (r.wall_ms, r.cpu_ms) = (Some(wall), Some(cpu));
        r
    }

    #[test]
    fn starved_runs_are_named_with_their_share() {
        let results = [run(1, 1000, 990), run(2, 1000, 310), run(3, 50, 0)];
        let w = run_warning(&results).unwrap();
        assert!(
            w.starts_with("1 of 3 seeds got less than half a core"),
            "{w}"
        );
        assert!(w.contains("seed 2 (31 %)"), "{w}");
        assert_eq!(run_warning(&results[..1]), None);
        // Older results without a CPU time are never starved.
        let mut old = run(4, 1000, 0);
        old.cpu_ms = None;
        assert_eq!(run_warning(&[old]), None);
    }

    #[test]
    fn pairs_are_judged_on_the_cpu_each_arm_got() {
        let limits = [1.0, 1.0];
        // Both starved: the smaller share is named.
        let why = unfair_pair(&run(1, 1000, 400), &run(1, 1000, 200), limits).unwrap();
        assert_eq!(why, "B got 20 % of a core");
        // A solver with two threads (180 %) against one with one core: even (capped at 1).
        assert_eq!(
            unfair_pair(&run(1, 1000, 1800), &run(1, 1000, 950), limits),
            None
        );
        // 85 % against 100 %: under 90 % of the other's share.
        assert!(unfair_pair(&run(1, 1000, 850), &run(1, 1000, 1000), limits).is_some());
        assert_eq!(
            unfair_pair(&run(1, 1000, 910), &run(1, 1000, 1000), limits),
            None
        );
        // A run with no CPU time recorded (an older folder) is not judged.
        let mut old = run(1, 1000, 0);
        old.cpu_ms = None;
        assert_eq!(unfair_pair(&old, &run(1, 1000, 1000), limits), None);
        // The mean ratio of the shares, over the pairs where both are known.
        let pairs = [
            (run(1, 1000, 900), run(1, 1000, 990)),
            (run(2, 1000, 1000), run(2, 1000, 1000)),
            (run(3, 100, 10), run(3, 1000, 1000)),
        ];
        let (ratio, n) = share_ratio(pairs.iter().map(|(a, b)| (a, b)), limits).unwrap();
        assert_eq!(n, 2);
        assert!((ratio - 1.1f64.sqrt()).abs() < 1e-9, "{ratio}");
    }
}
