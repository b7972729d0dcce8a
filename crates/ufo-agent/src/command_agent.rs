//! The command-line agent (UFO's third-party `LinuxAgent`): the HostAgent
//! assigns it a sub-task like an application; each step it asks the model for
//! one `execute_command` (or `get_system_info`) and reads the output.
//!
//! It sees no screen: its observation is the output of the commands it ran.
//! Commands go through the [`CommandDispatcher`] like every other action, and
//! the device side decides what may run (`ufo_desktop::commands`: an
//! allowlist with per-command argument policies, no shell, a timeout, capped
//! output). With `SAFE_GUARD`, a call whose tool is listed in
//! `SAFE_GUARD_TOOLS` waits for the user's confirmation as an AppAgent's does.

use crate::app::{AgentSettings, AppStep, StepInput, check_app_reply};
use crate::call::{Call, Decision};
use crate::error::AgentError;
use crate::guards::{Gate, confirmed_status, gate};
use crate::lifecycle::{Lifecycle, Resumable};
use crate::llm::{Checked, interact};
use crate::memory::{Blackboard, Memory};
use crate::prompter::{Template, examples_prompt, render, tools_to_llm_prompt};
use crate::response::plain;
use crate::step::{ActionLog, AgentKind, Phase, StepFailure, StepRecord};
use crate::subtask_prompt::{blackboard_parts, user_prompt};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use ufo_core::{ActionResult, AppAgentStatus, Diagnostic, StepStatus};
use ufo_desktop::dispatch::CommandDispatcher;
use ufo_desktop::tools::{BASH_EXECUTOR, catalog_for};
use ufo_llm::{ChatModel, ChatRequest, Part};

/// Built-in template (`prompts/third_party/linux_agent.yaml`).
pub const LINUX_AGENT: &str = include_str!("../../../prompts/third_party/linux_agent.yaml");
/// Built-in examples (`prompts/third_party/linux_agent_example.yaml`).
pub const LINUX_AGENT_EXAMPLES: &str =
    include_str!("../../../prompts/third_party/linux_agent_example.yaml");

/// How many earlier commands the prompt shows, and how much of each output.
const SHOWN_COMMANDS: usize = 5;
const SHOWN_OUTPUT: usize = 4000;

/// What the HostAgent and the prompts know of a command-line agent.
#[derive(Debug, Clone)]
pub struct CommandAgentSpec {
    /// Its name (`LinuxAgent`): the HostAgent assigns to it by this name.
    pub name: String,
    /// `INTRODUCTION`: what it is for, shown to the HostAgent.
    pub introduction: String,
    /// The programs it may run (named in its prompt).
    pub allowed_commands: Vec<String>,
    /// `APPAGENT_PROMPT`: its template, or the built-in one.
    pub prompt: Option<PathBuf>,
    /// `APPAGENT_EXAMPLE_PROMPT`: its examples, or the built-in ones.
    pub example_prompt: Option<PathBuf>,
}

/// What a held step runs once the user confirms.
#[derive(Debug, Clone)]
pub(crate) struct Work {
    call: Call,
    final_status: AppAgentStatus,
}

/// The command-line agent.
pub struct CommandAgent {
    /// Its name (`LinuxAgent`).
    pub name: String,
    /// Its steps.
    pub memory: Memory,
    /// The sub-task, the user's answers, a call held for confirmation.
    pub(crate) life: Lifecycle<Work>,
    spec: CommandAgentSpec,
    template: Template,
    examples: Template,
    model: Arc<dyn ChatModel>,
    dispatcher: Arc<dyn CommandDispatcher>,
    settings: AgentSettings,
    /// `(action string, what it returned)`, oldest first.
    history: Vec<(String, String)>,
    repeat: crate::guards::RepeatGuard,
    /// The tools shown to the model: the device's own description of them
    /// when it gives one, else the catalog's (read at the first step).
    specs: Option<Vec<ufo_core::ToolSpec>>,
}

