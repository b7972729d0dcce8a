//! `ufo galaxy`: Galaxy's requests across devices. Each device of UFO's
//! `devices.yaml` is reached through the `ufo serve` it is connected to.
//!
//! - `ufo galaxy ask "<request>"`: the ConstellationAgent plans the request
//!   as a constellation, the orchestrator runs it, and the agent re-plans as
//!   sub-tasks end; its steps go to `<log dir>/<task name>/response.log`
//!   and how it ended to `result.json` there.
//! - `ufo galaxy run --plan plan.json`: a constellation (UFO's JSON) run as
//!   given, without the agent.
//! - `ufo galaxy replay DIR`: a logged run's trajectory again.
//!
//! Each run's folder also holds `events.jsonl` (the orchestrator's events,
//! the graph at every change) and `trajectory.md` (the events and the final
//! graph in Mermaid): see `galaxy_log`.

use crate::cmd_client::api_key;
use crate::cmd_run::load_config;
use crate::error::CliError;
use crate::galaxy_log;
use crate::output::outln;
use clap::{Args, Subcommand};
use serde::Deserialize;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use ufo_agent::constellation::{
    AgentStatus, ConstellationAgent, ConstellationPrompts, DeviceProfile,
};
use ufo_aip::AipError;
use ufo_aip::client::constellation::{DeviceLink, LinkOptions};
use ufo_core::{Diagnostic, ErrorReport};
use ufo_galaxy::orchestrate::{DeviceError, DeviceRunner, Orchestrator, SubTask, TaskOutcome};
use ufo_galaxy::validate::KnownDevice;
use ufo_galaxy::{ConstellationState, DeviceType, TaskConstellation};

/// `ufo galaxy …`.
#[derive(Debug, Subcommand)]
pub(crate) enum GalaxyCmd {
    /// Plan a request across the devices, run the plan and re-plan as sub-tasks end.
    Ask(AskArgs),
    /// Run a constellation (UFO's JSON) on the devices of a devices.yaml.
    Run(RunArgs),
    /// Print the trajectory of a logged run (its folder under logs/galaxy).
    Replay {
        /// The run's folder (`logs/galaxy/<task name>`).
        dir: PathBuf,
    },
}

/// `ufo galaxy`: a subcommand, or (as UFO's `python -m galaxy`) `-r
/// REQUEST`, or neither: requests read one per line from the terminal.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct GalaxyArgs {
    #[command(subcommand)]
    cmd: Option<GalaxyCmd>,
    /// The request (as `ufo galaxy ask`); without it, requests are read one
    /// per line from the terminal until an empty line.
    #[arg(short = 'r', long)]
    request: Option<String>,
    #[command(flatten)]
    options: AskOptions,
}

/// Arguments of `ufo galaxy ask`.
#[derive(Debug, Args)]
pub(crate) struct AskArgs {
    /// The request.
    request: String,
    #[command(flatten)]
    options: AskOptions,
}

/// How `ufo galaxy ask` (and `-r`) reaches the devices and the model.
#[derive(Debug, Args, Clone)]
pub(crate) struct AskOptions {
    /// UFO's devices.yaml: `devices: [{device_id, server_url, os, …}]`.
    #[arg(long)]
    devices: Option<PathBuf>,
    /// The config whose HOST_AGENT model the ConstellationAgent asks.
    #[arg(long, env = "UFO_CONFIG")]
    config: Option<PathBuf>,
    /// Warn about config keys ufo-rs does not read instead of refusing them.
    #[arg(long)]
    lenient: bool,
    /// The task name (the links' `<task name>@<device>`, the log folder);
    /// default: devices.yaml's `task_name`, else `galaxy_<pid>`.
    #[arg(long)]
    task_name: Option<String>,
    /// File holding the servers' shared key (else UFO_API_KEY).
    #[arg(long)]
    api_key_file: Option<PathBuf>,
    /// Where the task's folder of logs is made.
    #[arg(long, default_value = "logs/galaxy")]
    log_dir: PathBuf,
    /// Print how it ended as JSON.
    #[arg(long)]
    json: bool,
}

