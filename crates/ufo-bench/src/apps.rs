//! `ufo bench apps`: per application, how long ufo takes to observe its
//! window's controls — a full capture, and a live re-observation of the
//! unchanged window — against a careful pyatspi walk of the same window, one
//! that prunes as ufo does and reads what it reads (a hidden child of a
//! showing element no further than its states; `scripts/bench/apps_walk.py`,
//! embedded), in the same run, on
//! the same private desktop, with the application in the same state.
//!
//! The benchmark starts its own private headless desktop, writes the files
//! the applications open (a text, a PDF, a folder, a web page), and then,
//! one application after another: launches it, waits for its window, times
//! `runs` observations with a full capture forced, each followed by one walk
//! (the two sides alternate, so the machine's slow moments fall on both:
//! one walk of zenity's list took 16 to 38 ms within a minute), then `runs`
//! with the live tree, and ends the application. The application is left
//! idle for [`AppsOptions::settle`] before each timed observation and walk,
//! as it is between two steps of an agent: a walk started within some 20 ms
//! of the previous one took twice as long (mousepad: 50 ms back to back
//! against 25 ms after a pause of 50 ms or more, `scripts/bench/apps_walk.py`
//! alone), while ufo's observation was no faster after a pause, so timing
//! them back to back flattered ufo up to twofold on GTK 3 and Firefox. An
//! observation of the controls is what `get_app_window_controls_target_info`
//! does: following the application to its current window, the tree, and
//! filtering and labelling its controls (the screenshot an agent step takes
//! as well is not counted: the walk takes none). Applications that are not
//! installed are skipped with a line saying so.

mod catalog;
mod walker;

pub use catalog::{APPS, AppSpec};

use crate::error::{bad, write_err};
use crate::perception::full_capture_budget;
use crate::{median, round};
use serde::Serialize;
use std::collections::HashSet;
use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant};
use ufo_core::{Diagnostic, ErrorReport, WindowInfo};
use ufo_desktop::observe::{ObserveOptions, PhaseTimes, observe};
use ufo_desktop::tools::ToolContext;
use ufo_desktop::{Backend, TreeBudget};
use ufo_desktop_atspi::{AtspiBackend, DesktopOptions, DesktopTarget, HeadlessDesktop};
use walker::Walker;

const WALK: &str = include_str!("../../../scripts/bench/apps_walk.py");

/// The goals: a full observation at least this many times faster than the
/// walk on every application…
pub const FULL_GOAL: f64 = 6.0;
/// …and a live re-observation at least this many times.
pub const LIVE_GOAL: f64 = 20.0;

/// What `ufo bench apps` is asked.
#[derive(Debug, Clone)]
pub struct AppsOptions {
    /// Keys of [`APPS`] to run; all of them when empty.
    pub apps: Vec<String>,
    /// Observations and walks timed per application (after one warm-up each).
    pub runs: usize,
    /// How long the application is left idle before each timed observation
    /// and walk (see the module docs); zero times them back to back.
    pub settle: Duration,
}

/// The default of [`AppsOptions::settle`], in milliseconds.
pub const SETTLE_MS: u64 = 200;

/// One application's figures (medians, milliseconds).
#[derive(Debug, Clone, Serialize)]
pub struct AppRow {
    /// Its key in [`APPS`].
    pub app: String,
    /// Its toolkit.
    pub toolkit: String,
    /// The window observed (the one a person works in).
    pub window: String,
    /// Nodes of ufo's full capture.
    pub nodes: usize,
    /// Nodes the walk read.
    pub walk_nodes: usize,
    /// Controls listed.
    pub controls: usize,
    /// Whether ufo's capture hit a budget.
    pub truncated: bool,
    /// Which budget, when it did.
    pub truncation: Option<String>,
    /// A full observation of the controls: follow + full capture + filter.
    pub full_ms: f64,
    /// The tree part of it.
    pub full_tree_ms: f64,
    /// A live re-observation of the unchanged window.
    pub live_ms: f64,
    /// The tree part of it.
    pub live_tree_ms: f64,
    /// The pyatspi walk.
    pub walk_ms: f64,
    /// `walk_ms / full_ms`.
    pub full_ratio: f64,
    /// `walk_ms / live_ms`.
    pub live_ratio: f64,
}

/// An application that was not measured, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    /// Its key.
    pub app: String,
    /// Why.
    pub reason: String,
}

