//! External MCP servers as agent tools: start one (a child process over
//! stdio, or a streamable HTTP URL), list its tools, call them with a time
//! limit, stop it.
//!
//! Every way a server can let a call down — it never started, it exited, it
//! closed its connection, it did not answer in time, it answered with an
//! error — comes back as an [`McpError`] with its own code; nothing here
//! waits without a limit.

use crate::catalog;
use crate::error::{McpError, Result};
use axum::http::{HeaderName, HeaderValue};
use process_wrap::tokio::CommandWrap;
#[cfg(windows)]
use process_wrap::tokio::JobObject;
#[cfg(unix)]
use process_wrap::tokio::ProcessGroup;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ContentBlock,
    Implementation, ProtocolVersion, Tool as McpTool,
};
use rmcp::service::{Peer, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use ufo_core::{BoxError, ToolSpec};

/// How long a server may take to start, answer `initialize` and list its
/// tools (an `npx -y` server may download itself first).
pub const START_TIMEOUT: Duration = Duration::from_secs(120);

/// Stderr lines of a stdio server kept for error messages.
const STDERR_LINES: usize = 8;

/// How to reach an external server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking MCP on its stdin and stdout.
    Stdio {
        /// The program (looked up on `PATH`).
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the environment it inherits.
        env: BTreeMap<String, String>,
        /// Its working directory (default: ours).
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// `http://host:port/mcp` or `https://…`.
        url: String,
        /// Headers sent with every request (e.g. `Authorization`).
        headers: BTreeMap<String, String>,
    },
}

/// One external server as configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    /// The namespace its tools are called by (`fs` → `fs.read_text_file`).
    pub namespace: String,
    /// How to reach it.
    pub transport: Transport,
    /// The longest one tool call may take.
    pub timeout: Duration,
}

impl ServerSpec {
    /// A short description for logs (`npx -y @… /tmp`, `http://…`), without
    /// environment values or headers (they may hold secrets).
    pub fn describe(&self) -> String {
        match &self.transport {
            Transport::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            Transport::Http { url, .. } => url.clone(),
        }
    }
}

/// A started external server: its tools, and a connection to call them.
pub struct ExternalServer {
    namespace: String,
    timeout: Duration,
    tools: Vec<McpTool>,
    peer: Peer<RoleClient>,
    running: Mutex<Option<RunningService<RoleClient, ClientConfig>>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl std::fmt::Debug for ExternalServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalServer")
            .field("namespace", &self.namespace)
            .field("tools", &self.tools.len())
            .finish()
    }
}

fn client_config() -> ClientConfig {
    let mut c = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("ufo-rs", env!("CARGO_PKG_VERSION")),
    );
    // The newest version with an `initialize` handshake: what every
    // released server understands.
    c.protocol_version = ProtocolVersion::LATEST_WITH_INITIALIZE;
    c
}

