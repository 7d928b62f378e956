//! An output named on the command line (`vis -o`, `vis --gif`, `compare --html` and its
//! `--vis` pages) is never one of the files the command reads: writing it would destroy that
//! input (`tester vis --seed 3 a.out -o a.out`). Nor is it `-`, which reads as standard output
//! but would be a file of that name. Files are compared as files, by device and
//! inode, whatever their spelling: `./a.out`, an absolute path, a symbolic link to the input,
//! a hard link of it, `/dev/stdout` while standard output is the input file.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The files a command reads, each with what it is for messages.
#[derive(Debug, Default)]
pub struct Inputs {
    files: Vec<(u64, u64, String)>,
}

impl Inputs {
    /// No input yet.
    pub fn new() -> Inputs {
        Inputs::default()
    }

    /// Adds the file at `path` (followed through links), described as `role` (`the answer`,
    /// `the input`); `-` (standard input) and a path where no file is are no file to keep.
    pub fn add(&mut self, path: &Path, role: &str) {
        if path.as_os_str() == "-" {
            return;
        }
        if let Ok(meta) = std::fs::metadata(path) {
            let what = format!("{role} {}", path.display());
            self.files.push((meta.dev(), meta.ino(), what));
        }
    }

    /// Adds every path of `paths` as `role` (see [`Inputs::add`]).
    pub fn add_all(&mut self, paths: impl IntoIterator<Item = PathBuf>, role: &str) {
        for path in paths {
            self.add(&path, role);
        }
    }

    /// Refuses the output `output` (given with `flag`, as `-o`) when it is the same file as an
    /// input (the message names both), or `-`.
    ///
    /// # Examples
    ///
    /// ```
    /// use tools::cli::same_file::Inputs;
    ///
    /// let dir = std::env::temp_dir().join(format!("qa-same-file-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(dir.join("a.out"), "0\n").unwrap();
    /// let mut inputs = Inputs::new();
    /// inputs.add(&dir.join("a.out"), "the answer");
    /// let err = inputs.check_output("-o", &dir.join(".").join("a.out")).unwrap_err();
    /// assert!(err.contains("is the same file as the answer"), "{err}");
    /// assert!(inputs.check_output("-o", &dir.join("page.html")).is_ok());
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn check_output(&self, flag: &str, output: &Path) -> Result<(), String> {
        if output.as_os_str() == "-" {
            return Err(format!(
                "{flag} -: `-` is no file name here (it would be a file named `-`, not standard \
                 output): give a file, or /dev/stdout to write to standard output"
            ));
        }
        let Ok(meta) = std::fs::metadata(output) else {
            return Ok(());
        };
        let same = self
            .files
            .iter()
            .find(|(dev, ino, _)| (*dev, *ino) == (meta.dev(), meta.ino()));
        match same {
            None => Ok(()),
            Some((_, _, what)) => Err(format!(
                "{flag} {} is the same file as {what}, which this command reads: writing it \
                 would destroy that input; choose another file",
                output.display()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn links_of_an_input_are_the_input_and_other_files_are_not() {
        let dir = std::env::temp_dir().join(format!("qa-same-file-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let input = dir.join("a.out");
        fs::write(&input, "0\n").unwrap();
        fs::hard_link(&input, dir.join("hard.out")).unwrap();
        std::os::unix::fs::symlink("a.out", dir.join("soft.out")).unwrap();
        fs::write(dir.join("other.out"), "0\n").unwrap();
        let mut inputs = Inputs::new();
        inputs.add(&dir.join("soft.out"), "the answer");
        inputs.add(Path::new("-"), "the answer");
        inputs.add(&dir.join("missing.in"), "the input");
        for same in ["a.out", "hard.out", "soft.out"] {
            let err = inputs.check_output("--gif", &dir.join(same)).unwrap_err();
            assert!(err.starts_with("--gif "), "{err}");
            assert!(err.contains("soft.out"), "{err}");
        }
        for other in ["other.out", "missing.in", "new.html"] {
            assert!(
                inputs.check_output("-o", &dir.join(other)).is_ok(),
                "{other}"
            );
        }
        let err = inputs.check_output("--html", Path::new("-")).unwrap_err();
        assert!(err.contains("/dev/stdout"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
