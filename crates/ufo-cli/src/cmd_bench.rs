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
use ufo_desktop::encode::PngCompression;
use ufo_desktop::filter::FilterConfig;
use ufo_desktop::observe::{PhaseTimes, observe};

#[derive(Debug, Subcommand)]
pub(crate) enum BenchCommand {
    /// Time tree capture, filtering, screenshot, annotation and PNG encoding.
    Perception(PerceptionArgs),
    /// Hold N simulated devices on an agent server and time command round trips.
    Service(crate::cmd_bench_service::ServiceArgs),
    /// The simulated devices of `ufo bench service` (started by it).
    #[command(hide = true)]
    ServiceDevices(crate::cmd_bench_service::DevicesArgs),
    /// Count the prompt tokens of a window's control list, ours against UFO's layout.
    Tokens(crate::bench_tokens::TokensArgs),
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
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Serialize)]
struct Stats {
    tree: f64,
    filter: f64,
    screenshot: f64,
    annotate: f64,
    encode: f64,
    /// tree + filter + screenshot + annotate: one full observation.
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
    png_bytes: usize,
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
        tree: stat(times, |t| t.tree, pick),
        filter: stat(times, |t| t.filter, pick),
        screenshot: stat(times, |t| t.screenshot, pick),
        annotate: stat(times, |t| t.annotate, pick),
        encode: stat(times, |t| t.encode, pick),
        total: stat(times, PhaseTimes::observation, pick),
    }
}

pub(crate) async fn run(cmd: BenchCommand) -> Result<ExitCode, ErrorReport> {
    let args = match cmd {
        BenchCommand::Perception(a) => a,
        BenchCommand::Service(a) => return crate::cmd_bench_service::run(a).await,
        BenchCommand::ServiceDevices(a) => return crate::cmd_bench_service::devices(a).await,
        BenchCommand::Tokens(a) => return crate::bench_tokens::run(a).await,
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
    let b = connect(&args.desktop).await?;
    let w = pick_window(&b, &args.window).await?;
    let (budget, filter, style) = (
        TreeBudget::default(),
        FilterConfig::default(),
        AnnotationStyle::default(),
    );
    // Warm-up: raises the window if covered, fills caches of the toolkit.
    let mut last = observe(&b, &w, &budget, &filter, &style, png)
        .await
        .map_err(|e| e.report())?;
    let mut times = Vec::with_capacity(args.runs);
    for _ in 0..args.runs {
        last = observe(&b, &w, &budget, &filter, &style, png)
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
        png_bytes: last.annotated_png.len(),
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
        let rows: [(&str, Field); 6] = [
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
            "(total = tree + filter + screenshot + annotate; encode is separate, {} bytes)",
            report.png_bytes
        );
    }
    Ok(ExitCode::SUCCESS)
}