impl CommandAgent {
    /// A new agent; its templates are read now, so a bad path is an error
    /// before anything runs.
    pub fn new(
        spec: CommandAgentSpec,
        model: Arc<dyn ChatModel>,
        dispatcher: Arc<dyn CommandDispatcher>,
        settings: AgentSettings,
    ) -> Result<Self, AgentError> {
        let template = match &spec.prompt {
            Some(p) => Template::load(p)?,
            None => Template::parse("built-in:linux_agent.yaml", LINUX_AGENT)?,
        };
        let examples = match &spec.example_prompt {
            Some(p) => Template::load(p)?,
            None => Template::parse("built-in:linux_agent_example.yaml", LINUX_AGENT_EXAMPLES)?,
        };
        template.get("system")?;
        template.get("user")?;
        Ok(Self {
            name: spec.name.clone(),
            memory: Memory::default(),
            life: Lifecycle::default(),
            spec,
            template,
            examples,
            model,
            dispatcher,
            settings,
            history: Vec::new(),
            repeat: Default::default(),
            specs: None,
        })
    }

    /// Starts a new sub-task (the command history is kept).
    pub fn assign(&mut self, subtask: &str, host_message: Vec<String>) {
        self.life.assign(subtask, host_message);
        self.repeat.reset();
    }

    /// One step: ask for a command, run it, remember its output.
    pub async fn step(&mut self, input: StepInput<'_>) -> Result<AppStep, StepFailure> {
        let started = Instant::now();
        let mut rec = self.life.new_record(
            AgentKind::ThirdPartyAgent,
            &self.name,
            &input,
            self.memory.len() + 1,
            &self.name,
        );

        // 1. Data collection: nothing to observe but the last outputs.
        // 2. LLM interaction.
        if self.specs.is_none() {
            let device = self.dispatcher.tools(BASH_EXECUTOR).await;
            self.specs = Some(device.unwrap_or_else(|| catalog_for(BASH_EXECUTOR)));
        }
        let specs = self.specs.clone().unwrap_or_default();
        let request = self.build_prompt(&input, &specs);
        let checked = interact(
            &mut rec,
            self.model.as_ref(),
            &self.template,
            self.settings.json_parsing_retry,
            request,
            Vec::new(),
            |r, repairs| check_app_reply(r, &[], &specs, repairs),
        )
        .await;
        let Checked {
            reply,
            parsed: Decision { status, calls },
        } = match checked {
            Ok(c) => c,
            Err(e) => return Err(rec.fail(e, AppAgentStatus::Error, started)),
        };
        self.life.take_reply(&rec, plain(&reply.result));
        // One command per step: a list is cut to its first call.
        if calls.len() > 1 {
            rec.repairs.push(format!(
                "$.action: {} calls; the command-line agent runs one per step, the first",
                calls.len()
            ));
        }
        let call = calls.into_iter().next();

        // With SAFE_GUARD, a listed tool waits for the user.
        let guarded = crate::guards::guarded(
            &self.settings,
            status,
            call.as_slice(),
            &mut crate::guards::Selection::default(),
        );
        match (gate(status, call.is_some(), !guarded.is_empty()), &call) {
            (Gate::Hold, Some(c)) => {
                let work = Work {
                    call: c.clone(),
                    final_status: confirmed_status(status),
                };
                let actions = vec![c.action_string()];
                let held = self
                    .life
                    .hold(rec, work, actions, &guarded, guarded.clone(), started);
                return Ok(held);
            }
            (Gate::Ask, _) => {
                let questions = reply.questions.items();
                return Ok(self.ask_user(rec, input.blackboard, status, questions, started));
            }
            _ => {}
        }

        // 3. Action execution, 4. memory update.
        let status = match call {
            Some(c) => self.run(&mut rec, &c, status).await,
            None => status,
        };
        self.remember(&mut rec, input.blackboard, status, None);
        Ok(AppStep::finished(rec, status, started))
    }

