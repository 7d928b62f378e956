//! The current build of `tester ab`: an arm with neither a revision nor a command (and no
//! `tester.toml` solver) is what the working tree builds.
//!
//! When the `queenattack` beside `tester` is the build of the repository the A/B runs in (it
//! lies inside that repository, as `target/release/queenattack` does, or the dep-info file
//! `queenattack.d` that cargo writes beside it lists that repository's sources), the arm's
//! build is `cargo build --release --bin queenattack` in the repository's top folder, into the
//! binary's own target folder, followed by the copy into `OUT/bin/`: the arm runs the working
//! tree, uncommitted changes included (on a tree already built, cargo only checks, about a
//! second). Otherwise the binary is copied as it is, and a warning says so when its dep-info
//! names a source that changed after it was built.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::cli::command::run::default_solver;
use crate::cli::exec::Solver;

/// `text` quoted for `sh` (in single quotes).
pub fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// How the current build is made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Current {
    /// The copy the arm runs, `OUT/bin/queenattack`.
    pub copy: PathBuf,
    /// The shell line that builds the working tree and copies the binary (when the binary is
    /// that tree's build); without it, the binary is already copied.
    pub build: Option<String>,
    /// Why the copied binary may not be what its sources build now.
    pub stale: Option<String>,
}

/// The current build of an A/B in `out`, in the repository whose top folder is `top` (the
/// one holding the current folder, if any).
pub fn plan(out: &Path, top: Option<&Path>) -> Result<Current, String> {
    let copy = out.join("bin").join("queenattack");
    let Solver::Program { path, .. } = default_solver(1.0)? else {
        unreachable!("the default solver is a program");
    };
    if let Some((top, target)) = top.and_then(|t| Some((t, target_of(&path, t)?))) {
        let bin = out.join("bin");
        let q = |p: &Path| sh_quote(&p.to_string_lossy());
        // The copy is written whole and then renamed: a stopped copy leaves no half binary.
        let line = format!(
            "cd {} && export CARGO_TARGET_DIR={} && cargo build --release --bin queenattack && \
             mkdir -p {} && cp {} {}.new && mv {}.new {}",
            q(top),
            q(&target),
            q(&bin),
            q(&path),
            q(&copy),
            q(&copy),
            q(&copy)
        );
        return Ok(Current {
            copy,
            build: Some(line),
            stale: None,
        });
    }
    if !copy.is_file() {
        let bin = bin_of(&copy);
        std::fs::create_dir_all(&bin)
            .map_err(|e| format!("cannot create {}: {e}", bin.display()))?;
        std::fs::copy(&path, &copy)
            .map_err(|e| format!("cannot copy {} to {}: {e}", path.display(), copy.display()))?;
    }
    let stale = newer_source(&path).map(|source| {
        format!(
            "it runs {}, built before {} last changed: not what its sources build now. Build it \
             first (cargo build --release), or run tester ab in the repository it is built \
             from, which builds it",
            path.display(),
            source.display()
        )
    });
    Ok(Current {
        copy,
        build: None,
        stale,
    })
}

/// The folder of `copy`.
fn bin_of(copy: &Path) -> PathBuf {
    copy.parent().map_or_else(PathBuf::new, Path::to_path_buf)
}

/// The target folder (`T` of `T/release/queenattack`) of `binary` when it is the release
/// build of the cargo project in `top`: it lies inside `top`, or its dep-info lists a source
/// inside `top`.
fn target_of(binary: &Path, top: &Path) -> Option<PathBuf> {
    let release = binary.parent()?;
    if release.file_name()? != "release" || !top.join("Cargo.toml").is_file() {
        return None;
    }
    let top = top.canonicalize().ok()?;
    let inside = binary.canonicalize().ok()?.starts_with(&top);
    let listed =
        dep_info(binary).is_some_and(|sources| sources.iter().any(|s| s.starts_with(&top)));
    (inside || listed).then(|| release.parent().map(Path::to_path_buf))?
}

/// The sources cargo lists in `BINARY.d` (the dep-info file beside a binary it built), when
/// that file names `binary` itself as what it built (a target folder copied from elsewhere
/// names another).
fn dep_info(binary: &Path) -> Option<Vec<PathBuf>> {
    let text = std::fs::read_to_string(binary.with_extension("d")).ok()?;
    let line = text.lines().next()?;
    let mut words = make_words(line).into_iter();
    let built = words.next()?;
    let built = PathBuf::from(built.strip_suffix(':')?);
    if built.canonicalize().ok()? != binary.canonicalize().ok()? {
        return None;
    }
    Some(words.map(PathBuf::from).collect())
}

/// The words of a dep-info line: split at spaces, `\ ` being a space inside a word.
fn make_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => word.extend(chars.next()),
            ' ' | '\t' => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            _ => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// A source in `binary`'s dep-info changed after `binary` was written, if one did.
fn newer_source(binary: &Path) -> Option<PathBuf> {
    let modified = |p: &Path| -> Option<SystemTime> { std::fs::metadata(p).ok()?.modified().ok() };
    let built = modified(binary)?;
    dep_info(binary)?
        .into_iter()
        .find(|s| modified(s).is_some_and(|m| m > built))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dep_info_words_keep_escaped_spaces() {
        assert_eq!(
            make_words(r"/t/release/queenattack: /a b/src/main.rs /a\ b/src/lib.rs"),
            [
                "/t/release/queenattack:",
                "/a",
                "b/src/main.rs",
                "/a b/src/lib.rs"
            ]
        );
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn a_binary_is_the_trees_build_when_inside_it_or_listed_by_its_dep_info() {
        let root = std::env::temp_dir().join(format!("qa-ab-current-{}", std::process::id()));
        let (tree, elsewhere) = (root.join("tree"), root.join("elsewhere/release"));
        std::fs::create_dir_all(tree.join("target/release")).unwrap();
        std::fs::create_dir_all(tree.join("src")).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(tree.join("Cargo.toml"), "").unwrap();
        std::fs::write(tree.join("src/main.rs"), "").unwrap();
        let inside = tree.join("target/release/queenattack");
        let outside = elsewhere.join("queenattack");
        for bin in [&inside, &outside] {
            std::fs::write(bin, "").unwrap();
        }
        assert_eq!(target_of(&inside, &tree), Some(tree.join("target")));
        // Outside the tree: only with a dep-info naming this binary and the tree's sources.
        assert_eq!(target_of(&outside, &tree), None);
        let main = tree.join("src/main.rs").canonicalize().unwrap();
        let info = |built: &Path| format!("{}: {}\n", built.display(), main.display());
        std::fs::write(outside.with_extension("d"), info(&inside)).unwrap();
        assert_eq!(target_of(&outside, &tree), None, "it names another binary");
        std::fs::write(outside.with_extension("d"), info(&outside)).unwrap();
        assert_eq!(target_of(&outside, &tree), Some(root.join("elsewhere")));
        // A source written after the binary: stale.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(tree.join("src/main.rs"), "fn main() {}").unwrap();
        assert_eq!(newer_source(&outside), Some(main));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
