//! Tool specifications: what a tool is called, what it takes and whether it is
//! destructive. Specs are data, so the prompter can document tools for a model and
//! the service can advertise them to a remote client from the same source.

use crate::command::ToolType;
use serde::{Deserialize, Serialize};

/// The description of one tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Tool name, e.g. `click_input`.
    pub name: String,
    /// Namespace, e.g. `AppUIExecutor`.
    pub namespace: String,
    /// One-paragraph description for a model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
    /// Observation or action.
    pub tool_type: ToolType,
    /// True when the tool can change or destroy user data without undo; such calls
    /// need confirmation under `SAFE_GUARD`.
    #[serde(default)]
    pub destructive: bool,
    /// True when the call's `id` and `name` designate a listed control.
    #[serde(default)]
    pub targets_control: bool,
    /// Example calls, rendered into the tool documentation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
}
