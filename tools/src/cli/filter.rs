//! `--filter EXPR` and the `--group-by KEY` name of `tester run` and `tester compare`: the
//! checks made before any seed runs, and the evaluation on a seed's features.
//!
//! A filter is an [`evalexpr`] expression (`N >= 20 && C >= 4`, `stop == "deadline"`). Before
//! the first seed, [`Filter::parse`] and [`Filter::check`] refuse (exit 2, nothing run): a
//! filter too long or too deeply nested, a syntax error, an assignment (`N = 20` for `N ==
//! 20`), a function evalexpr does not have, a name that differs from a built-in feature only in
//! letter case (`n` for `N`: a typo, not a `[DATA]` key), and, when the filter names only
//! built-in features, a type error or a value that is not true or false. Any other name is read
//! as a `[DATA]` key, which only a finished seed has: a seed lacking it does not pass, and an
//! evaluation error on a seed's values (a string compared with a number, a division by zero)
//! is reported by [`failures_warning`] and the seed does not pass, so the run keeps its report.

use std::collections::BTreeSet;

use evalexpr::{ContextWithMutableVariables, EvalexprError, HashMapContext, Node, Value as Eval};
use serde_json::Value;

use super::features::Features;
use super::quote::printable;

/// A `--filter` expression.
#[derive(Clone, Debug)]
pub struct Filter {
    text: String,
    node: Node,
}

impl Filter {
    /// Parses `text` (an [`evalexpr`] expression that must give a boolean), after
    /// refusing a text too long or too deeply nested to parse safely.
    ///
    /// # Examples
    ///
    /// ```
    /// use serde_json::json;
    /// use tools::cli::features::Features;
    /// use tools::cli::filter::Filter;
    ///
    /// let filter = Filter::parse("N >= 20 && C >= 4").unwrap();
    /// let case = |n: u64, c: u64| Features::from([("N".into(), json!(n)), ("C".into(), json!(c))]);
    /// assert!(filter.matches(&case(20, 4)).unwrap());
    /// assert!(!filter.matches(&case(19, 6)).unwrap());
    /// assert!(Filter::parse("(N >= 3").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Filter, String> {
        check_size(text)?;
        let node = evalexpr::build_operator_tree(text)
            .map_err(|e| format!("--filter `{text}`: not an expression: {e}"))?;
        Ok(Filter {
            text: text.to_string(),
            node,
        })
    }

    /// The expression as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The variables the expression reads.
    pub fn variables(&self) -> BTreeSet<String> {
        self.node
            .iter_read_variable_identifiers()
            .map(str::to_string)
            .collect()
    }

    /// Whether every variable the expression reads is among `known`.
    pub fn only_uses(&self, known: &[&str]) -> bool {
        self.variables().iter().all(|v| known.contains(&v.as_str()))
    }

    /// The checks that need no seed (see the module documentation); `builtins` are the
    /// features every seed has (a name not among them is read as a `[DATA]` key).
    ///
    /// # Examples
    ///
    /// ```
    /// use tools::cli::filter::Filter;
    ///
    /// let builtins = ["seed", "N", "C", "P", "status"];
    /// let check = |text: &str| Filter::parse(text).unwrap().check(&builtins);
    /// assert!(check(r#"N > 3 && stop == "deadline""#).is_ok());
    /// assert!(check("n > 3").unwrap_err().contains("did you mean `N`"));
    /// assert!(check("N = 3").unwrap_err().contains("=="));
    /// assert!(check("status > 3").is_err());
    /// assert!(check("N + 1").unwrap_err().contains("not true or false"));
    /// assert!(check("nosuch(N)").unwrap_err().contains("no function"));
    /// ```
    pub fn check(&self, builtins: &[&str]) -> Result<(), String> {
        let fail = |why: String| Err(format!("--filter `{}`: {why}", self.text));
        if let Some(name) = self.node.iter_write_variable_identifiers().next() {
            return fail(format!(
                "assigns to `{name}`; a filter only reads (compare with `==`)"
            ));
        }
        for name in self.variables() {
            if let Some(like) = lookalike(&name, builtins) {
                return fail(format!(
                    "no feature is named `{name}`: did you mean `{like}`? (names are \
                     case-sensitive)"
                ));
            }
        }
        for name in self.node.iter_function_identifiers() {
            let call = evalexpr::eval_with_context(&format!("{name}()"), &HashMapContext::new());
            if let Err(EvalexprError::FunctionIdentifierNotFound(_)) = call {
                return fail(format!("evalexpr has no function `{name}`"));
            }
        }
        if !self.only_uses(builtins) {
            // Names [DATA] keys: their values, and so the result, are known only after a run.
            return Ok(());
        }
        let mut context = HashMapContext::new();
        for name in builtins {
            if let Some(value) = sample(name) {
                context
                    .set_value((*name).to_string(), value)
                    .map_err(|e| e.to_string())?;
            }
        }
        match self.node.eval_with_context(&context) {
            Ok(Eval::Boolean(_)) => Ok(()),
            Ok(other) => fail(format!("gives {other}, not true or false")),
            Err(e) if is_type_error(&e) => fail(format!(
                "{e} (built-in features have fixed types: status is a string, the others \
                 numbers)"
            )),
            // A value error (a division by zero) depends on the seed's values.
            Err(_) => Ok(()),
        }
    }

    /// Whether `features` pass: `Ok(false)` when a variable the filter reads is missing,
    /// `Err` with evalexpr's message when the expression fails otherwise (a type error, a
    /// division by zero, not a boolean).
    pub fn matches(&self, features: &Features) -> Result<bool, String> {
        let mut context = HashMapContext::new();
        for (key, value) in features {
            if let Some(v) = to_evalexpr(value) {
                context
                    .set_value(key.clone(), v)
                    .map_err(|e| format!("cannot set `{key}`: {e}"))?;
            }
        }
        match self.node.eval_boolean_with_context(&context) {
            Ok(pass) => Ok(pass),
            Err(EvalexprError::VariableIdentifierNotFound(_)) => Ok(false),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// Refuses a `--group-by` key no feature can have (empty, with a space or `=`: a `[DATA]` key
/// is the text before `=`, without spaces) or one that differs from a built-in feature only in
/// letter case.
///
/// # Examples
///
/// ```
/// use tools::cli::filter::check_group_key;
///
/// assert!(check_group_key("stop", &["N", "C"]).is_ok());
/// assert!(check_group_key("c", &["N", "C"]).unwrap_err().contains("did you mean `C`"));
/// assert!(check_group_key("a b", &["N"]).is_err());
/// ```
pub fn check_group_key(key: &str, builtins: &[&str]) -> Result<(), String> {
    if key.is_empty() || key.contains(|c: char| c.is_whitespace() || c == '=') {
        return Err(format!(
            "--group-by `{key}`: no feature can have this name (a [DATA] key is the text \
             before `=`, without spaces)"
        ));
    }
    match lookalike(key, builtins) {
        Some(like) => Err(format!(
            "--group-by `{key}`: no feature is named `{key}`: did you mean `{like}`? (names \
             are case-sensitive)"
        )),
        None => Ok(()),
    }
}

/// The built-in feature `name` differs from only in letter case, if any.
fn lookalike<'a>(name: &str, builtins: &[&'a str]) -> Option<&'a str> {
    if builtins.contains(&name) {
        return None;
    }
    builtins
        .iter()
        .find(|b| b.eq_ignore_ascii_case(name))
        .copied()
}