    /// Continues after CONFIRM: runs the pending call when `confirmed`,
    /// otherwise drops it and finishes the sub-task.
    pub async fn resume(
        &mut self,
        confirmed: bool,
        blackboard: &mut Blackboard,
    ) -> Option<AppStep> {
        crate::lifecycle::resume(self, confirmed, blackboard).await
    }

    /// Executes `call`; its output goes into the history the next prompt
    /// shows. The same failing call `MAX_REPEAT` times fails the sub-task.
    async fn run(
        &mut self,
        rec: &mut StepRecord,
        call: &Call,
        status: AppAgentStatus,
    ) -> AppAgentStatus {
        let t = Instant::now();
        let mut cmd = call.command();
        cmd.call_id = format!("{}-1", rec.session_step);
        let r = ufo_desktop::dispatch::execute_one(self.dispatcher.as_ref(), cmd).await;
        let shown = shown_result(&r);
        let failed = !r.is_success() || r.result.get("exit_code") != Some(&json!(0));
        let s = call.action_string();
        let given = call.logged_status(status);
        rec.actions.push(ActionLog::new(
            call.tool.as_str(),
            &call.arguments,
            None,
            given,
            r,
        ));
        self.history.push((s.clone(), shown));
        rec.time(Phase::ActionExecution, t);
        match failed {
            true => {
                let times = self.repeat.failed(&s);
                if times >= self.settings.max_repeat {
                    rec.comment = self.template.text_or(
                        LINUX_AGENT,
                        "gave_up",
                        &[("times", &times.to_string()), ("action", &s)],
                    );
                    self.life.set_comment(rec.comment.clone());
                    return AppAgentStatus::Fail;
                }
            }
            false => self.repeat.reset(),
        }
        match status {
            AppAgentStatus::Confirm => AppAgentStatus::Continue,
            other => other,
        }
    }

    fn build_prompt(&self, input: &StepInput<'_>, specs: &[ufo_core::ToolSpec]) -> ChatRequest {
        let t = &self.template;
        let apis = tools_to_llm_prompt(specs, true);
        let ex = examples_prompt(&self.examples);
        let allowed = self.spec.allowed_commands.join(", ");
        let system = render(
            t.opt("system").unwrap_or_default(),
            &[
                ("apis", &apis),
                ("examples", &ex),
                ("allowed_commands", &allowed),
            ],
        );
        let previous = match self.history.is_empty() {
            true => t.opt("no_commands").unwrap_or("none").to_owned(),
            false => {
                let from = self.history.len().saturating_sub(SHOWN_COMMANDS);
                self.history[from..]
                    .iter()
                    .map(|(call, out)| format!("\n$ {call}\n{out}"))
                    .collect()
            }
        };
        let user = user_prompt(
            t,
            input,
            &self.life,
            String::new(),
            &[("previous_commands", &previous)],
        );
        let (mut parts, _) = blackboard_parts(input.blackboard, false);
        parts.push(Part::text(user));
        ChatRequest::agent(system, parts)
    }
}

impl Resumable for CommandAgent {
    type Work = Work;

    fn lifecycle(&mut self) -> &mut Lifecycle<Work> {
        &mut self.life
    }

    async fn carry_out(&mut self, rec: &mut StepRecord, work: Work) -> AppAgentStatus {
        self.run(rec, &work.call, work.final_status).await
    }

    fn decline(&mut self, rec: &mut StepRecord, work: Work) -> AppAgentStatus {
        rec.comment = self.template.text_or(LINUX_AGENT, "declined", &[]);
        self.life.set_comment(rec.comment.clone());
        let r = ActionResult::failure(AgentError::Declined.report());
        rec.actions.push(ActionLog::new(
            work.call.tool.as_str(),
            &work.call.arguments,
            None,
            StepStatus::Finish,
            r,
        ));
        AppAgentStatus::Finish
    }

