//! One sub-task of a constellation (UFO's `TaskStar`): what it asks, which
//! device runs it, and where it is in its life.

use crate::model::clock;
use crate::model::enums::{DeviceType, TaskPriority, TaskStatus};
use serde_json::{Map, Value};

/// One sub-task: its definition (what an edit may change before it starts)
/// and its run state (what the orchestrator sets as it runs).
///
/// Only [`Self::description`] and [`Self::tips`] reach the device, as
/// [`Self::request_text`]; `task_data` stays on this side, as in UFO.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStar {
    /// Unique within its constellation.
    pub task_id: String,
    /// A short name; an empty one is read as `task_` + the id's first 8
    /// characters.
    pub name: String,
    /// What the device is asked to do.
    pub description: String,
    /// Hints sent with the description (results of earlier tasks, paths).
    pub tips: Vec<String>,
    /// The device that runs it (a `device_id` of `devices.yaml`).
    pub target_device_id: Option<String>,
    /// The kind of device it is meant for.
    pub device_type: Option<DeviceType>,
    /// Among ready tasks, the higher priority starts first.
    pub priority: TaskPriority,
    /// Seconds to wait for its end; `None` means UFO's 1000.
    pub timeout: Option<f64>,
    /// Kept and written back; nothing retries (as in UFO).
    pub retry_count: u32,
    /// Kept and written back.
    pub current_retry: u32,
    /// Free data for the orchestrator; never sent to the device.
    pub task_data: Map<String, Value>,
    /// What its result should look like, free text.
    pub expected_output_type: Option<String>,
    /// Where it is in its life.
    pub status: TaskStatus,
    /// Its result: UFO stores the whole `ExecutionResult` here (status,
    /// result, error, metadata, times), on failure too. `Null` before.
    pub result: Value,
    /// UFO leaves this `null` even on failure (the text is in `result`).
    pub error: Option<String>,
    /// When it was made (ISO 8601, UTC).
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
    /// When it started running.
    pub execution_start_time: Option<String>,
    /// When it ended.
    pub execution_end_time: Option<String>,
    /// Seconds from start to end.
    pub execution_duration: Option<f64>,
}

impl TaskStar {
    /// A new `pending` task with UFO's defaults, made now.
    pub fn new(
        task_id: impl Into<String>,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        let task_id = task_id.into();
        let now = clock::now();
        let mut task = Self {
            name: String::new(),
            description: description.into(),
            tips: Vec::new(),
            target_device_id: None,
            device_type: None,
            priority: TaskPriority::default(),
            timeout: None,
            retry_count: 0,
            current_retry: 0,
            task_data: Map::new(),
            expected_output_type: None,
            status: TaskStatus::Pending,
            result: Value::Null,
            error: None,
            created_at: now.clone(),
            updated_at: now,
            execution_start_time: None,
            execution_end_time: None,
            execution_duration: None,
            task_id,
        };
        task.set_name(name.into());
        task
    }

    /// Sets the name; an empty one becomes `task_` + the id's first 8
    /// characters (UFO's rule).
    pub fn set_name(&mut self, name: String) {
        self.name = if name.is_empty() {
            format!("task_{}", self.task_id.chars().take(8).collect::<String>())
        } else {
            name
        };
    }

    /// The text the device receives (UFO's `to_request_string`):
    /// `Task Description: …\nTips for Completion:\n - tip` per tip, or
    /// `No tips available.` without tips.
    #[doc(alias = "to_request_string")]
    pub fn request_text(&self) -> String {
        let tips = if self.tips.is_empty() {
            "No tips available.".to_owned()
        } else {
            self.tips
                .iter()
                .map(|t| format!(" - {t}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        format!(
            "Task Description: {}\nTips for Completion:\n{tips}",
            self.description
        )
    }

    /// Whether the two tasks ask the same thing of the same device: every
    /// field but the run state and the timestamps.
    pub fn same_definition(&self, other: &Self) -> bool {
        self.task_id == other.task_id
            && self.name == other.name
            && self.description == other.description
            && self.tips == other.tips
            && self.target_device_id == other.target_device_id
            && self.device_type == other.device_type
            && self.priority == other.priority
            && self.timeout == other.timeout
            && self.task_data == other.task_data
            && self.expected_output_type == other.expected_output_type
    }

    /// Copies `from`'s run state (status, result, error, execution times)
    /// onto this task.
    pub(crate) fn take_run_state(&mut self, from: &Self) {
        self.status = from.status;
        self.result = from.result.clone();
        self.error = from.error.clone();
        self.execution_start_time = from.execution_start_time.clone();
        self.execution_end_time = from.execution_end_time.clone();
        self.execution_duration = from.execution_duration;
        self.updated_at = from.updated_at.clone();
    }

    /// The device it runs on, if one is named (an empty id is none).
    pub fn device(&self) -> Option<&str> {
        self.target_device_id.as_deref().filter(|d| !d.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_name_is_made_from_the_id() {
        let t = TaskStar::new("0123456789abcdef", "", "do it");
        assert_eq!(t.name, "task_01234567");
        assert_eq!(t.status, TaskStatus::Pending);
        assert_eq!(t.priority, TaskPriority::Medium);
        assert_eq!(TaskStar::new("t1", "Fetch", "x").name, "Fetch");
    }

    #[test]
    fn the_request_text_is_ufos_template() {
        let mut t = TaskStar::new("t1", "Fetch", "Download the report");
        assert_eq!(
            t.request_text(),
            "Task Description: Download the report\nTips for Completion:\nNo tips available."
        );
        t.tips = vec!["use curl".into(), "save to /tmp".into()];
        assert_eq!(
            t.request_text(),
            "Task Description: Download the report\nTips for Completion:\n - use curl\n - save to /tmp"
        );
    }

    #[test]
    fn the_definition_leaves_out_the_run_state() {
        let a = TaskStar::new("t1", "Fetch", "x");
        let mut b = a.clone();
        b.status = TaskStatus::Completed;
        b.updated_at = "later".into();
        assert!(a.same_definition(&b));
        b.tips.push("new tip".into());
        assert!(!a.same_definition(&b));
        let mut c = a.clone();
        c.take_run_state(&b);
        assert_eq!(c.status, TaskStatus::Completed);
        assert!(c.tips.is_empty());
    }

    #[test]
    fn an_empty_device_id_is_no_device() {
        let mut t = TaskStar::new("t1", "Fetch", "x");
        t.target_device_id = Some(String::new());
        assert_eq!(t.device(), None);
        t.target_device_id = Some("linux-1".into());
        assert_eq!(t.device(), Some("linux-1"));
    }
}
