//! Every relative link in README.md and docs/*.md resolves: the file (or folder) exists, and an
//! `#anchor` into a Markdown file names one of its headings (GitHub's heading ids).
//!
//! CI runs this with the rest of `cargo test --workspace`, so a moved or renamed doc breaks
//! the build instead of a reader's click.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use std::collections::HashMap;
use std::fs;
use std::path::{Component, Path, PathBuf};

/// GitHub's id for a heading text: lower case, every character that is not a letter, digit,
/// space, `-` or `_` dropped, spaces turned into `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The ids of a Markdown text's headings; a repeated id gets `-1`, `-2`, … as on GitHub.
fn heading_ids(markdown: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut heading: Option<String> = None;
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(text) | Event::Code(text) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&text);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap_or_default());
                let count = seen.entry(base.clone()).or_insert(0);
                ids.push(if *count == 0 {
                    base.clone()
                } else {
                    format!("{base}-{count}")
                });
                *count += 1;
            }
            _ => {}
        }
    }
    ids
}

/// The link and image targets of a Markdown text (code blocks and code spans are not links).
fn link_targets(markdown: &str) -> Vec<String> {
    Parser::new(markdown)
        .filter_map(|event| match event {
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => Some(dest_url.to_string()),
            _ => None,
        })
        .collect()
}

/// `dir/../x` → `x`, so a page in docs/ can point back to the root.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Every broken relative link of `pages` (path, text), as `page: target (why)`.
/// `read` gives the text of a file (`Some("")` for a folder), `None` when it does not exist.
fn broken_links(
    pages: &[(PathBuf, String)],
    read: &dyn Fn(&Path) -> Option<String>,
) -> Vec<String> {
    let mut broken = Vec::new();
    for (page, text) in pages {
        for target in link_targets(text) {
            // External links (any scheme, e.g. https:, mailto:) are not checked here.
            if target.contains(':') {
                continue;
            }
            let (file, anchor) = match target.split_once('#') {
                Some((file, anchor)) => (file, Some(anchor)),
                None => (target.as_str(), None),
            };
            let (path, content) = if file.is_empty() {
                (page.clone(), Some(text.clone()))
            } else {
                let path = normalise(&page.parent().unwrap_or(Path::new("")).join(file));
                let content = read(&path);
                (path, content)
            };
            let Some(content) = content else {
                broken.push(format!(
                    "{}: {target} (no file {})",
                    page.display(),
                    path.display()
                ));
                continue;
            };
            let Some(anchor) = anchor else { continue };
            if path.extension().is_some_and(|e| e == "md")
                && !heading_ids(&content).iter().any(|id| id == anchor)
            {
                broken.push(format!(
                    "{}: {target} (no heading #{anchor} in {})",
                    page.display(),
                    path.display()
                ));
            }
        }
    }
    broken
}

/// A file's text (lossy: images are only checked to exist) under the workspace root.
fn read_from_disk(root: &Path, path: &Path) -> Option<String> {
    let path = root.join(path);
    if path.is_dir() {
        return Some(String::new());
    }
    fs::read(path)
        .ok()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

#[test]
fn every_relative_link_in_readme_and_docs_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|entry| Path::new("docs").join(entry.expect("docs/ entry").file_name()))
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    assert!(
        docs.len() >= 5,
        "expected the five docs pages, found {docs:?}"
    );
    files.extend(docs);
    let pages: Vec<(PathBuf, String)> = files
        .into_iter()
        .map(|file| {
            let text = fs::read_to_string(root.join(&file))
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            (file, text)
        })
        .collect();
    let relative = pages
        .iter()
        .flat_map(|(_, text)| link_targets(text))
        .filter(|t| !t.contains(':'))
        .count();
    assert!(
        relative >= 10,
        "only {relative} relative links found: is the parser reading the pages?"
    );
    let broken = broken_links(&pages, &|path| read_from_disk(root, path));
    assert!(
        broken.is_empty(),
        "{} broken links:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn finds_broken_files_and_anchors_and_ignores_code() {
    let page = "# Guide\n\n## Two words\n\n## Two words\n\n\
        [ok](other.md#the-heading) [ok](#two-words) [ok](#two-words-1) [ok](../up.txt) \
        [web](https://example.com/x#y) ![img](pic.png)\n\n\
        [gone](missing.md) [bad anchor](other.md#nope) [bad here](#three-words) \
        [bad img](gone.png)\n\n\
        ```sh\n[in code](nowhere.md)\n```\n\nand `[span](nowhere.md)`\n";
    let pages = vec![(PathBuf::from("docs/guide.md"), page.to_string())];
    let read = |path: &Path| -> Option<String> {
        match path.to_str()? {
            "docs/other.md" => Some("# The heading\n".to_string()),
            "up.txt" | "docs/pic.png" => Some(String::new()),
            _ => None,
        }
    };
    assert_eq!(
        broken_links(&pages, &read),
        vec![
            "docs/guide.md: missing.md (no file docs/missing.md)",
            "docs/guide.md: other.md#nope (no heading #nope in docs/other.md)",
            "docs/guide.md: #three-words (no heading #three-words in docs/guide.md)",
            "docs/guide.md: gone.png (no file docs/gone.png)",
        ]
    );
}

#[test]
fn heading_ids_follow_github() {
    let text =
        "# queenattack (the solver)\n## `tester run`\n## N = 64, C = 10\n## Tests\n## Tests\n\
                ```\n# not a heading\n```\n";
    assert_eq!(
        heading_ids(text),
        [
            "queenattack-the-solver",
            "tester-run",
            "n--64-c--10",
            "tests",
            "tests-1"
        ]
    );
}
