//! The harness: each task on its own fresh private desktop — setup, the
//! agent's session, postconfig, scoring, teardown — N at a time. A task's
//! crash, hang or checker error is recorded in its result and the run goes
//! on; a task with a `result.json` in the output folder is not run again.
//!
//! Cost budgets: `max_cost` for the whole run and `max_task_cost` per task
//! (in US dollars, priced model calls only). A task's session gets the
//! smaller of its own budget, what is left of the run's and the config's
//! `MAX_COST`; a session that reaches it ends BUDGET and its task is
//! `budget`, not scored. Once the run's budget is spent, the remaining
//! tasks are `budget` without running. Tasks running side by side each
//! get what was left when they started, so a parallel run can pass its
//! budget by what they spend together. A `budget` result is not stored:
//! a rerun (with more budget) runs the task again.

use crate::checkers::{CheckError, Got, check};
use crate::fetch::Fetcher;
use crate::getters::{GetContext, GetError, get};
use crate::preflight::Blocked;
use crate::score::{Conj, combine, task_score};
use crate::setup::{Failed, Started, StepContext, run_step};
use crate::task::{Step, TaskFile};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use ufo_core::render;
use ufo_desktop_atspi::{AtspiBackend, DesktopTarget};
use ufo_session::config::UfoConfig;
use ufo_session::dispatcher::local_dispatcher;
use ufo_session::{Mode, RunOptions, ScriptedIo, Services, SessionReport, SessionStatus};

mod desktop;
use desktop::{StopOnDrop, start_task_desktop};
pub use desktop::{TaskDesktop, is_root};

/// How the agent works on each task.
#[derive(Debug, Clone, PartialEq)]
pub enum EvalMode {
    /// HostAgent and AppAgents.
    Normal,
    /// The AppAgent alone on the task's first related app.
    SingleTier,
    /// Replays `plans/<id>.json` (OSWorld-style solutions; checks checkers).
    Follower(PathBuf),
    /// The operator alone on the whole desktop (a computer-use model from the
    /// config's `OPERATOR` section, by coordinates), as OSWorld's agents work.
    Operator,
}

/// What a run needs.
#[derive(Clone)]
pub struct EvalOptions {
    /// The session config (models, SAFE_GUARD, ...).
    pub config: UfoConfig,
    /// The agents' templates.
    pub prompts: Arc<ufo_agent::PromptSet>,
    /// Where results go (`<out>/<task id>/`, `results.json`, `report.md`).
    pub out: PathBuf,
    /// Tasks at a time.
    pub parallel: usize,
    /// Steps per task (`MAX_STEP`), when set.
    pub max_steps: Option<usize>,
    /// How the agent works.
    pub mode: EvalMode,
    /// The longest a task may take, setup to scoring.
    pub task_timeout: Duration,
    /// Downloads: the cache, or the mirror of an offline run.
    pub fetcher: Arc<Fetcher>,
    /// The desktop each task gets.
    pub desktop: TaskDesktop,
    /// The most the whole run may spend on models, USD (`--max-cost`).
    pub max_cost: Option<f64>,
    /// The most one task may spend on models, USD (`--max-task-cost`).
    pub max_task_cost: Option<f64>,
}

/// How a task's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Scored.
    Scored,
    /// A setup step OSWorld's harness stops at failed (a malformed step,
    /// a local file to copy that is missing); scored 0.
    SetupFailed,
    /// A file the task downloads could not be had (the error names the
    /// URL); not run, scored 0.
    Unavailable,
    /// The task needs an account (Google Drive, a login); not run.
    NeedsAccount,
    /// An application the task works on is not installed; not run.
    AppMissing,
    /// The task took longer than its timeout; scored 0.
    Timeout,
    /// A checker or getter this build lacks; scored 0.
    Unsupported,
    /// A checker could not read its inputs; scored 0.
    CheckerError,
    /// The harness itself failed (desktop, session); scored 0.
    Error,
    /// A cost budget ended the task (its own or the run's), or the run's was
    /// spent before it started; not scored.
    Budget,
}

