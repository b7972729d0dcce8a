//! # ufo-core — the vocabulary of ufo-rs
//!
//! Every other crate speaks in the types defined here: UI trees and the numbered
//! controls an agent sees, rectangles in typed coordinate spaces, windows and
//! applications, the [`Command`] an agent issues and the
//! [`ActionResult`] it gets back, tool specifications, agent
//! statuses and the error convention (a stable code plus a help line).
//!
//! ## What this crate must not know
//! No I/O, no async runtime, no operating system and no model provider. It can be
//! used from any backend, any transport and any agent, and it depends on nothing of
//! ours. Keeping it pure is what lets a remote device and a local one look the same
//! to an agent.

pub mod command;
pub mod de;
pub mod error;
pub mod geometry;
pub mod states;
pub mod status;
pub mod text;
pub mod tool;
pub mod ui;

pub use command::{ActionResult, ActionStatus, Command, ToolType};
pub use error::{BoxError, Diagnostic, ErrorReport, render};
pub use geometry::{Image, Point, Rect, Screen, Window};
pub use states::States;
pub use status::{AppAgentStatus, HostAgentStatus, StepStatus};
pub use tool::ToolSpec;
pub use ui::{
    Control, ControlLog, ControlType, ElementHandle, UiNode, UiTree, WindowInfo, app_name_matches,
};
