//! The stages of the solver, each in its own module above the ground floor, numbered as in
//! docs/solver.md. A stage imports the ground floor (`crate::solver::{board, score, problem,
//! answer, params, budget, paths}`) and the stages below it, never the orchestrator.

pub(crate) mod anneal;
pub(crate) mod assign;
pub(crate) mod candidates;
pub(crate) mod exact;
pub(crate) mod first;
pub(crate) mod improve;
pub(crate) mod lift;
pub(crate) mod reorder;
pub(crate) mod route;
pub(crate) mod tables;
