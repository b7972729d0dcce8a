//! `ufo galaxy run`: runs a constellation (Galaxy's plan of sub-tasks
//! across devices, UFO's JSON) on the devices of a `devices.yaml`, each
//! reached through the `ufo serve` it is connected to, and writes how it
//! ended. The plan is run as given: the ConstellationAgent that writes and
//! edits plans is not part of this command.

use crate::cmd_client::api_key;
use crate::error::CliError;
use crate::output::outln;
use clap::{Args, Subcommand};
use serde::Deserialize;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use ufo_aip::AipError;
use ufo_aip::client::constellation::{DeviceLink, LinkOptions};
use ufo_core::{Diagnostic, ErrorReport};
use ufo_galaxy::orchestrate::{DeviceError, DeviceRunner, Orchestrator, SubTask, TaskOutcome};
use ufo_galaxy::validate::KnownDevice;
use ufo_galaxy::{ConstellationState, DeviceType, TaskConstellation};

/// `ufo galaxy …`.
#[derive(Debug, Subcommand)]
pub(crate) enum GalaxyCmd {
    /// Run a constellation (UFO's JSON) on the devices of a devices.yaml.
    Run(RunArgs),
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
pub(crate) async fn run(cmd: GalaxyCmd) -> Result<ExitCode, ErrorReport> {
    match cmd {
        GalaxyCmd::Run(args) => run_plan(args).await,
    }
}

async fn run_plan(args: RunArgs) -> Result<ExitCode, ErrorReport> {
    let plan =
        TaskConstellation::from_json(&read(&args.plan, "give the constellation's JSON file")?)
            .map_err(|e| e.report())?;
    let file: DevicesFile =
        serde_saphyr::from_str(&read(&args.devices, "give UFO's devices.yaml")?).map_err(|e| {
            CliError::Syntax {
            what: args.devices.display().to_string(),
            format: "YAML",
            message: e.to_string(),
            help: "devices: [{device_id: pc1, server_url: \"ws://127.0.0.1:5000/ws\", os: linux}]",
        }
        .report()
        })?;
    let task_name = args
        .task_name
        .or(file.task_name)
        .unwrap_or_else(|| format!("galaxy_{}", std::process::id()));
    let key = api_key(args.api_key_file.as_ref())?;
    let mut links = BTreeMap::new();
    let mut known = Vec::new();
    for d in &file.devices {
        let options = LinkOptions {
            api_key: key.clone(),
            ..LinkOptions::new(&d.server_url, &task_name, &d.device_id)
        };
        let link = DeviceLink::connect(options).await.map_err(|e| {
            tracing::warn!(device = %d.device_id, "not connected: {e}");
            e.to_string()
        });
        known.push(KnownDevice::new(
            d.device_id.clone(),
            d.os.as_deref().and_then(DeviceType::parse),
        ));
        links.insert(d.device_id.clone(), link);
    }
    let devices = Arc::new(AipDevices { known, links });
    let finished = Orchestrator::new(devices)
        .run(plan)
        .await
        .map_err(|e| e.report())?;
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
