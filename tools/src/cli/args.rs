//! Argument syntax shared by the subcommands: seed lists and parameter ranges.

use std::path::PathBuf;

use clap::{ArgGroup, Args};

use crate::gen::Ranges;

/// Largest number of seeds a list may name (a guard against typos like `1-1000000000`).
pub const MAX_SEEDS: usize = 1_000_000;

/// Parses a seed list: comma-separated items, each a seed `5` or an inclusive range `1-100`.
/// A seed named twice is an error (it would run twice into the same files).
///
/// # Examples
///
/// ```
/// use tools::cli::args::parse_seeds;
///
/// assert_eq!(parse_seeds("1-3,9,5").unwrap(), [1, 2, 3, 9, 5]);
/// assert!(parse_seeds("3-1").is_err());
/// assert!(parse_seeds("x").is_err());
/// assert_eq!(parse_seeds("-1").unwrap_err(), "`-1` is not a seed (a non-negative integer)");
/// assert_eq!(parse_seeds("1-5,3").unwrap_err(), "seed 3 is listed twice");
/// ```
pub fn parse_seeds(text: &str) -> Result<Vec<u64>, String> {
    let mut seeds = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for item in text.split(',').map(str::trim) {
        if item.starts_with('-') {
            // Not a range with an empty start: a negative number.
            return Err(format!("`{item}` is not a seed (a non-negative integer)"));
        }
        let number = |s: &str| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| format!("`{s}` is not a seed (a non-negative integer)"))
        };
        let (a, b) = parse_range(item, number).map_err(|e| e.replace("range", "seed range"))?;
        if (b - a) as usize >= MAX_SEEDS || seeds.len() + ((b - a) as usize) >= MAX_SEEDS {
            return Err(format!("too many seeds (at most {MAX_SEEDS})"));
        }
        for seed in a..=b {
            if !seen.insert(seed) {
                return Err(format!("seed {seed} is listed twice"));
            }
            seeds.push(seed);
        }
    }
    Ok(seeds)
}

/// Parses `A` or `A-B` (an inclusive range) with `number` reading each end.
fn parse_range<T: PartialOrd + Copy>(
    text: &str,
    number: impl Fn(&str) -> Result<T, String>,
) -> Result<(T, T), String> {
    let (a, b) = match text.split_once('-') {
        Some((a, b)) => (number(a)?, number(b)?),
        None => {
            let v = number(text)?;
            (v, v)
        }
    };
    if a > b {
        return Err(format!("empty range `{text}`"));
    }
    Ok((a, b))
}

/// A parsed seed list (a newtype so that clap takes the list as one value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedList(pub Vec<u64>);

/// [`parse_seeds`] for clap.
pub fn parse_seed_list(text: &str) -> Result<SeedList, String> {
    parse_seeds(text).map(SeedList)
}

/// One of `M` deterministic parts of a seed list: `--shard K/M`.
///
/// Part `K` holds the seeds at positions `K, K+M, K+2M, …` of the list (0-based positions), so
/// each part gets a mix of the list. `K` is 0-based and taken modulo `M`: both `0..M-1` (a
/// Slurm `--array=0-(M-1)`) and `1..M` number every part exactly once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// The part, `0..m`.
    pub k: usize,
    /// The number of parts.
    pub m: usize,
}

impl Shard {
    /// The seeds of this part, in list order.
    ///
    /// # Examples
    ///
    /// ```
    /// use tools::cli::args::parse_shard;
    ///
    /// let seeds: Vec<u64> = (1..=7).collect();
    /// assert_eq!(parse_shard("0/3").unwrap().select(&seeds), [1, 4, 7]);
    /// assert_eq!(parse_shard("2/3").unwrap().select(&seeds), [3, 6]);
    /// assert_eq!(parse_shard("3/3").unwrap().select(&seeds), [1, 4, 7]); // 3 ≡ 0
    /// ```
    pub fn select(&self, seeds: &[u64]) -> Vec<u64> {
        seeds.iter().skip(self.k).step_by(self.m).copied().collect()
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.m)
    }
}

