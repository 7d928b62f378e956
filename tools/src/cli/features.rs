//! Case features: the `[DATA] key = value` lines a solver prints on stderr, the input's
//! variables beside them, and the `--filter EXPR` / `--group-by KEY` options over both.
//!
//! A seed's features are named values: the case's `seed`, `N`, `C`, `P`, after a run also
//! `status`, `score`, `errors`, `moves`, `penalty`, `wall_ms`, `cpu_ms`, and every data key the solver
//! printed (a data key named like one of those is shadowed by it). Filters over them are in
//! `filter.rs`, which uses this module.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde_json::Value;

use super::bests::Bests;
use super::quote::printable;
use super::report::{Group, SeedResult};

/// The `[DATA]` values of one seed (defined in `report`, beside the result holding them).
pub use super::report::Data;

/// A seed's features by name (see the module documentation).
pub type Features = BTreeMap<String, Value>;

/// The prefix of a data line.
pub const DATA_PREFIX: &str = "[DATA]";

/// At most this many keys are kept per seed (a solver printing a key per move cannot bloat
/// `results.json`); later new keys are dropped, known keys still update.
pub const MAX_KEYS: usize = 256;

/// Longest stderr line looked at, in bytes; a longer line is skipped.
const MAX_LINE: usize = 4096;

/// The features of the case alone, known before it runs.
pub const CASE_KEYS: [&str; 4] = ["seed", "N", "C", "P"];

/// The features of a finished seed's result (beside [`CASE_KEYS`] and its data keys).
pub const RESULT_KEYS: [&str; 7] = [
    "status", "score", "errors", "moves", "penalty", "wall_ms", "cpu_ms",
];

/// Reads `[DATA] key = value` from one stderr line: the key is the trimmed text before the
/// first `=` (non-empty, no whitespace), the value the trimmed rest, a JSON number when it
/// reads as a finite one (integers stay integers), else a string.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use tools::cli::features::parse_data_line;
///
/// assert_eq!(parse_data_line("[DATA] probe = 7"), Some(("probe".into(), json!(7))));
/// assert_eq!(parse_data_line("[DATA] t=0.25"), Some(("t".into(), json!(0.25))));
/// assert_eq!(parse_data_line("[DATA] stop = deadline"), Some(("stop".into(), json!("deadline"))));
/// assert_eq!(parse_data_line("[DATA] two words = 1"), None);
/// assert_eq!(parse_data_line("probe = 7"), None);
/// ```
pub fn parse_data_line(line: &str) -> Option<(String, Value)> {
    let rest = line
        .trim_end_matches(['\r', '\n'])
        .strip_prefix(DATA_PREFIX)?;
    let (key, value) = rest.split_once('=')?;
    let key = key.trim();
    if key.is_empty() || key.contains(char::is_whitespace) {
        return None;
    }
    let value = value.trim();
    let parsed = if let Ok(i) = value.parse::<i64>() {
        Value::from(i)
    } else {
        match value.parse::<f64>() {
            Ok(f) if f.is_finite() => Value::from(f),
            _ => Value::from(value),
        }
    };
    Some((key.to_string(), parsed))
}

/// The data lines of a solver's stderr file (the last value of a key wins; see [`MAX_KEYS`]).
/// A missing or unreadable file has none, and so has anything but a regular file (a named
/// pipe there is never waited on: [`super::readcap::open_regular`]). Lines are read at most 4 KiB at a time,
/// so a huge line costs no more memory than that.
pub fn read_data(path: &Path) -> Data {
    let mut data = Data::new();
    let Ok(file) = super::readcap::open_regular(path) else {
        return data;
    };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader
            .by_ref()
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut line)
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.last() != Some(&b'\n') && line.len() == MAX_LINE {
            // Too long to be a data line: skip to its end.
            if skip_line(&mut reader).is_err() {
                break;
            }
            continue;
        }
        let text = String::from_utf8_lossy(&line);
        if let Some((key, value)) = parse_data_line(&text) {
            if data.len() < MAX_KEYS || data.contains_key(&key) {
                data.insert(key, value);
            }
        }
    }
    data
}

/// Reads up to and including the next newline, keeping nothing.
fn skip_line(reader: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                reader.consume(n);
            }
        }
    }
}