/// One task's result (a line of `results.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskResult {
    /// The task's name in the run, `<domain>/<id>` ([`TaskFile::key`]).
    pub id: String,
    /// Its domain: OSWorld's, the task's folder ([`TaskFile::domain`]).
    pub domain: String,
    /// 0..=1.
    pub score: f64,
    /// How the run ended.
    pub status: RunStatus,
    /// The session's own status (FINISH, FAIL, ERROR), when it ran.
    #[serde(default)]
    pub session_status: Option<String>,
    /// Agent steps taken.
    pub steps: usize,
    /// Wall time, setup to teardown.
    pub time_s: f64,
    /// Model cost.
    pub cost: f64,
    /// Model tokens.
    pub tokens: u64,
    /// Model calls without a price: `cost` leaves them out (it is "not
    /// available" when every call was unpriced).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unpriced_calls: u32,
    /// Model calls to a local model (cost 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub local_calls: u32,
    /// Cost and tokens per agent (`HostAgent`, `AppAgent`, ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub agents: BTreeMap<String, AgentUsage>,
    /// What went wrong, if anything: a rendered error (`error[code]: …`
    /// with its `caused by:` and `help:` lines) when the harness or the
    /// session failed, else a message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The session's log folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_dir: Option<PathBuf>,
    /// Setup and postconfig steps that failed and were passed over, as
    /// OSWorld's harness passes over them (rendered errors).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub step_problems: Vec<String>,
    /// Pages a setup step opened that the browser could not reach (its
    /// error page: no network, or a site that is gone). A getter that reads
    /// what a visit leaves behind (`cookie_data`) makes the task
    /// `unavailable` then, naming them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreached: Vec<String>,
}

/// One agent's model use in a task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentUsage {
    /// Cost of its priced calls, USD.
    pub cost: f64,
    /// Tokens, input and output.
    pub tokens: u64,
    /// Input tokens.
    pub prompt_tokens: u64,
    /// Output tokens.
    pub completion_tokens: u64,
    /// Model calls.
    pub calls: u32,
    /// Calls without a price (not in `cost`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unpriced_calls: u32,
    /// Calls to a local model (cost 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub local_calls: u32,
}

