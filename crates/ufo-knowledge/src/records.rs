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
use serde_json::{Map, Value, json};
use std::path::Path;

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

/// The AppAgent steps of one sub-task on one application.
#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    /// The user request.
    pub request: String,
    /// The sub-task.
    pub subtask: String,
    /// The application.
    pub application: String,
    /// The steps, trimmed to what a summary needs (observation, thought,
    /// plan, comment, actions with their status and result, status).
    pub steps: Vec<Value>,
}

/// Splits `response.log` (JSON lines) into consecutive runs of AppAgent
/// steps with the same sub-task and application. HostAgent lines and lines
/// that are not JSON are skipped.
pub fn partition_response_log(text: &str) -> Vec<Partition> {
    let mut out: Vec<Partition> = Vec::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default();
        if s("agent_type") == "HostAgent" || s("application").is_empty() {
            continue;
        }
        let actions: Vec<Value> = v
            .get("actions")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|x| {
                        json!({
                            "action": x.get("action_string").cloned().unwrap_or(Value::Null),
                            "target": x.get("target").cloned().unwrap_or(Value::Null),
                            "status": x.get("status").cloned().unwrap_or(Value::Null),
                            "result": x.get("result").and_then(|r| r.get("status")).cloned().unwrap_or(Value::Null),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let step = json!({
            "Step": v.get("agent_step").cloned().unwrap_or(Value::Null),
            "Observation": s("observation"),
            "Thought": s("thought"),
            "Plan": v.get("plan").cloned().unwrap_or(Value::Null),
            "Comment": s("comment"),
            "Actions": actions,
            "Status": v.get("status").cloned().unwrap_or(Value::Null),
        });
        match out.last_mut() {
            Some(p) if p.subtask == s("subtask") && p.application == s("application") => {
                p.steps.push(step)
            }
            _ => out.push(Partition {
                request: s("request").to_owned(),
                subtask: s("subtask").to_owned(),
                application: s("application").to_owned(),
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
        .map_err(|e| KnowledgeError::format(path, format!("not valid YAML: {e}")))?;
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

    #[test]
    fn response_log_is_split_per_subtask_and_application() {
        let log = [
            json!({"agent_type": "HostAgent", "application": "", "subtask": "", "request": "r"}),
            json!({"agent_type": "AppAgent", "application": "mousepad", "subtask": "type hi", "request": "r", "observation": "o1", "actions": [{"action_string": "set_edit_text(text=\"hi\")", "status": "CONTINUE", "result": {"status": "success"}}], "status": "CONTINUE"}),
            json!({"agent_type": "AppAgent", "application": "mousepad", "subtask": "type hi", "request": "r", "observation": "o2", "status": "FINISH"}),
            json!({"agent_type": "AppAgent", "application": "gnome-calculator", "subtask": "add", "request": "r", "status": "FINISH"}),
        ]
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\nnot json\n");
        let p = partition_response_log(&log);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].steps.len(), 2);
        assert_eq!(p[0].steps[0]["Actions"][0]["result"], "success");
        assert_eq!(p[1].application, "gnome-calculator");
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
