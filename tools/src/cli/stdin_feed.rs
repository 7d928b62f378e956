//! The solver's standard input: the case written into a pipe on a thread of its own, as the
//! official tester writes it (every line, then a flush), the pipe kept open until the solver
//! ends; and whether a solver that ran out of time was blocked reading that pipe for more.

use std::io::Write;
use std::os::fd::AsRawFd;
use std::process::{Child, ChildStdin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::resources::start_thread;

/// The solver's stdin being written: the thread writing it (which hands the pipe back open),
/// whether every byte was written, and the pipe's inode.
pub(crate) struct Feeder {
    pub(crate) thread: std::thread::JoinHandle<ChildStdin>,
    fed: Arc<AtomicBool>,
    inode: u64,
}

impl Feeder {
    /// Whether the solver of the process group `pgid` got its whole input and is blocked
    /// reading the pipe for more.
    pub(crate) fn waited_on(&self, pgid: u32) -> bool {
        self.fed.load(Ordering::Acquire)
            && super::proctable::group_reads_pipe(pgid as i32, self.inode)
    }
}

/// Writes `input` to the child's stdin pipe on a thread, as the official tester does (every
/// line, then a flush), and hands the pipe back open: the caller closes it once the solver has
/// ended. A solver that never reads makes the write fail (broken pipe) once it is gone.
pub(crate) fn feed(child: &mut Child, input: Vec<u8>) -> Result<Option<Feeder>, String> {
    let Some(mut pipe) = child.stdin.take() else {
        return Ok(None);
    };
    // SAFETY: `fstat` only writes into the zeroed struct we pass, about a descriptor we own.
    let inode = unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        let ok = libc::fstat(pipe.as_raw_fd(), &mut stat) == 0;
        if ok {
            stat.st_ino
        } else {
            0
        }
    };
    let fed = Arc::new(AtomicBool::new(false));
    let done = Arc::clone(&fed);
    let thread = start_thread("solver input", move || {
        if pipe.write_all(&input).and_then(|()| pipe.flush()).is_ok() {
            done.store(true, Ordering::Release);
        }
        pipe
    })?;
    Ok(Some(Feeder { thread, fed, inode }))
}
