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
use crate::error::AgentError;
use crate::llm::{Checked, interact};
use crate::memory::{Blackboard, Memory};
use crate::prompter::{Template, examples_prompt, render, tools_to_llm_prompt};
use crate::response::{ActionCall, action_string, plain};
use crate::step::{ActionLog, AgentKind, Phase, StepRecord};
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

/// A call waiting for the user's confirmation.
#[derive(Debug)]
struct Pending {
    call: ActionCall,
    record: StepRecord,
    final_status: AppAgentStatus,
    guarded: Vec<String>,
}

/// The command-line agent.
pub struct CommandAgent {
    /// Its name (`LinuxAgent`).
    pub name: String,
    /// The current sub-task.
    pub subtask: String,
    /// Messages from the HostAgent.
    pub host_message: Vec<String>,
    /// Its steps.
    pub memory: Memory,
    /// The answer of the current sub-task.
    pub result: String,
    /// The model's last comment.
    pub comment: String,
    spec: CommandAgentSpec,
    template: Template,
    examples: Template,
    model: Arc<dyn ChatModel>,
    dispatcher: Arc<dyn CommandDispatcher>,
    settings: AgentSettings,
    plan: Vec<String>,
    /// `(action string, what it returned)`, oldest first.
    history: Vec<(String, String)>,
    repeat: crate::guards::RepeatGuard,
    pending: Option<Pending>,
    answers: Vec<(String, String)>,
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
            subtask: String::new(),
            host_message: Vec::new(),
            memory: Memory::default(),
            result: String::new(),
            comment: String::new(),
            spec,
            template,
            examples,
            model,
            dispatcher,
            settings,
            plan: Vec::new(),
            history: Vec::new(),
            repeat: Default::default(),
            pending: None,
            answers: Vec::new(),
            specs: None,
        })
    }

    /// Starts a new sub-task (the command history is kept).
    pub fn assign(&mut self, subtask: &str, host_message: Vec<String>) {
        self.subtask = subtask.to_owned();
        self.host_message = host_message;
        self.result.clear();
        self.comment.clear();
        self.plan.clear();
        self.repeat.reset();
        self.pending = None;
    }

    /// Records the user's answers (PENDING); they go into the next prompt.
    pub fn add_answers(&mut self, qa: Vec<(String, String)>) {
        self.answers.extend(qa);
    }

    /// The call waiting for confirmation, as `fn(k="v")`.
    pub fn pending_actions(&self) -> Vec<String> {
        self.pending
            .iter()
            .map(|p| action_string(&p.call.function, &p.call.arguments))
            .collect()
    }

    /// Why SAFE_GUARD stopped the pending call, when the model did not ask.
    pub fn pending_reasons(&self) -> Vec<String> {
        self.pending
            .as_ref()
            .map(|p| p.guarded.clone())
            .unwrap_or_default()
    }

    /// One step: ask for a command, run it, remember its output.
    pub async fn step(
        &mut self,
        input: StepInput<'_>,
    ) -> Result<AppStep, Box<(AgentError, StepRecord)>> {
        let started = Instant::now();
        let mut rec = StepRecord::new(AgentKind::ThirdPartyAgent, &self.name, input.session_step);
        rec.round = input.round;
        rec.agent_step = self.memory.len() + 1;
        rec.request = input.request.to_owned();
        rec.subtask = self.subtask.clone();
        rec.application = self.name.clone();

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
        let Checked { reply, status } = match checked {
            Ok(c) => c,
            Err(e) => return Err(rec.fail(e, AppAgentStatus::Error, started)),
        };
        self.plan = rec.plan.clone();
        self.comment = rec.comment.clone();
        let answer = plain(&reply.result);
        if !answer.is_empty() {
            self.result = answer;
        }
        // One command per step: a list is cut to its first call.
        let calls = reply.action.as_ref().map(|a| a.calls()).unwrap_or_default();
        if calls.len() > 1 {
            rec.repairs.push(format!(
                "$.action: {} calls; the command-line agent runs one per step, the first",
                calls.len()
            ));
        }
        let call = calls.into_iter().next();

        // With SAFE_GUARD, a listed tool waits for the user.
        let guarded = crate::guards::guarded(&self.settings, status, call.as_slice());
        if let Some(c) = &call
            && (status == AppAgentStatus::Confirm || !guarded.is_empty())
        {
            if !guarded.is_empty() {
                rec.repairs.push(format!(
                    "SAFE_GUARD asks the user first: {}",
                    guarded.join("; ")
                ));
            }
            rec.status = StepStatus::Confirm;
            rec.total_time = started.elapsed().as_secs_f64();
            self.pending = Some(Pending {
                call: c.clone(),
                record: rec.clone(),
                final_status: match status {
                    AppAgentStatus::Confirm => AppAgentStatus::Continue,
                    other => other,
                },
                guarded,
            });
            return Ok(AppStep {
                record: rec,
                status: AppAgentStatus::Confirm,
                questions: Vec::new(),
            });
        }
        if status == AppAgentStatus::Pending {
            self.remember(&mut rec, input.blackboard, status, None);
            return Ok(AppStep::finished(rec, status, started).asking(reply.questions.items()));
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
        let p = self.pending.take()?;
        let mut rec = p.record;
        let started = Instant::now();
        let status = if confirmed {
            self.run(&mut rec, &p.call, p.final_status).await
        } else {
            self.comment = self.template.text_or(LINUX_AGENT, "declined", &[]);
            rec.comment = self.comment.clone();
            let r = ActionResult::failure(AgentError::Declined.report());
            rec.actions.push(ActionLog::new(
                &p.call.function,
                &p.call.arguments,
                None,
                StepStatus::Finish,
                r,
            ));
            AppAgentStatus::Finish
        };
        self.remember(&mut rec, blackboard, status, Some(confirmed));
        Some(AppStep::resumed(rec, status, started))
    }

    /// Executes `call`; its output goes into the history the next prompt
    /// shows. The same failing call `MAX_REPEAT` times fails the sub-task.
    async fn run(
        &mut self,
        rec: &mut StepRecord,
        call: &ActionCall,
        status: AppAgentStatus,
    ) -> AppAgentStatus {
        let t = Instant::now();
        let tool = call.function.parse::<ufo_desktop::tools::Tool>();
        let mut cmd = match tool {
            Ok(t) => t.command(Value::Object(call.arguments.clone())),
            Err(_) => ufo_core::Command::action(
                call.function.clone(),
                Value::Object(call.arguments.clone()),
            ),
        };
        cmd.call_id = format!("{}-1", rec.session_step);
        let r = ufo_desktop::dispatch::execute_one(self.dispatcher.as_ref(), cmd).await;
        let shown = shown_result(&r);
        let failed = !r.is_success() || r.result.get("exit_code") != Some(&json!(0));
        let s = action_string(&call.function, &call.arguments);
        let given = call
            .status
            .as_deref()
            .and_then(|s| s.parse::<AppAgentStatus>().ok())
            .map_or(StepStatus::from(status), StepStatus::from);
        rec.actions.push(ActionLog::new(
            &call.function,
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
                    self.comment = self.template.text_or(
                        LINUX_AGENT,
                        "gave_up",
                        &[("times", &times.to_string()), ("action", &s)],
                    );
                    rec.comment = self.comment.clone();
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

    fn remember(
        &mut self,
        rec: &mut StepRecord,
        blackboard: &mut Blackboard,
        status: AppAgentStatus,
        user_confirm: Option<bool>,
    ) {
        crate::guards::remember(
            &mut self.memory,
            blackboard,
            rec,
            status,
            user_confirm,
            ("agent", &self.name),
        );
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
        let mut retrieved = String::new();
        if let Some(qa) = t.opt("pending_answer") {
            for (q, a) in &self.answers {
                retrieved.push_str(&render(qa, &[("question", q), ("answer", a)]));
                retrieved.push('\n');
            }
        }
        let user = render(
            t.opt("user").unwrap_or_default(),
            &[
                ("retrieved_docs", &retrieved),
                ("user_request", input.request),
                (
                    "prev_subtask",
                    &serde_json::to_string(input.prev_subtasks).unwrap_or_default(),
                ),
                ("subtask", &self.subtask),
                (
                    "host_message",
                    &serde_json::to_string(&self.host_message).unwrap_or_default(),
                ),
                ("previous_commands", &previous),
                (
                    "prev_plan",
                    &serde_json::to_string(&self.plan).unwrap_or_default(),
                ),
            ],
        );
        let mut parts = Vec::new();
        let (bb, _) = input.blackboard.to_prompt();
        if !bb.is_empty() {
            parts.push(Part::text(bb));
        }
        parts.push(Part::text(user));
        ChatRequest::agent(system, parts)
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
        return format!("[Error] {}{help}", e.message);
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
    match s.char_indices().nth(SHOWN_OUTPUT) {
        Some((i, _)) => format!("{}… [cut]", &s[..i]),
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
}