/// Arguments of `ufo galaxy run`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The constellation: UFO's JSON (tasks and dependencies as maps or lists).
    #[arg(long)]
    plan: PathBuf,
    /// UFO's devices.yaml: `devices: [{device_id, server_url, os, …}]`.
    #[arg(long)]
    devices: PathBuf,
    /// The task name the links register under (`<task name>@<device>`);
    /// default: devices.yaml's `task_name`, else `galaxy_<time>`.
    #[arg(long)]
    task_name: Option<String>,
    /// File holding the servers' shared key (else UFO_API_KEY).
    #[arg(long)]
    api_key_file: Option<PathBuf>,
    /// Write the finished constellation and the run's report here (JSON).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where the run's folder of logs (events.jsonl, trajectory.md) is made.
    #[arg(long, default_value = "logs/galaxy")]
    log_dir: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// UFO's devices.yaml (unknown keys tolerated, as UFO's loader does).
#[derive(Debug, Deserialize)]
struct DevicesFile {
    #[serde(default)]
    task_name: Option<String>,
    #[serde(default)]
    devices: Vec<DeviceEntry>,
}

#[derive(Debug, Deserialize)]
struct DeviceEntry {
    device_id: String,
    server_url: String,
    #[serde(default)]
    os: Option<String>,
    #[serde(default)]
    capabilities: Vec<String>,
    #[serde(default)]
    metadata: serde_json::Map<String, serde_json::Value>,
}

/// The devices, each through its link (or why it has none).
struct AipDevices {
    known: Vec<KnownDevice>,
    links: BTreeMap<String, Result<DeviceLink, String>>,
}

impl DeviceRunner for AipDevices {
    fn devices(&self) -> Vec<KnownDevice> {
        self.known.clone()
    }

    async fn run(&self, task: SubTask) -> Result<TaskOutcome, DeviceError> {
        let link = match self.links.get(&task.device_id) {
            Some(Ok(link)) => link,
            Some(Err(why)) => {
                return Err(DeviceError::failed(format!(
                    "device {} is not connected: {why}",
                    task.device_id
                )));
            }
            None => {
                return Err(DeviceError::failed(format!(
                    "device {} is not in devices.yaml",
                    task.device_id
                )));
            }
        };
        match link
            .run_task(&task.task_id, &task.request, task.timeout)
            .await
        {
            Ok(end) if end.completed => Ok(TaskOutcome::completed(end.result)),
            Ok(end) => Ok(TaskOutcome::failed(end.result, end.error)),
            Err(e @ AipError::LinkLost { .. }) => Err(DeviceError::disconnected(e.to_string())),
            Err(e) => Err(DeviceError::failed(e.to_string())),
        }
    }
}

fn read(path: &PathBuf, what: &'static str) -> Result<String, ErrorReport> {
    std::fs::read_to_string(path).map_err(|e| {
        CliError::Read {
            what: path.display().to_string(),
            source: e,
            help: what,
        }
        .report()
    })
}