impl AgentUsage {
    /// The totals of a session's agent.
    fn of(u: &ufo_llm::UsageTotals) -> Self {
        Self {
            cost: u.cost,
            tokens: u.usage.total_tokens,
            prompt_tokens: u.usage.prompt_tokens,
            completion_tokens: u.usage.completion_tokens,
            calls: u.calls,
            unpriced_calls: u.unpriced_calls,
            local_calls: u.local_calls,
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl TaskResult {
    fn new(task: &TaskFile) -> Self {
        Self {
            id: task.key(),
            domain: task.domain().to_owned(),
            score: 0.0,
            status: RunStatus::Error,
            session_status: None,
            steps: 0,
            time_s: 0.0,
            cost: 0.0,
            tokens: 0,
            unpriced_calls: 0,
            local_calls: 0,
            agents: BTreeMap::new(),
            error: None,
            log_dir: None,
            step_problems: Vec::new(),
            unreached: Vec::new(),
        }
    }
}

/// The output folder of `task`: `<out>/<domain>/<id>` for a task in a
/// folder, `<out>/<id>` for one at the top.
pub fn task_dir(out: &Path, task: &TaskFile) -> PathBuf {
    let mut dir = out.to_path_buf();
    if let Some(f) = &task.folder {
        for part in f.split('/') {
            dir.push(safe_name(part));
        }
    }
    dir.join(safe_name(&task.task.id))
}

/// A name safe for folders and desktop names.
pub fn safe_name(id: &str) -> String {
    let s: String = id
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                true => c,
                false => '_',
            },
        )
        .take(64)
        .collect();
    if s.is_empty() { "task".into() } else { s }
}

/// Runs `tasks`, `parallel` at a time; `progress` sees each result as it
/// lands. Results come back in task order.
pub async fn run_tasks(
    opts: &EvalOptions,
    tasks: Vec<TaskFile>,
    progress: impl Fn(&TaskResult) + Send + Sync + 'static,
) -> Vec<TaskResult> {
    let gate = Arc::new(tokio::sync::Semaphore::new(opts.parallel.max(1)));
    let progress = Arc::new(progress);
    let ledger = Arc::new(Ledger::default());
    let mut handles = Vec::new();
    for task in tasks {
        let opts = opts.clone();
        let progress = progress.clone();
        let ledger = ledger.clone();
        // Tasks start in the order given: the permit is taken here, not in
        // the spawned task (whose first poll order is the scheduler's), so
        // a run's budget is spent by the first tasks, as a user reads it.
        let permit = gate.clone().acquire_owned().await;
        // What a task that panics is reported as (its own result is lost).
        let lost = TaskResult::new(&task);
        let reporter = progress.clone();
        let handle = tokio::spawn(async move {
            let _permit = permit;
            let r = run_within(&opts, &task, &ledger).await;
            progress(&r);
            r
        });
        handles.push((handle, lost, reporter));
    }
    let mut out = Vec::new();
    for (handle, mut lost, reporter) in handles {
        match handle.await {
            Ok(r) => out.push(r),
            Err(e) => {
                lost.error = Some(ended_without_result(&e));
                tracing::error!(task = %lost.id, "{}", lost.error.as_deref().unwrap_or_default());
                reporter(&lost);
                out.push(lost);
            }
        }
    }
    out
}

/// The error of a task whose run ended without a result: it panicked (a
/// bug of ufo's: the message says so, with the panic's text) or was
/// cancelled.
fn ended_without_result(e: &tokio::task::JoinError) -> String {
    if !e.is_panic() {
        return "the task's run was cancelled before it gave a result".into();
    }
    let text = format!("{e}");
    format!(
        "ufo's harness failed on this task ({text}); the task was not scored: please report it with the task file"
    )
}

/// What a run has spent on models so far, USD.
#[derive(Default)]
struct Ledger(std::sync::Mutex<f64>);

impl Ledger {
    fn spent(&self) -> f64 {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn add(&self, cost: f64) {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) += cost;
    }
}

/// The budget a task's session gets: the smaller of the task's own and
/// what is left of the run's, with what it is for the error.
#[derive(Debug, Clone, Copy)]
struct TaskBudget {
    max: f64,
    /// Whether the run's remainder (not the task's own budget) set it.
    from_run: bool,
}

/// One task, resumable: a stored result is returned as it is.
pub async fn run_one(opts: &EvalOptions, task: &TaskFile) -> TaskResult {
    run_within(opts, task, &Ledger::default()).await
}

/// [`run_one`] within the run's budget: a task that finds it spent is
/// `budget` without running.
async fn run_within(opts: &EvalOptions, task: &TaskFile, ledger: &Ledger) -> TaskResult {
    let dir = task_dir(&opts.out, task);
    let stored = dir.join("result.json");
    if let Some(r) = std::fs::read_to_string(&stored)
        .ok()
        .and_then(|t| serde_json::from_str::<TaskResult>(&t).ok())
    {
        return r;
    }
    let mut result = TaskResult::new(task);
    let left = opts.max_cost.map(|m| m - ledger.spent());
    if let (Some(max), Some(left)) = (opts.max_cost, left)
        && left <= 0.0
    {
        result.status = RunStatus::Budget;
        result.error = Some(format!(
            "not run: the run's budget (--max-cost ${max:.4}) was spent before this task started (${:.4} spent)",
            ledger.spent()
        ));
        return result;
    }
    let budget = match (opts.max_task_cost, left) {
        (Some(t), Some(l)) if l < t => Some(TaskBudget {
            max: l,
            from_run: true,
        }),
        (Some(t), _) => Some(TaskBudget {
            max: t,
            from_run: false,
        }),
        (None, Some(l)) => Some(TaskBudget {
            max: l,
            from_run: true,
        }),
        (None, None) => None,
    };
    // The config's own MAX_COST, when smaller, is the session's as it is.
    let budget = budget.filter(|b| opts.config.system.max_cost.is_none_or(|c| c >= b.max));
    let started = Instant::now();
    match tokio::time::timeout(
        opts.task_timeout,
        attempt(opts, task, &dir, budget, &mut result),
    )
    .await
    {
        Ok(()) => {}
        Err(_) => {
            result.status = RunStatus::Timeout;
            result.score = 0.0;
            result.error = Some(format!(
                "the task did not finish within {} s",
                opts.task_timeout.as_secs()
            ));
        }
    }
    result.time_s = started.elapsed().as_secs_f64();
    ledger.add(result.cost);
    let _ = std::fs::create_dir_all(&dir);
    // A task a budget stopped runs again next time (with more budget).
    if result.status != RunStatus::Budget
        && let Ok(text) = serde_json::to_string_pretty(&result)
    {
        let _ = std::fs::write(&stored, text);
    }
    result
}

/// Everything of one task; fills `result` as it goes, so a timeout keeps
/// what was learnt.
async fn attempt(
    opts: &EvalOptions,
    task: &TaskFile,
    dir: &Path,
    budget: Option<TaskBudget>,
    result: &mut TaskResult,
) {
    if let Some((blocked, message)) = crate::preflight::check(task, &opts.fetcher).await {
        result.status = match blocked {
            Blocked::NeedsAccount => RunStatus::NeedsAccount,
            Blocked::AppMissing => RunStatus::AppMissing,
            Blocked::Unavailable => RunStatus::Unavailable,
        };
        result.error = Some(message);
        return;
    }
    let work = dir.join("work");
    let _ = std::fs::remove_dir_all(&work);
    if let Err(e) = std::fs::create_dir_all(&work) {
        result.error = Some(format!("cannot create {}: {e}", work.display()));
        return;
    }
    let (places, desktop) = match start_task_desktop(opts, task, work).await {
        Ok(v) => v,
        Err(e) => {
            result.error = Some(e);
            return;
        }
    };
    let guard = StopOnDrop(Some(desktop));
    let Some(desktop) = guard.0.as_ref() else {
        return;
    };
    if opts.desktop.vm_home
        && let Err(e) = crate::vm_home::apply_gsettings(desktop, &places).await
    {
        result.step_problems.push(e);
    }
    let backend = match AtspiBackend::connect(&DesktopTarget::from_private(desktop)).await {
        Ok(b) => Arc::new(b),
        Err(e) => {
            result.error = Some(render(&e));
            return;
        }
    };
    let cache = dir.join("cache");
    let started = Started::default();
    let steps = StepContext {
        desktop,
        backend: backend.as_ref(),
        places: &places,
        fetcher: &opts.fetcher,
        cache: &cache,
        started: &started,
    };
    if !run_steps(&steps, &task.task.config, result).await {
        return;
    }
    let report = match session(opts, task, dir, budget, backend.clone()).await {
        Ok(r) => r,
        Err(e) => {
            result.error = Some(e);
            return;
        }
    };
    session_ran(&report, budget, result);
    if result.status == RunStatus::Budget {
        return;
    }
    // The agent gave up (FAIL by its own decision, not a limit or an error).
    let gave_up = report.status == SessionStatus::Fail && report.error.is_none();
    if !run_steps(&steps, &task.task.evaluator.postconfig, result).await {
        if let Some(e) = result.error.as_mut() {
            *e = format!("postconfig: {e}");
        }
        return;
    }
    let gets = GetContext {
        desktop,
        backend: backend.as_ref(),
        places: &places,
        out: &dir.join("files"),
        fetcher: &opts.fetcher,
        cache: &cache,
        unreached: &result.unreached.clone(),
    };
    let mut problem: Option<(RunStatus, String)> = None;
    let metrics = metric_scores(task, &gets, &mut problem).await;
    let infeasible = task.task.infeasible();
    result.score = task_score(infeasible, gave_up, || metrics.unwrap_or(0.0));
    result.status = RunStatus::Scored;
    // A checker or getter that could not run is reported whatever the agent
    // did: the task's score cannot be trusted.
    if let Some((status, message)) = problem {
        result.status = status;
        result.score = 0.0;
        result.error = Some(message);
    }
}

/// What the session's report tells the task's result: status, steps, cost
/// and tokens (per agent too), logs; a session a budget stopped makes the
/// task `budget`, its error naming the budget.
fn session_ran(report: &SessionReport, budget: Option<TaskBudget>, result: &mut TaskResult) {
    result.session_status = Some(report.status.as_str().to_owned());
    result.steps = report.steps;
    result.cost = report.usage.cost;
    result.tokens = report.usage.usage.total_tokens;
    result.unpriced_calls = report.usage.unpriced_calls;
    result.local_calls = report.usage.local_calls;
    result.agents = report
        .usage_by_agent
        .iter()
        .map(|(a, u)| (a.clone(), AgentUsage::of(u)))
        .collect();
    result.log_dir = Some(report.log_dir.clone());
    if report.status != SessionStatus::Budget {
        return;
    }
    result.status = RunStatus::Budget;
    let why = match budget {
        Some(b) if b.from_run => format!(
            "the run's budget (--max-cost): ${:.4} was left when the task started",
            b.max
        ),
        Some(b) => format!("the task's budget (--max-task-cost ${:.4})", b.max),
        None => "the config's MAX_COST".to_owned(),
    };
    let e = report
        .error
        .as_ref()
        .map(|e| e.rendered())
        .unwrap_or_else(|| "MAX_COST reached".into());
    result.error = Some(format!("stopped by {why}, not scored: {e}"));
}

/// Runs `steps` as OSWorld's harness does: a step that fails on the
/// desktop is recorded in `result.step_problems` and the next one runs; one
/// OSWorld stops at sets the task's status and error. Whether the task
/// goes on.
async fn run_steps(cx: &StepContext<'_>, steps: &[Step], result: &mut TaskResult) -> bool {
    for (i, s) in steps.iter().enumerate() {
        let (status, e) = match run_step(cx, i + 1, s).await {
            Ok(()) => continue,
            Err(Failed::Logged(e)) => {
                tracing::info!(task = %result.id, "passed over: {e}");
                result.step_problems.push(render(&e));
                continue;
            }
            Err(Failed::Unreached(e, urls)) => {
                tracing::info!(task = %result.id, "passed over: {e}");
                result.step_problems.push(render(&e));
                result.unreached.extend(urls);
                continue;
            }
            Err(Failed::Fatal(e)) => (RunStatus::SetupFailed, e),
            Err(Failed::Unavailable(e)) => (RunStatus::Unavailable, e),
            Err(Failed::Unsupported(e)) => (RunStatus::Unsupported, e),
        };
        result.status = status;
        result.error = Some(render(&e));
        return false;
    }
    true
}

async fn session(
    opts: &EvalOptions,
    task: &TaskFile,
    dir: &Path,
    budget: Option<TaskBudget>,
    backend: Arc<AtspiBackend>,
) -> Result<SessionReport, String> {
    let mut config = opts.config.clone();
    if let Some(m) = opts.max_steps {
        config.system.max_step = m;
    }
    if let Some(b) = budget {
        config.system.max_cost = Some(config.system.max_cost.map_or(b.max, |c| c.min(b.max)));
    }
    config.system.max_round = 1;
    let (mode, plan, app) = match &opts.mode {
        EvalMode::Normal => (Mode::Normal, None, None),
        EvalMode::Operator => (Mode::Operator, None, None),
        EvalMode::SingleTier => (
            Mode::Normal,
            None,
            Some(single_tier_app(task, &backend).await),
        ),
        EvalMode::Follower(plans) => {
            // `plans/<domain>/<id>.json`, else `plans/<id>.json`.
            let flat = plans.join(format!("{}.json", task.task.id));
            let p = match &task.folder {
                Some(f) => plans.join(format!("{f}/{}.json", task.task.id)),
                None => flat.clone(),
            };
            let p = if p.is_file() { p } else { flat };
            if !p.is_file() {
                return Err(format!("no plan {} for this task", p.display()));
            }
            (Mode::Follower, Some(p), None)
        }
    };
    let services = Services {
        dispatcher: Arc::new(local_dispatcher(backend, &config.system)),
        // Nobody answers: CONFIRM is declined, PENDING gets no answer.
        io: Arc::new(ScriptedIo::new(Vec::<String>::new())),
        prompts: opts.prompts.clone(),
        log_root: dir.join("logs"),
        config,
    };
    let run = RunOptions {
        task: "session".into(),
        mode,
        request: Some(task.task.instruction.clone()),
        plan,
        app,
    };
    let reports = ufo_session::run(&services, &run)
        .await
        .map_err(|e| render(&e))?;
    reports
        .into_iter()
        .next()
        .ok_or_else(|| "the session reported nothing".to_owned())
}

/// The application a single-tier session works on: the first related app
/// that has a window, else the application of the focused (or first) window
/// (related apps are often named otherwise than on the desktop: `localc` is
/// `soffice` there).
async fn single_tier_app(task: &TaskFile, backend: &AtspiBackend) -> String {
    use ufo_desktop::Backend;
    let windows = backend.list_windows().await.unwrap_or_default();
    let named = task.task.related_apps.iter().find(|a| {
        windows
            .iter()
            .any(|w| ufo_desktop::names::names_match(a, &w.app_name))
    });
    match named {
        Some(a) => a.clone(),
        None => windows
            .iter()
            .find(|w| w.focused)
            .or(windows.first())
            .map(|w| w.app_name.clone())
            .unwrap_or_else(|| task.task.app_domain().to_owned()),
    }
}

/// The `i`-th of a getter/option list, or its only item for all.
fn nth(
    list: Option<&crate::task::OneOrMany<Map<String, Value>>>,
    i: usize,
) -> Option<Map<String, Value>> {
    match list? {
        crate::task::OneOrMany::One(m) => Some(m.clone()),
        crate::task::OneOrMany::Many(v) => v.get(i).cloned(),
    }
}

/// The metrics combined by `conj`, lazily; the first problem (unsupported
/// checker or getter, unreadable inputs) is kept in `problem`.
async fn metric_scores(
    task: &TaskFile,
    gets: &GetContext<'_>,
    problem: &mut Option<(RunStatus, String)>,
) -> Option<f64> {
    let ev = &task.task.evaluator;
    let funcs = ev.func.items();
    if task.task.infeasible() {
        return None;
    }
    let conj = match Conj::parse(ev.conj.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            *problem = Some((RunStatus::CheckerError, e));
            return None;
        }
    };
    let mut scores = Vec::new();
    for (i, func) in funcs.iter().enumerate() {
        let s = one_metric(func, i, ev, gets).await;
        let s = match s {
            Ok(s) => s,
            Err((status, message)) => {
                problem.get_or_insert((status, message));
                0.0
            }
        };
        // Short-circuits as OSWorld does.
        let stop = match conj {
            Conj::And => s == 0.0,
            Conj::Or => s == 1.0,
        };
        scores.push(s);
        if stop {
            break;
        }
    }
    Some(combine(conj, scores))
}

