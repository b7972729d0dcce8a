//! # ufo-mcp — MCP both ways
//!
//! ufo-rs speaks the Model Context Protocol through the official Rust SDK,
//! [`rmcp`], in both directions.
//!
//! ## Our tools as an MCP server ([`server`])
//!
//! `ufo mcp` serves the tool catalog of `ufo_desktop::tools` — the data
//! collectors (`get_desktop_app_info`, `get_app_window_controls_target_info`,
//! `capture_window_screenshot` as an MCP image, `capture_desktop_screenshot`,
//! `get_ui_tree`) and every action `ufo act --list` shows — over stdio (for
//! MCP hosts that start it) or streamable HTTP (API key, `Host` and `Origin`
//! checks, loopback by default). Each tool's schema, description and
//! annotations come from its one row in the catalog ([`catalog`]):
//! `readOnlyHint` on the collectors, `destructiveHint` from the flag
//! SAFE_GUARD reads. Each MCP session keeps its own selected window and
//! control list.
//!
//! ```no_run
//! # async fn f(backend: std::sync::Arc<dyn ufo_desktop::Backend>) -> Result<(), ufo_mcp::McpError> {
//! use ufo_mcp::server::{DesktopServer, serve_stdio};
//! serve_stdio(DesktopServer::new(backend, Default::default())).await
//! # }
//! ```
//!
//! ## External MCP servers as agent tools ([`client`], [`dispatch`])
//!
//! A session starts the servers its config names ([`client::ServerSpec`]:
//! a child process over stdio, or a streamable HTTP URL), lists their tools
//! as `<namespace>.<tool>` [`ufo_core::ToolSpec`]s for the agent's prompt,
//! routes those calls through [`dispatch::McpDispatcher`] (everything else
//! goes to the inner dispatcher), and stops them at the end. A server that
//! cannot start, exits, hangs past its timeout or answers with an error
//! gives the calling step a failed result with a clear error; the session
//! goes on. SAFE_GUARD treats an external tool as destructive unless its
//! server marks it read-only or non-destructive
//! ([`catalog::external_destructive`]).
//!
//! ```no_run
//! # async fn f(inner: std::sync::Arc<dyn ufo_desktop::dispatch::CommandDispatcher>) {
//! use ufo_mcp::client::{ServerSpec, Transport};
//! use ufo_mcp::dispatch::ExternalTools;
//! let fs = ServerSpec {
//!     namespace: "fs".into(),
//!     transport: Transport::Stdio {
//!         command: "npx".into(),
//!         args: vec!["-y".into(), "@modelcontextprotocol/server-filesystem".into(), "/tmp".into()],
//!         env: Default::default(),
//!         cwd: None,
//!     },
//!     timeout: std::time::Duration::from_secs(30),
//! };
//! let tools = ExternalTools::start(&[fs]).await;
//! let dispatcher = tools.dispatcher(inner); // routes `fs.*` to the server
//! let specs = tools.specs();                // `fs.read_text_file`, ...
//! # let _ = (dispatcher, specs);
//! tools.stop().await;
//! # }
//! ```

pub mod catalog;
pub mod client;
pub mod dispatch;
mod error;
pub mod server;

pub use error::{McpError, Result};
