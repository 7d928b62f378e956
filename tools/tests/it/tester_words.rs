//! Issue 59 item 13: what `tester` says to a newcomer. Its help wraps at words within the
//! terminal (a terminal 100 columns wide cut `beside the report` into `beside the repo` and
//! `rt`), a mistyped subcommand is told the closest name (`rnu`: `run`, not `runs`), `tester
//! score` of an invalid answer prints the official line and exits 1, and an inconclusive A/B
//! names the command that goes on, with its folder and a number of pairs.

use std::path::Path;

use crate::common::{fixture, scratch, tester};

#[test]
fn help_wraps_at_words_within_the_terminal() {
    let commands = [
        "gen", "score", "run", "init", "merge", "rescore", "vis", "compare", "runs", "ab",
    ];
    for command in commands {
        let out = tester()
            .args([command, "--help"])
            .env("COLUMNS", "100")
            .output()
            .unwrap();
        assert!(out.status.success(), "{command}");
        let text = String::from_utf8(out.stdout).unwrap();
        // clap wraps every text but the usage line.
        for line in text.lines().filter(|l| !l.starts_with("Usage: ")) {
            assert!(
                line.chars().count() <= 100,
                "tester {command} --help:\n{line}"
            );
        }
        if command == "compare" {
            let words: Vec<&str> = text.split_whitespace().collect();
            assert!(
                words.join(" ").contains("`REPORT-vis/` beside the report"),
                "{text}"
            );
        }
    }
}

#[test]
fn a_mistyped_subcommand_is_told_the_closest_name() {
    for (typed, tip) in [
        ("rnu", "tip: a similar subcommand exists: 'run'\n"),
        ("rn", "tip: a similar subcommand exists: 'run'\n"),
        (
            "runn",
            "tip: some similar subcommands exist: 'run', 'runs'\n",
        ),
        ("comapre", "tip: a similar subcommand exists: 'compare'\n"),
    ] {
        let out = tester().arg(typed).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(tip), "{typed}: {stderr}");
    }
    let out = tester().arg("x").output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("tip:"));
}

#[test]
fn score_of_an_invalid_answer_prints_the_official_line_and_exits_1() {
    let dir = scratch("tester_words_score");
    std::fs::write(dir.join("bad.out"), "1\n0 0 0 0\n").unwrap();
    let out = tester()
        .current_dir(&dir)
        .args(["score", "--seed", "1", "bad.out"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Start and end locations cannot be the same: 0 0 0 0\nScore = -1.0\n"
    );
    // A valid answer: exit 0.
    let best = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases/best/1.out");
    let out = tester()
        .args(["score", "--seed", "1"])
        .arg(best)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Score = 16.70674230225704\n"
    );
}

#[test]
fn an_inconclusive_ab_names_its_folder_and_a_number_of_pairs() {
    let dir = scratch("tester_words_inconclusive");
    let (crash, ok) = (fixture("crash_odd.sh"), fixture("ok.sh"));
    let out = tester()
        .current_dir(&dir)
        .args([
            "ab",
            "--base-exec",
            &crash,
            "--new-exec",
            &ok,
            "--out",
            "ab",
        ])
        .args([
            "--jobs",
            "2",
            "--max-pairs",
            "15",
            "--no-project",
            "--quiet",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    let go_on = format!(
        "verdict: inconclusive: no bound crossed in 15 pairs (`tester ab --resume --out {} \
         --max-pairs 30` continues with the same pairs)",
        dir.join("ab").canonicalize().unwrap().display()
    );
    assert!(stdout.contains(&go_on), "{stdout}");
}

#[test]
fn runs_shows_no_relative_score_without_a_known_best_and_counts_agree() {
    // Issue 65 item 11: `tester runs` showed `100.000` for runs on seeds absent from the bests
    // file (each measured against its own score), and the words "1 seeds, 1 jobs", "merged 1
    // folders", "goes on with its own the solver".
    let dir = scratch("words-runs-relative");
    let bests = dir.join("bests.json");
    std::fs::write(
        &bests,
        r#"{"bests": [{"seed": 1, "score": 10.0, "source": "a test"}]}"#,
    )
    .unwrap();
    let run = |seeds: &str, name: &str, extra: &[&str]| {
        tester()
            .current_dir(&dir)
            .args(["run", "--no-project", "--seeds", seeds, "--jobs", "1"])
            .args(["--exec", "echo 0", "--bests", "bests.json", "--out"])
            .arg(format!("runs/{name}"))
            .args(extra)
            .output()
            .unwrap()
    };
    let known = run("1", "known", &[]);
    let said = String::from_utf8_lossy(&known.stderr);
    assert!(said.contains("tester run: 1 seed, 1 job, limit"), "{said}");
    assert!(run("2001-2002", "absent", &[]).status.success());
    let out = tester()
        .current_dir(&dir)
        .args(["runs", "runs", "--bests", "bests.json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let row = |name: &str| {
        let line = text.lines().find(|l| l.contains(name)).unwrap_or("");
        line.split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // when, folder, seeds, ok, mean, relative.
    assert_eq!(
        row("absent").get(5).map(String::as_str),
        Some("-"),
        "{text}"
    );
    let relative = row("known").get(5).and_then(|r| r.parse::<f64>().ok());
    assert!(relative.is_some_and(|r| r > 0.0 && r < 100.0), "{text}");
    assert!(
        text.contains("no seed of the run has a best known score"),
        "{text}"
    );
    // The words of a resume and of a merge.
    std::fs::remove_file(dir.join("runs/absent/2002.out")).unwrap();
    let json = dir.join("runs/absent/results.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    doc["results"].as_array_mut().unwrap().truncate(1);
    std::fs::write(&json, doc.to_string()).unwrap();
    let resumed = tester()
        .current_dir(&dir)
        .args(["run", "--no-project", "--resume", "--out", "runs/absent"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&resumed.stderr);
    assert!(
        said.contains("goes on with the options it stored: "),
        "{said}"
    );
    assert!(
        said.contains("its 2 seeds") && !said.contains("its own the"),
        "{said}"
    );
    let merged = tester()
        .current_dir(&dir)
        .args(["merge", "runs/known", "--out", "merged"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&merged.stdout);
    assert!(said.contains("merged 1 folder: 1 seed into"), "{said}");
}

#[test]
fn a_negative_time_limit_gets_the_range_message_everywhere() {
    // Issue 69 item 11: `--time-limit -1` got clap's "unexpected argument '-1'" where `0` got
    // the range. Every option of every subcommand whose name ends in `time-limit`.
    use clap::CommandFactory;
    let cli = tools::cli::Cli::command();
    let mut checked = Vec::new();
    for sub in cli.get_subcommands() {
        for arg in sub.get_arguments() {
            let Some(long) = arg.get_long().filter(|l| l.ends_with("time-limit")) else {
                continue;
            };
            let option = format!("--{long}");
            for value in ["0", "-1", "-0.5"] {
                let out = tester()
                    .args([sub.get_name(), &option, value])
                    .output()
                    .unwrap();
                let err = String::from_utf8_lossy(&out.stderr);
                assert_eq!(out.status.code(), Some(2), "{option} {value}: {err}");
                assert!(
                    err.contains(&format!(
                        "`{value}` is not a time limit in seconds (0 < SECS <= 86400)"
                    )),
                    "tester {} {option} {value}: {err}",
                    sub.get_name()
                );
            }
            checked.push(format!("{} {option}", sub.get_name()));
        }
    }
    assert!(checked.len() >= 4, "{checked:?}");
}
