//! N-Queens family: placements, an O(N) verifier, and (in later modules) construction,
//! search and completion.

pub mod explicit;
mod mem;
pub mod output;
pub mod placement;
pub mod search;
pub mod verify;

pub use placement::{parse_placement, Placement, PlacementError};
pub use verify::{find_conflict, Conflict, Line};
