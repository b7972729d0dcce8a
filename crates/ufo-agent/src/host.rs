//! The HostAgent: reads the desktop, decomposes the request into sub-tasks
//! and assigns each to an application (`select_application_window`).

mod reply;

use crate::app::{AgentSettings, StepInput};
use crate::error::AgentError;
use crate::lifecycle::Answers;
use crate::llm::{Checked, interact};
use crate::memory::{Memory, MemoryItem};
use crate::prompter::{examples_prompt_with, knowledge_prompt, render, tools_to_llm_prompt};
use crate::prompts::PromptSet;
use crate::response::{HostResponse, plain};
use crate::step::{ActionLog, AgentKind, ImageKind, Phase, StepFailure, StepRecord};
use crate::subtask_prompt::blackboard_parts;
use reply::{HostDecision, check_host_reply};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Instant;
use ufo_core::{Diagnostic, HostAgentStatus, StepStatus};
use ufo_desktop::designate::{Designated, resolve};
use ufo_desktop::dispatch::{CommandDispatcher, execute_one};
use ufo_desktop::encode::decode_data_url;
use ufo_desktop::tools::Tool;
use ufo_desktop::tools::{
    COMMAND_LINE_EXECUTOR, HOST_UI_EXECUTOR, ScreenshotInfo, WindowEntry, catalog_for,
};
use ufo_llm::{ChatModel, ChatRequest, Part};

/// A sub-task handed to an AppAgent or a third-party agent.
#[derive(Debug, Clone)]
pub struct Assignment {
    /// The application (accessibility name) the AppAgent works in, or the
    /// third-party agent's name.
    pub application: String,
    /// The target is a third-party agent, not an application window.
    pub third_party: bool,
    /// The selected window's title.
    pub window_title: String,
    /// The sub-task.
    pub subtask: String,
    /// Messages for the AppAgent.
    pub message: Vec<String>,
}

/// The outcome of a HostAgent step.
#[derive(Debug)]
pub struct HostStep {
    /// The log line.
    pub record: StepRecord,
    /// Next status.
    pub status: HostAgentStatus,
    /// The assignment, when `status` is ASSIGN.
    pub assignment: Option<Assignment>,
    /// Questions for the user (PENDING).
    pub questions: Vec<String>,
    /// The final result (FINISH) or comment.
    pub result: String,
    /// A `run_shell` command the model asked for, not run yet: the session
    /// confirms it (SAFE_GUARD) and calls [`HostAgent::run_shell`].
    pub launch: Option<String>,
}

/// The HostAgent.
pub struct HostAgent {
    /// Memory of its steps.
    pub memory: Memory,
    model: Arc<dyn ChatModel>,
    dispatcher: Arc<dyn CommandDispatcher>,
    prompts: Arc<PromptSet>,
    settings: AgentSettings,
    plan: Vec<String>,
    /// The user's answers to its questions (PENDING), in every later prompt.
    answers: Answers,
    launchable: Vec<String>,
    third_party: Vec<(String, String)>,
    /// What was retrieved for the current request (queried once per request).
    retrieved: Option<(String, crate::retrieve::Retrieved)>,
    /// An assignment waiting for its command (the seed's `Bash` beside a
    /// `ControlLabel`): selected by [`HostAgent::run_shell`] once it ran.
    after_launch: Option<(HostResponse, HostDecision)>,
}

/// What the HostAgent may assign a sub-task to: a listed window, or an
/// enabled third-party agent (listed after the windows, `kind`
/// `third_party_agent`).
#[derive(Debug, Clone, PartialEq)]
enum Target {
    Window(Box<WindowEntry>),
    Agent { id: String, name: String },
}

/// What a HostAgent step saw: the targets, the desktop's screenshot (a data
/// URL) and the names its image is logged under.
struct Seen {
    targets: Vec<Target>,
    desktop: Option<String>,
    image_names: Vec<String>,
}

