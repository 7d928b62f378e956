//! The QueenAttack solver pipeline.
