//! UFO's record shapes and how logs and files become records.
//!
//! * Experience and demonstration records (UFO's `experience.yaml` /
//!   `demonstration` example entries):
//!   `{example{Observation, Thought, ControlLabel, ControlText, Function, Args, Status, Plan, Comment}, Tips, request, Sub-task, app_list}`.
//! * A retrieved one becomes an additional example for the prompt:
//!   `{Request, Sub-task, Tips, Response}` (UFO's `rag_experience_retrieve`).
//! * `response.log` is split per sub-task and application
//!   ([`partition_response_log`]) before the model summarises each part.

use crate::error::KnowledgeError;
use crate::store::Record;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::path::Path;
use ufo_agent::{AgentKind, StepRecord, read_response_log};
use ufo_core::{ActionStatus, StepStatus};

/// The keys of UFO's `example` object, in order.
pub const EXAMPLE_KEYS: &[&str] = &[
    "Observation",
    "Thought",
    "ControlLabel",
    "ControlText",
    "Function",
    "Args",
    "Status",
    "Plan",
    "Comment",
];

/// An experience or demonstration record in UFO's shape.
pub fn summary_record(
    example: &Value,
    tips: &str,
    request: &str,
    subtask: &str,
    apps: &[String],
) -> Value {
    let mut ex = Map::new();
    for k in EXAMPLE_KEYS {
        ex.insert(
            (*k).to_owned(),
            example
                .get(*k)
                .cloned()
                .unwrap_or(Value::String(String::new())),
        );
    }
    json!({
        "example": Value::Object(ex),
        "Tips": tips,
        "request": request,
        "Sub-task": subtask,
        "app_list": apps,
    })
}

/// A store record for a UFO-shaped summary (the text matched against
/// queries is its request and sub-task, as UFO indexes the request).
pub fn record_of_summary(id: &str, summary: &Value) -> Record {
    let s = |k: &str| summary.get(k).and_then(Value::as_str).unwrap_or_default();
    let apps: Vec<String> = summary
        .get("app_list")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let mut text = s("request").to_owned();
    if !s("Sub-task").is_empty() && s("Sub-task") != s("request") {
        text.push('\n');
        text.push_str(s("Sub-task"));
    }
    Record {
        id: id.to_owned(),
        apps,
        text,
        body: summary.clone(),
        embedding: None,
    }
}

/// A retrieved experience or demonstration as a prompt example
/// (`Request`, `Sub-task`, `Tips`, `Response`).
pub fn example_of_summary(summary: &Value) -> Value {
    let s = |k: &str| {
        summary
            .get(k)
            .cloned()
            .unwrap_or(Value::String(String::new()))
    };
    json!({
        "Request": s("request"),
        "Sub-task": s("Sub-task"),
        "Tips": s("Tips"),
        "Response": summary.get("example").cloned().unwrap_or(Value::Null),
    })
}

/// A new record id: `<prefix>-<unix millis>-<n>`.
pub fn new_id(prefix: &str, n: usize) -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    format!("{prefix}-{ms}-{n}")
}

/// One step of a trajectory to summarise: what the model saw, thought and
/// did (UFO's capitalised keys, as the summary prompt shows them).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrajectoryStep {
    /// The agent's own step number.
    #[serde(rename = "Step")]
    pub step: usize,
    /// Observation.
    #[serde(rename = "Observation")]
    pub observation: String,
    /// Thought.
    #[serde(rename = "Thought")]
    pub thought: String,
    /// Plan.
    #[serde(rename = "Plan")]
    pub plan: Vec<String>,
    /// Comment.
    #[serde(rename = "Comment")]
    pub comment: String,
    /// The actions with their status and result.
    #[serde(rename = "Actions")]
    pub actions: Vec<TrajectoryAction>,
    /// The step's status.
    #[serde(rename = "Status")]
    pub status: StepStatus,
    /// The step's clean screenshot in the log folder (`action_step{N}.png`),
    /// shown to a visual summariser beside the step; not in the text.
    #[serde(skip)]
    pub screenshot: Option<String>,
}

/// One action of a [`TrajectoryStep`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrajectoryAction {
    /// `fn(k="v")`.
    pub action: String,
    /// The control acted on, when the call names one.
    pub target: Option<Value>,
    /// The status the model gave this action.
    pub status: StepStatus,
    /// What happened.
    pub result: ActionStatus,
}

impl TrajectoryStep {
    /// The part of `rec` a summary needs.
    pub fn of(rec: &StepRecord) -> Self {
        Self {
            step: rec.agent_step,
            observation: rec.observation.clone(),
            thought: rec.thought.clone(),
            plan: rec.plan.clone(),
            comment: rec.comment.clone(),
            actions: rec
                .actions
                .iter()
                .map(|a| TrajectoryAction {
                    action: a.action_string.clone(),
                    target: a.target.clone(),
                    status: a.status,
                    result: a.result.status,
                })
                .collect(),
            status: rec.status,
            screenshot: rec.screenshots.get("clean").cloned(),
        }
    }
}

/// The application steps of one sub-task on one application.
#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    /// The user request.
    pub request: String,
    /// The sub-task.
    pub subtask: String,
    /// The application.
    pub application: String,
    /// The steps, trimmed to what a summary needs.
    pub steps: Vec<TrajectoryStep>,
}

