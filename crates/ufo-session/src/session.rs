//! Sessions, rounds and the state machines.
//!
//! A session runs rounds (one per request). A round is the state machine of
//! UFO's `BaseRound.run`: the current agent handles its state, its status
//! selects the next state and agent, until the round ends or `MAX_STEP` is
//! reached. The machine is one exhaustive `match` over [`State`].

use crate::config::UfoConfig;
use crate::console::present;
use crate::error::SessionError;
use crate::logs::TaskLogs;
use crate::plan::{Plan, PlanAction, plan_files};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use ufo_agent::dispatcher::execute_one;
use ufo_agent::{
    AgentError, AppAgent, AppStep, Blackboard, CommandDispatcher, HostAgent, HostStep, PromptSet,
    StepInput, StepRecord, SubtaskRecord, UserIo,
};
use ufo_core::{AppAgentStatus, Command, Diagnostic, ErrorReport, HostAgentStatus};
use ufo_desktop::names::names_match;
use ufo_desktop::tools::WindowEntry;
use ufo_llm::{ChatModel, LlmConfig, PriceTable, UsageTotals};

/// UFO's modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Interactive: `-r` or asked; a new request after each round until `N`.
    Normal,
    /// Plan files: `actions` replayed, or `steps` fed to the AppAgent.
    Follower,
    /// A folder of task files, resumable.
    BatchNormal,
}

impl FromStr for Mode {
    type Err = SessionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "normal" => Ok(Mode::Normal),
            "follower" => Ok(Mode::Follower),
            "batch_normal" | "batch" => Ok(Mode::BatchNormal),
            other => Err(SessionError::BadKey {
                key: "--mode".into(),
                message: format!("unknown mode {other:?}; use normal, follower or batch_normal"),
            }),
        }
    }
}

/// How a session (or a round) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SessionStatus {
    /// Done.
    Finish,
    /// The agents gave up, or a limit was hit.
    Fail,
    /// Something broke (model, desktop, unparseable replies).
    Error,
}

impl SessionStatus {
    /// UFO's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Finish => "FINISH",
            SessionStatus::Fail => "FAIL",
            SessionStatus::Error => "ERROR",
        }
    }
}

/// What a session reports at the end.
#[derive(Debug, Clone, Serialize)]
pub struct SessionReport {
    /// Task name.
    pub task: String,
    /// The log folder.
    pub log_dir: PathBuf,
    /// Final status.
    pub status: SessionStatus,
    /// Requests handled.
    pub requests: Vec<String>,
    /// Final result text.
    pub result: String,
    /// Steps taken.
    pub steps: usize,
    /// Sub-tasks and their outcome.
    pub subtasks: Vec<SubtaskRecord>,
    /// Model usage and cost.
    pub usage: UsageTotals,
    /// The evaluation, when run.
    pub evaluation: Option<Value>,
    /// The error that ended it, if any.
    pub error: Option<ErrorReport>,
    /// `output.md`, when written.
    pub markdown: Option<PathBuf>,
    /// Skipped because already finished (batch).
    pub skipped: bool,
}

impl SessionReport {
    /// The report of a task that took no step (skipped, or its file unusable).
    fn without_steps(task: &str, log_dir: PathBuf, status: SessionStatus) -> Self {
        Self {
            task: task.to_owned(),
            log_dir,
            status,
            requests: Vec::new(),
            result: String::new(),
            steps: 0,
            subtasks: Vec::new(),
            usage: UsageTotals::default(),
            evaluation: None,
            error: None,
            markdown: None,
            skipped: false,
        }
    }
}

/// Everything a session uses.
pub struct Services {
    /// Configuration.
    pub config: UfoConfig,
    /// Executes commands.
    pub dispatcher: Arc<dyn CommandDispatcher>,
    /// Talks to the user.
    pub io: Arc<dyn UserIo>,
    /// Templates.
    pub prompts: Arc<PromptSet>,
    /// The log root (`logs/`).
    pub log_root: PathBuf,
}

/// What to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Task name (log folder).
    pub task: String,
    /// Mode.
    pub mode: Mode,
    /// Request (`-r`).
    pub request: Option<String>,
    /// Plan file or folder (`-p`).
    pub plan: Option<PathBuf>,
    /// Single-tier: run the AppAgent on this application, no HostAgent.
    pub app: Option<String>,
}

fn model_for(
    config: &UfoConfig,
    section: &str,
    cfg: Option<&LlmConfig>,
) -> Result<Arc<dyn ChatModel>, SessionError> {
    let cfg = cfg.ok_or_else(|| SessionError::MissingKey {
        key: section.to_owned(),
        message: "this mode needs a model for that agent (API_TYPE, API_BASE, API_KEY, API_MODEL)"
            .into(),
    })?;
    ufo_llm::build_with_backup(
        cfg,
        config.backup.as_ref(),
        Some(Arc::new(PriceTable::ufo_defaults())),
    )
    .map_err(|e| SessionError::Model {
        section: section.to_owned(),
        message: e.to_string(),
        help: e.help(),
    })
}

