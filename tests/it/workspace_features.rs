//! Each member of the workspace built alone (`cargo build --release -p nqueens`) gets its
//! dependencies with the features the workspace build gives them, so it reuses that build
//! instead of compiling them and itself again (issue 69: 32 s for nqueens, because libc,
//! serde_json and serde_core had features there that only another member asked for; the root
//! Cargo.toml names them for every member).

use std::collections::BTreeSet;
use std::process::Command;

/// `cargo tree SELECTION`: one line per package and its features (`name vX [f1,f2]`), for the
/// build (normal and build dependencies) of the host.
fn tree(selection: &[&str]) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--offline",
            "-e",
            "normal,build",
            "--prefix",
            "none",
        ])
        .args(["-f", "{p} [{f}]"])
        .args(selection)
        .output()
        .expect("cargo runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "cargo tree {selection:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .map(|l| l.trim_end_matches(" (*)").to_string())
        .collect()
}

#[test]
fn a_member_built_alone_gets_the_workspaces_features() {
    let workspace = tree(&["--workspace"]);
    let members: Vec<String> = tree(&["--workspace", "--depth", "0"])
        .into_iter()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(members.len() >= 3, "{members:?}");
    let mut differ = Vec::new();
    for member in &members {
        for line in tree(&["-p", member]) {
            // A path dependency is a member: its own line names its folder.
            if !workspace.contains(&line) && !line.contains(" (/") {
                differ.push(format!("-p {member}: {line}"));
            }
        }
    }
    assert!(
        differ.is_empty(),
        "built alone, these differ from the workspace build (and are compiled again): {differ:?}"
    );
}
