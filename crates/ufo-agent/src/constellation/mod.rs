//! The ConstellationAgent of Galaxy (UFO³): turns one request into a
//! constellation of sub-tasks over devices, runs it with the
//! [`ufo_galaxy::orchestrate::Orchestrator`], and re-plans as tasks end.
//!
//! * [`prompts`]: the creation and editing templates
//!   (`prompts/constellation/`), the device list and the constellation as
//!   the model sees them.
//! * [`reply`]: the reply `{thought, status, constellation?, action?,
//!   results?}` and its checks.
//! * [`ConstellationAgent::run`] (in `run.rs`): the loop.
//!
//! ## The loop
//! 1. **Creation** (one model call): the model answers with a plan
//!    (`CONTINUE`), or ends the request at once (`FINISH`/`FAIL`, whose
//!    `results` become the answer). `CONTINUE` without a constellation is
//!    refused: the agent ends with `FAIL` and says why. The plan is read
//!    and validated against the devices (a DAG, no dangling ends, known
//!    devices, at least one task); an invalid plan is sent back once with
//!    the validation error ([`ConstellationSettings::plan_retries`]), then
//!    the agent ends with `FAIL`.
//! 2. **Running**: the orchestrator runs the plan and, after each batch of
//!    task ends, waits for the agent's planner turn (through
//!    [`ufo_galaxy::orchestrate::planner_channel`]). Each turn is one
//!    editing call; the reply's `action` list is applied with the
//!    [`ufo_galaxy::edit::Editor`] (in order, stopping at the first edit
//!    refused; the edits before it stay), and how it went is shown to the
//!    model in the next prompt. The edited plan goes back to the
//!    orchestrator, which merges it with the run state.
//! 3. **The end**: `FAIL` ends the run; `FINISH` ends it once no task is
//!    running (said while one runs, it is ignored: the plan is kept and the
//!    run goes on, with a word to the model). Tasks not started are then
//!    cancelled. When every task has ended and the model asks for nothing
//!    more (`CONTINUE` without edits), the run ends by itself: `FINISH` if
//!    every task completed, `FAIL` otherwise, with the model's last
//!    `results`. A step cap ([`ConstellationSettings::max_step`], UFO's
//!    `MAX_STEP` 15, counting every model call) ends it with `FAIL`.
//!
//! A reply that is not JSON or misses its fields is asked again with the
//! error, up to [`ConstellationSettings::json_attempts`] attempts in all
//! (UFO's `JSON_PARSING_RETRY`, 3); then the agent ends with `FAIL`.
//!
//! ## Where this differs from UFO, on purpose
//! * An invalid plan at creation is sent back to the model once with the
//!   validation error; UFO fails at once without asking again.
//! * A reply with a schema problem (empty thought, unknown status) is
//!   asked again like unparseable JSON; UFO fails on it (and maps an
//!   unknown status to START, restarting the run). `FAILED` reads as
//!   `FAIL`.
//! * `FINISH`/`FAIL` at creation end the request even when a constellation
//!   came along; UFO runs any constellation it got, whatever the status.
//! * No hangs (brief §7.2): an orchestrator that ends before the model
//!   says `FINISH` ends the loop; a plan without tasks or with tasks on
//!   unknown devices is refused before it runs.
//! * `FINISH` said while tasks run is ignored, and `FINISH`/`FAIL`/the cap
//!   cancel tasks not started (running ones cannot be stopped: AIP has no
//!   cancel frame). UFO leaves everything as it is.
//! * A task's result shown to the model is cut at
//!   [`prompts::MAX_RESULT_CHARS`] characters; UFO shows it whole.
//! * Edits may change only tasks not started (the editor's rule); UFO's
//!   code protects only running tasks.

pub mod prompts;
pub mod reply;
mod run;

pub use prompts::{ConstellationPrompts, DeviceProfile, format_constellation, format_devices};
pub use reply::{AgentStatus, ConstellationReply, ReplyAction};

use serde::Serialize;
use std::sync::Arc;
use ufo_galaxy::TaskConstellation;
use ufo_galaxy::orchestrate::{Options, RunReport};
use ufo_llm::{ChatModel, UsageTotals};

/// UFO's `MAX_STEP`: model calls per request.
pub const MAX_STEP: usize = 15;
/// UFO's `JSON_PARSING_RETRY`: attempts in all per model call.
pub const JSON_ATTEMPTS: u32 = 3;

