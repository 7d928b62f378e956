//! The solver's answer survives what goes wrong around it (issue 44): no thread may start,
//! memory runs out, a loaded core, a closed stdout, a signal before any answer. Every case
//! must end with a legal answer written (or, for a closed stdout, a clear error), never an
//! abort, a panic or a hang.

use crate::common::cpu::command_with_cpu;
use crate::common::{self, Load};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};
use tools::input::Input;
use tools::judge::judge;

const EXE: &str = env!("CARGO_BIN_EXE_queenattack");

/// The text of `testcases/NAME`.
fn testcase(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testcases")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs `command` with `input` on stdin and collects its output.
fn run(mut command: Command, input: &str) -> Output {
    let (child, stdin) = common::start_with_input(&mut command, input.as_bytes());
    let out = child.wait_with_output().expect("the solver ends");
    drop(stdin);
    out
}

/// Asserts that `out` ended with exit code 0 and a legal answer for `input`; returns the
/// judged moves and score, and stderr.
fn legal_answer(out: &Output, input: &str, case: &str) -> (usize, f64, String) {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{case}: {err}");
    assert!(!err.contains("panicked"), "{case}: {err}");
    let parsed = Input::parse(input).expect("official input");
    let verdict = judge(&parsed, &String::from_utf8_lossy(&out.stdout));
    assert_eq!(verdict.error(), None, "{case}: {err}");
    (verdict.moves, verdict.score, err)
}

/// `command` with its address space limited to `bytes` (`ulimit -v`).
fn with_address_space(command: &mut Command, bytes: u64) {
    // SAFETY: between fork and exec the closure only calls getrlimit and setrlimit.
    unsafe {
        command.pre_exec(move || {
            let mut limit = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            if libc::getrlimit(libc::RLIMIT_AS, &mut limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            limit.rlim_cur = bytes.min(limit.rlim_max);
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
}

/// Before: `ulimit -u 1` (no thread may start) made the stdin thread's `spawn` panic: exit
/// 101, a backtrace, no answer. The board is now read on the main thread, and runs whose
/// threads cannot start are left out.
#[test]
fn a_solver_that_may_start_no_thread_still_answers() {
    if !common::is_root() {
        eprintln!("NOTICE: not root: `ulimit -u` (not enforced for root) is not tested");
        return;
    }
    let runuser = Command::new("runuser").arg("--version").output();
    if !runuser.is_ok_and(|out| out.status.success()) {
        eprintln!("NOTICE: no runuser: `ulimit -u` (not enforced for root) is not tested");
        return;
    }
    let input = testcase("1.in");
    // a copy that `nobody` may run, wherever the clone is (issue 49)
    let folder = common::SharedFolder::new("no-thread");
    let exe = folder.copy_program(EXE);
    for threads in ["1", "4"] {
        let mut command = Command::new("runuser");
        command.current_dir(folder.path());
        command.args([
            "-u",
            "nobody",
            "--",
            "bash",
            "-c",
            "ulimit -u 1 && exec \"$0\" \"$@\"",
        ]);
        command.arg(&exe);
        command.args(["--time-limit", "1", "--threads", threads]);
        let out = run(command, &input);
        let case = format!("--threads {threads} under ulimit -u 1");
        let (moves, _, _) = legal_answer(&out, &input, &case);
        assert!(moves > 0, "{case}: the empty answer");
    }
}

/// Before: `--threads 64` under `ulimit -v 1000000` (and down to 30 000) started runs until
/// an allocation failed: `memory allocation of 32 bytes failed`, SIGABRT, an empty stdout.
/// Now fewer runs start (at most one per core, and no more than the address space holds).
#[test]
fn threads_under_an_address_space_limit_answer_with_fewer_runs() {
    let input = testcase("2.in");
    for kb in [1_000_000, 150_000, 30_000] {
        let mut command = Command::new(EXE);
        command.args(["--threads", "64", "--time-limit", "1"]);
        with_address_space(&mut command, kb << 10);
        let out = run(command, &input);
        let case = format!("ulimit -v {kb}");
        let (moves, _, err) = legal_answer(&out, &input, &case);
        assert!(moves > 0, "{case}: the empty answer: {err}");
        assert!(
            err.contains("fewer"),
            "{case}: no line says fewer runs start: {err}"
        );
    }
}

/// Before: one run whose memory ran out aborted with an empty stdout (`memory allocation of
/// 65536 bytes failed`). Now the allocator's last resort writes the best answer so far.
#[test]
fn a_run_out_of_memory_writes_the_best_answer_so_far() {
    // N = 128 with one colour. `big_board` at its top: the distance rows are not timed, so the
    // walls-only table (8 MB, grown by doubling) is built however loaded the machine is; timed,
    // a loaded machine projected slow tables and took the greedy descent only, which stayed
    // under 7 MB, and the test failed (issue 49). The address space: the process, the board
    // and the first answer take about 10 MB (at 8 000 KB the first answer never came, at
    // 10 000 KB it did), and the table's growth from 4 to 8 MB does not fit in 20 MB (out of
    // memory at 0.47 s of 10 on a quiet machine; 14 000-30 000 KB all ran out in the rows).
    // `first_share`: the first answer's descent has 0.5 s, a few moves even under load.
    let input = common::random_board(128, 1, 4);
    let mut command = Command::new(EXE);
    command.args(["--time-limit", "10", "--param", "big_board=1000000000"]);
    command.args(["--param", "first_share=0.05"]);
    with_address_space(&mut command, 20_000 << 10);
    let out = run(command, &input);
    let (moves, score, err) = legal_answer(&out, &input, "ulimit -v 20000");
    let expected = "expected the distance tables to run out of 20 MB of address space, then \
                    `queenattack: out of memory … the best answer so far` and `stop = \
                    OutOfMemory` on stderr, with the first answer's score";
    assert!(
        err.contains("queenattack: out of memory"),
        "{expected}; stderr: {err}"
    );
    assert!(
        err.contains("[DATA] stop = OutOfMemory"),
        "{expected}; stderr: {err}"
    );
    assert!(
        err.contains(&format!("score {score:.4}")),
        "{expected} ({score:.4}); stderr: {err}"
    );
    assert!(
        moves > 0,
        "{expected}: the first answer has moves; stderr: {err}"
    );
}

/// Before: 64 runs on a loaded core ended 0.69-0.97 s after a 0.3 s limit (all of them were
/// joined), with the empty answer. Now at most one run per core starts, and the main thread
/// writes the best answer at its deadline whatever the runs are doing.
#[test]
fn threads_keep_the_limit_on_a_loaded_core() {
    let input = common::random_board(128, 100, 9);
    let load = Load::on_one_core(4);
    let mut command = Command::new(EXE);
    command.args(["--threads", "64", "--time-limit", "0.3"]);
    load.pin(&mut command);
    let mark = load.mark();
    let started = Instant::now();
    let (out, cpu) = command_with_cpu(&mut command, input.as_bytes());
    let took = started.elapsed();
    let share = load.share_since(mark);
    drop(load);
    let (.., err) = legal_answer(&out, &input, "64 threads on a loaded core");
    let said = format!(
        "{took:?} of wall time, {cpu:?} of CPU, a busy thread's share of the core {share:.3}: {err}"
    );
    // The work kept the limit: one run on the one core, stopped at its deadline, uses at most
    // the limit's CPU, whatever the load (the 64 runs joined took most of the core until the
    // end, 0.69-0.97 s).
    assert!(cpu < Duration::from_millis(400), "{said}");
    // The limit in wall time, with room for starting the process and ending it: 0.25 s when
    // only this test's four busy threads share the core (each gets a fifth of it), stretched
    // as much as the core was busier than that (at load 12 on 2 cores a busy thread got 0.06
    // of it, and the run took up to 0.552 s: the fixed 0.25 s failed).
    let stretch = (0.2 / share).max(1.0);
    assert!(took.as_secs_f64() < 0.3 + 0.25 * stretch, "{said}");
}

/// Before: on a core shared with eight busy threads, official seed 2 (N 30, C 6, 281
/// attacking pairs) at 0.6 s answered no move at all, 3 runs of 3: the first answer's share
/// (3 ms) had passed before its descent got the core, and the board phase had no time left.
/// Now the descent's first pass of single moves is made in any case.
#[test]
fn a_loaded_core_still_gets_an_answer_better_than_no_move() {
    let input = testcase("2.in");
    let load = Load::on_one_core(8);
    let mut command = Command::new(EXE);
    command.args(["--time-limit", "0.6"]);
    load.pin(&mut command);
    let out = run(command, &input);
    drop(load);
    let (moves, score, err) = legal_answer(&out, &input, "seed 2 on a loaded core");
    let nothing = judge(&Input::parse(&input).unwrap(), "0\n").score;
    assert!(
        moves > 0 && score < nothing,
        "{score} against {nothing}: {err}"
    );
}

/// Before: `queenattack >&-` exited 0 after the whole time limit with no answer anywhere (the
/// standard library reopens a closed stdout on /dev/null).
#[test]
fn a_closed_stdout_is_an_error_at_once() {
    let mut command = Command::new(EXE);
    command.args(["--time-limit", "3"]);
    // SAFETY: between fork and exec the closure only closes descriptor 1.
    unsafe {
        command.pre_exec(|| {
            libc::close(libc::STDOUT_FILENO);
            Ok(())
        })
    };
    let started = Instant::now();
    let out = run(command, &testcase("1.in"));
    let took = started.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("stdout is closed"), "{err}");
    // before reading the board, not after solving it for 2.1 s
    assert!(took < Duration::from_secs(1), "{took:?}");
}

/// Before: under `ulimit -f` the solver died of SIGXFSZ (exit 153, nothing on stderr) with
/// the answer cut at the limit; now the write fails with EFBIG and is reported like a full disk.
#[test]
fn a_file_size_limit_is_reported_like_a_full_disk() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("solver-file-size");
    std::fs::create_dir_all(&dir).unwrap();
    let answer = dir.join("answer.out");
    let mut command = Command::new(EXE);
    command.args(["--time-limit", "0.3"]);
    command.stdout(std::fs::File::create(&answer).unwrap());
    // SAFETY: between fork and exec the closure only calls signal, getrlimit and setrlimit.
    unsafe {
        command.pre_exec(|| {
            // the default action, whatever this test process inherited
            libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
            // any answer of seed 1 is longer than 8 bytes
            let mut limit = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            if libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            limit.rlim_cur = 8;
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the solver starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    std::io::Write::write_all(&mut stdin, testcase("1.in").as_bytes()).unwrap();
    let out = child.wait_with_output().expect("the solver ends");
    drop(stdin);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{:?}: {err}", out.status);
    assert!(err.contains("cannot write the answer"), "{err}");
    assert!(std::fs::metadata(&answer).unwrap().len() <= 8);
}

/// Before: a signal before the first answer wrote the empty answer but logged `score NaN`.
#[test]
fn a_signal_before_any_answer_logs_the_empty_answers_score() {
    // N = 128, C = 10 at 10 s: the first answer's descent takes a quarter of the search time
    // (2.2 s); the signal comes after 1 s
    let input = common::random_board(128, 10, 9);
    let mut command = Command::new(EXE);
    command.args(["--time-limit", "10"]);
    let (child, stdin) = common::start_with_input(&mut command, input.as_bytes());
    std::thread::sleep(Duration::from_secs(1));
    common::signal(&child, libc::SIGTERM);
    let out = child.wait_with_output().expect("the solver ends");
    drop(stdin);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let parsed = Input::parse(&input).expect("official input");
    let verdict = judge(&parsed, &String::from_utf8_lossy(&out.stdout));
    assert_eq!(verdict.error(), None, "{err}");
    assert_eq!(
        verdict.moves, 0,
        "the signal came after the first answer: {err}"
    );
    assert!(!err.contains("NaN"), "{err}");
    assert!(
        err.contains(&format!("score {:.4})", verdict.score)),
        "{}: {err}",
        verdict.score
    );
}

/// Before (issue 65, item 1): the run offered the checkpoint its first answer and its best
/// routed board only after the whole board phase, so a signal during that phase wrote the first
/// answer (seed 5: 342.04 written, 147.98 routed before the signal). Now every better board a
/// stage keeps is offered at once: a signal sent as soon as the log shows a routed board
/// better than the first answer writes an answer at least as good as every score logged.
#[test]
fn a_signal_writes_the_best_routed_board_not_the_first_answer() {
    use std::io::{BufRead, BufReader};
    let input = testcase("3.in");
    let mut command = Command::new(EXE);
    command.args(["--time-limit", "20", "--verbose"]);
    let (mut child, stdin) = common::start_with_input(&mut command, input.as_bytes());
    let stderr = child.stderr.take().expect("stderr is piped");
    let number_after = |line: &str, key: &str| -> Option<f64> {
        let rest = &line[line.find(key)? + key.len()..];
        let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.'));
        rest[..end.unwrap_or(rest.len())].parse().ok()
    };
    let (mut first, mut best, mut log) = (f64::INFINITY, f64::INFINITY, String::new());
    for line in BufReader::new(stderr).lines() {
        let line = line.expect("stderr is text");
        log.push_str(&line);
        log.push('\n');
        if line.contains("first answer:") {
            first = number_after(&line, "score ").expect("the first answer's score");
        }
        for key in ["routed score ", "reordering a top board: score "] {
            best = best.min(number_after(&line, key).unwrap_or(f64::INFINITY));
        }
        if best < first - 1.0 {
            break;
        }
    }
    assert!(
        best < first - 1.0,
        "no routed board beat the first answer: {log}"
    );
    common::signal(&child, libc::SIGTERM);
    let out = child.wait_with_output().expect("the solver ends");
    drop(stdin);
    assert_eq!(out.status.code(), Some(130), "{log}");
    let verdict = judge(
        &Input::parse(&input).expect("official input"),
        &String::from_utf8_lossy(&out.stdout),
    );
    assert_eq!(verdict.error(), None, "{log}");
    // the log prints three decimals
    assert!(
        verdict.score <= best + 5e-4,
        "wrote {} after a routed board of {best} (first answer {first}): {log}",
        verdict.score
    );
}
