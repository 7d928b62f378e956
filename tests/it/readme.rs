//! Issue 52: the README runs as written. Its commands run from the repository's top folder
//! (the workspace's binaries named by their path, `./target/release/NAME`: they are not on
//! `PATH`), it stays at most 200 lines, and no page names a file outside the repository.

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
use std::fs;
use std::path::{Component, Path, PathBuf};

/// The workspace's top folder.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The inline code spans of a Markdown text, and the lines of its fenced `sh` blocks.
fn code(markdown: &str) -> (Vec<String>, Vec<String>) {
    let (mut spans, mut lines) = (Vec::new(), Vec::new());
    let mut in_shell = false;
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang))) => in_shell = &*lang == "sh",
            Event::End(TagEnd::CodeBlock) => in_shell = false,
            Event::Text(text) if in_shell => lines.extend(text.lines().map(str::to_string)),
            Event::Code(text) => spans.push(text.to_string()),
            _ => {}
        }
    }
    (spans, lines)
}

/// The bare names of the workspace's binaries a shell line runs (`tester run ...`, `... |
/// nqueens verify`): each command of the line, split at `;`, `|`, `&&` and `do`.
fn bare_commands(line: &str) -> Vec<String> {
    let command = line.split('#').next().unwrap_or_default();
    command
        .split([';', '|', '&'])
        .flat_map(|part| part.split(" do "))
        .filter_map(|part| part.split_whitespace().next())
        .filter(|word| ["tester", "queenattack", "nqueens"].contains(word))
        .map(str::to_string)
        .collect()
}

#[test]
fn readme_commands_run_from_the_top_folder_and_it_stays_short() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    // Code blocks hold commands; a code span in the text may name a subcommand (`tester run`).
    let (_, block_lines) = code(&readme);
    let mut bare = Vec::new();
    for line in &block_lines {
        if !bare_commands(line).is_empty() {
            bare.push(line.clone());
        }
    }
    assert!(
        bare.is_empty(),
        "README commands that name a binary not on PATH (write ./target/release/NAME):\n{}",
        bare.join("\n")
    );
    let lines = readme.lines().count();
    assert!(lines <= 200, "README.md has {lines} lines (at most 200)");
    // Every binary the README runs by its path is one the quick start's build makes.
    for line in &block_lines {
        for (i, _) in line.match_indices("./target/release/") {
            let name: String = line[i + 17..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            assert!(
                ["tester", "queenattack", "nqueens"].contains(&name.as_str()),
                "{line}: ./target/release/{name} is no binary of the workspace"
            );
        }
    }
}

/// What a README line writes (`> F`, `-o F`, `--out D`, `--html F`, `--gif F`, and
/// `D/tester.toml` of `tester init [--dir D]`) and the files it reads (`< F`, and every other
/// word naming a `.in`, `.out` or `.txt` file), as written.
fn files_of(line: &str) -> (Vec<String>, Vec<String>) {
    let words: Vec<String> = super::docs_scan::words(line)
        .into_iter()
        .map(|(word, _)| word)
        .collect();
    let (mut writes, mut reads) = (Vec::new(), Vec::new());
    let mut next = words.iter();
    while let Some(word) = next.next() {
        match word.as_str() {
            ">" | "-o" | "--out" | "--html" | "--gif" => writes.extend(next.next().cloned()),
            "<" => reads.extend(next.next().cloned()),
            "init" => {
                let at = words.iter().position(|w| w == "--dir");
                let dir = at
                    .and_then(|i| words.get(i + 1))
                    .map_or(".", String::as_str);
                writes.push(format!("{dir}/tester.toml").replace("./", ""));
            }
            w if [".in", ".out", ".txt"].iter().any(|e| w.ends_with(e)) => reads.push(w.into()),
            _ => {}
        }
    }
    (writes, reads)
}