/// The report of `ufo bench apps` (its `--json` shape).
#[derive(Debug, Clone, Serialize)]
pub struct AppsReport {
    /// When it ran (UTC).
    pub date: String,
    /// What it ran on.
    pub machine: String,
    /// Timed runs per application and side.
    pub runs: usize,
    /// Milliseconds the application was left idle before each timed
    /// observation and walk.
    pub settle_ms: u64,
    /// The applications measured.
    pub apps: Vec<AppRow>,
    /// Those that were not.
    pub skipped: Vec<Skipped>,
    /// Each goal missed, in words; empty when all were met.
    pub missed: Vec<String>,
}

/// Runs the benchmark (see the module docs).
pub async fn run(opts: &AppsOptions) -> Result<AppsReport, ErrorReport> {
    if opts.runs == 0 {
        return Err(bad(
            "--runs",
            "must be at least 1".into(),
            "pass e.g. --runs 10",
        ));
    }
    let selected = select(&opts.apps)?;
    let work = std::env::temp_dir().join(format!("ufo-bench-apps-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| write_err(&work, e))?;
    let outcome = in_desktop(&selected, opts.runs, opts.settle, &work).await;
    let _ = std::fs::remove_dir_all(&work);
    let (apps, skipped) = outcome?;
    let missed = missed_goals(&apps);
    Ok(AppsReport {
        date: today(),
        machine: machine(),
        runs: opts.runs,
        settle_ms: u64::try_from(opts.settle.as_millis()).unwrap_or(u64::MAX),
        apps,
        skipped,
        missed,
    })
}

/// The applications `keys` name (all when empty); an unknown key is an error.
fn select(keys: &[String]) -> Result<Vec<AppSpec>, ErrorReport> {
    if keys.is_empty() {
        return Ok(APPS.to_vec());
    }
    keys.iter()
        .map(|k| {
            APPS.iter()
                .find(|a| a.key == k.as_str())
                .copied()
                .ok_or_else(|| {
                    bad(
                        "--apps",
                        format!(
                            "unknown application {k:?}; known: {}",
                            APPS.iter().map(|a| a.key).collect::<Vec<_>>().join(", ")
                        ),
                        "see `ufo bench apps --list`",
                    )
                })
        })
        .collect()
}

/// Starts the desktop, measures each application in it, stops it.
async fn in_desktop(
    selected: &[AppSpec],
    runs: usize,
    settle: Duration,
    work: &Path,
) -> Result<(Vec<AppRow>, Vec<Skipped>), ErrorReport> {
    ufo_testkit::apps::write_fixtures(work).map_err(|e| write_err(work, e))?;
    let script = work.join("apps_walk.py");
    std::fs::write(&script, WALK).map_err(|e| write_err(&script, e))?;
    eprintln!("Starting a private headless desktop...");
    let desktop = HeadlessDesktop::start(DesktopOptions {
        name: format!("bench-apps-{}", std::process::id()),
        stop_with_process: true,
        home: Some(work.join("home")),
        ..DesktopOptions::default()
    })
    .await
    .map_err(|e| e.report())?;
    let outcome = async {
        let backend = AtspiBackend::connect(&DesktopTarget::from_private(&desktop))
            .await
            .map_err(|e| e.report())?;
        let mut rows = Vec::new();
        let mut skipped = Vec::new();
        for spec in selected {
            if !spec.installed() {
                let reason = format!("not installed (Debian package {})", spec.package);
                eprintln!("skipping {}: {reason}", spec.key);
                skipped.push(Skipped {
                    app: spec.key.into(),
                    reason,
                });
                continue;
            }
            eprintln!("{}...", spec.key);
            let bench = AppBench {
                desktop: &desktop,
                backend: &backend,
                script: &script,
                work,
                runs,
                settle,
            };
            match bench.app(spec).await {
                Ok(row) => rows.push(row),
                Err(e) => {
                    eprintln!("skipping {}: {}", spec.key, e.message);
                    skipped.push(Skipped {
                        app: spec.key.into(),
                        reason: e.message,
                    });
                }
            }
        }
        Ok((rows, skipped))
    }
    .await;
    if let Err(e) = desktop.stop() {
        eprintln!("warning: could not stop the bench desktop: {e}");
    }
    outcome
}

/// What measuring one application works with.
struct AppBench<'a> {
    desktop: &'a HeadlessDesktop,
    backend: &'a AtspiBackend,
    script: &'a Path,
    work: &'a Path,
    runs: usize,
    settle: Duration,
}

impl AppBench<'_> {
    /// Launches `spec`, measures it, and ends every process it started.
    async fn app(&self, spec: &AppSpec) -> Result<AppRow, ErrorReport> {
        let before: HashSet<u32> = self.desktop.processes().into_iter().collect();
        let outcome = async {
            let launched = self
                .desktop
                .launch(&spec.command(self.work), Duration::from_secs(90))
                .await
                .map_err(|e| e.report())?;
            self.wait_window(&launched.app_name, launched.pid).await?;
            // Done starting (documents loaded and laid out): its processes
            // stop using the CPU. Its window then, in case it changed.
            let new = || -> HashSet<u32> {
                self.desktop
                    .processes()
                    .into_iter()
                    .filter(|p| !before.contains(p))
                    .collect()
            };
            let waited = ufo_desktop_atspi::headless::quiet::until_quiet(new).await;
            tracing::debug!(app = spec.key, ms = waited.as_millis() as u64, "quiet");
            let window = self.wait_window(&launched.app_name, launched.pid).await?;
            self.measure(spec, window).await
        }
        .await;
        end_processes(self.desktop, &before).await;
        outcome
    }

    /// The application's window once listed (at most 60 s), after its
    /// first layout has settled.
    async fn wait_window(&self, app: &str, pid: u32) -> Result<WindowInfo, ErrorReport> {
        let start = Instant::now();
        loop {
            let windows = self.backend.list_windows().await.map_err(|e| e.report())?;
            let mut own: Vec<WindowInfo> = windows
                .into_iter()
                .filter(|w| w.pid == Some(pid) || w.app_name == app)
                .collect();
            own.sort_by_key(|w| !w.focused);
            if let Some(w) = own.into_iter().next() {
                // Documents load and lay out after the window maps.
                tokio::time::sleep(Duration::from_secs(1)).await;
                return Ok(w);
            }
            if start.elapsed() > Duration::from_secs(60) {
                return Err(bad(
                    "--apps",
                    format!("{app} shows no window after 60 s"),
                    "check that it starts: ufo desktop launch",
                ));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Times ufo's full observations, each followed by one walk, then its
    /// live ones.
    async fn measure(&self, spec: &AppSpec, window: WindowInfo) -> Result<AppRow, ErrorReport> {
        let b: &dyn Backend = self.backend;
        let mut ctx = ToolContext::for_window(window.clone(), Vec::new());
        ctx.app_window = Some(window);
        // Full captures: a budget the live tree has kept nothing for, a
        // different one every time.
        ctx.settings.budget = full_capture_budget(0);
        let first = observe(b, &mut ctx, ObserveOptions::default())
            .await
            .map_err(|e| e.report())?;
        let mut walker = Walker::start(self.desktop, self.script, &first.tree.window).await?;
        let mut full = Vec::with_capacity(self.runs);
        let mut walks = Vec::with_capacity(self.runs);
        let mut last = None;
        for i in 0..self.runs {
            ctx.settings.budget = full_capture_budget(1 + i % 2);
            tokio::time::sleep(self.settle).await;
            let o = observe(b, &mut ctx, ObserveOptions::default())
                .await
                .map_err(|e| e.report())?;
            full.push(o.times);
            last = Some(o);
            tokio::time::sleep(self.settle).await;
            walks.push(walker.walk().await?);
        }
        let walker_nodes = walker.nodes;
        drop(walker);
        let last = last.ok_or_else(|| bad("--runs", "no run".into(), "pass e.g. --runs 10"))?;
        // Live: one observation keeps the capture, the next ones reuse it.
        ctx.settings.budget = TreeBudget::default();
        observe(b, &mut ctx, ObserveOptions::default())
            .await
            .map_err(|e| e.report())?;
        let mut live = Vec::with_capacity(self.runs);
        for _ in 0..self.runs {
            tokio::time::sleep(self.settle).await;
            let o = observe(b, &mut ctx, ObserveOptions::default())
                .await
                .map_err(|e| e.report())?;
            live.push(o.times);
        }
        let walk_ms = median(walks);
        let full_ms = median(full.iter().map(PhaseTimes::controls).collect());
        let live_ms = median(live.iter().map(PhaseTimes::controls).collect());
        Ok(AppRow {
            app: spec.key.into(),
            toolkit: spec.toolkit.into(),
            window: last.tree.window.title.clone(),
            nodes: last.tree.nodes.len(),
            walk_nodes: walker_nodes,
            controls: last.controls.len(),
            truncated: last.tree.truncated,
            truncation: last.tree.truncation.clone(),
            full_ms: round(full_ms, 2),
            full_tree_ms: round(median(full.iter().map(|t| t.tree).collect()), 2),
            live_ms: round(live_ms, 2),
            live_tree_ms: round(median(live.iter().map(|t| t.tree).collect()), 2),
            walk_ms: round(walk_ms, 2),
            full_ratio: ratio(walk_ms, full_ms),
            live_ratio: ratio(walk_ms, live_ms),
        })
    }
}

/// `walk / ufo`, one decimal; 0 when ufo took no measurable time.
fn ratio(walk: f64, ufo: f64) -> f64 {
    match ufo > 0.0 {
        true => round(walk / ufo, 1),
        false => 0.0,
    }
}

/// Ends the desktop's processes that are not in `before` (the application
/// and what it started): SIGTERM, then SIGKILL after 3 s.
async fn end_processes(desktop: &HeadlessDesktop, before: &HashSet<u32>) {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let new = |d: &HeadlessDesktop| -> Vec<u32> {
        d.processes()
            .into_iter()
            .filter(|p| !before.contains(p))
            .collect()
    };
    for p in new(desktop) {
        let _ = kill(Pid::from_raw(p as i32), Signal::SIGTERM);
    }
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(3) && !new(desktop).is_empty() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for p in new(desktop) {
        let _ = kill(Pid::from_raw(p as i32), Signal::SIGKILL);
    }
}

/// Each goal an application missed, in words.
fn missed_goals(rows: &[AppRow]) -> Vec<String> {
    let mut missed = Vec::new();
    for r in rows {
        if r.full_ratio < FULL_GOAL {
            missed.push(format!(
                "{}: full observation {}× the walk (goal {FULL_GOAL}×)",
                r.app, r.full_ratio
            ));
        }
        if r.live_ratio < LIVE_GOAL {
            missed.push(format!(
                "{}: live re-observation {}× the walk (goal {LIVE_GOAL}×)",
                r.app, r.live_ratio
            ));
        }
        if r.app == "gedit" && r.truncated {
            missed.push(format!(
                "gedit: truncated ({})",
                r.truncation.as_deref().unwrap_or("a budget")
            ));
        }
    }
    missed
}

/// Today's date (UTC), `YYYY-MM-DD`.
fn today() -> String {
    let now = time::OffsetDateTime::now_utc();
    format!(
        "{:04}-{:02}-{:02}",
        now.year(),
        u8::from(now.month()),
        now.day()
    )
}

/// The OS, CPU, cores and memory, in one line.
fn machine() -> String {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let os = read("/etc/os-release")
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|s| s.trim_matches('"').to_owned())
        .unwrap_or_else(|| "Linux".into());
    let cpu = read("/proc/cpuinfo")
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|s| s.trim_start_matches([' ', '\t', ':']).to_owned())
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem_gib = read("/proc/meminfo")
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0 / 1024.0);
    format!("{os}, {cores} cores ({cpu}), {mem_gib:.0} GiB")
}

