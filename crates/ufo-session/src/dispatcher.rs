//! The local command dispatcher: the tool catalog over a backend.

use async_trait::async_trait;
use std::sync::Arc;
use tokio::sync::Mutex;
use ufo_agent::{AgentError, CommandDispatcher, Observation};
use ufo_core::{ActionResult, Command, Diagnostic};
use ufo_desktop::Backend;
use ufo_desktop::tools::{Tool, ToolContext, execute_all, observe_app};

/// Executes commands in this process with [`ufo_desktop::tools`] over a
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
        Self::new(backend, context(control_list))
    }

    /// A dispatcher set up from the system config: `CONTROL_LIST`, PNG
    /// compression (`DEFAULT_PNG_COMPRESS_LEVEL`: screenshots are encoded once,
    /// here), and what `run_shell` may start (desktop entries plus
    /// `APP_ALLOWLIST`) and, when the command-line agent is enabled, what its
    /// `execute_command` may run.
    pub fn from_config(backend: Arc<dyn Backend>, system: &crate::config::SystemConfig) -> Self {
        let ctx = ToolContext {
            settings: tool_settings(system),
            ..ToolContext::default()
        };
        Self::new(backend, ctx)
    }
}

/// The tool settings of the system config (see
/// [`LocalDispatcher::from_config`]); `ufo mcp` serves with them too.
pub fn tool_settings(system: &crate::config::SystemConfig) -> ufo_desktop::tools::ToolSettings {
    let mut settings = context(system.control_list.as_deref()).settings;
    settings.png = system.agent.png;
    settings.action_settle = std::time::Duration::from_secs_f64(system.settle_timeout);
    settings.launch = Some(ufo_desktop::launch::Allowlist::system(
        &system.app_allowlist,
    ));
    settings.commands = system.third_party.first().map(|a| a.policy.clone());
    settings
}

fn context(control_list: Option<&[String]>) -> ToolContext {
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
    async fn observe(&self, ui_tree: bool) -> Result<Observation, AgentError> {
        let mut ctx = self.ctx.lock().await;
        let o = observe_app(self.backend.as_ref(), &mut ctx)
            .await
            .map_err(|e| AgentError::Observation(e.report()))?;
        if let Some(e) = &o.screenshot_error {
            tracing::debug!(error = %e, "no screenshot this step");
        }
        let ui_tree = match ui_tree {
            true => execute_all(
                self.backend.as_ref(),
                &mut ctx,
                &[Tool::GetUiTree.command(serde_json::json!({}))],
            )
            .await
            .into_iter()
            .next()
            .filter(|r| r.is_success())
            .map(|r| r.result),
            false => None,
        };
        Ok(Observation {
            controls: o.controls,
            window: Some(o.tree.window),
            screenshot: o.screenshot,
            screenshot_png: None,
            ui_tree,
        })
    }
}
