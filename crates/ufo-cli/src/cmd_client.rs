//! `ufo client`: this desktop as a device of a `ufo serve` server (UFO's
//! Agent Interaction Protocol over WebSocket).

use crate::cmd_run::load_config;
use crate::desktop_conn::{DesktopArgs, connect};
use crate::error::CliError;
use crate::output::outln;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use ufo_aip::AipError;
use ufo_aip::client::{ClientOptions, DispatcherFactory, OwnTask};
use ufo_core::{Diagnostic, ErrorReport};
use ufo_session::dispatcher::local_dispatcher;

/// Arguments of `ufo client`.
#[derive(Debug, Args)]
pub(crate) struct ClientArgs {
    /// The server's WebSocket URL.
    #[arg(long, default_value = "ws://127.0.0.1:5000/ws")]
    server: String,
    /// This device's id on the server.
    #[arg(long)]
    client_id: String,
    /// File holding the key: this device's own when the server gives it
    /// one (--device-key), else the server's API key (else UFO_API_KEY).
    #[arg(long)]
    api_key_file: Option<PathBuf>,
    /// For a wss:// server: a PEM file of the CA (or the server's own
    /// self-signed certificate) to trust, instead of the web's public roots.
    #[arg(long, value_name = "PEM")]
    ca: Option<PathBuf>,
    /// The device's own config: what it lets the agents do here
    /// (CONTROL_LIST, APP_ALLOWLIST, the command-line agent's commands).
    #[arg(long, env = "UFO_CONFIG")]
    config: Option<PathBuf>,
    /// Warn about config keys ufo-rs does not read instead of refusing them.
    #[arg(long)]
    lenient: bool,
    /// Send this request as the device's own task, wait for its end and exit.
    #[arg(short = 'r', long)]
    request: Option<String>,
    /// Name of the own task (its log folder on the server).
    #[arg(short = 't', long)]
    task: Option<String>,
    /// `service` (HostAgent and AppAgents) or `linux_service` (one agent).
    #[arg(short = 'm', long)]
    mode: Option<String>,
    /// For `linux_service`: the application (default: the LinuxAgent).
    #[arg(long)]
    app: Option<String>,
    /// Connection attempts in a row before giving up.
    #[arg(long, default_value_t = 5)]
    max_retries: u32,
    /// Seconds between heartbeats (default: the config's HEARTBEAT_INTERVAL, 30).
    #[arg(long)]
    heartbeat: Option<f64>,
    #[command(flatten)]
    desktop: DesktopArgs,
}

/// The key from `--api-key-file` or `UFO_API_KEY`.
pub(crate) fn api_key(file: Option<&PathBuf>) -> Result<Option<String>, ErrorReport> {
    if let Some(f) = file {
        let key = std::fs::read_to_string(f).map_err(|e| {
            CliError::Read {
                what: f.display().to_string(),
                source: e,
                help: "give a file that holds the key on one line",
            }
            .report()
        })?;
        let key = key.trim().to_owned();
        if key.is_empty() {
            return Err(AipError::NoApiKey.report());
        }
        return Ok(Some(key));
    }
    Ok(std::env::var("UFO_API_KEY")
        .ok()
        .map(|k| k.trim().to_owned())
        .filter(|k| !k.is_empty()))
}

pub(crate) fn seconds(option: &'static str, s: f64) -> Result<Duration, ErrorReport> {
    match s.is_finite() && s > 0.0 && s <= 86_400.0 {
        true => Ok(Duration::from_secs_f64(s)),
        false => Err(CliError::BadOption {
            option,
            message: format!("{s} is not a number of seconds between 0 and 86400"),
            help: "e.g. 30",
        }
        .report()),
    }
}

/// Ctrl-C (other platforms).
#[cfg(not(unix))]
pub(crate) async fn stop_signal() {
    let _ = tokio::signal::ctrl_c().await;
}

/// SIGINT or SIGTERM (a service manager stops the server with SIGTERM).
#[cfg(unix)]
pub(crate) async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) {
        (Ok(mut int), Ok(mut term)) => {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
        }
        _ => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

pub(crate) async fn client(args: ClientArgs) -> Result<ExitCode, ErrorReport> {
    if !ufo_aip::messages::is_safe_task_name(&args.client_id) {
        return Err(CliError::BadOption {
            option: "--client-id",
            message: format!(
                "{:?} is not 1-128 characters of [A-Za-z0-9._-]",
                args.client_id
            ),
            help: "e.g. --client-id dev1",
        }
        .report());
    }
    let config = load_config(args.config.as_ref(), args.lenient)?;
    let key = api_key(args.api_key_file.as_ref())?;
    let backend = Arc::new(connect(&args.desktop).await?);
    let mut system = config.system.clone();
    // What the server asks this device to run never prints its key.
    if let Some(k) = &key {
        system.secrets.add(k.clone());
    }
    let factory: DispatcherFactory = Arc::new(move || {
        Arc::new(local_dispatcher(backend.clone(), &system))
            as Arc<dyn ufo_agent::CommandDispatcher>
    });
    let task = match args.request.filter(|r| !r.trim().is_empty()) {
        Some(request) => {
            let task_name = args.task.unwrap_or_else(crate::cmd_run::default_task);
            if !ufo_aip::messages::is_safe_task_name(&task_name) {
                return Err(AipError::BadTaskName { name: task_name }.report());
            }
            Some(OwnTask {
                request,
                task_name,
                mode: args.mode,
                app: args.app,
                session_id: ufo_aip::messages::new_id(),
            })
        }
        None => None,
    };
    let mut opts = ClientOptions::new(&args.server, &args.client_id);
    opts.api_key = key;
    opts.max_retries = args.max_retries;
    opts.ca = args.ca;
    opts.heartbeat = match args.heartbeat {
        Some(s) => seconds("--heartbeat", s)?,
        None => config.system.heartbeat_interval,
    };
    let own = task.is_some();
    opts.task = task;
    if !own {
        outln!(
            "ufo client: device {:?} serving {} (Ctrl-C to stop)",
            args.client_id,
            args.server
        );
    }
    let run = ufo_aip::client::run(opts, factory);
    let ended = tokio::select! {
        r = run => r.map_err(|e| e.report())?,
        _ = stop_signal() => return Ok(ExitCode::SUCCESS),
    };
    let Some(end) = ended else {
        return Ok(ExitCode::SUCCESS);
    };
    // UFO's result is a list of `{request, result}`; ufo-rs's fields are
    // beside them in the last one.
    let last = end
        .result
        .as_array()
        .and_then(|a| a.last())
        .cloned()
        .unwrap_or_else(|| end.result.clone());
    let status = last
        .get("status")
        .and_then(|s| s.as_str())
        .unwrap_or(if end.completed { "FINISH" } else { "FAIL" });
    outln!("{}: {}", end.task_name, status);
    if let Some(r) = last
        .get("result")
        .and_then(|s| s.as_str())
        .filter(|s| !s.is_empty())
    {
        outln!("  result: {r}");
    }
    if let Some(e) = &end.error {
        outln!("  {e}");
    }
    if let Some(l) = last.get("log_dir").and_then(|s| s.as_str()) {
        outln!("  logs (on the server): {l}");
    }
    Ok(match end.completed {
        true => ExitCode::SUCCESS,
        false => ExitCode::FAILURE,
    })
}