/// Runs a session (or, for `batch_normal`, one per task file) and returns
/// the reports.
pub async fn run(s: &Services, opts: &RunOptions) -> Result<Vec<SessionReport>, SessionError> {
    match opts.mode {
        Mode::Normal => {
            let mut session = Session::new(s, &[&opts.task])?;
            Ok(vec![
                session
                    .run_normal(opts.request.clone(), opts.app.as_deref())
                    .await,
            ])
        }
        Mode::Follower => {
            let plan_path = opts.plan.as_ref().ok_or_else(|| SessionError::MissingKey {
                key: "--plan".into(),
                message: "follower mode replays a plan file".into(),
            })?;
            let files = plan_files(plan_path)?;
            let mut out = Vec::new();
            for f in &files {
                let plan = Plan::load(f)?;
                let stem = stem(f);
                let segs: Vec<&str> = if files.len() > 1 {
                    vec![&opts.task, &stem]
                } else {
                    vec![&opts.task]
                };
                let mut session = Session::new(s, &segs)?;
                out.push(session.run_plan(&plan, opts.app.as_deref()).await);
            }
            Ok(out)
        }
        Mode::BatchNormal => run_batch(s, opts).await,
    }
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|x| x.to_string_lossy().into_owned())
        .unwrap_or_else(|| "task".into())
}

async fn run_batch(s: &Services, opts: &RunOptions) -> Result<Vec<SessionReport>, SessionError> {
    let plan_path = opts.plan.as_ref().ok_or_else(|| SessionError::MissingKey {
        key: "--plan".into(),
        message: "batch_normal runs the task files of a folder".into(),
    })?;
    let files = plan_files(plan_path)?;
    let dir = s.log_root.join(crate::logs::sanitize_task_name(&opts.task));
    std::fs::create_dir_all(&dir).map_err(|e| SessionError::Logs {
        path: dir.display().to_string(),
        message: e.to_string(),
    })?;
    let status_path = dir.join("tasks_status.json");
    let mut status: serde_json::Map<String, Value> = match std::fs::read_to_string(&status_path) {
        Err(_) => serde_json::Map::new(),
        Ok(t) => match serde_json::from_str(&t) {
            Ok(m) => m,
            Err(e) => {
                // Say so and keep it: every task runs again, nothing is lost.
                let backup = status_path.with_extension("json.corrupt");
                let _ = std::fs::rename(&status_path, &backup);
                s.io.show(&format!(
                    "warning: {} is not valid JSON ({e}); kept as {}; every task runs again",
                    status_path.display(),
                    backup.display()
                ));
                serde_json::Map::new()
            }
        },
    };
    let mut out = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let name = stem(f);
        let progress = format!("[{}/{}] {name}", i + 1, files.len());
        if status.get(&name).and_then(Value::as_str) == Some("finished") {
            s.io.show(&format!("{progress}: already finished, skipped"));
            out.push(SessionReport {
                skipped: true,
                ..SessionReport::without_steps(
                    &name,
                    dir.join(crate::logs::sanitize_task_name(&name)),
                    SessionStatus::Finish,
                )
            });
            continue;
        }
        s.io.show(&format!("{progress}: running"));
        let report = match Plan::load(f) {
            Ok(plan) => {
                let mut session = Session::new(s, &[&opts.task, &name])?;
                session.run_plan(&plan, opts.app.as_deref()).await
            }
            Err(e) => {
                s.io.show(&format!("{progress}: {e}"));
                SessionReport {
                    error: Some(e.report()),
                    ..SessionReport::without_steps(&name, dir.clone(), SessionStatus::Error)
                }
            }
        };
        let st = if report.status == SessionStatus::Finish {
            "finished"
        } else {
            "failed"
        };
        s.io.show(&format!("{progress}: {}", report.status.as_str()));
        status.insert(name, Value::String(st.into()));
        let text = serde_json::to_string_pretty(&status).unwrap_or_default();
        std::fs::write(&status_path, text).map_err(|e| SessionError::Logs {
            path: status_path.display().to_string(),
            message: e.to_string(),
        })?;
        let interrupted = report
            .error
            .as_ref()
            .is_some_and(|e| e.code == "ufo::session::interrupted");
        out.push(report);
        if interrupted {
            s.io.show("batch interrupted: the remaining tasks were not started");
            break;
        }
    }
    Ok(out)
}

/// The state of a round's machine: which agent acts and in which status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Host(HostAgentStatus),
    App(AppAgentStatus),
    End(SessionStatus),
}

/// A summary line per step for evaluation and `output.md`.
#[derive(Debug, Clone, Serialize)]
struct StepSummary {
    step: usize,
    agent: String,
    subtask: String,
    application: String,
    observation: String,
    thought: String,
    plan: Vec<String>,
    comment: String,
    actions: Vec<String>,
    status: String,
    cost: f64,
    total_time: f64,
    screenshots: std::collections::BTreeMap<String, String>,
    execution_times: Value,
}

/// The [`StepInput`] of the session's next step. A macro, not a method:
/// it borrows the blackboard and the sub-tasks while an agent (another field)
/// is borrowed too.
macro_rules! step_input {
    ($s:expr, $round:expr, $request:expr) => {
        StepInput {
            session_step: $s.step,
            round: $round,
            request: $request,
            blackboard: &mut $s.blackboard,
            prev_subtasks: &$s.subtasks,
        }
    };
}

struct Session<'a> {
    s: &'a Services,
    logs: TaskLogs,
    task: String,
    step: usize,
    usage: UsageTotals,
    steps: Vec<StepSummary>,
    blackboard: Blackboard,
    host: Option<HostAgent>,
    apps: HashMap<String, AppAgent>,
    current_app: Option<String>,
    subtasks: Vec<SubtaskRecord>,
    requests: Vec<String>,
    result: String,
    error: Option<ErrorReport>,
}

