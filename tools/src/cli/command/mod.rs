//! The `tester` subcommands, one module each with its clap `Args` and its `run`; they use the
//! helpers of [`crate::cli`] and never each other.

pub mod compare;
pub mod gen;
pub mod merge;
pub mod rescore;
pub mod run;
pub mod runs;
pub mod score;
pub mod vis;
