//! The orchestrator (UFO's `TaskConstellationOrchestrator`): runs a
//! constellation to its end over devices, without knowing the transport.
//!
//! * [`device`]: the [`DeviceRunner`] trait a device is reached through
//!   (the AIP client later, fakes in tests), [`SubTask`], [`TaskOutcome`],
//!   [`DeviceError`].
//! * [`planner`]: the [`Planner`] hook the ConstellationAgent edits the
//!   plan through between completions.
//! * [`event`]: the [`Event`]s sent on a channel as the run goes.
//! * [`CancelHandle`], [`OrchestrateError`], [`RunReport`]/[`Finished`].
//!
//! A run ([`Orchestrator::run`]):
//! 1. checks the plan: a valid DAG, no task already running, and every
//!    task still to run on a registered device ([`DeviceRunner::devices`])
//!    — otherwise [`OrchestrateError::DeviceAssignment`] names the tasks
//!    and the known devices before anything runs; then sends
//!    [`Event::ConstellationStarted`];
//! 2. computes the ready set ([`crate::ready::schedule`]; by default UFO's
//!    effective rule, [`Gating::AnyEnd`]: every prerequisite ended,
//!    whatever the dependency type; [`Gating::ByType`] on request) and
//!    starts ready tasks highest priority first, ties in task order, **at
//!    most one in flight per device**, each device first come first
//!    served, devices side by side, within [`Options::max_in_flight`];
//! 3. waits for a task to end (its `timeout`, or 1000 s: then it fails
//!    with UFO's timeout payload), records it — the task's `result` is
//!    UFO's `ExecutionResult` — and sends [`Event::TaskCompleted`] or
//!    [`Event::TaskFailed`];
//! 4. asks the [`Planner`] for its edit and **waits** for it before it
//!    computes the next ready set; merges the answer with the run state by
//!    UFO's rule and sends [`Event::ConstellationModified`];
//! 5. when every task has ended, derives the state (`completed`, `failed`
//!    or `partially_failed`, as UFO's `update_state`) and sends
//!    [`Event::ConstellationCompleted`] with the [`RunReport`].
//!
//! **Where this differs from UFO, on purpose:**
//! * UFO's orchestrator runs detached; a plan with a task on no or an
//!   unknown device makes it raise where nobody listens, and the agent
//!   hangs (brief §7.2). Here the run returns the error, before anything
//!   runs. A planner's edit with that problem (or an invalid DAG, or a
//!   running task removed) is refused with [`Event::PlanRefused`] and the
//!   run goes on with the plan as it was.
//! * A task waiting for its busy device stays `pending` (UFO marks it
//!   `running` as it joins the device queue), so the planner can still
//!   edit or remove it; [`Event::TaskStarted`] comes when it is sent.
//! * Cancelling ([`CancelHandle`]) aborts the jobs waiting for devices
//!   and marks their tasks `cancelled`, and every task not started too;
//!   the run ends `cancelled`. UFO leaves its tasks `running` and its
//!   device jobs going, and then fails to set the state. Neither can stop
//!   the device itself: AIP has no cancel frame.
//! * Under [`Gating::ByType`], tasks blocked by a failed `success_only`
//!   prerequisite that the planner does not rescue are cancelled when
//!   nothing else can run ([`Event::TaskCancelled`]), so the run ends.
//! * The limit on tasks in flight ([`Options::max_in_flight`]) exists;
//!   UFO reads `MAX_CONCURRENT_TASKS` and never applies it.
//! * Step and round caps are the agent's, not the orchestrator's.

pub mod cancel;
pub mod device;
pub mod error;
pub mod event;
mod payload;
pub mod planner;
mod queue;
pub mod report;
mod run;

pub use cancel::CancelHandle;
pub use device::{DeviceError, DeviceRunner, SubTask, TaskOutcome};
pub use error::OrchestrateError;
pub use event::{CancelReason, Event, TaskEnded};
pub use planner::{
    ChannelPlanner, FnPlanner, NoPlanner, PlanRequest, PlanTurn, Planner, planner_channel,
    planner_fn,
};
pub use report::{Finished, RunReport, StatusCounts};

use crate::model::TaskConstellation;
pub use crate::ready::Gating;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;

/// UFO's timeout of a sub-task without its own (`task.timeout or 1000`).
pub const DEFAULT_TASK_TIMEOUT: Duration = Duration::from_secs(1000);

/// How long the orchestrator waits for the planner before it goes on with
/// the plan unchanged (UFO's auto-release of a pending modification).
pub const DEFAULT_PLANNER_TIMEOUT: Duration = Duration::from_secs(600);