impl<'a> Session<'a> {
    fn new(s: &'a Services, segments: &[&str]) -> Result<Self, SessionError> {
        let logs = TaskLogs::create(&s.log_root, segments)?;
        Ok(Self {
            s,
            logs,
            task: segments.join("/"),
            step: 0,
            usage: UsageTotals::default(),
            steps: Vec::new(),
            blackboard: Blackboard::default(),
            host: None,
            apps: HashMap::new(),
            current_app: None,
            subtasks: Vec::new(),
            requests: Vec::new(),
            result: String::new(),
            error: None,
        })
    }

    fn max_step_reached(&self) -> bool {
        self.step >= self.s.config.system.max_step
    }

    /// Logs a step (before anything else happens), shows it, sleeps.
    async fn record(&mut self, mut rec: StepRecord) {
        if let Err(e) = self.logs.write_step(&mut rec) {
            self.s.io.show(&format!("warning: {e}"));
        }
        self.s.io.show(&present(&rec));
        self.usage.merge(&rec.usage);
        self.steps.push(StepSummary {
            step: rec.session_step,
            agent: rec.agent_name.clone(),
            subtask: rec.subtask.clone(),
            application: rec.application.clone(),
            observation: rec.observation.clone(),
            thought: rec.thought.clone(),
            plan: rec.plan.clone(),
            comment: rec.comment.clone(),
            actions: rec
                .actions
                .iter()
                .map(|a| a.action_representation.clone())
                .collect(),
            status: rec.status.clone(),
            cost: rec.cost,
            total_time: rec.total_time,
            screenshots: rec.screenshots.clone(),
            execution_times: serde_json::to_value(&rec.execution_times).unwrap_or_default(),
        });
        let t = self.s.config.system.sleep_time;
        if t > 0.0 {
            tokio::time::sleep(Duration::from_secs_f64(t)).await;
        }
    }

    fn app_model(&self) -> Result<Arc<dyn ChatModel>, SessionError> {
        model_for(&self.s.config, "APP_AGENT", self.s.config.app.as_ref())
    }

    fn ensure_host(&mut self) -> Result<(), SessionError> {
        if self.host.is_none() {
            let m = model_for(&self.s.config, "HOST_AGENT", self.s.config.host.as_ref())?;
            // HOST_AGENT.VISUAL_MODE decides whether the HostAgent sees the desktop.
            let mut settings = self.s.config.system.agent.clone();
            settings.visual_mode = self
                .s
                .config
                .host
                .as_ref()
                .and_then(|h| h.visual_mode)
                .unwrap_or(true);
            self.host = Some(HostAgent::new(
                m,
                self.s.dispatcher.clone(),
                self.s.prompts.clone(),
                settings,
            ));
        }
        Ok(())
    }

    fn ensure_app(&mut self, application: &str) -> Result<(), SessionError> {
        if !self.apps.contains_key(application) {
            let m = self.app_model()?;
            self.apps.insert(
                application.to_owned(),
                AppAgent::new(
                    application,
                    m,
                    self.s.dispatcher.clone(),
                    self.s.prompts.clone(),
                    self.s.config.system.agent.clone(),
                ),
            );
        }
        self.current_app = Some(application.to_owned());
        Ok(())
    }

    /// Records why a session ends in ERROR when the model itself chose the
    /// status (no error of ours was raised): the summary and `output.md` say so.
    fn model_said_error(&mut self, who: &str, comment: &str) {
        if self.error.is_some() {
            return;
        }
        let detail = if comment.trim().is_empty() {
            "it gave no reason".to_owned()
        } else {
            format!("its comment: {}", comment.trim())
        };
        let e = ErrorReport::new(
            "ufo::session::model_error",
            format!("the {who} model ended the task with status ERROR; {detail}"),
        )
        .with_help(
            "read the step's thought in response.log; rephrase the request or try a stronger model",
        );
        self.s.io.show(&format!("error[{}]: {}", e.code, e.message));
        self.error = Some(e);
    }

    fn fail_with(&mut self, e: &dyn Diagnostic) -> SessionStatus {
        // The report carries the real code also when `e` forwards one.
        let report = e.report();
        let help = report
            .help
            .as_deref()
            .map(|h| format!("\n  help: {h}"))
            .unwrap_or_default();
        self.s
            .io
            .show(&format!("error[{}]: {}{help}", report.code, report.message));
        self.error = Some(report);
        SessionStatus::Error
    }

    async fn run_normal(&mut self, request: Option<String>, app: Option<&str>) -> SessionReport {
        let outcome = tokio::select! {
            st = self.normal_rounds(request, app) => Ok(st),
            sig = interrupted() => Err(sig),
        };
        let status = self.unless_interrupted(outcome);
        self.finish(status).await
    }

    /// The status, or — when a signal ended the work — an error saying so,
    /// recorded for the summary and `output.md`.
    fn unless_interrupted(
        &mut self,
        outcome: Result<SessionStatus, &'static str>,
    ) -> SessionStatus {
        match outcome {
            Ok(st) => st,
            Err(sig) => {
                let e = ErrorReport::new(
                    "ufo::session::interrupted",
                    format!("interrupted by {sig} at step {}", self.step),
                )
                .with_help("the logs up to the last finished step are complete; run the request again to go on");
                self.s.io.show(&format!("error[{}]: {}", e.code, e.message));
                self.error = Some(e);
                SessionStatus::Error
            }
        }
    }

