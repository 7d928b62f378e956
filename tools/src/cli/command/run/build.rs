//! The build step of `tester run`: one command run with `sh -c` before the seeds.
//!
//! The build is a child of `tester` like a solver, and ends like one: it runs in its own process
//! group with `PR_SET_PDEATHSIG` (it dies with `tester`, even by SIGKILL) and the run marker
//! `QA_TESTER_RUN=TESTERPID-build` (after a SIGKILL the guardian finds its descendants by it).
//! SIGINT, SIGTERM and SIGHUP to `tester` end the build's group at once; when the build ends,
//! whatever it left running (in its group or carrying its marker) is ended too. Its standard
//! output and error share one pipe that is read as it comes; only the last [`SHOWN_OUTPUT`]
//! bytes are kept, so a build printing gigabytes costs `tester` no memory.

use std::fs::File;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::cli::exec::{die_with_tester, exited_unreaped, kill_group, start_thread};
use crate::cli::reaper::{self, Target, MARKER_VAR};

/// The most build output kept and shown when the build fails (its end), in bytes.
pub const SHOWN_OUTPUT: usize = 64 << 10;

/// How often the running build is checked (exit, interrupt).
const POLL: Duration = Duration::from_millis(20);

/// How long the end of the output is awaited once the build and its processes are gone (a
/// descendant that escaped every kill may hold the pipe open for ever).
const DRAIN: Duration = Duration::from_secs(2);

/// Why the build step stops the run: the exit code of `tester run` and the message for stderr.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildFailure {
    /// 3 when the build failed, 128 + the signal when `tester` was interrupted during it, 2
    /// when `tester` could not start the thread that reads its output.
    pub code: i32,
    /// What happened, with the end of the build's output when it failed.
    pub message: String,
}

/// The end of a stream: its last [`SHOWN_OUTPUT`] bytes and how many bytes came before them.
#[derive(Debug, Default)]
struct Tail {
    kept: Vec<u8>,
    cut: u64,
}

impl Tail {
    /// Appends `bytes`, dropping the oldest once twice the cap is held (so each byte is moved
    /// at most once or twice).
    fn push(&mut self, bytes: &[u8]) {
        self.kept.extend_from_slice(bytes);
        if self.kept.len() > 2 * SHOWN_OUTPUT {
            self.trim();
        }
    }

    /// Keeps only the last [`SHOWN_OUTPUT`] bytes.
    fn trim(&mut self) {
        let extra = self.kept.len().saturating_sub(SHOWN_OUTPUT);
        self.kept.drain(..extra);
        self.cut += extra as u64;
    }

    /// The kept text, after `[... K bytes cut ...]` when some were dropped.
    fn text(mut self) -> String {
        self.trim();
        // The cut may fall inside a character: start at the next whole one.
        let start = self
            .kept
            .iter()
            .take(4)
            .position(|&b| b & 0xC0 != 0x80)
            .filter(|_| self.cut > 0)
            .unwrap_or(0);
        let text = String::from_utf8_lossy(&self.kept[start..]).into_owned();
        match self.cut + start as u64 {
            0 => text,
            cut => format!("[... {cut} bytes cut ...]\n{text}"),
        }
    }
}

/// A pipe whose ends are both closed on exec: (read end, write end).
fn pipe() -> std::io::Result<(File, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `pipe2` writes two new descriptors into the array we pass.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    unsafe { Ok((File::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))) }
}

/// The tail being read and the news of its end, from [`read_tail`].
type TailReader = (Arc<Mutex<Tail>>, mpsc::Receiver<()>);