impl Target {
    fn id(&self) -> &str {
        match self {
            Target::Window(w) => &w.id,
            Target::Agent { id, .. } => id,
        }
    }
    fn name(&self) -> &str {
        match self {
            Target::Window(w) => &w.name,
            Target::Agent { name, .. } => name,
        }
    }
    fn to_prompt(&self) -> Value {
        match self {
            Target::Window(w) => {
                json!({"id": w.id, "name": w.name, "kind": "window", "application": w.app_name})
            }
            Target::Agent { id, name } => {
                json!({"id": id, "name": name, "kind": "third_party_agent"})
            }
        }
    }
}

impl Designated for Target {
    fn label(&self, index: usize) -> u32 {
        self.id()
            .parse()
            .unwrap_or_else(|_| u32::try_from(index + 1).unwrap_or(u32::MAX))
    }
    fn shown_name(&self) -> &str {
        self.name()
    }
    fn answers_to(&self, given: &str) -> bool {
        match self {
            Target::Window(w) => w.answers_to(given),
            Target::Agent { name, .. } => ufo_desktop::names::names_match(given, name),
        }
    }
}

/// The windows, then the third-party agents numbered after them.
fn targets(windows: &[WindowEntry], agents: &[(String, String)]) -> Vec<Target> {
    let mut out: Vec<Target> = windows
        .iter()
        .cloned()
        .map(|w| Target::Window(Box::new(w)))
        .collect();
    for (name, _) in agents {
        let id = (out.len() + 1).to_string();
        out.push(Target::Agent {
            id,
            name: name.clone(),
        });
    }
    out
}

impl HostAgent {
    /// A new HostAgent.
    pub fn new(
        model: Arc<dyn ChatModel>,
        dispatcher: Arc<dyn CommandDispatcher>,
        prompts: Arc<PromptSet>,
        settings: AgentSettings,
    ) -> Self {
        Self {
            memory: Memory::default(),
            model,
            dispatcher,
            prompts,
            settings,
            plan: Vec::new(),
            answers: Answers::default(),
            launchable: Vec::new(),
            third_party: Vec::new(),
            retrieved: None,
            after_launch: None,
        }
    }

    /// The enabled third-party agents, as `(name, introduction)`: listed to
    /// the model as targets and described in `{third_party_instructions}`.
    pub fn set_third_party(&mut self, agents: Vec<(String, String)>) {
        self.third_party = agents;
    }

    /// The applications `run_shell` may start, named in the prompt.
    pub fn set_launchable(&mut self, programs: Vec<String>) {
        self.launchable = programs;
    }

    /// Runs the step's pending `run_shell` command when `confirmed` (else
    /// records that the user declined it) and remembers it. When the step
    /// also selects an application (the seed's `Bash` beside a
    /// `ControlLabel`), the application is selected once the command ran,
    /// and the step's status and assignment are updated.
    pub async fn run_shell(&mut self, step: &mut HostStep, command: &str, confirmed: bool) {
        let t = Instant::now();
        let rec = &mut step.record;
        let mut args = Map::new();
        args.insert("bash_command".into(), Value::String(command.to_owned()));
        let r = if confirmed {
            let mut cmd = Tool::RunShell.command(Value::Object(args.clone()));
            cmd.call_id = format!("{}-1", rec.session_step);
            execute_one(self.dispatcher.as_ref(), cmd).await
        } else {
            rec.comment = self.prompts.host.text_or(
                crate::prompts::HOST_AGENT,
                "declined",
                &[("command", &format!("{command:?}"))],
            );
            ufo_core::ActionResult::failure(AgentError::Declined.report())
        };
        // Why the command did not run, when it did not.
        let refused = match (&r.error, confirmed) {
            (_, false) => Some("the user declined it".to_owned()),
            (Some(e), true) => Some(e.headline()),
            (None, true) => None,
        };
        rec.actions.push(ActionLog::new(
            Tool::RunShell.name(),
            &args,
            None,
            StepStatus::Continue,
            r,
        ));
        let mut status = StepStatus::Continue;
        if let Some((reply, decision)) = self.after_launch.take() {
            self.select_launched(step, &reply, &decision, command, refused)
                .await;
            status = step.status.into();
        }
        self.memory
            .push(MemoryItem::of(&step.record, status, Some(confirmed)));
        step.record.time(Phase::ActionExecution, t);
    }

