//! The MCP error domain: serving our tools, and talking to external servers.

use ufo_core::{BoxError, Diagnostic};

/// What can go wrong on either side of MCP.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// An external server's program could not be started.
    #[error("MCP server `{namespace}` could not start `{command}`")]
    Spawn {
        /// The server's namespace.
        namespace: String,
        /// The program.
        command: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// An external server did not complete the MCP handshake or its tool list.
    #[error("MCP server `{namespace}` did not start: {message}")]
    Handshake {
        /// The server's namespace.
        namespace: String,
        /// Which step failed, or that it did not answer in time, with the
        /// last lines it wrote to stderr when known.
        message: String,
        /// The protocol or transport error, when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// The server is gone: its process exited or its connection closed.
    #[error("MCP server `{namespace}` is not running: {message}")]
    Gone {
        /// The server's namespace.
        namespace: String,
        /// What happened, with the last lines it wrote to stderr when known.
        message: String,
        /// The transport error, when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// A tool call got no answer in time.
    #[error("MCP server `{namespace}` did not answer `{tool}` within {seconds} s")]
    Timeout {
        /// The server's namespace.
        namespace: String,
        /// The tool (without namespace).
        tool: String,
        /// The limit.
        seconds: u64,
    },
    /// The server answered the call with an error.
    #[error("`{namespace}.{tool}` failed: {message}")]
    ToolFailed {
        /// The server's namespace.
        namespace: String,
        /// The tool (without namespace).
        tool: String,
        /// The server's message.
        message: String,
    },
    /// A protocol-level error (unknown tool, bad arguments as the server sees them).
    #[error("MCP server `{namespace}` rejected `{tool}`: {message}")]
    Rejected {
        /// The server's namespace.
        namespace: String,
        /// The tool (without namespace).
        tool: String,
        /// The JSON-RPC error.
        message: String,
    },
    /// A namespaced tool that no started server offers.
    #[error("no MCP server offers `{tool}`")]
    UnknownTool {
        /// The name as called.
        tool: String,
    },
    /// The arguments are not a JSON object.
    #[error("`{tool}`: the arguments must be a JSON object, got {got}")]
    BadArguments {
        /// The tool.
        tool: String,
        /// What was given.
        got: String,
    },
    /// `ufo mcp --http`: the address or the API key cannot be used.
    #[error("cannot serve MCP over HTTP: {message}")]
    Serve {
        /// What is wrong.
        message: String,
        /// What to do.
        help: &'static str,
        /// The OS error, when there is one.
        #[source]
        source: Option<std::io::Error>,
    },
    /// The stdio or HTTP server stopped with an error.
    #[error("the MCP server stopped: {message}")]
    Transport {
        /// What was going on.
        message: String,
        /// The error it stopped with.
        #[source]
        source: BoxError,
    },
}

impl Diagnostic for McpError {
    fn code(&self) -> &'static str {
        match self {
            McpError::Spawn { .. } => "ufo::mcp::spawn_failed",
            McpError::Handshake { .. } => "ufo::mcp::handshake_failed",
            McpError::Gone { .. } => "ufo::mcp::server_gone",
            McpError::Timeout { .. } => "ufo::mcp::timeout",
            McpError::ToolFailed { .. } => "ufo::mcp::tool_failed",
            McpError::Rejected { .. } => "ufo::mcp::rejected",
            McpError::UnknownTool { .. } => "ufo::mcp::unknown_tool",
            McpError::BadArguments { .. } => "ufo::mcp::bad_arguments",
            McpError::Serve { .. } => "ufo::mcp::serve",
            McpError::Transport { .. } => "ufo::mcp::transport",
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            McpError::Spawn { .. } => "check `command` and `start_args` of the server in the config's `mcp:` section: run the command by hand in a terminal".into(),
            McpError::Handshake { .. } => "run the server's command by hand to see its output; for an HTTP server check `url` and `headers`".into(),
            McpError::Gone { .. } => "the server exited or closed its connection; its tools stay unavailable for the rest of the session (restart the session to start it again)".into(),
            McpError::Timeout { .. } => "the call may still be running on the server; raise MCP_TOOL_TIMEOUT (or the server's `timeout`) if it is slow by nature".into(),
            McpError::ToolFailed { .. } => "read the server's message; change the arguments or use another tool".into(),
            McpError::Rejected { .. } => "use a tool the server lists, with arguments that match its schema".into(),
            McpError::UnknownTool { .. } => "use a tool from the tool list; external tools are named <namespace>.<tool>".into(),
            McpError::BadArguments { .. } => "pass the arguments as a JSON object, e.g. {\"path\": \"/tmp/a.txt\"}".into(),
            McpError::Serve { help, .. } => (*help).into(),
            McpError::Transport { .. } => "the MCP host closed the connection or sent something unreadable; restart `ufo mcp`".into(),
        })
    }
}

/// Shorthand.
pub type Result<T, E = McpError> = std::result::Result<T, E>;
