//! Reading a constellation from UFO's JSON, in the shape UFO writes
//! (`TaskConstellation.to_dict`: tasks and dependencies as maps by id) and
//! in the shape models answer in (`TaskConstellationSchema`: lists).
//!
//! * `tasks` and `dependencies` may each be a list, a map or `null`. In a
//!   map the entry's own `task_id`/`line_id` wins and the key stands in
//!   when it is missing; in a list a missing id is generated:
//!   `task_<hex8>`/`line_<hex8>`, where UFO's random hex is here a hash of
//!   the entry and its position, so the same reply gives the same ids.
//!   A missing `constellation_id` is `constellation_<hex8>_<YYYYmmdd_HHMMSS>`
//!   (the schema's form).
//! * Each task needs a `description` (or UFO's duplicate
//!   `task_description`); a missing or empty `name` is `task_<id[:8]>`.
//!   Each dependency needs `from_task_id` and `to_task_id`.
//! * Enums are read as [`crate::model::enums`] says; `tips` may be one
//!   text; missing timestamps are now; unknown fields are ignored; the
//!   per-task `dependencies`/`dependents` lists are ignored (the lines say
//!   it), as UFO's `from_dict` does.
//! * Nothing is validated here: duplicate ids are all kept (UFO lets the
//!   last one win silently) so that [`crate::validate`] can name them.

use crate::model::clock;
use crate::model::constellation::TaskConstellation;
use crate::model::enums::{
    ConstellationState, DependencyType, DeviceType, TaskPriority, TaskStatus, lenient_device_type,
};
use crate::model::error::ModelError;
use crate::model::line::TaskStarLine;
use crate::model::task::TaskStar;
use serde::de::{Error as _, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::fmt;
use std::marker::PhantomData;

/// Entries given as a list (no keys) or a map (each with its key).
struct Keyed<T>(Vec<(Option<String>, T)>);

impl<T> Default for Keyed<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Keyed<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ListOrMap<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ListOrMap<T> {
            type Value = Keyed<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list, or a map by id")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Keyed<T>, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = seq.next_element()? {
                    out.push((None, x));
                }
                Ok(Keyed(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keyed<T>, A::Error> {
                let mut out = Vec::new();
                while let Some((k, x)) = map.next_entry::<String, T>()? {
                    out.push((Some(k), x));
                }
                Ok(Keyed(out))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Keyed<T>, E> {
                Ok(Keyed(Vec::new()))
            }
        }
        d.deserialize_any(ListOrMap(PhantomData))
    }
}

/// `tips`: a list of texts, one text, or `null`.
fn tips<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Null => Vec::new(),
        Value::String(s) => vec![s],
        Value::Array(items) => items.into_iter().map(text_of).collect(),
        other => {
            return Err(D::Error::custom(format!(
                "tips is {other}; expected a list of texts"
            )));
        }
    })
}

/// An error text: text as it is, `null` as none, anything else as JSON.
fn error_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Null => None,
        v => Some(text_of(v)),
    })
}

