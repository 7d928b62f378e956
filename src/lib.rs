//! queenattack: a solver for Topcoder Marathon Match 150 *QueenAttack*.
//!
//! * [`solver`]: the QueenAttack pipeline (paths → target boards → assignment → routing →
//!   reordering).
//!
//! The N-Queens tools behind it (one solution for any N, completion, nightriders,
//! verification) are the separate package `nqueens` of this workspace.

pub mod solver;
