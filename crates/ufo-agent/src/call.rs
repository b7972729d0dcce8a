//! A tool call past checking. The reply's [`ActionCall`] is the wire form
//! (what the model sends and the logs write, names and statuses as
//! strings); a [`Call`] is read from it once, by the reply check, and is
//! what the agents hold, guard, log and execute: its tool a [`ToolName`],
//! its status an [`AppAgentStatus`].

use crate::response::{ActionCall, action_string};
use serde_json::{Map, Value};
use ufo_core::{AppAgentStatus, Command, StepStatus};
use ufo_desktop::tools::ToolName;

/// One checked tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The tool: a catalog tool (older names read as the tool they name) or
    /// an external one.
    pub tool: ToolName,
    /// Its arguments (control ids repaired by the check).
    pub arguments: Map<String, Value>,
    /// The status the model gave with this call, if any.
    pub status: Option<AppAgentStatus>,
}

impl Call {
    /// Reads a wire call; `path` (`$.action`, `$.action[2]`) names it in the
    /// error of an unknown status, which is the one thing that can be wrong
    /// here (whether the tool exists is the reply check's question).
    pub fn read(call: &ActionCall, path: &str) -> Result<Self, String> {
        Ok(Self {
            tool: ToolName::parse(&call.function),
            arguments: call.arguments.clone(),
            status: parse_status(call.status.as_deref(), path)?,
        })
    }

    /// A command an agent built itself (the operator's, from a
    /// computer-use turn) as a call, so it is guarded like the model's.
    pub fn of_command(command: &Command) -> Self {
        Self {
            tool: ToolName::parse(&command.tool_name),
            arguments: command.parameters.as_object().cloned().unwrap_or_default(),
            status: None,
        }
    }

    /// `fn(k="v")`, UFO's action string.
    pub fn action_string(&self) -> String {
        action_string(self.tool.as_str(), &self.arguments)
    }

    /// The command that executes the call.
    pub fn command(&self) -> Command {
        self.tool.command(Value::Object(self.arguments.clone()))
    }

    /// The status logged with the call: its own, else the step's.
    pub fn logged_status(&self, step: AppAgentStatus) -> StepStatus {
        StepStatus::from(self.status.unwrap_or(step))
    }
}

/// Parses a status of an AppAgent-style reply at `path` (`$`, `$.action`);
/// `None` when the reply gives none.
pub fn parse_status(status: Option<&str>, path: &str) -> Result<Option<AppAgentStatus>, String> {
    status
        .map(|s| {
            s.parse::<AppAgentStatus>()
                .map_err(|e| format!("{path}.status: {e}"))
        })
        .transpose()
}

/// What a checked AppAgent-style reply asks for: the step's status and its
/// calls, typed. The reply itself stays as the model wrote it (repaired), for
/// the log.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The step's status: the last call's, else the reply's, else FINISH
    /// without calls and CONTINUE with some.
    pub status: AppAgentStatus,
    /// The calls to make, in order (UFO's empty "no action" calls dropped).
    pub calls: Vec<Call>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use ufo_desktop::tools::Tool;

    fn wire(v: Value) -> ActionCall {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_status_is_parsed_once_and_an_unknown_one_is_named() {
        let c = Call::read(
            &wire(
                json!({"function": "click_element", "arguments": {"id": "1"}, "status": "finish"}),
            ),
            "$.action",
        )
        .unwrap();
        assert_eq!(c.tool, ToolName::Builtin(Tool::ClickInput));
        assert_eq!(c.status, Some(AppAgentStatus::Finish));
        assert_eq!(
            c.logged_status(AppAgentStatus::Continue),
            StepStatus::Finish
        );
        assert_eq!(c.action_string(), "click_input(id=\"1\")");
        let c = Call::read(&wire(json!({"function": "wait"})), "$.action").unwrap();
        assert_eq!(
            c.logged_status(AppAgentStatus::Continue),
            StepStatus::Continue
        );
        let e = Call::read(
            &wire(json!({"function": "wait", "status": "DONE"})),
            "$.action[1]",
        )
        .unwrap_err();
        assert!(e.starts_with("$.action[1].status: "), "{e}");
        assert_eq!(parse_status(None, "$"), Ok(None));
    }

    #[test]
    fn an_external_call_goes_out_as_named() {
        let c = Call::read(
            &wire(json!({"function": "fs.read_text_file", "arguments": {"path": "/x"}})),
            "$.action",
        )
        .unwrap();
        assert_eq!(c.tool, ToolName::External("fs.read_text_file".into()));
        let cmd = c.command();
        assert_eq!(cmd.tool_name, "fs.read_text_file");
        assert_eq!(cmd.parameters, json!({"path": "/x"}));
    }
}