/// How the agent runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConstellationSettings {
    /// Model calls per request, creation included (UFO's 15).
    pub max_step: usize,
    /// Attempts in all for a reply that is not usable JSON (UFO's 3).
    pub json_attempts: u32,
    /// How often an invalid plan is sent back at creation (1; UFO: 0).
    pub plan_retries: u32,
    /// The orchestrator's options.
    pub options: Options,
}

impl Default for ConstellationSettings {
    fn default() -> Self {
        Self {
            max_step: MAX_STEP,
            json_attempts: JSON_ATTEMPTS,
            plan_retries: 1,
            options: Options::default(),
        }
    }
}

/// Which prompt a step answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepPhase {
    /// The creation prompt.
    Creation,
    /// An editing prompt.
    Editing,
}

/// One model call (with its re-asks), for the log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConstellationStep {
    /// 1-based; what the step cap counts.
    pub step: usize,
    /// Creation or editing.
    pub phase: StepPhase,
    /// Characters of the prompt first sent (system and user).
    pub prompt_chars: usize,
    /// Characters of every reply received.
    pub reply_chars: usize,
    /// Replies asked for (1 unless re-asked).
    pub attempts: u32,
    /// Why replies were asked again.
    pub parse_errors: Vec<String>,
    /// Repairs made to the reply.
    pub repairs: Vec<String>,
    /// The replies as received.
    pub raw_replies: Vec<String>,
    /// The status said, when a reply was usable.
    pub status: Option<AgentStatus>,
    /// The model's thought.
    pub thought: String,
    /// The model's results.
    pub results: String,
    /// The tasks that ended before this (editing) step.
    pub ended_task_ids: Vec<String>,
    /// Each edit and how it went (`add_task: success`, …).
    pub actions: Vec<String>,
    /// What the agent made of the reply, when it was not taken as said.
    pub note: Option<String>,
    /// Tokens and cost.
    pub usage: UsageTotals,
}

/// Why the run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The model said `FINISH` or `FAIL`.
    Model,
    /// Every task ended and the model asked for nothing more.
    AllTasksEnded,
    /// The step cap was reached.
    StepCap,
    /// The model's plan or reply was refused (no constellation with
    /// `CONTINUE`, an invalid plan twice).
    Refused,
    /// The model could not be asked or gave no usable reply, or the
    /// orchestrator could not run the plan.
    Error,
}

/// What [`ConstellationAgent::run`] gives back.
#[derive(Debug, Clone, PartialEq)]
pub struct ConstellationOutcome {
    /// `FINISH` or `FAIL`.
    pub status: AgentStatus,
    /// Why it ended.
    pub end: EndReason,
    /// The model's last `results` as text: the answer or its reason.
    pub results: String,
    /// The agent's own reason when it decided the end (refusal, cap,
    /// error, tasks failed).
    pub reason: Option<String>,
    /// The constellation at the end, when one was run.
    pub constellation: Option<TaskConstellation>,
    /// The orchestrator's statistics, when a run ended.
    pub report: Option<RunReport>,
    /// One record per model call.
    pub steps: Vec<ConstellationStep>,
}

/// The ConstellationAgent: plans a request over devices and re-plans as
/// sub-tasks end (see the module docs).
#[derive(Clone)]
pub struct ConstellationAgent {
    model: Arc<dyn ChatModel>,
    prompts: ConstellationPrompts,
    settings: ConstellationSettings,
    profiles: Option<Vec<DeviceProfile>>,
    events: Option<tokio::sync::mpsc::UnboundedSender<ufo_galaxy::orchestrate::Event>>,
}

impl std::fmt::Debug for ConstellationAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConstellationAgent")
            .field("settings", &self.settings)
            .field("profiles", &self.profiles)
            .finish_non_exhaustive()
    }
}

impl ConstellationAgent {
    /// An agent asking `model`, with `prompts` and the default settings.
    pub fn new(model: Arc<dyn ChatModel>, prompts: ConstellationPrompts) -> Self {
        Self {
            model,
            prompts,
            settings: ConstellationSettings::default(),
            profiles: None,
            events: None,
        }
    }

    /// Sends the orchestrator's events (tasks started and ended, plan
    /// edits merged or refused, the end) to `events`, for logs and views.
    pub fn events(
        mut self,
        events: tokio::sync::mpsc::UnboundedSender<ufo_galaxy::orchestrate::Event>,
    ) -> Self {
        self.events = Some(events);
        self
    }

    /// Runs with `settings`.
    pub fn settings(mut self, settings: ConstellationSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Describes the devices to the model with `profiles` (by default, each
    /// device of the runner with its id and kind as OS).
    pub fn device_profiles(mut self, profiles: Vec<DeviceProfile>) -> Self {
        self.profiles = Some(profiles);
        self
    }
}