impl fmt::Display for AppsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}; {}; medians in ms over {} runs, each after {} ms idle",
            self.date, self.machine, self.runs, self.settle_ms
        )?;
        writeln!(
            f,
            "| app | toolkit | window | nodes (ufo / walk) | controls | truncated | ufo full | ufo live | pyatspi walk | full × | live × |"
        )?;
        writeln!(f, "|---|---|---|---|---|---|---|---|---|---|---|")?;
        for r in &self.apps {
            writeln!(
                f,
                "| {} | {} | {} | {} / {} | {} | {} | {:.1} | {:.2} | {:.1} | {:.1}× | {:.0}× |",
                r.app,
                r.toolkit,
                r.window.replace('|', "\\|"),
                r.nodes,
                r.walk_nodes,
                r.controls,
                if r.truncated { "yes" } else { "no" },
                r.full_ms,
                r.live_ms,
                r.walk_ms,
                r.full_ratio,
                r.live_ratio
            )?;
        }
        for s in &self.skipped {
            writeln!(f, "skipped {}: {}", s.app, s.reason)?;
        }
        match self.missed.is_empty() {
            true => write!(
                f,
                "goals met: full ≥ {FULL_GOAL}×, live ≥ {LIVE_GOAL}× the walk on every application; gedit not truncated"
            ),
            false => write!(f, "goals missed:\n  {}", self.missed.join("\n  ")),
        }
    }
}

/// One line per application: its key, toolkit, and whether it is installed.
pub fn list() -> String {
    APPS.iter()
        .map(|a| {
            format!(
                "{:<20} {:<24} {}",
                a.key,
                a.toolkit,
                match a.installed() {
                    true => "installed".to_owned(),
                    false => format!("missing (Debian package {})", a.package),
                }
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
