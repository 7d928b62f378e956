//! `tester rnu`: the subcommand a mistyped name most likely meant.
//!
//! clap ranks its suggestions by Jaro similarity, which for `rnu` and `rn` names `runs` and
//! not `run` (Jaro matches letters only within a window of half the shorter word, so the
//! swapped or missing letter of a three-letter name weighs more than the extra `s`). Here the
//! candidates are ranked by edit distance instead (optimal string alignment: a letter added,
//! dropped, changed, or two neighbours swapped each count one).

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// The names among `names` closest to `typed`: those at the least edit distance, when that is
/// at most half the length of `typed` (at least 1); none otherwise.
///
/// # Examples
///
/// ```
/// use tools::cli::suggest::closest;
///
/// let names = ["gen", "score", "run", "runs", "history", "ab"];
/// assert_eq!(closest("rnu", names), ["run"]);
/// assert_eq!(closest("rn", names), ["run"]);
/// assert_eq!(closest("runn", names), ["run", "runs"]);
/// assert!(closest("x", names).is_empty());
/// ```
pub fn closest<'a>(typed: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let most = (typed.chars().count() / 2).max(1);
    let scored: Vec<(usize, &str)> = names
        .into_iter()
        .map(|name| (strsim::osa_distance(typed, name), name))
        .filter(|&(distance, _)| distance <= most)
        .collect();
    let Some(best) = scored.iter().map(|&(d, _)| d).min() else {
        return Vec::new();
    };
    scored
        .into_iter()
        .filter(|&(d, _)| d == best)
        .map(|(_, name)| name.to_string())
        .collect()
}

/// `error` with clap's suggestion for an unknown subcommand replaced by [`closest`] among the
/// subcommands of `command` (their names and visible aliases, and `help`); any other error as
/// it is.
pub fn ranked(mut error: clap::Error, command: &clap::Command) -> clap::Error {
    if error.kind() != ErrorKind::InvalidSubcommand {
        return error;
    }
    let Some(ContextValue::String(typed)) = error.get(ContextKind::InvalidSubcommand).cloned()
    else {
        return error;
    };
    let names: Vec<&str> = command
        .get_subcommands()
        .flat_map(|c| std::iter::once(c.get_name()).chain(c.get_visible_aliases()))
        .chain(["help"])
        .collect();
    match closest(&typed, names) {
        found if found.is_empty() => error.remove(ContextKind::SuggestedSubcommand),
        found => error.insert(
            ContextKind::SuggestedSubcommand,
            ContextValue::Strings(found),
        ),
    };
    error
}