/// The case's features of a result: `seed`, `N`, `C`, `P` (when known).
pub fn case_features(r: &SeedResult) -> Features {
    let mut f = Features::new();
    f.insert("seed".into(), Value::from(r.seed));
    f.insert("N".into(), Value::from(r.n as u64));
    f.insert("C".into(), Value::from(r.c as u64));
    if let Some(p) = r.p {
        f.insert("P".into(), Value::from(p));
    }
    f
}

/// Every feature of a finished seed: the case's, its data, then the result's own (which win
/// over data keys of the same name).
pub fn features(r: &SeedResult) -> Features {
    let mut f: Features = r.data.clone();
    f.insert("status".into(), Value::from(r.status.as_str()));
    f.insert("score".into(), Value::from(r.score));
    f.insert("errors".into(), Value::from(r.errors));
    f.insert("moves".into(), Value::from(r.moves as u64));
    f.insert("penalty".into(), Value::from(r.penalty));
    if let Some(ms) = r.wall_ms {
        f.insert("wall_ms".into(), Value::from(ms));
    }
    if let Some(ms) = r.cpu_ms {
        f.insert("cpu_ms".into(), Value::from(ms));
    }
    f.extend(case_features(r));
    f
}

/// Above this many distinct numbers a numeric key is grouped into [`BINS`] ranges.
pub const MAX_DISTINCT: usize = 12;

/// Ranges a many-valued numeric key is cut into (equal counts of seeds).
pub const BINS: usize = 6;

/// Groups items by the value of `key` in their features: one group per value (numbers in
/// numeric order, then strings), or [`BINS`] ranges of about equal size when the key has more
/// than [`MAX_DISTINCT`] numeric values; items without the key go to a last group `KEY=-`.
/// Returns the label and the indices of each group's items.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use tools::cli::features::{group_by, Features};
///
/// let f = |c: u64| Features::from([("C".to_string(), json!(c))]);
/// let groups = group_by("C", &[f(2), f(1), f(2), Features::new()]);
/// assert_eq!(groups, [("C=1".into(), vec![1]), ("C=2".into(), vec![0, 2]), ("C=-".into(), vec![3])]);
/// ```
pub fn group_by(key: &str, items: &[Features]) -> Vec<(String, Vec<usize>)> {
    let mut numbers: Vec<(f64, usize)> = Vec::new();
    let mut strings: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut missing = Vec::new();
    for (i, f) in items.iter().enumerate() {
        match f.get(key) {
            Some(Value::Number(n)) => numbers.push((n.as_f64().unwrap_or(f64::NAN), i)),
            Some(Value::String(s)) => strings.entry(s.clone()).or_default().push(i),
            Some(other) if !other.is_null() => {
                strings.entry(other.to_string()).or_default().push(i)
            }
            _ => missing.push(i),
        }
    }
    numbers.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut distinct: Vec<f64> = numbers.iter().map(|p| p.0).collect();
    distinct.dedup();
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    if distinct.len() <= MAX_DISTINCT {
        for (v, i) in numbers {
            let label = format!("{key}={}", number_text(v));
            match groups.last_mut() {
                Some((l, members)) if *l == label => members.push(i),
                _ => groups.push((label, vec![i])),
            }
        }
    } else {
        let per = numbers.len().div_ceil(BINS);
        let mut start = 0;
        while start < numbers.len() {
            // A bin never splits equal values.
            let mut end = (start + per).min(numbers.len());
            while end < numbers.len() && numbers[end].0 == numbers[end - 1].0 {
                end += 1;
            }
            let (lo, hi) = (numbers[start].0, numbers[end - 1].0);
            let label = format!("{key}={}..{}", number_text(lo), number_text(hi));
            groups.push((label, numbers[start..end].iter().map(|p| p.1).collect()));
            start = end;
        }
    }
    groups.extend(strings.into_iter().map(|(s, m)| (format!("{key}={s}"), m)));
    if !missing.is_empty() {
        groups.push((format!("{key}=-"), missing));
    }
    groups
}

/// The most characters of a group label a text table shows.
pub const LABEL_MAX: usize = 80;

/// A number as a short label: integers without decimals, others with up to 4 significant
/// decimals.
fn number_text(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').to_string()
    }
}

