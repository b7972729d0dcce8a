//! Sessions, rounds and the state machines.
//!
//! A session runs rounds (one per request). A round is the state machine of
//! UFO's `BaseRound.run`: the current agent handles its state, its status
//! selects the next state and agent, until the round ends or `MAX_STEP` is
//! reached. The machine is one exhaustive `match` over `State`.

use crate::config::UfoConfig;
use crate::console::present;
use crate::error::SessionError;
use crate::plan::plan_files;
use crate::user_io::UserIo;
use serde::Serialize;
use serde_json::json;
use std::collections::HashMap;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use ufo_agent::{
    AgentError, AgentKind, AppAgent, AppStep, Blackboard, CommandAgent, CommandDispatcher,
    HostAgent, HostStep, PromptSet, StepFailure, StepInput, StepRecord, SubAgent, SubtaskRecord,
};
use ufo_core::{Diagnostic, ErrorReport};
use ufo_desktop::dispatch::execute_one;
use ufo_desktop::names::names_match;
use ufo_desktop::tools::Tool;
use ufo_desktop::tools::WindowEntry;
use ufo_llm::{ChatModel, LlmConfig, UsageTotals};

mod batch;
mod experience;
mod follower;
mod interrupt;
mod machine;
mod mcp;
mod normal;
mod operator;
mod recorder;
mod report;
mod service;
mod single_tier;
mod snapshot;

use recorder::Recorder;

/// UFO's modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Interactive: `-r` or asked; a new request after each round until `N`.
    Normal,
    /// Plan files: `actions` replayed, or `steps` fed to the AppAgent.
    Follower,
    /// A folder of task files, resumable.
    BatchNormal,
    /// One request that arrived over the network (UFO's `ServiceSession`):
    /// HostAgent and AppAgents, commands executed by a remote device.
    Service,
    /// The single-tier session on a remote device (UFO's
    /// `LinuxServiceSession`): one agent (`--app`, default `LinuxAgent`).
    LinuxService,
    /// The operator alone (UFO's `OpenAIOperatorSession`): a computer-use
    /// model on the desktop, or on `--app`'s window.
    Operator,
    /// Normal mode in which the HostAgent may also assign sub-tasks to the
    /// operator.
    NormalOperator,
    /// `batch_normal` in which the HostAgent may also assign sub-tasks to
    /// the operator (UFO's `batch_normal_operator`).
    BatchNormalOperator,
}