fn text_of(v: Value) -> String {
    match v {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

/// Every field may be missing (`#[serde(default)]`).
#[derive(Deserialize, Default)]
#[serde(default)]
struct RawConstellation {
    constellation_id: Option<String>,
    name: Option<String>,
    state: ConstellationState,
    tasks: Keyed<RawTask>,
    dependencies: Keyed<RawLine>,
    metadata: Option<Map<String, Value>>,
    created_at: Option<String>,
    updated_at: Option<String>,
    execution_start_time: Option<String>,
    execution_end_time: Option<String>,
    execution_duration: Option<f64>,
}

/// Every field may be missing (`#[serde(default)]`).
#[derive(Deserialize, Default)]
#[serde(default)]
struct RawTask {
    task_id: Option<String>,
    name: Option<String>,
    description: Option<String>,
    task_description: Option<String>,
    #[serde(deserialize_with = "tips")]
    tips: Vec<String>,
    target_device_id: Option<String>,
    #[serde(deserialize_with = "lenient_device_type")]
    device_type: Option<DeviceType>,
    priority: TaskPriority,
    timeout: Option<f64>,
    retry_count: Option<u32>,
    current_retry: Option<u32>,
    task_data: Option<Map<String, Value>>,
    expected_output_type: Option<String>,
    status: TaskStatus,
    result: Value,
    #[serde(deserialize_with = "error_text")]
    error: Option<String>,
    created_at: Option<String>,
    updated_at: Option<String>,
    execution_start_time: Option<String>,
    execution_end_time: Option<String>,
    execution_duration: Option<f64>,
}

#[derive(Deserialize)]
struct RawLine {
    #[serde(default, alias = "dependency_id")]
    line_id: Option<String>,
    from_task_id: String,
    to_task_id: String,
    #[serde(default)]
    dependency_type: DependencyType,
    #[serde(default)]
    condition_description: Option<String>,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
    #[serde(default)]
    is_satisfied: Option<bool>,
    #[serde(default)]
    last_evaluation_result: Option<bool>,
    #[serde(default)]
    last_evaluation_time: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    updated_at: Option<String>,
}

/// Eight hex digits hashing `parts` (FNV-1a), for generated ids.
fn hex8(parts: &[&str]) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for p in parts {
        for b in p.bytes().chain([0]) {
            h ^= u32::from(b);
            h = h.wrapping_mul(0x0100_0193);
        }
    }
    format!("{h:08x}")
}

/// Hands out ids: the given one, the map key, or a fresh `<prefix>_<hex8>`
/// that no other entry uses.
struct Ids {
    taken: HashSet<String>,
}

impl Ids {
    fn new<'a>(given: impl Iterator<Item = &'a str>) -> Self {
        Self {
            taken: given.map(str::to_owned).collect(),
        }
    }

    fn pick(
        &mut self,
        own: Option<String>,
        key: Option<String>,
        prefix: &str,
        seed: &[&str],
    ) -> String {
        if let Some(id) = own.filter(|s| !s.is_empty()).or(key) {
            return id;
        }
        let mut salt = 0u32;
        loop {
            let s = salt.to_string();
            let parts: Vec<&str> = seed.iter().copied().chain([s.as_str()]).collect();
            let id = format!("{prefix}_{}", hex8(&parts));
            if self.taken.insert(id.clone()) {
                return id;
            }
            salt += 1;
        }
    }
}

/// Where entry `i` (with map key `key`) of `field` is, for messages.
fn entry_path(field: &str, i: usize, key: Option<&str>) -> String {
    match key {
        Some(k) => format!("{field}.{k}"),
        None => format!("{field}[{i}]"),
    }
}

impl RawTask {
    fn into_task(self, task_id: String, path: String) -> Result<TaskStar, ModelError> {
        let description =
            self.description
                .or(self.task_description)
                .ok_or_else(|| ModelError::Json {
                    path,
                    message: "missing field `description` (what the device is asked to do)".into(),
                })?;
        let mut t = TaskStar::new(task_id, self.name.unwrap_or_default(), description);
        t.tips = self.tips;
        t.target_device_id = self.target_device_id;
        t.device_type = self.device_type;
        t.priority = self.priority;
        t.timeout = self.timeout;
        t.retry_count = self.retry_count.unwrap_or(0);
        t.current_retry = self.current_retry.unwrap_or(0);
        t.task_data = self.task_data.unwrap_or_default();
        t.expected_output_type = self.expected_output_type;
        t.status = self.status;
        t.result = self.result;
        t.error = self.error;
        if let Some(c) = self.created_at {
            t.created_at = c;
        }
        if let Some(u) = self.updated_at {
            t.updated_at = u;
        }
        t.execution_start_time = self.execution_start_time;
        t.execution_end_time = self.execution_end_time;
        t.execution_duration = self.execution_duration;
        Ok(t)
    }
}

impl RawLine {
    fn into_line(self, line_id: String) -> TaskStarLine {
        let mut l = TaskStarLine::new(
            line_id,
            self.from_task_id,
            self.to_task_id,
            self.dependency_type,
        );
        l.condition_description = self.condition_description.unwrap_or_default();
        l.metadata = self.metadata.unwrap_or_default();
        l.is_satisfied = self.is_satisfied.unwrap_or(false);
        l.last_evaluation_result = self.last_evaluation_result;
        l.last_evaluation_time = self.last_evaluation_time;
        if let Some(c) = self.created_at {
            l.created_at = c;
        }
        if let Some(u) = self.updated_at {
            l.updated_at = u;
        }
        l
    }
}

