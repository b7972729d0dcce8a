//! The local command dispatcher set up from the system config.

use std::sync::Arc;
use ufo_desktop::Backend;
use ufo_desktop::dispatch::{LocalDispatcher, tool_context};
use ufo_desktop::tools::ToolContext;

/// A dispatcher set up from the system config: `CONTROL_LIST`, PNG
/// compression (`DEFAULT_PNG_COMPRESS_LEVEL`: screenshots are encoded once,
/// there), and what `run_shell` may start (desktop entries plus
/// `APP_ALLOWLIST`) and, when the command-line agent is enabled, what its
/// `execute_command` may run.
pub fn local_dispatcher(
    backend: Arc<dyn Backend>,
    system: &crate::config::SystemConfig,
) -> LocalDispatcher {
    let ctx = ToolContext {
        settings: tool_settings(system),
        ..ToolContext::default()
    };
    LocalDispatcher::new(backend, ctx)
}

/// The tool settings of the system config (see [`local_dispatcher`]);
/// `ufo mcp` serves with them too.
pub fn tool_settings(system: &crate::config::SystemConfig) -> ufo_desktop::tools::ToolSettings {
    let mut settings = tool_context(system.control_list.as_deref()).settings;
    settings.png = system.agent.png;
    settings.action_settle = system.settle_timeout;
    settings.launch = Some(ufo_desktop::launch::Allowlist::system(
        &system.app_allowlist,
    ));
    settings.commands = system.third_party.first().map(|a| {
        a.policy
            .clone()
            .redacting(system.secrets.values().iter().cloned())
    });
    settings
}
