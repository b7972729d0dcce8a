//! `ufo bench perception`: how long one observation takes, phase by phase
//! (`ufo bench service` is in `cmd_bench_service`).

use crate::desktop_conn::{DesktopArgs, WindowArgs, connect, pick_window};
use crate::error::CliError;
use crate::output::outln;
use crate::output::print_json;
use clap::{Args, Subcommand};
use serde::Serialize;
use std::process::ExitCode;
use ufo_core::{Diagnostic, ErrorReport};
use ufo_desktop::TreeBudget;
use ufo_desktop::annotate::AnnotationStyle;
use ufo_desktop::encode::{ImageFormat, ModelImage, PngCompression};
use ufo_desktop::observe::{PhaseTimes, observe};
use ufo_desktop::tools::ToolContext;

#[derive(Debug, Subcommand)]
pub(crate) enum BenchCommand {
    /// Time one observation as an agent step makes it: following the
    /// application, tree capture (live), filtering, screenshot, annotation and
    /// encoding the model's images.
    Perception(PerceptionArgs),
    /// Hold N simulated devices on an agent server and time command round trips.
    Service(crate::cmd_bench_service::ServiceArgs),
    /// The simulated devices of `ufo bench service` (started by it).
    #[command(hide = true)]
    ServiceDevices(crate::cmd_bench_service::DevicesArgs),
    /// Count the prompt tokens of a window's control list, ours against UFO's layout.
    Tokens(crate::bench_tokens::TokensArgs),
    /// Run a scripted 10-step session on a real application in a private
    /// desktop and time each step's phases, next to a Python agent doing the
    /// same steps.
    Step(crate::cmd_bench_step::StepArgs),
    /// The scripted model of `ufo bench step` (started by it).
    #[command(hide = true)]
    StepModel(crate::cmd_bench_step::StepModelArgs),
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

#[derive(Debug, Serialize)]
struct Stats {
    follow: f64,
    tree: f64,
    filter: f64,
    screenshot: f64,
    annotate: f64,
    encode: f64,
    /// follow + tree + filter + screenshot + annotate + encode: one full
    /// observation.
    total: f64,
}

/// Reads one phase out of a [`Stats`].
type Field = fn(&Stats) -> f64;

#[derive(Debug, Serialize)]
struct Report {
    app: String,
    window: String,
    nodes: usize,
    controls: usize,
    truncated: bool,
    runs: usize,
    png: String,
    image_format: String,
    image_bytes: usize,
    median_ms: Stats,
    min_ms: Stats,
    max_ms: Stats,
}

fn stat(times: &[PhaseTimes], f: impl Fn(&PhaseTimes) -> f64, pick: fn(&[f64]) -> f64) -> f64 {
    let mut v: Vec<f64> = times.iter().map(f).collect();
    v.sort_by(f64::total_cmp);
    (pick(&v) * 1000.0).round() / 1000.0
}

fn median(v: &[f64]) -> f64 {
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn stats(times: &[PhaseTimes], pick: fn(&[f64]) -> f64) -> Stats {
    Stats {
        follow: stat(times, |t| t.follow, pick),
        tree: stat(times, |t| t.tree, pick),
        filter: stat(times, |t| t.filter, pick),
        screenshot: stat(times, |t| t.screenshot, pick),
        annotate: stat(times, |t| t.annotate, pick),
        encode: stat(times, |t| t.encode, pick),
        total: stat(times, PhaseTimes::observation, pick),
    }
}

/// The default budget, less `n + 1` nodes: a budget the live tree has kept
/// no capture for, so the observation is a full capture (alternate `n` to
/// get one every time). For benchmarks comparing the two.
pub(crate) fn full_capture_budget(n: usize) -> TreeBudget {
    TreeBudget {
        max_nodes: TreeBudget::default().max_nodes - 1 - n,
        ..TreeBudget::default()
    }
}

pub(crate) async fn run(cmd: BenchCommand) -> Result<ExitCode, ErrorReport> {
    let args = match cmd {
        BenchCommand::Perception(a) => a,
        BenchCommand::Service(a) => return crate::cmd_bench_service::run(a).await,
        BenchCommand::ServiceDevices(a) => return crate::cmd_bench_service::devices(a).await,
        BenchCommand::Tokens(a) => return crate::bench_tokens::run(a).await,
        BenchCommand::Step(a) => return crate::cmd_bench_step::run(a).await,
        BenchCommand::StepModel(a) => return crate::cmd_bench_step::step_model(a).await,
    };
    if args.runs == 0 {
        return Err(CliError::BadOption {
            option: "--runs",
            message: "must be at least 1".into(),
            help: "pass e.g. --runs 10",
        }
        .report());
    }
    let png = match args.png.as_str() {
        "fast" => PngCompression::Fast,
        "default" => PngCompression::Default,
        other => {
            return Err(CliError::BadOption {
                option: "--png",
                message: format!("unknown PNG compression {other:?}"),
                help: "use --png fast or --png default",
            }
            .report());
        }
    };
    let format: ImageFormat = args.image_format.parse().map_err(|e: String| {
        CliError::BadOption {
            option: "--image-format",
            message: e,
            help: "use --image-format png, jpeg or webp",
        }
        .report()
    })?;
    let image = ModelImage {
        format,
        png,
        max_side: args.max_side,
        ..ModelImage::default()
    };
    let b = connect(&args.desktop).await?;
    let w = pick_window(&b, &args.window).await?;
    let style = AnnotationStyle::default();
    let mut ctx = ToolContext::for_window(w.clone(), Vec::new());
    ctx.app_window = Some(w.clone());
    if args.full {
        ctx.settings.budget = full_capture_budget(0);
    }
    // Warm-up: raises the window if covered, fills caches of the toolkit.
    let mut last = observe(&b, &mut ctx, &style, &image)
        .await
        .map_err(|e| e.report())?;
    let mut times = Vec::with_capacity(args.runs);
    for i in 0..args.runs {
        if args.full {
            ctx.settings.budget = full_capture_budget(1 + i % 2);
        }
        last = observe(&b, &mut ctx, &style, &image)
            .await
            .map_err(|e| e.report())?;
        times.push(last.times);
    }
    let min = |v: &[f64]| v.first().copied().unwrap_or(0.0);
    let max = |v: &[f64]| v.last().copied().unwrap_or(0.0);
    let report = Report {
        app: w.app_name.clone(),
        window: w.title.clone(),
        nodes: last.tree.nodes.len(),
        controls: last.controls.len(),
        truncated: last.tree.truncated,
        runs: args.runs,
        png: args.png.clone(),
        image_format: args.image_format.clone(),
        image_bytes: last.images.marked.bytes.len(),
        median_ms: stats(&times, median),
        min_ms: stats(&times, min),
        max_ms: stats(&times, max),
    };
    if args.json {
        print_json(&report)?;
    } else {
        outln!(
            "{} ({:?}): {} nodes, {} controls, {} runs",
            report.app,
            report.window,
            report.nodes,
            report.controls,
            report.runs
        );
        outln!(
            "{:<11} {:>9} {:>9} {:>9}",
            "phase (ms)",
            "median",
            "min",
            "max"
        );
        let rows: [(&str, Field); 7] = [
            ("follow", |s| s.follow),
            ("tree", |s| s.tree),
            ("filter", |s| s.filter),
            ("screenshot", |s| s.screenshot),
            ("annotate", |s| s.annotate),
            ("encode", |s| s.encode),
            ("total", |s| s.total),
        ];
        for (name, f) in rows {
            outln!(
                "{name:<11} {:>9.2} {:>9.2} {:>9.2}",
                f(&report.median_ms),
                f(&report.min_ms),
                f(&report.max_ms)
            );
        }
        outln!(
            "(total = all phases; the annotated {} image is {} bytes)",
            report.image_format,
            report.image_bytes
        );
    }
    Ok(ExitCode::SUCCESS)
}
