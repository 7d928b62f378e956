//! `tester ab` removes only the worktrees it made (issue 59, item 1): a link or a foreign
//! worktree planted in `OUT/src` is left alone by `--clean` and by the verdict, and refused by
//! `--resume`, as is a link in place of its own folders; an A/B folder copied into another
//! clone and cleaned there leaves the first clone's worktrees. And `--resume` where no A/B is refuses (item 6).

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Output;

use super::ab::{both, fixtures, git};
use super::ab_traps::repository;
use crate::common::{fixture, scratch, tester};

fn ab(dir: &Path, args: &[&str]) -> Output {
    tester()
        .current_dir(dir)
        .arg("ab")
        .args(args)
        .output()
        .unwrap()
}

/// A repository `dir/v` with a worktree `dir/v-wt` (detached) holding an uncommitted
/// `work.txt`; returns both.
fn precious_worktree(dir: &Path) -> (PathBuf, PathBuf) {
    let repo = dir.join("v");
    fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "--quiet"]);
    git(&repo, &["commit", "--quiet", "--allow-empty", "-m", "i"]);
    let tree = dir.join("v-wt");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "--quiet",
            "--detach",
            tree.to_str().unwrap(),
        ],
    );
    fs::write(tree.join("work.txt"), "precious\n").unwrap();
    (repo, tree)
}

/// Whether `tree` is still whole: its uncommitted file there, and git still knowing it.
fn assert_intact(repo: &Path, tree: &Path, what: &str) {
    assert_eq!(
        fs::read_to_string(tree.join("work.txt")).ok().as_deref(),
        Some("precious\n"),
        "{what}"
    );
    let list = git(repo, &["worktree", "list", "--porcelain"]);
    assert!(
        list.contains(&format!("worktree {}", tree.display())),
        "{what}: {list}"
    );
}

