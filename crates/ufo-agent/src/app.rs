//! The AppAgent: operates one application to complete a sub-task.
//!
//! One step runs the processor's phases: data collection (labelled controls
//! and a screenshot through the dispatcher, set-of-marks annotation), LLM
//! interaction (prompt, model, parse, repair or re-ask), action execution
//! (one call or a sequence, stopping at the first failure) and memory update
//! (memory, blackboard, repeated-action guard).

mod check;
mod observe;
pub(crate) use check::check_app_reply;

use crate::call::{Call, Decision};
use crate::error::AgentError;
use crate::guards::{Gate, confirmed_status, gate};
use crate::lifecycle::{Lifecycle, Resumable};
use crate::llm::{Checked, interact};
use crate::memory::{Blackboard, Memory, SavedScreenshot};
use crate::prompter::{examples_prompt_with, knowledge_prompt, render, tools_to_llm_prompt};
use crate::prompts::PromptSet;
use crate::response::{AppResponse, plain};
use crate::step::{ActionLog, AgentKind, ImageKind, Phase, StepFailure, StepRecord};
use crate::subtask_prompt::{blackboard_parts, user_prompt};
use std::sync::Arc;
use std::time::Instant;
use ufo_core::{ActionStatus, AppAgentStatus, Command, Control};
use ufo_desktop::Screenshot;
use ufo_desktop::compose::selected_controls_image;
use ufo_desktop::dispatch::CommandDispatcher;
use ufo_desktop::encode::encode_png;
use ufo_desktop::tools::{APP_UI_EXECUTOR, Tool, catalog_for};
use ufo_llm::{ChatModel, ChatRequest, Part};

pub use crate::settings::AgentSettings;
pub use crate::turn::{AppStep, StepInput};

/// What a held AppAgent step does once the user confirms: its calls against
/// the controls and screenshot they were chosen on.
#[derive(Debug, Clone)]
pub(crate) struct Work {
    calls: Vec<Call>,
    controls: Vec<Control>,
    shot: Option<Screenshot>,
    final_status: AppAgentStatus,
}

/// The first part of an AppAgent's name in normal sessions.
pub const APP_ROLE: &str = "AppAgent";
/// The first part of an AppAgent's name in batch and follower sessions.
pub const BATCH_ROLE: &str = "BatchAgent";

/// A sub-agent's name as UFO writes it in its logs:
/// `<role>/<application root>/<window name>` (`AppAgent/gedit/notes.txt -
/// gedit`); `<role>/<application>` while no window is known.
pub fn agent_name(role: &str, application: &str, window: &str) -> String {
    match window.trim() {
        "" => format!("{role}/{application}"),
        w => format!("{role}/{application}/{w}"),
    }
}

/// An AppAgent bound to one application.
pub struct AppAgent {
    /// UFO's sub-agent name: `AppAgent/<application>/<window title>`
    /// (`BatchAgent/...` in batch and follower sessions); the window part
    /// is set when a sub-task is assigned.
    pub name: String,
    /// `AppAgent` or `BatchAgent`: the first part of [`AppAgent::name`].
    role: &'static str,
    /// The application (its accessibility name).
    pub application: String,
    /// The window title when assigned.
    pub window_title: String,
    /// The agent's memory.
    pub memory: Memory,
    /// The sub-task, the user's answers, a step held for confirmation. Its
    /// result is set from the reply's `result` or a `summary` call.
    pub(crate) life: Lifecycle<Work>,
    model: Arc<dyn ChatModel>,
    dispatcher: Arc<dyn CommandDispatcher>,
    prompts: Arc<PromptSet>,
    settings: AgentSettings,
    last_actions: Vec<String>,
    last_selected: Option<(usize, String)>,
    repeat: crate::guards::RepeatGuard,
    /// What the calls so far left selected (SAFE_GUARD).
    selection: crate::guards::Selection,
    /// What was retrieved for the current sub-task (queried once per sub-task).
    retrieved: Option<(String, crate::retrieve::Retrieved)>,
}

impl AppAgent {
    /// A new AppAgent for `application`.
    pub fn new(
        application: &str,
        model: Arc<dyn ChatModel>,
        dispatcher: Arc<dyn CommandDispatcher>,
        prompts: Arc<PromptSet>,
        settings: AgentSettings,
    ) -> Self {
        Self {
            name: agent_name(APP_ROLE, application, ""),
            role: APP_ROLE,
            application: application.to_owned(),
            window_title: String::new(),
            memory: Memory::default(),
            life: Lifecycle::default(),
            model,
            dispatcher,
            prompts,
            settings,
            last_actions: Vec::new(),
            last_selected: None,
            repeat: Default::default(),
            selection: Default::default(),
            retrieved: None,
        }
    }

