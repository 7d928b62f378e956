//! The one-colour engine's benchmark (`cargo bench --features bench --bench engine`): for each
//! instance stored in `benches/engine/` (listed in its README with its best known cost), the
//! budget the anytime search needs for a board within 0.5 % of that cost, its board at a
//! 20 ms budget (% above that cost), the time its proof takes, and the proof's nodes per
//! second. A table on stdout; see docs/benchmarks.md, "The
//! one-colour engine's benchmark".
//!
//! Multi-second proofs are too slow for criterion's repeated sampling: each number is one run,
//! so a shared machine shows in it.

use clap::Parser;
use queenattack::solver::engine::{self, Instance};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// A board within this share above the best known cost counts as reached.
const WITHIN: f64 = 0.005;
/// The budget of the `at 20 ms` column (the lifts' searches are this short, or shorter).
const SHORT_BUDGET: Duration = Duration::from_millis(20);
/// The first budget of the anytime search (doubled until a board is within [`WITHIN`]).
const FIRST_BUDGET: Duration = Duration::from_millis(10);
/// How far a proven cost or bound may lie above the best known cost (the matching's integer
/// scale, and the `f32` costs summed in another order).
const TOLERANCE: f64 = 1e-4;

/// Times the one-colour engine on the stored instances.
#[derive(Parser)]
#[command(name = "engine")]
struct Args {
    /// Only the instances whose file name contains this.
    filter: Option<String>,
    /// The proof's time per instance (seconds): a proof not done by then is reported as
    /// not proven, with the bound it reached.
    #[arg(long, default_value_t = 20.0)]
    proof_secs: f64,
    /// The largest budget tried for a board within 0.5 % (seconds).
    #[arg(long, default_value_t = 10.0)]
    board_secs: f64,
    /// Threads of the proof.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Instead of the table: the cheapest board of the anytime search and the proof's bound,
    /// each with this many seconds, per instance (to refresh the README's best known costs);
    /// with `--dir`, the time that finds each instance's best known cost (default 10).
    #[arg(long)]
    long: Option<f64>,
    /// Instead of the table: the anytime search's board at each of these budgets
    /// (milliseconds, comma separated), as % above the best known cost.
    #[arg(long, value_delimiter = ',')]
    curve: Option<Vec<f64>>,
    /// Instances read from this folder instead of `benches/engine/`: those its README's
    /// table lists (as `benches/engine/README.md` does), or without a README every
    /// `.engine` file (e.g. captured with `QUEENATTACK_ENGINE_DUMP`), its best known cost
    /// found first: the proof's with `--long` seconds (default 10) where it finishes, else
    /// the anytime search's board with as much time.
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
}

/// One row of `benches/engine/README.md`'s table: the file and its best known cost.
struct Stored {
    file: String,
    best: f64,
}

/// The `.engine` files of `dir`, by name, each with its best known cost found here: the
/// proof's with `secs` seconds where it finishes, else the anytime search's board with `secs`
/// seconds (an unfinished proof has no board).
fn found_in(
    dir: &std::path::Path,
    secs: f64,
    threads: usize,
) -> Result<Vec<(Stored, Instance)>, String> {
    let listing = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = listing
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|x| x == "engine"))
        .collect();
    files.sort();
    let mut rows = Vec::new();
    for path in files {
        let instance = Instance::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let budget = Duration::from_secs_f64(secs);
        let proof = engine::floor(&instance, Instant::now() + budget, threads);
        let best = if proof.is_exact() {
            proof.bound
        } else {
            let found = engine::boards(&instance, 1, Instant::now() + budget);
            found.first().map_or(f64::INFINITY, |b| b.0)
        };
        let file = path
            .file_name()
            .map_or(String::new(), |f| f.to_string_lossy().into_owned());
        eprintln!(
            "{file}: best known {best:.6} (proof {})",
            if proof.is_exact() {
                "finished"
            } else {
                "not finished"
            }
        );
        rows.push((Stored { file, best }, instance));
    }
    Ok(rows)
}

fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/engine")
}

/// The rows of `folder`'s README table whose first cell names an `.engine` file.
fn stored(folder: &std::path::Path) -> Result<Vec<Stored>, String> {
    let path = folder.join("README.md");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut rows = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 7 || !cells[1].ends_with(".engine") {
            continue;
        }
        let best = cells[5]
            .parse()
            .map_err(|_| format!("{}: best {:?} is no number", cells[1], cells[5]))?;
        rows.push(Stored {
            file: cells[1].to_string(),
            best,
        });
    }
    Ok(rows)
}

/// The least budget among `FIRST_BUDGET · 2^k` up to `most` after which the anytime search's
/// board lies within [`WITHIN`] of `best`, and that board's cost; `None` if none did.
fn time_to_board(instance: &Instance, best: f64, most: Duration) -> Option<(Duration, f64)> {
    let mut budget = FIRST_BUDGET;
    while budget <= most {
        let found = engine::boards(instance, 1, Instant::now() + budget);
        if let Some((cost, cells)) = found.first() {
            assert!(instance.is_board(cells), "not a board");
            if *cost <= best * (1.0 + WITHIN) + TOLERANCE {
                return Some((budget, *cost));
            }
        }
        budget *= 2;
    }
    None
}

