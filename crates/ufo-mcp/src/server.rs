//! ufo-rs as an MCP server: the tool catalog over a [`Backend`], for MCP
//! hosts (Claude Desktop, Cursor, VS Code, any MCP client).
//!
//! One [`DesktopServer`] per MCP session, each with its own
//! [`ToolContext`]: the window `select_application_window` chose and the
//! controls `get_app_window_controls_target_info` labelled in *that*
//! session are what its actions refer to, as with UFO's MCP servers.
//!
//! Confirming a destructive call is the MCP host's job (that is what
//! `destructiveHint` is for); the server never prompts on its own terminal.

mod http;

pub use http::{HttpOptions, HttpServer, MIN_KEY_LEN, PATH, serve_http};

use crate::catalog;
use crate::error::McpError;
use base64::Engine;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool as McpTool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;
use tokio::sync::Mutex;
use ufo_core::{ActionResult, ErrorReport};
use ufo_desktop::Backend;
use ufo_desktop::tools::{Tool, ToolContext, ToolSettings, execute};

/// What the server tells an MCP host about using it.
const INSTRUCTIONS: &str = "Operates desktop applications through their accessibility trees. \
Call get_desktop_app_info for the numbered window list, then select_application_window(id, name) \
to choose the window to work in. get_app_window_controls_target_info lists that window's \
controls numbered 1..N: the actions (click_input, set_edit_text, keyboard_input, ...) take the \
id and the name of one of them. List the controls again after anything changed on screen.";

/// The newest protocol version served: the last one with sessions (a
/// session is what keeps the selected window between calls).
const NEWEST: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// The MCP server of one session: our tool catalog over a backend.
#[derive(Clone)]
pub struct DesktopServer {
    backend: Arc<dyn Backend>,
    ctx: Arc<Mutex<ToolContext>>,
    tools: Arc<Vec<McpTool>>,
}

impl DesktopServer {
    /// A server (one MCP session) acting on `backend` with `settings`.
    pub fn new(backend: Arc<dyn Backend>, settings: ToolSettings) -> Self {
        let ctx = ToolContext {
            settings,
            ..ToolContext::default()
        };
        Self {
            backend,
            ctx: Arc::new(Mutex::new(ctx)),
            tools: Arc::new(catalog::desktop_tools()),
        }
    }

    /// Executes one call of our catalog in this session and returns what an
    /// MCP client receives.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
    ) -> CallToolResult {
        let tool = match name.parse::<Tool>() {
            Ok(t) => t,
            Err(e) => return error_result(&ufo_core::Diagnostic::report(&e)),
        };
        let cmd = tool.command(Value::Object(arguments.unwrap_or_default()));
        let result = {
            let mut ctx = self.ctx.lock().await;
            execute(self.backend.as_ref(), &mut ctx, &cmd).await
        };
        to_call_result(result)
    }
}

impl ServerHandler for DesktopServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("ufo-rs", env!("CARGO_PKG_VERSION")))
            .with_protocol_version(NEWEST)
            .with_instructions(INSTRUCTIONS)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&NEWEST))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name.parse::<Tool>().is_err() {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}; tools/list lists the tools",
                    request.name
                ),
                None,
            ));
        }
        Ok(self.call(&request.name, request.arguments).await.into())
    }
}

/// An [`ActionResult`] as an MCP tool result: a failure is an error result
/// carrying `[code] message`, a `caused by:` line per cause and the help
/// line; a screenshot is an image content followed by its frame as JSON
/// text; a string is its text; any other value is its JSON.
pub fn to_call_result(r: ActionResult) -> CallToolResult {
    if !r.is_success() {
        let report = r.error.unwrap_or_else(|| {
            ErrorReport::new(
                "ufo::mcp::tool_failed",
                "the tool failed without saying why",
            )
        });
        return error_result(&report);
    }
    match r.result {
        Value::String(s) => CallToolResult::success(vec![ContentBlock::text(s)]),
        Value::Object(mut m) => {
            let mut content = Vec::new();
            if let Some(Value::String(url)) = m.remove("image_url") {
                match split_data_url(&url) {
                    Some((mime, data)) => content.push(ContentBlock::image(data, mime)),
                    None => {
                        m.insert("image_url".into(), Value::String(url));
                    }
                }
            }
            content.push(ContentBlock::text(Value::Object(m).to_string()));
            CallToolResult::success(content)
        }
        other => CallToolResult::success(vec![ContentBlock::text(other.to_string())]),
    }
}

fn error_result(e: &ErrorReport) -> CallToolResult {
    let mut text = format!("[{}] {}", e.code, e.message);
    for c in &e.causes {
        text.push_str("\ncaused by: ");
        text.push_str(c);
    }
    if let Some(h) = &e.help {
        text.push_str("\nhelp: ");
        text.push_str(h);
    }
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// `data:image/png;base64,XXXX` → (`image/png`, `XXXX`), when it is a
/// well-formed base64 data URL.
fn split_data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (mime, data) = rest.split_once(";base64,")?;
    base64::engine::general_purpose::STANDARD
        .decode(data.get(..data.len().min(64) / 4 * 4)?)
        .ok()?;
    Some((mime, data))
}

/// Serves `server` over this process's stdin and stdout until the host
/// closes them (stdout carries protocol messages only; logs go to stderr).
pub async fn serve_stdio(server: DesktopServer) -> Result<(), McpError> {
    let running =
        server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| McpError::Transport {
                message: "the MCP host's handshake on stdio failed".into(),
                source: e.into(),
            })?;
    running.waiting().await.map_err(|e| McpError::Transport {
        message: "serving on stdio".into(),
        source: e.into(),
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_become_mcp_contents() {
        let r = to_call_result(ActionResult::success(json!("typed")));
        assert_eq!(r.is_error, Some(false));
        assert_eq!(r.content[0].as_text().unwrap().text, "typed");

        let r = to_call_result(ActionResult::success(json!({
            "image_url": "data:image/png;base64,iVBORw0KGgo=",
            "width": 3, "height": 2
        })));
        let img = r.content[0].as_image().unwrap();
        assert_eq!(img.mime_type, "image/png");
        assert_eq!(img.data, "iVBORw0KGgo=");
        let rest: Value = serde_json::from_str(&r.content[1].as_text().unwrap().text).unwrap();
        assert_eq!(rest, json!({"width": 3, "height": 2}));

        let e = ErrorReport::new("ufo::desktop::x", "it broke").with_help("do y");
        let r = to_call_result(ActionResult::failure(e));
        assert_eq!(r.is_error, Some(true));
        assert_eq!(
            r.content[0].as_text().unwrap().text,
            "[ufo::desktop::x] it broke\nhelp: do y"
        );
        let mut e = ErrorReport::new("ufo::desktop::backend", "cannot move the pointer");
        e.causes = vec!["Access is denied. (os error 5)".into()];
        let r = to_call_result(ActionResult::failure(e));
        assert_eq!(
            r.content[0].as_text().unwrap().text,
            "[ufo::desktop::backend] cannot move the pointer\ncaused by: Access is denied. (os error 5)"
        );
    }
}
