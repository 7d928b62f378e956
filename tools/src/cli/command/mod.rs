//! The `tester` subcommands, one module each with its clap `Args` and its `run`; they use the
//! helpers of [`crate::cli`] and never each other, but for `ab`, which runs its seeds with the
//! pieces of `run` (its `run_seed`, build step and project file).

pub mod ab;
pub mod compare;
pub mod gen;
pub mod merge;
pub mod rescore;
pub mod run;
pub mod runs;
pub mod score;
pub mod vis;