/// A value of the type a built-in feature always has, for the checks before the run.
fn sample(name: &str) -> Option<Eval> {
    Some(match name {
        "seed" | "wall_ms" | "cpu_ms" => Eval::Int(1),
        "N" => Eval::Int(8),
        "C" => Eval::Int(2),
        "errors" | "moves" => Eval::Int(0),
        "P" | "penalty" => Eval::Float(0.1),
        "score" => Eval::Float(1.0),
        "status" => Eval::String("ok".into()),
        _ => return None,
    })
}

/// Whether `e` comes from the types of the values (the same for every seed when only built-in
/// features are read), not from the values themselves.
fn is_type_error(e: &EvalexprError) -> bool {
    use EvalexprError as E;
    matches!(
        e,
        E::WrongOperatorArgumentAmount { .. }
            | E::WrongFunctionArgumentAmount { .. }
            | E::ExpectedString { .. }
            | E::ExpectedInt { .. }
            | E::ExpectedFloat { .. }
            | E::ExpectedNumber { .. }
            | E::ExpectedNumberOrString { .. }
            | E::ExpectedBoolean { .. }
            | E::ExpectedTuple { .. }
            | E::ExpectedFixedLengthTuple { .. }
            | E::ExpectedRangedLengthTuple { .. }
            | E::ExpectedEmpty { .. }
            | E::TypeError { .. }
            | E::WrongTypeCombination { .. }
            | E::ContextNotMutable
    )
}

