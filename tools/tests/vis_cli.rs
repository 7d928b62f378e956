//! `tester vis` and `tester run --vis`: the pages they write carry the case, the output and the
//! judge's verdict. (The pages themselves are exercised in a browser by visualizer/e2e.)

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn tester() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tester"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("vis-{name}"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The data object embedded in a page.
fn page_data(page: &Path) -> Value {
    let html = fs::read_to_string(page).unwrap();
    let open = r#"<script type="application/json" id="qa-data">"#;
    let start = html.find(open).expect("data element") + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

fn gen(seed: u64) -> String {
    let out = tester()
        .args(["gen", "--seed", &seed.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn vis_seed_embeds_case_output_and_verdict() {
    let dir = scratch("seed");
    // Seed 1 (N = 8): (0,1) holds a queen and (1,0) is empty, as in the official legal outputs.
    let output = "1\n0 1 1 0\n";
    fs::write(dir.join("1.out"), output).unwrap();
    let page = dir.join("1.html");
    let out = tester()
        .args(["vis", "--seed", "1", "1.out", "-o", "1.html"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let data = page_data(&page);
    assert_eq!(data["input"], gen(1).as_str());
    assert_eq!(data["output"], output);
    assert_eq!(data["seed"], 1);
    assert!(data["p"].as_f64().unwrap() > 0.0);
    let score = tester()
        .args(["score", "--seed", "1", "1.out", "--json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let judged: Value = serde_json::from_slice(&score.stdout).unwrap();
    assert_eq!(data["verdict"]["score"], judged["score"]);
    assert_eq!(data["verdict"]["error"], Value::Null);
}

#[test]
fn vis_input_file_and_invalid_output() {
    let dir = scratch("input");
    fs::write(dir.join("case.in"), gen(3)).unwrap();
    fs::write(dir.join("bad.out"), "2\n0 0 0 0\n").unwrap();
    let out = tester()
        .args(["vis", "--input", "case.in", "bad.out", "-o", "bad.html"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid output: Cannot parse"));
    let data = page_data(&dir.join("bad.html"));
    assert!(data.get("seed").is_none() && data.get("p").is_none());
    assert_eq!(data["verdict"]["error"], "Cannot parse your output");
    assert_eq!(data["verdict"]["score"], -1.0);
}

#[test]
fn vis_reports_bad_paths_without_panicking() {
    let dir = scratch("errors");
    fs::write(dir.join("0.out"), "0\n").unwrap();
    for (args, needle) in [
        (
            vec!["--seed", "1", "missing.out", "-o", "x.html"],
            "cannot read",
        ),
        (
            vec!["--input", "missing.in", "0.out", "-o", "x.html"],
            "cannot read",
        ),
        (
            vec!["--seed", "1", "0.out", "-o", "no/such/dir/x.html"],
            "cannot write",
        ),
    ] {
        let out = tester()
            .arg("vis")
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle) && !err.contains("panicked"), "{err}");
    }
    let out = tester()
        .args(["vis", "0.out", "-o", "x.html"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "a case (--seed or --input) is required"
    );
}

#[test]
fn run_vis_writes_a_page_per_seed() {
    let dir = scratch("run");
    let solver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ok.sh");
    let out = tester()
        .args(["run", "--seeds", "1-3", "--quiet", "--vis", "--out"])
        .arg(&dir)
        .arg("--exec")
        .arg(format!("sh '{}'", solver.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for seed in 1..=3u64 {
        let data = page_data(&dir.join(format!("{seed}.html")));
        assert_eq!(data["seed"], seed);
        assert_eq!(data["input"], gen(seed).as_str());
        assert_eq!(data["output"], "0\n");
        assert_eq!(data["verdict"]["error"], Value::Null);
    }
}