#[test]
fn readme_examples_write_under_runs_and_read_only_what_is_there() {
    // Issue 69 item 10: the examples wrote 2.out, 2.html, 2.gif, report.html and tester.toml
    // into the top folder (every later run found the tree dirty) and read a.out and b.out,
    // which nothing made. In order, from a fresh clone, each reads a file of the repository
    // (runs/ is none: it is git-ignored) or one an earlier line made.
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let (_, lines) = code(&readme);
    let (mut made, mut faults) = (Vec::<String>::new(), Vec::new());
    for line in &lines {
        let (writes, reads) = files_of(line);
        for read in reads {
            let ours = !read.starts_with("runs/") && root().join(&read).is_file();
            let earlier = made
                .iter()
                .any(|m| read == *m || read.starts_with(&format!("{m}/")));
            if !ours && !earlier {
                faults.push(format!("{line}: reads {read}, which no line before made"));
            }
        }
        for write in writes {
            if !write.starts_with("runs/") && write != "/dev/null" {
                faults.push(format!("{line}: writes {write} outside runs/"));
            }
            made.push(write);
        }
    }
    assert!(
        made.len() >= 10,
        "only {} files written: {made:?}",
        made.len()
    );
    assert!(faults.is_empty(), "{}", faults.join("\n"));
    let ignored = fs::read_to_string(root().join(".gitignore")).unwrap();
    assert!(
        ignored.lines().any(|l| l == "/runs/"),
        "runs/ is not git-ignored"
    );
}

#[test]
fn the_file_finder_reads_a_line_as_the_shell_does() {
    assert_eq!(
        files_of("./q --seed 2 < testcases/2.in > runs/2.out  # not.out"),
        (vec!["runs/2.out".into()], vec!["testcases/2.in".into()])
    );
    assert_eq!(
        files_of("./tester vis --seed 2 a.out -o 2.html --filter 'N > 2'"),
        (vec!["2.html".into()], vec!["a.out".into()])
    );
    assert_eq!(
        files_of("./target/release/tester init --solver x"),
        (vec!["tester.toml".into()], vec![])
    );
    assert_eq!(
        files_of("./target/release/tester init --dir runs/p"),
        (vec!["runs/p/tester.toml".into()], vec![])
    );
}

#[test]
fn the_bare_command_finder_sees_every_command_of_a_line() {
    assert_eq!(bare_commands("tester run --seeds 1-10"), ["tester"]);
    assert_eq!(
        bare_commands("./target/release/tester run"),
        Vec::<String>::new()
    );
    assert_eq!(
        bare_commands("nqueens gen-composition 9 | nqueens verify  # OK"),
        ["nqueens", "nqueens"]
    );
    assert_eq!(
        bare_commands("for k in 0 1; do tester run; done"),
        ["tester"]
    );
    assert_eq!(
        bare_commands("cargo test  # then tester"),
        Vec::<String>::new()
    );
}

/// `page/../x` → `x`; `None` when the path climbs above the top folder.
fn inside(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// Every relative path (`../x`) named in `text`'s words, as written.
fn climbing_paths(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || matches!(c, '`' | '(' | ')' | '"' | '\'' | ','))
        .filter(|word| word.starts_with("../"))
        .map(str::to_string)
        .collect()
}

#[test]
fn no_page_names_a_file_outside_the_repository() {
    let mut pages = vec![PathBuf::from("README.md")];
    for entry in fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path.strip_prefix(root()).unwrap().to_path_buf());
        }
    }
    let mut outside = Vec::new();
    for page in &pages {
        let text = fs::read_to_string(root().join(page)).unwrap();
        let (spans, block_lines) = code(&text);
        // The README's commands too; the docs' shell examples may name other folders.
        let named = if page == Path::new("README.md") {
            spans
                .iter()
                .chain(&block_lines)
                .cloned()
                .collect::<Vec<_>>()
        } else {
            spans
        };
        for path in named.iter().flat_map(|t| climbing_paths(t)) {
            let folder = page.parent().unwrap_or(Path::new(""));
            match inside(&folder.join(&path)) {
                Some(there) if root().join(&there).exists() => {}
                _ => outside.push(format!("{}: {path}", page.display())),
            }
        }
    }
    assert!(
        outside.is_empty(),
        "paths outside the repository, or to no file in it:\n{}",
        outside.join("\n")
    );
}
