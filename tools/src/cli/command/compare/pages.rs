//! `tester compare --vis`: pages of two answers side by side for the seeds where a run did
//! worst against `A`, linked from the report's seed table; and the folders of a `tester ab`
//! folder given alone.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::{label, Comparison, Row};
use crate::cli::readcap::{read_input_text, read_text};
use crate::cli::same_file::Inputs;
use crate::vis::pair::{render_pair_page, Answer, PairData};

/// The run folders to compare: `dirs` as given, or, for one folder written by `tester ab`
/// (it holds `ab.json`), its arms `base/` (A) and `new/` (B).
pub fn run_folders(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    match dirs {
        [one] if one.join("ab.json").is_file() => Ok(vec![one.join("base"), one.join("new")]),
        [one] => Err(format!(
            "{} alone: give two or more run folders, or one folder written by tester ab \
             (it holds ab.json)",
            crate::cli::quote::printable(&one.display().to_string(), 200)
        )),
        _ => Ok(dirs.to_vec()),
    }
}

/// The side-by-side pages written, by (seed, run paired with `A`): their addresses relative
/// to the report.
#[derive(Debug, Default)]
pub struct Written {
    /// Relative address of each page, by (seed, index of the run against `A`).
    pub links: BTreeMap<(u64, usize), String>,
    /// The folder of the pages.
    pub dir: PathBuf,
    /// Seeds left without a page, with the reason.
    pub skipped: Vec<String>,
}

impl Written {
    /// One line for the terminal: how many pages, where, and what was left out.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "side-by-side pages: {} in {}",
            self.links.len(),
            self.dir.display()
        );
        if !self.skipped.is_empty() {
            s.push_str(&format!(
                " (none for {}: {})",
                self.skipped.len(),
                self.skipped.join(", ")
            ));
        }
        s
    }
}

/// Refuses `--vis` unless the report `html` is a regular file that its pages' folder can sit
/// beside: a new name, a file or a link (replaced by the report); not a device, a pipe or a
/// path under `/dev` or `/proc` (written as a stream: `--html /dev/null --vis` would make
/// `/dev/null-vis/`), nor a folder.
pub fn check_report_for_pages(html: &Path) -> Result<(), String> {
    let why = if crate::cli::replace::is_stream(html).unwrap_or(true) {
        "a device, a pipe or a system path (under /dev or /proc)"
    } else if fs::symlink_metadata(html).is_ok_and(|m| m.is_dir()) {
        "a folder"
    } else {
        return Ok(());
    };
    Err(format!(
        "--vis writes its pages into a folder beside the report, so --html must name a regular \
         file, and {} is {why}: name a file for --html, or leave out --vis",
        html.display()
    ))
}

/// The folder of the side-by-side pages of report `html`: `REPORT-vis` beside it.
pub fn pages_dir(html: &Path) -> PathBuf {
    let stem = html
        .file_stem()
        .map_or_else(|| "report".into(), |s| s.to_string_lossy().into_owned());
    html.with_file_name(format!("{stem}-vis"))
}

/// The `count` seeds (0: all) where run `b` did worst against `A`, worst first.
pub fn worst_seeds(c: &Comparison, b: usize, count: usize) -> Vec<u64> {
    let mut rows: Vec<&Row> = c
        .rows
        .iter()
        .filter(|r| r.results[0].is_some() && r.results[b].is_some())
        .collect();
    rows.sort_by(|x, y| y.loss(b).total_cmp(&x.loss(b)).then(x.seed.cmp(&y.seed)));
    let count = if count == 0 { rows.len() } else { count };
    rows.into_iter().take(count).map(|r| r.seed).collect()
}

/// The file name of the page of `seed`, run `b` against `A`, among `runs` runs:
/// `seed-2.html`, or `seed-2-C-vs-A.html` when more than one run is paired with `A`.
pub fn page_name(seed: u64, b: usize, runs: usize) -> String {
    if runs <= 2 {
        format!("seed-{seed}.html")
    } else {
        format!("seed-{seed}-{}-vs-A.html", label(b))
    }
}

