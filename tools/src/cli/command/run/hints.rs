//! Advice printed after a run where a newcomer meets a trap: what went wrong and the command
//! that avoids it.

use std::path::Path;

use super::TIME_LIMIT_MARK;
use crate::cli::exec::Solver;
use crate::cli::quote::{printable, shell_word};
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
         limit in the command, e.g. --exec \"{} --time-limit {secs}\", or write \
         `--time-limit {TIME_LIMIT_MARK}` there: tester replaces it by the run's limit",
        results.len(),
        printable(command, 200)
    ))
}

/// What the message of a seed killed at the limit says when the solver had read its whole
/// input and was blocked reading for more ([`crate::cli::exec::RunOutcome::waited_for_input`]).
pub(super) const WAITED_FOR_INPUT: &str =
    "it had read the whole input and was waiting for more on stdin";

/// What to do about it: the official tester's stdin stays open too.
const READ_EXACTLY: &str = "read exactly N·N cells after N and C, then answer: stdin stays \
    open until you answer, as the official tester does";

/// The message of a seed of side `n` killed at the limit `secs` while it waited for input.
pub(super) fn waited_message(secs: f64, n: usize) -> String {
    format!(
        "killed after the time limit of {secs} s; {WAITED_FOR_INPUT} (here N = {n}: {} cells): \
         {READ_EXACTLY}",
        n * n
    )
}

/// Whether `r` timed out waiting for more input (its message says so).
fn waited(r: &SeedResult) -> bool {
    r.status == Status::Timeout
        && r.message
            .as_deref()
            .is_some_and(|m| m.contains(WAITED_FOR_INPUT))
}

/// Why a solver that waited for more input timed out (what to do follows: [`READ_EXACTLY`]).
const READS_TO_THE_END: &str = "it reads to the end of stdin (like `sys.stdin.read()` or \
    `while (cin >> x)`), which never comes while it runs; ";

/// When seeds timed out waiting for more input: the cause, said once for the run. Neither the
/// limit nor a busy machine is to blame for those.
fn input_hint(results: &[SeedResult]) -> Option<String> {
    let seeds: Vec<String> = results
        .iter()
        .filter(|r| waited(r))
        .map(|r| r.seed.to_string())
        .collect();
    if seeds.is_empty() {
        return None;
    }
    let shown = seeds.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    Some(format!(
        "{} of {} seeds timed out because the solver read its whole input and waited for more \
         ({} {shown}{}): {READS_TO_THE_END}{READ_EXACTLY}",
        seeds.len(),
        results.len(),
        if seeds.len() == 1 { "seed" } else { "seeds" },
        if seeds.len() > 5 { ", …" } else { "" }
    ))
}

/// Finished seeds, each of which waited for more input, after which a run stops: such a
/// solver times out on every seed, and a first run at the project file's 10 s would take
/// minutes to tell it.
pub(super) const STOP_AFTER: usize = 3;

/// The finished seeds of a run, for what is said while it runs: at the first seed that
/// waited for more input, why; once [`STOP_AFTER`] seeds have finished and each waited, the
/// run stops starting seeds.
#[derive(Debug, Default)]
pub(super) struct Watch {
    finished: usize,
    waited: usize,
    stopped: bool,
}

impl Watch {
    /// Counts `result`; returns what to say now.
    pub(super) fn count(&mut self, result: &SeedResult) -> Option<String> {
        self.finished += 1;
        if !waited(result) {
            return None;
        }
        self.waited += 1;
        if self.waited == self.finished && self.finished >= STOP_AFTER && !self.stopped {
            self.stopped = true;
            return Some(format!(
                "each of the first {} seeds timed out waiting for more input on stdin: no \
                 further seed starts (the seeds still running finish)",
                self.finished
            ));
        }
        (self.waited == 1).then(|| {
            format!(
                "seed {} timed out because the solver read its whole input and waited for \
                 more: {READS_TO_THE_END}{READ_EXACTLY}",
                result.seed
            )
        })
    }

    /// Whether the run stopped starting seeds (see [`Watch`]).
    pub(super) fn stopped(&self) -> bool {
        self.stopped
    }
}

/// The last word of a run that [`Watch`] stopped after `finished` of `seeds` seeds, its
/// folder `dir`.
pub(super) fn stopped_early(finished: usize, seeds: usize, dir: &std::path::Path) -> String {
    format!(
        "stopped early: {finished} of {seeds} seeds finished, every one of them waiting on \
         stdin. Change the solver to answer once it has read N·N cells, then run again; \
         `tester run --resume --out {}` would run the other seeds and keep these",
        dir.display()
    )
}