/// The anytime search's board at `budget`, as % above `best` (`inf`: none).
fn above_at(instance: &Instance, best: f64, budget: Duration) -> f64 {
    let found = engine::boards(instance, 1, Instant::now() + budget);
    match found.first() {
        Some((cost, cells)) => {
            assert!(instance.is_board(cells), "not a board");
            (100.0 * (cost - best) / best).max(0.0)
        }
        None => f64::INFINITY,
    }
}

fn seconds(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

/// One row of the table; `false` when the proof contradicts the best known cost.
fn measure(row: &Stored, instance: &Instance, args: &Args) -> bool {
    let to_board = match time_to_board(instance, row.best, Duration::from_secs_f64(args.board_secs))
    {
        Some((budget, _)) => seconds(budget),
        None => format!("not in {} s", args.board_secs),
    };
    let short = above_at(instance, row.best, SHORT_BUDGET);
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(args.proof_secs);
    let proof = engine::floor(instance, deadline, args.threads);
    let took = started.elapsed();
    let to_proof = if proof.is_exact() {
        seconds(took)
    } else {
        let gap = 100.0 * (row.best - proof.bound) / row.best;
        format!("not in {} s ({gap:.2} % below)", args.proof_secs)
    };
    let rate = proof.nodes as f64 / took.as_secs_f64();
    println!(
        "| {} | {} | {} | {:.4} | {to_board} | {short:.2} % | {to_proof} | {} | {rate:.0} |",
        row.file, instance.kind, instance.n, row.best, proof.nodes
    );
    let sound = proof.bound <= row.best + TOLERANCE;
    if !sound {
        eprintln!(
            "{}: the proof's {} is above the best known {}",
            row.file, proof.bound, row.best
        );
    }
    if let Some(board) = &proof.board {
        if !instance.is_board(board) || (instance.cost(board) - proof.bound).abs() > TOLERANCE {
            eprintln!("{}: the proof's board is wrong", row.file);
            return false;
        }
    }
    sound
}

/// `--long`: the best board and the proof's bound with `secs` seconds each.
fn long(row: &Stored, instance: &Instance, secs: f64, threads: usize) {
    let budget = Duration::from_secs_f64(secs);
    let found = engine::boards(instance, 1, Instant::now() + budget);
    let board = found.first().map_or(f64::INFINITY, |b| b.0);
    let started = Instant::now();
    let proof = engine::floor(instance, started + budget, threads);
    println!(
        "{}: board {board:.6}, proof {} {:.6} in {:.1} s (README {:.6})",
        row.file,
        if proof.is_exact() {
            "exact"
        } else {
            "at least"
        },
        proof.bound,
        started.elapsed().as_secs_f64(),
        row.best
    );
}

/// The instances of the run: the stored ones (read with their README's best known cost) or
/// those of `--dir`; `--filter` applied.
fn instances(args: &Args) -> Result<Vec<(Stored, Instance)>, String> {
    let wanted = |file: &str| {
        args.filter
            .as_ref()
            .is_none_or(|f| file.contains(f.as_str()))
    };
    let dir = args.dir.clone().unwrap_or_else(folder);
    if !dir.join("README.md").exists() {
        let mut rows = found_in(&dir, args.long.unwrap_or(10.0), args.threads)?;
        rows.retain(|(row, _)| wanted(&row.file));
        return Ok(rows);
    }
    let mut rows = Vec::new();
    for row in stored(&dir)? {
        if wanted(&row.file) {
            let path = dir.join(&row.file);
            let instance = Instance::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            rows.push((row, instance));
        }
    }
    Ok(rows)
}

/// `--curve`: one line per instance, its board at each budget as % above the best known.
fn curve(row: &Stored, instance: &Instance, budgets: &[f64]) {
    let mut line = format!("| {} | {:.4} |", row.file, row.best);
    for &ms in budgets {
        let above = above_at(instance, row.best, Duration::from_secs_f64(ms / 1000.0));
        line += &format!(" {above:.2} % |");
    }
    println!("{line}");
}

fn main() -> ExitCode {
    let args = Args::parse();
    let rows = match instances(&args) {
        Ok(rows) => rows,
        Err(e) => {
            eprintln!("engine bench: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(budgets) = &args.curve {
        let heads: Vec<String> = budgets.iter().map(|ms| format!("at {ms} ms")).collect();
        println!("| instance | best | {} |", heads.join(" | "));
        println!("|---|---|{}", "---|".repeat(budgets.len()));
        for (row, instance) in &rows {
            curve(row, instance, budgets);
        }
        return ExitCode::SUCCESS;
    }
    let measuring = args.long.is_none()
        || args
            .dir
            .as_ref()
            .is_some_and(|d| !d.join("README.md").exists());
    if measuring {
        println!(
            "| instance | kind | N | best | to 0.5 % | at 20 ms | to proof ({} thread(s)) | nodes | nodes/s |",
            args.threads
        );
        println!("|---|---|---|---|---|---|---|---|---|");
    }
    let mut sound = true;
    for (row, instance) in &rows {
        match args.long {
            Some(secs) if !measuring => long(row, instance, secs, args.threads),
            _ => sound &= measure(row, instance, &args),
        }
    }
    if sound {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
