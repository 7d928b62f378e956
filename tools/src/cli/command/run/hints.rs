//! Advice printed after a run where a newcomer meets a trap: what went wrong and the command
//! that avoids it.

use crate::cli::exec::Solver;
use crate::cli::quote::printable;
use crate::cli::report::{SeedResult, Status};

/// When at least half the seeds timed out with an `--exec` command that names no
/// `--time-limit`, why (tester gives such a command no limit: only its default solver gets
/// `--time-limit SECS` appended, so a solver keeps its own default, 10 s for `queenattack`)
/// and how to pass the limit `secs`; else nothing.
pub(super) fn time_limit_hint(
    solver: &Solver,
    results: &[SeedResult],
    secs: f64,
) -> Option<String> {
    let Solver::Shell(command) = solver else {
        return None;
    };
    let timeouts = results
        .iter()
        .filter(|r| r.status == Status::Timeout)
        .count();
    if timeouts == 0 || 2 * timeouts < results.len() || command.contains("--time-limit") {
        return None;
    }
    Some(format!(
        "{timeouts} of {} seeds timed out at the limit of {secs} s. --exec runs its command as \
         written and does not pass it the limit (only the default solver gets `--time-limit \
         {secs}` appended), so a solver keeps its own (queenattack's default is 10 s). Put the \
         limit in the command, e.g. --exec \"{} --time-limit {secs}\"",
        results.len(),
        printable(command, 200)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{generate, Ranges};

    fn results(timeouts: usize, ok: usize) -> Vec<SeedResult> {
        let input = generate(1, &Ranges::default()).input;
        let mut all = Vec::new();
        for _ in 0..timeouts {
            all.push(SeedResult::failed(
                1,
                &input,
                None,
                Status::Timeout,
                "x".into(),
            ));
        }
        for _ in 0..ok {
            all.push(SeedResult::judged(1, &input, None, "0\n"));
        }
        all
    }

    #[test]
    fn the_hint_names_the_limit_only_when_most_seeds_timed_out_without_one() {
        let bare = Solver::Shell("./target/release/queenattack --seed 7".into());
        let hint = time_limit_hint(&bare, &results(10, 0), 1.0).unwrap();
        assert!(
            hint.starts_with("10 of 10 seeds timed out at the limit of 1 s"),
            "{hint}"
        );
        assert!(
            hint.contains("--exec \"./target/release/queenattack --seed 7 --time-limit 1\""),
            "{hint}"
        );
        assert!(time_limit_hint(&bare, &results(5, 5), 1.0).is_some());
        assert_eq!(time_limit_hint(&bare, &results(4, 6), 1.0), None);
        assert_eq!(time_limit_hint(&bare, &results(0, 3), 1.0), None);
        let limited = Solver::Shell("./q --time-limit 0.9".into());
        assert_eq!(time_limit_hint(&limited, &results(10, 0), 1.0), None);
        let default = Solver::Program {
            path: "queenattack".into(),
            args: vec!["--time-limit".into(), "1".into()],
        };
        assert_eq!(time_limit_hint(&default, &results(10, 0), 1.0), None);
    }
}
