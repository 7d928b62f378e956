//! Integration tests of the `nqueens` package.
//!
//! One test binary for the whole package (one link instead of one per file): each former file is
//! a module. `cargo test --test it MODULE::` runs one of them.

mod common;
mod complete_cli;
mod complete_random;
mod docs_commands;
mod nqueens_limits;
mod nqueens_pipes;
mod nqueens_solve;
mod nqueens_verify;
mod quoting;
