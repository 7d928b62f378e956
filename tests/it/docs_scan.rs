//! The commands the pages show (README.md and docs/*.md), read as a shell would split them, so
//! that a test can hold each one against the binary it runs: its subcommand and its options
//! must exist (issue 59, item 12; issue 60). Shared by the root package's `docs_commands`
//! (`queenattack`, `tester`) and the `nqueens` package's (`nqueens`), which includes this file
//! by its path: each package's tests can run only its own binary.

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The workspace's binaries.
pub const BINARIES: [&str; 3] = ["tester", "queenattack", "nqueens"];

/// Words that run the command after them (`nice -n 10 tester run`, `flock L queenattack`,
/// `parallel -j 1 ./target/release/tester run`).
const WRAPPERS: [&str; 11] = [
    "time", "nice", "flock", "timeout", "taskset", "env", "exec", "nohup", "sudo", "parallel",
    "xargs",
];

/// One run of a workspace binary shown on a page.
#[derive(Clone, Debug, PartialEq)]
pub struct Invocation {
    /// `tester`, `queenattack` or `nqueens`.
    pub binary: String,
    /// The first word after the binary when it is not an option (`run` of `tester run`).
    pub subcommand: Option<String>,
    /// The options given, as named (`--seeds` of `--seeds 1-10` or `--seeds=1-10`, `-o`).
    pub options: Vec<String>,
    /// The command as shown (for messages).
    pub shown: String,
}

/// README.md and every docs/*.md page under `root`, with their text.
pub fn pages(root: &Path) -> Vec<(PathBuf, String)> {
    let mut files = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|entry| Path::new("docs").join(entry.expect("docs/ entry").file_name()))
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
        .into_iter()
        .map(|file| {
            let text = fs::read_to_string(root.join(&file))
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            (file, text)
        })
        .collect()
}

/// The command lines of a Markdown text: each line of its fenced `sh` blocks (a line ending
/// in `\` joined with the next) and each inline code span.
pub fn command_lines(markdown: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut in_shell = false;
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang))) => in_shell = &*lang == "sh",
            Event::End(TagEnd::CodeBlock) => in_shell = false,
            Event::Text(text) if in_shell => {
                let joined = text.replace("\\\n", " ");
                lines.extend(joined.lines().map(str::to_string));
            }
            Event::Code(text) => lines.push(text.to_string()),
            _ => {}
        }
    }
    lines
}

/// A shell word: its text without quotes, and whether any of it was quoted; or a separator
/// (`|`, `;`, `&`, `(`, `)`, `<`, `>`) as an unquoted word of its own.
#[allow(dead_code)] // public for the root package's README test; nqueens' tests use it inside
pub fn words(line: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let (mut word, mut quoted, mut started) = (String::new(), false, false);
    let mut quote: Option<char> = None;
    let finish = |out: &mut Vec<(String, bool)>,
                  word: &mut String,
                  quoted: &mut bool,
                  started: &mut bool| {
        if *started {
            out.push((std::mem::take(word), *quoted));
        }
        (*quoted, *started) = (false, false);
    };
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '"' || c == '\'' => {
                (quote, quoted, started) = (Some(c), true, true);
            }
            None if c == '#' && !started => break, // a comment
            None if c.is_whitespace() => finish(&mut out, &mut word, &mut quoted, &mut started),
            None if "|;&()<>".contains(c) => {
                finish(&mut out, &mut word, &mut quoted, &mut started);
                out.push((c.to_string(), false));
            }
            None => {
                word.push(c);
                started = true;
            }
        }
    }
    finish(&mut out, &mut word, &mut quoted, &mut started);
    out
}

/// Whether a word ends one command and starts the next.
fn separates(word: &(String, bool)) -> bool {
    !word.1 && ["|", ";", "&", "(", ")", "do", "then", ":::", "$"].contains(&word.0.as_str())
}

/// The binary a word names (`tester`, `./target/release/tester`), if any.
fn binary_of(word: &str) -> Option<&'static str> {
    let name = word.rsplit('/').next()?;
    BINARIES.into_iter().find(|b| *b == name)
}

/// A word that names an option (`--seeds`, `--seeds=1-10`, `-o`; not `-1` nor `-`), by name.
fn option_name(word: &str) -> Option<String> {
    let rest = word.strip_prefix('-')?;
    let long = rest.strip_prefix('-');
    let name = long.unwrap_or(rest);
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let name = name.split('=').next().unwrap_or(name);
    Some(if long.is_some() {
        format!("--{name}")
    } else {
        format!("-{name}")
    })
}

