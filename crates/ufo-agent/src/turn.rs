//! One AppAgent step as the session drives it: what it is given
//! ([`StepInput`]) and what it gives back ([`AppStep`]); shared by the agents
//! and the sub-task lifecycle, and using nothing of them.

use crate::memory::{Blackboard, SubtaskRecord};
use crate::step::StepRecord;
use ufo_core::AppAgentStatus;

/// What a step needs from the session.
pub struct StepInput<'a> {
    /// Session step number (1-based), used for image names.
    pub session_step: usize,
    /// Round number.
    pub round: usize,
    /// The user request of the round.
    pub request: &'a str,
    /// The shared blackboard.
    pub blackboard: &'a mut Blackboard,
    /// Sub-tasks finished so far in the round.
    pub prev_subtasks: &'a [SubtaskRecord],
}

/// The outcome of an AppAgent step.
#[derive(Debug)]
pub struct AppStep {
    /// The log line.
    pub record: StepRecord,
    /// The status the state machine continues from.
    pub status: AppAgentStatus,
    /// Questions for the user (PENDING).
    pub questions: Vec<String>,
}

impl AppStep {
    /// A step that ends here: its record's total time runs from `started`.
    pub(crate) fn finished(
        mut record: StepRecord,
        status: AppAgentStatus,
        started: std::time::Instant,
    ) -> Self {
        record.total_time = started.elapsed().as_secs_f64();
        Self {
            record,
            status,
            questions: Vec::new(),
        }
    }

    /// A step completed after the user's confirmation: the time since
    /// `started` is added to what the step had already taken.
    pub(crate) fn resumed(
        mut record: StepRecord,
        status: AppAgentStatus,
        started: std::time::Instant,
    ) -> Self {
        record.total_time += started.elapsed().as_secs_f64();
        Self {
            record,
            status,
            questions: Vec::new(),
        }
    }

    /// The same step, asking the user `questions`.
    pub(crate) fn asking(mut self, questions: Vec<String>) -> Self {
        self.questions = questions;
        self
    }
}