#[test]
fn clean_and_resume_leave_links_and_foreign_worktrees_alone() {
    let dir = scratch("ab-worktrees-planted").canonicalize().unwrap();
    let (repo, tree) = precious_worktree(&dir);
    // A folder that looks like an A/B, with a link to the worktree in its src/.
    let planted = dir.join("ab");
    fs::create_dir_all(planted.join("src")).unwrap();
    fs::write(planted.join("ab.json"), "{}").unwrap();
    symlink(&tree, planted.join("src/x")).unwrap();
    // A real worktree of the repository made at src/y by someone else (registered by git at
    // exactly that path, but not made by this A/B), and a record forged to claim the link.
    let foreign = planted.join("src/y");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "--quiet",
            "--detach",
            foreign.to_str().unwrap(),
        ],
    );
    fs::write(foreign.join("work.txt"), "precious\n").unwrap();
    let record = serde_json::json!({"worktrees": [{"path": planted.join("src/x"),
        "repository": repo.join(".git"), "commit": "0"}]});
    fs::write(planted.join("worktrees.json"), record.to_string()).unwrap();
    let out = ab(&repo, &["--clean", planted.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(
        !both(&out).contains("removed the worktree"),
        "{}",
        both(&out)
    );
    assert!(both(&out).contains("left alone"), "{}", both(&out));
    assert_intact(&repo, &tree, "the linked worktree");
    assert_intact(&repo, &foreign, "the foreign worktree");
    // The same link in what looks like a stopped start (lock file and src/ only): --resume
    // refuses to take it over, so no verdict can remove it.
    let early = dir.join("early");
    fs::create_dir_all(early.join("src")).unwrap();
    fs::write(early.join(".tester.lock"), "").unwrap();
    symlink(&tree, early.join("src/x")).unwrap();
    let ok = fixture("ok.sh");
    let mut args = fixtures(&ok, &ok, early.to_str().unwrap());
    args.push("--resume");
    let out = ab(&repo, &args);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert!(
        both(&out).contains("is no worktree this A/B made"),
        "{}",
        both(&out)
    );
    assert!(!early.join("ab.json").exists());
    assert_intact(&repo, &tree, "after --resume");
}

#[test]
fn a_copied_ab_folder_cleaned_in_another_clone_keeps_the_first_clones_worktrees() {
    let dir = scratch("ab-worktrees-copied").canonicalize().unwrap();
    let first = repository(&dir);
    let args = [
        "--base",
        "HEAD~1",
        "--new",
        "HEAD",
        "--out",
        "runs/ab",
        "--jobs",
        "2",
        "--keep-worktrees",
    ];
    let out = ab(&first, &args);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let list = || git(&first, &["worktree", "list"]).lines().count();
    assert_eq!(list(), 3, "two worktrees kept");
    let second = dir.join("second");
    git(
        &dir,
        &[
            "clone",
            "--quiet",
            first.to_str().unwrap(),
            second.to_str().unwrap(),
        ],
    );
    fs::create_dir_all(second.join("runs")).unwrap();
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(first.join("runs/ab"))
        .arg(second.join("runs/ab"))
        .status()
        .unwrap();
    assert!(copied.success());
    let out = ab(&second, &["--clean", "runs/ab"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(
        !both(&out).contains("removed the worktree"),
        "{}",
        both(&out)
    );
    assert_eq!(
        list(),
        3,
        "the first clone's worktrees stay: {}",
        both(&out)
    );
    let kept: Vec<_> = fs::read_dir(first.join("runs/ab/src")).unwrap().collect();
    assert_eq!(kept.len(), 2);
    // Resuming the copy is refused too: its src/ holds trees made elsewhere.
    let out = ab(
        &second,
        &["--resume", "--out", "runs/ab", "--max-pairs", "30"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert!(
        both(&out).contains("no worktree this A/B made"),
        "{}",
        both(&out)
    );
    // In the first clone, the A/B removes its own.
    let out = ab(&first, &["--clean", "runs/ab"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_eq!(both(&out).matches("removed the worktree").count(), 2);
    assert_eq!(list(), 1);
    assert!(!first.join("runs/ab/src").exists());
}

#[test]
fn resume_refuses_links_in_place_of_its_folders() {
    let dir = scratch("ab-worktrees-linked-arms");
    let victim = dir.join("victim");
    fs::create_dir_all(&victim).unwrap();
    fs::write(victim.join("results.json"), "precious\n").unwrap();
    let ok = fixture("ok.sh");
    // A stopped start whose base/ is a link to someone's run folder.
    let early = dir.join("early");
    fs::create_dir_all(&early).unwrap();
    fs::write(early.join(".tester.lock"), "").unwrap();
    symlink(&victim, early.join("base")).unwrap();
    // A finished A/B whose new/ was replaced by such a link.
    let done = dir.join("done");
    let out = ab(&dir, &fixtures(&ok, &ok, done.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    fs::remove_dir_all(done.join("new")).unwrap();
    symlink(&victim, done.join("new")).unwrap();
    for (folder, link) in [(&early, "base"), (&done, "new")] {
        let mut args = fixtures(&ok, &ok, folder.to_str().unwrap());
        args.extend(["--resume", "--max-pairs", "30"]);
        let out = ab(&dir, &args);
        assert_eq!(out.status.code(), Some(2), "{}", both(&out));
        let said = format!("{link} is a symbolic link");
        assert!(both(&out).contains(&said), "{}", both(&out));
        assert_eq!(names(&victim), ["results.json"]);
        assert_eq!(
            fs::read_to_string(victim.join("results.json")).unwrap(),
            "precious\n"
        );
    }
}

/// The names in `folder`, sorted.
fn names(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn resume_where_no_ab_is_refuses() {
    let dir = scratch("ab-worktrees-nothing");
    let ok = fixture("ok.sh");
    let empty = dir.join("empty");
    fs::create_dir_all(&empty).unwrap();
    let locked = dir.join("locked");
    fs::create_dir_all(&locked).unwrap();
    fs::write(locked.join(".tester.lock"), "").unwrap();
    for out_dir in [dir.join("missing"), empty, locked] {
        let out_s = out_dir.to_str().unwrap();
        // Without any option (the default A/B) and with the options of one.
        for args in [
            vec!["--resume", "--out", out_s],
            [&fixtures(&ok, &ok, out_s)[..], &["--resume"]].concat(),
        ] {
            let out = ab(&dir, &args);
            assert_eq!(out.status.code(), Some(2), "{}", both(&out));
            let text = both(&out);
            assert!(
                text.contains(&format!("nothing to resume in {out_s}")),
                "{text}"
            );
            assert!(!out_dir.join("ab.json").exists(), "{text}");
            assert!(!out_dir.join("base").exists(), "{text}");
        }
    }
    assert!(!dir.join("missing").exists());
}
