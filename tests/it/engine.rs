//! The one-colour engine on its own (`queenattack::solver::engine`, issue 58): on two small
//! stored instances of `benches/engine/`, its anytime search gives valid boards no cheaper
//! than the best known cost, its proof never claims a bound above that cost and, where it
//! finishes, proves a board of exactly its bound; an instance survives a write and a read;
//! and `QUEENATTACK_ENGINE_DUMP` makes a run of the binary write the instances it solves.
//!
//! No assertion on wall time (the tests run on a loaded machine): the deadlines are generous,
//! and a proof the clock cut short is held to its bound alone.

use crate::common::{self, SharedFolder};
use queenattack::solver::engine::{self, Instance, Kind, DUMP_VAR};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_queenattack");

/// How far a cost summed in another order, or the matching's integer scale, may move a
/// cost (the benchmark's tolerance).
const TOLERANCE: f64 = 1e-4;

/// The small instances the tests solve: the smallest plain one and the smallest with cells
/// taken by other colours.
const SMALL: [&str; 2] = ["plain-n16-s4356.engine", "taken-n17-s4008.engine"];

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/engine")
}

/// The stored instance `file` and its best known cost from the README's table.
fn stored(file: &str) -> (Instance, f64) {
    let readme = std::fs::read_to_string(folder().join("README.md")).expect("the README");
    let row = readme
        .lines()
        .find(|l| l.starts_with(&format!("| {file} |")))
        .unwrap_or_else(|| panic!("{file} is not in the README's table"));
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    let best: f64 = cells[5].parse().unwrap_or_else(|_| panic!("{row}"));
    assert!(best.is_finite(), "{file}: no best known cost in the README");
    let instance = Instance::read(folder().join(file)).expect("a stored instance");
    (instance, best)
}

#[test]
fn the_search_gives_valid_boards_never_below_the_best_known_cost() {
    for file in SMALL {
        let (instance, best) = stored(file);
        // generous: the whole search of these boards takes well under a second of CPU
        let found = engine::boards(&instance, 3, Instant::now() + Duration::from_secs(20));
        assert!(!found.is_empty(), "{file}: no board");
        assert!(found.len() <= 3, "{file}: {} boards", found.len());
        for (cost, cells) in &found {
            assert!(instance.is_board(cells), "{file}: {cells:?} is no board");
            assert!(
                (instance.cost(cells) - cost).abs() < TOLERANCE,
                "{file}: {cost}"
            );
            assert!(
                *cost >= best - TOLERANCE,
                "{file}: {cost} below the best {best}"
            );
        }
        assert!(
            found.windows(2).all(|w| w[0].0 <= w[1].0),
            "{file}: not cheapest first"
        );
    }
}

#[test]
fn the_proof_never_claims_a_bound_above_the_best_known_cost() {
    for file in SMALL {
        let (instance, best) = stored(file);
        for millis in [0, 50] {
            let proof = engine::floor(&instance, Instant::now() + Duration::from_millis(millis), 1);
            assert!(
                proof.bound <= best + TOLERANCE,
                "{file}, {millis} ms: {proof:?} above {best}"
            );
        }
    }
}

#[test]
fn a_finished_proof_gives_a_board_of_its_bound_at_the_best_known_cost() {
    // the proof of the N = 16 instance takes about 0.1 s of CPU; 60 s leaves room on a
    // loaded machine, and a proof cut short anyway is held to its bound alone
    let (instance, best) = stored(SMALL[0]);
    let proof = engine::floor(&instance, Instant::now() + Duration::from_secs(60), 2);
    assert!(proof.bound <= best + TOLERANCE, "{proof:?} above {best}");
    let Some(board) = &proof.board else {
        eprintln!(
            "the proof did not finish in 60 s (bound {}): exact claim skipped",
            proof.bound
        );
        return;
    };
    assert!(instance.is_board(board), "{board:?}");
    assert!(
        (instance.cost(board) - proof.bound).abs() < TOLERANCE,
        "{proof:?}"
    );
    // the README's best is this proof's cost (written with 6 decimals)
    assert!((proof.bound - best).abs() < 1e-5, "{proof:?} vs {best}");
    assert!(proof.nodes > 0, "{proof:?}");
}

#[test]
fn an_instance_written_and_read_back_is_the_same() {
    let dir = SharedFolder::new("engine-write");
    for file in SMALL {
        let (instance, _) = stored(file);
        let path = dir.path().join(file);
        instance.write(&path).expect("written");
        assert_eq!(
            Instance::read(&path).expect("read back"),
            instance,
            "{file}"
        );
    }
    // a file cut short is refused, naming the file
    let path = dir.path().join(SMALL[0]);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    let e = Instance::read(&path).expect_err("one byte short");
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
    assert!(e.to_string().contains(SMALL[0]), "{e}");
}

#[test]
fn a_run_with_the_dump_variable_writes_the_instances_it_solves() {
    // seed 22: N = 9, C = 1, so the bound's colour floor is one call of the engine
    let input = tools::gen::generate(22, &tools::gen::Ranges::default())
        .input
        .to_string();
    let dir = SharedFolder::new("engine-dump");
    let mut command = std::process::Command::new(EXE);
    command
        .args(["--bound", "--bound-time", "1"])
        .env(DUMP_VAR, dir.path());
    let (child, stdin) = common::start_with_input(&mut command, input.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().expect("the run ends");
    assert!(out.status.success(), "{out:?}");
    let mut read = 0;
    for entry in std::fs::read_dir(dir.path()).expect("the dump folder") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let instance = Instance::read(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(instance.n, 9, "{name}");
        assert!(
            name.starts_with(&format!("{}-n9-", instance.kind)),
            "{name}"
        );
        assert!(
            instance.kind != Kind::Taken,
            "{name}: the bound takes no cells"
        );
        assert!(
            instance.source.contains("one_colour_floor"),
            "{}",
            instance.source
        );
        // the dumped call is one the engine can run again
        let board = engine::boards(&instance, 1, Instant::now() + Duration::from_secs(20));
        assert!(
            board
                .first()
                .is_some_and(|(_, cells)| instance.is_board(cells)),
            "{name}"
        );
        read += 1;
    }
    assert!(
        read >= 1,
        "no instance dumped: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
