//! `ufo serve`: the agent server of service mode, over UFO's Agent
//! Interaction Protocol (its devices are `ufo client`, in `cmd_client.rs`).

use crate::cmd_client::{api_key, seconds, stop_signal};
use crate::cmd_run::load_config;
use crate::error::CliError;
use crate::output::outln;
use clap::Args;
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use ufo_aip::AipError;
use ufo_aip::auth::{ApiKey, DeviceKeys, HostCheck, check_strength};
use ufo_aip_server::{DevicePolicy, Limits, Server, ServerOptions, SessionRunner, TlsConfig};
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
    /// A device's own key, as ID=KEY (repeatable): that key registers device
    /// ID and no other, and the shared key then registers no device.
    /// Prefer --device-keys-file (a command line is visible to other users).
    #[arg(long = "device-key", value_name = "ID=KEY")]
    device_keys: Vec<String>,
    /// A file of device keys, one `ID: KEY` a line (`#` comments).
    #[arg(long, value_name = "FILE")]
    device_keys_file: Option<PathBuf>,
    /// A device whose tool calls get the config's DEVICE_TOOL_ARGUMENTS
    /// (repeatable); no other device gets them.
    #[arg(long = "tool-arguments-for", value_name = "ID")]
    tool_argument_devices: Vec<String>,
    /// Serve HTTPS and wss:// with this PEM certificate chain (with --tls-key).
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
}

/// The devices' keys and who gets `DEVICE_TOOL_ARGUMENTS`; `shared` (the
/// API key) may be no device's key.
fn device_policy(args: &ServeArgs, shared: Option<&str>) -> Result<DevicePolicy, ErrorReport> {
    let mut keys = match &args.device_keys_file {
        Some(f) => {
            let text = std::fs::read_to_string(f).map_err(|e| {
                CliError::Read {
                    what: f.display().to_string(),
                    source: e,
                    help: "give a file of `ID: KEY` lines, one per device",
                }
                .report()
            })?;
            DeviceKeys::parse(&f.display().to_string(), &text).map_err(|e| e.report())?
        }
        None => DeviceKeys::new(),
    };
    for given in &args.device_keys {
        let Some((id, key)) = given.split_once('=') else {
            return Err(AipError::BadDeviceKey {
                at: "--device-key".into(),
                message: "expected ID=KEY".into(),
            }
            .report());
        };
        keys.insert("--device-key", id, key)
            .map_err(|e| e.report())?;
    }
    if shared.is_some_and(|k| keys.contains_key(k)) {
        return Err(AipError::BadDeviceKey {
            at: "--device-key".into(),
            message: "a device's key is the server's API key".into(),
        }
        .report());
    }
    Ok(DevicePolicy {
        keys,
        tool_argument_devices: args.tool_argument_devices.iter().cloned().collect(),
    })
}

pub(crate) async fn serve(args: ServeArgs) -> Result<ExitCode, ErrorReport> {
    let shared = api_key(args.api_key_file.as_ref())?;
    let key = match (shared.as_deref(), args.insecure_no_auth) {
        (Some(k), _) => {
            check_strength("API key", k).map_err(|e| e.report())?;
            ApiKey::required(k)
        }
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
    let policy = device_policy(&args, shared.as_deref())?;
    if !args.host.is_loopback() {
        eprintln!(
            "warning: listening on {}: other machines can reach this server; the API key is all that protects the desktops",
            args.host
        );
        if policy.keys.is_empty() {
            eprintln!(
                "warning: no --device-keys-file: any holder of the API key can register as any device that is not connected"
            );
        }
        if args.tls_cert.is_none() {
            eprintln!(
                "warning: no --tls-cert: keys, requests and screenshots cross the network in clear text"
            );
        }
    }
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(c), Some(k)) => Some(TlsConfig::from_pem_files(c, k).map_err(|e| e.report())?),
        _ => None,
    };
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
        hosts: HostCheck::for_bind(args.host, &args.allowed_hosts).with_tls(tls.is_some()),
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
    let (ws, http) = match tls {
        Some(_) => ("wss", "https"),
        None => ("ws", "http"),
    };
    outln!("ufo serve: listening on {ws}://{bound}/ws (HTTP API under {http}://{bound}/api/)");
    let server = Server::with_devices(options, policy, Some(runner));
    let shutdown = async {
        stop_signal().await;
        outln!("ufo serve: stopping");
    };
    let served = match tls {
        Some(tls) => server.serve_tls(listener, tls, shutdown).await,
        None => server.serve(listener, shutdown).await,
    };
    served.map_err(|e| {
        AipError::Bind {
            addr: bound.to_string(),
            source: e,
        }
        .report()
    })?;
    Ok(ExitCode::SUCCESS)
}
