//! `ufo demo`: a private headless desktop, gnome-calculator, and a full
//! HostAgent → AppAgent session on a shipped request, answered by recorded
//! replay cassettes (or a live model with `--config`).

use crate::cmd_run::{default_task, load_config, summary};
use crate::error::CliError;
use crate::output::outln;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use ufo_core::{Diagnostic, ErrorReport};
use ufo_desktop::{Backend, TreeBudget};
use ufo_desktop_atspi::{AtspiBackend, DesktopOptions, DesktopTarget, HeadlessDesktop};
use ufo_session::config::UfoConfig;
use ufo_session::console::ConsoleIo;
use ufo_session::dispatcher::local_dispatcher;
use ufo_session::{Mode, RunOptions, Services};

/// The shipped request.
pub(crate) const DEMO_REQUEST: &str = "compute 12*7 in the calculator";
const HOST_CASSETTE: &str = include_str!("../../../assets/demo/host.cassette.jsonl");
const APP_CASSETTE: &str = include_str!("../../../assets/demo/app.cassette.jsonl");
const EVAL_CASSETTE: &str = include_str!("../../../assets/demo/evaluation.cassette.jsonl");

/// Arguments of `ufo demo`.
#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    /// Run live with the models of this config instead of the recorded cassettes.
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// The request (live runs only; the cassettes answer the shipped one).
    #[arg(short = 'r', long)]
    pub(crate) request: Option<String>,
    /// Where task log folders go.
    #[arg(long, default_value = "logs")]
    pub(crate) log_dir: PathBuf,
}

fn replay_config(dir: &std::path::Path) -> Result<UfoConfig, ErrorReport> {
    let io = |e: std::io::Error| CliError::DemoCassette(e).report();
    std::fs::create_dir_all(dir).map_err(io)?;
    for (name, text) in [
        ("host.cassette.jsonl", HOST_CASSETTE),
        ("app.cassette.jsonl", APP_CASSETTE),
        ("evaluation.cassette.jsonl", EVAL_CASSETTE),
    ] {
        std::fs::write(dir.join(name), text).map_err(io)?;
    }
    let section = |c: &str| {
        format!(
            "  API_TYPE: replay\n  CASSETTE: {c}\n  REPLAY_MATCH: sequential\n  API_MODEL: recorded-demo\n"
        )
    };
    let yaml = format!(
        "HOST_AGENT:\n{}APP_AGENT:\n{}EVALUATION_AGENT:\n{}MAX_STEP: 20\nMAX_ROUND: 1\nSLEEP_TIME: 0.3\nEVA_SESSION: true\n",
        section("host.cassette.jsonl"),
        section("app.cassette.jsonl"),
        section("evaluation.cassette.jsonl")
    );
    UfoConfig::parse(&yaml, dir, &|k| std::env::var(k).ok()).map_err(|e| e.report())
}

pub(crate) async fn run(args: DemoArgs) -> Result<ExitCode, ErrorReport> {
    let live = args.config.is_some();
    let cassettes = std::env::temp_dir().join(format!("ufo-demo-{}", std::process::id()));
    let mut config = if live {
        let lenient = std::env::var("UFO_CONFIG_LENIENT")
            .is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"));
        load_config(args.config.as_ref(), lenient)?
    } else {
        replay_config(&cassettes)?
    };
    config.system.max_round = 1;
    if live {
        outln!(
            "Model: live, from {}",
            args.config
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        );
    } else {
        outln!(
            "Model: RECORDED REPLAY (API_TYPE: replay, assets/demo/*.cassette.jsonl) — no model is called."
        );
        outln!("       Run `ufo demo --config agents.yaml` to use a real model.");
    }
    let request = match (&args.request, live) {
        (Some(r), true) => r.clone(),
        _ => DEMO_REQUEST.to_owned(),
    };
    outln!("Starting a private headless desktop with gnome-calculator...");
    let opts = DesktopOptions {
        name: format!("demo-{}", std::process::id()),
        stop_with_process: true,
        ..DesktopOptions::default()
    };
    let desktop = HeadlessDesktop::start(opts).await.map_err(|e| e.report())?;
    let outcome = session(&desktop, config, &request, &args.log_dir).await;
    if let Err(e) = desktop.stop() {
        eprintln!("warning: could not stop the demo desktop: {e}");
    }
    let _ = std::fs::remove_dir_all(&cassettes);
    outcome
}

async fn session(
    desktop: &HeadlessDesktop,
    config: UfoConfig,
    request: &str,
    log_dir: &std::path::Path,
) -> Result<ExitCode, ErrorReport> {
    desktop
        .launch(&["gnome-calculator".to_owned()], Duration::from_secs(60))
        .await
        .map_err(|e| e.report())?;
    let backend = Arc::new(
        AtspiBackend::connect(&DesktopTarget::from_private(desktop))
            .await
            .map_err(|e| e.report())?,
    );
    let prompts = ufo_agent::PromptSet::load(&config.prompts).map_err(|e| e.report())?;
    let services = Services {
        dispatcher: Arc::new(local_dispatcher(backend.clone(), &config.system)),
        io: Arc::new(ConsoleIo),
        prompts: Arc::new(prompts),
        log_root: log_dir.to_path_buf(),
        config,
    };
    outln!("Request: {request}\n");
    let opts = RunOptions {
        task: format!("demo-{}", default_task()),
        mode: Mode::Normal,
        request: Some(request.to_owned()),
        plan: None,
        app: None,
    };
    let reports = ufo_session::run(&services, &opts)
        .await
        .map_err(|e| e.report())?;
    outln!();
    let code = summary(&reports);
    let finished = reports
        .iter()
        .all(|r| r.status == ufo_session::SessionStatus::Finish);
    if finished && request == DEMO_REQUEST {
        verify_display(&backend).await?;
    }
    Ok(code)
}

/// What the shipped request must leave on the calculator's display.
const DEMO_EXPECTED: &str = "84";

/// Reads the calculator's display back through the backend (its editable
/// `text` node) so the demo proves the effect instead of trusting the
/// replayed answer. The display may lag the last click briefly.
async fn verify_display(backend: &AtspiBackend) -> Result<(), ErrorReport> {
    let mut shown = String::new();
    for _ in 0..40 {
        shown = calculator_display(backend).await?;
        if shown == DEMO_EXPECTED {
            outln!("Verified: the calculator's display reads {shown}.");
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(CliError::DemoUnverified(format!(
        "the calculator's display reads {shown:?}, not {DEMO_EXPECTED:?}"
    ))
    .report())
}

async fn calculator_display(backend: &AtspiBackend) -> Result<String, ErrorReport> {
    let windows = backend.list_windows().await.map_err(|e| e.report())?;
    let w = windows
        .iter()
        .find(|w| w.app_name == "gnome-calculator")
        .ok_or_else(|| {
            CliError::DemoUnverified(
                "the calculator's window is gone; its display cannot be read".into(),
            )
            .report()
        })?;
    let tree = backend
        .capture_tree(w, &TreeBudget::default())
        .await
        .map_err(|e| e.report())?;
    Ok(tree
        .nodes
        .iter()
        .filter(|n| n.capabilities.editable_text && n.role == "text")
        .find_map(|n| n.value.clone())
        .unwrap_or_default()
        .trim()
        .to_owned())
}