async fn one_metric(
    func: &str,
    i: usize,
    ev: &crate::task::Evaluator,
    gets: &GetContext<'_>,
) -> Result<f64, (RunStatus, String)> {
    let status = |e: GetError| match e {
        GetError::Unsupported(m) => (RunStatus::Unsupported, m),
        GetError::Unavailable(m) => (RunStatus::Unavailable, m),
        GetError::NeedsAccount(m) => (RunStatus::NeedsAccount, m),
    };
    let result = match nth(ev.result.as_ref(), i) {
        Some(spec) => get(gets, &spec).await.map_err(status)?,
        None => Got::Missing,
    };
    let expected = match nth(ev.expected.as_ref(), i) {
        Some(spec) => Some(get(gets, &spec).await.map_err(status)?),
        None => None,
    };
    let options = nth(ev.options.as_ref(), i).unwrap_or_default();
    check(func, &result, expected.as_ref(), &options).map_err(|e| match e {
        CheckError::Unsupported(_) => (RunStatus::Unsupported, render(&e)),
        CheckError::Bad { .. } | CheckError::MissingTool { .. } => {
            (RunStatus::CheckerError, render(&e))
        }
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_task_that_panics_is_an_error_that_says_so() {
        let panicked = tokio::spawn(async { panic!("the checker met a bug") })
            .await
            .unwrap_err();
        let said = ended_without_result(&panicked);
        assert!(said.contains("the checker met a bug"), "{said}");
        assert!(said.contains("not scored"), "{said}");
        let cancelled = tokio::spawn(std::future::pending::<()>());
        cancelled.abort();
        let said = ended_without_result(&cancelled.await.unwrap_err());
        assert!(said.contains("cancelled"), "{said}");
    }

    #[test]
    fn ids_become_safe_folder_names() {
        assert_eq!(safe_name("a/b c"), "a_b_c");
        assert_eq!(safe_name(""), "task");
        assert_eq!(safe_name("x-1_y"), "x-1_y");
    }
}