/// The advice after a run of `solver` at the limit `secs`: seeds that waited for more input
/// ([`input_hint`]), the timeouts of a command with no limit ([`time_limit_hint`]) and the
/// seeds starved of CPU ([`crate::cli::cpu::run_warning`]), those two over the other seeds.
pub(super) fn after_run(solver: &Solver, results: &[SeedResult], secs: f64) -> Vec<String> {
    let others: Vec<SeedResult> = results.iter().filter(|r| !waited(r)).cloned().collect();
    input_hint(results)
        .into_iter()
        .chain(time_limit_hint(solver, &others, secs))
        .chain(crate::cli::cpu::run_warning(&others))
        .collect()
}

/// After a run on the official cases without a bests file (none named, no
/// `testcases/bests.json` here or in a project folder above): how to name one, and the bounds.
/// The example is the bests file of the project this `tester` was built in, when it has one.
pub(super) fn no_bests_hint() -> String {
    let project = std::env::current_exe().ok().and_then(|exe| {
        exe.ancestors()
            .find(|d| d.join("testcases/bests.json").is_file())
            .map(Path::to_path_buf)
    });
    let example = project.map_or(String::new(), |d| {
        // One word for sh, and no control character reaches the terminal.
        let file = |name: &str| printable(&shell_word(&d.join(name)), 300);
        format!(
            ", e.g. --bests {} --bounds {}",
            file("testcases/bests.json"),
            file("testcases/bounds.json")
        )
    });
    format!(
        "no bests file: testcases/bests.json is neither in this folder nor in a project folder \
         above it, so the relative score and the gaps to the bounds are left out. Name the files \
         with --bests FILE and --bounds FILE (or `bests` in tester.toml){example}"
    )
}

/// The `--time-limit` values a shell command line gives (`--time-limit 10`,
/// `--time-limit=10`, quoted or not).
fn named_limits(command: &str) -> Vec<f64> {
    let words: Vec<&str> = command
        .split_ascii_whitespace()
        .map(|w| w.trim_matches(['\'', '"']))
        .collect();
    let mut limits = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let value = match word.strip_prefix("--time-limit") {
            Some("") => words.get(i + 1).copied(),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        };
        limits.extend(value.and_then(|v| v.trim_matches(['\'', '"']).parse::<f64>().ok()));
    }
    limits
}

/// Before the run: when the solver command names a `--time-limit` longer than the run's
/// limit `secs`, the solver aims past the moment tester kills it (every seed that uses its
/// time ends `timeout`): a warning, with the placeholder that passes the run's limit.
pub(super) fn longer_limit_warning(solver: &Solver, secs: f64) -> Option<String> {
    let Solver::Shell(command) = solver else {
        return None;
    };
    let longest = named_limits(command).into_iter().reduce(f64::max)?;
    (longest > secs).then(|| {
        format!(
            "the solver command `{}` gives the solver --time-limit {longest}, longer than the \
             run's limit of {secs} s: tester kills every seed still running at {secs} s (status \
             timeout), before the solver's own deadline. Write `--time-limit {TIME_LIMIT_MARK}` \
             in the command (tester.toml's `solver` or --exec; tester puts the run's limit \
             there), or run with --time-limit {longest}",
            printable(command, 200)
        )
    })
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

    #[test]
    fn a_command_that_aims_past_the_run_s_limit_is_named() {
        let shell = |c: &str| Solver::Shell(c.into());
        let w = longer_limit_warning(&shell("./q --time-limit 10 --seed 2"), 1.0).unwrap();
        assert!(
            w.starts_with(
                "the solver command `./q --time-limit 10 --seed 2` gives the solver \
                 --time-limit 10, longer than the run's limit of 1 s"
            ),
            "{w}"
        );
        assert!(
            w.contains("Write `--time-limit {time_limit}` in the command"),
            "{w}"
        );
        assert!(longer_limit_warning(&shell("./q --time-limit='12'"), 10.0).is_some());
        assert_eq!(
            longer_limit_warning(&shell("./q --time-limit 1"), 1.0),
            None
        );
        assert_eq!(
            longer_limit_warning(&shell("./q --time-limit 0.9"), 1.0),
            None
        );
        assert_eq!(longer_limit_warning(&shell("./q"), 1.0), None);
        let program = Solver::Program {
            path: "q".into(),
            args: vec!["--time-limit".into(), "10".into()],
        };
        assert_eq!(longer_limit_warning(&program, 1.0), None);
    }
}