/// Parses `K/M` (`1 <= M <= 10000`, `0 <= K <= M`, K taken modulo M).
pub fn parse_shard(text: &str) -> Result<Shard, String> {
    let bad = || format!("`{text}` is not a shard K/M (0 <= K <= M, 1 <= M <= 10000)");
    let (k, m) = text.split_once('/').ok_or_else(bad)?;
    let k: usize = k.trim().parse().map_err(|_| bad())?;
    let m: usize = m.trim().parse().map_err(|_| bad())?;
    if !(1..=10_000).contains(&m) || k > m {
        return Err(bad());
    }
    Ok(Shard { k: k % m, m })
}

/// Parses `A` or `A-B` into an inclusive integer range.
///
/// # Examples
///
/// ```
/// use tools::cli::args::parse_int_range;
///
/// assert_eq!(parse_int_range("10").unwrap(), (10, 10));
/// assert_eq!(parse_int_range("8-12").unwrap(), (8, 12));
/// assert!(parse_int_range("12-8").is_err());
/// ```
pub fn parse_int_range(text: &str) -> Result<(i32, i32), String> {
    let number = |s: &str| {
        s.trim()
            .parse::<i32>()
            .map_err(|_| format!("`{s}` is not an integer"))
    };
    parse_range(text, number)
}

/// Parses `X` or `X-Y` into an inclusive range of non-negative decimals.
///
/// # Examples
///
/// ```
/// use tools::cli::args::parse_float_range;
///
/// assert_eq!(parse_float_range("0.1").unwrap(), (0.1, 0.1));
/// assert_eq!(parse_float_range("0-0.25").unwrap(), (0.0, 0.25));
/// ```
pub fn parse_float_range(text: &str) -> Result<(f64, f64), String> {
    let number = |s: &str| match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a non-negative number")),
    };
    parse_range(text, number)
}

/// [`parse_int_range`] with both ends within `1..=max` (the project's limits on N and C).
fn parse_limited(text: &str, what: &str, max: usize) -> Result<(i32, i32), String> {
    let (a, b) = parse_int_range(text)?;
    if a < 1 || b as usize > max {
        return Err(format!(
            "{what} must be within 1..={max} (the project's limit)"
        ));
    }
    Ok((a, b))
}

/// `--n`: within `1..=MAX_N`.
fn parse_n_range(text: &str) -> Result<(i32, i32), String> {
    parse_limited(text, "N", crate::input::MAX_N)
}

/// `--c`: within `1..=MAX_C`.
fn parse_c_range(text: &str) -> Result<(i32, i32), String> {
    parse_limited(text, "C", crate::input::MAX_C)
}

/// The `--n`, `--c`, `--p` options that override the drawn parameters.
#[derive(Args, Clone, Debug, Default)]
pub struct RangeArgs {
    /// Board size N or range A-B, drawn after the official parameters like the official tester
    /// does. Must lie within the project's limit 1..=128; the drawn value is then clamped into
    /// the contest's 8-30 like the official tester does.
    #[arg(long, value_name = "A[-B]", value_parser = parse_n_range)]
    pub n: Option<(i32, i32)>,
    /// Number of colours C or range A-B. Must lie within 1..=100; the drawn value is then
    /// clamped into the contest's 1-6.
    #[arg(long, value_name = "A[-B]", value_parser = parse_c_range)]
    pub c: Option<(i32, i32)>,
    /// Wall probability P or range X-Y (clamped into 0-0.25).
    #[arg(long, value_name = "X[-Y]", value_parser = parse_float_range)]
    pub p: Option<(f64, f64)>,
}

impl RangeArgs {
    /// The generator's view of the options.
    pub fn ranges(&self) -> Ranges {
        Ranges {
            n: self.n,
            c: self.c,
            p: self.p,
        }
    }

