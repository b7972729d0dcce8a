//! The agent loop: creation, then one editing call per planner turn of
//! the orchestrator, until the model ends it, the plan ends, or the cap.

use crate::constellation::prompts::{DeviceProfile, EditingVars, format_devices};
use crate::constellation::reply::{AgentStatus, ConstellationReply};
use crate::constellation::{
    ConstellationAgent, ConstellationOutcome, ConstellationStep, EndReason, StepPhase,
};
use crate::error::AgentError;
use crate::llm::{AskLog, Checked, ask};
use crate::prompter::render;
use ufo_galaxy::edit::{Editor, Outcome};
use ufo_galaxy::orchestrate::{
    CancelHandle, DeviceRunner, Orchestrator, PlanRequest, planner_channel,
};
use ufo_galaxy::validate::{KnownDevice, validate_with_devices};
use ufo_galaxy::{ConstellationState, TaskConstellation, TaskStatus};
use ufo_llm::message::Content;
use ufo_llm::{ChatRequest, Msg, Part, Role};

/// How the loop ended, before the run's results are added.
struct Ended {
    status: AgentStatus,
    end: EndReason,
    results: String,
    reason: Option<String>,
}

impl Ended {
    fn fail(end: EndReason, results: String, reason: impl Into<String>) -> Self {
        Self {
            status: AgentStatus::Fail,
            end,
            results,
            reason: Some(reason.into()),
        }
    }
}

/// What every prompt of one request shares.
struct Context<'a> {
    request: &'a str,
    device_info: String,
    known: Vec<KnownDevice>,
}

type Reply = Checked<ConstellationReply, AgentStatus>;

impl ConstellationAgent {
    /// Plans `request` over `devices`, runs it and re-plans until the end
    /// (see the module docs). Never hangs on the model's silence about the
    /// end, and never fails: every way it ends is in the outcome.
    pub async fn run<D: DeviceRunner>(&self, request: &str, devices: D) -> ConstellationOutcome {
        let known = devices.devices();
        let profiles = self.profiles.clone().unwrap_or_else(|| {
            known
                .iter()
                .map(|d| DeviceProfile {
                    device_id: d.device_id.clone(),
                    os: d.device_type.map(|t| t.to_string()),
                    ..DeviceProfile::default()
                })
                .collect()
        });
        let ctx = Context {
            request,
            device_info: format_devices(&profiles),
            known,
        };
        let mut steps = Vec::new();
        let plan = match self.create(&ctx, &mut steps).await {
            Ok(plan) => plan,
            Err(ended) => return outcome(ended, None, None, steps),
        };
        self.orchestrate(&ctx, plan, devices, steps).await
    }

    /// The creation call, with one more for an invalid plan.
    async fn create(
        &self,
        ctx: &Context<'_>,
        steps: &mut Vec<ConstellationStep>,
    ) -> Result<TaskConstellation, Ended> {
        let template_error =
            |e: AgentError| Ended::fail(EndReason::Error, String::new(), e.to_string());
        let (system, user) = self
            .prompts
            .creation(ctx.request, &ctx.device_info)
            .map_err(template_error)?;
        let retry = self
            .prompts
            .creation
            .opt("retry")
            .unwrap_or("{error}")
            .to_owned();
        let refused = self
            .prompts
            .creation
            .opt("refused")
            .unwrap_or("{error}")
            .to_owned();
        let mut request = ChatRequest::agent(system, vec![Part::text(user)]);
        let mut sent_back = 0;
        loop {
            if steps.len() >= self.settings.max_step {
                return Err(cap(self.settings.max_step, String::new()));
            }
            let (mut rec, asked) = self
                .ask_model(
                    request.clone(),
                    &retry,
                    steps.len() + 1,
                    StepPhase::Creation,
                )
                .await;
            let reply = match asked {
                Ok(r) => r,
                Err(e) => {
                    steps.push(rec);
                    return Err(Ended::fail(EndReason::Error, String::new(), e.to_string()));
                }
            };
            let results = reply.reply.results_text();
            let plan = reply.reply.constellation.clone().filter(|v| !v.is_null());
            let built = match (reply.parsed, plan) {
                (AgentStatus::Continue, None) => {
                    let why = "the model said CONTINUE at creation without a constellation";
                    rec.note = Some(why.into());
                    steps.push(rec);
                    return Err(Ended::fail(EndReason::Refused, results, why));
                }
                (status @ (AgentStatus::Finish | AgentStatus::Fail), plan) => {
                    if plan.is_some() {
                        rec.note = Some(format!(
                            "{status} with a constellation: the constellation is not run"
                        ));
                    }
                    steps.push(rec);
                    return Err(Ended {
                        status,
                        end: EndReason::Model,
                        results,
                        reason: None,
                    });
                }
                (AgentStatus::Continue, Some(plan)) => build(&plan, &ctx.known),
            };
            match built {
                Ok(c) => {
                    steps.push(rec);
                    return Ok(c);
                }
                Err(error) if sent_back < self.settings.plan_retries => {
                    rec.note = Some(format!("plan refused, sent back: {error}"));
                    let raw = rec.raw_replies.last().cloned().unwrap_or_default();
                    steps.push(rec);
                    sent_back += 1;
                    request.messages.push(text_msg(Role::Assistant, raw));
                    request
                        .messages
                        .push(text_msg(Role::User, render(&refused, &[("error", &error)])));
                }
                Err(error) => {
                    rec.note = Some(format!("plan refused: {error}"));
                    steps.push(rec);
                    return Err(Ended::fail(
                        EndReason::Refused,
                        results,
                        format!("the plan was refused: {error}"),
                    ));
                }
            }
        }
    }

