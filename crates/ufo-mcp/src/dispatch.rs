//! External servers for a session: started together, offered to the agent
//! as tools, reached through a [`CommandDispatcher`] that routes
//! `<namespace>.<tool>` calls to them and everything else to the inner
//! dispatcher, stopped together.

use crate::catalog::split;
use crate::client::{ExternalServer, START_TIMEOUT, ServerSpec};
use crate::error::McpError;
use async_trait::async_trait;
use std::collections::HashMap;
use std::sync::Arc;
use ufo_core::{ActionResult, Command, Diagnostic, ErrorReport, ToolSpec};
use ufo_desktop::dispatch::CommandDispatcher;

/// The external servers of a session: those that started, and why the
/// others did not.
#[derive(Debug, Default, Clone)]
pub struct ExternalTools {
    servers: Vec<Arc<ExternalServer>>,
    failed: Vec<(String, ErrorReport)>,
}

impl ExternalTools {
    /// Starts every server (all at once), each within [`START_TIMEOUT`]. A
    /// server that cannot start is recorded in [`Self::failures`]; the
    /// others are used.
    pub async fn start(specs: &[ServerSpec]) -> Self {
        let started = futures::future::join_all(
            specs
                .iter()
                .map(|s| ExternalServer::start(s, START_TIMEOUT)),
        )
        .await;
        let mut out = Self::default();
        for (spec, r) in specs.iter().zip(started) {
            match r {
                Ok(s) => {
                    tracing::info!(namespace = %spec.namespace, tools = s.tools().len(), server = %spec.describe(), "MCP server started");
                    out.servers.push(Arc::new(s));
                }
                Err(e) => out.failed.push((spec.namespace.clone(), e.report())),
            }
        }
        out
    }

    /// The started servers.
    pub fn servers(&self) -> &[Arc<ExternalServer>] {
        &self.servers
    }

    /// The servers that did not start: (namespace, why).
    pub fn failures(&self) -> &[(String, ErrorReport)] {
        &self.failed
    }

    /// Every tool of the started servers, as an agent sees them, then one
    /// `<namespace>.*` entry per server that did not start (its description
    /// is the error; see [`crate::catalog::unavailable_spec`]).
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.servers
            .iter()
            .flat_map(|s| s.specs())
            .chain(
                self.failed
                    .iter()
                    .map(|(ns, why)| crate::catalog::unavailable_spec(ns, why)),
            )
            .collect()
    }

    /// A dispatcher that sends this session's external tool calls to their
    /// servers and the rest to `inner`.
    pub fn dispatcher(&self, inner: Arc<dyn CommandDispatcher>) -> McpDispatcher {
        McpDispatcher {
            inner,
            servers: self
                .servers
                .iter()
                .map(|s| (s.namespace().to_owned(), s.clone()))
                .collect(),
            failed: self.failed.iter().cloned().collect(),
        }
    }

    /// Stops every started server.
    pub async fn stop(&self) {
        futures::future::join_all(self.servers.iter().map(|s| s.stop())).await;
    }
}

/// Routes `<namespace>.<tool>` commands to external MCP servers and every
/// other command to the inner dispatcher, keeping the [`CommandDispatcher`]
/// contract: one result per command, in order, and after the first failure
/// the rest are skipped.
pub struct McpDispatcher {
    inner: Arc<dyn CommandDispatcher>,
    servers: HashMap<String, Arc<ExternalServer>>,
    failed: HashMap<String, ErrorReport>,
}

impl McpDispatcher {
    /// Whether `tool` is routed to an external server (started or not).
    fn is_external(&self, tool: &str) -> bool {
        split(tool)
            .is_some_and(|(ns, _)| self.servers.contains_key(ns) || self.failed.contains_key(ns))
    }

    async fn call(&self, cmd: &Command) -> ActionResult {
        let Some((ns, tool)) = split(&cmd.tool_name) else {
            return failure(
                McpError::UnknownTool {
                    tool: cmd.tool_name.clone(),
                }
                .report(),
            );
        };
        let mut r = match (self.servers.get(ns), self.failed.get(ns)) {
            (Some(server), _) => match server.call(tool, cmd.parameters.clone()).await {
                Ok(v) => ActionResult::success(v),
                Err(e) => {
                    tracing::debug!(tool = %cmd.tool_name, error = %e, "external tool failed");
                    failure(e.report())
                }
            },
            (None, Some(why)) => failure(why.clone()),
            (None, None) => failure(
                McpError::UnknownTool {
                    tool: cmd.tool_name.clone(),
                }
                .report(),
            ),
        };
        r.namespace = Some(ns.to_owned());
        r
    }
}

fn failure(e: ErrorReport) -> ActionResult {
    ActionResult::failure(e)
}

#[async_trait]
impl CommandDispatcher for McpDispatcher {
    async fn execute(&self, commands: Vec<Command>) -> Vec<ActionResult> {
        let mut out = Vec::with_capacity(commands.len());
        let mut failed = false;
        let mut rest = commands.into_iter().peekable();
        while let Some(cmd) = rest.next() {
            if failed {
                out.push(
                    ActionResult::skipped("an earlier command in the sequence failed")
                        .with_call_id(cmd.call_id),
                );
                continue;
            }
            if self.is_external(&cmd.tool_name) {
                let r = self.call(&cmd).await.with_call_id(cmd.call_id.clone());
                failed = !r.is_success();
                out.push(r);
                continue;
            }
            // A run of our own commands goes to the inner dispatcher at once.
            let mut batch = vec![cmd];
            while let Some(next) = rest.next_if(|c| !self.is_external(&c.tool_name)) {
                batch.push(next);
            }
            let results = self.inner.execute(batch).await;
            failed = results.iter().any(|r| !r.is_success());
            out.extend(results);
        }
        out
    }

    fn describe(&self) -> String {
        let mut names: Vec<&str> = self.servers.keys().map(String::as_str).collect();
        names.sort_unstable();
        format!("{} + MCP {}", self.inner.describe(), names.join(", "))
    }
}