fn build_tasks(raw: Keyed<RawTask>) -> Result<Vec<TaskStar>, ModelError> {
    let given = raw.0.iter().filter_map(|(_, t)| t.task_id.as_deref());
    let mut ids = Ids::new(given.chain(raw.0.iter().filter_map(|(k, _)| k.as_deref())));
    let mut out = Vec::with_capacity(raw.0.len());
    for (i, (key, t)) in raw.0.into_iter().enumerate() {
        let path = entry_path("tasks", i, key.as_deref());
        let index = i.to_string();
        let name = t.name.as_deref().unwrap_or("");
        let seed = [name, t.description.as_deref().unwrap_or(""), index.as_str()];
        let id = ids.pick(t.task_id.clone(), key, "task", &seed);
        out.push(t.into_task(id, path)?);
    }
    Ok(out)
}

fn build_lines(raw: Keyed<RawLine>) -> Vec<TaskStarLine> {
    let given = raw.0.iter().filter_map(|(_, l)| l.line_id.as_deref());
    let mut ids = Ids::new(given.chain(raw.0.iter().filter_map(|(k, _)| k.as_deref())));
    let mut out = Vec::with_capacity(raw.0.len());
    for (i, (key, l)) in raw.0.into_iter().enumerate() {
        let index = i.to_string();
        let seed = [
            l.from_task_id.as_str(),
            l.to_task_id.as_str(),
            index.as_str(),
        ];
        let id = ids.pick(l.line_id.clone(), key, "line", &seed);
        out.push(l.into_line(id));
    }
    out
}

impl TryFrom<RawConstellation> for TaskConstellation {
    type Error = ModelError;

    fn try_from(raw: RawConstellation) -> Result<Self, ModelError> {
        let tasks = build_tasks(raw.tasks)?;
        let lines = build_lines(raw.dependencies);
        let id = raw
            .constellation_id
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| {
                let seed: Vec<&str> = tasks.iter().map(|t| t.task_id.as_str()).collect();
                format!("constellation_{}_{}", hex8(&seed), clock::stamp())
            });
        let mut c = TaskConstellation::new(id, raw.name.unwrap_or_default());
        c.state = raw.state;
        c.tasks = tasks;
        c.lines = lines;
        c.metadata = raw.metadata.unwrap_or_default();
        if let Some(t) = raw.created_at {
            c.created_at = t;
        }
        if let Some(t) = raw.updated_at {
            c.updated_at = t;
        }
        c.execution_start_time = raw.execution_start_time;
        c.execution_end_time = raw.execution_end_time;
        c.execution_duration = raw.execution_duration;
        Ok(c)
    }
}

impl<'de> Deserialize<'de> for TaskConstellation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawConstellation::deserialize(d)?;
        TaskConstellation::try_from(raw).map_err(|e| match e {
            ModelError::Json { path, message } => D::Error::custom(format!("{path}: {message}")),
            other => D::Error::custom(other),
        })
    }
}

fn json_error<E: fmt::Display>(e: serde_path_to_error::Error<E>) -> ModelError {
    ModelError::Json {
        path: e.path().to_string(),
        message: e.inner().to_string(),
    }
}

impl TaskConstellation {
    /// Reads a constellation from JSON text in either of UFO's shapes (see
    /// the module docs). An error names where in the document it is.
    pub fn from_json(text: &str) -> Result<Self, ModelError> {
        let mut de = serde_json::Deserializer::from_str(text);
        let raw: RawConstellation =
            serde_path_to_error::deserialize(&mut de).map_err(json_error)?;
        de.end().map_err(|e| ModelError::Json {
            path: String::new(),
            message: e.to_string(),
        })?;
        Self::try_from(raw)
    }

