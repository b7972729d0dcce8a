//! `ufo bench step`: what one agent step costs besides the model, on a real
//! application, next to a Python agent doing the same steps.
//!
//! The run starts its own private headless desktop and the application,
//! then runs a scripted 10-step AppAgent session (clicks, typing, a menu:
//! `assets/bench/step_sessions.json`) `--runs` times through the real
//! session — local dispatcher, live tree, event-driven settling, prompts,
//! logs on disk — against the scripted model of `ufo-testkit`, served over
//! HTTP by a child process (`ufo bench step-model`, [`serve_model`]), so
//! that the model costs about nothing and the child's memory is not this
//! process's. Per-phase medians come from
//! the steps' own records. In the same run, the Python baseline
//! (`scripts/bench/step_baseline.py`, embedded) does the same steps the way
//! Python agents do: a pyatspi walk, a PIL screenshot, set-of-marks drawing,
//! PNG + base64, and the action with xdotool. Then the window is observed
//! again unchanged (live tree against a full capture), its controls' prompt
//! tokens are counted against UFO's layout, and this process's peak memory
//! is read.

use crate::error::{BenchError, bad, current_exe, write_err};
use crate::median;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};
use ufo_core::{Diagnostic, ErrorReport};
use ufo_desktop::Backend;
use ufo_desktop::annotate::AnnotationStyle;
use ufo_desktop::encode::{ImageFormat, ModelImage};
use ufo_desktop::tools::{Tool, ToolContext};
use ufo_desktop_atspi::{AtspiBackend, DesktopOptions, DesktopTarget, HeadlessDesktop};
use ufo_testkit::scripted::{Reply, ScriptedModel, ScriptedRequest, reply};

const SESSIONS: &str = include_str!("../../../assets/bench/step_sessions.json");
const BASELINE: &str = include_str!("../../../scripts/bench/step_baseline.py");

/// What `ufo bench step` is asked.
#[derive(Debug, Clone)]
pub struct StepOptions {
    /// The application: gnome-calculator, gedit, mousepad or soffice (Writer).
    pub app: String,
    /// How many times the 10-step session runs (after one warm-up run).
    pub runs: usize,
    /// The format the model's images are sent in: png, jpeg or webp.
    pub image_format: String,
    /// Skip the Python baseline.
    pub no_baseline: bool,
    /// Sessions file (default: the shipped assets/bench/step_sessions.json).
    pub sessions: Option<PathBuf>,
    /// Keep the session logs here (default: a temporary folder, removed).
    pub log_dir: Option<PathBuf>,
}

/// One application's scripted session.
#[derive(Debug, Clone, Deserialize)]
struct Session {
    launch: Vec<String>,
    app_name: String,
    steps: Vec<Step>,
}

/// One scripted step.
#[derive(Debug, Clone, Deserialize)]
struct Step {
    kind: String,
    #[serde(default)]
    name: String,
    #[serde(default, rename = "type")]
    control_type: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    keys: String,
}

fn load_sessions(path: Option<&Path>) -> Result<BTreeMap<String, Session>, ErrorReport> {
    let text = match path {
        Some(p) => std::fs::read_to_string(p).map_err(|e| {
            BenchError::Read {
                what: p.display().to_string(),
                message: e.to_string(),
                source: Some(e.into()),
                help: "pass a readable sessions file with --sessions",
            }
            .report()
        })?,
        None => SESSIONS.to_owned(),
    };
    serde_json::from_str(&text).map_err(|e| {
        bad(
            "--sessions",
            format!("not a sessions file: {e}"),
            "see assets/bench/step_sessions.json for the format",
        )
    })
}

// ---------------------------------------------------------------------------
// The scripted model (child process).

/// The controls listed in an AppAgent prompt: `(id, name, type)`.
fn listed_controls(req: &ScriptedRequest) -> Vec<(String, String, String)> {
    req.list_after("<Available Control Item:>")
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().trim().to_owned();
            (s("id"), s("name"), s("type"))
        })
        .collect()
}

