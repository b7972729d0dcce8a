//! The data model: [`TaskStar`] (a sub-task), [`TaskStarLine`] (a
//! dependency), [`TaskConstellation`] (the DAG) and their enums, read and
//! written as UFO's JSON.
//!
//! * [`enums`]: statuses, dependency types, states, device types,
//!   priorities, with UFO's spellings and its lenient reading.
//! * [`task`], [`line`](mod@line), [`constellation`]: the types.
//! * [`input`]: reading either of UFO's shapes (maps by id or lists).
//! * [`output`]: writing UFO's `to_dict` shape.
//! * [`run`]: task transitions and the derived constellation state.
//! * [`error`], [`ModelError`]: what can go wrong.

mod clock;
pub mod constellation;
pub mod enums;
pub mod error;
pub mod input;
pub mod line;
pub mod output;
pub mod run;
pub mod task;

pub use constellation::TaskConstellation;
pub use enums::{ConstellationState, DependencyType, DeviceType, TaskPriority, TaskStatus};
pub use error::ModelError;
pub use line::TaskStarLine;
pub use run::derive_state;
pub use task::TaskStar;

pub(crate) use clock::now;