/// How a run schedules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// When a dependency releases its task: [`Gating::AnyEnd`] (UFO's
    /// effective rule, the default) or [`Gating::ByType`].
    pub gating: Gating,
    /// At most this many sub-tasks in flight over all devices (`None`: no
    /// limit but one per device, as in UFO); 0 counts as 1.
    pub max_in_flight: Option<usize>,
    /// The timeout of a task whose `timeout` is unset, zero, negative or
    /// not a number.
    pub default_timeout: Duration,
    /// How long to wait for the planner's answer (`None`: for ever).
    pub planner_timeout: Option<Duration>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            gating: Gating::AnyEnd,
            max_in_flight: None,
            default_timeout: DEFAULT_TASK_TIMEOUT,
            planner_timeout: Some(DEFAULT_PLANNER_TIMEOUT),
        }
    }
}

impl Options {
    /// The timeout of a task whose `timeout` field is `seconds`.
    pub fn timeout_of(&self, seconds: Option<f64>) -> Duration {
        seconds
            .filter(|s| s.is_finite() && *s > 0.0)
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .unwrap_or(self.default_timeout)
    }
}

/// Runs constellations over the devices of a [`DeviceRunner`], asking a
/// [`Planner`] between completions.
///
/// ```
/// use std::time::Duration;
/// use ufo_galaxy::TaskConstellation;
/// use ufo_galaxy::orchestrate::{DeviceError, DeviceRunner, Orchestrator, SubTask, TaskOutcome};
/// use ufo_galaxy::validate::KnownDevice;
///
/// struct Echo;
/// impl DeviceRunner for Echo {
///     fn devices(&self) -> Vec<KnownDevice> {
///         vec![KnownDevice::with_os("linux-1", "linux")]
///     }
///     async fn run(&self, task: SubTask) -> Result<TaskOutcome, DeviceError> {
///         Ok(TaskOutcome::completed(serde_json::json!([{"request": task.request, "result": "done"}])))
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
/// let plan = TaskConstellation::from_json(r#"{"tasks": [{"task_id": "fetch",
///     "name": "Fetch", "description": "Download the logs", "target_device_id": "linux-1"}]}"#)?;
/// let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
/// let done = Orchestrator::new(Echo).events(tx).run(plan).await?;
/// assert_eq!(done.report.state, ufo_galaxy::ConstellationState::Completed);
/// assert_eq!(events.recv().await.map(|e| e.event_type()), Some("constellation_started"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Orchestrator<D, P = NoPlanner> {
    devices: D,
    planner: P,
    options: Options,
    events: Option<UnboundedSender<Event>>,
    cancel: CancelHandle,
}

impl<D: DeviceRunner> Orchestrator<D> {
    /// An orchestrator over `devices`, without a planner, with the default
    /// [`Options`].
    pub fn new(devices: D) -> Self {
        Self {
            devices,
            planner: NoPlanner,
            options: Options::default(),
            events: None,
            cancel: CancelHandle::new(),
        }
    }
}

impl<D: DeviceRunner, P: Planner> Orchestrator<D, P> {
    /// Asks `planner` for an edit after each end.
    pub fn planner<Q: Planner>(self, planner: Q) -> Orchestrator<D, Q> {
        Orchestrator {
            devices: self.devices,
            planner,
            options: self.options,
            events: self.events,
            cancel: self.cancel,
        }
    }

    /// Schedules with `options`.
    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// Releases dependants by `gating`.
    pub fn gating(mut self, gating: Gating) -> Self {
        self.options.gating = gating;
        self
    }

    /// Keeps at most `n` sub-tasks in flight over all devices.
    pub fn max_in_flight(mut self, n: usize) -> Self {
        self.options.max_in_flight = Some(n);
        self
    }

    /// Sends every [`Event`] on `events`.
    pub fn events(mut self, events: UnboundedSender<Event>) -> Self {
        self.events = Some(events);
        self
    }

    /// Cancels the run through `cancel` (instead of its own handle).
    pub fn cancel_on(mut self, cancel: CancelHandle) -> Self {
        self.cancel = cancel;
        self
    }

    /// The handle that cancels the run.
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// Runs `constellation` to its end (see the module docs). Errors only
    /// before anything runs: an invalid plan, tasks on no or unknown
    /// devices, tasks already running.
    pub async fn run(self, constellation: TaskConstellation) -> Result<Finished, OrchestrateError> {
        let mut options = self.options;
        options.max_in_flight = options.max_in_flight.map(|n| n.max(1));
        run::Run::new(
            self.devices,
            self.planner,
            options,
            self.events,
            self.cancel,
            constellation,
        )
        .run()
        .await
    }
}
