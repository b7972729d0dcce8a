//! The local command dispatcher: the tool catalog over a backend.

use super::CommandDispatcher;
use crate::Backend;
use crate::observe::{Observation, ObserveOptions, observe};
use crate::tools::{ToolContext, execute_all};
use async_trait::async_trait;
use std::sync::Arc;
use tokio::sync::Mutex;
use ufo_core::{ActionResult, Command, Diagnostic, ErrorReport};

/// Executes commands in this process with [`crate::tools`] over a
/// [`Backend`], keeping one [`ToolContext`] (selected window, labelled
/// controls) for the session, like UFO's `LocalCommandDispatcher`.
pub struct LocalDispatcher {
    backend: Arc<dyn Backend>,
    ctx: Mutex<ToolContext>,
}

impl LocalDispatcher {
    /// A dispatcher over `backend` with tool settings from `ctx`.
    pub fn new(backend: Arc<dyn Backend>, ctx: ToolContext) -> Self {
        Self {
            backend,
            ctx: Mutex::new(ctx),
        }
    }

    /// A dispatcher whose control filter keeps `control_list` types (UFO's
    /// `CONTROL_LIST`), or the default list.
    pub fn with_control_list(backend: Arc<dyn Backend>, control_list: Option<&[String]>) -> Self {
        Self::new(backend, tool_context(control_list))
    }
}

/// A fresh tool context whose control filter keeps `control_list` types
/// (UFO's `CONTROL_LIST`), or the default list.
pub fn tool_context(control_list: Option<&[String]>) -> ToolContext {
    let mut ctx = ToolContext::default();
    if let Some(list) = control_list {
        ctx.settings.filter.control_types = list
            .iter()
            .map(|s| s.parse().unwrap_or_else(|e| match e {}))
            .collect();
    }
    ctx
}

#[async_trait]
impl CommandDispatcher for LocalDispatcher {
    async fn execute(&self, commands: Vec<Command>) -> Vec<ActionResult> {
        let mut ctx = self.ctx.lock().await;
        execute_all(self.backend.as_ref(), &mut ctx, &commands).await
    }

    fn describe(&self) -> String {
        "local".into()
    }

    /// The same tools in process, with the screenshot handed over as pixels:
    /// nothing is encoded here; the agent encodes once, in the model's format.
    async fn observe(&self, opts: ObserveOptions) -> Result<Observation, ErrorReport> {
        let mut ctx = self.ctx.lock().await;
        let o = observe(self.backend.as_ref(), &mut ctx, opts)
            .await
            .map_err(|e| e.report())?;
        if let Some(e) = &o.screenshot_error {
            tracing::debug!(error = %e, "no screenshot this step");
        }
        Ok(o)
    }
}