    /// The application a step selects after its command: the windows are
    /// listed again and the one the reply names is selected. When none is,
    /// the step goes back to CONTINUE and its comment says why (the command
    /// refused or declined, or no such window).
    async fn select_launched(
        &self,
        step: &mut HostStep,
        reply: &HostResponse,
        decision: &HostDecision,
        command: &str,
        refused: Option<String>,
    ) {
        let session_step = step.record.session_step;
        let targets = match self.list_targets().await {
            Ok(t) => t,
            Err(e) => {
                step.record.comment = e.to_string();
                step.status = HostAgentStatus::Continue;
                step.record.status = StepStatus::Continue;
                return;
            }
        };
        let mut decision = decision.clone();
        let args = decision
            .call
            .as_ref()
            .map(|c| c.arguments.clone())
            .unwrap_or_default();
        let id = args.get("id").and_then(ufo_desktop::tools::parse_id);
        let name = args.get("name").and_then(Value::as_str).unwrap_or_default();
        match resolve(&targets, id, Some(name), true) {
            Ok(t) => {
                if let Some(call) = decision.call.as_mut() {
                    call.arguments
                        .insert("id".into(), Value::String(t.item.id().to_owned()));
                }
                let mut status = decision.status;
                step.assignment = self
                    .assign(
                        &mut step.record,
                        reply,
                        &decision,
                        &mut status,
                        &targets,
                        session_step,
                    )
                    .await;
                step.status = status;
                step.record.status = status.into();
                if let Some(why) = refused {
                    step.record.comment = format!(
                        "The command {command:?} did not run ({why}); {:?} was already open and is selected.",
                        step.record.application
                    );
                }
            }
            Err(_) => {
                step.status = HostAgentStatus::Continue;
                step.record.status = StepStatus::Continue;
                let listed: Vec<String> = targets
                    .iter()
                    .map(|w| format!("{} {:?}", w.id(), w.name()))
                    .collect();
                let why = match refused {
                    Some(why) => format!("its command {command:?} did not run ({why})"),
                    None => format!("no window of it is listed after {command:?} ran"),
                };
                step.record.comment = format!(
                    "The application {name:?} (ControlLabel {}) was not selected: {why}. The windows are {}.",
                    args.get("id").map(Value::to_string).unwrap_or_default(),
                    listed.join(", ")
                );
            }
        }
    }

    /// Records the user's answers to the model's questions.
    pub fn add_answers(&mut self, qa: Vec<(String, String)>) {
        self.answers.add(qa);
    }

