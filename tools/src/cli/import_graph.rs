//! Tests that modules import each other one way only: no circle such as `exec` → `reaper` →
//! `exec`, in `tools/src/cli`, in the whole of `tools/src`, and in the root package's `src/`
//! (the solver; read here as text only, the `tools` package never depends on it). A helper low
//! in the stack must not reach back up to a module that uses it, or the two can only be
//! understood, tested and changed together.
//!
//! The sources are read as text: every path starting with `super::` (any number of them),
//! `self::` or `crate::` outside comments and string literals (code of `#[cfg(test)]` modules
//! counts: it is compiled with the module) is an edge from the file's module to the deepest
//! module the path names. A parent's plain `child::item` paths are not collected, so a module
//! and its own submodules never form a circle here; siblings must reach each other through
//! `super::` or `crate::`, and those are what is checked.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module path below the crate root, e.g. `["cli", "exec"]`.
type Module = Vec<String>;

/// Edges between modules, each with the first place (`file:line`) that makes it.
type Graph = BTreeMap<Module, BTreeMap<Module, String>>;

/// The text of `source` with comments and the contents of string and character literals
/// blanked (newlines kept, so line numbers hold).
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    // Blanks `chars[from..to]`, keeping newlines.
    let blank = |out: &mut String, from: usize, to: usize| {
        for &c in &chars[from..to.min(chars.len())] {
            out.push(if c == '\n' { '\n' } else { ' ' });
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let end = if c == '/' && next == Some('/') {
            let end = (i..chars.len())
                .find(|&j| chars[j] == '\n')
                .unwrap_or(chars.len());
            let comment: String = chars[i..end].iter().collect();
            if comment.starts_with("///") || comment.starts_with("//!") {
                // Intra-doc links are references too: rustdoc resolves them.
                out.push_str(&doc_links(&comment));
                i = end;
                continue;
            }
            end
        } else if c == '/' && next == Some('*') {
            block_comment_end(&chars, i)
        } else if c == '"' || (is_raw_string_start(&chars, i) && !ident_before(&chars, i)) {
            string_end(&chars, i)
        } else if c == '\'' {
            char_literal_end(&chars, i).unwrap_or(i)
        } else {
            i
        };
        if end > i {
            blank(&mut out, i, end);
            i = end;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The paths of the intra-doc links of a doc comment line (a path between [` and `]), each
/// followed by `;` (the rest of the comment is dropped; it holds no newline).
fn doc_links(comment: &str) -> String {
    let mut out = String::new();
    let mut rest = comment;
    while let Some(open) = rest.find("[`") {
        let start = open + 2;
        let Some(len) = rest[start..].find("`]") else {
            break;
        };
        out.push_str(&rest[start..start + len]);
        out.push_str("; ");
        rest = &rest[start + len + 2..];
    }
    out
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// The end (exclusive) of the block comment opening at `i` (they nest in Rust).
fn block_comment_end(chars: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    chars.len()
}

/// Whether `r"`, `r#"`, `br"`... (a raw string) starts at `i`.
fn is_raw_string_start(chars: &[char], i: usize) -> bool {
    let j = if chars[i] == 'b' { i + 1 } else { i };
    if chars.get(j) != Some(&'r') {
        return false;
    }
    let hashes = chars[j + 1..].iter().take_while(|&&c| c == '#').count();
    chars.get(j + 1 + hashes) == Some(&'"')
}

/// The end (exclusive) of the string literal starting at `i` (plain or raw).
fn string_end(chars: &[char], i: usize) -> usize {
    if chars[i] == '"' {
        let mut j = i + 1;
        while j < chars.len() {
            match chars[j] {
                '\\' => j += 2,
                '"' => return j + 1,
                _ => j += 1,
            }
        }
        return chars.len();
    }
    let r = if chars[i] == 'b' { i + 1 } else { i };
    let hashes = chars[r + 1..].iter().take_while(|&&c| c == '#').count();
    let open = r + 1 + hashes;
    (open + 1..chars.len())
        .find(|&j| chars[j] == '"' && chars[j + 1..].iter().take(hashes).all(|&c| c == '#'))
        .map_or(chars.len(), |j| (j + 1 + hashes).min(chars.len()))
}

/// The end (exclusive) of the character literal at `i`, or `None` for a lifetime (`'a`).
fn char_literal_end(chars: &[char], i: usize) -> Option<usize> {
    if chars.get(i + 1) == Some(&'\\') {
        let close = (i + 2..chars.len()).find(|&j| chars[j] == '\'')?;
        return Some(close + 1);
    }
    (chars.get(i + 2) == Some(&'\'')).then_some(i + 3)
}

/// The module of a source file below `src/` (`cli/exec.rs` → `cli::exec`, `cli/run/mod.rs`
/// → `cli::run`; the crate roots `lib.rs` and `main.rs` → the root, whose `crate::` paths are
/// what they name).
fn module_of(relative: &Path) -> Module {
    let mut parts: Module = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    let crate_root = parts.is_empty() && (stem == "lib" || stem == "main");
    if stem != "mod" && !crate_root {
        parts.push(stem.to_string());
    }
    parts
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The words and punctuation of `code` with the line each is on.
fn tokens(code: &str) -> Vec<(String, usize)> {
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            line += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let mut word = c.to_string();
            while let Some(&d) = chars.peek().filter(|d| d.is_alphanumeric() || **d == '_') {
                word.push(d);
                chars.next();
            }
            tokens.push((word, line));
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            tokens.push(("::".to_string(), line));
        } else if !c.is_whitespace() {
            tokens.push((c.to_string(), line));
        }
    }
    tokens
}

/// The paths of a path expression or `use` tree starting at `tokens[i]` (groups `{a, b::c}`
/// expanded), each as its segments; and the index after it.
fn paths_at(tokens: &[(String, usize)], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix = Vec::new();
    loop {
        let Some((word, _)) = tokens.get(i) else {
            return (vec![prefix], i);
        };
        if word == "{" {
            let mut paths = Vec::new();
            i += 1;
            while i < tokens.len() && tokens[i].0 != "}" {
                let (inner, next) = paths_at(tokens, i);
                paths.extend(inner.into_iter().map(|p| [prefix.clone(), p].concat()));
                i = next;
                // Skips `as name`, then the comma.
                while i < tokens.len() && tokens[i].0 != "," && tokens[i].0 != "}" {
                    i += 1;
                }
                if tokens.get(i).is_some_and(|t| t.0 == ",") {
                    i += 1;
                }
            }
            return (paths, i + 1);
        }
        if !word.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
            return (vec![prefix], i);
        }
        prefix.push(word.clone());
        if tokens.get(i + 1).is_some_and(|t| t.0 == "::") {
            i += 2;
        } else {
            return (vec![prefix], i + 1);
        }
    }
}

/// Where `path`, written in module `here`, leads: the deepest module of `modules` it names;
/// `None` for paths that do not start with `super`, `self` or `crate`.
fn resolve(here: &[String], path: &[String], modules: &BTreeSet<Module>) -> Option<Module> {
    let mut at: Module = here.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            at.clear();
            rest = &rest[1..];
        }
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                at.pop()?;
                rest = &rest[1..];
            }
        }
        Some("self") => rest = &rest[1..],
        _ => return None,
    }
    for segment in rest {
        let mut deeper = at.clone();
        deeper.push(segment.clone());
        if !modules.contains(&deeper) {
            break;
        }
        at = deeper;
    }
    Some(at)
}