    /// Runs `plan`, answering each planner turn with one editing call.
    async fn orchestrate<D: DeviceRunner>(
        &self,
        ctx: &Context<'_>,
        plan: TaskConstellation,
        devices: D,
        mut steps: Vec<ConstellationStep>,
    ) -> ConstellationOutcome {
        let cancel = CancelHandle::new();
        let (planner, turns) = planner_channel(1);
        let mut orchestrator = Orchestrator::new(devices)
            .options(self.settings.options)
            .planner(planner)
            .cancel_on(cancel.clone());
        if let Some(events) = &self.events {
            orchestrator = orchestrator.events(events.clone());
        }
        let run = orchestrator.run(plan);
        let edit = self.edit_loop(ctx, turns, &cancel, &mut steps);
        let (finished, (decided, last_results)) = tokio::join!(run, edit);
        let finished = match finished {
            Ok(f) => f,
            Err(e) => {
                let ended = Ended::fail(EndReason::Error, last_results, e.to_string());
                return outcome(ended, None, None, steps);
            }
        };
        let ended = decided.unwrap_or_else(|| {
            let state = finished.report.state;
            if state == ConstellationState::Completed {
                Ended {
                    status: AgentStatus::Finish,
                    end: EndReason::AllTasksEnded,
                    results: last_results,
                    reason: None,
                }
            } else {
                Ended::fail(
                    EndReason::AllTasksEnded,
                    last_results,
                    format!("every task ended ({state}) and the model asked for nothing more"),
                )
            }
        });
        outcome(
            ended,
            Some(finished.constellation),
            Some(finished.report),
            steps,
        )
    }

    /// Answers planner turns until the model ends the run (`Some`) or the
    /// orchestrator stops asking (`None`); with the model's last results.
    async fn edit_loop(
        &self,
        ctx: &Context<'_>,
        mut turns: tokio::sync::mpsc::Receiver<PlanRequest>,
        cancel: &CancelHandle,
        steps: &mut Vec<ConstellationStep>,
    ) -> (Option<Ended>, String) {
        let retry = self
            .prompts
            .editing
            .opt("retry")
            .unwrap_or("{error}")
            .to_owned();
        let mut feedback = "You have made no edits yet.".to_owned();
        let mut last_results = String::new();
        while let Some(turn) = turns.recv().await {
            let c = turn.turn.constellation.clone();
            let stop = |turn: PlanRequest| {
                if !c.all_ended() {
                    cancel.cancel();
                }
                turn.keep();
            };
            if steps.len() >= self.settings.max_step {
                stop(turn);
                return (
                    Some(cap(self.settings.max_step, last_results.clone())),
                    last_results,
                );
            }
            let vars = EditingVars {
                request: ctx.request,
                ended: &turn.turn.ended_task_ids,
                feedback: &feedback,
                constellation: &c,
                device_info: &ctx.device_info,
            };
            let (system, user) = match self.prompts.editing(&vars) {
                Ok(p) => p,
                Err(e) => {
                    stop(turn);
                    return (
                        Some(Ended::fail(
                            EndReason::Error,
                            last_results.clone(),
                            e.to_string(),
                        )),
                        last_results,
                    );
                }
            };
            let request = ChatRequest::agent(system, vec![Part::text(user)]);
            let (mut rec, asked) = self
                .ask_model(request, &retry, steps.len() + 1, StepPhase::Editing)
                .await;
            rec.ended_task_ids = turn.turn.ended_task_ids.clone();
            let reply = match asked {
                Ok(r) => r,
                Err(e) => {
                    steps.push(rec);
                    stop(turn);
                    return (
                        Some(Ended::fail(
                            EndReason::Error,
                            last_results.clone(),
                            e.to_string(),
                        )),
                        last_results,
                    );
                }
            };
            last_results = reply.reply.results_text();
            let running: Vec<&str> = c
                .tasks()
                .iter()
                .filter(|t| t.status == TaskStatus::Running)
                .map(|t| t.task_id.as_str())
                .collect();
            match reply.parsed {
                AgentStatus::Fail => {}
                AgentStatus::Finish if running.is_empty() => {}
                AgentStatus::Finish => {
                    let note = format!(
                        "FINISH while {} still running: ignored, the plan is kept and the run goes on",
                        running.join(", ")
                    );
                    feedback = format!(
                        "You said FINISH while {} was still running; your reply was not applied and the run goes on. Say FINISH only when every task has ended.",
                        running.join(", ")
                    );
                    rec.note = Some(note);
                    steps.push(rec);
                    turn.keep();
                    continue;
                }
                AgentStatus::Continue => {
                    let (plan, said) = apply_edits(&c, &reply.reply, &ctx.known, &mut rec);
                    feedback = said;
                    steps.push(rec);
                    turn.answer(plan);
                    continue;
                }
            }
            steps.push(rec);
            stop(turn);
            let ended = Ended {
                status: reply.parsed,
                end: EndReason::Model,
                results: last_results.clone(),
                reason: None,
            };
            return (Some(ended), last_results);
        }
        (None, last_results)
    }

