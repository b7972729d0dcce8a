//! Checking a HostAgent reply: the tool it names read once (repaired from
//! UFO's older names), an assignment's target resolved among the listed
//! windows and agents, and a tool the HostAgent does not have told to the
//! model.

use super::Target;
use crate::call::Call;
use crate::llm::Checked;
use crate::response::HostResponse;
use serde_json::{Map, Value};
use ufo_core::HostAgentStatus;
use ufo_desktop::designate::resolve;
use ufo_desktop::tools::{Tool, ToolName};

/// What a checked HostAgent reply asks for: its status and its call (the
/// tool read once, as a [`ToolName`], with its arguments as repaired). The
/// reply itself stays as the model wrote it (repaired), for the log.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct HostDecision {
    pub(super) status: HostAgentStatus,
    /// The call, when the reply names a tool.
    pub(super) call: Option<Call>,
    /// The seed's `Bash` beside a selection: run first, then the
    /// application is selected.
    pub(super) bash: Option<String>,
}

impl HostDecision {
    /// The command the step runs: a `run_shell` call's `bash_command`, or
    /// the `Bash` run before the selection.
    pub(super) fn shell_command(&self) -> Option<&str> {
        self.call
            .as_ref()
            .filter(|c| c.tool.is(Tool::RunShell))
            .and_then(|c| c.arguments.get("bash_command"))
            .and_then(Value::as_str)
            .or(self.bash.as_deref())
    }

    /// An assignment whose window is selected only once its command ran
    /// (the window may be the one the command opens).
    pub(super) fn selects_after_launch(&self) -> bool {
        self.status == HostAgentStatus::Assign && self.bash.is_some()
    }
}

/// The `Bash` of a reply, when it has a command.
fn bash_of(r: &HostResponse) -> Option<String> {
    r.bash.clone().filter(|b| !b.trim().is_empty())
}

/// The call of a reply: its tool (`None` for none or an empty name) and
/// arguments. A HostAgent's statuses are its own, so the call carries none.
fn host_call(r: &HostResponse) -> Option<Call> {
    let tool = r
        .function
        .as_deref()
        .map(ToolName::parse)
        .filter(|t| !t.is_empty())?;
    Some(Call {
        tool,
        arguments: r.arguments.clone().unwrap_or_default(),
        status: None,
    })
}

/// The tool of a HostAgent reply that assigns nothing: `run_shell` with its
/// command and CONTINUE, or no tool. A tool the HostAgent does not have would
/// be silently ignored and the model would ask for it again until MAX_STEP:
/// the error tells it.
fn check_unassigning_tool(decision: &HostDecision) -> Result<(), String> {
    let status = decision.status;
    match decision.call.as_ref().map(|c| &c.tool) {
        Some(t) if t.is(Tool::RunShell) => {
            let command = decision.shell_command().map(str::trim).unwrap_or_default();
            if command.is_empty() {
                return Err("$.arguments.bash_command: run_shell needs the program to start, e.g. {\"bash_command\": \"mousepad\"}".into());
            }
            if status != HostAgentStatus::Continue {
                return Err(format!(
                    "$.status: run_shell goes with status CONTINUE (got {status}); assign the application at the next step, once its window is listed"
                ));
            }
            Ok(())
        }
        Some(t) if !t.is(Tool::SelectApplicationWindow) => Err(format!(
            "$.function: {:?} is not a HostAgent tool; the HostAgent assigns sub-tasks with select_application_window (status ASSIGN) and starts applications with run_shell (status CONTINUE) — leave function empty otherwise",
            t.as_str()
        )),
        _ => Ok(()),
    }
}

/// Validates a HostAgent reply: a known status; for ASSIGN, the tool, a
/// listed window (repaired from an unambiguous name) and a sub-task. The
/// status and the call are read here, once.
pub(super) fn check_host_reply(
    mut r: HostResponse,
    windows: &[Target],
    repairs: &mut Vec<String>,
) -> Result<Checked<HostResponse, HostDecision>, String> {
    let status: HostAgentStatus = r.status.parse().map_err(|e| format!("$.status: {e}"))?;
    if status != HostAgentStatus::Assign {
        let decision = HostDecision {
            status,
            call: host_call(&r),
            bash: None,
        };
        check_unassigning_tool(&decision)?;
        return Ok(Checked {
            reply: r,
            parsed: decision,
        });
    }
    repair_assigning_tool(&mut r, repairs)?;
    let mut args: Map<String, Value> = r.arguments.clone().unwrap_or_default();
    let id = args.get("id").and_then(ufo_desktop::tools::parse_id);
    let name = args.get("name").and_then(Value::as_str).map(str::to_owned);
    match resolve(windows, id, name.as_deref(), true) {
        Ok(r) if r.repaired => {
            repairs.push(format!(
                "$.arguments.id: set to {} (the target named {:?})",
                r.item.id(),
                r.item.name()
            ));
            args.insert("id".into(), Value::String(r.item.id().to_owned()));
        }
        Ok(_) => {}
        // The window may be the one its command opens: resolved once it ran.
        Err(_) if bash_of(&r).is_some() => {}
        Err(_) => {
            let listed: Vec<String> = windows
                .iter()
                .map(|w| format!("{} {:?}", w.id(), w.name()))
                .collect();
            return Err(format!(
                "$.arguments: no listed window or agent has id {:?} and name {:?}; the targets are {}",
                args.get("id").map(Value::to_string).unwrap_or_default(),
                name.unwrap_or_default(),
                listed.join(", ")
            ));
        }
    }
    r.arguments = Some(args);
    if r.current_subtask
        .as_deref()
        .is_none_or(|s| s.trim().is_empty())
    {
        return Err("$.current_subtask: an ASSIGN (or a CONTINUE that selects an application by its ControlLabel) needs the sub-task for the AppAgent".into());
    }
    let decision = HostDecision {
        status,
        call: host_call(&r),
        bash: bash_of(&r),
    };
    Ok(Checked {
        reply: r,
        parsed: decision,
    })
}

