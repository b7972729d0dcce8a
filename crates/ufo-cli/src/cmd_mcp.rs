//! `ufo mcp`: the desktop tools as an MCP server, over stdio (for MCP hosts
//! that start it: Claude Desktop, Cursor, VS Code) or streamable HTTP.

use crate::desktop_conn::{DesktopArgs, connect};
use crate::error::CliError;
use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use ufo_core::{Diagnostic, ErrorReport};
use ufo_desktop::Backend;
use ufo_desktop::tools::ToolSettings;
use ufo_mcp::server::{DesktopServer, HttpOptions, serve_http, serve_stdio};

/// Arguments of `ufo mcp`.
#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Serve streamable HTTP at this address (`127.0.0.1:8765`, or just a
    /// port) instead of stdio. Clients must send the API key.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// The file holding the API key HTTP clients send as
    /// `Authorization: Bearer <key>` (default: $UFO_MCP_API_KEY).
    #[arg(long, value_name = "FILE")]
    api_key_file: Option<PathBuf>,
    /// Allow a non-loopback `--http` address (the key is still required).
    #[arg(long)]
    allow_remote: bool,
    /// Config file: its CONTROL_LIST, APP_ALLOWLIST (what run_shell may
    /// start), DEFAULT_PNG_COMPRESS_LEVEL and enabled LinuxAgent
    /// (execute_command) apply to the tools served.
    #[arg(long, env = "UFO_CONFIG")]
    config: Option<PathBuf>,
    /// Warn about config keys ufo-rs does not read instead of refusing them.
    #[arg(long, env = "UFO_CONFIG_LENIENT", value_parser = clap::builder::FalseyValueParser::new())]
    lenient: bool,
    #[command(flatten)]
    desktop: DesktopArgs,
}

pub(crate) async fn run(args: McpArgs) -> Result<ExitCode, ErrorReport> {
    // Check the options before touching the desktop.
    let http = match &args.http {
        Some(a) => Some(HttpOptions {
            addr: parse_addr(a)?,
            api_key: api_key(args.api_key_file.as_ref())?,
            allow_remote: args.allow_remote,
        }),
        None => None,
    };
    let mut settings = match &args.config {
        Some(path) => {
            let config = crate::cmd_run::load_config(Some(path), args.lenient)?;
            ufo_session::dispatcher::tool_settings(&config.system)
        }
        None => ToolSettings::default(),
    };
    // What a command prints never carries the key clients send.
    if let Some(h) = &http {
        settings.commands = settings.commands.map(|p| p.redacting([h.api_key.clone()]));
    }
    let backend: Arc<dyn Backend> = Arc::new(connect(&args.desktop).await?);
    let Some(options) = http else {
        eprintln!(
            "ufo mcp: serving {} tools over stdio",
            ufo_mcp::catalog::desktop_tools().len()
        );
        serve_stdio(DesktopServer::new(backend, settings))
            .await
            .map_err(|e| e.report())?;
        return Ok(ExitCode::SUCCESS);
    };
    // Ctrl-C and SIGTERM stop it cleanly (handlers in place before the
    // URL is printed: a script may signal as soon as it reads it).
    #[cfg(unix)]
    let signals = {
        use tokio::signal::unix::{SignalKind, signal};
        signal(SignalKind::interrupt()).and_then(|i| Ok((i, signal(SignalKind::terminate())?)))
    };
    let server = serve_http(options, move || {
        DesktopServer::new(backend.clone(), settings.clone())
    })
    .await
    .map_err(|e| e.report())?;
    #[cfg(unix)]
    if let Ok((mut int, mut term)) = signals {
        let stop = server.cancel_token();
        tokio::spawn(async move {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
            stop.cancel();
        });
    }
    #[cfg(not(unix))]
    {
        let stop = server.cancel_token();
        tokio::spawn(async move {
            let _ = tokio::signal::ctrl_c().await;
            stop.cancel();
        });
    }
    // The URL alone on stdout (scripts read it; port 0 picks a free port).
    println!("{}", server.url());
    eprintln!(
        "ufo mcp: serving {} tools at {} (Ctrl-C stops)",
        ufo_mcp::catalog::desktop_tools().len(),
        server.url()
    );
    server.wait().await.map_err(|e| e.report())?;
    Ok(ExitCode::SUCCESS)
}

/// `8765` → `127.0.0.1:8765`; `HOST:PORT` as given.
fn parse_addr(a: &str) -> Result<SocketAddr, ErrorReport> {
    let a = a.trim();
    if let Ok(port) = a.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    a.parse().map_err(|_| {
        CliError::BadOption {
            option: "--http",
            message: format!("{a:?} is not an address"),
            help: "give IP:PORT or a port, e.g. --http 127.0.0.1:8765",
        }
        .report()
    })
}

/// The key from `file`, else `$UFO_MCP_API_KEY`.
fn api_key(file: Option<&PathBuf>) -> Result<String, ErrorReport> {
    let key = match file {
        Some(f) => std::fs::read_to_string(f).map_err(|e| {
            CliError::Read {
                what: f.display().to_string(),
                source: e,
                help: "create it with a long random key, e.g. `head -c 24 /dev/urandom | base64 > mcp.key && chmod 600 mcp.key`",
            }
            .report()
        })?,
        None => std::env::var("UFO_MCP_API_KEY").map_err(|_| {
            CliError::BadOption {
                option: "--http",
                message: "needs an API key: --api-key-file FILE or $UFO_MCP_API_KEY".into(),
                help: "create a key file: `head -c 24 /dev/urandom | base64 > mcp.key && chmod 600 mcp.key`, then pass --api-key-file mcp.key",
            }
            .report()
        })?,
    };
    Ok(key.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_default_to_loopback() {
        assert_eq!(parse_addr("8765").unwrap().to_string(), "127.0.0.1:8765");
        assert_eq!(parse_addr("0.0.0.0:9").unwrap().to_string(), "0.0.0.0:9");
        assert_eq!(
            parse_addr("localhost:x").unwrap_err().code,
            "ufo::cli::bad_args"
        );
    }
}
