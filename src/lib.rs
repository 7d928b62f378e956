//! queenattack: a solver for Topcoder Marathon Match 150 *QueenAttack* and tools for the
//! N-Queens family behind it (one solution for any N, completion, nightriders, verification).
//!
//! * [`solver`]: the QueenAttack pipeline (paths → target boards → assignment → routing →
//!   reordering).
//! * [`nqueens`]: N-Queens construction, search, completion and an O(N) verifier.

pub mod nqueens;
pub mod solver;