    /// [`Self::from_json`] from a JSON value (a model's parsed reply).
    /// Without serde_json's `preserve_order`, a map's entries come in key
    /// order; a list keeps its order.
    pub fn from_value(value: &Value) -> Result<Self, ModelError> {
        let raw: RawConstellation = serde_path_to_error::deserialize(value).map_err(json_error)?;
        Self::try_from(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_list_reply_gets_ids_names_and_defaults() {
        let c = TaskConstellation::from_value(&json!({
            "tasks": [
                {"task_id": "t1", "name": "Fetch", "description": "get it", "tips": "one tip",
                 "priority": "HIGH", "device_type": "LINUX", "status": "Completed", "surprise": 1},
                {"name": "", "description": "use it"},
            ],
            "dependencies": [{"from_task_id": "t1", "to_task_id": "x", "dependency_type": "SUCCESS_ONLY"}],
        }))
        .unwrap();
        assert!(c.id().starts_with("constellation_"), "{}", c.id());
        let t1 = c.task("t1").unwrap();
        assert_eq!(t1.tips, ["one tip"]);
        assert_eq!(t1.priority, TaskPriority::High);
        assert_eq!(t1.device_type, Some(DeviceType::Linux));
        assert_eq!(t1.status, TaskStatus::Completed);
        let second = &c.tasks()[1];
        assert!(second.task_id.starts_with("task_") && second.task_id.len() == 13);
        assert_eq!(second.name, format!("task_{}", &second.task_id[..8]));
        let line = &c.dependencies()[0];
        assert!(line.line_id.starts_with("line_"));
        assert_eq!(line.dependency_type, DependencyType::SuccessOnly);
        assert_eq!(
            line.to_task_id, "x",
            "dangling ends are kept for validation"
        );
    }

    #[test]
    fn generated_ids_are_stable_for_the_same_reply() {
        let reply = json!({"tasks": [{"name": "a", "description": "b"}, {"name": "a", "description": "b"}]});
        let one = TaskConstellation::from_value(&reply).unwrap();
        let two = TaskConstellation::from_value(&reply).unwrap();
        let ids = |c: &TaskConstellation| {
            c.tasks()
                .iter()
                .map(|t| t.task_id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&one), ids(&two));
        assert_ne!(ids(&one)[0], ids(&one)[1]);
    }

    #[test]
    fn a_map_keeps_its_order_and_its_keys_stand_in_for_ids() {
        let c = TaskConstellation::from_json(
            r#"{"constellation_id": "c", "tasks": {"zeta": {"description": "z"}, "alpha": {"task_id": "inner", "description": "a"}},
                "dependencies": {"d1": {"from_task_id": "zeta", "to_task_id": "inner"}}}"#,
        )
        .unwrap();
        let ids: Vec<_> = c.tasks().iter().map(|t| t.task_id.as_str()).collect();
        assert_eq!(ids, ["zeta", "inner"]);
        assert_eq!(c.dependencies()[0].line_id, "d1");
        assert_eq!(c.name(), "c");
    }

    #[test]
    fn duplicates_are_kept_for_the_validator() {
        let c = TaskConstellation::from_value(&json!({"tasks": [
            {"task_id": "t", "name": "one", "description": "1"},
            {"task_id": "t", "name": "two", "description": "2"}]}))
        .unwrap();
        assert_eq!(c.tasks().len(), 2);
    }

    #[test]
    fn errors_name_where_they_are() {
        let e = TaskConstellation::from_value(&json!({"tasks": [{"name": "x"}]})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the constellation cannot be read at tasks[0]: missing field `description` (what the device is asked to do)"
        );
        let e = TaskConstellation::from_json(r#"{"tasks": [{"description": "d", "tips": 3}]}"#)
            .unwrap_err();
        assert!(e.to_string().contains("at tasks[0].tips"), "{e}");
        let e = TaskConstellation::from_json(r#"{"dependencies": [{"from_task_id": "a"}]}"#)
            .unwrap_err();
        assert!(e.to_string().contains("missing field `to_task_id`"), "{e}");
        let e = TaskConstellation::from_json(r#"{"tasks": 5}"#).unwrap_err();
        assert!(e.to_string().contains("a list, or a map by id"), "{e}");
        assert!(TaskConstellation::from_json("{} trailing").is_err());
    }

    #[test]
    fn task_description_stands_in_for_description() {
        let c = TaskConstellation::from_value(
            &json!({"tasks": [{"task_id": "t", "task_description": "old"}]}),
        )
        .unwrap();
        assert_eq!(c.tasks()[0].description, "old");
    }
}