impl FromStr for Mode {
    type Err = SessionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "normal" => Ok(Mode::Normal),
            "follower" => Ok(Mode::Follower),
            "batch_normal" | "batch" => Ok(Mode::BatchNormal),
            "service" => Ok(Mode::Service),
            "linux_service" => Ok(Mode::LinuxService),
            "operator" => Ok(Mode::Operator),
            "normal_operator" => Ok(Mode::NormalOperator),
            "batch_normal_operator" => Ok(Mode::BatchNormalOperator),
            other => Err(SessionError::BadKey {
                key: "--mode".into(),
                message: format!(
                    "unknown mode {other:?}; use normal, follower, batch_normal, service, linux_service, operator, normal_operator or batch_normal_operator"
                ),
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
    /// `MAX_COST` was reached: the session stopped before its next step.
    Budget,
}

impl SessionStatus {
    /// UFO's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Finish => "FINISH",
            SessionStatus::Fail => "FAIL",
            SessionStatus::Error => "ERROR",
            SessionStatus::Budget => "BUDGET",
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
    /// Model usage and cost per agent (`HostAgent`, `AppAgent`,
    /// `EvaluationAgent`, ...).
    pub usage_by_agent: std::collections::BTreeMap<String, UsageTotals>,
    /// The evaluation, when run.
    pub evaluation: Option<ufo_agent::evaluation::EvaluationResult>,
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
            usage_by_agent: Default::default(),
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
        Some(Arc::new(config.price_table())),
    )
    .map_err(|e| SessionError::Model {
        section: section.to_owned(),
        help: e.help(),
        source: e.into(),
    })
}

/// Runs a session (or, for `batch_normal`, one per task file) and returns
/// the reports. One row per mode; each mode is a module of its own.
pub async fn run(s: &Services, opts: &RunOptions) -> Result<Vec<SessionReport>, SessionError> {
    // External MCP servers live as long as the session.
    let mcp = mcp::External::start(s).await;
    let s = mcp.services(s);
    let reports = match opts.mode {
        Mode::Normal => normal::run(s, opts).await,
        Mode::Follower => follower::run(s, opts).await,
        Mode::BatchNormal | Mode::BatchNormalOperator => batch::run(s, opts).await,
        Mode::Service | Mode::LinuxService => service::run(s, opts).await,
        Mode::Operator | Mode::NormalOperator => operator::run(s, opts).await,
    };
    mcp.stop().await;
    reports
}

/// The plan files of `--plan` (a file or a folder); `mode` says what the
/// mode does with them when `--plan` is missing.
fn plan_files_of(opts: &RunOptions, mode: &str) -> Result<Vec<PathBuf>, SessionError> {
    let path = opts.plan.as_ref().ok_or_else(|| SessionError::MissingKey {
        key: "--plan".into(),
        message: mode.into(),
    })?;
    plan_files(path)
}

/// The first line of `text`, at most 120 characters, for a progress line.
fn clip_line(text: &str) -> String {
    ufo_core::text::clip(text.lines().next().unwrap_or_default(), 120)
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
    rec: Recorder,
    task: String,
    step: usize,
    blackboard: Blackboard,
    host: Option<HostAgent>,
    apps: HashMap<String, SubAgent>,
    current_app: Option<String>,
    subtasks: Vec<SubtaskRecord>,
    requests: Vec<String>,
    result: String,
    error: Option<ErrorReport>,
    /// What `run_shell` may start, read once per session.
    allowlist: Option<ufo_desktop::launch::Allowlist>,
    /// The operator modes: the operator agent is available (and, in
    /// `operator` mode with `--app`, works on that application's window).
    operator: Option<operator::OperatorSetup>,
    /// The knowledge base, opened on first use (`None` inside: it could not be).
    knowledge: Option<Option<Arc<ufo_knowledge::KnowledgeBase>>>,
    /// A window was selected by the session itself (a replayed plan's
    /// HostAgent step, `--app`): there is a window to photograph.
    window_selected: bool,
    /// The first part of the AppAgents' names: `AppAgent`, or `BatchAgent`
    /// in batch and follower sessions (as UFO names them).
    app_role: &'static str,
}

impl<'a> Session<'a> {
    fn new(s: &'a Services, segments: &[&str]) -> Result<Self, SessionError> {
        Ok(Self {
            s,
            rec: Recorder::create(&s.log_root, segments)?,
            task: segments.join("/"),
            step: 0,
            blackboard: Blackboard::default(),
            host: None,
            apps: HashMap::new(),
            current_app: None,
            subtasks: Vec::new(),
            requests: Vec::new(),
            result: String::new(),
            error: None,
            allowlist: None,
            operator: None,
            knowledge: None,
            window_selected: false,
            app_role: ufo_agent::APP_ROLE,
        })
    }

    /// The programs `run_shell` may start (desktop entries plus
    /// `APP_ALLOWLIST`), read from disk on first use.
    fn allowlist(&mut self) -> &ufo_desktop::launch::Allowlist {
        let extra = &self.s.config.system.app_allowlist;
        self.allowlist
            .get_or_insert_with(|| ufo_desktop::launch::Allowlist::system(extra))
    }

    fn max_step_reached(&self) -> bool {
        self.step >= self.s.config.system.max_step
    }

    /// `MAX_COST` is set and the session's priced calls have reached it.
    fn budget_reached(&self) -> bool {
        self.s
            .config
            .system
            .max_cost
            .is_some_and(|max| self.rec.usage().cost >= max)
    }

