//! `ufo bench ...`: the arguments of each benchmark and how its report is
//! printed; the benchmarks themselves are in `ufo-bench`.

use crate::desktop_conn::{DesktopArgs, WindowArgs, connect, pick_window};
use crate::output::{outln, print_json};
use clap::{Args, Subcommand};
use serde::Serialize;
use std::fmt::Display;
use std::path::PathBuf;
use std::process::ExitCode;
use ufo_core::ErrorReport;

#[derive(Debug, Subcommand)]
pub(crate) enum BenchCommand {
    /// Time one observation as an agent step makes it: following the
    /// application, tree capture (live), filtering, screenshot, annotation and
    /// encoding the model's images.
    Perception(PerceptionArgs),
    /// Per application, in a private desktop of its own: full and live
    /// observation of its controls against a careful pyatspi walk (pruned as
    /// ufo prunes, reading what ufo reads).
    Apps(AppsArgs),
    /// Hold N simulated devices on an agent server and time command round trips.
    Service(ServiceArgs),
    /// The simulated devices of `ufo bench service` (started by it).
    #[command(hide = true)]
    ServiceDevices(DevicesArgs),
    /// Count the prompt tokens of a window's control list, ours against UFO's layout.
    Tokens(TokensArgs),
    /// Run a scripted 10-step session on a real application in a private
    /// desktop and time each step's phases, next to a Python agent doing the
    /// same steps.
    Step(StepArgs),
    /// The scripted model of `ufo bench step` (started by it).
    #[command(hide = true)]
    StepModel(StepModelArgs),
}

#[derive(Debug, Args)]
pub(crate) struct PerceptionArgs {
    #[command(flatten)]
    desktop: DesktopArgs,
    #[command(flatten)]
    window: WindowArgs,
    /// How many observations to time (after one warm-up).
    #[arg(long, default_value_t = 10)]
    runs: usize,
    /// PNG compression of the encoded image: fast or default.
    #[arg(long, default_value = "fast")]
    png: String,
    /// The format the model's images are encoded in: png, jpeg or webp.
    #[arg(long, default_value = "png")]
    image_format: String,
    /// Scale the model's images down to at most this many pixels a side.
    #[arg(long)]
    max_side: Option<u32>,
    /// Capture the whole tree every time (as before the live tree), to
    /// compare.
    #[arg(long)]
    full: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct AppsArgs {
    /// Only these applications (names from `--list`, comma-separated).
    #[arg(long, value_delimiter = ',')]
    apps: Vec<String>,
    /// Observations and walks timed per application (after one warm-up each).
    #[arg(long, default_value_t = 10)]
    runs: usize,
    /// Milliseconds the application is left idle before each timed
    /// observation and walk, as between two agent steps (0: back to back,
    /// which slows the walk about twofold).
    #[arg(long, default_value_t = ufo_bench::apps::SETTLE_MS)]
    settle_ms: u64,
    /// List the applications and whether each is installed, and exit.
    #[arg(long)]
    list: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ServiceArgs {
    /// Simulated devices to connect.
    #[arg(long, default_value_t = 1000)]
    devices: usize,
    /// Command batches to time (each one COMMAND → COMMAND_RESULTS).
    #[arg(long, default_value_t = 5000)]
    commands: usize,
    /// Batches in flight at once, on different devices.
    #[arg(long, default_value_t = 32)]
    concurrency: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct DevicesArgs {
    /// The server's WebSocket URL.
    #[arg(long)]
    url: String,
    /// How many devices.
    #[arg(long)]
    n: usize,
}

#[derive(Debug, Args)]
pub(crate) struct TokensArgs {
    #[command(flatten)]
    desktop: DesktopArgs,
    #[command(flatten)]
    window: WindowArgs,
    /// Also print the four control-list texts that were counted.
    #[arg(long)]
    show: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct StepArgs {
    /// The application: gnome-calculator, gedit, mousepad or soffice (Writer).
    #[arg(long)]
    app: String,
    /// How many times the 10-step session runs (after one warm-up run).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// The format the model's images are sent in: png, jpeg or webp.
    #[arg(long, default_value = "png")]
    image_format: String,
    /// Skip the Python baseline.
    #[arg(long)]
    no_baseline: bool,
    /// Sessions file (default: the shipped assets/bench/step_sessions.json).
    #[arg(long)]
    sessions: Option<PathBuf>,
    /// Keep the session logs here (default: a temporary folder, removed).
    #[arg(long)]
    log_dir: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct StepModelArgs {
    /// Sessions file.
    #[arg(long)]
    sessions: PathBuf,
    /// Which application's steps to answer with.
    #[arg(long)]
    app: String,
}

/// Prints `report` as JSON or as text.
fn print<R: Serialize + Display>(report: &R, json: bool) -> Result<(), ErrorReport> {
    match json {
        true => print_json(report),
        false => {
            outln!("{report}");
            Ok(())
        }
    }
}

pub(crate) async fn run(cmd: BenchCommand) -> Result<ExitCode, ErrorReport> {
    match cmd {
        BenchCommand::Perception(a) => {
            let b = connect(&a.desktop).await?;
            let w = pick_window(&b, &a.window).await?;
            let opts = ufo_bench::perception::PerceptionOptions {
                runs: a.runs,
                png: a.png,
                image_format: a.image_format,
                max_side: a.max_side,
                full: a.full,
            };
            print(&ufo_bench::perception::run(&b, &w, &opts).await?, a.json)?;
        }
        BenchCommand::Apps(a) => return apps(a).await,
        BenchCommand::Service(a) => {
            let opts = ufo_bench::service::ServiceOptions {
                devices: a.devices,
                commands: a.commands,
                concurrency: a.concurrency,
            };
            let report = ufo_bench::service::run(&opts).await?;
            print(&report, a.json)?;
            if report.failed_batches > 0 {
                return Ok(ExitCode::FAILURE);
            }
        }
        BenchCommand::ServiceDevices(a) => ufo_bench::service::devices(&a.url, a.n).await,
        BenchCommand::Tokens(a) => {
            let b = connect(&a.desktop).await?;
            let w = pick_window(&b, &a.window).await?;
            print(&ufo_bench::tokens::run(&b, &w, a.show).await?, a.json)?;
        }
        BenchCommand::Step(a) => {
            let opts = ufo_bench::step::StepOptions {
                app: a.app,
                runs: a.runs,
                image_format: a.image_format,
                no_baseline: a.no_baseline,
                sessions: a.sessions,
                log_dir: a.log_dir,
            };
            print(&ufo_bench::step::run(&opts).await?, a.json)?;
        }
        BenchCommand::StepModel(a) => ufo_bench::step::serve_model(&a.sessions, &a.app).await?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `ufo bench apps`.
async fn apps(a: AppsArgs) -> Result<ExitCode, ErrorReport> {
    if a.list {
        outln!("{}", ufo_bench::apps::list());
        return Ok(ExitCode::SUCCESS);
    }
    let opts = ufo_bench::apps::AppsOptions {
        apps: a.apps,
        runs: a.runs,
        settle: std::time::Duration::from_millis(a.settle_ms),
    };
    print(&ufo_bench::apps::run(&opts).await?, a.json)?;
    Ok(ExitCode::SUCCESS)
}