impl ExternalServer {
    /// Starts the server, completes the handshake and lists its tools,
    /// within `start_timeout`.
    pub async fn start(spec: &ServerSpec, start_timeout: Duration) -> Result<Self> {
        let ns = spec.namespace.clone();
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let handshake = |message: String, source: Option<BoxError>| McpError::Handshake {
            namespace: ns.clone(),
            message,
            source,
        };
        let connect = async {
            let running = match &spec.transport {
                Transport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                } => {
                    let mut cmd = tokio::process::Command::new(command);
                    cmd.args(args).envs(env).kill_on_drop(true);
                    if let Some(dir) = cwd {
                        cmd.current_dir(dir);
                    }
                    let mut wrapped = CommandWrap::from(cmd);
                    // The whole group goes when we stop it: `npx` runs the
                    // server as its own child.
                    #[cfg(unix)]
                    wrapped.wrap(ProcessGroup::leader());
                    #[cfg(windows)]
                    wrapped.wrap(JobObject);
                    let (proc, err) = TokioChildProcess::builder(wrapped)
                        .stderr(Stdio::piped())
                        .spawn()
                        .map_err(|e| McpError::Spawn {
                            namespace: ns.clone(),
                            command: command.clone(),
                            source: e,
                        })?;
                    if let Some(err) = err {
                        keep_stderr(err, stderr.clone());
                    }
                    client_config().serve(proc).await.map_err(|e| {
                        let what = "the MCP handshake failed".to_owned();
                        handshake(with_stderr(what, &stderr), Some(e.into()))
                    })?
                }
                Transport::Http { url, headers } => {
                    install_crypto_provider();
                    let mut custom = HashMap::new();
                    for (k, v) in headers {
                        let name = HeaderName::try_from(k.as_str())
                            .map_err(|e| handshake(format!("header {k:?}"), Some(e.into())))?;
                        let value = HeaderValue::try_from(v.as_str()).map_err(|e| {
                            handshake(format!("header {k:?}: not a valid value"), Some(e.into()))
                        })?;
                        custom.insert(name, value);
                    }
                    let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                        .custom_headers(custom);
                    client_config()
                        .serve(StreamableHttpClientTransport::from_config(config))
                        .await
                        .map_err(|e| {
                            handshake(
                                format!("the MCP handshake with {url} failed"),
                                Some(e.into()),
                            )
                        })?
                }
            };
            let tools = running
                .list_all_tools()
                .await
                .map_err(|e| handshake("tools/list failed".into(), Some(e.into())))?;
            Ok::<_, McpError>((running, tools))
        };
        let (running, tools) = match tokio::time::timeout(start_timeout, connect).await {
            Ok(r) => r?,
            Err(_) => {
                return Err(handshake(
                    with_stderr(
                        format!(
                            "no answer to initialize and tools/list within {} s",
                            start_timeout.as_secs()
                        ),
                        &stderr,
                    ),
                    None,
                ));
            }
        };
        Ok(Self {
            namespace: spec.namespace.clone(),
            timeout: spec.timeout,
            tools,
            peer: running.peer().clone(),
            running: Mutex::new(Some(running)),
            stderr,
        })
    }

    /// The namespace.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The server's tools as it listed them.
    pub fn tools(&self) -> &[McpTool] {
        &self.tools
    }

    /// The server's tools as an agent sees them (`<namespace>.<tool>`).
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .map(|t| catalog::external_spec(&self.namespace, t))
            .collect()
    }

    /// Calls `tool` (its name on the server, without namespace) with
    /// `arguments` (a JSON object); the result as JSON: the text when the
    /// server answered one text, else the structured content, else the list
    /// of contents.
    pub async fn call(&self, tool: &str, arguments: Value) -> Result<Value> {
        let args: Map<String, Value> = match arguments {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            other => {
                return Err(McpError::BadArguments {
                    tool: format!("{}.{tool}", self.namespace),
                    got: other.to_string(),
                });
            }
        };
        if self.peer.is_transport_closed() {
            return Err(self.gone("the connection is closed".into(), None));
        }
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
        let answer = tokio::time::timeout(self.timeout, self.peer.call_tool(params)).await;
        let result = match answer {
            Err(_) => {
                return Err(McpError::Timeout {
                    namespace: self.namespace.clone(),
                    tool: tool.to_owned(),
                    seconds: self.timeout.as_secs(),
                });
            }
            Ok(Err(ServiceError::McpError(e))) => {
                return Err(McpError::Rejected {
                    namespace: self.namespace.clone(),
                    tool: tool.to_owned(),
                    message: e.message.to_string(),
                });
            }
            Ok(Err(e)) => return Err(self.gone(format!("`{tool}` got no answer"), Some(e.into()))),
            Ok(Ok(r)) => r,
        };
        if result.is_error == Some(true) {
            return Err(McpError::ToolFailed {
                namespace: self.namespace.clone(),
                tool: tool.to_owned(),
                message: match contents_text(&result) {
                    t if t.is_empty() => "the server gave no message".into(),
                    t => t,
                },
            });
        }
        Ok(result_value(result))
    }

    fn gone(&self, what: String, source: Option<BoxError>) -> McpError {
        McpError::Gone {
            namespace: self.namespace.clone(),
            message: with_stderr(what, &self.stderr),
            source,
        }
    }

    /// Stops the server: closes the connection (a stdio server sees its
    /// input end and exits; its process group is killed if it does not
    /// within a few seconds). Calling it twice does nothing.
    pub async fn stop(&self) {
        let running = self.running.lock().ok().and_then(|mut r| r.take());
        if let Some(mut r) = running
            && let Ok(None) | Err(_) = r.close_with_timeout(Duration::from_secs(5)).await
        {
            tracing::warn!(namespace = %self.namespace, "MCP server did not stop in time; killed");
        }
    }
}

/// reqwest without a built-in crypto provider: rustls with ring, once per
/// process (a second install is refused and harmless).
fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Keeps the last lines a server writes to stderr (also logged at debug).
fn keep_stderr(err: tokio::process::ChildStderr, buf: Arc<Mutex<VecDeque<String>>>) {
    tokio::spawn(async move {
        let mut lines = BufReader::new(err).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            tracing::debug!(target: "ufo_mcp::server_stderr", "{line}");
            if let Ok(mut b) = buf.lock() {
                if b.len() == STDERR_LINES {
                    b.pop_front();
                }
                b.push_back(line.chars().take(300).collect());
            }
        }
    });
}

fn with_stderr(message: String, stderr: &Mutex<VecDeque<String>>) -> String {
    let lines: Vec<String> = stderr
        .lock()
        .map(|b| b.iter().cloned().collect())
        .unwrap_or_default();
    match lines.is_empty() {
        true => message,
        false => format!("{message}; its stderr ended with: {}", lines.join(" | ")),
    }
}