/// The import edges between the modules under `src/UNDER` (`under` = `["cli"]`: `src/cli`;
/// empty: the whole crate), from the files there.
fn import_graph(src: &Path, under: &[&str]) -> Graph {
    let mut files = Vec::new();
    rust_files(
        &under.iter().fold(src.to_path_buf(), |dir, m| dir.join(m)),
        &mut files,
    );
    files.sort();
    let scope: Module = under.iter().map(|m| m.to_string()).collect();
    let modules: BTreeSet<Module> = files
        .iter()
        .map(|f| module_of(f.strip_prefix(src).unwrap()))
        .collect();
    let mut graph = Graph::new();
    for file in &files {
        let from = module_of(file.strip_prefix(src).unwrap());
        let code = code_only(&fs::read_to_string(file).unwrap());
        let name = file.strip_prefix(src).unwrap().display().to_string();
        let edges = graph.entry(from.clone()).or_default();
        for (to, line) in file_edges(&from, &tokens(&code), &modules) {
            if to != from && to.starts_with(&scope) {
                edges.entry(to).or_insert_with(|| format!("{name}:{line}"));
            }
        }
    }
    graph
}

/// The modules the paths of one file (module `from`, its tokens) lead to, with their lines.
/// Inline modules (`mod tests { ... }`) are followed, so their `super::` is resolved right.
fn file_edges(
    from: &[String],
    tokens: &[(String, usize)],
    modules: &BTreeSet<Module>,
) -> Vec<(Module, usize)> {
    let mut edges = Vec::new();
    // The inline modules open here, each with the brace depth it opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        let word = tokens[i].0.as_str();
        let after_path = i > 0 && tokens[i - 1].0 == "::";
        // `pub(super)` and `pub(in crate::cli)` are visibilities, not paths.
        let visibility = i >= 2
            && (tokens[i - 1].0 == "(" || tokens[i - 1].0 == "in")
            && (tokens[i - 2].0 == "pub" || tokens[i - 2].0 == "(");
        match word {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
            }
            "mod" if tokens.get(i + 2).is_some_and(|t| t.0 == "{") => {
                inline.push((tokens[i + 1].0.clone(), depth));
                depth += 1;
                i += 3;
                continue;
            }
            "super" | "crate" | "self" if !after_path && !visibility => {
                let here: Module = from
                    .iter()
                    .cloned()
                    .chain(inline.iter().map(|m| m.0.clone()))
                    .collect();
                let (paths, next) = paths_at(tokens, i);
                for path in paths {
                    if let Some(to) = resolve(&here, &path, modules) {
                        edges.push((to, tokens[i].1));
                    }
                }
                i = next.max(i + 1);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    edges
}

/// A circle of `graph` (its modules in order, the first repeated at the end), if any.
fn find_circle(graph: &Graph) -> Option<Vec<Module>> {
    // 0: not seen, 1: on the current path, 2: done.
    let mut state: BTreeMap<&Module, u8> = BTreeMap::new();
    let mut path: Vec<&Module> = Vec::new();
    fn visit<'g>(
        at: &'g Module,
        graph: &'g Graph,
        state: &mut BTreeMap<&'g Module, u8>,
        path: &mut Vec<&'g Module>,
    ) -> Option<Vec<Module>> {
        state.insert(at, 1);
        path.push(at);
        for next in graph.get(at).into_iter().flat_map(BTreeMap::keys) {
            match state.get(next).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|m| *m == next).unwrap();
                    let mut circle: Vec<Module> =
                        path[start..].iter().map(|m| (*m).clone()).collect();
                    circle.push(next.clone());
                    return Some(circle);
                }
                0 => {
                    if let Some(circle) = visit(next, graph, state, path) {
                        return Some(circle);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(at, 2);
        None
    }
    for module in graph.keys() {
        if state.get(module).copied().unwrap_or(0) == 0 {
            if let Some(circle) = visit(module, graph, &mut state, &mut path) {
                return Some(circle);
            }
        }
    }
    None
}

/// `cli::exec → cli::reaper (cli/exec.rs:17) → ...`: a circle with the line behind each step.
fn describe(circle: &[Module], graph: &Graph) -> String {
    let mut text = circle[0].join("::");
    for pair in circle.windows(2) {
        let place = &graph[&pair[0]][&pair[1]];
        text.push_str(&format!(" → {} ({place})", pair[1].join("::")));
    }
    text
}

#[test]
fn the_modules_of_cli_import_each_other_one_way_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = import_graph(&src, &["cli"]);
    // The scan sees imports at all (a broken scan would find no circle either).
    let run = vec!["cli".to_string(), "command".into(), "run".into()];
    let exec = vec!["cli".to_string(), "exec".into()];
    assert!(
        graph[&run].contains_key(&exec),
        "cli::command::run uses cli::exec"
    );
    if let Some(circle) = find_circle(&graph) {
        panic!(
            "an import circle in tools/src/cli: {}; move the shared item down into a module \
             both can use",
            describe(&circle, &graph)
        );
    }
}