    /// One step: list windows, ask, select the window of the next sub-task.
    /// One method per phase.
    pub async fn step(&mut self, input: StepInput<'_>) -> Result<HostStep, StepFailure> {
        let started = Instant::now();
        let mut rec = StepRecord::new(AgentKind::HostAgent, "HostAgent", input.session_step);
        rec.round = input.round;
        rec.agent_step = self.memory.len() + 1;
        rec.request = input.request.to_owned();

        // 1. Data collection.
        let seen = match self.observe(&mut rec, input.session_step).await {
            Ok(seen) => seen,
            Err(e) => return Err(rec.fail(e, HostAgentStatus::Error, started)),
        };

        // 2. LLM interaction.
        let Checked {
            reply,
            parsed: decision,
        } = match self.ask(&mut rec, &input, &seen).await {
            Ok(c) => c,
            Err(e) => return Err(rec.fail(e, HostAgentStatus::Error, started)),
        };
        rec.subtask = reply.current_subtask.clone().unwrap_or_default();
        self.plan = rec.plan.clone();

        // 3. Action execution (run_shell waits for the session's confirmation).
        let t = Instant::now();
        let launch = decision.shell_command().map(str::to_owned);
        let mut status = decision.status;
        let assignment = match status {
            // Selected once the command ran (`run_shell`).
            HostAgentStatus::Assign if decision.selects_after_launch() => {
                self.after_launch = Some((reply.clone(), decision.clone()));
                None
            }
            HostAgentStatus::Assign => {
                self.assign(
                    &mut rec,
                    &reply,
                    &decision,
                    &mut status,
                    &seen.targets,
                    input.session_step,
                )
                .await
            }
            _ => None,
        };
        rec.time(Phase::ActionExecution, t);

        // 4. Memory update.
        self.remember(&mut rec, input.blackboard, &reply, status, launch.is_some());
        rec.total_time = started.elapsed().as_secs_f64();
        let result = match plain(&reply.result) {
            r if r.is_empty() => rec.comment.clone(),
            r => r,
        };
        Ok(HostStep {
            record: rec,
            status,
            assignment,
            questions: reply.questions.items(),
            result,
            launch,
        })
    }

    /// Data collection: the window list (the targets, third-party agents
    /// after the windows) and, in visual mode, the desktop's screenshot.
    async fn observe(&self, rec: &mut StepRecord, session_step: usize) -> Result<Seen, AgentError> {
        let t = Instant::now();
        let targets = self.list_targets().await?;
        rec.time(Phase::DataCollection, t);
        rec.control_count = targets
            .iter()
            .filter(|t| matches!(t, Target::Window(_)))
            .count();
        let t = Instant::now();
        let desktop = match self.settings.visual_mode {
            true => desktop_screenshot(self.dispatcher.as_ref()).await,
            false => None,
        };
        rec.time(Phase::DataCollection, t);
        let image_names: Vec<String> = desktop
            .iter()
            .map(|_| ImageKind::Clean.file(session_step))
            .collect();
        rec.images.clean = desktop
            .as_deref()
            .and_then(|u| decode_data_url(u).ok())
            .map(|(_, png)| png);
        Ok(Seen {
            targets,
            desktop,
            image_names,
        })
    }

    /// The listed windows, then the third-party agents.
    async fn list_targets(&self) -> Result<Vec<Target>, AgentError> {
        let r = execute_one(
            self.dispatcher.as_ref(),
            Tool::GetDesktopAppInfo.command(json!({})),
        )
        .await;
        let windows: Vec<WindowEntry> = match (r.is_success(), r.error) {
            (true, _) => serde_json::from_value(r.result).unwrap_or_default(),
            (false, e) => {
                return Err(AgentError::Observation(e.unwrap_or_else(|| {
                    ufo_desktop::dispatch::DispatchError::NoResult {
                        tool: Tool::GetDesktopAppInfo.name().to_owned(),
                    }
                    .report()
                })));
            }
        };
        Ok(targets(&windows, &self.third_party))
    }

    /// LLM interaction: experience retrieved once per request, the prompt,
    /// and a reply checked against the targets.
    async fn ask(
        &mut self,
        rec: &mut StepRecord,
        input: &StepInput<'_>,
        seen: &Seen,
    ) -> Result<Checked<HostResponse, HostDecision>, AgentError> {
        if let Some(k) = self.settings.knowledge.clone()
            && self
                .retrieved
                .as_ref()
                .is_none_or(|(q, _)| q != input.request)
        {
            // Any application's experience; help documents are the AppAgent's.
            let got = k.retrieve(input.request, None).await;
            self.retrieved = Some((input.request.to_owned(), got));
        }
        let request = self.build_prompt(input, &seen.targets, seen.desktop.as_deref());
        interact(
            rec,
            self.model.as_ref(),
            &self.prompts.host,
            self.settings.json_parsing_retry,
            request,
            seen.image_names.clone(),
            |r, repairs| check_host_reply(r, &seen.targets, repairs),
        )
        .await
    }

