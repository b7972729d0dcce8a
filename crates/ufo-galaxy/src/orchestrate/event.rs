//! What the orchestrator tells its listeners (UFO's event bus,
//! `galaxy/core/events.py`), as one typed enum sent on a channel: each
//! variant carries the data UFO's event carries, the constellation
//! snapshot where UFO sends one.

use crate::model::{TaskConstellation, TaskStatus};
use crate::orchestrate::report::RunReport;
use serde_json::Value;
use std::sync::Arc;
use ufo_core::ErrorReport;

/// A task that ended (`TASK_COMPLETED` / `TASK_FAILED`).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskEnded {
    /// The constellation.
    pub constellation_id: String,
    /// The task.
    pub task_id: String,
    /// The device it ran on.
    pub device_id: String,
    /// `completed` or `failed`.
    pub status: TaskStatus,
    /// Its `result`: UFO's `ExecutionResult` (status, result, error,
    /// metadata, start and end times).
    pub result: Value,
    /// Its error text, on failure.
    pub error: Option<String>,
    /// Its dependants that became ready with its end (UFO's
    /// `newly_ready_tasks`), highest priority first.
    pub newly_ready_tasks: Vec<String>,
    /// The constellation just after the task ended.
    pub constellation: Arc<TaskConstellation>,
}

/// Why the orchestrator cancelled a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelReason {
    /// The run was cancelled ([`crate::orchestrate::CancelHandle`]).
    RunCancelled,
    /// Under type-aware gating, a `success_only` prerequisite failed (or
    /// waits on one that did) and the planner did not change the plan:
    /// nothing could ever start it.
    Blocked,
}

/// One thing that happened in a run, in the order it happened.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The plan passed its checks and the run begins
    /// (`CONSTELLATION_STARTED`).
    ConstellationStarted {
        /// The constellation.
        constellation_id: String,
        /// How many tasks it has.
        total_tasks: usize,
        /// Each task still to run and its device (UFO's
        /// `device_assignments`), in task order.
        device_assignments: Vec<(String, String)>,
        /// The constellation as it starts.
        constellation: Arc<TaskConstellation>,
    },
    /// A task was sent to its device (`TASK_STARTED`).
    TaskStarted {
        /// The constellation.
        constellation_id: String,
        /// The task.
        task_id: String,
        /// Its device.
        device_id: String,
    },
    /// A task completed (`TASK_COMPLETED`).
    TaskCompleted(TaskEnded),
    /// A task failed: the device said so, timed out or was lost
    /// (`TASK_FAILED`).
    TaskFailed(TaskEnded),
    /// A task will not run or was stopped (no UFO event: UFO never
    /// cancels a task).
    TaskCancelled {
        /// The constellation.
        constellation_id: String,
        /// The task.
        task_id: String,
        /// Why.
        reason: CancelReason,
    },
    /// The planner's edit was merged (`CONSTELLATION_MODIFIED`).
    ConstellationModified {
        /// The constellation.
        constellation_id: String,
        /// The tasks whose end the edit answered (UFO's `on_task_id`).
        on_task_ids: Vec<String>,
        /// Before the edit.
        old_constellation: Arc<TaskConstellation>,
        /// After the edit, merged with the run state.
        new_constellation: Arc<TaskConstellation>,
    },
    /// The planner's edit could not be taken (an invalid plan, a task on
    /// an unknown device, a running task removed): the run goes on with
    /// the plan as it was, and the next planner turn gets that plan (no
    /// UFO event: UFO's orchestrator stops there and the agent hangs).
    PlanRefused {
        /// The constellation.
        constellation_id: String,
        /// The tasks whose end the edit answered.
        on_task_ids: Vec<String>,
        /// Why, with its stable code and help line.
        error: ErrorReport,
    },
    /// Every task has ended, or the run was cancelled
    /// (`CONSTELLATION_COMPLETED`; its state says which).
    ConstellationCompleted {
        /// The statistics: state, counts per status, duration.
        report: RunReport,
        /// The constellation at the end.
        constellation: Arc<TaskConstellation>,
    },
}

impl Event {
    /// UFO's name of the event (`task_started`, …); the two events UFO
    /// lacks are `task_cancelled` and `constellation_modification_refused`.
    pub fn event_type(&self) -> &'static str {
        match self {
            Self::ConstellationStarted { .. } => "constellation_started",
            Self::TaskStarted { .. } => "task_started",
            Self::TaskCompleted(_) => "task_completed",
            Self::TaskFailed(_) => "task_failed",
            Self::TaskCancelled { .. } => "task_cancelled",
            Self::ConstellationModified { .. } => "constellation_modified",
            Self::PlanRefused { .. } => "constellation_modification_refused",
            Self::ConstellationCompleted { .. } => "constellation_completed",
        }
    }

    /// The task the event is about, if it is about one.
    pub fn task_id(&self) -> Option<&str> {
        match self {
            Self::TaskStarted { task_id, .. } | Self::TaskCancelled { task_id, .. } => {
                Some(task_id)
            }
            Self::TaskCompleted(e) | Self::TaskFailed(e) => Some(&e.task_id),
            _ => None,
        }
    }
}