/// ASSIGN: the tool is `select_application_window`; UFO's older name is
/// written as the tool, and a missing one is set.
fn repair_assigning_tool(r: &mut HostResponse, repairs: &mut Vec<String>) -> Result<(), String> {
    const SELECT: Tool = Tool::SelectApplicationWindow;
    let tool = r
        .function
        .as_deref()
        .map(ToolName::parse)
        .filter(|t| !t.is_empty());
    match tool {
        Some(t) if t.is(SELECT) => {
            // UFO's older name (`select_application`) is written as the tool.
            if r.function.as_deref().map(str::trim) != Some(SELECT.name()) {
                repairs.push(format!(
                    "$.function: {:?} read as {SELECT}",
                    r.function.as_deref().unwrap_or_default()
                ));
                r.function = Some(SELECT.name().into());
            }
            Ok(())
        }
        None => {
            repairs.push(format!("$.function: missing, set to {SELECT}"));
            r.function = Some(SELECT.name().into());
            Ok(())
        }
        Some(other) => Err(format!(
            "$.function: {:?} cannot assign a sub-task; use {SELECT}",
            other.as_str()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(v: serde_json::Value) -> HostResponse {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_tool_the_host_does_not_have_is_told_to_the_model() {
        let r = reply(serde_json::json!({
            "observation": "no editor open", "thought": "launch it",
            "status": "CONTINUE", "function": "open_application",
            "arguments": {"name": "mousepad"}
        }));
        let e = check_host_reply(r, &[], &mut Vec::new()).err().unwrap();
        assert!(
            e.contains("open_application")
                && e.contains("run_shell")
                && e.contains("select_application_window"),
            "{e}"
        );
        let ok = reply(serde_json::json!({
            "observation": "", "thought": "", "status": "FINISH", "function": ""
        }));
        assert!(check_host_reply(ok, &[], &mut Vec::new()).is_ok());
    }

    #[test]
    fn run_shell_needs_a_command_and_status_continue() {
        let with = |status: &str, args: serde_json::Value| {
            check_host_reply(
                reply(
                    serde_json::json!({"observation": "", "thought": "", "status": status, "function": "run_shell", "arguments": args}),
                ),
                &[],
                &mut Vec::new(),
            )
        };
        assert!(with("CONTINUE", serde_json::json!({"bash_command": "mousepad"})).is_ok());
        let e = with("CONTINUE", serde_json::json!({})).err().unwrap();
        assert!(e.contains("bash_command"), "{e}");
        let e = with("FINISH", serde_json::json!({"bash_command": "mousepad"}))
            .err()
            .unwrap();
        assert!(e.contains("CONTINUE"), "{e}");
    }

    #[test]
    fn an_assignment_by_the_older_tool_name_is_read_as_the_tool() {
        let targets = [Target::Agent {
            id: "1".into(),
            name: "LinuxAgent".into(),
        }];
        let assign = |function: serde_json::Value| {
            let mut repairs = Vec::new();
            let r = check_host_reply(
                reply(serde_json::json!({
                    "observation": "", "thought": "", "status": "ASSIGN",
                    "current_subtask": "count the files", "function": function,
                    "arguments": {"id": "1", "name": "LinuxAgent"}
                })),
                &targets,
                &mut repairs,
            );
            (r.map(|c| c.reply.function), repairs)
        };
        let (f, repairs) = assign(serde_json::json!("select_application"));
        assert_eq!(f.unwrap().as_deref(), Some("select_application_window"));
        assert_eq!(
            repairs,
            ["$.function: \"select_application\" read as select_application_window"]
        );
        let (f, repairs) = assign(serde_json::json!("select_application_window"));
        assert_eq!(f.unwrap().as_deref(), Some("select_application_window"));
        assert!(repairs.is_empty(), "{repairs:?}");
        let (f, _) = assign(serde_json::json!(null));
        assert_eq!(f.unwrap().as_deref(), Some("select_application_window"));
        let (f, _) = assign(serde_json::json!("run_shell"));
        let e = f.unwrap_err();
        assert!(e.contains("\"run_shell\" cannot assign"), "{e}");
    }
}