    /// ASSIGN: a third-party agent is assigned as it is; a window is
    /// selected (`select_application_window`), and when it cannot be the
    /// status goes back to CONTINUE to look again next step.
    async fn assign(
        &self,
        rec: &mut StepRecord,
        reply: &HostResponse,
        decision: &HostDecision,
        status: &mut HostAgentStatus,
        targets: &[Target],
        session_step: usize,
    ) -> Option<Assignment> {
        let mut assignment = None;
        let args = decision
            .call
            .as_ref()
            .map(|c| c.arguments.clone())
            .unwrap_or_default();
        let chosen = args
            .get("id")
            .and_then(ufo_desktop::tools::parse_id)
            .and_then(|i| targets.get((i as usize).saturating_sub(1)));
        let (r, target) = match chosen {
            // A third-party agent is assigned without touching the desktop.
            Some(Target::Agent { name, .. }) => {
                rec.application = name.clone();
                assignment = Some(Assignment {
                    application: name.clone(),
                    third_party: true,
                    window_title: String::new(),
                    subtask: rec.subtask.clone(),
                    message: reply.message.items(),
                });
                (
                    ufo_core::ActionResult::success(json!({"assigned_third_party_agent": name})),
                    json!({"name": name, "type": "ThirdPartyAgent"}),
                )
            }
            window => {
                let mut cmd = Tool::SelectApplicationWindow.command(Value::Object(args.clone()));
                cmd.call_id = format!("{session_step}-1");
                let r = execute_one(self.dispatcher.as_ref(), cmd).await;
                let entry = match window {
                    Some(Target::Window(w)) => Some(w),
                    _ => None,
                };
                if r.is_success() {
                    if let Some(w) = entry {
                        rec.application = w.app_name.clone();
                        assignment = Some(Assignment {
                            application: w.app_name.clone(),
                            third_party: false,
                            window_title: w.name.clone(),
                            subtask: rec.subtask.clone(),
                            message: reply.message.items(),
                        });
                    }
                } else {
                    // The window could not be selected: look again next step.
                    *status = HostAgentStatus::Continue;
                }
                let target = entry
                    .map(|w| json!({"name": w.name, "type": "Window"}))
                    .unwrap_or(Value::Null);
                (r, target)
            }
        };
        // Logged with the status the model gave (ASSIGN), also when the
        // window could not be selected.
        rec.actions.push(ActionLog::new(
            Tool::SelectApplicationWindow.name(),
            &args,
            Some(target).filter(|t| !t.is_null()),
            StepStatus::from(decision.status),
            r,
        ));
        assignment
    }

    /// Memory update: the step is remembered (a launch when it ran, by
    /// [`HostAgent::run_shell`]); the HostAgent's decisions go on the
    /// blackboard like the AppAgents' steps.
    fn remember(
        &mut self,
        rec: &mut StepRecord,
        blackboard: &mut crate::memory::Blackboard,
        reply: &HostResponse,
        status: HostAgentStatus,
        launching: bool,
    ) {
        let t = Instant::now();
        rec.status = status.into();
        blackboard.trajectories.push(json!({
            "step": rec.session_step,
            "agent": "HostAgent",
            "subtask": rec.subtask,
            "status": status.as_str(),
            "application": rec.application,
            "function": reply.function.clone().unwrap_or_default(),
        }));
        if !launching {
            self.memory.push(MemoryItem::of(rec, status.into(), None));
        }
        rec.time(Phase::MemoryUpdate, t);
    }