/// The warning about the seeds `filter` could not be evaluated on (they do not pass): how many,
/// then each message (the first few) with the seeds it came from; `None` when there is none.
pub fn failures_warning(filter: &Filter, failures: &[(u64, String)]) -> Option<String> {
    const MESSAGES: usize = 5;
    const SEEDS: usize = 10;
    if failures.is_empty() {
        return None;
    }
    // The same mistake on every seed gives one message: list it once, with its seeds.
    let mut by_message: Vec<(&str, Vec<u64>)> = Vec::new();
    for (seed, why) in failures {
        match by_message.iter_mut().find(|(m, _)| *m == why.as_str()) {
            Some((_, seeds)) => seeds.push(*seed),
            None => by_message.push((why, vec![*seed])),
        }
    }
    let mut parts: Vec<String> = by_message
        .iter()
        .take(MESSAGES)
        .map(|(why, seeds)| {
            let mut list: Vec<String> = seeds.iter().take(SEEDS).map(u64::to_string).collect();
            if seeds.len() > SEEDS {
                list.push(format!("... ({} in all)", seeds.len()));
            }
            let word = if seeds.len() == 1 { "seed" } else { "seeds" };
            format!("{word} {}: {}", list.join(", "), printable(why, 200))
        })
        .collect();
    if by_message.len() > MESSAGES {
        parts.push(format!("{} other messages", by_message.len() - MESSAGES));
    }
    Some(format!(
        "--filter `{}` cannot be evaluated on {} seed{}, which do{} not pass: {}",
        filter.text(),
        failures.len(),
        if failures.len() == 1 { "" } else { "s" },
        if failures.len() == 1 { "es" } else { "" },
        parts.join("; ")
    ))
}

/// The longest `--filter` read, in bytes. evalexpr parses and evaluates by recursion, and an
/// operator chain nests without parentheses (`1^1^1...` is right-associative): a bound on the
/// length bounds the depth of the tree whatever its shape.
pub const MAX_FILTER_BYTES: usize = 4096;

/// The deepest nesting of parentheses and prefix operators (`!`, unary `-`) a `--filter` may
/// have (60 000 parentheses overflowed the stack).
pub const MAX_NESTING: usize = 64;

/// Refuses a filter too long or too deeply nested to be parsed safely (see
/// [`MAX_FILTER_BYTES`], [`MAX_NESTING`]); looks at the text only, so it runs before parsing.
fn check_size(text: &str) -> Result<(), String> {
    let shown = || printable(text, 40);
    if text.len() > MAX_FILTER_BYTES {
        return Err(format!(
            "--filter `{}`: {} bytes long, at most {MAX_FILTER_BYTES}",
            shown(),
            text.len()
        ));
    }
    let depth = nesting(text);
    if depth > MAX_NESTING {
        return Err(format!(
            "--filter `{}`: nested {depth} levels deep (parentheses, `!` and `-`), at most \
             {MAX_NESTING}",
            shown()
        ));
    }
    Ok(())
}

/// How deep `text` nests: open parentheses plus the prefix operators (`!`, unary `-`) in front
/// of the operand being read, outside string literals.
fn nesting(text: &str) -> usize {
    let (mut depth, mut prefix, mut deepest) = (0usize, 0usize, 0usize);
    let (mut in_string, mut escaped, mut after_operand) = (false, false, false);
    for c in text.chars() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => (in_string, after_operand) = (false, true),
                _ => {}
            }
            continue;
        }
        match c {
            '"' => (in_string, prefix) = (true, 0),
            '(' => (depth, after_operand) = (depth + 1, false),
            ')' => (depth, prefix, after_operand) = (depth.saturating_sub(1), 0, true),
            // After an operand, `!` starts `!=` and `-` subtracts: neither nests.
            '!' | '-' if !after_operand => prefix += 1,
            c if c.is_whitespace() => {}
            c if c.is_alphanumeric() || c == '_' || c == '.' => (prefix, after_operand) = (0, true),
            _ => after_operand = false,
        }
        deepest = deepest.max(depth + prefix);
    }
    deepest
}

