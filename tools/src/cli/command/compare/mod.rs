//! `tester compare`: two or more run folders on the same seeds, side by side.
//!
//! The runs are labelled `A`, `B`, … in the order given; `A` is the baseline every other run
//! is paired with. What is computed here ([`Comparison`]) is printed by [`text`] (a table or
//! JSON) and drawn by [`html`] (a self-contained page with SVG plots).

pub mod html;
pub mod judged;
pub mod pages;
pub mod plot;
pub mod rows;
pub mod select;
pub mod text;
pub mod ticks;

pub use rows::{label, Pair, Row, LABELS};

use crate::cli::out::outln;
use std::fs;
use std::path::PathBuf;

use clap::Args as ClapArgs;

use crate::cli::bests::Bests;
use crate::cli::bests::{load_bests, load_bounds};
use crate::cli::folder::RunFolder;
use crate::cli::readcap::{read_capped, INPUT_MAX};
use crate::cli::report::{band_label, set_bounds, SeedResult};
use crate::cli::same_file::Inputs;

/// Options of `tester compare`.
#[derive(ClapArgs, Debug)]
#[command(
    after_help = "Each run's kept answers (SEED.out) are judged again, so a score edited in \
results.json is not shown; a result without its SEED.out is shown as recorded and named. Runs \
that got less than half a core while ready to run are named per run. The paired figures use only the seeds that \
are ok in both runs of a pair; seeds that failed or are missing in a run are shown in the table \
and listed as excluded. B/A is the ratio of the scores (their geometric mean, as tester ab \
reports it) with its 95% interval and the t-test that goes with it. The Wilcoxon signed-rank \
test ranks the log ratios ln(B/A) (scale-free, so big boards do not drown small ones); p < 0.05 \
means a difference this consistent would rarely come from noise; its own B/A (Hodges-Lehmann) \
comes with the interval of the ratios it does not reject, which leaves out 1 exactly when p < \
0.05. One tester ab folder also gets the A/B's verdict and B/A over the pairs it counted.

Example: tester compare runs/a runs/b --html report.html"
)]
pub struct Args {
    /// Run folders written by `tester run` (two or more; the first, `A`, is the baseline), or
    /// one folder written by `tester ab` (its arms `base/` and `new/` are then A and B).
    #[arg(value_name = "DIR", num_args = 1.., required = true)]
    pub dirs: Vec<PathBuf>,
    /// Print everything as one JSON object instead of the tables.
    #[arg(long)]
    pub json: bool,
    /// Also write a self-contained HTML page with the table and plots (no network needed). It
    /// may not be a file the comparison reads (a run's results.json or SEED files, a table).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Best known scores: the relative score is also given against them. Default:
    /// `testcases/bests.json` (here or of the project's top folder above) if it exists (used
    /// only when every run is on the official cases).
    #[arg(long, value_name = "FILE", conflicts_with = "no_bests")]
    pub bests: Option<PathBuf>,
    /// With --html: also write pages of two answers side by side (the visualizer's), A and B
    /// on one board size, stepped together, with the judge's numbers and their difference, for
    /// the seeds where B did worst against A (see --vis-seeds), into the folder `REPORT-vis/`
    /// beside the report (`seed-SEED.html`; with more runs `seed-SEED-X-vs-A.html`), so --html
    /// must name a regular file, not a device or a pipe; the report's seed table, worst seed
    /// first, links each of those seeds to its page. With more runs, each run against A.
    #[arg(long, requires = "html")]
    pub vis: bool,
    /// How many seeds get a side-by-side page with --vis, the worst ratio X/A first (a seed X
    /// failed on comes first); 0: every seed.
    #[arg(long, value_name = "K", default_value_t = 20, requires = "vis")]
    pub vis_seeds: usize,
    /// Use no bests file: the best of a seed is the best of the compared runs.
    #[arg(long)]
    pub no_bests: bool,
    /// Certified lower bounds per seed: each run's mean gap `(score − bound) / score` over the
    /// seeds every run has. Default: `testcases/bounds.json` (here or of the project's top
    /// folder above) if it exists (official cases only).
    #[arg(long, value_name = "FILE")]
    pub bounds: Option<PathBuf>,
    /// Compare only the seeds whose features pass EXPR, e.g. `N >= 20 && C >= 4` (variables:
    /// seed, N, C, P and the `[DATA]` keys of run A, or of the first run with the seed). A
    /// variable no seed has is an error; a seed EXPR cannot be evaluated on (a string compared
    /// with a number, a division by zero) does not pass, with a warning.
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// Also group the seeds by KEY (any variable of --filter); a key with more than 12
    /// numeric values is cut into 6 ranges of about equal size; a KEY no seed has is a
    /// warning.
    #[arg(long, value_name = "KEY")]
    pub group_by: Option<String>,
}

