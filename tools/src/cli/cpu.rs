//! Runs that got much less CPU than wall time: a solver starved by a busy machine answers
//! worse than it can, and its score looks like a bad solver's.
//!
//! `tester run`'s rule (its warnings, `tester compare`'s): a run is *starved* when it ran at
//! least [`MIN_WALL_MS`] of wall time, was ready to run (on a CPU or waiting for one) at least
//! [`READY_SHARE`] of it, and its CPU time (user + system, the solver's processes, see
//! [`super::exec::RunOutcome::cpu`]) is below [`STARVED_SHARE`] of the time it was ready to
//! run: it lost more than half of what it asked for to other processes, as if it had run at
//! under half the limit. A solver that sleeps or waits on purpose is not ready to run while it
//! does, so it is not judged; runs shorter than [`MIN_WALL_MS`] (process start, a solver that
//! answers at once) are not either. A record without the wait (`wait_ms`: older folders, a
//! kernel that does not tell it) is judged on its CPU time over its wall time instead, which
//! also names a solver that sleeps.
//!
//! `tester ab` judges a pair by what the machine *denied* its arms instead ([`unfair_pair`]):
//! the time each run was ready to run but waited for a CPU (its run-queue wait, `wait_ms`, see
//! [`super::runqueue`]). An arm's share is its CPU time over the time it was ready to run (CPU
//! plus wait): what it got of what it asked for. A pair does not count when an arm got under
//! [`STARVED_SHARE`] of it, or under [`EVEN_SHARE`] of the other arm's share (an arm niced
//! beside busy work gets, say, 60 %: above half, yet far behind). Only runs that were on their
//! way are judged: they answered or timed out (a crash, an invalid or too long answer is the
//! arm's loss whatever CPU it got), ran at least half their time limit (a run that ended
//! sooner was not cut short by its time), and were ready to run at least [`READY_SHARE`] of
//! their wall time. So a solver that sleeps, blocks on its input or computes little by its own
//! choice is never starved: what it did not use was not denied, and its timeout is its loss.
//! Runs without a recorded wait (older folders, a kernel without schedstat) are not judged.

use super::report::SeedResult;

/// Below this share a run is starved: of its wall time in CPU time (`tester run`), of the time
/// it was ready to run (`tester ab`).
pub const STARVED_SHARE: f64 = 0.5;

/// Runs shorter than this (milliseconds of wall time) are never called starved.
pub const MIN_WALL_MS: u64 = 200;

/// The share of a core `r` got of what it asked for, when it is judged (see the module
/// documentation): its CPU time over the time it was ready to run (CPU time plus run-queue
/// wait), or over its wall time when no wait was recorded.
pub fn cpu_share(r: &SeedResult) -> Option<f64> {
    let (wall, cpu) = (r.wall_ms?, r.cpu_ms?);
    if wall < MIN_WALL_MS {
        return None;
    }
    let Some(wait) = r.wait_ms else {
        return Some(cpu as f64 / wall as f64);
    };
    let ready = (cpu + wait) as f64;
    (ready > 0.0 && ready >= READY_SHARE * wall as f64).then(|| cpu as f64 / ready)
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
/// // ready to run the whole second, on a CPU for 0.3 s of it
/// (r.wall_ms, r.cpu_ms, r.wait_ms) = (Some(1000), Some(300), Some(700));
/// assert!(starved(&r));
/// r.wait_ms = Some(5); // asleep by its own choice: nothing denied
/// assert!(!starved(&r));
/// r.wait_ms = None; // an older record: CPU over wall time
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
        "{} of {} seeds got less than half a core while ready to run (CPU time under {:.0} % \
         of the time they computed or waited for a CPU: {}): the machine was busy (other work, \
         or more --jobs than free cores), and a starved solver answers worse than it can. Their \
         scores say little about the solver: run them again on a quiet machine or with fewer \
         --jobs; `cpu_ms`, `wait_ms` and `wall_ms` in results.json give each seed's times",
        starved.len(),
        results.len(),
        100.0 * STARVED_SHARE,
        listed(&starved)
    ))
}