fn to_evalexpr(value: &Value) -> Option<Eval> {
    match value {
        Value::Number(n) => Some(match n.as_i64() {
            Some(i) => Eval::Int(i),
            None => Eval::Float(n.as_f64()?),
        }),
        Value::String(s) => Some(Eval::String(s.clone())),
        Value::Bool(b) => Some(Eval::Boolean(*b)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const BUILTINS: [&str; 11] = [
        "seed", "N", "C", "P", "status", "score", "errors", "moves", "penalty", "wall_ms", "cpu_ms",
    ];

    #[test]
    fn filters() {
        let f = Features::from([
            ("N".to_string(), json!(24)),
            ("P".to_string(), json!(0.1)),
            ("stop".to_string(), json!("deadline")),
            ("k".to_string(), json!(0)),
        ]);
        let pass = |e: &str| Filter::parse(e).unwrap().matches(&f);
        assert_eq!(pass("N >= 20 && P < 0.2"), Ok(true));
        assert_eq!(pass("stop == \"deadline\""), Ok(true));
        assert_eq!(pass("N > 24.5"), Ok(false));
        // A variable the seed lacks: the seed does not pass.
        assert_eq!(pass("boards > 3"), Ok(false));
        // Errors on the seed's values: evalexpr's message, for the warning.
        assert!(pass("N + 1").unwrap_err().contains("Boolean"));
        assert!(pass("stop > 3").is_err());
        assert!(pass("N / k > 3").unwrap_err().contains("dividing"));
        assert!(!Filter::parse("N >= 20 && boards > 3")
            .unwrap()
            .only_uses(&BUILTINS));
    }

    #[test]
    fn mistakes_found_before_the_run() {
        let check = |text: &str| Filter::parse(text).unwrap().check(&BUILTINS);
        for ok in [
            "N >= 20 && C >= 4",
            r#"stop == "deadline""#,
            // Names data keys: nothing to know before a seed ran.
            "stop > 3",
            "N / k > 3",
            "stopp == \"x\"",
            // A value error on the sample values is not a mistake in the filter.
            "N / errors > 1",
            r#"status == "ok" && score < 3.5 && wall_ms < 100 && penalty >= 0"#,
            "min(N, C) > 1 && str::to_lowercase(status) == \"ok\" && math::abs(score) > 0",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("n >= 20", "did you mean `N`"),
            ("Score < 3", "did you mean `score`"),
            ("N = 20", "assigns to `N`"),
            ("status > 3", "Expected"),
            ("N + 1", "gives 9, not true or false"),
            ("N > 3; C", "not true or false"),
            ("mins(N, C) > 1", "no function `mins`"),
            // evalexpr is built without regex support here.
            (r#"str::regex_matches(status, "o.")"#, "no function"),
        ] {
            let err = check(bad).unwrap_err();
            assert!(err.contains(why) && err.contains(bad), "{bad}: {err}");
        }
        assert!(check_group_key("stop", &BUILTINS).is_ok());
        for bad in ["", "a b", "k=1", "SEED"] {
            assert!(check_group_key(bad, &BUILTINS).is_err(), "{bad}");
        }
    }

    #[test]
    fn failures_are_one_escaped_warning() {
        let filter = Filter::parse("stop > 3").unwrap();
        assert_eq!(failures_warning(&filter, &[]), None);
        let mut failures: Vec<(u64, String)> = (1..=12).map(|s| (s, "bad\x1b".into())).collect();
        failures.push((20, "other".into()));
        let w = failures_warning(&filter, &failures).unwrap();
        assert_eq!(
            w,
            "--filter `stop > 3` cannot be evaluated on 13 seeds, which do not pass: seeds 1, 2, \
             3, 4, 5, 6, 7, 8, 9, 10, ... (12 in all): bad\\x1b; seed 20: other"
        );
        let one = failures_warning(&filter, &failures[..1]).unwrap();
        assert!(
            one.contains("on 1 seed, which does not pass: seed 1: "),
            "{one}"
        );
    }

    #[test]
    fn deep_or_long_filters_are_refused_before_parsing() {
        // Run in a test thread (2 MiB of stack): parsing these would overflow it.
        let deep = format!("{}N > 1{}", "(".repeat(60_000), ")".repeat(60_000));
        let err = Filter::parse(&deep).unwrap_err();
        assert!(err.contains("bytes long, at most 4096"), "{err}");
        let deep = format!("{}N > 1{}", "(".repeat(65), ")".repeat(65));
        let err = Filter::parse(&deep).unwrap_err();
        assert!(err.contains("nested 65 levels deep"), "{err}");
        assert!(Filter::parse(&format!("{}(N > 1)", "!".repeat(70))).is_err());
        assert!(Filter::parse(&format!("{}N > 1", "- ".repeat(70))).is_err());
        let f = Features::from([("N".to_string(), json!(8))]);
        let ok = format!("{}N > 1{}", "(".repeat(64), ")".repeat(64));
        assert_eq!(Filter::parse(&ok).unwrap().matches(&f), Ok(true));
        // Operators after an operand and text in strings do not nest.
        assert_eq!(nesting(r#"N - 1 != 3 && !(x == "(((\"")"#), 2);
        assert_eq!(nesting("!(!(-N))"), 5);
    }
}