    /// The agent as UFO names it in batch and follower sessions:
    /// `BatchAgent/<application>/<window title>`.
    pub fn batch(mut self) -> Self {
        self.role = BATCH_ROLE;
        self.name = agent_name(self.role, &self.application, &self.window_title);
        self
    }

    /// Starts a new sub-task (the agent keeps its memory across sub-tasks).
    pub fn assign(&mut self, subtask: &str, host_message: Vec<String>, window_title: &str) {
        self.life.assign(subtask, host_message);
        self.window_title = window_title.to_owned();
        self.name = agent_name(self.role, &self.application, window_title);
        self.repeat.reset();
    }

    /// One step: observe, ask, act, remember; one method per phase.
    pub async fn step(&mut self, input: StepInput<'_>) -> Result<AppStep, StepFailure> {
        let started = Instant::now();
        let mut rec = self.life.new_record(
            AgentKind::AppAgent,
            &self.name,
            &input,
            self.memory.len() + 1,
            &self.application,
        );

        // 1. Data collection.
        // On the heap: the observation's future is large in a debug build.
        let (seen, shown) = match Box::pin(self.observe(&mut rec)).await {
            Ok(seen) => seen,
            Err(e) => return Err(rec.fail(e, AppAgentStatus::Error, started)),
        };
        let n = input.session_step;

        // 2. LLM interaction.
        let (controls, shot) = (seen.controls, seen.screenshot);
        let checked = self
            .ask(
                &mut rec,
                &input,
                &controls,
                &seen.tree.window,
                &shown.image_urls,
            )
            .await;
        let (clean_url, log_images) = (shown.clean_url, shown.log_images);
        if let Some(task) = log_images {
            rec.images = task.await.unwrap_or_default();
        }
        let Checked {
            reply,
            parsed: Decision { status, calls },
        } = match checked {
            Ok(c) => c,
            Err(e) => return Err(rec.fail(e, AppAgentStatus::Error, started)),
        };
        self.take_reply(&rec, &reply, input.blackboard, clean_url);

        // Sensitive step: stop before acting; the session asks the user. With
        // SAFE_GUARD, a sensitive call stops too when the model did not ask.
        let guarded = crate::guards::guarded(&self.settings, status, &calls, &mut self.selection);
        match gate(status, !calls.is_empty(), !guarded.is_empty()) {
            Gate::Hold => {
                return Ok(self.hold(rec, calls, controls, shot, status, guarded, started));
            }
            Gate::Ask => {
                let questions = reply.questions.items();
                return Ok(self.ask_user(rec, input.blackboard, status, questions, started));
            }
            Gate::Act => {}
        }

        // 3. Action execution, 4. memory update.
        let status = self
            .act(&mut rec, &calls, &controls, shot.as_ref(), status, n)
            .await;
        self.remember(&mut rec, input.blackboard, status, None);
        Ok(AppStep::finished(rec, status, started))
    }

    /// LLM interaction: knowledge retrieved, the prompt, and a reply checked
    /// against the controls and the tools.
    async fn ask(
        &mut self,
        rec: &mut StepRecord,
        input: &StepInput<'_>,
        controls: &[Control],
        window: &ufo_core::WindowInfo,
        image_urls: &[(String, String)],
    ) -> Result<Checked<AppResponse, Decision>, AgentError> {
        let window = ufo_desktop::follow::describe(window);
        self.retrieve(input.request).await;
        let (request, image_names) =
            self.build_prompt(input, controls, &window, image_urls, input.session_step);
        let specs = self.tool_specs();
        interact(
            rec,
            self.model.as_ref(),
            &self.prompts.app,
            self.settings.json_parsing_retry,
            request,
            image_names,
            |r, repairs| check_app_reply(r, controls, &specs, repairs),
        )
        .await
    }

    /// What the agent keeps of a reply: its plan, comment and result, and
    /// the screenshot the model asked to save on the blackboard.
    fn take_reply(
        &mut self,
        rec: &StepRecord,
        reply: &AppResponse,
        blackboard: &mut Blackboard,
        clean_url: Option<String>,
    ) {
        self.life.take_reply(rec, plain(&reply.result));
        if let Some(s) = &reply.save_screenshot
            && s.save
            && let Some(url) = clean_url
        {
            blackboard.screenshots.push(SavedScreenshot {
                image_url: url,
                application: self.application.clone(),
                reason: s.reason.clone(),
            });
        }
    }

