//! Writing a constellation as UFO's `to_dict`/`to_json` does: tasks and
//! dependencies as maps by id, in the order they were added, every field
//! present (`null` where unset), `task_description` repeating
//! `description`, the priority as its number, statuses in lower case.
//!
//! One difference: each task's `dependencies`/`dependents` lists name its
//! predecessors and successors (from the lines), where UFO's are almost
//! always `[]` (they are never filled after a JSON round trip). Readers,
//! UFO's included, ignore them.

use crate::model::constellation::TaskConstellation;
use crate::model::enums::{DeviceType, TaskPriority, TaskStatus};
use crate::model::task::TaskStar;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

/// One task as UFO writes it.
#[derive(Serialize)]
struct TaskOut<'a> {
    task_id: &'a str,
    name: &'a str,
    description: &'a str,
    tips: &'a [String],
    task_description: &'a str,
    target_device_id: Option<&'a str>,
    device_type: Option<DeviceType>,
    priority: TaskPriority,
    status: TaskStatus,
    result: &'a Value,
    error: Option<&'a str>,
    timeout: Option<f64>,
    retry_count: u32,
    current_retry: u32,
    task_data: &'a Map<String, Value>,
    expected_output_type: Option<&'a str>,
    created_at: &'a str,
    updated_at: &'a str,
    execution_start_time: Option<&'a str>,
    execution_end_time: Option<&'a str>,
    execution_duration: Option<f64>,
    dependencies: Vec<&'a str>,
    dependents: Vec<&'a str>,
}

impl<'a> TaskOut<'a> {
    fn new(t: &'a TaskStar, dependencies: Vec<&'a str>, dependents: Vec<&'a str>) -> Self {
        Self {
            task_id: &t.task_id,
            name: &t.name,
            description: &t.description,
            tips: &t.tips,
            task_description: &t.description,
            target_device_id: t.target_device_id.as_deref(),
            device_type: t.device_type,
            priority: t.priority,
            status: t.status,
            result: &t.result,
            error: t.error.as_deref(),
            timeout: t.timeout,
            retry_count: t.retry_count,
            current_retry: t.current_retry,
            task_data: &t.task_data,
            expected_output_type: t.expected_output_type.as_deref(),
            created_at: &t.created_at,
            updated_at: &t.updated_at,
            execution_start_time: t.execution_start_time.as_deref(),
            execution_end_time: t.execution_end_time.as_deref(),
            execution_duration: t.execution_duration,
            dependencies,
            dependents,
        }
    }
}

/// Each id once, in first-seen order.
fn unique<'a>(ids: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for id in ids {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

impl Serialize for TaskStar {
    /// A task on its own: `dependencies`/`dependents` are `[]` (only the
    /// constellation knows them).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        TaskOut::new(self, Vec::new(), Vec::new()).serialize(s)
    }
}

/// The `tasks` map of a constellation.
struct Tasks<'a>(&'a TaskConstellation);

impl Serialize for Tasks<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = self.0;
        s.collect_map(c.tasks.iter().map(|t| {
            let id = t.task_id.as_str();
            let before = unique(c.incoming(id).map(|l| l.from_task_id.as_str()));
            let after = unique(c.outgoing(id).map(|l| l.to_task_id.as_str()));
            (id, TaskOut::new(t, before, after))
        }))
    }
}

/// The `dependencies` map of a constellation.
struct Lines<'a>(&'a TaskConstellation);

impl Serialize for Lines<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.lines.iter().map(|l| (l.line_id.as_str(), l)))
    }
}

impl Serialize for TaskConstellation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(11))?;
        m.serialize_entry("constellation_id", &self.constellation_id)?;
        m.serialize_entry("name", &self.name)?;
        m.serialize_entry("state", &self.state)?;
        m.serialize_entry("tasks", &Tasks(self))?;
        m.serialize_entry("dependencies", &Lines(self))?;
        m.serialize_entry("metadata", &self.metadata)?;
        m.serialize_entry("created_at", &self.created_at)?;
        m.serialize_entry("updated_at", &self.updated_at)?;
        m.serialize_entry("execution_start_time", &self.execution_start_time)?;
        m.serialize_entry("execution_end_time", &self.execution_end_time)?;
        m.serialize_entry("execution_duration", &self.execution_duration)?;
        m.end()
    }
}

impl TaskConstellation {
    /// UFO's `to_json()`: indented by 2, non-ASCII kept, keys in UFO's
    /// order and tasks in the order they were added.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The same as a JSON value. Without serde_json's `preserve_order` its
    /// maps are sorted by key; [`Self::to_json`] keeps the order.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use crate::model::constellation::TaskConstellation;
    use serde_json::json;

    fn sample() -> TaskConstellation {
        TaskConstellation::from_value(&json!({
            "constellation_id": "c1", "name": "Report",
            "tasks": [
                {"task_id": "b", "name": "B", "description": "second", "priority": 3, "status": "RUNNING"},
                {"task_id": "a", "name": "A", "description": "first"},
            ],
            "dependencies": [{"line_id": "l1", "from_task_id": "a", "to_task_id": "b",
                              "dependency_type": "COMPLETION_ONLY", "condition_description": "when a ends"}],
        }))
        .unwrap()
    }

    #[test]
    fn tasks_are_written_as_ufo_writes_them() {
        let v = sample().to_value();
        let b = &v["tasks"]["b"];
        assert_eq!(b["task_description"], "second");
        assert_eq!(b["priority"], 3);
        assert_eq!(b["status"], "running");
        assert_eq!(b["device_type"], json!(null));
        assert_eq!(b["result"], json!(null));
        assert_eq!(b["tips"], json!([]));
        assert_eq!(b["dependencies"], json!(["a"]));
        assert_eq!(v["tasks"]["a"]["dependents"], json!(["b"]));
        assert_eq!(b.as_object().unwrap().len(), 23);
        let l1 = &v["dependencies"]["l1"];
        assert_eq!(l1["dependency_type"], "completion_only");
        assert_eq!(l1["is_satisfied"], false);
        assert_eq!(l1.as_object().unwrap().len(), 11);
        assert_eq!(v["state"], "created");
        assert_eq!(v["execution_duration"], json!(null));
    }

    #[test]
    fn json_text_keeps_ufos_key_order_and_the_task_order() {
        let text = sample().to_json();
        let pos = |k: &str| text.find(k).unwrap();
        assert!(pos("\"constellation_id\"") < pos("\"name\""));
        assert!(pos("\"state\"") < pos("\"tasks\""));
        assert!(pos("\"tasks\"") < pos("\"dependencies\": {"));
        assert!(pos("\"b\": {") < pos("\"a\": {"), "tasks keep their order");
        assert!(
            text.starts_with("{\n  \"constellation_id\": \"c1\""),
            "{text}"
        );
    }

    #[test]
    fn what_is_written_reads_back_the_same() {
        let c = sample();
        let again = TaskConstellation::from_json(&c.to_json()).unwrap();
        assert_eq!(again, c);
    }
}
