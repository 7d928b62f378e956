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

/// What an A/B warns when runs of its arms were starved: `arms` holds each arm's label and
/// its results over the pairs. A starved arm scores worse than it is, which pushes the
/// verdict toward the other arm. `None` when no run is starved.
pub fn ab_warning(arms: [(char, Vec<&SeedResult>); 2]) -> Option<String> {
    let counts: Vec<(char, Vec<&SeedResult>, usize)> = arms
        .into_iter()
        .map(|(label, results)| {
            let total = results.len();
            let starved: Vec<&SeedResult> = results.into_iter().filter(|r| starved(r)).collect();
            (label, starved, total)
        })
        .collect();
    let [(a, sa, na), (b, sb, nb)] = [&counts[0], &counts[1]];
    if sa.is_empty() && sb.is_empty() {
        return None;
    }
    let arm = |label: &char, starved: &Vec<&SeedResult>, total: &usize| {
        if starved.is_empty() {
            format!("{label} on 0 of its {total} runs")
        } else {
            format!(
                "{label} on {} of its {total} runs ({})",
                starved.len(),
                listed(starved)
            )
        }
    };
    let bias = match sa.len().cmp(&sb.len()) {
        std::cmp::Ordering::Greater => format!("toward {b}"),
        std::cmp::Ordering::Less => format!("toward {a}"),
        std::cmp::Ordering::Equal => "toward either arm, seed by seed".to_string(),
    };
    Some(format!(
        "runs got less than half a core while they ran (CPU time under {:.0} % of their wall \
         time): {}, {}. A starved run answers worse than its solver can, which biases the \
         verdict ({bias}); run the A/B again with fewer --jobs or on a quiet machine (a solver \
         that sleeps or waits on purpose is counted too)",
        100.0 * STARVED_SHARE,
        arm(a, sa, na),
        arm(b, sb, nb)
    ))
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
    fn the_ab_warning_names_the_arm_the_verdict_leans_to() {
        let (a, b) = ([run(1, 1000, 100), run(2, 1000, 900)], [run(1, 1000, 950)]);
        let w = ab_warning([('A', a.iter().collect()), ('B', b.iter().collect())]).unwrap();
        assert!(w.contains("A on 1 of its 2 runs (seed 1 (10 %))"), "{w}");
        assert!(w.contains("B on 0 of its 1 runs"), "{w}");
        assert!(w.contains("biases the verdict (toward B)"), "{w}");
        let healthy = [run(1, 1000, 1000)];
        let none = ab_warning([
            ('A', healthy.iter().collect()),
            ('B', healthy.iter().collect()),
        ]);
        assert_eq!(none, None);
    }
}