/// A group of seeds (by C or by N band) and its figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// `C=2` or `N=13-18`.
    pub label: String,
    /// Seeds in the group.
    pub seeds: usize,
    /// Mean relative score of each run over the group's seeds that every run has (best over
    /// the runs).
    pub relative: Vec<Option<f64>>,
    /// Every other run against `A`.
    pub pairs: Vec<Pair>,
}

/// Everything `tester compare` shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The runs, `A` first.
    pub runs: Vec<RunFolder>,
    /// The bests file the relative score also uses, if any.
    pub bests_file: Option<PathBuf>,
    /// Why no bests file is used, when there is one but it does not apply.
    pub bests_note: Option<String>,
    /// One row per seed found in any run, by seed.
    pub rows: Vec<Row>,
    /// Every other run against `A`, then every other pair, over all seeds.
    pub pairs: Vec<Pair>,
    /// Groups by C, then by N band (then by `--group-by KEY`).
    pub groups: Vec<Group>,
    /// The `--filter` expression the seeds passed, if any.
    pub filter: Option<String>,
    /// Lines about the runs themselves: those starved of CPU, per run; for one `tester ab`
    /// folder, the A/B's own verdict and B/A.
    pub notes: Vec<String>,
    /// The seeds of each run that were starved of CPU (see [`crate::cli::cpu::starved`]).
    pub starved: Vec<Vec<u64>>,
}

impl Comparison {
    /// Compares `runs` (`A` first). `bests` is used for the seeds it knows.
    pub fn new(runs: Vec<RunFolder>, bests: Option<&Bests>) -> Comparison {
        let mut seeds: Vec<u64> = runs
            .iter()
            .flat_map(|r| r.results.keys().copied())
            .collect();
        seeds.sort_unstable();
        seeds.dedup();
        let rows: Vec<Row> = seeds
            .into_iter()
            .map(|seed| {
                let results: Vec<Option<SeedResult>> =
                    runs.iter().map(|r| r.get(seed).cloned()).collect();
                let first = results.iter().flatten().next().expect("seed of some run");
                let mut row = Row {
                    seed,
                    n: first.n,
                    c: first.c,
                    results,
                    best_runs: None,
                    best_file: bests.and_then(|b| b.score(seed)),
                };
                row.best_runs = (0..runs.len()).filter_map(|i| row.ok(i)).reduce(f64::min);
                row
            })
            .collect();
        let k = runs.len();
        let mut pairs = Vec::new();
        for a in 0..k {
            for b in a + 1..k {
                pairs.push(Pair::of(&rows, a, b));
            }
        }
        let groups = groups(&rows, k);
        let starved = runs.iter().map(judged::starved_seeds).collect();
        let notes = runs
            .iter()
            .enumerate()
            .filter_map(|(i, run)| judged::starved_line(run, label(i)))
            .collect();
        Comparison {
            runs,
            bests_file: None,
            bests_note: None,
            rows,
            pairs,
            groups,
            filter: None,
            notes,
            starved,
        }
    }

    /// The rows as the tables list them: the largest loss against `A` first (see
    /// [`Row::worst_loss`]), then by seed, so the seeds to look at (and their pages) lead.
    pub fn worst_first(&self) -> Vec<&Row> {
        let k = self.runs.len();
        let mut rows: Vec<&Row> = self.rows.iter().collect();
        rows.sort_by(|x, y| {
            y.worst_loss(k)
                .total_cmp(&x.worst_loss(k))
                .then(x.seed.cmp(&y.seed))
        });
        rows
    }

    /// Seeds that every run has.
    pub fn common(&self) -> usize {
        self.rows.iter().filter(|r| r.in_all()).count()
    }

    /// Mean relative score of run `i` over the seeds every run has.
    pub fn relative(&self, i: usize, with_file: bool) -> Option<f64> {
        mean_relative(self.rows.iter(), i, with_file)
    }

