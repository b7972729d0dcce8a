//! The agents a HostAgent hands sub-tasks to: an AppAgent per application,
//! or a third-party agent (the command-line agent). The session's state
//! machine drives both the same way: assign, step, confirm, finish.

use crate::app::{AppAgent, AppStep, StepInput};
use crate::command_agent::CommandAgent;
use crate::error::AgentError;
use crate::memory::Blackboard;
use crate::operator::OperatorAgent;
use crate::step::StepRecord;

/// An agent that works on one sub-task at a time.
// One per application or third-party agent and session: the size difference
// between the variants does not matter.
#[allow(clippy::large_enum_variant)]
pub enum SubAgent {
    /// An AppAgent bound to an application.
    App(AppAgent),
    /// A third-party command-line agent.
    Command(CommandAgent),
    /// The operator (computer-use model, coordinates only).
    Operator(OperatorAgent),
}

impl SubAgent {
    /// `AppAgent/<application>` or the third-party agent's name.
    pub fn name(&self) -> &str {
        match self {
            SubAgent::App(a) => &a.name,
            SubAgent::Command(c) => &c.name,
            SubAgent::Operator(o) => &o.name,
        }
    }

    /// Whether it is a third-party agent.
    pub fn is_third_party(&self) -> bool {
        matches!(self, SubAgent::Command(_))
    }

    /// Which kind of agent it is, for the log.
    pub fn kind(&self) -> crate::step::AgentKind {
        match self {
            SubAgent::App(_) => crate::step::AgentKind::AppAgent,
            SubAgent::Command(_) => crate::step::AgentKind::ThirdPartyAgent,
            SubAgent::Operator(_) => crate::step::AgentKind::OperatorAgent,
        }
    }

    /// The current sub-task.
    pub fn subtask(&self) -> &str {
        match self {
            SubAgent::App(a) => &a.subtask,
            SubAgent::Command(c) => &c.subtask,
            SubAgent::Operator(o) => &o.subtask,
        }
    }

    /// The answer of the current sub-task, or else the model's last comment.
    pub fn outcome(&self) -> String {
        let (result, comment) = match self {
            SubAgent::App(a) => (&a.result, &a.comment),
            SubAgent::Command(c) => (&c.result, &c.comment),
            SubAgent::Operator(o) => (&o.result, &o.comment),
        };
        match result.is_empty() {
            true => comment.clone(),
            false => result.clone(),
        }
    }

    /// The model's last comment.
    pub fn comment(&self) -> &str {
        match self {
            SubAgent::App(a) => &a.comment,
            SubAgent::Command(c) => &c.comment,
            SubAgent::Operator(o) => &o.comment,
        }
    }

    /// Starts a sub-task (`window_title` is the AppAgent's window).
    pub fn assign(&mut self, subtask: &str, message: Vec<String>, window_title: &str) {
        match self {
            SubAgent::App(a) => a.assign(subtask, message, window_title),
            SubAgent::Command(c) => c.assign(subtask, message),
            SubAgent::Operator(o) => o.assign(subtask, message),
        }
    }

    /// Records the user's answers (PENDING).
    pub fn add_answers(&mut self, qa: Vec<(String, String)>) {
        match self {
            SubAgent::App(a) => a.add_answers(qa),
            SubAgent::Command(c) => c.add_answers(qa),
            // The operator asks nothing: its model has no PENDING.
            SubAgent::Operator(_) => {}
        }
    }

    /// The calls waiting for confirmation, as `fn(k="v")`.
    pub fn pending_actions(&self) -> Vec<String> {
        match self {
            SubAgent::App(a) => a.pending_actions(),
            SubAgent::Command(c) => c.pending_actions(),
            SubAgent::Operator(o) => o.pending_actions(),
        }
    }

    /// Why SAFE_GUARD stopped the pending calls.
    pub fn pending_reasons(&self) -> Vec<String> {
        match self {
            SubAgent::App(a) => a.pending_reasons(),
            SubAgent::Command(c) => c.pending_reasons(),
            SubAgent::Operator(o) => o.pending_reasons(),
        }
    }

    /// One step.
    pub async fn step(
        &mut self,
        input: StepInput<'_>,
    ) -> Result<AppStep, Box<(AgentError, StepRecord)>> {
        match self {
            SubAgent::App(a) => a.step(input).await,
            SubAgent::Command(c) => c.step(input).await,
            SubAgent::Operator(o) => o.step(input).await,
        }
    }

    /// Continues after CONFIRM.
    pub async fn resume(
        &mut self,
        confirmed: bool,
        blackboard: &mut Blackboard,
    ) -> Option<AppStep> {
        match self {
            SubAgent::App(a) => a.resume(confirmed, blackboard).await,
            SubAgent::Command(c) => c.resume(confirmed, blackboard).await,
            SubAgent::Operator(o) => o.resume(confirmed, blackboard).await,
        }
    }
}