/// In an A/B, a pair whose arm got less than this share of the other arm's share of a core
/// (while ready to run) ran unevenly: the arm that got less computed less than its solver can.
pub const EVEN_SHARE: f64 = 0.9;

/// An A/B run is judged on the CPU it got only when it was ready to run (on a CPU or waiting
/// for one) at least this share of its wall time.
pub const READY_SHARE: f64 = 0.5;

/// The mean share of a core of each arm ([`share_ratio`]) is taken over the runs ready to run
/// at least this share of their wall time: solvers that compute until their deadline. A run
/// that sleeps often by its own choice waits for a CPU after each wake-up too: a stand-in
/// computing 60 % of every 50 ms, quiet beside a busy one, got 95 % of a core while ready to
/// its 99–100 %, and the 4.6 % looked like an arm given less CPU.
pub const BUSY_READY_SHARE: f64 = 0.9;

/// Whether `r` ran at least half of its time limit `limit` (seconds): only then was the time
/// what bounded it, so only then did the CPU it got shape its answer. A run that ended sooner
/// (the solver was done, a fixture that answers at once) is not judged on its CPU.
fn time_bound(r: &SeedResult, limit: f64) -> bool {
    r.wall_ms
        .is_some_and(|wall| wall as f64 >= 500.0 * limit && limit > 0.0)
}

/// The share of a core a run of an A/B arm with limit `limit` got while it was ready to run
/// (CPU time over CPU time plus run-queue wait), when it is judged (see the module
/// documentation): it answered or timed out, ran at least half its limit and was ready to run
/// at least `min_ready` of its wall time ([`READY_SHARE`] to judge a pair,
/// [`BUSY_READY_SHARE`] for the arms' mean share).
fn arm_share(r: &SeedResult, limit: f64, min_ready: f64) -> Option<f64> {
    use super::report::Status;
    if !matches!(r.status, Status::Ok | Status::Timeout) || !time_bound(r, limit) {
        return None;
    }
    let (wall, cpu, wait) = (r.wall_ms? as f64, r.cpu_ms? as f64, r.wait_ms? as f64);
    let ready = cpu + wait;
    (ready > 0.0 && ready >= min_ready * wall).then(|| cpu / ready)
}

/// A share in whole percent, as said and as judged (a run said to get 50 % is not under half).
fn percent(share: f64) -> u32 {
    (100.0 * share).round() as u32
}

/// Why a pair of an A/B is not counted: `A got 31 % of a core while ready to run` (an arm
/// under [`STARVED_SHARE`]) or `A got 62 % of a core while ready to run, B 99 %` (one under
/// [`EVEN_SHARE`] of the other's share), the shares rounded to whole percents before they are
/// compared. Only runs on their way are judged (see the module documentation); `limits` holds
/// A's and B's time limits in seconds. `None`: the pair counts.
///
/// # Examples
///
/// ```
/// use tools::cli::cpu::unfair_pair;
/// use tools::cli::report::SeedResult;
/// use tools::input::Input;
///
/// let input = Input::new(1, 1, vec![1]).unwrap();
/// let run = |wall, cpu, wait| {
///     let mut r = SeedResult::judged(2, &input, None, "0\n");
///     (r.wall_ms, r.cpu_ms, r.wait_ms) = (Some(wall), Some(cpu), Some(wait));
///     r
/// };
/// let (a, b) = (run(1000, 300, 700), run(1000, 990, 10));
/// assert_eq!(unfair_pair(&a, &b, [1.0, 1.0]).unwrap(), "A got 30 % of a core while ready to run");
/// let a = run(1000, 600, 400);
/// assert_eq!(unfair_pair(&a, &b, [1.0, 1.0]).unwrap(), "A got 60 % of a core while ready to run, B 99 %");
/// // A run that ended before half its limit is not judged: the time did not bound it.
/// assert_eq!(unfair_pair(&run(1000, 300, 700), &b, [10.0, 1.0]), None);
/// // Nor one that used little CPU by its own choice: it waited for no CPU.
/// assert_eq!(unfair_pair(&run(1000, 170, 5), &b, [1.0, 1.0]), None);
/// ```
pub fn unfair_pair(a: &SeedResult, b: &SeedResult, limits: [f64; 2]) -> Option<String> {
    let shares = [(a, limits[0]), (b, limits[1])]
        .map(|(r, limit)| arm_share(r, limit, READY_SHARE).map(percent));
    let starved = shares
        .iter()
        .zip(['A', 'B'])
        .filter_map(|(s, label)| {
            Some((s.filter(|&s| f64::from(s) < 100.0 * STARVED_SHARE)?, label))
        })
        .min();
    if let Some((share, label)) = starved {
        return Some(format!(
            "{label} got {share} % of a core while ready to run"
        ));
    }
    let [Some(sa), Some(sb)] = shares else {
        return None;
    };
    (f64::from(sa.min(sb)) < EVEN_SHARE * f64::from(sa.max(sb)))
        .then(|| format!("A got {sa} % of a core while ready to run, B {sb} %"))
}

