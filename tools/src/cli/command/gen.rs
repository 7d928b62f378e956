//! `tester gen`: write official test cases.

use std::path::PathBuf;

use clap::{ArgGroup, Args as ClapArgs};

use crate::cli::args::{parse_seed_list, RangeArgs, SeedList};
use crate::gen::generate;
use crate::java::double_to_string;

/// Options of `tester gen`.
#[derive(ClapArgs, Debug)]
#[command(after_help = crate::cli::args::LIMITS_HELP)]
#[command(group(ArgGroup::new("which").required(true).args(["seed", "seeds"])))]
pub struct Args {
    /// Seed of the one case to print on standard output (or to write with --dir).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Seeds to write, as a list like `1-100`, `1,4,9` or `1-10,20`; needs --dir.
    #[arg(long, value_name = "LIST", value_parser = parse_seed_list, requires = "dir")]
    pub seeds: Option<SeedList>,
    /// Folder to write `SEED.in` files into (created if missing). A folder that a `tester
    /// run` or another tester process is writing is refused (exit 2).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Also print `seed N C P` of each case on standard error.
    #[arg(long)]
    pub params: bool,
    /// Parameter overrides (`--n`, `--c`, `--p`).
    #[command(flatten)]
    pub ranges: RangeArgs,
}

/// Runs `tester gen`.
pub fn run(args: &Args) -> Result<(), String> {
    let seeds = match (&args.seeds, args.seed) {
        (Some(list), _) => list.0.clone(),
        (None, Some(seed)) => vec![seed],
        (None, None) => return Err("give --seed or --seeds".into()),
    };
    let ranges = args.ranges.ranges();
    // Held while the cases are written: a run writing this folder is not overwritten.
    let _lock = match &args.dir {
        Some(dir) => Some(crate::cli::lock::lock_folder(dir, "tester gen")?),
        None => None,
    };
    for seed in seeds {
        let case = generate(seed, &ranges);
        if args.params {
            crate::diag!(
                "seed {seed} N {} C {} P {}",
                case.input.n,
                case.input.c,
                double_to_string(case.p)
            );
        }
        let text = case.input.to_string();
        match &args.dir {
            Some(dir) => {
                let path = dir.join(format!("{seed}.in"));
                // A symbolic link planted at SEED.in is replaced, not written through.
                crate::cli::replace::replace_file(&path, text.as_bytes())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            None if crate::cli::out::closed() => break,
            None => crate::cli::out::print(&text),
        }
    }
    Ok(())
}
