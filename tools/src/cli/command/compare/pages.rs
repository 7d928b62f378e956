//! `tester compare --vis`: pages of two answers side by side for the seeds where a run did
//! worst against `A`, linked from the report's seed table; and the folders of a `tester ab`
//! folder given alone.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::{label, Comparison, Row};
use crate::cli::readcap::{read_input_text, read_text};
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
/// [`pages_dir`] of `html`.
pub fn write_pages(c: &Comparison, html: &Path, count: usize) -> Result<Written, String> {
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
            match pair_data(c, seed, b) {
                Ok(data) => {
                    let path = dir.join(&name);
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

/// The page data of `seed`, `A` against run `b`: the case from a folder's `SEED.in`, each
/// answer from its `SEED.out` (a missing one is empty: the page says it is rejected).
fn pair_data(c: &Comparison, seed: u64, b: usize) -> Result<PairData, String> {
    let input_file = [0, b]
        .iter()
        .map(|&i| c.runs[i].input_file(seed))
        .find(|p| p.is_file())
        .ok_or("no SEED.in in the folders")?;
    let input = read_input_text(&input_file)?;
    let answer = |i: usize| -> Answer {
        let path = c.runs[i].dir.join(format!("{seed}.out"));
        let output = read_text(&path).unwrap_or_default();
        let result = c
            .rows
            .iter()
            .find(|r| r.seed == seed)
            .and_then(|r| r.results[i].as_ref());
        let verdict = result.map_or(String::new(), |r| {
            format!(" ({} {})", r.status.as_str(), r.score)
        });
        Answer {
            name: format!("{}{verdict}", path.display()),
            output,
        }
    };
    let p = c.runs[0].get(seed).and_then(|r| r.p);
    Ok(PairData {
        input,
        answers: [answer(0), answer(b)],
        seed: Some(seed),
        p,
        title: format!("seed {seed}: A against {}", label(b)),
    })
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