/// `ufo galaxy …`.
pub(crate) async fn run(args: GalaxyArgs) -> Result<ExitCode, ErrorReport> {
    let cmd = match (args.cmd, args.request) {
        (Some(cmd), _) => cmd,
        (None, Some(request)) => GalaxyCmd::Ask(AskArgs {
            request,
            options: args.options,
        }),
        (None, None) => return interactive(args.options).await,
    };
    match cmd {
        GalaxyCmd::Ask(args) => ask(&args.request, &args.options, None).await,
        GalaxyCmd::Run(args) => run_plan(args).await,
        GalaxyCmd::Replay { dir } => {
            let text = galaxy_log::replay(&dir)?;
            outln!("{text}");
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn devices_file(path: &PathBuf) -> Result<DevicesFile, ErrorReport> {
    serde_saphyr::from_str(&read(path, "give UFO's devices.yaml")?).map_err(|e| {
        CliError::Syntax {
            what: path.display().to_string(),
            format: "YAML",
            message: e.to_string(),
            help: "devices: [{device_id: pc1, server_url: \"ws://127.0.0.1:5000/ws\", os: linux}]",
        }
        .report()
    })
}

/// Every device of `file`, each through its link (a device that cannot be
/// reached stays known: its tasks fail with the reason), and, when
/// `ask_info` (the agent plans: `ask`), what each told of itself for the
/// agent's prompt; a fixed plan (`run`) needs no such round trip.
async fn connect(
    file: &DevicesFile,
    task_name: &str,
    key: Option<String>,
    ask_info: bool,
) -> (Arc<AipDevices>, Vec<DeviceProfile>) {
    let mut links = BTreeMap::new();
    let mut known = Vec::new();
    let mut profiles = Vec::new();
    for d in &file.devices {
        let options = LinkOptions {
            api_key: key.clone(),
            ..LinkOptions::new(&d.server_url, task_name, &d.device_id)
        };
        let link = DeviceLink::connect(options).await.map_err(|e| {
            tracing::warn!(device = %d.device_id, "not connected: {e}");
            e.to_string()
        });
        let mut metadata = d.metadata.clone();
        if ask_info
            && let Ok(l) = &link
            && let Ok(info) = l.device_info().await
            && info.is_object()
        {
            metadata.insert("system_info".into(), info);
        }
        let status = if link.is_ok() {
            "connected"
        } else {
            "disconnected"
        };
        profiles.push(DeviceProfile {
            device_id: d.device_id.clone(),
            os: d.os.clone(),
            capabilities: d.capabilities.clone(),
            metadata,
            status: Some(status.into()),
        });
        known.push(KnownDevice::new(
            d.device_id.clone(),
            d.os.as_deref().and_then(DeviceType::parse),
        ));
        links.insert(d.device_id.clone(), link);
    }
    (Arc::new(AipDevices { known, links }), profiles)
}

/// `log_dir/task_name`, made.
fn log_folder(log_dir: &std::path::Path, task_name: &str) -> Result<PathBuf, ErrorReport> {
    let dir = log_dir.join(task_name);
    std::fs::create_dir_all(&dir).map_err(|e| {
        CliError::Write {
            path: dir.display().to_string(),
            source: e,
        }
        .report()
    })?;
    Ok(dir)
}

fn write_file(path: &std::path::Path, text: &str) -> Result<(), ErrorReport> {
    std::fs::write(path, text).map_err(|e| {
        CliError::Write {
            path: path.display().to_string(),
            source: e,
        }
        .report()
    })
}

/// The task name: `--task-name`, else devices.yaml's, else `galaxy_<pid>`.
fn task_name(given: Option<String>, file: &DevicesFile) -> String {
    given
        .or_else(|| file.task_name.clone())
        .unwrap_or_else(|| format!("galaxy_{}", std::process::id()))
}

/// Requests read from the terminal, one per line, each asked in turn
/// (task `<name>_<n>`), until an empty line or the end of input.
async fn interactive(options: AskOptions) -> Result<ExitCode, ErrorReport> {
    let mut code = ExitCode::SUCCESS;
    for n in 1.. {
        eprint!("galaxy request (an empty line ends): ");
        let mut line = String::new();
        let read = tokio::task::spawn_blocking(move || {
            std::io::stdin().read_line(&mut line).map(|k| (k, line))
        })
        .await;
        let request = match read {
            Ok(Ok((k, line))) if k > 0 && !line.trim().is_empty() => line.trim().to_owned(),
            _ => return Ok(code),
        };
        code = ask(&request, &options, Some(n)).await?;
    }
    Ok(code)
}

/// Asks the ConstellationAgent `request` (the `n`-th of a terminal
/// session, when it is one).
async fn ask(request: &str, args: &AskOptions, n: Option<usize>) -> Result<ExitCode, ErrorReport> {
    let config = load_config(args.config.as_ref(), args.lenient)?;
    let Some(host) = config.host.as_ref() else {
        return Err(CliError::BadOption {
            option: "--config",
            message: "the config has no HOST_AGENT: the ConstellationAgent asks its model".into(),
            help: "give a config with HOST_AGENT (API_TYPE, API_BASE, API_MODEL, …)",
        }
        .report());
    };
    let model =
        ufo_llm::build_with_backup(host, config.backup.as_ref(), None).map_err(|e| e.report())?;
    let prompts = ConstellationPrompts::builtin().map_err(|e| e.report())?;
    let Some(devices_path) = &args.devices else {
        return Err(CliError::BadOption {
            option: "--devices",
            message: "no devices: give UFO's devices.yaml".into(),
            help: "--devices devices.yaml (devices: [{device_id: pc1, server_url: \"ws://127.0.0.1:5000/ws\"}])",
        }
        .report());
    };
    let file = devices_file(devices_path)?;
    let mut task_name = task_name(args.task_name.clone(), &file);
    if let Some(n) = n {
        task_name = format!("{task_name}_{n}");
    }
    let key = api_key(args.api_key_file.as_ref())?;
    let (devices, profiles) = connect(&file, &task_name, key, true).await;
    let dir = log_folder(&args.log_dir, &task_name)?;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let recorder = tokio::spawn(galaxy_log::record(dir.clone(), rx));
    let outcome = ConstellationAgent::new(model, prompts)
        .device_profiles(profiles)
        .events(tx)
        .run(request, devices)
        .await;
    let events = recorder.await.unwrap_or_default();
    galaxy_log::write_trajectory(&dir, &task_name, &events)?;
    let mut log = String::new();
    for step in &outcome.steps {
        log.push_str(&serde_json::to_string(step).map_err(|e| CliError::Json(e).report())?);
        log.push('\n');
    }
    write_file(&dir.join("response.log"), &log)?;
    let ended = json!({
        "request": request,
        "status": outcome.status.as_str(),
        "end": outcome.end,
        "results": outcome.results,
        "reason": outcome.reason,
        "steps": outcome.steps.len(),
        "report": outcome.report,
        "constellation": outcome.constellation.as_ref().map(TaskConstellation::to_value),
    });
    let text = serde_json::to_string_pretty(&ended).map_err(|e| CliError::Json(e).report())?;
    write_file(&dir.join("result.json"), &text)?;
    if args.json {
        let line = serde_json::to_string(&ended).map_err(|e| CliError::Json(e).report())?;
        outln!("{line}");
    } else {
        outln!("{}: {}", outcome.status.as_str(), outcome.results);
        if let Some(why) = &outcome.reason {
            outln!("  {why}");
        }
        outln!("  logs: {}", dir.display());
    }
    Ok(match outcome.status {
        AgentStatus::Finish => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}

async fn run_plan(args: RunArgs) -> Result<ExitCode, ErrorReport> {
    let plan =
        TaskConstellation::from_json(&read(&args.plan, "give the constellation's JSON file")?)
            .map_err(|e| e.report())?;
    let file = devices_file(&args.devices)?;
    let task_name = task_name(args.task_name, &file);
    let key = api_key(args.api_key_file.as_ref())?;
    let (devices, _) = connect(&file, &task_name, key, false).await;
    let dir = log_folder(&args.log_dir, &task_name)?;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let recorder = tokio::spawn(galaxy_log::record(dir.clone(), rx));
    let finished = Orchestrator::new(devices).events(tx).run(plan).await;
    let events = recorder.await.unwrap_or_default();
    galaxy_log::write_trajectory(&dir, &task_name, &events)?;
    let finished = finished.map_err(|e| e.report())?;
    let outcome = json!({
        "report": finished.report,
        "constellation": finished.constellation.to_value(),
    });
    if let Some(out) = &args.out {
        let text =
            serde_json::to_string_pretty(&outcome).map_err(|e| CliError::Json(e).report())?;
        std::fs::write(out, text).map_err(|e| {
            CliError::Write {
                path: out.display().to_string(),
                source: e,
            }
            .report()
        })?;
    }
    if args.json {
        let text = serde_json::to_string(&outcome).map_err(|e| CliError::Json(e).report())?;
        outln!("{text}");
    } else {
        let r = &finished.report;
        outln!(
            "constellation {}: {} ({} tasks, {:.1} s)",
            r.constellation_id,
            r.state.as_str(),
            r.total_tasks,
            r.execution_duration
        );
        for t in finished.constellation.tasks() {
            let device = t.target_device_id.as_deref().unwrap_or("-");
            match &t.error {
                Some(why) => outln!("  {} on {device}: {} ({why})", t.task_id, t.status.as_str()),
                None => outln!("  {} on {device}: {}", t.task_id, t.status.as_str()),
            }
        }
    }
    Ok(match finished.report.state {
        ConstellationState::Completed => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}