    async fn normal_rounds(&mut self, request: Option<String>, app: Option<&str>) -> SessionStatus {
        let mut status = SessionStatus::Finish;
        let mut next = request.filter(|r| !r.trim().is_empty()).or_else(|| {
            self.s
                .io
                .new_request("Please enter your request to be completed:")
        });
        let mut round = 0;
        while let Some(req) = next.take() {
            status = match app {
                Some(a) => self.run_single_tier(round, &req, a, None).await,
                None => self.run_round(round, &req).await,
            };
            round += 1;
            if status == SessionStatus::Error
                || round >= self.s.config.system.max_round
                || self.max_step_reached()
            {
                break;
            }
            next = self
                .s
                .io
                .new_request("Please enter your new request. Enter 'N' for exit:");
        }
        status
    }

    async fn run_plan(&mut self, plan: &Plan, app: Option<&str>) -> SessionReport {
        let outcome = tokio::select! {
            st = self.plan_status(plan, app) => Ok(st),
            sig = interrupted() => Err(sig),
        };
        let status = self.unless_interrupted(outcome);
        self.finish(status).await
    }

    async fn plan_status(&mut self, plan: &Plan, app: Option<&str>) -> SessionStatus {
        let request = plan.request_text();
        let app = app.map(str::to_owned).or_else(|| plan.app.clone());
        if let Some(actions) = &plan.actions {
            self.run_actions(&request, actions).await
        } else if let Some(steps) = &plan.steps {
            self.run_steps(&request, steps, app.as_deref()).await
        } else {
            match app.as_deref() {
                Some(a) => self.run_single_tier(0, &request, a, None).await,
                None => self.run_round(0, &request).await,
            }
        }
    }

    /// Follower with `steps`: each step is a sub-task of the AppAgent.
    async fn run_steps(
        &mut self,
        request: &str,
        steps: &[String],
        app: Option<&str>,
    ) -> SessionStatus {
        let app = match app {
            Some(a) => a.to_owned(),
            None => match self.host_select(request).await {
                Ok(a) => a,
                Err(st) => return st,
            },
        };
        for (i, step) in steps.iter().enumerate() {
            let st = self.run_single_tier(0, request, &app, Some(step)).await;
            if st != SessionStatus::Finish {
                return st;
            }
            if i + 1 < steps.len() && self.max_step_reached() {
                return SessionStatus::Fail;
            }
        }
        SessionStatus::Finish
    }

    /// One HostAgent step to choose the application (follower without `app`).
    async fn host_select(&mut self, request: &str) -> Result<String, SessionStatus> {
        if let Err(e) = self.ensure_host() {
            return Err(self.fail_with(&e));
        }
        self.requests.push(request.to_owned());
        let h = self
            .host_step(0, request)
            .await
            .ok_or(SessionStatus::Error)?;
        let a = h.assignment.clone();
        self.record(h.record).await;
        a.map(|a| a.application).ok_or(SessionStatus::Fail)
    }

    /// The HostAgent's next step. A failed step is logged and reported
    /// (`None`).
    async fn host_step(&mut self, round: usize, request: &str) -> Option<HostStep> {
        self.step += 1;
        let started = std::time::Instant::now();
        let deadline = self.step_deadline();
        let host = self.host.as_mut()?;
        let r = match tokio::time::timeout(deadline, host.step(step_input!(self, round, request)))
            .await
        {
            Ok(r) => r,
            Err(_) => Err(self.deadline_missed("HostAgent", "HostAgent", request, started)),
        };
        self.settle(r).await
    }

    fn step_deadline(&self) -> Duration {
        Duration::from_secs_f64(self.s.config.system.step_timeout)
    }

    /// The record and error of a step that missed its deadline.
    fn deadline_missed(
        &self,
        agent: &str,
        name: &str,
        request: &str,
        started: std::time::Instant,
    ) -> Box<(AgentError, StepRecord)> {
        let mut rec = StepRecord::new(agent, name, self.step);
        rec.request = request.to_owned();
        rec.fail(
            AgentError::StepDeadline {
                seconds: self.s.config.system.step_timeout,
            },
            "ERROR",
            started,
        )
    }

    /// The next step of the AppAgent of `application`, as [`Self::host_step`].
    async fn app_step(
        &mut self,
        application: &str,
        round: usize,
        request: &str,
    ) -> Option<AppStep> {
        self.step += 1;
        let started = std::time::Instant::now();
        let deadline = self.step_deadline();
        let agent = self.apps.get_mut(application)?;
        let r = match tokio::time::timeout(deadline, agent.step(step_input!(self, round, request)))
            .await
        {
            Ok(r) => r,
            Err(_) => Err(self.deadline_missed(
                "AppAgent",
                &format!("AppAgent/{application}"),
                request,
                started,
            )),
        };
        self.settle(r).await
    }

    /// A step's outcome; an error is logged (its record) and reported.
    async fn settle<T>(&mut self, r: Result<T, Box<(AgentError, StepRecord)>>) -> Option<T> {
        match r {
            Ok(t) => Some(t),
            Err(b) => {
                let (e, rec) = *b;
                self.record(rec).await;
                self.fail_with(&e);
                None
            }
        }
    }

