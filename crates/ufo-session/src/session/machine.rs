//! A round: the HostAgent ⇄ AppAgent state machine (ASSIGN, CONTINUE,
//! CONFIRM, PENDING, FINISH/FAIL/ERROR), and its single-tier form.

use super::{Session, SessionStatus};
use crate::error::SessionError;
use ufo_agent::{Assignment, HostStep};
use ufo_agent::{StepRecord, SubtaskRecord};
use ufo_core::{AppAgentStatus, Diagnostic, HostAgentStatus};

/// The round's result when the user stops an agent that waited for them.
const DECLINED: &str = "The user declined to go on (declined by the user).";

/// The state of a round's machine: which agent acts and in which status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    Host(HostAgentStatus),
    App(AppAgentStatus),
    End(SessionStatus),
}

impl Session<'_> {
    /// A HostAgent round.
    pub(super) async fn run_round(&mut self, round: usize, request: &str) -> SessionStatus {
        self.requests.push(request.to_owned());
        self.blackboard.requests.push(request.to_owned());
        if let Err(e) = self.ensure_host() {
            return self.fail_with(&e);
        }
        self.machine(
            round,
            request,
            State::Host(HostAgentStatus::Continue),
            false,
        )
        .await
    }

    /// The round's state machine: one exhaustive match over the state, each
    /// transition a method of its own.
    pub(super) async fn machine(
        &mut self,
        round: usize,
        request: &str,
        start: State,
        single: bool,
    ) -> SessionStatus {
        let mut state = start;
        let mut assignment = None;
        loop {
            state = match state {
                State::End(st) => return st,
                State::Host(HostAgentStatus::Continue) | State::App(AppAgentStatus::Continue)
                    if self.budget_reached() =>
                {
                    self.budget_ends_round()
                }
                State::Host(HostAgentStatus::Continue) | State::App(AppAgentStatus::Continue)
                    if self.max_step_reached() =>
                {
                    self.max_step_ends_round()
                }
                State::Host(HostAgentStatus::Continue) => {
                    self.host_continues(round, request, &mut assignment).await
                }
                State::Host(HostAgentStatus::Assign) => self.host_assigns(assignment.take()),
                // Answers (or the confirmation) were given right after the step.
                State::Host(HostAgentStatus::Pending | HostAgentStatus::Confirm) => {
                    State::Host(HostAgentStatus::Continue)
                }
                State::Host(HostAgentStatus::Finish) => State::End(SessionStatus::Finish),
                State::Host(HostAgentStatus::Fail) => State::End(SessionStatus::Fail),
                State::Host(HostAgentStatus::Error) => State::End(SessionStatus::Error),
                State::App(AppAgentStatus::Continue) => self.app_continues(round, request).await,
                State::App(AppAgentStatus::Confirm) => self.app_confirms().await,
                State::App(AppAgentStatus::Pending) => State::App(AppAgentStatus::Continue),
                State::App(
                    st @ (AppAgentStatus::Finish | AppAgentStatus::Fail | AppAgentStatus::Error),
                ) => self.app_ends(st, single),
            };
        }
    }

    /// MAX_STEP reached: said, and the round fails.
    fn max_step_ends_round(&mut self) -> State {
        self.s.io.show(&format!(
            "MAX_STEP ({}) reached; the round ends.",
            self.s.config.system.max_step
        ));
        self.error = Some(
            SessionError::MaxStep {
                max: self.s.config.system.max_step,
            }
            .report(),
        );
        State::End(SessionStatus::Fail)
    }

    /// MAX_COST reached: said, and the round (and the session) ends BUDGET
    /// before another model call.
    fn budget_ends_round(&mut self) -> State {
        let usage = self.rec.usage();
        let e = SessionError::Budget {
            max: self.s.config.system.max_cost.unwrap_or_default(),
            spent: usage.cost,
            tokens: usage.usage.total_tokens,
        };
        self.s.io.show(&format!("{e}; the session ends."));
        self.error = Some(e.report());
        State::End(SessionStatus::Budget)
    }

    /// A HostAgent step: its launch (if any), its record on disk, then the
    /// user's turn when it waits for them.
    async fn host_continues(
        &mut self,
        round: usize,
        request: &str,
        assignment: &mut Option<Assignment>,
    ) -> State {
        let Some(mut h) = self.host_step(round, request).await else {
            return State::Host(HostAgentStatus::Error);
        };
        if let Some(command) = h.launch.clone()
            && let Err(end) = self.launch(&mut h, &command).await
        {
            return State::End(end);
        }
        assignment.clone_from(&h.assignment);
        if matches!(h.status, HostAgentStatus::Finish | HostAgentStatus::Fail) {
            self.result = h.result.clone();
        }
        let mut st = h.status;
        let comment = h.record.comment.clone();
        if st == HostAgentStatus::Error {
            let said = if h.result.is_empty() {
                h.record.comment.clone()
            } else {
                h.result.clone()
            };
            self.model_said_error("HostAgent", &said);
        }
        // On disk before the user is asked anything.
        if let Err(end) = self.record(h.record).await {
            return State::End(end);
        }
        if matches!(st, HostAgentStatus::Pending | HostAgentStatus::Confirm) {
            match self.user_turn("HostAgent", &h.questions, &comment).await {
                Some(qa) => {
                    if let Some(host) = self.host.as_mut() {
                        host.add_answers(qa);
                    }
                }
                None => {
                    self.result = DECLINED.to_owned();
                    st = HostAgentStatus::Finish;
                }
            }
        }
        State::Host(st)
    }

    /// ASSIGN: the sub-task goes to its application's agent.
    fn host_assigns(&mut self, assignment: Option<Assignment>) -> State {
        let Some(a) = assignment else {
            return State::Host(HostAgentStatus::Continue);
        };
        match self.ensure_app(&a.application) {
            Ok(()) => {
                if let Some(agent) = self.apps.get_mut(&a.application) {
                    agent.assign(&a.subtask, a.message.clone(), &a.window_title);
                }
                State::App(AppAgentStatus::Continue)
            }
            Err(e) => State::End(self.fail_with(&e)),
        }
    }

    /// An application step: on disk (a CONFIRM one as it waits), then the
    /// user's answers when it asked questions.
    async fn app_continues(&mut self, round: usize, request: &str) -> State {
        let key = self.current_app.clone().unwrap_or_default();
        let Some(step) = self.app_step(&key, round, request).await else {
            return State::App(AppAgentStatus::Error);
        };
        let mut st = step.status;
        let comment = step.record.comment.clone();
        // Every step is on disk before the user is asked anything. A CONFIRM
        // step is written as it waits; its completed record follows after the
        // answer.
        let written = match st {
            AppAgentStatus::Confirm => self.awaiting(&step.record),
            _ => self.record(step.record).await,
        };
        if let Err(end) = written {
            return State::End(end);
        }
        if st == AppAgentStatus::Pending {
            let who = self.apps.get(&key).map(|a| a.name().to_owned());
            let who = who.unwrap_or_default();
            match self.user_turn(&who, &step.questions, &comment).await {
                Some(qa) => {
                    if let Some(agent) = self.apps.get_mut(&key) {
                        agent.add_answers(qa);
                    }
                }
                None => st = AppAgentStatus::Finish,
            }
        }
        State::App(st)
    }

    /// CONFIRM: the user confirms the sensitive actions (with SAFE_GUARD),
    /// and the agent resumes with the answer.
    async fn app_confirms(&mut self) -> State {
        let key = self.current_app.clone().unwrap_or_default();
        let (actions, reasons) = self
            .apps
            .get(&key)
            .map(|a| (a.pending_actions(), a.pending_reasons()))
            .unwrap_or_default();
        let why = match reasons.is_empty() {
            true => String::new(),
            false => format!(" (SAFE_GUARD: {})", reasons.join("; ")),
        };
        let confirmed = match self.s.config.system.safe_guard {
            true => {
                let prompt = format!(
                    "[{key}] The next action is sensitive: {}{why}. Do you want to proceed?",
                    actions.join("; ")
                );
                self.s.io.confirm(&prompt).await
            }
            false => true,
        };
        let resumed = match self.apps.get_mut(&key) {
            Some(agent) => agent.resume(confirmed, &mut self.blackboard).await,
            None => None,
        };
        match resumed {
            Some(step) => {
                let st = step.status;
                match self.record(step.record).await {
                    Ok(()) => State::App(st),
                    Err(end) => State::End(end),
                }
            }
            None => State::App(AppAgentStatus::Continue),
        }
    }

    /// FINISH, FAIL or ERROR of an application's agent: its sub-task is
    /// recorded; the HostAgent goes on (or, single-tier, the round ends).
    fn app_ends(&mut self, st: AppAgentStatus, single: bool) -> State {
        let key = self.current_app.clone().unwrap_or_default();
        if let Some(agent) = self.apps.get(&key) {
            let result = agent.outcome();
            self.subtasks.push(SubtaskRecord {
                subtask: agent.subtask().to_owned(),
                application: key.clone(),
                status: st,
                result: result.clone(),
            });
            if single {
                self.result = result;
            }
        }
        match (st, single) {
            (AppAgentStatus::Error, _) => {
                let (who, said) = self
                    .apps
                    .get(&key)
                    .map(|a| (a.name().to_owned(), a.comment().to_owned()))
                    .unwrap_or_default();
                self.model_said_error(&who, &said);
                State::End(SessionStatus::Error)
            }
            (AppAgentStatus::Finish, true) => State::End(SessionStatus::Finish),
            (_, true) => State::End(SessionStatus::Fail),
            (_, false) => State::Host(HostAgentStatus::Continue),
        }
    }

    /// The HostAgent's `run_shell`: with SAFE_GUARD the step is written as it
    /// waits and the user confirms; then the command runs (or is declined). A
    /// command that is not allowed goes straight to the tool, which refuses it.
    /// A step that also selects an application selects it then (`h`'s status
    /// and assignment are updated).
    pub(super) async fn launch(
        &mut self,
        h: &mut HostStep,
        command: &str,
    ) -> Result<(), SessionStatus> {
        // A command the tool will refuse is not put to the user.
        let runnable = self.allowlist().parse(command).is_ok();
        let confirmed = match self.s.config.system.safe_guard && runnable {
            true => {
                self.awaiting(&h.record)?;
                let prompt = format!(
                    "[HostAgent] The next action starts an application: run_shell(bash_command={command:?}) (SAFE_GUARD: it runs a command). Do you want to proceed?"
                );
                self.s.io.confirm(&prompt).await
            }
            false => true,
        };
        if let Some(host) = self.host.as_mut() {
            host.run_shell(h, command, confirmed).await;
        }
        Ok(())
    }

    /// Writes a step that waits for the user's confirmation.
    fn awaiting(&mut self, rec: &StepRecord) -> Result<(), SessionStatus> {
        self.rec.awaiting(rec).map_err(|e| self.fail_with(&e))
    }

    /// PENDING (and the HostAgent's CONFIRM): the agent waits for the user.
    /// Its questions are asked and the answers returned; without questions
    /// it asks to go on with what its comment says (a safety-critical step):
    /// `Some(vec![])` when the user confirms, `None` when they stop it (or
    /// nobody can answer), so that a PENDING without questions never loops.
    async fn user_turn(
        &mut self,
        who: &str,
        questions: &[String],
        comment: &str,
    ) -> Option<Vec<(String, String)>> {
        if !questions.is_empty() {
            return Some(self.ask_questions(questions).await);
        }
        let what = match comment.trim() {
            "" => "it gave no questions and no comment".to_owned(),
            c => c.to_owned(),
        };
        let prompt = format!(
            "[{who}] waits for your confirmation before it goes on: {what}. Do you want to proceed?"
        );
        self.s.io.confirm(&prompt).await.then(Vec::new)
    }

    async fn ask_questions(&mut self, questions: &[String]) -> Vec<(String, String)> {
        let mut qa = Vec::new();
        for q in questions {
            let a = self.s.io.ask(q).await.unwrap_or_default();
            self.blackboard
                .questions
                .push(ufo_agent::memory::QuestionAnswer {
                    question: q.clone(),
                    answer: a.clone(),
                });
            qa.push((q.clone(), a));
        }
        qa
    }
}