/// The `--group-by KEY` table of `tester run`: seeds, ok seeds, mean score and relative score
/// of each group (like the summary's groups by C and N band).
pub fn group_table(results: &[SeedResult], bests: Option<&Bests>, key: &str) -> String {
    let items: Vec<Features> = results.iter().map(features).collect();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>16} {:>6} {:>4} {:>12} {:>9}",
        format!("by {}", printable(key, LABEL_MAX)),
        "seeds",
        "ok",
        "mean",
        "relative"
    );
    let opt = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"));
    for (label, members) in group_by(key, &items) {
        let g = Group::of(members.iter().map(|&i| &results[i]), bests);
        let _ = writeln!(
            s,
            "{:>16} {:>6} {:>4} {:>12} {:>9}",
            // A data value from the solver: escaped before it reaches a terminal.
            printable(&label, LABEL_MAX),
            g.seeds,
            g.ok,
            opt(g.mean),
            opt(g.relative)
        );
    }
    s
}

/// The names of the features of `items` whose values are all numbers (where present), in
/// the order: the case's `N`, `C`, `P`, then data keys alphabetically.
pub fn numeric_keys<'a>(items: impl IntoIterator<Item = &'a Features>) -> Vec<String> {
    let mut numeric: BTreeMap<String, bool> = BTreeMap::new();
    for f in items {
        for (k, v) in f {
            let ok = v.is_number();
            numeric
                .entry(k.clone())
                .and_modify(|all| *all &= ok)
                .or_insert(ok);
        }
    }
    let keep = |k: &str| numeric.get(k) == Some(&true);
    let mut keys: Vec<String> = ["N", "C", "P"]
        .into_iter()
        .filter(|k| keep(k))
        .map(str::to_string)
        .collect();
    keys.extend(
        numeric
            .iter()
            .filter(|(k, &all)| all && !CASE_KEYS.contains(&k.as_str()))
            .map(|(k, _)| k.clone()),
    );
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn data_lines_are_read_from_a_file() {
        let path = std::env::temp_dir().join(format!("qa-data-{}.err", std::process::id()));
        let long = "x".repeat(10_000);
        let text = format!(
            "progress 1\n[DATA] probe = 7\n{long}\n[DATA] stop = deadline\r\n[DATA] probe = 8\n\
             [DATA] ratio = 1e-3\n[DATA] big = 12345678901234567890\n[DATA] =3\n[DATA] x"
        );
        std::fs::write(&path, text).unwrap();
        let data = read_data(&path);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(data["probe"], json!(8));
        assert_eq!(data["stop"], json!("deadline"));
        assert_eq!(data["ratio"], json!(0.001));
        // Too big for i64: a float.
        assert!(data["big"].is_f64());
        assert_eq!(data.len(), 4, "{data:?}");
        assert!(read_data(Path::new("/no/such/file")).is_empty());
    }

    #[test]
    fn key_count_is_capped() {
        let path = std::env::temp_dir().join(format!("qa-data-cap-{}.err", std::process::id()));
        let mut text: String = (0..MAX_KEYS + 10)
            .map(|i| format!("[DATA] k{i} = {i}\n"))
            .collect();
        text.push_str("[DATA] k0 = last\n");
        std::fs::write(&path, text).unwrap();
        let data = read_data(&path);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(data.len(), MAX_KEYS);
        assert_eq!(data["k0"], json!("last"));
    }

    #[test]
    fn many_values_are_binned() {
        let items: Vec<Features> = (0..30)
            .map(|i| Features::from([("t".to_string(), json!(i / 2))]))
            .collect();
        let groups = group_by("t", &items);
        assert_eq!(groups.len(), BINS - 1, "{groups:?}");
        assert_eq!(groups[0].0, "t=0..2");
        let all: usize = groups.iter().map(|g| g.1.len()).sum();
        assert_eq!(all, 30);
        let keys = numeric_keys(&[
            Features::from([("z".to_string(), json!(1)), ("N".to_string(), json!(8))]),
            Features::from([("s".to_string(), json!("a")), ("a".to_string(), json!(0.5))]),
        ]);
        assert_eq!(keys, ["N", "a", "z"]);
    }
}