    /// Selects the window of `application` without a model.
    async fn select_app(&mut self, application: &str) -> Result<String, ErrorReport> {
        let r = execute_one(
            self.s.dispatcher.as_ref(),
            Command::data("get_desktop_app_info", json!({})),
        )
        .await;
        if !r.is_success() {
            return Err(r.error.unwrap_or_else(|| {
                ErrorReport::new("ufo::session::no_windows", "cannot list windows")
            }));
        }
        let windows: Vec<WindowEntry> = serde_json::from_value(r.result).unwrap_or_default();
        let w = windows
            .iter()
            .find(|w| w.app_name == application)
            .or_else(|| {
                windows.iter().find(|w| {
                    names_match(application, &w.app_name) || names_match(application, &w.name)
                })
            })
            .ok_or_else(|| {
                ErrorReport::new(
                    "ufo::session::app_not_found",
                    format!(
                        "no window of {application:?} on the desktop (open: {})",
                        windows
                            .iter()
                            .map(|w| format!("{} {:?}", w.app_name, w.name))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .with_help("launch the application first, e.g. `ufo desktop launch gedit`")
            })?;
        let r = execute_one(
            self.s.dispatcher.as_ref(),
            Command::action(
                "select_application_window",
                json!({"id": w.id, "name": w.name}),
            ),
        )
        .await;
        if r.is_success() {
            Ok(w.name.clone())
        } else {
            Err(r.error.unwrap_or_else(|| {
                ErrorReport::new("ufo::session::select_failed", "cannot select the window")
            }))
        }
    }

    /// Linux single-tier session (UFO's `LinuxSession`): the AppAgent on
    /// `application`, no HostAgent. `subtask` defaults to the request.
    async fn run_single_tier(
        &mut self,
        round: usize,
        request: &str,
        application: &str,
        subtask: Option<&str>,
    ) -> SessionStatus {
        if !self.requests.iter().any(|r| r == request) {
            self.requests.push(request.to_owned());
            self.blackboard.requests.push(request.to_owned());
        }
        let title = match self.select_app(application).await {
            Ok(t) => t,
            Err(e) => return self.fail_with(&e),
        };
        if let Err(e) = self.ensure_app(application) {
            return self.fail_with(&e);
        }
        if let Some(a) = self.apps.get_mut(application) {
            a.assign(subtask.unwrap_or(request), Vec::new(), &title);
        }
        self.machine(round, request, State::App(AppAgentStatus::Continue), true)
            .await
    }

    /// A HostAgent round.
    async fn run_round(&mut self, round: usize, request: &str) -> SessionStatus {
        self.requests.push(request.to_owned());
        self.blackboard.requests.push(request.to_owned());
        if let Err(e) = self.ensure_host() {
            return self.fail_with(&e);
        }
        self.machine(
            round,
            request,
            State::Host(HostAgentStatus::Continue),
            false,
        )
        .await
    }

    /// The round's state machine.
    async fn machine(
        &mut self,
        round: usize,
        request: &str,
        start: State,
        single: bool,
    ) -> SessionStatus {
        let mut state = start;
        let mut assignment = None;
        loop {
            state = match state {
                State::End(st) => return st,
                State::Host(HostAgentStatus::Continue) | State::App(AppAgentStatus::Continue)
                    if self.max_step_reached() =>
                {
                    self.s.io.show(&format!(
                        "MAX_STEP ({}) reached; the round ends.",
                        self.s.config.system.max_step
                    ));
                    self.error = Some(
                        ErrorReport::new("ufo::session::max_step", "MAX_STEP reached")
                            .with_help("raise MAX_STEP in the config"),
                    );
                    State::End(SessionStatus::Fail)
                }
                State::Host(HostAgentStatus::Continue) => {
                    match self.host_step(round, request).await {
                        Some(h) => {
                            assignment = h.assignment.clone();
                            if matches!(h.status, HostAgentStatus::Finish | HostAgentStatus::Fail) {
                                self.result = h.result.clone();
                            }
                            if h.status == HostAgentStatus::Pending {
                                let qa = self.ask_questions(&h.questions);
                                if let Some(host) = self.host.as_mut() {
                                    host.add_answers(qa);
                                }
                            }
                            let st = h.status;
                            if st == HostAgentStatus::Error {
                                let said = if h.result.is_empty() {
                                    h.record.comment.clone()
                                } else {
                                    h.result.clone()
                                };
                                self.model_said_error("HostAgent", &said);
                            }
                            self.record(h.record).await;
                            State::Host(st)
                        }
                        None => State::Host(HostAgentStatus::Error),
                    }
                }
                State::Host(HostAgentStatus::Assign) => match assignment.take() {
                    Some(a) => match self.ensure_app(&a.application) {
                        Ok(()) => {
                            if let Some(agent) = self.apps.get_mut(&a.application) {
                                agent.assign(&a.subtask, a.message.clone(), &a.window_title);
                            }
                            State::App(AppAgentStatus::Continue)
                        }
                        Err(e) => State::End(self.fail_with(&e)),
                    },
                    None => State::Host(HostAgentStatus::Continue),
                },
                // Answers were recorded right after the step.
                State::Host(HostAgentStatus::Pending) => State::Host(HostAgentStatus::Continue),
                State::Host(HostAgentStatus::Finish) => State::End(SessionStatus::Finish),
                State::Host(HostAgentStatus::Fail) => State::End(SessionStatus::Fail),
                State::Host(HostAgentStatus::Error) => State::End(SessionStatus::Error),
                State::App(AppAgentStatus::Continue) => {
                    let key = self.current_app.clone().unwrap_or_default();
                    match self.app_step(&key, round, request).await {
                        Some(step) => {
                            let st = step.status;
                            // A CONFIRM step is logged when it completes, after the user's answer.
                            if st != AppAgentStatus::Confirm {
                                if st == AppAgentStatus::Pending {
                                    let qa = self.ask_questions(&step.questions);
                                    if let Some(agent) = self.apps.get_mut(&key) {
                                        agent.add_answers(qa);
                                    }
                                }
                                self.record(step.record).await;
                            }
                            State::App(st)
                        }
                        None => State::App(AppAgentStatus::Error),
                    }
                }
                State::App(AppAgentStatus::Confirm) => {
                    let key = self.current_app.clone().unwrap_or_default();
                    let actions = self
                        .apps
                        .get(&key)
                        .map(|a| a.pending_actions())
                        .unwrap_or_default();
                    let confirmed = if self.s.config.system.safe_guard {
                        self.s.io.confirm(&format!(
                            "[{key}] The next action is sensitive: {}. Do you want to proceed?",
                            actions.join("; ")
                        ))
                    } else {
                        true
                    };
                    let resumed = match self.apps.get_mut(&key) {
                        Some(agent) => agent.resume(confirmed, &mut self.blackboard).await,
                        None => None,
                    };
                    match resumed {
                        Some(step) => {
                            let st = step.status;
                            self.record(step.record).await;
                            State::App(st)
                        }
                        None => State::App(AppAgentStatus::Continue),
                    }
                }
                State::App(AppAgentStatus::Pending) => State::App(AppAgentStatus::Continue),
                State::App(
                    st @ (AppAgentStatus::Finish | AppAgentStatus::Fail | AppAgentStatus::Error),
                ) => {
                    let key = self.current_app.clone().unwrap_or_default();
                    if let Some(agent) = self.apps.get(&key) {
                        let result = if agent.result.is_empty() {
                            agent.comment.clone()
                        } else {
                            agent.result.clone()
                        };
                        self.subtasks.push(SubtaskRecord {
                            subtask: agent.subtask.clone(),
                            application: key.clone(),
                            status: st.to_string(),
                            result: result.clone(),
                        });
                        if single {
                            self.result = result;
                        }
                    }
                    match (st, single) {
                        (AppAgentStatus::Error, _) => {
                            let said = self
                                .apps
                                .get(&key)
                                .map(|a| a.comment.clone())
                                .unwrap_or_default();
                            self.model_said_error(&format!("AppAgent/{key}"), &said);
                            State::End(SessionStatus::Error)
                        }
                        (AppAgentStatus::Finish, true) => State::End(SessionStatus::Finish),
                        (_, true) => State::End(SessionStatus::Fail),
                        (_, false) => State::Host(HostAgentStatus::Continue),
                    }
                }
            };
        }
    }

    fn ask_questions(&mut self, questions: &[String]) -> Vec<(String, String)> {
        let mut qa = Vec::new();
        for q in questions {
            let a = self.s.io.ask(q).unwrap_or_default();
            self.blackboard
                .questions
                .push(ufo_agent::memory::QuestionAnswer {
                    question: q.clone(),
                    answer: a.clone(),
                });
            qa.push((q.clone(), a));
        }
        qa
    }
}

impl Session<'_> {
    /// Follower with `actions`: replays them without a model.
    async fn run_actions(&mut self, request: &str, actions: &[PlanAction]) -> SessionStatus {
        self.requests.push(request.to_owned());
        let mut app = String::new();
        for a in actions {
            if self.max_step_reached() {
                return SessionStatus::Fail;
            }
            self.step += 1;
            let started = Instant::now();
            let agent_name = if a.agent.eq_ignore_ascii_case("HostAgent") {
                "HostAgent".to_owned()
            } else {
                format!("AppAgent/{app}")
            };
            let mut rec = StepRecord::new(&a.agent, &agent_name, self.step);
            rec.request = request.to_owned();
            rec.application = app.clone();
            rec.thought = "replaying the plan".into();
            let outcome: Result<ufo_core::ActionResult, ErrorReport> =
                if a.agent.eq_ignore_ascii_case("HostAgent") {
                    let name = a
                        .parameters
                        .get("app_name")
                        .or_else(|| a.parameters.get("name"))
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    match self.select_app(&name).await {
                        Ok(title) => {
                            app = name.clone();
                            rec.application = name;
                            Ok(ufo_core::ActionResult::success(json!({"window": title})))
                        }
                        Err(e) => Err(e),
                    }
                } else {
                    self.replay_app_action(a, &mut rec).await
                };
            let (result, ok) = match outcome {
                Ok(r) => {
                    let ok = r.is_success();
                    (r, ok)
                }
                Err(e) => (ufo_core::ActionResult::failure(e), false),
            };
            let args = Value::Object(a.parameters.clone());
            let s = ufo_agent::response::action_string(&a.action, &a.parameters);
            rec.actions.push(ufo_agent::step::ActionLog {
                function: a.action.clone(),
                arguments: args,
                action_representation: ufo_agent::step::action_representation(&s, None, &result),
                action_string: s,
                target: None,
                status: if ok { "CONTINUE".into() } else { "FAIL".into() },
                result,
            });
            rec.status = if ok { "CONTINUE".into() } else { "FAIL".into() };
            rec.total_time = started.elapsed().as_secs_f64();
            self.record(rec).await;
            if !ok {
                self.error = Some(
                    ErrorReport::new(
                        "ufo::session::plan_action_failed",
                        format!("plan action {:?} failed", a.action),
                    )
                    .with_help("see the step's error in response.log; fix the plan or the application's state"),
                );
                return SessionStatus::Fail;
            }
        }
        SessionStatus::Finish
    }

    /// Observes the selected window, resolves the control named by the
    /// action's parameters, executes the tool.
    async fn replay_app_action(
        &mut self,
        a: &PlanAction,
        rec: &mut StepRecord,
    ) -> Result<ufo_core::ActionResult, ErrorReport> {
        let seen = ufo_agent::observe_window(
            self.s.dispatcher.as_ref(),
            self.s.config.system.agent.save_ui_tree,
        )
        .await
        .map_err(|e| e.report())?;
        let (controls, shot) = (seen.controls, seen.screenshot);
        rec.ui_tree = seen.ui_tree;
        rec.control_count = controls.len();
        let mut params = a.parameters.clone();
        let label = params.remove("label");
        let ctype = params.remove("control_type");
        let name = params.get("name").cloned().or(label);
        let needs_control = !params.contains_key("id") && (name.is_some() || ctype.is_some());
        let mut target = None;
        if needs_control {
            let n = name.as_ref().and_then(Value::as_str);
            let t = ctype.as_ref().and_then(Value::as_str);
            let c = controls
                .iter()
                .find(|c| {
                    n.is_none_or(|n| names_match(n, &c.name))
                        && t.is_none_or(|t| {
                            t.split('|')
                                .any(|t| c.control_type.as_str().eq_ignore_ascii_case(t.trim()))
                        })
                })
                .ok_or_else(|| {
                    ErrorReport::new(
                        "ufo::session::plan_control_not_found",
                        format!(
                            "no control named {:?} of type {:?} in the window ({} controls)",
                            n.unwrap_or(""),
                            t.unwrap_or("any"),
                            controls.len()
                        ),
                    )
                })?;
            params.insert("id".into(), Value::String(c.id.to_string()));
            params.insert("name".into(), Value::String(c.name.clone()));
            target = Some(c.id);
        }
        let r = execute_one(
            self.s.dispatcher.as_ref(),
            Command::action(a.action.clone(), Value::Object(params)),
        )
        .await;
        if let Some(shot) = &shot {
            rec.images.clean =
                ufo_desktop::encode::encode_png(&shot.image, self.s.config.system.agent.png).ok();
            let img = ufo_desktop::compose::selected_controls_image(
                shot,
                &controls,
                &target.into_iter().collect::<Vec<_>>(),
            );
            rec.images.selected =
                ufo_desktop::encode::encode_png(&img, self.s.config.system.agent.png).ok();
        }
        Ok(r)
    }

    async fn finish(&mut self, status: SessionStatus) -> SessionReport {
        let evaluation = if self.s.config.system.eva_session
            && status != SessionStatus::Error
            && !self.steps.is_empty()
        {
            self.evaluate().await
        } else {
            None
        };
        self.s.io.show(&format!(
            "Session {} ended: {} after {} steps. Total cost: ${:.4} ({} tokens in {} model calls).",
            self.task,
            status.as_str(),
            self.step,
            self.usage.cost,
            self.usage.usage.total_tokens,
            self.usage.calls
        ));
        let markdown = if self.s.config.system.log_to_markdown {
            let md = self.markdown(status, evaluation.as_ref());
            self.logs.write_file("output.md", &md).ok()
        } else {
            None
        };
        SessionReport {
            task: self.task.clone(),
            log_dir: self.logs.dir().to_path_buf(),
            status,
            requests: self.requests.clone(),
            result: self.result.clone(),
            steps: self.step,
            subtasks: self.subtasks.clone(),
            usage: self.usage,
            evaluation,
            error: self.error.clone(),
            markdown,
            skipped: false,
        }
    }

    async fn evaluate(&mut self) -> Option<Value> {
        let cfg = self
            .s
            .config
            .evaluation
            .as_ref()
            .or(self.s.config.app.as_ref())?;
        let model = match model_for(&self.s.config, "EVALUATION_AGENT", Some(cfg)) {
            Ok(m) => m,
            Err(e) => {
                self.s.io.show(&format!("evaluation skipped: {e}"));
                return None;
            }
        };
        let shots: Vec<&String> = self
            .steps
            .iter()
            .filter_map(|s| s.screenshots.get("clean"))
            .collect();
        let mut images = Vec::new();
        for name in [shots.first(), shots.last()].into_iter().flatten() {
            if let Ok(b) = std::fs::read(self.logs.dir().join(name))
                && !images.iter().any(|u: &String| u.len() == b.len() * 4 / 3)
            {
                images.push(ufo_desktop::encode::data_url("image/png", &b));
            }
        }
        images.dedup();
        let traj: Vec<Value> = self
            .steps
            .iter()
            .map(|s| json!({"Step": s.step, "Agent": s.agent, "Subtask": s.subtask, "Application": s.application, "Observation": s.observation, "Thought": s.thought, "Plan": s.plan, "Comment": s.comment, "Action": s.actions, "Status": s.status}))
            .collect();
        let request = self.requests.join("\n");
        match ufo_agent::evaluation::evaluate(
            &model,
            &self.s.prompts,
            &request,
            &traj,
            &images,
            self.s.config.system.agent.json_parsing_retry,
        )
        .await
        {
            Ok(ev) => {
                self.usage.merge(&ev.usage);
                let mut v = serde_json::to_value(&ev.response).unwrap_or_default();
                if let Value::Object(m) = &mut v {
                    m.insert("level".into(), json!("session"));
                    m.insert("request".into(), json!(request));
                    m.insert("type".into(), json!("evaluation_result"));
                    m.insert("cost".into(), json!(ev.usage.cost));
                }
                let _ = self.logs.write_evaluation(&v);
                self.s.io.show(&format!(
                    "Evaluation: complete = {} — {}",
                    ev.response.complete, ev.response.reason
                ));
                Some(v)
            }
            Err(e) => {
                self.s.io.show(&format!("evaluation failed: {e}"));
                None
            }
        }
    }

    fn markdown(&self, status: SessionStatus, evaluation: Option<&Value>) -> String {
        let mut md = format!("# UFO session `{}`\n\n", self.task);
        md.push_str("## Summary\n\n");
        for r in &self.requests {
            md.push_str(&format!("- **Request:** {r}\n"));
        }
        let host = self.steps.iter().filter(|s| s.agent == "HostAgent").count();
        md.push_str(&format!(
            "- **Status:** {}\n- **Steps:** {} ({} HostAgent, {} AppAgent)\n- **Result:** {}\n- **Cost:** ${:.4} ({} tokens, {} model calls)\n\n",
            status.as_str(),
            self.steps.len(),
            host,
            self.steps.len() - host,
            if self.result.is_empty() { "-" } else { &self.result },
            self.usage.cost,
            self.usage.usage.total_tokens,
            self.usage.calls
        ));
        if let Some(e) = &self.error {
            md.push_str(&format!("- **Error:** `{}` {}\n", e.code, e.message));
            if let Some(h) = &e.help {
                md.push_str(&format!("- **What to do:** {h}\n"));
            }
            md.push('\n');
        }
        if !self.subtasks.is_empty() {
            md.push_str("### Sub-tasks\n\n| sub-task | application | status | result |\n|---|---|---|---|\n");
            for s in &self.subtasks {
                md.push_str(&format!(
                    "| {} | {} | {} | {} |\n",
                    cell(&s.subtask),
                    s.application,
                    s.status,
                    cell(&s.result)
                ));
            }
            md.push('\n');
        }
        md.push_str("## Evaluation\n\n");
        match evaluation {
            Some(e) => {
                md.push_str(&format!(
                    "- **Complete:** {}\n- **Reason:** {}\n",
                    e.get("complete").and_then(Value::as_str).unwrap_or("-"),
                    e.get("reason").and_then(Value::as_str).unwrap_or("-")
                ));
                for s in e
                    .get("sub_scores")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    md.push_str(&format!(
                        "  - {}: {}\n",
                        s.get("name").and_then(Value::as_str).unwrap_or(""),
                        s.get("evaluation").and_then(Value::as_str).unwrap_or("")
                    ));
                }
                md.push('\n');
            }
            None => md.push_str("Not evaluated.\n\n"),
        }
        md.push_str("## Steps\n\n");
        for s in &self.steps {
            md.push_str(&format!(
                "### Step {} · {} · {}\n\n",
                s.step, s.agent, s.status
            ));
            if !s.subtask.is_empty() {
                md.push_str(&format!("- **Sub-task:** {}\n", s.subtask));
            }
            if !s.observation.is_empty() {
                md.push_str(&format!("- **Observation:** {}\n", s.observation));
            }
            if !s.thought.is_empty() {
                md.push_str(&format!("- **Thought:** {}\n", s.thought));
            }
            for a in &s.actions {
                md.push_str(&format!("- **Action:** `{a}`\n"));
            }
            if !s.comment.is_empty() {
                md.push_str(&format!("- **Comment:** {}\n", s.comment));
            }
            md.push_str(&format!(
                "- **Time:** {:.2}s {} · **Cost:** ${:.4}\n\n",
                s.total_time, s.execution_times, s.cost
            ));
            for key in ["annotated", "selected_controls"] {
                if let Some(f) = s.screenshots.get(key) {
                    md.push_str(&format!("![{key}]({f})\n"));
                }
            }
            md.push('\n');
        }
        md.push_str("## Timings\n\n| phase | seconds |\n|---|---|\n");
        let mut totals: std::collections::BTreeMap<String, f64> = Default::default();
        for s in &self.steps {
            if let Some(m) = s.execution_times.as_object() {
                for (k, v) in m {
                    *totals.entry(k.clone()).or_default() += v.as_f64().unwrap_or(0.0);
                }
            }
        }
        for (k, v) in totals {
            md.push_str(&format!("| {k} | {v:.2} |\n"));
        }
        md
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Resolves when the process receives SIGINT or SIGTERM, with its name; never
/// when the handlers cannot be installed.
#[cfg(not(unix))]
async fn interrupted() -> &'static str {
    match tokio::signal::ctrl_c().await {
        Ok(()) => "Ctrl+C",
        Err(_) => std::future::pending().await,
    }
}

/// Resolves when the process receives SIGINT or SIGTERM, with its name; never
/// when the handlers cannot be installed.
#[cfg(unix)]
async fn interrupted() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => "SIGINT",
        _ = term.recv() => "SIGTERM",
    }
}
