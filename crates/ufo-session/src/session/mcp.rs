//! A session's external MCP servers (`mcp:` in the config): started before
//! the session's first step, their tools given to the AppAgent (tool docs,
//! reply checking, SAFE_GUARD) and reached through
//! [`ufo_mcp::dispatch::McpDispatcher`] wrapped around the session's own
//! dispatcher, stopped when the session ends.
//!
//! A server that does not start is reported to the user and shown to the
//! AppAgent as `<namespace>.*` with its error (a call of its tools fails
//! with it): the session runs with the others. One that dies, hangs or fails later gives
//! the calling step a failed action with the error (see [`ufo_mcp`]).

use super::Services;
use std::sync::Arc;
use ufo_mcp::dispatch::ExternalTools;

/// The servers of one session, and the services that reach them.
pub(crate) struct External {
    services: Option<Services>,
    tools: ExternalTools,
}

impl External {
    /// Starts the servers `s.config` names (none: nothing changes).
    pub(crate) async fn start(s: &Services) -> Self {
        let specs = &s.config.system.mcp;
        if specs.is_empty() {
            return Self {
                services: None,
                tools: ExternalTools::default(),
            };
        }
        let tools = ExternalTools::start(specs).await;
        for (ns, why) in tools.failures() {
            tracing::warn!(namespace = %ns, error = %why, "MCP server did not start");
            s.io.show(&format!(
                "MCP server `{ns}` is not available in this session:\n{}",
                why.rendered()
            ));
        }
        let mut config = s.config.clone();
        config.system.agent.external_tools = tools.specs();
        let services = Services {
            config,
            dispatcher: Arc::new(tools.dispatcher(s.dispatcher.clone())),
            io: s.io.clone(),
            prompts: s.prompts.clone(),
            log_root: s.log_root.clone(),
        };
        Self {
            services: Some(services),
            tools,
        }
    }

    /// The services the session runs with: `s` with the external tools, or
    /// `s` itself when there are none.
    pub(crate) fn services<'a>(&'a self, s: &'a Services) -> &'a Services {
        self.services.as_ref().unwrap_or(s)
    }

    /// Stops every server.
    pub(crate) async fn stop(&self) {
        self.tools.stop().await;
    }
}
