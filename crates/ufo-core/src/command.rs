//! Commands an agent issues and the results it gets back.
//!
//! Field names follow UFO's AIP messages (`Command{tool_name, parameters,
//! tool_type, call_id}`, `Result{status, error, result, namespace, call_id}`) so a
//! local dispatcher and a remote one carry the same values.

use crate::error::ErrorReport;
use serde::{Deserialize, Serialize};

/// Whether a tool observes or changes the application.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolType {
    /// Reads state (screenshots, control lists); never changes the application.
    DataCollection,
    /// Acts on the application.
    Action,
}

/// One tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Command {
    /// The tool's name, e.g. `click_input`.
    pub tool_name: String,
    /// Arguments as a JSON object (`null` or missing reads as `{}`).
    #[serde(default = "empty_object", deserialize_with = "object_or_empty")]
    pub parameters: serde_json::Value,
    /// Observation or action.
    pub tool_type: ToolType,
    /// Correlates the command with its result (`null` reads as empty).
    #[serde(default, deserialize_with = "string_or_empty")]
    pub call_id: String,
}

/// `null` as `{}`: UFO's `Command.parameters` is optional.
fn object_or_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<serde_json::Value, D::Error> {
    let v = Option::<serde_json::Value>::deserialize(d)?;
    Ok(v.filter(|v| !v.is_null()).unwrap_or_else(empty_object))
}

/// `null` as `""`: UFO's `call_id` fields are optional.
fn string_or_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

impl Command {
    /// An action command with the given arguments.
    pub fn action(tool_name: impl Into<String>, parameters: serde_json::Value) -> Self {
        Self {
            tool_name: tool_name.into(),
            parameters,
            tool_type: ToolType::Action,
            call_id: String::new(),
        }
    }

    /// A data-collection command with the given arguments.
    pub fn data(tool_name: impl Into<String>, parameters: serde_json::Value) -> Self {
        Self {
            tool_name: tool_name.into(),
            parameters,
            tool_type: ToolType::DataCollection,
            call_id: String::new(),
        }
    }
}

/// The outcome class of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionStatus {
    /// Executed and verified where verification applies.
    Success,
    /// Not executed, or executed and verification failed; see `error`.
    Failure,
    /// Not attempted because an earlier command in the sequence failed.
    Skipped,
    /// Nothing to execute.
    None,
}

/// The result of one command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionResult {
    /// Outcome class.
    pub status: ActionStatus,
    /// What went wrong, for failures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorReport>,
    /// The tool's return value (text read back, a summary, observation data).
    #[serde(default)]
    pub result: serde_json::Value,
    /// The tool namespace that executed the command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Copied from the command.
    #[serde(default)]
    pub call_id: String,
}

impl ActionResult {
    /// A success carrying `result`.
    pub fn success(result: serde_json::Value) -> Self {
        Self {
            status: ActionStatus::Success,
            error: None,
            result,
            namespace: None,
            call_id: String::new(),
        }
    }

    /// A failure carrying `error`.
    pub fn failure(error: ErrorReport) -> Self {
        Self {
            status: ActionStatus::Failure,
            error: Some(error),
            result: serde_json::Value::Null,
            namespace: None,
            call_id: String::new(),
        }
    }

    /// A command skipped because an earlier one failed.
    pub fn skipped(reason: impl Into<String>) -> Self {
        Self {
            status: ActionStatus::Skipped,
            error: Some(ErrorReport::new("ufo::action::skipped", reason)),
            result: serde_json::Value::Null,
            namespace: None,
            call_id: String::new(),
        }
    }

    /// True for [`ActionStatus::Success`].
    pub fn is_success(&self) -> bool {
        self.status == ActionStatus::Success
    }

    /// Sets the call id (builder style).
    #[must_use]
    pub fn with_call_id(mut self, id: impl Into<String>) -> Self {
        self.call_id = id.into();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_ufo() {
        let c = Command::action("click_input", serde_json::json!({"id": "3"}));
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["tool_type"], "action");
        let r = ActionResult::failure(ErrorReport::new("ufo::x", "nope"));
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["status"], "failure");
        assert_eq!(v["error"]["code"], "ufo::x");
        let parsed: Command =
            serde_json::from_str(r#"{"tool_name":"wait","tool_type":"action"}"#).unwrap();
        assert!(parsed.parameters.is_object());
        let parsed: Command = serde_json::from_str(
            r#"{"tool_name":"wait","tool_type":"action","parameters":null,"call_id":null}"#,
        )
        .unwrap();
        assert!(parsed.parameters.is_object());
        assert_eq!(parsed.call_id, "");
    }
}