    /// Logs a step (before anything else happens), shows it, sleeps. A log
    /// that cannot be written ends the session in ERROR (`Err`).
    async fn record(&mut self, mut rec: StepRecord) -> Result<(), SessionStatus> {
        if let Err(e) = self.rec.step(&mut rec) {
            self.s.io.show(&present(&rec));
            return Err(self.fail_with(&e));
        }
        self.s.io.show(&present(&rec));
        let t = self.s.config.system.sleep_time;
        if !t.is_zero() {
            tokio::time::sleep(t).await;
        }
        Ok(())
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
            settings.knowledge = self.retriever();
            let mut host = HostAgent::new(
                m,
                self.s.dispatcher.clone(),
                self.s.prompts.clone(),
                settings,
            );
            host.set_launchable(self.allowlist().programs().map(str::to_owned).collect());
            let mut agents: Vec<(String, String)> = self
                .s
                .config
                .system
                .third_party
                .iter()
                .map(|a| (a.spec.name.clone(), a.spec.introduction.clone()))
                .collect();
            if let Some(op) = &self.operator {
                agents.push(op.target());
            }
            host.set_third_party(agents);
            self.host = Some(host);
        }
        Ok(())
    }

    /// The enabled third-party agent named `name`, if there is one.
    fn third_party(&self, name: &str) -> Option<&crate::config::third_party::ThirdPartyAgent> {
        self.s
            .config
            .system
            .third_party
            .iter()
            .find(|a| a.spec.name == name)
    }

