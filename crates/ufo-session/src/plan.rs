//! Plan and task files for `follower` and `batch_normal`.
//!
//! One JSON file, any of:
//! * `{"request": "...", "actions": [{"agent": "HostAgent", "action": "select_application", "parameters": {"app_name": "gedit"}}, {"agent": "AppAgent", "action": "set_edit_text", "parameters": {"name": "", "control_type": "Edit", "text": "hello"}}]}`:
//!   replayed deterministically, no model;
//! * `{"task": "...", "steps": ["1. ...", "2. ..."], "object": "...", "close": false, "app": "gedit"}`
//!   (UFO's follower format): each step becomes a sub-task of the AppAgent;
//! * `{"task": "...", "request": "..."}`: a request for the HostAgent (batch).

use crate::error::SessionError;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// One recorded action.
#[derive(Debug, Clone, Deserialize)]
pub struct PlanAction {
    /// `HostAgent` or `AppAgent`.
    #[serde(default = "app_agent")]
    pub agent: String,
    /// `select_application` (HostAgent) or a tool name (AppAgent).
    pub action: String,
    /// Arguments. For AppAgent tools, a control may be named by `id`, or by
    /// `name`/`label` and optionally `control_type` (alternatives separated by
    /// `|`, e.g. `"Edit|Document"`), resolved at run time.
    #[serde(default)]
    pub parameters: Map<String, Value>,
}

fn app_agent() -> String {
    "AppAgent".into()
}

/// A plan or task file.
#[derive(Debug, Clone, Deserialize, Default)]
pub struct Plan {
    /// Task description (UFO's `task`).
    #[serde(default)]
    pub task: Option<String>,
    /// The request.
    #[serde(default)]
    pub request: Option<String>,
    /// Deterministic actions.
    #[serde(default)]
    pub actions: Option<Vec<PlanAction>>,
    /// Steps for the AppAgent.
    #[serde(default)]
    pub steps: Option<Vec<String>>,
    /// The application to use (our addition; UFO derives it from `object`).
    #[serde(default)]
    pub app: Option<String>,
    /// UFO's `object` (a file the task is about).
    #[serde(default)]
    pub object: Option<String>,
    /// UFO's `close`.
    #[serde(default)]
    pub close: bool,
}

impl Plan {
    /// Reads and checks a plan file.
    pub fn load(path: &Path) -> Result<Self, SessionError> {
        let e = |message: String| SessionError::Plan {
            path: path.display().to_string(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|x| e(format!("cannot read it: {x}")))?;
        Self::parse(&text).map_err(e)
    }

    /// Parses and checks a plan's JSON; the error says what to change.
    pub fn parse(text: &str) -> Result<Self, String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|x| format!("not valid JSON: {x}"))?;
        match &v {
            serde_json::Value::Object(_) => {}
            serde_json::Value::Array(_) => {
                return Err("the file is a JSON array; a plan is one object: \
                            {\"request\": ..., \"actions\": [...]} (several plans go in several files of a folder)"
                    .into());
            }
            other => return Err(format!("a plan is a JSON object, not {other}")),
        }
        let p: Plan = serde_json::from_value(v).map_err(|x| format!("not a valid plan: {x}"))?;
        if p.actions.is_none() && p.steps.is_none() && p.request.is_none() {
            return Err("it needs `actions`, `steps` or `request`".into());
        }
        for (i, a) in p.actions.iter().flatten().enumerate() {
            if !matches!(a.agent.as_str(), "HostAgent" | "AppAgent") {
                return Err(format!(
                    "actions[{i}].agent is {:?}; it must be \"HostAgent\" or \"AppAgent\"",
                    a.agent
                ));
            }
        }
        Ok(p)
    }

    /// The request text of the plan.
    pub fn request_text(&self) -> String {
        self.request
            .clone()
            .or_else(|| self.task.clone())
            .unwrap_or_default()
    }
}

/// The plan files of `path`: the file itself, or the `*.json` files of a
/// folder in name order.
pub fn plan_files(path: &Path) -> Result<Vec<PathBuf>, SessionError> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let rd = std::fs::read_dir(path).map_err(|e| SessionError::Plan {
        path: path.display().to_string(),
        message: format!("cannot read the folder: {e}"),
    })?;
    let mut v: Vec<PathBuf> = rd
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
        .collect();
    v.sort();
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_plans_get_errors_that_point_at_the_fix() {
        let e = Plan::parse(r#"[{"request": "x"}]"#).unwrap_err();
        assert!(e.contains("JSON array") && e.contains("one object"), "{e}");
        let e = Plan::parse(
            r#"{"request": "x", "actions": [{"agent": "Robot", "action": "click_input"}]}"#,
        )
        .unwrap_err();
        assert!(e.contains("actions[0].agent") && e.contains("Robot"), "{e}");
        let e = Plan::parse("12").unwrap_err();
        assert!(e.contains("JSON object"), "{e}");
        assert!(Plan::parse(r#"{"request": "x"}"#).is_ok());
    }
}

#[cfg(test)]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn plan_files_never_panic(text in "\\PC{0,300}") {
            let _ = Plan::parse(&text);
        }

        #[test]
        fn json_shaped_plans_never_panic(text in "[{}\\[\\]\":, a-z0-9]{0,300}") {
            let _ = Plan::parse(&text);
        }
    }
}