    /// Whether any option is given (then the cases are not the official ones).
    pub fn any(&self) -> bool {
        self.n.is_some() || self.c.is_some() || self.p.is_some()
    }
}

/// What every command accepts as a case, stated in `--help`.
pub const LIMITS_HELP: &str = "Boards: N in 1..=128, C in 1..=100, and exactly N queens of every \
colour 1..=C (so C <= N); any other input is refused with exit code 2 and a message naming the \
colour and its count. Error messages quote at most 80 bytes of a bad token, escaped. Reads are \
capped: an output at 134217792 bytes (the output cap of `tester run` at N = 128), an input at 4 \
MiB, a results.json or bests file at 256 MiB; a larger file or stream is refused (exit code 2), \
and so is a named file that is no regular file (a named pipe, a device, a folder).";

/// One case and one output, as `tester score` and `tester vis` take them.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("case").required(true).args(["seed", "input"])))]
pub struct CaseArgs {
    /// The case of this seed (generated like the official tester; `vis` also shows its P).
    #[arg(long)]
    pub seed: Option<u64>,
    /// The case in this file (the official input text).
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// The solution's output; `-` reads standard input. An invalid output is judged (and
    /// replayed) up to its failing move, with the judge's message.
    #[arg(value_name = "OUTPUT")]
    pub output: PathBuf,
    /// Parameter overrides (`--n`, `--c`, `--p`) for the case of --seed.
    #[command(flatten)]
    pub ranges: RangeArgs,
}

/// The longest time limit, in seconds: a day.
pub const MAX_SECS: f64 = 86_400.0;

/// Whether `secs` is a time limit: `0 < secs <= MAX_SECS` (what `tester run --time-limit`
/// takes, and a tester.toml or an ab.json may hold).
pub fn is_time_limit(secs: f64) -> bool {
    secs.is_finite() && secs > 0.0 && secs <= MAX_SECS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_lists() {
        assert_eq!(parse_seeds("5").unwrap(), [5]);
        assert_eq!(parse_seeds("1,4,9").unwrap(), [1, 4, 9]);
        assert_eq!(parse_seeds(" 2 - 4 , 7").unwrap(), [2, 3, 4, 7]);
        assert_eq!(parse_seeds("0").unwrap(), [0]);
        assert!(parse_seeds("").is_err());
        assert!(parse_seeds("1,,2").is_err());
        assert!(parse_seeds("-3").is_err());
        assert!(parse_seeds("1-99999999999").is_err());
        assert!(parse_seeds("1,1")
            .unwrap_err()
            .contains("seed 1 is listed twice"));
        assert!(parse_seeds("1-3,2-4").is_err());
    }

    #[test]
    fn shards_cover_every_seed_once() {
        let seeds: Vec<u64> = (1..=20).collect();
        for first in [0, 1] {
            let mut all: Vec<u64> = (first..first + 3)
                .flat_map(|k| parse_shard(&format!("{k}/3")).unwrap().select(&seeds))
                .collect();
            all.sort_unstable();
            assert_eq!(all, seeds);
        }
        assert!(parse_shard("4/3").is_err());
        assert!(parse_shard("1/0").is_err());
        assert!(parse_shard("x").is_err());
        assert_eq!(parse_shard("1/3").unwrap().to_string(), "1/3");
    }

    #[test]
    fn n_and_c_options_keep_the_limits() {
        assert_eq!(parse_n_range("8-128"), Ok((8, 128)));
        assert!(parse_n_range("129").unwrap_err().contains("1..=128"));
        assert!(parse_n_range("0-5").is_err());
        assert_eq!(parse_c_range("100"), Ok((100, 100)));
        assert!(parse_c_range("101").unwrap_err().contains("1..=100"));
    }

    #[test]
    fn ranges() {
        assert!(parse_int_range("a-3").is_err());
        assert!(parse_float_range("0.3-0.1").is_err());
        assert!(parse_float_range("nan").is_err());
        assert_eq!(parse_float_range("0.05-0.2").unwrap(), (0.05, 0.2));
    }
}