/// Splits `response.log` into consecutive runs of steps taken in an
/// application (AppAgent, operator and third-party agents) with the same
/// sub-task and application. HostAgent steps, steps without an application
/// and lines that are not step records are skipped.
pub fn partition_response_log(text: &str) -> Vec<Partition> {
    let mut out: Vec<Partition> = Vec::new();
    for rec in read_response_log(text).filter_map(Result::ok) {
        if rec.agent_type == AgentKind::HostAgent || rec.application.is_empty() {
            continue;
        }
        let step = TrajectoryStep::of(&rec);
        match out.last_mut() {
            Some(p) if p.subtask == rec.subtask && p.application == rec.application => {
                p.steps.push(step)
            }
            _ => out.push(Partition {
                request: rec.request,
                subtask: rec.subtask,
                application: rec.application,
                steps: vec![step],
            }),
        }
    }
    out
}

/// Reads UFO's demonstration or experience YAML (`example0: {example, Tips,
/// request, app_list}`, ...), or a single such record, as summaries.
pub fn read_ufo_yaml(path: &Path) -> Result<Vec<Value>, KnowledgeError> {
    let text = std::fs::read_to_string(path).map_err(|e| KnowledgeError::io(path, e))?;
    let v: Value = serde_saphyr::from_str(&text)
        .map_err(|e| KnowledgeError::format_from(path, format!("not valid YAML: {e}"), e))?;
    let Value::Object(map) = v else {
        return Err(KnowledgeError::format(path, "expected a YAML map"));
    };
    let is_record = |v: &Value| v.get("example").is_some() && v.get("request").is_some();
    if is_record(&Value::Object(map.clone())) {
        return Ok(vec![normalise(Value::Object(map))]);
    }
    let mut out: Vec<Value> = map
        .into_iter()
        .filter(|(_, v)| is_record(v))
        .map(|(_, v)| normalise(v))
        .collect();
    if out.is_empty() {
        return Err(KnowledgeError::format(
            path,
            "no record: expected UFO's entries {example, Tips, request, app_list}",
        ));
    }
    out.shrink_to_fit();
    Ok(out)
}

fn normalise(v: Value) -> Value {
    let s = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let apps: Vec<String> = match v.get("app_list") {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        Some(Value::String(a)) => vec![a.clone()],
        _ => Vec::new(),
    };
    let subtask = match s("Sub-task") {
        t if t.is_empty() => s("request"),
        t => t,
    };
    summary_record(
        v.get("example").unwrap_or(&Value::Null),
        &s("Tips"),
        &s("request"),
        &subtask,
        &apps,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(kind: AgentKind, app: &str, subtask: &str, status: StepStatus) -> StepRecord {
        let mut r = StepRecord::new(kind, "agent", 1);
        r.application = app.into();
        r.subtask = subtask.into();
        r.request = "r".into();
        r.status = status;
        r
    }

    #[test]
    fn response_log_is_split_per_subtask_and_application() {
        let mut typed = step(
            AgentKind::AppAgent,
            "mousepad",
            "type hi",
            StepStatus::Continue,
        );
        typed.observation = "o1".into();
        typed.actions.push(ufo_agent::step::ActionLog::new(
            "set_edit_text",
            &Map::from_iter([("text".into(), "hi".into())]),
            None,
            StepStatus::Continue,
            ufo_core::ActionResult::success(Value::Null),
        ));
        let log = [
            step(AgentKind::HostAgent, "", "", StepStatus::Assign),
            typed,
            step(
                AgentKind::AppAgent,
                "mousepad",
                "type hi",
                StepStatus::Finish,
            ),
            step(
                AgentKind::AppAgent,
                "gnome-calculator",
                "add",
                StepStatus::Finish,
            ),
            step(AgentKind::OperatorAgent, "xterm", "ls", StepStatus::Finish),
        ]
        .iter()
        .map(|r| serde_json::to_string(r).unwrap())
        .collect::<Vec<_>>()
        .join("\nnot json\n");
        let p = partition_response_log(&log);
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].steps.len(), 2);
        assert_eq!(p[0].steps[0].actions[0].result, ActionStatus::Success);
        assert_eq!(
            p[0].steps[0].actions[0].action,
            "set_edit_text(text=\"hi\")"
        );
        assert_eq!(p[1].application, "gnome-calculator");
        assert_eq!(p[2].application, "xterm");
        let shown = serde_json::to_value(&p[0].steps[0]).unwrap();
        assert_eq!(shown["Observation"], "o1");
        assert_eq!(shown["Actions"][0]["result"], "success");
    }

    #[test]
    fn ufo_yaml_records_are_read_as_is() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("demo.yaml");
        std::fs::write(
            &p,
            "example0:\n  example:\n    Observation: an empty editor\n    Function: set_edit_text\n    Args: {text: hello}\n    Status: FINISH\n  Tips: click the text area first\n  request: type hello in mousepad\n  app_list: [mousepad]\n",
        )
        .unwrap();
        let r = read_ufo_yaml(&p).unwrap();
        assert_eq!(r[0]["example"]["Function"], "set_edit_text");
        assert_eq!(r[0]["example"]["ControlLabel"], "");
        assert_eq!(r[0]["Sub-task"], "type hello in mousepad");
        let rec = record_of_summary("d1", &r[0]);
        assert_eq!(rec.apps, vec!["mousepad".to_owned()]);
        let ex = example_of_summary(&r[0]);
        assert_eq!(ex["Tips"], "click the text area first");
        assert_eq!(ex["Response"]["Args"]["text"], "hello");
    }
}