/// The runs of the workspace's binaries in one command line, quoted commands included
/// (`--exec "queenattack --seed 2"`). A binary counts where a command starts, or after a
/// wrapper such as `nice -n 10` or `parallel`'s options unless it is an option's value
/// (`--basefile target/release/tester`); not as another program's argument (`python3 x.py
/// target/release/nqueens`).
pub fn invocations(line: &str) -> Vec<Invocation> {
    let words = words(line);
    let mut found = Vec::new();
    for (text, quoted) in &words {
        if *quoted && text.split_whitespace().any(|w| binary_of(w).is_some()) {
            found.extend(invocations(text));
        }
    }
    for command in words.split(separates) {
        let wrapped = command
            .first()
            .is_some_and(|w| WRAPPERS.contains(&w.0.as_str()));
        let start = command.iter().enumerate().position(|(i, (text, quoted))| {
            let Some(_) = binary_of(text).filter(|_| !quoted) else {
                return false;
            };
            let after_option = i > 0 && command[i - 1].0.starts_with('-');
            i == 0 || (wrapped && !after_option)
        });
        let Some(start) = start else { continue };
        if command
            .get(start + 1)
            .is_some_and(|(text, _)| text.ends_with(':'))
        {
            continue; // a message quoted (`tester run: only 1 of 2 worker threads ...`)
        }
        let binary = binary_of(&command[start].0).expect("a binary").to_string();
        let mut rest = command[start + 1..].iter();
        let mut subcommand = None;
        let mut options = Vec::new();
        let mut first = true;
        for (text, quoted) in rest.by_ref() {
            if text == "--" && !quoted {
                break;
            }
            if *quoted {
                first = false;
                continue;
            }
            match option_name(text) {
                Some(name) => options.push(name),
                None if first && binary != "queenattack" => subcommand = Some(text.clone()),
                None => {}
            }
            first = false;
        }
        found.push(Invocation {
            binary,
            subcommand,
            options,
            shown: line.trim().to_string(),
        });
    }
    found
}

/// The options a `--help` text defines: the names at the start of its option lines
/// (`  -o, --out <OUT>`, `      --seeds <SEEDS>`).
pub fn help_options(help: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in help.lines() {
        let trimmed = line.trim_start();
        // clap indents an option by 2 (`  -o, --out`) or 6 (`      --seeds`); a description
        // wrapped onto a line that starts with `--other` is indented deeper.
        let indent = line.len() - trimmed.len();
        if !trimmed.starts_with('-') || !(1..=6).contains(&indent) {
            continue;
        }
        for word in trimmed.split([',', ' ']).filter(|w| !w.is_empty()) {
            match option_name(word) {
                Some(name) => names.insert(name),
                None => break,
            };
        }
    }
    names
}

/// The subcommands a `--help` text lists under `Commands:`.
pub fn help_subcommands(help: &str) -> BTreeSet<String> {
    help.lines()
        .skip_while(|line| line.trim() != "Commands:")
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        // a subcommand's line is indented by 2; its description wrapped onto the next line
        // (clap's `wrap_help`) is indented to the description's column
        .filter(|line| !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// Whether a word is a placeholder a reader replaces (`SUBCOMMAND`, `NAME`).
pub fn is_placeholder(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_uppercase())
        && word
            .chars()
            .all(|c| c.is_ascii_uppercase() || c == '_' || c == '-')
}

/// Every shown run of `binary` on the pages.
pub fn shown_runs(pages: &[(PathBuf, String)], binary: &str) -> Vec<(PathBuf, Invocation)> {
    let mut runs = Vec::new();
    for (page, text) in pages {
        for line in command_lines(text) {
            for run in invocations(&line) {
                if run.binary == binary {
                    runs.push((page.clone(), run));
                }
            }
        }
    }
    runs
}

/// What is wrong with one shown run, given the subcommands of its binary (empty: it has none)
/// and the options its help (or its subcommand's) defines: `None` when it parses.
pub fn fault(
    run: &Invocation,
    subcommands: &BTreeSet<String>,
    options_of: &dyn Fn(Option<&str>) -> BTreeSet<String>,
) -> Option<String> {
    let subcommand = run.subcommand.as_deref();
    if let Some(sub) = subcommand {
        if is_placeholder(sub) {
            return None;
        }
        if !subcommands.contains(sub) {
            return Some(format!("no subcommand `{} {sub}`", run.binary));
        }
    }
    let known = options_of(subcommand);
    let unknown: Vec<&String> = run.options.iter().filter(|o| !known.contains(*o)).collect();
    (!unknown.is_empty()).then(|| {
        let name = match subcommand {
            Some(sub) => format!("{} {sub}", run.binary),
            None => run.binary.clone(),
        };
        format!("`{name}` has no option {unknown:?}")
    })
}