    /// Holds a sensitive step's calls until the session has the user's
    /// answer ([`AppAgent::resume`]); the step is CONFIRM meanwhile.
    #[allow(clippy::too_many_arguments)]
    fn hold(
        &mut self,
        rec: StepRecord,
        calls: Vec<Call>,
        controls: Vec<Control>,
        shot: Option<Screenshot>,
        status: AppAgentStatus,
        guarded: Vec<String>,
        started: Instant,
    ) -> AppStep {
        let actions = calls.iter().map(Call::action_string).collect();
        let work = Work {
            calls,
            controls,
            shot,
            final_status: confirmed_status(status),
        };
        self.life
            .hold(rec, work, actions, &guarded, guarded.clone(), started)
    }

    /// Continues after CONFIRM: executes the pending actions when `confirmed`,
    /// otherwise drops them and finishes the sub-task. The returned record
    /// is the same step, completed.
    pub async fn resume(
        &mut self,
        confirmed: bool,
        blackboard: &mut Blackboard,
    ) -> Option<AppStep> {
        crate::lifecycle::resume(self, confirmed, blackboard).await
    }

    /// Retrieves knowledge about the sub-task on this application, once per
    /// sub-task (UFO queries with the sub-task; the request is added so a
    /// short sub-task still matches).
    async fn retrieve(&mut self, request: &str) {
        let Some(k) = self.settings.knowledge.clone() else {
            return;
        };
        let query = format!("{}\n{request}", self.life.subtask());
        if self.retrieved.as_ref().is_some_and(|(q, _)| *q == query) {
            return;
        }
        let got = k.retrieve(&query, Some(&self.application)).await;
        self.retrieved = Some((query, got));
    }

    /// The AppAgent's tools and the external ones it was given.
    fn tool_specs(&self) -> Vec<ufo_core::ToolSpec> {
        let mut specs = catalog_for(APP_UI_EXECUTOR);
        specs.extend(self.settings.external_tools.iter().cloned());
        specs
    }

    fn build_prompt(
        &self,
        input: &StepInput<'_>,
        controls: &[Control],
        window: &str,
        images: &[(String, String)],
        _n: usize,
    ) -> (ChatRequest, Vec<String>) {
        let t = &self.prompts.app;
        let key = match (self.settings.visual_mode, self.settings.action_sequence) {
            (true, true) => "system_as",
            (true, false) => "system",
            (false, true) => {
                if t.opt("system_as_nonvisual").is_some() {
                    "system_as_nonvisual"
                } else {
                    "system_as"
                }
            }
            (false, false) => "system_nonvisual",
        };
        let examples = if self.settings.action_sequence {
            &self.prompts.app_examples_as
        } else {
            &self.prompts.app_examples
        };
        let apis = tools_to_llm_prompt(&self.tool_specs(), true);
        let (knowledge, extra) = match &self.retrieved {
            Some((_, r)) => (
                knowledge_prompt(&r.help_docs, &r.online),
                r.examples.as_slice(),
            ),
            None => (String::new(), &[][..]),
        };
        let ex = examples_prompt_with(examples, extra);
        let system = render(
            t.opt(key).or(t.opt("system")).unwrap_or_default(),
            &[("apis", &apis), ("examples", &ex)],
        );
        let control_item = serde_json::to_string(&ufo_desktop::filter::prompt_controls(controls))
            .unwrap_or_default();
        let mut last = serde_json::to_string(&self.last_actions).unwrap_or_default();
        if let Some((action, times)) = self.repeat.repeating()
            && let Some(w) = t.opt("repeat_warning")
        {
            last.push('\n');
            last.push_str(&render(
                w,
                &[("times", &times.to_string()), ("action", action)],
            ));
        }
        let user = user_prompt(
            t,
            input,
            &self.life,
            knowledge,
            &[
                ("control_item", &control_item),
                ("window", window),
                ("last_success_actions", &last),
                ("current_application", &self.application),
            ],
        );
        let (mut parts, mut names) = blackboard_parts(input.blackboard, self.settings.visual_mode);
        for (label, url) in images {
            if let Some(l) = t.nested("images", label) {
                parts.push(Part::text(l));
            }
            parts.push(Part::image(url.clone()));
            let n = input.session_step;
            names.push(match label.as_str() {
                "last" => self
                    .last_selected
                    .as_ref()
                    .map(|(s, _)| ImageKind::Selected.file(*s))
                    .unwrap_or_default(),
                "concat" => ImageKind::Concat.file(n),
                "annotated" => ImageKind::Annotated.file(n),
                _ => ImageKind::Clean.file(n),
            });
        }
        parts.push(Part::text(user));
        (ChatRequest::agent(system, parts), names)
    }

