//! ufo-galaxy: the data model, editing core and orchestrator of Galaxy
//! (UFO³), where one request becomes a DAG of sub-tasks — a
//! *constellation* of *task stars* joined by dependency *lines* — spread
//! across devices.
//!
//! No network and no model calls here: the orchestrator reaches devices
//! through a trait ([`orchestrate::DeviceRunner`]) and is re-planned
//! through a hook ([`orchestrate::Planner`]). The ConstellationAgent and
//! the AIP client build on it.
//!
//! * [`model`]: [`TaskStar`], [`TaskStarLine`], [`TaskConstellation`] and
//!   their enums, read and written as UFO's JSON (tasks and dependencies
//!   as maps by id or as lists); task transitions and the derived state.
//! * [`validate`]: cycles (named), dangling dependencies, duplicate ids,
//!   and tasks on unknown devices or device types — each its own error,
//!   worded for the model that has to fix the plan.
//! * [`ready`]: which tasks may start, per dependency type, and which are
//!   blocked until the plan changes.
//! * [`edit`]: UFO's edit commands (`add_task`, `update_dependency`, …)
//!   applied in order with early exit, only to tasks not started, with
//!   undo of the last batch.
//! * [`render`]: Mermaid for trajectories, a compact summary for prompts.
//! * [`orchestrate`]: runs a constellation to its end over devices — one
//!   sub-task in flight per device, timeouts with UFO's failure payloads,
//!   the planner's edits merged between completions, typed events,
//!   cancellation.
//!
//! ```
//! use ufo_galaxy::edit::{Action, Editor};
//! use ufo_galaxy::ready::{Gating, schedule};
//! use ufo_galaxy::{TaskConstellation, validate};
//!
//! let plan = TaskConstellation::from_json(r#"{
//!   "tasks": [
//!     {"task_id": "fetch", "name": "Fetch", "description": "Download the logs", "target_device_id": "linux-1"},
//!     {"task_id": "sum", "name": "Summarise", "description": "Summarise them", "target_device_id": "win-1"}],
//!   "dependencies": [{"line_id": "l1", "from_task_id": "fetch", "to_task_id": "sum",
//!                     "dependency_type": "success_only"}]}"#)?;
//! validate::validate(&plan)?;
//! let mut editor = Editor::new(plan);
//! let reply: Vec<Action> = serde_json::from_str(r#"[{"function": "update_task",
//!     "arguments": {"task_id": "sum", "tips": ["the logs are in /tmp/logs"]}}]"#)?;
//! editor.apply_actions(&reply)?;
//! let c = editor.constellation_mut();
//! assert_eq!(schedule(c, Gating::ByType).ready_ids(), ["fetch"]);
//! c.start_task("fetch")?;
//! c.complete_task("fetch", serde_json::json!({"status": "completed"}))?;
//! assert_eq!(schedule(c, Gating::ByType).ready_ids(), ["sum"]);
//! println!("{}", ufo_galaxy::render::mermaid(c));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod edit;
pub mod model;
pub mod orchestrate;
pub mod ready;
pub mod render;
pub mod validate;

pub use model::{
    ConstellationState, DependencyType, DeviceType, ModelError, TaskConstellation, TaskPriority,
    TaskStar, TaskStarLine, TaskStatus,
};
