//! How a run ended: the constellation's state, how many tasks ended how,
//! and how long it took (UFO's `CONSTELLATION_COMPLETED` statistics, the
//! part the orchestrator knows).

use crate::model::{ConstellationState, TaskConstellation, TaskStatus};
use serde::Serialize;
use std::time::Duration;

/// How many tasks have each status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StatusCounts {
    /// `pending`.
    pub pending: usize,
    /// `waiting_dependency`.
    pub waiting_dependency: usize,
    /// `running`.
    pub running: usize,
    /// `completed`.
    pub completed: usize,
    /// `failed`.
    pub failed: usize,
    /// `cancelled`.
    pub cancelled: usize,
}

impl StatusCounts {
    /// The counts of `c`'s tasks.
    pub fn of(c: &TaskConstellation) -> Self {
        let mut n = Self::default();
        for t in c.tasks() {
            *match t.status {
                TaskStatus::Pending => &mut n.pending,
                TaskStatus::WaitingDependency => &mut n.waiting_dependency,
                TaskStatus::Running => &mut n.running,
                TaskStatus::Completed => &mut n.completed,
                TaskStatus::Failed => &mut n.failed,
                TaskStatus::Cancelled => &mut n.cancelled,
            } += 1;
        }
        n
    }
}

/// The end of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReport {
    /// The constellation.
    pub constellation_id: String,
    /// `completed`, `failed` or `partially_failed` when every task ended
    /// (UFO's `update_state`), `cancelled` when the run was cancelled,
    /// `created` for a constellation without tasks.
    pub state: ConstellationState,
    /// How many tasks the constellation has at the end (added ones
    /// counted, removed ones not).
    pub total_tasks: usize,
    /// How many ended how (UFO's `task_status_counts`).
    pub task_status_counts: StatusCounts,
    /// Seconds from the start of the run to its end, on the runtime's
    /// clock (`tokio::time`, so a paused test clock reads it too).
    pub execution_duration: f64,
}

impl RunReport {
    pub(crate) fn new(c: &TaskConstellation, took: Duration) -> Self {
        Self {
            constellation_id: c.id().to_owned(),
            state: c.state(),
            total_tasks: c.tasks().len(),
            task_status_counts: StatusCounts::of(c),
            execution_duration: took.as_secs_f64(),
        }
    }

    /// [`Self::execution_duration`] as a duration.
    pub fn duration(&self) -> Duration {
        Duration::try_from_secs_f64(self.execution_duration).unwrap_or_default()
    }
}

/// What [`crate::orchestrate::Orchestrator::run`] gives back.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    /// The constellation at the end: the planner's last structure, every
    /// task's status, result and times.
    pub constellation: TaskConstellation,
    /// The statistics.
    pub report: RunReport,
}
