//! The QueenAttack judge: an exact twin of the official Topcoder tester.

pub mod vis;
