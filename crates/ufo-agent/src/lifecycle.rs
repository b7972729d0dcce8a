//! One sub-task's lifecycle, shared by every agent the HostAgent hands work
//! to (the AppAgent, the command-line agent, the operator):
//!
//! 1. **assign**: the HostAgent gives it a sub-task and messages; what the
//!    previous sub-task left (its result, comment, a held step) is dropped.
//! 2. **ask / answer** (PENDING): a step may end with questions for the user;
//!    the session asks them and hands the answers back, and every later
//!    prompt carries them. A PENDING without questions opens nothing: the
//!    session asks the user whether to go on instead, so it cannot wait for
//!    answers that will never come.
//! 3. **hold / resume** (CONFIRM): a sensitive step is held before it acts;
//!    the session asks the user, and the agent resumes it — carrying out the
//!    held work when confirmed, dropping it otherwise — and completes the
//!    same step record.
//!
//! [`Lifecycle`] holds that state; each agent's `resume` (e.g.
//! [`AppAgent::resume`](crate::AppAgent::resume)) is the same driver over
//! what the agent supplies: how to carry out or decline its held work.

use crate::memory::{Blackboard, Memory};
use crate::prompter::render;
use crate::step::{AgentKind, StepRecord};
use crate::turn::{AppStep, StepInput};
use std::time::Instant;
use ufo_core::{AppAgentStatus, StepStatus};

/// A step held for the user's confirmation.
#[derive(Debug, Clone)]
pub struct Held<W> {
    /// The step as it waits; resuming completes it.
    pub record: StepRecord,
    /// What the agent does once the user confirms.
    pub work: W,
    /// The held actions as the user is shown them (`fn(k="v")`).
    pub actions: Vec<String>,
    /// Why the step waits (SAFE_GUARD's reasons, a provider's safety
    /// checks); empty when the model itself asked for confirmation.
    pub reasons: Vec<String>,
}

/// The user's answers to an agent's questions (question, answer), oldest
/// first. They answer the request, not one step: every later prompt of the
/// agent carries them. The HostAgent keeps them too, outside a
/// [`Lifecycle`] (it holds no steps: its `run_shell` waits in the
/// [`HostStep`](crate::HostStep) for the session).
#[derive(Debug, Clone, Default)]
pub struct Answers(Vec<(String, String)>);

impl Answers {
    /// Adds the answers to the last questions.
    pub fn add(&mut self, qa: Vec<(String, String)>) {
        self.0.extend(qa);
    }

    /// Every answer, oldest first.
    pub fn all(&self) -> &[(String, String)] {
        &self.0
    }

    /// Each answer rendered with `template` (a template's
    /// `pending_answer`, with `{question}` and `{answer}`); none without a
    /// template.
    pub fn rendered<'a>(&'a self, template: Option<&'a str>) -> impl Iterator<Item = String> + 'a {
        template.into_iter().flat_map(move |qa| {
            self.0
                .iter()
                .map(move |(q, a)| render(qa, &[("question", q), ("answer", a)]))
        })
    }
}

/// The sub-task an agent works on and where it stands with the user; `W`
/// is the work a held step carries out when confirmed.
#[derive(Debug, Clone)]
pub struct Lifecycle<W> {
    subtask: String,
    host_message: Vec<String>,
    plan: Vec<String>,
    result: String,
    comment: String,
    questions: Vec<String>,
    answers: Answers,
    held: Option<Held<W>>,
}

impl<W> Default for Lifecycle<W> {
    fn default() -> Self {
        Self {
            subtask: String::new(),
            host_message: Vec::new(),
            plan: Vec::new(),
            result: String::new(),
            comment: String::new(),
            questions: Vec::new(),
            answers: Answers::default(),
            held: None,
        }
    }
}

impl<W> Lifecycle<W> {
    /// Starts `subtask` with the HostAgent's messages. The previous
    /// sub-task's plan, result, comment, open questions and held step are
    /// dropped; the user's answers are kept (they answer the request, not
    /// one step).
    pub fn assign(&mut self, subtask: &str, host_message: Vec<String>) {
        self.subtask = subtask.to_owned();
        self.host_message = host_message;
        self.plan.clear();
        self.result.clear();
        self.comment.clear();
        self.questions.clear();
        self.held = None;
    }

    /// The current sub-task.
    pub fn subtask(&self) -> &str {
        &self.subtask
    }

    /// The HostAgent's messages for the current sub-task.
    pub fn host_message(&self) -> &[String] {
        &self.host_message
    }