/// The geometric mean of B's share of a core over A's (each while ready to run), over the
/// pairs of `pairs` (A's result, B's result) where both runs were judged (`limits`: A's and
/// B's time limits in seconds) and ready to run at least [`BUSY_READY_SHARE`] of their wall
/// time, and how many pairs that is; `None` when none was.
pub fn share_ratio<'a>(
    pairs: impl IntoIterator<Item = (&'a SeedResult, &'a SeedResult)>,
    limits: [f64; 2],
) -> Option<(f64, usize)> {
    let busy = |r: &SeedResult, limit: f64| arm_share(r, limit, BUSY_READY_SHARE);
    let logs: Vec<f64> = pairs
        .into_iter()
        .filter_map(|(a, b)| {
            let (sa, sb) = (busy(a, limits[0])?, busy(b, limits[1])?);
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
    use crate::cli::report::Status;
    use crate::input::Input;

    /// A run of `wall` ms that used `cpu` ms and waited `wall - cpu` for a CPU (one thread,
    /// ready to run the whole time).
    fn run(seed: u64, wall: u64, cpu: u64) -> SeedResult {
        waited(seed, wall, cpu, wall.saturating_sub(cpu))
    }

    /// A run of `wall` ms that used `cpu` ms and waited `wait` ms for a CPU.
    fn waited(seed: u64, wall: u64, cpu: u64, wait: u64) -> SeedResult {
        let input = Input::new(1, 1, vec![1]).unwrap();
        let mut r = SeedResult::judged(seed, &input, None, "0\n");
        (r.wall_ms, r.cpu_ms, r.wait_ms) = (Some(wall), Some(cpu), Some(wait));
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
    fn pairs_are_judged_on_the_cpu_each_arm_got_while_ready_to_run() {
        let limits = [1.0, 1.0];
        // Both starved: the smaller share is named.
        let why = unfair_pair(&run(1, 1000, 400), &run(1, 1000, 200), limits).unwrap();
        assert_eq!(why, "B got 20 % of a core while ready to run");
        // Two threads that ran 1800 ms and waited 100 ms, against one thread at 95 %: even.
        assert_eq!(
            unfair_pair(&waited(1, 1000, 1800, 100), &run(1, 1000, 950), limits),
            None
        );
        // 85 % against 100 %: under 90 % of the other's share.
        assert!(unfair_pair(&run(1, 1000, 850), &run(1, 1000, 1000), limits).is_some());
        assert_eq!(
            unfair_pair(&run(1, 1000, 910), &run(1, 1000, 1000), limits),
            None
        );
        // A run with no CPU time or no wait recorded (an older folder) is not judged.
        for unknown in [
            |r: &mut SeedResult| r.cpu_ms = None,
            |r: &mut SeedResult| r.wait_ms = None,
        ] {
            let mut old = run(1, 1000, 0);
            unknown(&mut old);
            assert_eq!(unfair_pair(&old, &run(1, 1000, 1000), limits), None);
        }
        // The mean ratio of the shares, over the pairs where both are judged.
        let pairs = [
            (run(1, 1000, 900), run(1, 1000, 990)),
            (run(2, 1000, 1000), run(2, 1000, 1000)),
            (run(3, 100, 10), run(3, 1000, 1000)),
        ];
        let (ratio, n) = share_ratio(pairs.iter().map(|(a, b)| (a, b)), limits).unwrap();
        assert_eq!(n, 2);
        assert!((ratio - 1.1f64.sqrt()).abs() < 1e-9, "{ratio}");
    }

    /// Issue 69 items 1, 2 and 11: a run that sleeps, hangs or computes little by its own
    /// choice uses little CPU but waits for none: it is not starved, whatever its status (its
    /// failure is its arm's loss). One said to get 50 % is not under half a core.
    #[test]
    fn only_what_the_machine_denied_starves_a_run() {
        let limits = [1.0, 1.0];
        let quick = run(1, 1000, 990);
        let failed = |status, wall, cpu, wait| {
            let mut r = waited(1, wall, cpu, wait);
            (r.status, r.score) = (status, -1.0);
            r
        };
        // B slept until it was killed at the limit (item 1), or slept then crashed (item 2).
        for b in [
            failed(Status::Timeout, 1000, 0, 1),
            failed(Status::Crash, 700, 0, 1),
        ] {
            assert_eq!(unfair_pair(&quick, &b, limits), None, "{b:?}");
        }
        // A crash or an invalid answer is the arm's loss even when the machine was busy.
        assert_eq!(
            unfair_pair(&quick, &failed(Status::Crash, 900, 100, 800), limits),
            None
        );
        // A timeout the machine caused (ready to run, denied a core) is starved.
        let denied = failed(Status::Timeout, 1000, 200, 800);
        assert_eq!(
            unfair_pair(&quick, &denied, limits).unwrap(),
            "B got 20 % of a core while ready to run"
        );
        // A Python-like arm at 17 % of a core by choice (item 11): not judged.
        assert_eq!(unfair_pair(&waited(1, 1000, 170, 5), &quick, limits), None);
        // 49.7 % of a core is said and judged as 50 % (item 11): not under half.
        let half = waited(1, 1000, 500, 500);
        assert_eq!(unfair_pair(&half, &waited(1, 1000, 497, 503), limits), None);
        let low = waited(1, 1000, 494, 506);
        assert_eq!(
            unfair_pair(&low, &half, limits).unwrap(),
            "A got 49 % of a core while ready to run"
        );
    }

    /// Issue 69: an arm that sleeps often by its own choice waits for a CPU at each wake-up;
    /// beside a busy arm that looked like 4.6 % less CPU and withheld a verdict. Only arms
    /// ready to run nearly all their time enter the mean of the shares.
    #[test]
    fn an_arm_that_sleeps_often_is_left_out_of_the_mean_share() {
        let limits = [0.6, 0.6];
        // 60 % computing, 18 ms of wake-up waits, against a busy arm
        let pairs = [
            (waited(1, 600, 360, 18), waited(1, 600, 590, 8)),
            (waited(2, 600, 355, 17), waited(2, 600, 592, 6)),
        ];
        assert_eq!(share_ratio(pairs.iter().map(|(a, b)| (a, b)), limits), None);
        // both busy: the mean of the shares, as before
        let busy = [(waited(1, 600, 560, 40), waited(1, 600, 590, 10))];
        let (ratio, n) = share_ratio(busy.iter().map(|(a, b)| (a, b)), limits).unwrap();
        assert_eq!(n, 1);
        assert!(
            (ratio - (590.0 / 600.0) / (560.0 / 600.0)).abs() < 1e-9,
            "{ratio}"
        );
    }
}