    /// One model call with its re-asks, and its record.
    async fn ask_model(
        &self,
        request: ChatRequest,
        retry: &str,
        step: usize,
        phase: StepPhase,
    ) -> (ConstellationStep, Result<Reply, AgentError>) {
        let prompt_chars = request
            .messages
            .iter()
            .map(|m| m.text().chars().count())
            .sum();
        let mut log = AskLog::default();
        let asked = ask(
            &*self.model,
            request,
            self.settings.json_attempts.saturating_sub(1),
            retry,
            &mut log,
            |reply: ConstellationReply, _| {
                let parsed = reply.check()?;
                Ok(Checked { reply, parsed })
            },
        )
        .await;
        let (status, thought, results) = match &asked {
            Ok(a) => (
                Some(a.value.parsed),
                a.value.reply.thought.clone(),
                a.value.reply.results_text(),
            ),
            Err(_) => (None, String::new(), String::new()),
        };
        let rec = ConstellationStep {
            step,
            phase,
            prompt_chars,
            reply_chars: log.raw.iter().map(|r| r.chars().count()).sum(),
            attempts: log.attempts,
            parse_errors: log.errors,
            repairs: log.repairs,
            raw_replies: log.raw,
            status,
            thought,
            results,
            ended_task_ids: Vec::new(),
            actions: Vec::new(),
            note: None,
            usage: log.usage,
        };
        (rec, asked.map(|a| a.value))
    }
}

/// Applies the reply's edits to `c`: the plan to answer with (`None`:
/// unchanged) and what to tell the model next time.
fn apply_edits(
    c: &TaskConstellation,
    reply: &ConstellationReply,
    known: &[KnownDevice],
    rec: &mut ConstellationStep,
) -> (Option<TaskConstellation>, String) {
    let actions = reply.actions();
    if actions.iter().all(|a| a.function.trim().is_empty()) {
        return (None, "Your last reply made no edits.".into());
    }
    let mut editor = Editor::new(c.clone()).with_devices(known.to_vec());
    let said = |outcomes: &[Outcome]| -> Vec<String> {
        outcomes
            .iter()
            .map(|o| match &o.error {
                Some(e) => format!("{}: {} ({e})", o.function, o.status.as_str()),
                None => format!("{}: {}", o.function, o.status.as_str()),
            })
            .collect()
    };
    match editor.apply_actions(&actions) {
        Ok(applied) => {
            rec.actions = said(&applied.outcomes);
            let n = applied.outcomes.len();
            (
                Some(editor.into_constellation()),
                format!(
                    "All {n} of your edits were applied: {}.",
                    rec.actions.join("; ")
                ),
            )
        }
        Err(batch) => {
            rec.actions = said(&batch.outcomes);
            rec.note = Some(format!("edits stopped at #{}: {batch}", batch.index + 1));
            let text = format!(
                "Your edits stopped at the first one refused, and the ones after it were skipped: {}. Edit {} ({}) failed: {}",
                rec.actions.join("; "),
                batch.index + 1,
                batch.function,
                batch.error
            );
            let plan = (batch.index > 0).then(|| editor.into_constellation());
            (plan, text)
        }
    }
}

/// The model's constellation, read and checked against the devices.
fn build(plan: &serde_json::Value, known: &[KnownDevice]) -> Result<TaskConstellation, String> {
    let c = TaskConstellation::from_value(plan).map_err(|e| format!("it cannot be read: {e}"))?;
    if c.tasks().is_empty() {
        return Err("it has no tasks".into());
    }
    validate_with_devices(&c, known).map_err(|e| e.to_string())?;
    Ok(c)
}

fn cap(max_step: usize, results: String) -> Ended {
    Ended::fail(
        EndReason::StepCap,
        results,
        format!("the step cap ({max_step} model calls, MAX_STEP) was reached"),
    )
}

fn text_msg(role: Role, text: String) -> Msg {
    Msg {
        name: None,
        role,
        content: Content::Text(text),
        url: Vec::new(),
    }
}

fn outcome(
    ended: Ended,
    constellation: Option<TaskConstellation>,
    report: Option<ufo_galaxy::orchestrate::RunReport>,
    steps: Vec<ConstellationStep>,
) -> ConstellationOutcome {
    ConstellationOutcome {
        status: ended.status,
        end: ended.end,
        results: ended.results,
        reason: ended.reason,
        constellation,
        report,
        steps,
    }
}
