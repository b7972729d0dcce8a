//! The agents a HostAgent hands sub-tasks to: an AppAgent per application,
//! or a third-party agent (the command-line agent). The session's state
//! machine drives both the same way: assign, step, confirm, finish.

use crate::app::{AppAgent, AppStep, StepInput};
use crate::command_agent::CommandAgent;
use crate::memory::Blackboard;
use crate::operator::OperatorAgent;
use crate::step::StepFailure;

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

/// `$body` for whichever agent `$agent` is, bound to `$a`: the three agents
/// share their [`Lifecycle`](crate::lifecycle::Lifecycle) (field `life`).
macro_rules! each {
    ($agent:expr, $a:ident => $body:expr) => {
        match $agent {
            SubAgent::App($a) => $body,
            SubAgent::Command($a) => $body,
            SubAgent::Operator($a) => $body,
        }
    };
}

impl SubAgent {
    /// `AppAgent/<application>/<window>` (`BatchAgent/...` in batch and
    /// follower sessions) or the third-party agent's name.
    pub fn name(&self) -> &str {
        each!(self, a => &a.name)
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
        each!(self, a => a.life.subtask())
    }

    /// The answer of the current sub-task, or else the model's last comment.
    pub fn outcome(&self) -> String {
        each!(self, a => a.life.outcome())
    }

    /// The model's last comment.
    pub fn comment(&self) -> &str {
        each!(self, a => a.life.comment())
    }

    /// Starts a sub-task (`window_title` is the AppAgent's window).
    pub fn assign(&mut self, subtask: &str, message: Vec<String>, window_title: &str) {
        match self {
            SubAgent::App(a) => a.assign(subtask, message, window_title),
            SubAgent::Command(c) => c.assign(subtask, message),
            SubAgent::Operator(o) => o.assign(subtask, message),
        }
    }

    /// Records the user's answers (PENDING); the next prompts carry them.
    /// (The operator's model has no PENDING: it is never asked.)
    pub fn add_answers(&mut self, qa: Vec<(String, String)>) {
        each!(self, a => a.life.answer(qa))
    }

    /// The calls waiting for confirmation, as `fn(k="v")`.
    pub fn pending_actions(&self) -> Vec<String> {
        each!(self, a => a.life.pending_actions())
    }

    /// Why SAFE_GUARD (or the provider) stopped the pending calls.
    pub fn pending_reasons(&self) -> Vec<String> {
        each!(self, a => a.life.pending_reasons())
    }

    /// One step.
    pub async fn step(&mut self, input: StepInput<'_>) -> Result<AppStep, StepFailure> {
        each!(self, a => a.step(input).await)
    }

    /// Continues after CONFIRM.
    pub async fn resume(
        &mut self,
        confirmed: bool,
        blackboard: &mut Blackboard,
    ) -> Option<AppStep> {
        each!(self, a => a.resume(confirmed, blackboard).await)
    }
}