    /// Mean [`SeedResult::gap`] of run `i` over the seeds every run has and that have a bound
    /// (`None` if none has), and how many seeds that is. A seed whose bound is impossible for
    /// any run (above its score) counts for none, so every run's mean covers the same seeds.
    pub fn gap(&self, i: usize) -> Option<(f64, usize)> {
        let gaps: Vec<f64> = self
            .rows
            .iter()
            .filter(|r| r.in_all())
            .filter(|r| !r.results.iter().flatten().any(SeedResult::bound_impossible))
            .filter_map(|r| r.results[i].as_ref()?.gap())
            .collect();
        (!gaps.is_empty()).then(|| (gaps.iter().sum::<f64>() / gaps.len() as f64, gaps.len()))
    }
}

fn mean_relative<'a>(
    rows: impl Iterator<Item = &'a Row>,
    i: usize,
    with_file: bool,
) -> Option<f64> {
    let rel: Vec<f64> = rows
        .filter(|r| r.in_all())
        .filter_map(|r| r.relative(i, with_file))
        .collect();
    (!rel.is_empty()).then(|| rel.iter().sum::<f64>() / rel.len() as f64)
}

/// The groups by C and by N band, each run paired with `A`.
fn groups(rows: &[Row], runs: usize) -> Vec<Group> {
    let mut keys: Vec<(u8, usize, String)> = Vec::new();
    for r in rows {
        let band = band_label(r.n);
        let start = band
            .split('-')
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(r.n);
        for key in [
            (0, r.c, format!("C={}", r.c)),
            (1, start, format!("N={band}")),
        ] {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys.sort();
    keys.into_iter()
        .map(|(kind, _, label)| {
            let member = |r: &&Row| {
                if kind == 0 {
                    format!("C={}", r.c) == label
                } else {
                    format!("N={}", band_label(r.n)) == label
                }
            };
            group(label.clone(), rows.iter().filter(member).collect(), runs)
        })
        .collect()
}

/// The group `label` of the rows `members`, each of the `runs` runs paired with `A`.
pub fn group(label: String, members: Vec<&Row>, runs: usize) -> Group {
    Group {
        seeds: members.len(),
        relative: (0..runs)
            .map(|i| mean_relative(members.iter().copied(), i, false))
            .collect(),
        pairs: (1..runs)
            .map(|b| Pair::of(members.iter().copied(), 0, b))
            .collect(),
        label,
    }
}

/// Reads the folders, checks that they ran the same cases, and picks the bests file.
pub fn load(args: &Args) -> Result<Comparison, String> {
    let dirs = pages::run_folders(&args.dirs)?;
    if dirs.len() > LABELS.len() {
        return Err(format!("at most {} run folders", LABELS.len()));
    }
    // The expression is checked before any folder is read: a mistake in it is named first.
    let filter = select::checked_filter(args.filter.as_deref(), args.group_by.as_deref())?;
    let mut runs = dirs
        .iter()
        .map(|d| RunFolder::load(d))
        .collect::<Result<Vec<_>, _>>()?;
    check_same_cases(&runs)?;
    for (i, run) in runs.iter_mut().enumerate() {
        for warning in judged::judge_again(run, label(i)) {
            crate::cli::quote::warn("tester compare", &warning);
        }
    }
    if let Some(filter) = &filter {
        select::filter_runs(&mut runs, filter)?;
    }
    let official = runs.iter().all(|r| r.official);
    if !official && args.bounds.is_some() {
        return Err("--bounds needs runs on the official cases (no --n/--c/--p)".into());
    }
    let bounds = if official {
        load_bounds(args.bounds.as_deref())?.1
    } else {
        None
    };
    for run in &mut runs {
        // Checked against every score they meet, a file's bounds and those results.json kept.
        for warning in set_bounds(run.results.values_mut(), bounds.as_ref()) {
            let run = crate::cli::quote::printable(&run.dir.display().to_string(), 200);
            crate::cli::quote::warn("tester compare", &format!("{run}: {warning}"));
        }
    }
    let (mut path, mut bests, mut note) = (None, None, None);
    if !args.no_bests {
        if !official && args.bests.is_some() {
            return Err("--bests needs runs on the official cases (no --n/--c/--p)".into());
        }
        let (p, b) = load_bests(args.bests.as_deref())?;
        if official {
            (path, bests) = (p, b);
        } else if let Some(p) = p {
            note = Some(format!(
                "{} not used: some runs are not on the official cases (--n/--c/--p)",
                p.display()
            ));
        }
    }
    let mut comparison = Comparison::new(runs, bests.as_ref());
    comparison.bests_file = path;
    comparison.bests_note = note;
    comparison.filter = args.filter.clone();
    if let [one] = args.dirs.as_slice() {
        comparison.notes.push(judged::ab_line(one));
    }
    if let Some(key) = &args.group_by {
        let extra = select::groups_by(&comparison, key);
        comparison.groups.extend(extra);
    }
    Ok(comparison)
}

/// The bytes of `SEED.in` in a run folder, `None` when there is none; anything there but a
/// regular file is refused ([`crate::cli::readcap::open_regular`]: a named pipe is never
/// waited on).
fn input_bytes(path: &std::path::Path) -> Result<Option<Vec<u8>>, String> {
    if fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    read_capped(path, INPUT_MAX, "an input").map(Some)
}

/// Every seed two runs share must be the same case: same N and C, and the same `SEED.in` where
/// both folders keep it.
fn check_same_cases(runs: &[RunFolder]) -> Result<(), String> {
    let first = &runs[0];
    for other in &runs[1..] {
        for (seed, r) in &first.results {
            let Some(o) = other.get(*seed) else { continue };
            let differ = if (r.n, r.c) != (o.n, o.c) {
                true
            } else {
                match (
                    input_bytes(&first.input_file(*seed))?,
                    input_bytes(&other.input_file(*seed))?,
                ) {
                    (Some(a), Some(b)) => a != b,
                    _ => false,
                }
            };
            if differ {
                return Err(format!(
                    "seed {seed} is a different case in {} and {} (other --n/--c/--p?): \
                     compare runs of the same cases",
                    first.dir.display(),
                    other.dir.display()
                ));
            }
        }
    }
    Ok(())
}

/// Whether `name` is a file `tester run` or `tester ab` keeps in a run folder: `results.json`,
/// `git.patch`, `SEED.in`, `SEED.out`, `SEED.err`, `SEED.html`.
fn run_file(name: &str) -> bool {
    let seed_file = name.split_once('.').is_some_and(|(seed, ext)| {
        !seed.is_empty()
            && seed.bytes().all(|b| b.is_ascii_digit())
            && ["in", "out", "err", "html"].contains(&ext)
    });
    seed_file || name == crate::cli::runfile::RESULTS || name == crate::cli::provenance::PATCH
}

/// The files a report must not be written over: those `tester compare` reads or that belong to
/// the runs it reads (the files of [`run_file`] in each run folder, an A/B folder's `ab.json`
/// and `worktrees.json`), and the bests and bounds files.
fn inputs_of(args: &Args) -> Result<Inputs, String> {
    let mut inputs = Inputs::new();
    if let [one] = args.dirs.as_slice() {
        for name in ["ab.json", "worktrees.json"] {
            inputs.add(&one.join(name), "the A/B's file");
        }
    }
    for dir in pages::run_folders(&args.dirs)? {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if run_file(&entry.file_name().to_string_lossy()) {
                inputs.add(&entry.path(), "the run's file");
            }
        }
    }
    let defaults = ["bests", "bounds"].map(crate::cli::root::default_table);
    let tables = [args.bests.clone(), args.bounds.clone()];
    inputs.add_all(tables.into_iter().flatten().chain(defaults), "the table");
    Ok(inputs)
}

/// Runs `tester compare`.
pub fn run(args: &Args) -> Result<(), String> {
    let inputs = match &args.html {
        Some(path) => {
            let inputs = inputs_of(args)?;
            inputs.check_output("--html", path)?;
            if args.vis {
                pages::check_report_for_pages(path)?;
            }
            inputs
        }
        None => Inputs::new(),
    };
    // Held while the report and its pages are written: never into a folder a run is writing.
    let report = args.html.as_deref().map(crate::cli::lock::folder_of);
    let pages = args
        .html
        .as_deref()
        .filter(|_| args.vis)
        .map(pages::pages_dir);
    let folders = report.into_iter().chain(pages.as_deref());
    let _locks = crate::cli::lock::lock_each_present(folders, "tester compare")?;
    let comparison = load(args)?;
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&text::json(&comparison))
                .expect("JSON values always serialise")
        );
    } else {
        crate::cli::out::print(&text::report(&comparison));
    }
    if let Some(path) = &args.html {
        let links = if args.vis {
            let written = pages::write_pages(&comparison, path, args.vis_seeds, &inputs)?;
            if !args.json {
                outln!("{}", written.summary());
            }
            written.links
        } else {
            Default::default()
        };
        let page = html::page(&comparison, &links)?;
        // A device (`/dev/stdout`) is written as it is; a symbolic link is replaced.
        crate::cli::replace::write_output(path, page.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        if !args.json {
            outln!("page: {} ({} bytes)", path.display(), page.len());
        }
    }
    Ok(())
}