/// Writes the side-by-side page of each run against `A` for its `count` worst seeds into
/// [`pages_dir`] of `html`; a page that would be one of the `inputs` is refused.
pub fn write_pages(
    c: &Comparison,
    html: &Path,
    count: usize,
    inputs: &Inputs,
) -> Result<Written, String> {
    let dir = pages_dir(html);
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let folder = dir
        .file_name()
        .map_or_else(String::new, |n| url_escape(&n.to_string_lossy()));
    let mut written = Written {
        dir: dir.clone(),
        ..Written::default()
    };
    for b in 1..c.runs.len() {
        for seed in worst_seeds(c, b, count) {
            let name = page_name(seed, b, c.runs.len());
            match pair_data(c, seed, b)? {
                Ok(data) => {
                    let path = dir.join(&name);
                    inputs.check_output("--vis", &path)?;
                    crate::cli::replace::write_output(&path, render_pair_page(&data).as_bytes())
                        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                    written.links.insert((seed, b), format!("{folder}/{name}"));
                }
                Err(why) => written.skipped.push(format!("seed {seed} ({why})")),
            }
        }
    }
    Ok(written)
}

/// A file of a run folder (`SEED.in`, `SEED.out`) as text, `None` when there is none; anything
/// there but a regular file is an error (a named pipe is never waited on).
fn folder_text(
    path: &Path,
    read: fn(&Path) -> Result<String, String>,
) -> Result<Option<String>, String> {
    if fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    read(path).map(Some)
}

/// The page data of `seed`, `A` against run `b` (`Ok(Err(why))`: no page for it, and why):
/// the case from a folder's `SEED.in`, each answer from its `SEED.out` (a missing one is
/// empty: the page says it is rejected). A file there that cannot be read (a named pipe, a
/// folder) is an error.
fn pair_data(c: &Comparison, seed: u64, b: usize) -> Result<Result<PairData, String>, String> {
    let mut input = None;
    for i in [0, b] {
        input = input.or(folder_text(&c.runs[i].input_file(seed), read_input_text)?);
    }
    let Some(input) = input else {
        return Ok(Err("no SEED.in in the folders".to_string()));
    };
    let answer = |i: usize| -> Result<Answer, String> {
        let path = c.runs[i].dir.join(format!("{seed}.out"));
        let output = folder_text(&path, read_text)?.unwrap_or_default();
        let result = c
            .rows
            .iter()
            .find(|r| r.seed == seed)
            .and_then(|r| r.results[i].as_ref());
        let verdict = result.map_or(String::new(), |r| {
            format!(" ({} {})", r.status.as_str(), r.score)
        });
        Ok(Answer {
            name: format!("{}{verdict}", path.display()),
            output,
        })
    };
    let p = c.runs[0].get(seed).and_then(|r| r.p);
    Ok(Ok(PairData {
        input,
        answers: [answer(0)?, answer(b)?],
        seed: Some(seed),
        p,
        title: format!("seed {seed}: A against {}", label(b)),
    }))
}

/// `s` as a path segment of a relative address: bytes other than letters, digits and `._-~`
/// percent-encoded (a folder named `a#b` or `r 1` still links).
fn url_escape(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"._-~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_folders() {
        assert_eq!(url_escape("r 1#x.html"), "r%201%23x.html");
        assert_eq!(url_escape("é"), "%C3%A9");
        assert_eq!(pages_dir(Path::new("out/R.html")), Path::new("out/R-vis"));
        assert_eq!(page_name(2, 1, 2), "seed-2.html");
        assert_eq!(page_name(2, 2, 3), "seed-2-C-vs-A.html");
        assert_eq!(
            run_folders(&["a".into(), "b".into()]).unwrap(),
            [PathBuf::from("a"), PathBuf::from("b")]
        );
        assert!(run_folders(&["/nonexistent-ab".into()])
            .unwrap_err()
            .contains("tester ab"));
    }
}