    async fn act(
        &mut self,
        rec: &mut StepRecord,
        calls: &[Call],
        controls: &[Control],
        shot: Option<&Screenshot>,
        status: AppAgentStatus,
        n: usize,
    ) -> AppAgentStatus {
        let t = Instant::now();
        let commands: Vec<Command> = calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut cmd = c.command();
                cmd.call_id = format!("{n}-{}", i + 1);
                cmd
            })
            .collect();
        let results = if commands.is_empty() {
            Vec::new()
        } else {
            self.dispatcher.execute(commands).await
        };
        let mut ids = Vec::new();
        let mut any_failed = false;
        let mut failed_action = None;
        for (c, mut r) in calls.iter().zip(results) {
            let target = c
                .arguments
                .get("id")
                .and_then(ufo_desktop::tools::parse_id)
                .and_then(|id| controls.iter().find(|x| x.id == id));
            if let Some(t) = target {
                ids.push(t.id);
            }
            let control_log = target.map(|t| taken_control_log(&mut r, t));
            let target = target.map(|t| serde_json::to_value(t.to_prompt()).unwrap_or_default());
            let s = c.action_string();
            if c.tool.is(Tool::Summary)
                && let Some(text) = r.result.as_str()
            {
                self.life.set_result(text);
            }
            if r.status == ActionStatus::Failure {
                any_failed = true;
                failed_action = Some(s.clone());
            }
            let given = c.logged_status(status);
            let mut log = ActionLog::new(c.tool.as_str(), &c.arguments, target, given, r);
            if control_log.is_some() {
                rec.control_log.clone_from(&control_log);
            }
            log.control_log = control_log;
            rec.actions.push(log);
        }
        if let Some(shot) = shot {
            let img = selected_controls_image(shot, controls, &ids);
            let model = self.settings.image.encode(&img).ok();
            rec.images.selected = match &model {
                Some(m) if m.mime == "image/png" => Some(m.bytes.clone()),
                _ => encode_png(&img, self.settings.png).ok(),
            };
            self.last_selected = model.map(|m| (n, m.data_url()));
        }
        self.last_actions = rec
            .actions
            .iter()
            .map(|a| a.action_representation.clone())
            .collect();
        rec.time(Phase::ActionExecution, t);

        // Repeated-action guard.
        let mut status = status;
        match failed_action {
            Some(a) => {
                let times = self.repeat.failed(&a);
                if times >= self.settings.max_repeat {
                    rec.comment = self.prompts.app.text_or(
                        crate::prompts::APP_AGENT,
                        "gave_up",
                        &[("times", &times.to_string()), ("action", &a)],
                    );
                    self.life.set_comment(rec.comment.clone());
                    status = AppAgentStatus::Fail;
                } else if matches!(status, AppAgentStatus::Finish | AppAgentStatus::Confirm) {
                    // A failed action cannot finish the sub-task: let the model see it.
                    status = AppAgentStatus::Continue;
                }
            }
            None => {
                self.repeat.reset();
                if status == AppAgentStatus::Confirm {
                    status = AppAgentStatus::Continue;
                }
            }
        }
        let _ = any_failed;
        status
    }
}

/// UFO's control log of `target`: the one the tool read before acting
/// (taken out of the result, which the model sees), or, from a device that
/// sends none, what the observation said (its role as the class, no
/// automation id).
fn taken_control_log(r: &mut ufo_core::ActionResult, target: &Control) -> ufo_core::ControlLog {
    r.result
        .as_object_mut()
        .and_then(|m| m.remove("control_log"))
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_else(|| ufo_core::ControlLog::observed(target))
}

impl Resumable for AppAgent {
    type Work = Work;

    fn lifecycle(&mut self) -> &mut Lifecycle<Work> {
        &mut self.life
    }

    async fn carry_out(&mut self, rec: &mut StepRecord, work: Work) -> AppAgentStatus {
        let n = rec.session_step;
        let Work {
            calls,
            controls,
            shot,
            final_status,
        } = work;
        self.act(rec, &calls, &controls, shot.as_ref(), final_status, n)
            .await
    }

    fn decline(&mut self, rec: &mut StepRecord, _work: Work) -> AppAgentStatus {
        rec.comment = self
            .prompts
            .app
            .text_or(crate::prompts::APP_AGENT, "declined", &[]);
        self.life.set_comment(rec.comment.clone());
        AppAgentStatus::Finish
    }

    fn memory_and_who(&mut self) -> (&mut Memory, (&'static str, &str)) {
        (&mut self.memory, ("application", &self.application))
    }
}