    /// The model's plan for the rest of the sub-task, as its last reply
    /// gave it (the next prompt's `prev_plan`).
    pub fn plan(&self) -> &[String] {
        &self.plan
    }

    /// Keeps what a checked reply says of the sub-task: the plan and
    /// comment step `rec` recorded, and `result` (the reply's answer, in
    /// plain text) unless it is empty.
    pub fn take_reply(&mut self, rec: &StepRecord, result: String) {
        self.plan = rec.plan.clone();
        self.comment = rec.comment.clone();
        if !result.is_empty() {
            self.result = result;
        }
    }

    /// The sub-task's answer so far (empty when none).
    pub fn result(&self) -> &str {
        &self.result
    }

    /// Sets the sub-task's answer.
    pub fn set_result(&mut self, result: impl Into<String>) {
        self.result = result.into();
    }

    /// The model's last comment.
    pub fn comment(&self) -> &str {
        &self.comment
    }

    /// Sets the model's last comment.
    pub fn set_comment(&mut self, comment: impl Into<String>) {
        self.comment = comment.into();
    }

    /// The answer of the sub-task, or else the model's last comment.
    pub fn outcome(&self) -> String {
        match self.result.is_empty() {
            true => self.comment.clone(),
            false => self.result.clone(),
        }
    }

    /// A new step record of this sub-task: the session's step and round,
    /// `agent_step` (the agent's own count), the request and `application`.
    pub fn new_record(
        &self,
        kind: AgentKind,
        name: &str,
        input: &StepInput<'_>,
        agent_step: usize,
        application: &str,
    ) -> StepRecord {
        let mut rec = StepRecord::new(kind, name, input.session_step);
        rec.round = input.round;
        rec.agent_step = agent_step;
        rec.request = input.request.to_owned();
        rec.subtask = self.subtask.clone();
        rec.application = application.to_owned();
        rec
    }

    /// PENDING: the step asks the user `questions` (blank ones dropped);
    /// they stay open until [`Lifecycle::answer`]. Returns the questions to
    /// put to the user — none for a PENDING without questions, which opens
    /// nothing.
    pub fn ask(&mut self, questions: Vec<String>) -> Vec<String> {
        self.questions = questions
            .into_iter()
            .filter(|q| !q.trim().is_empty())
            .collect();
        self.questions.clone()
    }

    /// The questions asked and not answered yet.
    pub fn open_questions(&self) -> &[String] {
        &self.questions
    }

    /// The user's answers (question, answer): the open questions are closed
    /// and every later prompt carries the answers.
    pub fn answer(&mut self, qa: Vec<(String, String)>) {
        self.questions.clear();
        self.answers.add(qa);
    }

    /// Every answer the user gave, oldest first.
    pub fn answers(&self) -> &[(String, String)] {
        self.answers.all()
    }

    /// The answers for the next prompt: `template` (a template's
    /// `pending_answer`, with `{question}` and `{answer}`) once per answer,
    /// each on its line; empty without answers or template.
    pub fn answers_prompt(&self, template: Option<&str>) -> String {
        self.answers.rendered(template).map(|a| a + "\n").collect()
    }

    /// CONFIRM: holds step `rec` and its `work` until the user answers
    /// and the agent resumes. `guarded` (why SAFE_GUARD stops the step although the
    /// model did not ask) is noted in the record; `reasons` is what the user
    /// is told. The step is returned as it waits.
    pub fn hold(
        &mut self,
        mut rec: StepRecord,
        work: W,
        actions: Vec<String>,
        guarded: &[String],
        reasons: Vec<String>,
        started: Instant,
    ) -> AppStep {
        if !guarded.is_empty() {
            rec.repairs.push(format!(
                "SAFE_GUARD asks the user first: {}",
                guarded.join("; ")
            ));
        }
        rec.status = StepStatus::Confirm;
        rec.total_time = started.elapsed().as_secs_f64();
        self.held = Some(Held {
            record: rec.clone(),
            work,
            actions,
            reasons,
        });
        AppStep {
            record: rec,
            status: AppAgentStatus::Confirm,
            questions: Vec::new(),
        }
    }

    /// The held actions, as `fn(k="v")`; empty when nothing is held.
    pub fn pending_actions(&self) -> Vec<String> {
        self.held
            .as_ref()
            .map(|h| h.actions.clone())
            .unwrap_or_default()
    }

    /// Why the held step waits; empty when nothing is held or the model
    /// asked itself.
    pub fn pending_reasons(&self) -> Vec<String> {
        self.held
            .as_ref()
            .map(|h| h.reasons.clone())
            .unwrap_or_default()
    }

