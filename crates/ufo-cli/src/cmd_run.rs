//! `ufo run`: a session on the desktop (UFO's `python -m ufo`).

use crate::desktop_conn::{DesktopArgs, connect};
use crate::output::outln;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use ufo_core::{Diagnostic, ErrorReport};
use ufo_session::config::UfoConfig;
use ufo_session::console::ConsoleIo;
use ufo_session::dispatcher::local_dispatcher;
use ufo_session::{Mode, RunOptions, Services, SessionReport, SessionStatus};

/// Arguments of `ufo run`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// Task name: the log folder `logs/<task>/` (default: a timestamp).
    #[arg(short = 't', long)]
    pub(crate) task: Option<String>,
    /// The request (normal mode); asked on the terminal when omitted.
    #[arg(short = 'r', long)]
    pub(crate) request: Option<String>,
    /// normal, follower, batch_normal, operator, normal_operator or
    /// batch_normal_operator (service and linux_service run on `ufo serve`).
    #[arg(short = 'm', long, default_value = "normal")]
    pub(crate) mode: String,
    /// Plan file or folder (follower, batch_normal).
    #[arg(short = 'p', long)]
    pub(crate) plan: Option<PathBuf>,
    /// Config file (UFO's keys: HOST_AGENT, APP_AGENT, MAX_STEP, ...).
    #[arg(long, env = "UFO_CONFIG")]
    pub(crate) config: Option<PathBuf>,
    /// Warn about config keys ufo-rs does not read instead of refusing them
    /// (for UFO's own config files).
    #[arg(long, env = "UFO_CONFIG_LENIENT", value_parser = clap::builder::FalseyValueParser::new())]
    pub(crate) lenient: bool,
    /// Linux single-tier session: run the AppAgent on this application
    /// (e.g. gedit), without the HostAgent.
    #[arg(long)]
    pub(crate) app: Option<String>,
    /// Where task log folders go.
    #[arg(long, default_value = "logs")]
    pub(crate) log_dir: PathBuf,
    #[command(flatten)]
    pub(crate) desktop: DesktopArgs,
}

pub(crate) fn default_task() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format!("task-{secs}")
}

/// Loads `path` (the defaults without one); with `lenient`, keys ufo-rs does
/// not read are printed as warnings instead of refused.
pub(crate) fn load_config(path: Option<&PathBuf>, lenient: bool) -> Result<UfoConfig, ErrorReport> {
    let config = match path {
        Some(p) => UfoConfig::load_with(p, lenient).map_err(|e| e.report())?,
        None => UfoConfig::default(),
    };
    for w in &config.warnings {
        eprintln!("warning: {w}");
    }
    Ok(config)
}

pub(crate) fn summary(reports: &[SessionReport]) -> ExitCode {
    for r in reports {
        outln!(
            "{}: {}{}",
            r.task,
            r.status.as_str(),
            if r.skipped {
                " (already finished, skipped)"
            } else {
                ""
            }
        );
        if !r.result.is_empty() {
            outln!("  result: {}", r.result);
        }
        if let Some(e) = &r.error {
            outln!("  {}", e.headline());
        }
        outln!("  logs: {}", r.log_dir.display());
        if let Some(md) = &r.markdown {
            outln!("  trajectory: {}", md.display());
        }
    }
    if reports.iter().all(|r| r.status == SessionStatus::Finish) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

pub(crate) async fn run(args: RunArgs) -> Result<ExitCode, ErrorReport> {
    let mode: Mode = args
        .mode
        .parse()
        .map_err(|e: ufo_session::SessionError| e.report())?;
    if matches!(mode, Mode::Service | Mode::LinuxService) {
        return Err(crate::error::CliError::ServiceOutsideServer {
            mode: args.mode.trim().to_ascii_lowercase(),
        }
        .report());
    }
    let config = load_config(args.config.as_ref(), args.lenient)?;
    // The templates are checked before the desktop is touched.
    let prompts = ufo_agent::PromptSet::load(&config.prompts).map_err(|e| e.report())?;
    let backend = Arc::new(connect(&args.desktop).await?);
    let services = Services {
        dispatcher: Arc::new(local_dispatcher(backend, &config.system)),
        io: Arc::new(ConsoleIo),
        prompts: Arc::new(prompts),
        log_root: args.log_dir.clone(),
        config,
    };
    let opts = RunOptions {
        task: args.task.clone().unwrap_or_else(default_task),
        mode,
        request: args.request.clone(),
        plan: args.plan.clone(),
        app: args.app.clone(),
    };
    let reports = ufo_session::run(&services, &opts)
        .await
        .map_err(|e| e.report())?;
    Ok(summary(&reports))
}