    fn memory_and_who(&mut self) -> (&mut Memory, (&'static str, &str)) {
        (&mut self.memory, ("agent", &self.name))
    }
}

/// What the model is shown of a call's result: exit code, output, errors;
/// a refusal or failure with its reason and help.
fn shown_result(r: &ActionResult) -> String {
    if let Some(e) = &r.error {
        let help = e
            .help
            .as_deref()
            .map(|h| format!(" ({h})"))
            .unwrap_or_default();
        return format!("[Error] {}{help}", e.message_with_causes());
    }
    let v = &r.result;
    if let (Some(false), Some(e)) = (
        v.get("success").and_then(Value::as_bool),
        v.get("error").and_then(Value::as_str),
    ) && v.get("exit_code").is_none()
    {
        return format!("[Error] {e}");
    }
    let Some(code) = v.get("exit_code") else {
        return clip(&serde_json::to_string(v).unwrap_or_default());
    };
    let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default();
    let mut out = match code {
        Value::Null => "[exit code] none (killed)".to_owned(),
        c => format!("[exit code] {c}"),
    };
    if v.get("timed_out") == Some(&Value::Bool(true)) {
        out.push_str(" [timed out]");
    }
    if !text("stdout").is_empty() {
        out.push_str(&format!("\n[stdout]\n{}", clip(text("stdout"))));
    }
    if !text("stderr").is_empty() {
        out.push_str(&format!("\n[stderr]\n{}", clip(text("stderr"))));
    }
    if v.get("truncated") == Some(&Value::Bool(true)) {
        out.push_str("\n[output cut at the device's limit]");
    }
    out
}

fn clip(s: &str) -> String {
    match ufo_core::text::cut_at(s, SHOWN_OUTPUT) {
        Some(i) => format!("{}… [cut]", &s[..i]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_shown_with_exit_code_streams_and_refusals() {
        let ok = ActionResult::success(json!({
            "exit_code": 0, "stdout": "3 notes.txt\n", "stderr": "", "truncated": false, "timed_out": false
        }));
        let s = shown_result(&ok);
        assert!(
            s.starts_with("[exit code] 0") && s.contains("3 notes.txt"),
            "{s}"
        );
        let refused = ActionResult::failure(
            ufo_core::ErrorReport::new("ufo::tool::command_not_allowed", "rm is not allowed")
                .with_help("use ls"),
        );
        assert_eq!(shown_result(&refused), "[Error] rm is not allowed (use ls)");
        // Why a command could not run is shown with it.
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory");
        let failed = ActionResult::failure(
            ufo_desktop::DesktopError::backend_by("cannot start \"lss\"", io).report(),
        );
        assert_eq!(
            shown_result(&failed),
            "[Error] cannot start \"lss\": No such file or directory (run `ufo doctor` to check the desktop)"
        );
        let killed = ActionResult::success(
            json!({"exit_code": null, "timed_out": true, "stdout": "", "stderr": ""}),
        );
        assert!(
            shown_result(&killed).contains("killed") && shown_result(&killed).contains("timed out")
        );
        assert!(clip(&"x".repeat(SHOWN_OUTPUT + 10)).ends_with("… [cut]"));
    }

    #[test]
    fn the_builtin_template_and_examples_fill_every_placeholder() {
        let t = Template::parse("t", LINUX_AGENT).unwrap();
        for k in ["system", "user", "retry", "pending_answer"] {
            t.get(k).unwrap();
        }
        assert!(t.get("system").unwrap().contains("{allowed_commands}"));
        let ex = examples_prompt(&Template::parse("e", LINUX_AGENT_EXAMPLES).unwrap());
        assert!(
            ex.contains("execute_command") && ex.contains("FINISH"),
            "{ex}"
        );
    }

    /// A model that answers from a script and keeps the prompts it was sent.
    struct Scripted {
        replies: std::sync::Mutex<Vec<Value>>,
        prompts: std::sync::Mutex<Vec<String>>,
    }

    #[async_trait::async_trait]
    impl ChatModel for Scripted {
        async fn chat(&self, r: ChatRequest) -> Result<ufo_llm::ChatResponse, ufo_llm::LlmError> {
            let prompt: Vec<String> = r.messages.iter().map(ufo_llm::Msg::text).collect();
            self.prompts.lock().unwrap().push(prompt.join("\n"));
            let mut replies = self.replies.lock().unwrap();
            let text = match replies.is_empty() {
                true => String::new(),
                false => replies.remove(0).to_string(),
            };
            Ok(ufo_llm::ChatResponse {
                text,
                ..Default::default()
            })
        }
        fn describe(&self) -> String {
            "scripted".into()
        }
    }

    /// A device that runs every command successfully and keeps them.
    #[derive(Default)]
    struct Device(std::sync::Mutex<Vec<ufo_core::Command>>);

    #[async_trait::async_trait]
    impl CommandDispatcher for Device {
        async fn execute(&self, commands: Vec<ufo_core::Command>) -> Vec<ActionResult> {
            let mut ran = self.0.lock().unwrap();
            commands
                .into_iter()
                .map(|c| {
                    ran.push(c);
                    ActionResult::success(json!({"exit_code": 0, "stdout": "3\n", "stderr": ""}))
                })
                .collect()
        }
        fn describe(&self) -> String {
            "device".into()
        }
    }

    fn agent(replies: Vec<Value>) -> (CommandAgent, Arc<Scripted>, Arc<Device>) {
        let model = Arc::new(Scripted {
            replies: std::sync::Mutex::new(replies),
            prompts: Default::default(),
        });
        let device = Arc::new(Device::default());
        let spec = CommandAgentSpec {
            name: "LinuxAgent".into(),
            introduction: String::new(),
            allowed_commands: vec!["ls".into()],
            prompt: None,
            example_prompt: None,
        };
        let a = CommandAgent::new(
            spec,
            model.clone(),
            device.clone(),
            AgentSettings::default(),
        )
        .unwrap();
        (a, model, device)
    }

    fn input<'a>(step: usize, bb: &'a mut Blackboard) -> StepInput<'a> {
        StepInput {
            session_step: step,
            round: 1,
            request: "count the files",
            blackboard: bb,
            prev_subtasks: &[],
        }
    }

    #[tokio::test]
    async fn answers_to_a_pending_step_reach_the_next_prompt_and_a_held_call_runs_once() {
        let (mut a, model, device) = agent(vec![
            json!({"observation": "", "thought": "which folder?", "status": "PENDING", "questions": ["Which folder?"]}),
            json!({"observation": "", "thought": "sensitive", "status": "CONFIRM",
                   "action": {"function": "execute_command", "arguments": {"command": "ls /srv"}}}),
        ]);
        let mut bb = Blackboard::default();
        a.assign("count the files", Vec::new());
        let step = a.step(input(1, &mut bb)).await.unwrap();
        assert_eq!(step.status, AppAgentStatus::Pending);
        assert_eq!(step.questions, ["Which folder?"]);
        assert_eq!(a.life.open_questions(), ["Which folder?"]);
        a.life.answer(vec![("Which folder?".into(), "/srv".into())]);

        let step = a.step(input(2, &mut bb)).await.unwrap();
        let prompts = model.prompts.lock().unwrap().clone();
        assert!(
            !prompts[0].contains("Answer from the user"),
            "{}",
            prompts[0]
        );
        assert!(
            prompts[1].contains("Question: Which folder?\nAnswer from the user: /srv"),
            "{}",
            prompts[1]
        );
        // CONFIRM: held, nothing ran until the user says so.
        assert_eq!(step.status, AppAgentStatus::Confirm);
        assert_eq!(
            a.life.pending_actions(),
            ["execute_command(command=\"ls /srv\")"]
        );
        assert!(device.0.lock().unwrap().is_empty());
        let done = a.resume(true, &mut bb).await.unwrap();
        assert_eq!(
            (done.status, done.record.session_step),
            (AppAgentStatus::Continue, 2)
        );
        assert_eq!(done.record.actions[0].function, "execute_command");
        assert_eq!(device.0.lock().unwrap().len(), 1);
        assert!(a.resume(true, &mut bb).await.is_none());
        assert_eq!(a.memory.len(), 2);
    }
}
