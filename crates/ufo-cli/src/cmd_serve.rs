//! `ufo serve` (the agent server) and `ufo client` (a device): service mode
//! over UFO's Agent Interaction Protocol.

use crate::cmd_client::{api_key, seconds, stop_signal};
use crate::cmd_run::load_config;
use crate::output::outln;
use clap::Args;
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use ufo_aip::AipError;
use ufo_aip::auth::{ApiKey, HostCheck};
use ufo_aip_server::{Limits, Server, ServerOptions, SessionRunner};
use ufo_core::{Diagnostic, ErrorReport};

/// Arguments of `ufo serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Config file: the agents' models and limits (UFO's keys).
    #[arg(long, env = "UFO_CONFIG")]
    config: Option<PathBuf>,
    /// Warn about config keys ufo-rs does not read instead of refusing them.
    #[arg(long)]
    lenient: bool,
    /// Address to listen on; anything but loopback is reachable from other machines.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Port (0: any free port, printed at start).
    #[arg(long, default_value_t = 5000)]
    port: u16,
    /// File holding the API key (else the UFO_API_KEY environment variable).
    #[arg(long)]
    api_key_file: Option<PathBuf>,
    /// Run without a key (loopback only; anyone on this machine can then drive the desktop).
    #[arg(long)]
    insecure_no_auth: bool,
    /// Where the service sessions' log folders go.
    #[arg(long, default_value = "logs")]
    log_dir: PathBuf,
    /// Another host name clients may use in `Host` (loopback servers accept
    /// only localhost, 127.0.0.1 and ::1).
    #[arg(long = "allowed-host")]
    allowed_hosts: Vec<String>,
    /// Open WebSocket connections at most.
    #[arg(long, default_value_t = 2048)]
    max_connections: usize,
    /// Seconds a device may take for one batch of commands.
    #[arg(long, default_value_t = 120.0)]
    command_timeout: f64,
    /// Seconds of silence after which a device counts as gone (default:
    /// the config's HEARTBEAT_TIMEOUT, 300; UFO's own client beats every 120).
    #[arg(long)]
    heartbeat_timeout: Option<f64>,
}

pub(crate) async fn serve(args: ServeArgs) -> Result<ExitCode, ErrorReport> {
    let key = match (api_key(args.api_key_file.as_ref())?, args.insecure_no_auth) {
        (Some(k), _) => ApiKey::required(&k),
        (None, true) if args.host.is_loopback() => {
            eprintln!(
                "warning: --insecure-no-auth: any program on this machine can drive the desktop"
            );
            ApiKey::none()
        }
        (None, true) => {
            return Err(AipError::InsecureNotLoopback {
                host: args.host.to_string(),
            }
            .report());
        }
        (None, false) => return Err(AipError::NoApiKey.report()),
    };
    if !args.host.is_loopback() {
        eprintln!(
            "warning: listening on {}: other machines can reach this server; the API key is all that protects the desktops",
            args.host
        );
    }
    let config = load_config(args.config.as_ref(), args.lenient)?;
    let prompts = ufo_agent::PromptSet::load(&config.prompts).map_err(|e| e.report())?;
    let limits = Limits {
        max_connections: args.max_connections.max(1),
        command_timeout: seconds("--command-timeout", args.command_timeout)?,
        heartbeat_timeout: match args.heartbeat_timeout {
            Some(s) => seconds("--heartbeat-timeout", s)?,
            None => config.system.heartbeat_timeout,
        },
        ..Limits::default()
    };
    let options = ServerOptions {
        key,
        hosts: HostCheck::for_bind(args.host, &args.allowed_hosts),
        limits,
    };
    let runner = SessionRunner::new(config, Arc::new(prompts), args.log_dir.clone());
    let addr = std::net::SocketAddr::new(args.host, args.port);
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        AipError::Bind {
            addr: addr.to_string(),
            source: e,
        }
        .report()
    })?;
    let bound = listener.local_addr().unwrap_or(addr);
    outln!("ufo serve: listening on ws://{bound}/ws (HTTP API under http://{bound}/api/)");
    let server = Server::new(options, Some(runner));
    let shutdown = async {
        stop_signal().await;
        outln!("ufo serve: stopping");
    };
    server.serve(listener, shutdown).await.map_err(|e| {
        AipError::Bind {
            addr: bound.to_string(),
            source: e,
        }
        .report()
    })?;
    Ok(ExitCode::SUCCESS)
}
