//! Helpers shared by the integration tests of the root package.

pub mod cpu;
mod shared_folder;

pub use shared_folder::SharedFolder;
use std::io::Write;
use std::process::{Child, ChildStdin, Command, Output, Stdio};

/// Runs the binary `exe` with `args`, writes `input` to its standard input from a second thread
/// (so a large output cannot dead-lock against a large input; a program that stops reading
/// early only breaks the pipe, which is ignored), and collects its exit status and output.
pub fn run_with_input(exe: &str, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {exe}: {e}"));
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let data = input.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("the program finishes");
    feeder.join().expect("the input thread ends");
    out
}

/// Starts `command` with stdin, stdout and stderr piped and writes `input` (a board: less than
/// a pipe holds) to its stdin, which stays open, as under the official tester; returns the
/// child and its stdin. A failed write is ignored (the program's output says what happened).
#[allow(dead_code)]
pub fn start_with_input(command: &mut Command, input: &[u8]) -> (Child, ChildStdin) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the program starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // a program that ends before reading (a refused option) only breaks the pipe
    let _ = stdin.write_all(input);
    (child, stdin)
}

/// Sends `signal` to `child`.
#[allow(dead_code)]
pub fn signal(child: &Child, signal: libc::c_int) {
    // SAFETY: kill has no memory preconditions; the child is ours and not yet reaped.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    assert_eq!(sent, 0, "kill");
}

/// The official input text of a random board: walls on about a tenth of the cells, then `n`
/// queens of each of the `c` colours on random free cells ([`Board::random`]).
#[allow(dead_code)] // not every test crate makes boards
pub fn random_board(n: usize, c: usize, seed: u64) -> String {
    use rand::SeedableRng;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    queenattack::solver::board::Board::random(n, c, 0.1, &mut rng).to_string()
}

/// Busy threads on one core, beside a command pinned to the same core: a loaded machine that
/// does not depend on how many cores it has, and leaves the other cores to the other tests.
#[allow(dead_code)] // not every test crate loads the machine
pub struct Load {
    cpu: usize,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
    /// The CPU time the busy threads have had, all together, in nanoseconds (each adds its own
    /// about every 50 µs of it).
    used: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

#[allow(dead_code)]
impl Load {
    /// `busy` threads spinning on the last core this process may use, each for at most
    /// 60 s (they stop when the `Load` is dropped).
    pub fn on_one_core(busy: usize) -> Load {
        use std::sync::atomic::{AtomicBool, Ordering};
        // SAFETY: a zeroed cpu_set_t is an empty set; the call fills it.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `set` is a valid cpu_set_t of the size given.
        let got = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
        assert_eq!(got, 0, "sched_getaffinity");
        let cpu = (0..libc::CPU_SETSIZE as usize)
            .rev()
            // SAFETY: `cpu` is below CPU_SETSIZE.
            .find(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
            .expect("some core");
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let used = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let threads = (0..busy)
            .map(|_| {
                let (stop, used) = (std::sync::Arc::clone(&stop), std::sync::Arc::clone(&used));
                std::thread::spawn(move || {
                    pin_to(cpu).expect("pinned");
                    let started = std::time::Instant::now();
                    let mut counted = cpu::thread_cpu();
                    let mut spins = 0u32;
                    while !stop.load(Ordering::Relaxed)
                        && started.elapsed() < std::time::Duration::from_secs(60)
                    {
                        std::hint::spin_loop();
                        spins = spins.wrapping_add(1);
                        if spins % 1024 == 0 {
                            let now = cpu::thread_cpu();
                            used.fetch_add((now - counted).as_nanos() as u64, Ordering::Relaxed);
                            counted = now;
                        }
                    }
                })
            })
            .collect();
        Load {
            cpu,
            stop,
            threads,
            used,
        }
    }

    /// The CPU time the busy threads have had so far, all together, and the time now: the
    /// start of a [`Load::share_since`].
    pub fn mark(&self) -> (std::time::Duration, std::time::Instant) {
        let used = self.used.load(std::sync::atomic::Ordering::Relaxed);
        (
            std::time::Duration::from_nanos(used),
            std::time::Instant::now(),
        )
    }

    /// The share of the loaded core each busy thread got since `mark`: how crowded the core
    /// was (with `busy` threads and one more runnable thread beside them on an idle core,
    /// `1 / (busy + 1)`; less when other processes ran there too).
    pub fn share_since(&self, mark: (std::time::Duration, std::time::Instant)) -> f64 {
        let (used, now) = self.mark();
        let wall = (now - mark.1).as_secs_f64() * self.threads.len() as f64;
        (used - mark.0).as_secs_f64() / wall
    }

    /// Makes `command` run on the loaded core.
    pub fn pin(&self, command: &mut Command) {
        use std::os::unix::process::CommandExt;
        let cpu = self.cpu;
        // SAFETY: between fork and exec the closure only calls sched_setaffinity.
        unsafe { command.pre_exec(move || pin_to(cpu)) };
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// Pins the calling thread (or the process between fork and exec) to `cpu`.
#[allow(dead_code)]
fn pin_to(cpu: usize) -> std::io::Result<()> {
    // SAFETY: a zeroed cpu_set_t is an empty set; `cpu` is below CPU_SETSIZE.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: `set` is a valid cpu_set_t of the size given.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Whether the tests run as root (`runuser`, limits only root may lift).
#[allow(dead_code)]
pub fn is_root() -> bool {
    // SAFETY: `geteuid` has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The official text of the board of issue 44's bound cases: N = 11, C = 2, colour 1 fills
/// row 0, colour 2 row 1, the rest empty. The proof search's first expansions are slow
/// there: one queen's children take about 0.15 s.
#[allow(dead_code)]
pub fn two_rows_board() -> String {
    let n = 11;
    let mut text = format!("{n}\n2\n");
    for cell in 0..n * n {
        let value = match cell / n {
            0 => 1,
            1 => 2,
            _ => 0,
        };
        text.push_str(&format!("{value}\n"));
    }
    text
}
