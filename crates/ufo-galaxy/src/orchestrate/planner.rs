//! The planner hook: after tasks end, the orchestrator asks the planner
//! (the ConstellationAgent) for its edit and waits for it before it picks
//! the next tasks — UFO's barrier between a completion and the next
//! scheduling pass (`wait_for_pending_modifications`, brief §3.6).
//!
//! A [`Planner`] answers with the whole edited constellation, or `None`
//! to leave the plan as it is. Three ways in: [`NoPlanner`] (the run just
//! goes on), [`planner_fn`] (a closure), and [`planner_channel`] (requests
//! on a channel, for an agent running as its own task).

use crate::model::TaskConstellation;
use std::future::Future;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// What the planner is asked after tasks end.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanTurn {
    /// The tasks that ended since the last turn, in the order they ended
    /// (UFO's agent drains every queued completion before it edits).
    pub ended_task_ids: Vec<String>,
    /// The orchestrator's constellation now: the plan and every task's
    /// run state.
    pub constellation: Arc<TaskConstellation>,
}

/// Re-plans between completions.
///
/// Tasks still running go on while the planner thinks; their ends wait
/// for the next turn. The answer is merged with the run state by UFO's
/// rule ([`TaskConstellation::merge_run_state`]): the planner supplies the
/// structure, and for each task the more advanced status (with its
/// result, error and times) wins; removed tasks vanish, added ones are
/// scheduled when ready.
pub trait Planner: Send {
    /// The edited constellation, or `None` to keep the plan.
    fn replan(&mut self, turn: PlanTurn) -> impl Future<Output = Option<TaskConstellation>> + Send;
}

/// No planner: the run goes on after each end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoPlanner;

impl Planner for NoPlanner {
    fn replan(
        &mut self,
        _turn: PlanTurn,
    ) -> impl Future<Output = Option<TaskConstellation>> + Send {
        std::future::ready(None)
    }
}

/// A planner made of a closure; see [`planner_fn`].
#[derive(Debug, Clone)]
pub struct FnPlanner<F>(F);

/// A planner that calls `f` with each turn.
pub fn planner_fn<F, Fut>(f: F) -> FnPlanner<F>
where
    F: FnMut(PlanTurn) -> Fut + Send,
    Fut: Future<Output = Option<TaskConstellation>> + Send,
{
    FnPlanner(f)
}

impl<F, Fut> Planner for FnPlanner<F>
where
    F: FnMut(PlanTurn) -> Fut + Send,
    Fut: Future<Output = Option<TaskConstellation>> + Send,
{
    fn replan(&mut self, turn: PlanTurn) -> impl Future<Output = Option<TaskConstellation>> + Send {
        (self.0)(turn)
    }
}

/// One turn asked over [`planner_channel`]: answer it with
/// [`Self::keep`] or [`Self::replace`]. Dropping it unanswered keeps the
/// plan.
#[derive(Debug)]
pub struct PlanRequest {
    /// The turn.
    pub turn: PlanTurn,
    reply: oneshot::Sender<Option<TaskConstellation>>,
}

impl PlanRequest {
    /// Keeps the plan as it is.
    pub fn keep(self) {
        self.answer(None);
    }

    /// Replaces the plan with `constellation` (merged with the run state).
    pub fn replace(self, constellation: TaskConstellation) {
        self.answer(Some(constellation));
    }

    /// Answers with `constellation` or, for `None`, keeps the plan.
    pub fn answer(self, constellation: Option<TaskConstellation>) {
        // The orchestrator may have been cancelled meanwhile: then nobody
        // waits for the answer, and that is fine.
        let _ = self.reply.send(constellation);
    }
}

/// The orchestrator's side of [`planner_channel`].
#[derive(Debug, Clone)]
pub struct ChannelPlanner {
    requests: mpsc::Sender<PlanRequest>,
}

/// A planner that sends each turn as a [`PlanRequest`] on a channel and
/// waits for its answer: the ConstellationAgent, running as its own task,
/// reads the receiver. When the receiver is gone the run goes on
/// unplanned.
pub fn planner_channel(capacity: usize) -> (ChannelPlanner, mpsc::Receiver<PlanRequest>) {
    let (requests, rx) = mpsc::channel(capacity.max(1));
    (ChannelPlanner { requests }, rx)
}

impl Planner for ChannelPlanner {
    async fn replan(&mut self, turn: PlanTurn) -> Option<TaskConstellation> {
        let (reply, answer) = oneshot::channel();
        self.requests.send(PlanRequest { turn, reply }).await.ok()?;
        answer.await.ok().flatten()
    }
}
