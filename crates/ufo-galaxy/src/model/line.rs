//! One dependency between two tasks (UFO's `TaskStarLine`): the task it
//! comes from must end (in the way its type asks) before the task it leads
//! to may start.

use crate::model::clock;
use crate::model::enums::DependencyType;
use serde::Serialize;
use serde_json::{Map, Value};

/// A dependency: `from_task_id` is the prerequisite, `to_task_id` the task
/// that waits for it. Serialised with UFO's field names, in UFO's order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskStarLine {
    /// Unique within its constellation (`dependency_id` in edit commands).
    pub line_id: String,
    /// The prerequisite.
    pub from_task_id: String,
    /// The task that waits.
    pub to_task_id: String,
    /// How the prerequisite's end releases the waiting task.
    pub dependency_type: DependencyType,
    /// What must hold for the waiting task to be worth running (the agent
    /// judges it; see [`crate::ready`]).
    pub condition_description: String,
    /// Free data, written back.
    pub metadata: Map<String, Value>,
    /// Written back as read; UFO never evaluates it in practice.
    pub is_satisfied: bool,
    /// Written back as read.
    pub last_evaluation_result: Option<bool>,
    /// Written back as read.
    pub last_evaluation_time: Option<String>,
    /// When it was made (ISO 8601, UTC).
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
}

impl TaskStarLine {
    /// A new dependency `from → to` of type `dependency_type`, made now.
    pub fn new(
        line_id: impl Into<String>,
        from_task_id: impl Into<String>,
        to_task_id: impl Into<String>,
        dependency_type: DependencyType,
    ) -> Self {
        let now = clock::now();
        Self {
            line_id: line_id.into(),
            from_task_id: from_task_id.into(),
            to_task_id: to_task_id.into(),
            dependency_type,
            condition_description: String::new(),
            metadata: Map::new(),
            is_satisfied: false,
            last_evaluation_result: None,
            last_evaluation_time: None,
            created_at: now.clone(),
            updated_at: now,
        }
    }

    /// Whether the two lines join the same tasks in the same way (ids,
    /// ends, type, condition).
    pub fn same_definition(&self, other: &Self) -> bool {
        self.line_id == other.line_id
            && self.from_task_id == other.from_task_id
            && self.to_task_id == other.to_task_id
            && self.dependency_type == other.dependency_type
            && self.condition_description == other.condition_description
    }

    /// Whether it touches task `task_id` at either end.
    pub fn touches(&self, task_id: &str) -> bool {
        self.from_task_id == task_id || self.to_task_id == task_id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_line_has_ufos_defaults() {
        let l = TaskStarLine::new("l1", "a", "b", DependencyType::SuccessOnly);
        assert_eq!(l.condition_description, "");
        assert!(!l.is_satisfied);
        assert!(l.touches("a") && l.touches("b") && !l.touches("c"));
        let mut m = l.clone();
        m.updated_at = "later".into();
        assert!(l.same_definition(&m));
        m.dependency_type = DependencyType::Conditional;
        assert!(!l.same_definition(&m));
    }
}
