//! A folder every user may enter, for the tests that run a program as another user
//! (`nobody`): the clone, and so the build's binaries, may lie under a folder closed to
//! others (a home folder, mode 0700), where that user's `exec` of the binary is refused:
//! "Permission denied", exit 126 (issue 49). Also included by tools' tests (`#[path]`).

use std::fs;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// A fresh folder under `/tmp` (not `$TMPDIR`, which may be private too), mode 0755 whatever
/// the umask, removed with all it holds when dropped (when a test fails too).
pub struct SharedFolder {
    path: PathBuf,
}

impl SharedFolder {
    /// The folder `/tmp/qa-NAME-PID`, new and empty.
    pub fn new(name: &str) -> SharedFolder {
        let path = Path::new("/tmp").join(format!("qa-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::DirBuilder::new()
            .mode(0o755)
            .create(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // the umask may have taken bits off the mode asked for
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        SharedFolder { path }
    }

    /// The folder's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A copy of the program `exe` in the folder, mode 0755: one that every user may run.
    pub fn copy_program(&self, exe: &str) -> PathBuf {
        let name = Path::new(exe).file_name().expect("a program's file name");
        let program = self.path.join(name);
        fs::copy(exe, &program).unwrap_or_else(|e| panic!("{exe}: {e}"));
        fs::set_permissions(&program, fs::Permissions::from_mode(0o755)).unwrap();
        program
    }
}

impl Drop for SharedFolder {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}
