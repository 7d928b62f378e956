//! Integration tests of the `tools` package (the judge library and the `tester` binary).
//!
//! One test binary for the whole package (one link instead of one per file): each former file is
//! a module. `cargo test --test it MODULE::` runs one of them.

mod ab;
mod ab_losses;
mod ab_solver;
mod ab_sprt;
mod ab_traps;
mod ab_working_tree;
mod ab_worktrees;
mod best_answers;
mod bests_updates;
mod bounded;
mod bounds;
mod cli;
mod common;
mod compare;
mod compare_trust;
mod cpu_time;
mod daily_loop;
mod faults;
mod folder_writers;
mod fuzz;
mod hostile_gif;
mod hostile_limits;
mod hostile_processes;
mod hostile_report;
mod hostile_writes;
mod init_solver;
mod not_regular;
mod official;
mod run_provenance;
mod run_safety;
mod run_traps;
mod same_file;
mod shards;
mod ssh;
mod tester_limits;
mod tester_words;
mod tune;
mod vis_cli;
mod vis_gif;