/// Reads `from` to its end on a thread into a shared [`Tail`]; the receiver hears when the end
/// came. A thread that cannot start is an error.
fn read_tail(mut from: File) -> Result<TailReader, String> {
    let tail = Arc::new(Mutex::new(Tail::default()));
    let (tx, rx) = mpsc::channel();
    let shared = Arc::clone(&tail);
    start_thread("build output", move || {
        let mut buf = vec![0u8; 64 << 10];
        loop {
            match from.read(&mut buf) {
                Ok(0) => break,
                Ok(k) => shared
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(&buf[..k]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = tx.send(());
    })?;
    Ok((tail, rx))
}

/// Runs the build command with `sh -c` in the current folder and waits for it, ending it early
/// when `tester` is interrupted. `Err` holds the exit code and the message for the user: the
/// command, how it ended, and the end of its output.
pub fn build(command: &str, quiet: bool) -> Result<(), BuildFailure> {
    if !quiet {
        crate::diag!("tester run: build `{command}` ...");
    }
    let start = Instant::now();
    let (status, signal, tail) = run(command)?;
    if let Some(signal) = signal {
        return Err(BuildFailure {
            code: 128 + signal,
            message: format!(
                "tester run: interrupted by {} during the build `{command}`: the build was \
                 stopped, nothing was run",
                reaper::signal_name(signal)
            ),
        });
    }
    if status.success() {
        if !quiet {
            let secs = start.elapsed().as_secs_f64();
            crate::diag!("tester run: build ok in {secs:.1} s");
        }
        return Ok(());
    }
    let shown = tail.text();
    let how = match status.code() {
        Some(code) => format!("exit code {code}"),
        None => "killed by a signal".to_string(),
    };
    let newline = if shown.is_empty() || shown.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    Err(BuildFailure {
        code: 3,
        message: format!(
            "{shown}{newline}tester run: the build `{command}` failed ({how}): nothing was run"
        ),
    })
}

/// Starts `sh -c command` and waits for it: its exit status, the signal that interrupted
/// `tester` meanwhile (the build is then killed), and the end of its output. The build not
/// starting is exit code 3; `tester`'s own thread not starting, 2.
fn run(command: &str) -> Result<(ExitStatus, Option<i32>, Tail), BuildFailure> {
    let failed = |code, what: String| BuildFailure {
        code,
        message: format!("tester run: build `{command}`: {what}"),
    };
    let cannot_start = |e: std::io::Error| failed(3, format!("cannot start sh: {e}"));
    let (reader, writer) = pipe().map_err(cannot_start)?;
    // The reader starts first: a thread that cannot start leaves nothing running.
    let (tail, done) = read_tail(reader).map_err(|e| failed(2, e))?;
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer.try_clone().map_err(cannot_start)?))
        .stderr(Stdio::from(writer))
        .env(MARKER_VAR, reaper::build_marker())
        .process_group(0);
    die_with_tester(&mut cmd);
    crate::cli::resources::default_signals(&mut cmd);
    let spawned = cmd.spawn();
    // The command holds our copies of the write end: dropped, the pipe ends with the build.
    drop(cmd);
    let mut child = spawned.map_err(cannot_start)?;
    let pid = child.id();
    let mut signal = None;
    while !exited_unreaped(pid, false) {
        if signal.is_none() {
            signal = reaper::interrupted();
            if signal.is_some() {
                kill_group(pid);
            }
        }
        std::thread::sleep(POLL);
    }
    // What the build left in its group, then what left the group, ends with it.
    kill_group(pid);
    let status = child
        .wait()
        .map_err(|e| failed(3, format!("cannot wait for sh: {e}")))?;
    reaper::sweep(Target::Seed(&reaper::build_marker()));
    let _ = done.recv_timeout(DRAIN);
    let tail = std::mem::take(&mut *tail.lock().unwrap_or_else(|e| e.into_inner()));
    Ok((status, signal, tail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_keeps_the_last_bytes_only() {
        let mut tail = Tail::default();
        for _ in 0..1000 {
            tail.push(&[b'a'; 1000]);
            assert!(tail.kept.len() <= 2 * SHOWN_OUTPUT);
        }
        tail.push(b"end\n");
        let text = tail.text();
        let cut = 1_000_004 - SHOWN_OUTPUT;
        assert!(
            text.starts_with(&format!("[... {cut} bytes cut ...]\n")),
            "{text:.80}"
        );
        assert!(text.ends_with("aaend\n"));
        assert_eq!(text.len() - text.find('\n').unwrap() - 1, SHOWN_OUTPUT);
    }

    #[test]
    fn a_cut_inside_a_character_starts_at_the_next_one() {
        // 90 000 bytes of 3-byte characters: the last 65 536 start inside one.
        let mut tail = Tail::default();
        tail.push("€".repeat(30_000).as_bytes());
        let text = tail.text();
        let (head, body) = text.split_once('\n').unwrap();
        assert!(body.chars().all(|c| c == '€'), "{:?}", &body[..8]);
        assert_eq!(head, format!("[... {} bytes cut ...]", 90_000 - body.len()));
    }

    #[test]
    fn short_output_is_kept_whole() {
        let mut tail = Tail::default();
        tail.push(b"compiling\n");
        assert_eq!(tail.text(), "compiling\n");
    }
}
