//! The seam between agents and whatever executes their commands: the
//! [`CommandDispatcher`] contract, the in-process [`LocalDispatcher`] over a
//! [`crate::Backend`], and the [`Observation`] an AppAgent step takes through
//! any dispatcher (`observe.rs`: through its data-collection tools). A remote dispatcher (the AIP server's) implements the same
//! trait, so agents cannot tell a device across the network from this one.

mod local;
mod observe;

pub use local::{LocalDispatcher, tool_context};

use crate::observe::{Observation, ObserveOptions};
use async_trait::async_trait;
use ufo_core::Diagnostic;
use ufo_core::{ActionResult, Command, ErrorReport};

/// A dispatcher that came back without what was asked.
#[derive(Debug, thiserror::Error)]
pub enum DispatchError {
    /// The dispatcher returned no result for a command.
    #[error("{tool} gave no result")]
    NoResult {
        /// The tool that was called.
        tool: String,
    },
    /// A tool's result did not have the expected shape.
    #[error("{tool} returned something unreadable")]
    BadResult {
        /// The tool that was called.
        tool: String,
        /// What was wrong with it.
        #[source]
        source: serde_json::Error,
    },
}

impl Diagnostic for DispatchError {
    fn code(&self) -> &'static str {
        match self {
            DispatchError::NoResult { .. } => "ufo::dispatch::no_result",
            DispatchError::BadResult { .. } => "ufo::dispatch::bad_result",
        }
    }

    fn help(&self) -> Option<String> {
        Some("check the desktop with `ufo doctor`; a remote device may have disconnected".into())
    }
}

/// Executes [`Command`]s for an agent, locally over a backend or remotely over
/// a transport. Agents know only this trait.
///
/// Contract of [`CommandDispatcher::execute`]:
/// * it returns exactly one [`ActionResult`] per command, in order, with the
///   command's `call_id`;
/// * commands run one after another; after the first failed command the
///   remaining ones are not executed and come back as
///   [`ufo_core::ActionStatus::Skipped`] (UFO's `early_exit`);
/// * it never panics and never returns an error: transport problems become
///   failed results carrying an [`ufo_core::ErrorReport`].
///
/// The dispatcher keeps the device-side state (selected window, labelled
/// controls), so `id` arguments refer to the controls of the latest
/// `get_app_window_controls_target_info` on the same dispatcher.
#[async_trait]
pub trait CommandDispatcher: Send + Sync {
    /// Executes `commands` in order (see the trait docs).
    async fn execute(&self, commands: Vec<Command>) -> Vec<ActionResult>;

    /// A short description for logs (`local`, `ws://…`).
    fn describe(&self) -> String;

    /// Observes the selected window for an AppAgent step: its labelled
    /// controls and, as `opts` asks, its screenshot and full tree. The
    /// default runs the data-collection tools through
    /// [`CommandDispatcher::execute`] (the screenshot travels as PNG); a
    /// dispatcher in the same process as the desktop observes with
    /// [`crate::observe::observe`] and hands the pixels over as they are.
    async fn observe(&self, opts: ObserveOptions) -> Result<Observation, ErrorReport> {
        observe::observe_window(self, opts).await
    }

    /// The tools of `namespace` as the device that executes them describes
    /// them (a remote device may want other arguments than this build's
    /// catalog), without the arguments the dispatcher supplies itself.
    /// `None` (the default): the catalog's own specs apply.
    async fn tools(&self, _namespace: &str) -> Option<Vec<ufo_core::ToolSpec>> {
        None
    }
}

/// Executes one command and returns its result.
pub async fn execute_one(d: &dyn CommandDispatcher, command: Command) -> ActionResult {
    let id = command.call_id.clone();
    let tool = command.tool_name.clone();
    d.execute(vec![command])
        .await
        .into_iter()
        .next()
        .unwrap_or_else(|| {
            ActionResult::failure(DispatchError::NoResult { tool }.report()).with_call_id(id)
        })
}
