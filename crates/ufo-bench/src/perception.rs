//! `ufo bench perception`: how long one observation takes, phase by phase,
//! as an agent step makes it — following the application, the tree (live),
//! filtering, the screenshot, annotation and encoding the model's images.

use crate::error::bad;
use serde::Serialize;
use std::fmt;
use ufo_core::{Diagnostic, ErrorReport, WindowInfo};
use ufo_desktop::annotate::AnnotationStyle;
use ufo_desktop::encode::{ImageFormat, ModelImage, PngCompression};
use ufo_desktop::observe::{ModelImages, Observation, ObserveOptions, PhaseTimes, observe};
use ufo_desktop::tools::ToolContext;
use ufo_desktop::{Backend, TreeBudget};

/// What `ufo bench perception` is asked.
#[derive(Debug, Clone)]
pub struct PerceptionOptions {
    /// How many observations to time (after one warm-up).
    pub runs: usize,
    /// PNG compression of the encoded image: `fast` or `default`.
    pub png: String,
    /// The format the model's images are encoded in: `png`, `jpeg` or `webp`.
    pub image_format: String,
    /// Scale the model's images down to at most this many pixels a side.
    pub max_side: Option<u32>,
    /// Capture the whole tree every time instead of the live tree.
    pub full: bool,
}

/// Milliseconds per phase (one statistic of all runs).
#[derive(Debug, Clone, Serialize)]
pub struct Stats {
    /// Following the application to its current window.
    pub follow: f64,
    /// The tree capture.
    pub tree: f64,
    /// Filtering and labelling controls.
    pub filter: f64,
    /// The window screenshot.
    pub screenshot: f64,
    /// Fitting and set-of-marks annotation.
    pub annotate: f64,
    /// Encoding the model's images.
    pub encode: f64,
    /// follow + tree + filter + screenshot + annotate + encode: one full
    /// observation.
    pub total: f64,
}

/// Reads one phase out of a [`Stats`].
type Field = fn(&Stats) -> f64;

/// The report of `ufo bench perception` (its `--json` shape).
#[derive(Debug, Clone, Serialize)]
pub struct PerceptionReport {
    /// The application observed.
    pub app: String,
    /// Its window's title.
    pub window: String,
    /// Nodes of the last capture.
    pub nodes: usize,
    /// Controls labelled in the last observation.
    pub controls: usize,
    /// Whether the last capture hit a budget.
    pub truncated: bool,
    /// Timed observations.
    pub runs: usize,
    /// PNG compression used.
    pub png: String,
    /// The model images' format.
    pub image_format: String,
    /// Size of the last annotated image, encoded.
    pub image_bytes: usize,
    /// Medians per phase.
    pub median_ms: Stats,
    /// Minima per phase.
    pub min_ms: Stats,
    /// Maxima per phase.
    pub max_ms: Stats,
}

fn stat(times: &[PhaseTimes], f: impl Fn(&PhaseTimes) -> f64, pick: fn(&[f64]) -> f64) -> f64 {
    let mut v: Vec<f64> = times.iter().map(f).collect();
    v.sort_by(f64::total_cmp);
    crate::round(pick(&v), 3)
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
pub fn full_capture_budget(n: usize) -> TreeBudget {
    TreeBudget {
        max_nodes: TreeBudget::default().max_nodes - 1 - n,
        ..TreeBudget::default()
    }
}

/// The model-image settings of `opts`, validated.
fn model_image(opts: &PerceptionOptions) -> Result<ModelImage, ErrorReport> {
    let png = match opts.png.as_str() {
        "fast" => PngCompression::Fast,
        "default" => PngCompression::Default,
        other => {
            return Err(bad(
                "--png",
                format!("unknown PNG compression {other:?}"),
                "use --png fast or --png default",
            ));
        }
    };
    let format: ImageFormat = opts
        .image_format
        .parse()
        .map_err(|e: String| bad("--image-format", e, "use --image-format png, jpeg or webp"))?;
    Ok(ModelImage {
        format,
        png,
        max_side: opts.max_side,
        ..ModelImage::default()
    })
}

/// Observes `window` once to warm up, then `opts.runs` times, and reports
/// the phases.
pub async fn run(
    backend: &dyn Backend,
    window: &WindowInfo,
    opts: &PerceptionOptions,
) -> Result<PerceptionReport, ErrorReport> {
    if opts.runs == 0 {
        return Err(bad(
            "--runs",
            "must be at least 1".into(),
            "pass e.g. --runs 10",
        ));
    }
    let image = model_image(opts)?;
    let style = AnnotationStyle::default();
    let mut ctx = ToolContext::for_window(window.clone(), Vec::new());
    ctx.app_window = Some(window.clone());
    if opts.full {
        ctx.settings.budget = full_capture_budget(0);
    }
    // Warm-up: raises the window if covered, fills caches of the toolkit.
    let (mut last, mut images) = observe_once(backend, &mut ctx, &style, &image).await?;
    let mut times = Vec::with_capacity(opts.runs);
    for i in 0..opts.runs {
        if opts.full {
            ctx.settings.budget = full_capture_budget(1 + i % 2);
        }
        (last, images) = observe_once(backend, &mut ctx, &style, &image).await?;
        times.push(last.times);
    }
    let min = |v: &[f64]| v.first().copied().unwrap_or(0.0);
    let max = |v: &[f64]| v.last().copied().unwrap_or(0.0);
    Ok(PerceptionReport {
        app: window.app_name.clone(),
        window: window.title.clone(),
        nodes: last.tree.nodes.len(),
        controls: last.controls.len(),
        truncated: last.tree.truncated,
        runs: opts.runs,
        png: opts.png.clone(),
        image_format: opts.image_format.clone(),
        image_bytes: images.marked.bytes.len(),
        median_ms: stats(&times, crate::median_sorted),
        min_ms: stats(&times, min),
        max_ms: stats(&times, max),
    })
}

/// One observation as a step makes it, the model's images included.
pub(crate) async fn observe_once(
    backend: &dyn Backend,
    ctx: &mut ToolContext,
    style: &AnnotationStyle,
    image: &ModelImage,
) -> Result<(Observation, ModelImages), ErrorReport> {
    let mut o = observe(backend, ctx, ObserveOptions::default())
        .await
        .map_err(|e| e.report())?;
    let images = o.model_images(style, image)?;
    Ok((o, images))
}

impl fmt::Display for PerceptionReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} ({:?}): {} nodes, {} controls, {} runs",
            self.app, self.window, self.nodes, self.controls, self.runs
        )?;
        writeln!(
            f,
            "{:<11} {:>9} {:>9} {:>9}",
            "phase (ms)", "median", "min", "max"
        )?;
        let rows: [(&str, Field); 7] = [
            ("follow", |s| s.follow),
            ("tree", |s| s.tree),
            ("filter", |s| s.filter),
            ("screenshot", |s| s.screenshot),
            ("annotate", |s| s.annotate),
            ("encode", |s| s.encode),
            ("total", |s| s.total),
        ];
        for (name, get) in rows {
            writeln!(
                f,
                "{name:<11} {:>9.2} {:>9.2} {:>9.2}",
                get(&self.median_ms),
                get(&self.min_ms),
                get(&self.max_ms)
            )?;
        }
        write!(
            f,
            "(total = all phases; the annotated {} image is {} bytes)",
            self.image_format, self.image_bytes
        )
    }
}