/// The reply for `step` given the request's controls.
fn scripted_reply(step: &Step, req: &ScriptedRequest, last: bool) -> String {
    let controls = listed_controls(req);
    let find = || {
        controls
            .iter()
            .find(|(_, n, t)| {
                (step.name.is_empty() || *n == step.name)
                    && (step.control_type.is_empty() || *t == step.control_type)
            })
            .or_else(|| controls.iter().find(|(_, n, _)| *n == step.name))
            .map(|(id, n, _)| (id.clone(), n.clone()))
    };
    let status = if last { "FINISH" } else { "CONTINUE" };
    let (tool, arguments) = match step.kind.as_str() {
        "click" => match find() {
            Some((id, name)) => (Tool::ClickInput, json!({"id": id, "name": name})),
            None => (Tool::Wait, json!({"seconds": 0})),
        },
        "type" => match find() {
            Some((id, name)) => (
                Tool::SetEditText,
                json!({"id": id, "name": name, "text": step.text, "clear_current_text": false}),
            ),
            None => (Tool::Wait, json!({"seconds": 0})),
        },
        // Keys go to the window; the id names a control without focusing
        // it (UFO's keyboard_input always names one).
        _ => match find().or_else(|| controls.first().map(|(id, n, _)| (id.clone(), n.clone()))) {
            Some((id, name)) => (
                Tool::KeyboardInput,
                json!({"id": id, "name": name, "keys": step.keys, "control_focus": false}),
            ),
            None => (Tool::Wait, json!({"seconds": 0})),
        },
    };
    json!({
        "observation": "The window is as expected.",
        "thought": format!("Next: {} {}", step.kind, step.name),
        "action": {"function": tool.name(), "arguments": arguments, "status": status},
        "plan": [],
        "comment": "",
    })
    .to_string()
}

/// The scripted model of `ufo bench step` (the hidden `ufo bench
/// step-model`, started by [`run`]): `ufo-testkit`'s scripted model answering
/// `app`'s session of `sessions` over and over, its port printed on stdout,
/// until stdin closes.
pub async fn serve_model(sessions: &Path, app: &str) -> Result<(), ErrorReport> {
    let sessions = load_sessions(Some(sessions))?;
    let session = sessions
        .get(app)
        .cloned()
        .ok_or_else(|| bad("--app", format!("no session for {app:?}"), "see --sessions"))?;
    let n = session.steps.len();
    let replies: Vec<Reply> = session
        .steps
        .into_iter()
        .enumerate()
        .map(|(i, step)| reply(move |req| scripted_reply(&step, req, i + 1 == n)))
        .collect();
    let model = ScriptedModel::try_start(replies, true)
        .await
        .map_err(|e| bad("--app", format!("cannot listen: {e}"), "free a port"))?;
    println!("{}", model.port());
    // Stops when the parent closes stdin.
    let mut line = String::new();
    let _ = BufReader::new(tokio::io::stdin())
        .read_line(&mut line)
        .await;
    Ok(())
}

// ---------------------------------------------------------------------------
// The benchmark.

/// Nobody is at a terminal: confirmations are declined, questions go
/// unanswered, nothing is printed.
struct Silent;

#[async_trait::async_trait]
impl ufo_session::UserIo for Silent {
    async fn confirm(&self, _prompt: &str) -> bool {
        false
    }
    async fn ask(&self, _question: &str) -> Option<String> {
        None
    }
    async fn new_request(&self, _prompt: &str) -> Option<String> {
        None
    }
    fn show(&self, _line: &str) {}
}

/// Medians of one side, in milliseconds.
#[derive(Debug, Default, Clone, Serialize)]
pub struct UfoSide {
    /// Timed steps.
    pub steps: usize,
    /// Actions that did not succeed.
    pub failed_actions: usize,
    /// Timed sessions that did not end in FINISH.
    pub unfinished_sessions: usize,
    /// Observation (the step's data collection).
    pub data_collection: f64,
    /// Prompt, the loopback model round trip, parsing.
    pub llm_interaction: f64,
    /// The action and its settle.
    pub action_execution: f64,
    /// Memory and log.
    pub memory_update: f64,
    /// Session wall time divided by its steps (logs, session overhead and
    /// the local model round trip included).
    pub wall_per_step: f64,
    /// Everything but the model: the median of the steps' summed phases
    /// (the local model's round trip counted in, ~1 ms).
    pub non_model_per_step: f64,
}