    /// The agent for `application` (an application or an enabled
    /// third-party agent), created on first use.
    fn ensure_app(&mut self, application: &str) -> Result<(), SessionError> {
        if !self.apps.contains_key(application) {
            let mut settings = self.s.config.system.agent.clone();
            settings.knowledge = self.retriever();
            if self.is_operator(application) {
                let agent = self.operator_agent(settings)?;
                self.apps.insert(application.to_owned(), agent);
                self.current_app = Some(application.to_owned());
                return Ok(());
            }
            let m = self.app_model()?;
            let agent = match self.third_party(application) {
                Some(tp) => SubAgent::Command(
                    CommandAgent::new(tp.spec.clone(), m, self.s.dispatcher.clone(), settings)
                        .map_err(|e| SessionError::BadKey {
                            key: format!("THIRD_PARTY_AGENT_CONFIG.{application}"),
                            message: e.report().message,
                        })?,
                ),
                None => {
                    let agent = AppAgent::new(
                        application,
                        m,
                        self.s.dispatcher.clone(),
                        self.s.prompts.clone(),
                        settings,
                    );
                    SubAgent::App(match self.app_role {
                        ufo_agent::BATCH_ROLE => agent.batch(),
                        _ => agent,
                    })
                }
            };
            self.apps.insert(application.to_owned(), agent);
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
        let e = SessionError::ModelSaidError {
            who: who.to_owned(),
            detail,
        }
        .report();
        self.s.io.show(&e.headline());
        self.error = Some(e);
    }

    fn fail_with(&mut self, e: &dyn Diagnostic) -> SessionStatus {
        // The report carries the real code also when `e` forwards one.
        let report = e.report();
        self.s.io.show(&report.rendered());
        self.error = Some(report);
        SessionStatus::Error
    }

    /// The HostAgent's next step. A failed step is logged and reported
    /// (`None`).
    async fn host_step(&mut self, round: usize, request: &str) -> Option<HostStep> {
        self.step += 1;
        self.s.io.show(&format!(
            "▶ Step {} · HostAgent: deciding the next sub-task of {:?}",
            self.step,
            clip_line(request)
        ));
        let started = std::time::Instant::now();
        let deadline = self.step_deadline();
        let host = self.host.as_mut()?;
        let r = match tokio::time::timeout(
            deadline,
            Box::pin(host.step(step_input!(self, round, request))),
        )
        .await
        {
            Ok(r) => r,
            Err(_) => {
                Err(self.deadline_missed(AgentKind::HostAgent, "HostAgent", request, started))
            }
        };
        self.settle(r).await
    }

    fn step_deadline(&self) -> Duration {
        self.s.config.system.step_timeout
    }

    /// The record and error of a step that missed its deadline.
    fn deadline_missed(
        &self,
        agent: AgentKind,
        name: &str,
        request: &str,
        started: std::time::Instant,
    ) -> StepFailure {
        let mut rec = StepRecord::new(agent, name, self.step);
        rec.request = request.to_owned();
        rec.fail(
            AgentError::StepDeadline {
                seconds: self.s.config.system.step_timeout.as_secs_f64(),
            },
            ufo_core::StepStatus::Error,
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
        let agent = self.apps.get(application)?;
        self.s.io.show(&format!(
            "▶ Step {} · {}: {}",
            self.step,
            agent.name(),
            clip_line(agent.subtask())
        ));
        let (kind, name) = (agent.kind(), agent.name().to_owned());
        let started = std::time::Instant::now();
        let deadline = self.step_deadline();
        let agent = self.apps.get_mut(application)?;
        let r = match tokio::time::timeout(
            deadline,
            Box::pin(agent.step(step_input!(self, round, request))),
        )
        .await
        {
            Ok(r) => r,
            Err(_) => Err(self.deadline_missed(kind, &name, request, started)),
        };
        self.settle(r).await
    }

    /// A step's outcome; an error is logged (its record) and reported.
    async fn settle<T>(&mut self, r: Result<T, StepFailure>) -> Option<T> {
        match r {
            Ok(t) => Some(t),
            Err(failure) => {
                let (e, rec) = failure.into_parts();
                // A log that cannot be written is reported too; the step's
                // own error is the one the session ends with.
                let _ = self.record(rec).await;
                self.fail_with(&e);
                None
            }
        }
    }

    /// Selects the window of `application` without a model.
    async fn select_app(&mut self, application: &str) -> Result<String, ErrorReport> {
        let r = execute_one(
            self.s.dispatcher.as_ref(),
            Tool::GetDesktopAppInfo.command(json!({})),
        )
        .await;
        if !r.is_success() {
            return Err(r.error.unwrap_or_else(|| {
                ufo_desktop::dispatch::DispatchError::NoResult {
                    tool: Tool::GetDesktopAppInfo.name().to_owned(),
                }
                .report()
            }));
        }
        let windows: Vec<WindowEntry> = serde_json::from_value(r.result).unwrap_or_default();
        let w = windows
            .iter()
            .find(|w| w.app_name == application)
            .or_else(|| {
                windows
                    .iter()
                    .find(|w| ufo_core::app_name_matches(application, &w.app_name))
            })
            .or_else(|| {
                windows.iter().find(|w| {
                    names_match(application, &w.app_name) || names_match(application, &w.name)
                })
            })
            .ok_or_else(|| {
                let open = windows
                    .iter()
                    .map(|w| format!("{} {:?}", w.app_name, w.name))
                    .collect::<Vec<_>>();
                let open = match open.is_empty() {
                    true => "no window answers".to_owned(),
                    false => format!("open: {}", open.join(", ")),
                };
                SessionError::AppNotFound {
                    application: application.to_owned(),
                    open,
                }
                .report()
            })?;
        let r = execute_one(
            self.s.dispatcher.as_ref(),
            Tool::SelectApplicationWindow.command(json!({"id": w.id, "name": w.name})),
        )
        .await;
        if r.is_success() {
            self.window_selected = true;
            Ok(w.name.clone())
        } else {
            Err(r.error.unwrap_or_else(|| {
                ufo_desktop::dispatch::DispatchError::NoResult {
                    tool: Tool::SelectApplicationWindow.name().to_owned(),
                }
                .report()
            }))
        }
    }
}