    fn build_prompt(
        &self,
        input: &StepInput<'_>,
        targets: &[Target],
        desktop: Option<&str>,
    ) -> ChatRequest {
        let t = &self.prompts.host;
        let key = if self.settings.visual_mode {
            "system"
        } else {
            "system_nonvisual"
        };
        let mut tools = catalog_for(HOST_UI_EXECUTOR);
        tools.extend(catalog_for(COMMAND_LINE_EXECUTOR));
        let apis = tools_to_llm_prompt(&tools, true);
        let launchable = match self.launchable.is_empty() {
            true => "none".to_owned(),
            false => self.launchable.join(", "),
        };
        let (knowledge, extra) = match &self.retrieved {
            Some((_, r)) => (
                knowledge_prompt(&r.help_docs, &r.online),
                r.examples.as_slice(),
            ),
            None => (String::new(), &[][..]),
        };
        let ex = examples_prompt_with(&self.prompts.host_examples, extra);
        let third_party = third_party_instructions(t, &self.third_party);
        let system = render(
            t.opt(key).or(t.opt("system")).unwrap_or_default(),
            &[
                ("apis", &apis),
                ("examples", &ex),
                ("third_party_instructions", &third_party),
                ("launchable", &launchable),
            ],
        );
        let items: Vec<Value> = targets.iter().map(Target::to_prompt).collect();
        let control_item = serde_json::to_string(&items).unwrap_or_default();
        let prev_subtask = serde_json::to_string(input.prev_subtasks).unwrap_or_default();
        let prev_plan = serde_json::to_string(&self.plan).unwrap_or_default();
        let mut request = input.request.to_owned();
        for answer in self.answers.rendered(t.opt("pending_answer")) {
            request.push('\n');
            request.push_str(&answer);
        }
        let last_action = self
            .memory
            .last()
            .map(|m| m.action_representation.join("\n"))
            .filter(|a| !a.is_empty())
            .unwrap_or_else(|| "none".into());
        let user = render(
            t.opt("user").unwrap_or_default(),
            &[
                ("control_item", &control_item),
                ("prev_subtask", &prev_subtask),
                ("prev_plan", &prev_plan),
                ("last_action", &last_action),
                ("user_request", &request),
                ("retrieved_docs", &knowledge),
            ],
        );
        // The blackboard, its saved screenshots included in visual mode, as
        // UFO prepends it to the HostAgent's message as to the AppAgents'.
        let (mut parts, _) = blackboard_parts(input.blackboard, self.settings.visual_mode);
        if let Some(url) = desktop {
            if let Some(l) = t.nested("images", "desktop") {
                parts.push(Part::text(l));
            }
            parts.push(Part::image(url.to_owned()));
        }
        parts.push(Part::text(user));
        ChatRequest::agent(system, parts)
    }
}

/// `{third_party_instructions}`: the template's `third_party` text with one
/// `- name: introduction` line per enabled agent; empty when none is.
fn third_party_instructions(t: &crate::prompter::Template, agents: &[(String, String)]) -> String {
    if agents.is_empty() {
        return String::new();
    }
    let list: Vec<String> = agents
        .iter()
        .map(|(name, intro)| format!("- {name}: {}", intro.trim()))
        .collect();
    render(
        t.opt("third_party").unwrap_or("{agents}"),
        &[("agents", &list.join("\n"))],
    )
}

/// The desktop screenshot (UICollector's `capture_desktop_screenshot`) as a
/// PNG data URL; `None` when it cannot be taken: the HostAgent then decides
/// from the window list alone.
async fn desktop_screenshot(d: &dyn CommandDispatcher) -> Option<String> {
    let r = execute_one(d, Tool::CaptureDesktopScreenshot.command(json!({}))).await;
    if !r.is_success() {
        tracing::warn!(error = ?r.error, "no desktop screenshot for the HostAgent");
        return None;
    }
    serde_json::from_value::<ScreenshotInfo>(r.result)
        .ok()
        .map(|i| i.image_url)
}
