//! Plan and task files for `follower` and `batch_normal`.
//!
//! One JSON file, any of:
//! * `{"request": "...", "actions": [{"agent": "HostAgent", "action": "select_application", "parameters": {"app_name": "gedit"}}, {"agent": "AppAgent", "action": "set_edit_text", "parameters": {"name": "", "control_type": "Edit", "text": "hello"}}]}`:
//!   replayed deterministically, no model;
//! * `{"task": "...", "steps": ["1. ...", "2. ..."], "object": "...", "close": false, "app": "gedit"}`
//!   (UFO's follower format): each step becomes a sub-task of the AppAgent;
//! * `{"task": "...", "request": "..."}`: a request for the HostAgent (batch).

use crate::error::SessionError;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use ufo_agent::AgentKind;

/// One recorded action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanAction {
    /// [`AgentKind::HostAgent`] or [`AgentKind::AppAgent`], written
    /// `"HostAgent"`/`"AppAgent"` (read in any case; `AppAgent` when absent).
    #[serde(default = "app_agent", deserialize_with = "plan_agent")]
    pub agent: AgentKind,
    /// `select_application` (HostAgent) or a tool name (AppAgent).
    pub action: String,
    /// Arguments. For AppAgent tools, a control may be named by `id`, or by
    /// `name`/`label` and optionally `control_type` (alternatives separated by
    /// `|`, e.g. `"Edit|Document"`), resolved at run time.
    #[serde(default)]
    pub parameters: Map<String, Value>,
    /// What the step does, in words (`ufo record` writes one per step; a
    /// demonstration's summary is made of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

fn app_agent() -> AgentKind {
    AgentKind::AppAgent
}

/// A plan step's agent: `HostAgent` or `AppAgent`, in any case.
fn plan_agent<'de, D: Deserializer<'de>>(d: D) -> Result<AgentKind, D::Error> {
    let s = String::deserialize(d)?;
    match s.trim().to_ascii_lowercase().as_str() {
        "hostagent" => Ok(AgentKind::HostAgent),
        "appagent" => Ok(AgentKind::AppAgent),
        _ => Err(serde::de::Error::custom(format!(
            "agent {s:?}: a plan step's agent is \"HostAgent\" or \"AppAgent\""
        ))),
    }
}

/// What a recorded event was (`ufo record`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanEventKind {
    /// A control got the focus.
    Focus,
    /// A button or toggle was pressed.
    Press,
    /// A text control changed.
    Text,
    /// A window was activated.
    WindowActivate,
    /// A window opened.
    WindowCreate,
}

/// One event a person's work produced, kept in a recorded plan beside its
/// replayable actions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanEvent {
    /// What happened.
    pub event: PlanEventKind,
    /// The control's (or window's) name.
    pub name: String,
    /// The control's type.
    pub control_type: String,
    /// The event in words.
    pub description: String,
}

/// A plan or task file, written (`ufo record`) and read by this type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Plan {
    /// Task description (UFO's `task`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// The request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    /// Deterministic actions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<Vec<PlanAction>>,
    /// Steps for the AppAgent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<String>>,
    /// The application to use (our addition; UFO derives it from `object`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// UFO's `object` (a file the task is about).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// UFO's `close`: close the application when the task is done.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub close: bool,
    /// Every event of a recorded demonstration (not replayed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<PlanEvent>,
}

impl Plan {
    /// Reads and checks a plan file.
    pub fn load(path: &Path) -> Result<Self, SessionError> {
        let e = |message: String| SessionError::Plan {
            path: path.display().to_string(),
            message,
            source: None,
        };
        let text = std::fs::read_to_string(path).map_err(|x| SessionError::Plan {
            path: path.display().to_string(),
            message: format!("cannot read it: {x}"),
            source: Some(x.into()),
        })?;
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
        let p: Plan = serde_path_to_error::deserialize(v)
            .map_err(|x| format!("not a valid plan: {}: {}", x.path(), x.inner()))?;
        if p.actions.is_none() && p.steps.is_none() && p.request.is_none() {
            return Err("it needs `actions`, `steps` or `request`".into());
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
        source: Some(e.into()),
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

    #[test]
    fn a_plan_reads_back_as_written() {
        let p = Plan {
            request: Some("type hi".into()),
            app: Some("mousepad".into()),
            actions: Some(vec![
                PlanAction {
                    agent: AgentKind::HostAgent,
                    action: "select_application".into(),
                    parameters: Map::from_iter([("app_name".into(), "mousepad".into())]),
                    description: Some("opened mousepad".into()),
                },
                PlanAction {
                    agent: AgentKind::AppAgent,
                    action: "set_edit_text".into(),
                    parameters: Map::from_iter([("text".into(), "hi".into())]),
                    description: None,
                },
            ]),
            close: true,
            events: vec![PlanEvent {
                event: PlanEventKind::WindowActivate,
                name: "Untitled 1".into(),
                control_type: "Window".into(),
                description: "switched".into(),
            }],
            ..Plan::default()
        };
        let text = serde_json::to_string_pretty(&p).unwrap();
        assert!(text.contains("\"agent\": \"HostAgent\""), "{text}");
        assert!(text.contains("\"event\": \"window_activate\""), "{text}");
        assert_eq!(Plan::parse(&text).unwrap(), p);
        // Any case, and AppAgent when absent.
        let q = Plan::parse(r#"{"request": "x", "actions": [{"agent": "hostagent", "action": "a"}, {"action": "b"}]}"#).unwrap();
        let kinds: Vec<AgentKind> = q.actions.unwrap().iter().map(|a| a.agent).collect();
        assert_eq!(kinds, [AgentKind::HostAgent, AgentKind::AppAgent]);
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