    /// Takes the held step, if any (it is resumed once).
    pub fn take_held(&mut self) -> Option<Held<W>> {
        self.held.take()
    }
}

/// What an agent supplies for [`resume`].
pub(crate) trait Resumable {
    /// What a held step carries out when confirmed.
    type Work;

    /// The agent's lifecycle.
    fn lifecycle(&mut self) -> &mut Lifecycle<Self::Work>;

    /// The user confirmed: carries out `work`, filling `rec`; the status the
    /// step ends in.
    async fn carry_out(&mut self, rec: &mut StepRecord, work: Self::Work) -> AppAgentStatus;

    /// The user declined: nothing of `work` runs; the status the step ends
    /// in.
    fn decline(&mut self, rec: &mut StepRecord, work: Self::Work) -> AppAgentStatus;

    /// The agent's memory, and how its memory entries name it
    /// (`("agent", name)`, `("application", name)`).
    fn memory_and_who(&mut self) -> (&mut Memory, (&'static str, &str));

    /// The memory update of a step that ended in `status`.
    fn remember(
        &mut self,
        rec: &mut StepRecord,
        blackboard: &mut Blackboard,
        status: AppAgentStatus,
        user_confirm: Option<bool>,
    ) {
        let (memory, who) = self.memory_and_who();
        crate::guards::remember(memory, blackboard, rec, status, user_confirm, who);
    }

    /// PENDING: the step is remembered and ends with the model's
    /// `questions` for the user (see [`Lifecycle::ask`]).
    fn ask_user(
        &mut self,
        mut rec: StepRecord,
        blackboard: &mut Blackboard,
        status: AppAgentStatus,
        questions: Vec<String>,
        started: Instant,
    ) -> AppStep {
        self.remember(&mut rec, blackboard, status, None);
        let questions = self.lifecycle().ask(questions);
        AppStep::finished(rec, status, started).asking(questions)
    }
}

/// Continues after CONFIRM: the held step's work is carried out when
/// `confirmed`, declined otherwise, and the same step is completed and
/// returned (its time adds to what it had taken). `None` when nothing is
/// held.
pub(crate) async fn resume<A: Resumable>(
    agent: &mut A,
    confirmed: bool,
    blackboard: &mut Blackboard,
) -> Option<AppStep> {
    let held = agent.lifecycle().take_held()?;
    let mut rec = held.record;
    let started = Instant::now();
    let status = match confirmed {
        true => agent.carry_out(&mut rec, held.work).await,
        false => agent.decline(&mut rec, held.work),
    };
    agent.remember(&mut rec, blackboard, status, Some(confirmed));
    Some(AppStep::resumed(rec, status, started))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An agent whose held work is a word: carrying it out records it.
    #[derive(Default)]
    struct Fake {
        life: Lifecycle<&'static str>,
        done: Vec<&'static str>,
        remembered: Vec<(AppAgentStatus, Option<bool>)>,
        memory: Memory,
    }

    impl Resumable for Fake {
        type Work = &'static str;

        fn lifecycle(&mut self) -> &mut Lifecycle<&'static str> {
            &mut self.life
        }

        async fn carry_out(&mut self, rec: &mut StepRecord, work: &'static str) -> AppAgentStatus {
            self.done.push(work);
            rec.comment = format!("did {work}");
            AppAgentStatus::Continue
        }

        fn decline(&mut self, rec: &mut StepRecord, work: &'static str) -> AppAgentStatus {
            rec.comment = format!("declined {work}");
            AppAgentStatus::Finish
        }

        fn memory_and_who(&mut self) -> (&mut Memory, (&'static str, &str)) {
            (&mut self.memory, ("agent", "fake"))
        }

        fn remember(
            &mut self,
            rec: &mut StepRecord,
            _blackboard: &mut Blackboard,
            status: AppAgentStatus,
            user_confirm: Option<bool>,
        ) {
            rec.status = status.into();
            self.remembered.push((status, user_confirm));
        }
    }

    const QA: &str = "[{question}] {answer}";

    fn record(life: &Lifecycle<&'static str>, step: usize) -> StepRecord {
        let mut bb = Blackboard::default();
        let input = StepInput {
            session_step: step,
            round: 1,
            request: "add 12 and 30",
            blackboard: &mut bb,
            prev_subtasks: &[],
        };
        life.new_record(AgentKind::AppAgent, "AppAgent/calc", &input, 1, "calc")
    }

    #[test]
    fn assign_then_questions_then_answers_reach_the_next_prompt() {
        let mut life = Lifecycle::<&'static str>::default();
        life.assign("add the numbers", vec!["use the calculator".into()]);
        let rec = record(&life, 3);
        assert_eq!(
            (rec.subtask.as_str(), rec.session_step),
            ("add the numbers", 3)
        );
        assert_eq!(
            (rec.request.as_str(), rec.application.as_str()),
            ("add 12 and 30", "calc")
        );
        assert_eq!(life.host_message(), ["use the calculator"]);
        assert_eq!(life.answers_prompt(Some(QA)), "");

        // PENDING: the questions are open until the user answers them.
        let asked = life.ask(vec!["Which numbers?".into(), " ".into()]);
        assert_eq!(asked, ["Which numbers?"]);
        assert_eq!(life.open_questions(), ["Which numbers?"]);
        life.answer(vec![("Which numbers?".into(), "12 and 30".into())]);
        assert!(life.open_questions().is_empty());
        assert_eq!(
            life.answers_prompt(Some(QA)),
            "[Which numbers?] 12 and 30\n"
        );
        assert_eq!(life.answers_prompt(None), "");

        // A new sub-task drops what the last one left, not the answers.
        life.set_result("42");
        life.set_comment("done");
        assert_eq!(life.outcome(), "42");
        life.ask(vec!["Again?".into()]);
        life.assign("write it down", Vec::new());
        assert_eq!(
            (life.subtask(), life.result(), life.comment()),
            ("write it down", "", "")
        );
        assert!(life.open_questions().is_empty() && life.host_message().is_empty());
        assert_eq!(life.answers().len(), 1);
        life.set_comment("nothing to write");
        assert_eq!(life.outcome(), "nothing to write");
    }

    #[test]
    fn a_pending_without_questions_opens_nothing_to_wait_for() {
        let mut life = Lifecycle::<&'static str>::default();
        life.assign("close the dialog", Vec::new());
        // Nothing to ask: the session asks whether to go on instead, and the
        // agent waits for no answers.
        assert!(life.ask(Vec::new()).is_empty());
        assert!(life.ask(vec!["".into(), "  ".into()]).is_empty());
        assert!(life.open_questions().is_empty());
        // Going on (the session's empty answer) adds nothing to the prompt.
        life.answer(Vec::new());
        assert_eq!(life.answers_prompt(Some(QA)), "");
        assert!(life.pending_actions().is_empty());
    }

    #[tokio::test]
    async fn a_held_step_is_resumed_once_carried_out_or_declined() {
        let mut agent = Fake::default();
        agent.life.assign("delete the file", Vec::new());
        let mut bb = Blackboard::default();
        assert!(resume(&mut agent, true, &mut bb).await.is_none());

        let rec = record(&agent.life, 2);
        let step = agent.life.hold(
            rec,
            "rm",
            vec!["execute_command(command=\"rm x\")".into()],
            &["execute_command: it runs a command".into()],
            vec!["it runs a command".into()],
            Instant::now(),
        );
        assert_eq!(step.status, AppAgentStatus::Confirm);
        assert_eq!(step.record.status, StepStatus::Confirm);
        assert!(
            step.record.repairs[0].starts_with("SAFE_GUARD asks the user first: execute_command")
        );
        assert_eq!(
            agent.life.pending_actions(),
            ["execute_command(command=\"rm x\")"]
        );
        assert_eq!(agent.life.pending_reasons(), ["it runs a command"]);

        let done = resume(&mut agent, true, &mut bb).await.unwrap();
        assert_eq!(
            (done.status, done.record.session_step),
            (AppAgentStatus::Continue, 2)
        );
        assert_eq!(done.record.comment, "did rm");
        assert_eq!(agent.done, ["rm"]);
        assert_eq!(agent.remembered, [(AppAgentStatus::Continue, Some(true))]);
        assert!(agent.life.pending_actions().is_empty());
        assert!(resume(&mut agent, true, &mut bb).await.is_none());

        let rec = record(&agent.life, 3);
        agent
            .life
            .hold(rec, "mv", Vec::new(), &[], Vec::new(), Instant::now());
        let done = resume(&mut agent, false, &mut bb).await.unwrap();
        assert_eq!(
            (done.status, done.record.comment.as_str()),
            (AppAgentStatus::Finish, "declined mv")
        );
        assert_eq!(agent.done, ["rm"]);

        // A new sub-task drops a held step.
        let rec = record(&agent.life, 4);
        agent
            .life
            .hold(rec, "cp", Vec::new(), &[], Vec::new(), Instant::now());
        agent.life.assign("something else", Vec::new());
        assert!(resume(&mut agent, true, &mut bb).await.is_none());
    }
}