/// `a::b::c` as a module.
fn module(path: &str) -> Module {
    path.split("::").map(str::to_string).collect()
}

/// Panics naming the first circle of `graph` (the sources of `name`), if any.
fn assert_no_circle(graph: &Graph, name: &str) {
    if let Some(circle) = find_circle(graph) {
        panic!(
            "an import circle in {name}: {}; move the shared item down into a module both can \
             use",
            describe(&circle, graph)
        );
    }
}

#[test]
fn the_modules_of_tools_import_each_other_one_way_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = import_graph(&src, &[]);
    // The scan sees imports outside `cli` too.
    assert!(
        graph[&module("judge")].contains_key(&module("replay")),
        "judge uses replay"
    );
    assert_no_circle(&graph, "tools/src");
}

#[test]
fn the_modules_of_the_solver_import_each_other_one_way_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src");
    let graph = import_graph(&src, &[]);
    // The scan sees the solver's imports (a broken scan would find no circle either).
    assert!(
        graph[&module("solver::solve")].contains_key(&module("solver::stage::exact")),
        "solver::solve uses solver::stage::exact"
    );
    assert_no_circle(&graph, "src/ (the root package)");
}

#[test]
fn comments_strings_and_inline_modules_are_read_right() {
    let code = code_only(
        "use super::a; // super::b [`super::b`]\n/* super::c /* nested */ super::d */ let s = \"super::e\";\n\
         let r = r#\"super::f\"#; let c = '\"'; fn f<'a>(x: &'a str) {}\nuse crate::cli::{g, h::i as j};\n\
         mod tests { use super::super::k; }\n/// Links: [`super::c`], [`Thing`](x), [`crate::cli::d::f`].\n\
         pub(super) fn x() {} pub(in crate::cli) fn y() {} // [`super::e`]",
    );
    let mut modules: BTreeSet<Module> = ["a", "b", "c", "d", "e", "f", "g", "h", "k", "m"]
        .iter()
        .map(|m| vec!["cli".to_string(), m.to_string()])
        .collect();
    modules.insert(vec!["cli".to_string()]);
    let from = vec!["cli".to_string(), "m".into()];
    let found: BTreeSet<String> = file_edges(&from, &tokens(&code), &modules)
        .into_iter()
        .map(|(m, line)| format!("{}@{line}", m.join("::")))
        .collect();
    let expected = [
        "cli::a@1", "cli::g@4", "cli::h@4", "cli::k@5", "cli::c@6", "cli::d@6",
    ];
    assert_eq!(found, expected.iter().map(|s| s.to_string()).collect());
}

#[test]
fn a_circle_is_found_and_named() {
    let m = |name: &str| vec!["cli".to_string(), name.to_string()];
    let mut graph = Graph::new();
    graph
        .entry(m("a"))
        .or_default()
        .insert(m("b"), "cli/a.rs:1".into());
    graph
        .entry(m("b"))
        .or_default()
        .insert(m("c"), "cli/b.rs:2".into());
    graph
        .entry(m("c"))
        .or_default()
        .insert(m("a"), "cli/c.rs:3".into());
    let circle = find_circle(&graph).expect("a → b → c → a");
    assert_eq!(
        describe(&circle, &graph),
        "cli::a → cli::b (cli/a.rs:1) → cli::c (cli/b.rs:2) → cli::a (cli/c.rs:3)"
    );
    graph.get_mut(&m("c")).unwrap().clear();
    assert_eq!(find_circle(&graph), None);
}