/// The report of `ufo bench step` (its `--json` shape).
#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    /// The application's key in the sessions file.
    pub app: String,
    /// Its window's title.
    pub window: String,
    /// Timed runs.
    pub runs: usize,
    /// The model images' format.
    pub image_format: String,
    /// ufo-rs's side.
    pub ufo: UfoSide,
    /// The Python agent's report, as it printed it.
    pub python: Option<Value>,
    /// Python step median ÷ ufo non-model step median.
    pub speedup: Option<f64>,
    /// A second observation of the unchanged window with the live tree.
    pub observe_unchanged_ms: f64,
    /// The same with a full capture forced.
    pub observe_full_ms: f64,
    /// Prompt tokens of the window's controls, ours against UFO's layouts.
    pub tokens: crate::tokens::TokenComparison,
    /// This process's RSS after the runs (KiB).
    pub rss_kib: u64,
    /// This process's peak RSS (KiB), before the tokenizer is loaded.
    pub peak_rss_kib: u64,
}

/// Median rounded to two decimals.
fn median2(v: Vec<f64>) -> f64 {
    crate::round(median(v), 2)
}

/// Runs the benchmark in a private desktop of its own (see the module docs).
pub async fn run(opts: &StepOptions) -> Result<StepReport, ErrorReport> {
    if opts.runs == 0 {
        return Err(bad(
            "--runs",
            "must be at least 1".into(),
            "pass e.g. --runs 3",
        ));
    }
    let format: ImageFormat = opts
        .image_format
        .parse()
        .map_err(|e: String| bad("--image-format", e, "use --image-format png, jpeg or webp"))?;
    let sessions = load_sessions(opts.sessions.as_deref())?;
    let session = sessions.get(&opts.app).cloned().ok_or_else(|| {
        bad(
            "--app",
            format!(
                "no scripted session for {:?}; there are: {}",
                opts.app,
                sessions.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
            "pick one of those, or add one to a sessions file (--sessions)",
        )
    })?;
    let work = std::env::temp_dir().join(format!("ufo-bench-step-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| write_err(&work, e))?;
    // The model process and the baseline read the sessions from a file.
    let sessions_file = match &opts.sessions {
        Some(p) => p.clone(),
        None => {
            let f = work.join("sessions.json");
            std::fs::write(&f, SESSIONS).map_err(|e| write_err(&f, e))?;
            f
        }
    };

    eprintln!(
        "Starting a private headless desktop with {}...",
        session.app_name
    );
    let desktop = HeadlessDesktop::start(DesktopOptions {
        name: format!("bench-step-{}", std::process::id()),
        stop_with_process: true,
        ..DesktopOptions::default()
    })
    .await
    .map_err(|e| e.report())?;
    let setup = Setup {
        opts,
        session: &session,
        desktop: &desktop,
        work: &work,
        sessions_file: &sessions_file,
    };
    let outcome = bench(&setup, format).await;
    if let Err(e) = desktop.stop() {
        eprintln!("warning: could not stop the bench desktop: {e}");
    }
    if opts.log_dir.is_none() {
        let _ = std::fs::remove_dir_all(&work);
    }
    outcome
}

/// What one benchmark run works with.
struct Setup<'a> {
    opts: &'a StepOptions,
    session: &'a Session,
    desktop: &'a HeadlessDesktop,
    work: &'a Path,
    sessions_file: &'a Path,
}

/// Starts the scripted model in a child process; its port.
async fn start_model(
    app: &str,
    sessions_file: &Path,
) -> Result<(tokio::process::Child, u16), ErrorReport> {
    let mut model = tokio::process::Command::new(current_exe()?)
        .args(["bench", "step-model", "--app", app, "--sessions"])
        .arg(sessions_file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            bad(
                "--app",
                format!("cannot start the model process: {e}"),
                "check that ufo can start itself",
            )
        })?;
    let mut port = String::new();
    if let Some(out) = model.stdout.take() {
        let _ = tokio::time::timeout(
            Duration::from_secs(20),
            BufReader::new(out).read_line(&mut port),
        )
        .await;
    }
    let port: u16 = port.trim().parse().map_err(|_| {
        bad(
            "--app",
            "the model process gave no port".into(),
            "run it by hand: ufo bench step-model",
        )
    })?;
    Ok((model, port))
}

/// The sessions' configuration: both agents on the scripted model at `port`.
fn session_config(
    port: u16,
    steps: usize,
    image_format: &str,
    work: &Path,
) -> Result<ufo_session::config::UfoConfig, ErrorReport> {
    let agent = format!(
        "  API_TYPE: custom\n  API_BASE: http://127.0.0.1:{port}/v1\n  API_MODEL: scripted\n  MAX_RETRY: 0\n"
    );
    let yaml = format!(
        "HOST_AGENT:\n{agent}APP_AGENT:\n{agent}MAX_STEP: {steps}\nMAX_ROUND: 1\nSLEEP_TIME: 0\nEVA_SESSION: false\nSCREENSHOT_FORMAT: {image_format}\nSAFE_GUARD: false\n",
    );
    ufo_session::config::UfoConfig::parse(&yaml, work, &|k| std::env::var(k).ok())
        .map_err(|e| e.report())
}

/// What the timed sessions' own records say.
#[derive(Default)]
struct Timed {
    per_step: Vec<BTreeMap<String, f64>>,
    walls: Vec<f64>,
    failed_actions: usize,
    unfinished: usize,
}

impl Timed {
    /// Adds one timed session: its reports, its step records, its wall time.
    fn add(
        &mut self,
        reports: &[ufo_session::SessionReport],
        records: &[ufo_agent::StepRecord],
        wall: f64,
    ) {
        self.unfinished += reports
            .iter()
            .filter(|r| r.status != ufo_session::SessionStatus::Finish)
            .count();
        self.walls.push(wall / records.len().max(1) as f64);
        for r in records {
            self.failed_actions += r.actions.iter().filter(|a| !a.result.is_success()).count();
            // Keyed by the phase's name in response.log.
            let times: BTreeMap<String, f64> = r
                .execution_times
                .iter()
                .filter_map(|(phase, secs)| {
                    let key = serde_json::to_value(phase).ok()?.as_str()?.to_owned();
                    Some((key, secs * 1000.0))
                })
                .collect();
            self.per_step.push(times);
        }
    }

    /// The medians.
    fn side(self) -> UfoSide {
        let phase = |k: &str| {
            median2(
                self.per_step
                    .iter()
                    .map(|t| t.get(k).copied().unwrap_or(0.0))
                    .collect(),
            )
        };
        UfoSide {
            steps: self.per_step.len(),
            failed_actions: self.failed_actions,
            unfinished_sessions: self.unfinished,
            data_collection: phase("DATA_COLLECTION"),
            llm_interaction: phase("LLM_INTERACTION"),
            action_execution: phase("ACTION_EXECUTION"),
            memory_update: phase("MEMORY_UPDATE"),
            wall_per_step: median2(self.walls.clone()),
            non_model_per_step: median2(self.per_step.iter().map(|t| t.values().sum()).collect()),
        }
    }
}

/// One warm-up session, then `runs` timed ones, through the real session.
async fn run_sessions(
    setup: &Setup<'_>,
    backend: &Arc<AtspiBackend>,
    config: &ufo_session::config::UfoConfig,
    logs: &Path,
) -> Result<UfoSide, ErrorReport> {
    let (opts, session) = (setup.opts, setup.session);
    let prompts = Arc::new(ufo_agent::PromptSet::load(&config.prompts).map_err(|e| e.report())?);
    let io: Arc<dyn ufo_session::UserIo> = Arc::new(Silent);
    let mut timed = Timed::default();
    // One warm-up run (toolkit caches, first-time layout), then the timed ones.
    for run in 0..=opts.runs {
        eprintln!(
            "{} {}/{}...",
            if run == 0 { "warm-up run" } else { "run" },
            run,
            opts.runs
        );
        let services = ufo_session::Services {
            dispatcher: Arc::new(ufo_session::dispatcher::local_dispatcher(
                backend.clone(),
                &config.system,
            )),
            io: io.clone(),
            prompts: prompts.clone(),
            log_root: logs.to_path_buf(),
            config: config.clone(),
        };
        let task = format!("bench-{}-{run}", opts.app);
        let run_opts = ufo_session::RunOptions {
            task: task.clone(),
            mode: ufo_session::Mode::Normal,
            request: Some(format!("benchmark session on {}", session.app_name)),
            plan: None,
            app: Some(session.app_name.clone()),
        };
        let t = Instant::now();
        let reports = ufo_session::run(&services, &run_opts)
            .await
            .map_err(|e| e.report())?;
        let wall = t.elapsed().as_secs_f64() * 1000.0;
        if run > 0 {
            timed.add(&reports, &read_records(&logs.join(&task)), wall);
        }
    }
    Ok(timed.side())
}

async fn bench(setup: &Setup<'_>, format: ImageFormat) -> Result<StepReport, ErrorReport> {
    let (opts, session, work) = (setup.opts, setup.session, setup.work);
    let mut argv = session.launch.clone();
    if argv.first().is_some_and(|p| p == "soffice") {
        // A profile of its own: no other LibreOffice takes the launch over,
        // no first-run dialogs.
        let dir = work.join("lo-profile");
        let profile =
            ufo_desktop_atspi::headless::office_profile(&dir).map_err(|e| write_err(&dir, e))?;
        argv.insert(1, profile);
    }
    setup
        .desktop
        .launch(&argv, Duration::from_secs(90))
        .await
        .map_err(|e| e.report())?;
    let backend = Arc::new(
        AtspiBackend::connect(&DesktopTarget::from_private(setup.desktop))
            .await
            .map_err(|e| e.report())?,
    );
    // Give the application a moment to finish opening its window.
    let window = wait_window(backend.as_ref(), &session.app_name).await?;
    let (mut model, port) = start_model(&opts.app, setup.sessions_file).await?;
    let logs = opts.log_dir.clone().unwrap_or_else(|| work.join("logs"));
    let config = session_config(port, session.steps.len(), &opts.image_format, work)?;
    let ufo = run_sessions(setup, &backend, &config, &logs).await?;
    drop(model.stdin.take());
    let _ = tokio::time::timeout(Duration::from_secs(5), model.wait()).await;

    // The unchanged window, observed as a step does: live, and in full.
    let (observe_unchanged_ms, observe_full_ms, controls) =
        observe_unchanged(backend.as_ref(), &window, format).await?;
    // Read before the token counting, whose tokenizer tables are the
    // benchmark's, not the agent's.
    let (rss_kib, peak_rss_kib) = crate::memory_kib();
    let tokens = crate::tokens::compare(&controls);

    let python = if opts.no_baseline {
        None
    } else {
        eprintln!("Python baseline ({} runs)...", opts.runs);
        Some(
            baseline(
                setup.desktop,
                work,
                setup.sessions_file,
                &opts.app,
                opts.runs,
            )
            .await?,
        )
    };
    let speedup = python
        .as_ref()
        .and_then(|p| p["median_ms"]["step"].as_f64())
        .filter(|_| ufo.non_model_per_step > 0.0)
        .map(|p| crate::round(p / ufo.non_model_per_step, 1));
    Ok(StepReport {
        app: opts.app.clone(),
        window: window.title.clone(),
        runs: opts.runs,
        image_format: opts.image_format.clone(),
        ufo,
        python,
        speedup,
        observe_unchanged_ms,
        observe_full_ms,
        tokens,
        rss_kib,
        peak_rss_kib,
    })
}

/// The application's main window, once it is listed (at most 60 s).
async fn wait_window(b: &AtspiBackend, app: &str) -> Result<ufo_core::WindowInfo, ErrorReport> {
    let start = Instant::now();
    loop {
        let ws = b.list_windows().await.map_err(|e| e.report())?;
        if let Some(w) = ws.into_iter().find(|w| w.app_name == app) {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            return Ok(w);
        }
        if start.elapsed() > Duration::from_secs(60) {
            return Err(bad(
                "--app",
                format!("{app} shows no window after 60 s"),
                "check that it starts: ufo desktop launch",
            ));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Medians of 5 observations of the unchanged window with the live tree and
/// with a full capture forced, and its controls.
async fn observe_unchanged(
    b: &AtspiBackend,
    w: &ufo_core::WindowInfo,
    format: ImageFormat,
) -> Result<(f64, f64, Vec<ufo_core::Control>), ErrorReport> {
    let image = ModelImage {
        format,
        ..ModelImage::default()
    };
    let style = AnnotationStyle::default();
    let mut ctx = ToolContext::for_window(w.clone(), Vec::new());
    ctx.app_window = Some(w.clone());
    let (first, _) = crate::perception::observe_once(b, &mut ctx, &style, &image).await?;
    let mut live = Vec::new();
    for _ in 0..5 {
        let (o, _) = crate::perception::observe_once(b, &mut ctx, &style, &image).await?;
        live.push(o.times.observation());
    }
    // A budget the live tree has not kept a capture for forces a full one.
    let mut full = Vec::new();
    for i in 0..5 {
        let mut forced = ctx.clone();
        forced.settings.budget = crate::perception::full_capture_budget(i);
        let (o, _) = crate::perception::observe_once(b, &mut forced, &style, &image).await?;
        full.push(o.times.observation());
    }
    Ok((median2(live), median2(full), first.controls))
}

/// The step records of a session's `response.log`.
fn read_records(dir: &Path) -> Vec<ufo_agent::StepRecord> {
    let text = std::fs::read_to_string(dir.join("response.log")).unwrap_or_default();
    ufo_agent::step::read_response_log(&text)
        .filter_map(Result::ok)
        .filter(|r| r.agent_type == ufo_agent::AgentKind::AppAgent)
        .collect()
}

/// Runs the embedded Python baseline on the same desktop.
async fn baseline(
    desktop: &HeadlessDesktop,
    work: &Path,
    sessions_file: &Path,
    app: &str,
    runs: usize,
) -> Result<Value, ErrorReport> {
    let script = work.join("step_baseline.py");
    std::fs::write(&script, BASELINE).map_err(|e| write_err(&script, e))?;
    let python = "/usr/bin/python3";
    let out = tokio::process::Command::new(python)
        .arg(&script)
        .arg("--sessions")
        .arg(sessions_file)
        .args(["--app", app, "--runs", &runs.to_string(), "--json"])
        .envs(desktop.state().env())
        .stdin(Stdio::null())
        .output()
        .await
        .map_err(|e| {
            bad(
                "--no-baseline",
                format!("cannot run {python}: {e}"),
                "install python3-pyatspi, python3-pil and xdotool (scripts/bootstrap.sh --bench), or pass --no-baseline",
            )
        })?;
    serde_json::from_slice(&out.stdout).map_err(|_| {
        bad(
            "--no-baseline",
            format!(
                "the Python baseline failed: {}",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("no output")
            ),
            "install python3-pyatspi, python3-pil and xdotool (scripts/bootstrap.sh --bench), or pass --no-baseline",
        )
    })
}

impl fmt::Display for StepReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self;
        writeln!(
            f,
            "{} ({:?}): {} timed steps over {} runs, model images {}",
            r.app, r.window, r.ufo.steps, r.runs, r.image_format
        )?;
        writeln!(f, "ufo-rs, median ms per step:")?;
        for (k, v) in [
            ("data collection", r.ufo.data_collection),
            ("llm interaction (no model)", r.ufo.llm_interaction),
            ("action execution", r.ufo.action_execution),
            ("memory update", r.ufo.memory_update),
            ("non-model total", r.ufo.non_model_per_step),
            ("wall per step", r.ufo.wall_per_step),
        ] {
            writeln!(f, "  {k:<28} {v:>9.2}")?;
        }
        if r.ufo.failed_actions > 0 {
            writeln!(f, "  ({} actions failed)", r.ufo.failed_actions)?;
        }
        if r.ufo.unfinished_sessions > 0 {
            writeln!(
                f,
                "  ({} sessions did not finish: see --log-dir)",
                r.ufo.unfinished_sessions
            )?;
        }
        if let Some(p) = &r.python {
            writeln!(f, "Python (pyatspi + PIL + xdotool), median ms per step:")?;
            if let Some(m) = p["median_ms"].as_object() {
                for (k, v) in m {
                    writeln!(f, "  {k:<28} {:>9.2}", v.as_f64().unwrap_or(0.0))?;
                }
            }
            if let Some(s) = r.speedup {
                writeln!(f, "speed-up (Python step / ufo non-model step): {s}×")?;
            }
        }
        writeln!(
            f,
            "unchanged window observed again: {:.2} ms live, {:.2} ms full capture",
            r.observe_unchanged_ms, r.observe_full_ms
        )?;
        writeln!(
            f,
            "prompt tokens of its {} controls (o200k_base): ours {} vs UFO's layout {}",
            r.tokens.controls, r.tokens.o200k_base.ours, r.tokens.o200k_base.ufo
        )?;
        writeln!(
            f,
            "ufo process memory: {:.1} MiB now, {:.1} MiB peak",
            r.rss_kib as f64 / 1024.0,
            r.peak_rss_kib as f64 / 1024.0
        )?;
        Ok(())
    }
}
