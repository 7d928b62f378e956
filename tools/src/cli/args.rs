//! Argument syntax shared by the subcommands: seed lists and parameter ranges.

use clap::Args;

use crate::gen::Ranges;

/// Largest number of seeds a list may name (a guard against typos like `1-1000000000`).
pub const MAX_SEEDS: usize = 1_000_000;

/// Parses a seed list: comma-separated items, each a seed `5` or an inclusive range `1-100`.
///
/// # Examples
///
/// ```
/// use tools::cli::args::parse_seeds;
///
/// assert_eq!(parse_seeds("1-3,9,5").unwrap(), [1, 2, 3, 9, 5]);
/// assert!(parse_seeds("3-1").is_err());
/// assert!(parse_seeds("x").is_err());
/// ```
pub fn parse_seeds(text: &str) -> Result<Vec<u64>, String> {
    let mut seeds = Vec::new();
    for item in text.split(',').map(str::trim) {
        let number = |s: &str| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| format!("`{s}` is not a seed (a non-negative integer)"))
        };
        let (a, b) = parse_range(item, number).map_err(|e| e.replace("range", "seed range"))?;
        if (b - a) as usize >= MAX_SEEDS || seeds.len() + ((b - a) as usize) >= MAX_SEEDS {
            return Err(format!("too many seeds (at most {MAX_SEEDS})"));
        }
        seeds.extend(a..=b);
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

/// The `--n`, `--c`, `--p` options that override the drawn parameters.
#[derive(Args, Clone, Debug, Default)]
pub struct RangeArgs {
    /// Board size N or range A-B, drawn after the official parameters like the official tester
    /// does (clamped into 8-30).
    #[arg(long, value_name = "A[-B]", value_parser = parse_int_range)]
    pub n: Option<(i32, i32)>,
    /// Number of colours C or range A-B (clamped into 1-6).
    #[arg(long, value_name = "A[-B]", value_parser = parse_int_range)]
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
    }

    #[test]
    fn ranges() {
        assert!(parse_int_range("a-3").is_err());
        assert!(parse_float_range("0.3-0.1").is_err());
        assert!(parse_float_range("nan").is_err());
        assert_eq!(parse_float_range("0.05-0.2").unwrap(), (0.05, 0.2));
    }
}