fn content_text(c: &ContentBlock) -> Option<String> {
    match c {
        ContentBlock::Text(t) => Some(t.text.clone()),
        ContentBlock::Image(i) => Some(format!(
            "<{} image, {} base64 bytes>",
            i.mime_type,
            i.data.len()
        )),
        ContentBlock::Resource(r) => serde_json::to_value(&r.resource)
            .ok()
            .and_then(|v| v.get("text").and_then(Value::as_str).map(str::to_owned)),
        _ => None,
    }
}

fn contents_text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(content_text)
        .collect::<Vec<_>>()
        .join("\n")
}

fn result_value(r: CallToolResult) -> Value {
    if let [ContentBlock::Text(t)] = r.content.as_slice() {
        return Value::String(t.text.clone());
    }
    if let Some(v) = r.structured_content {
        return v;
    }
    Value::Array(
        r.content
            .iter()
            .filter_map(content_text)
            .map(Value::String)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_are_their_text_or_structure() {
        let one = CallToolResult::success(vec![ContentBlock::text("hello")]);
        assert_eq!(result_value(one), json!("hello"));
        let two = CallToolResult::success(vec![
            ContentBlock::text("a"),
            ContentBlock::image("iVBO", "image/png"),
        ]);
        assert_eq!(
            result_value(two),
            json!(["a", "<image/png image, 4 base64 bytes>"])
        );
        let mut s = CallToolResult::structured(json!({"n": 1}));
        s.content.clear();
        assert_eq!(result_value(s), json!({"n": 1}));
    }

    fn stdio(namespace: &str, command: &str, args: &[&str]) -> ServerSpec {
        ServerSpec {
            namespace: namespace.into(),
            transport: Transport::Stdio {
                command: command.into(),
                args: args.iter().map(|a| (*a).to_owned()).collect(),
                env: BTreeMap::new(),
                cwd: None,
            },
            timeout: Duration::from_secs(5),
        }
    }

    /// A server that exits before answering `initialize`: the handshake
    /// error keeps rmcp's error as its cause, under its code and help.
    #[tokio::test]
    async fn a_server_that_exits_at_once_fails_the_handshake_with_its_cause() {
        let spec = stdio("dead", "sh", &["-c", "exit 3"]);
        let e = ExternalServer::start(&spec, Duration::from_secs(20))
            .await
            .unwrap_err();
        assert!(
            matches!(
                e,
                McpError::Handshake {
                    source: Some(_),
                    ..
                }
            ),
            "{e:?}"
        );
        let text = ufo_core::render(&e);
        assert!(
            text.starts_with(
                "error[ufo::mcp::handshake_failed]: MCP server `dead` did not start: the MCP handshake failed"
            ),
            "{text}"
        );
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].starts_with("  caused by: "), "{text}");
        assert!(
            lines
                .last()
                .unwrap()
                .starts_with("  help: run the server's command by hand"),
            "{text}"
        );
    }

    /// A program that does not exist: the OS error is the cause.
    #[tokio::test]
    async fn a_missing_program_is_a_spawn_error_caused_by_the_os() {
        let spec = stdio("nowhere", "/nonexistent/ufo-mcp-server", &[]);
        let e = ExternalServer::start(&spec, Duration::from_secs(20))
            .await
            .unwrap_err();
        let r = ufo_core::Diagnostic::report(&e);
        assert_eq!(r.code, "ufo::mcp::spawn_failed");
        assert_eq!(
            r.message,
            "MCP server `nowhere` could not start `/nonexistent/ufo-mcp-server`"
        );
        assert_eq!(r.causes.len(), 1, "{r:?}");
        assert!(r.causes[0].contains("os error"), "{r:?}");
        assert!(r.rendered().contains("\n  caused by: "), "{}", r.rendered());
        assert!(r.help.as_deref().unwrap_or_default().contains("start_args"));
    }

    #[test]
    fn descriptions_leave_out_secrets() {
        let s = ServerSpec {
            namespace: "fs".into(),
            transport: Transport::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "srv".into()],
                env: [("TOKEN".to_owned(), "s3cret".to_owned())].into(),
                cwd: None,
            },
            timeout: Duration::from_secs(1),
        };
        assert_eq!(s.describe(), "npx -y srv");
        let h = ServerSpec {
            namespace: "web".into(),
            transport: Transport::Http {
                url: "http://127.0.0.1:1/mcp".into(),
                headers: [("Authorization".to_owned(), "Bearer s3cret".to_owned())].into(),
            },
            timeout: Duration::from_secs(1),
        };
        assert!(!h.describe().contains("s3cret"));
    }
}
