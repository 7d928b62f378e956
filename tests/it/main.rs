//! Integration tests of the root package `queenattack` (the solver binary and library).
//!
//! One test binary for the whole package (one link instead of one per file): each former file is
//! a module. `cargo test --test it MODULE::` runs one of them.

mod bound_branch;
mod bound_exhaustive;
mod bound_time;
mod common;
mod docs_commands;
mod docs_links;
mod docs_scan;
mod engine;
mod limits;
mod lower_bound;
mod official_harness;
mod readme;
mod solver_anytime;
mod solver_cli;
mod solver_failures;
mod solver_input;
mod solver_params;
mod workspace_features;
