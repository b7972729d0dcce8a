//! The whole DAG of one request (UFO's `TaskConstellation`): its tasks and
//! dependencies in the order they were added, its state and timestamps.
//!
//! Reading ([`crate::model::input`]) keeps what it is given, duplicates
//! and dangling ends included, so that [`crate::validate`] can name them;
//! a constellation is known to be a valid DAG only once it has passed
//! there. Its structure changes only through [`crate::edit::Editor`]
//! (checked, one batch at a time, undoable); its run state through the
//! transitions of [`crate::model::run`].

use crate::model::clock;
use crate::model::enums::ConstellationState;
use crate::model::line::TaskStarLine;
use crate::model::task::TaskStar;
use serde_json::{Map, Value};

/// A request's sub-tasks and the dependencies between them.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskConstellation {
    pub(crate) constellation_id: String,
    pub(crate) name: String,
    pub(crate) state: ConstellationState,
    pub(crate) tasks: Vec<TaskStar>,
    pub(crate) lines: Vec<TaskStarLine>,
    pub(crate) metadata: Map<String, Value>,
    pub(crate) created_at: String,
    pub(crate) updated_at: String,
    pub(crate) execution_start_time: Option<String>,
    pub(crate) execution_end_time: Option<String>,
    pub(crate) execution_duration: Option<f64>,
}

impl TaskConstellation {
    /// An empty constellation (state `created`), made now. An empty name
    /// is the id, as in UFO.
    pub fn new(constellation_id: impl Into<String>, name: impl Into<String>) -> Self {
        let constellation_id = constellation_id.into();
        let name = name.into();
        let now = clock::now();
        Self {
            name: if name.is_empty() {
                constellation_id.clone()
            } else {
                name
            },
            constellation_id,
            state: ConstellationState::Created,
            tasks: Vec::new(),
            lines: Vec::new(),
            metadata: Map::new(),
            created_at: now.clone(),
            updated_at: now,
            execution_start_time: None,
            execution_end_time: None,
            execution_duration: None,
        }
    }

    /// Its id.
    pub fn id(&self) -> &str {
        &self.constellation_id
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its state as last derived ([`Self::refresh_state`]) or read.
    pub fn state(&self) -> ConstellationState {
        self.state
    }

    /// Its tasks, in the order they were added.
    pub fn tasks(&self) -> &[TaskStar] {
        &self.tasks
    }

    /// Its dependencies, in the order they were added.
    pub fn dependencies(&self) -> &[TaskStarLine] {
        &self.lines
    }

    /// Free data, written back.
    pub fn metadata(&self) -> &Map<String, Value> {
        &self.metadata
    }

    /// Free data, to change (it is not part of the structure).
    pub fn metadata_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.metadata
    }

    /// When it was made and when it last changed (ISO 8601, UTC).
    pub fn timestamps(&self) -> (&str, &str) {
        (&self.created_at, &self.updated_at)
    }

    /// When it started and ended executing, and the seconds between.
    pub fn execution(&self) -> (Option<&str>, Option<&str>, Option<f64>) {
        (
            self.execution_start_time.as_deref(),
            self.execution_end_time.as_deref(),
            self.execution_duration,
        )
    }

    /// The task `task_id` (the first, if the id is duplicated).
    pub fn task(&self, task_id: &str) -> Option<&TaskStar> {
        self.tasks.iter().find(|t| t.task_id == task_id)
    }

    /// The dependency `line_id` (the first, if the id is duplicated).
    pub fn dependency(&self, line_id: &str) -> Option<&TaskStarLine> {
        self.lines.iter().find(|l| l.line_id == line_id)
    }

    /// The dependencies task `task_id` waits for (its incoming lines).
    pub fn incoming<'a>(&'a self, task_id: &'a str) -> impl Iterator<Item = &'a TaskStarLine> {
        self.lines.iter().filter(move |l| l.to_task_id == task_id)
    }

    /// The dependencies that wait for task `task_id` (its outgoing lines).
    pub fn outgoing<'a>(&'a self, task_id: &'a str) -> impl Iterator<Item = &'a TaskStarLine> {
        self.lines.iter().filter(move |l| l.from_task_id == task_id)
    }

    /// The tasks an edit may change: those not started (UFO's
    /// `get_modifiable_tasks`).
    pub fn modifiable_tasks(&self) -> impl Iterator<Item = &TaskStar> {
        self.tasks.iter().filter(|t| t.status.is_not_started())
    }

    /// Whether every task has ended (true for no tasks).
    pub fn all_ended(&self) -> bool {
        self.tasks.iter().all(|t| t.status.is_terminal())
    }

    pub(crate) fn task_mut(&mut self, task_id: &str) -> Option<&mut TaskStar> {
        self.tasks.iter_mut().find(|t| t.task_id == task_id)
    }

    pub(crate) fn dependency_mut(&mut self, line_id: &str) -> Option<&mut TaskStarLine> {
        self.lines.iter_mut().find(|l| l.line_id == line_id)
    }

    /// Marks the constellation changed now.
    pub(crate) fn touch(&mut self) {
        self.updated_at = clock::now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::enums::{DependencyType, TaskStatus};

    fn sample() -> TaskConstellation {
        let mut c = TaskConstellation::new("c1", "");
        c.tasks.push(TaskStar::new("a", "A", "first"));
        c.tasks.push(TaskStar::new("b", "B", "second"));
        c.lines.push(TaskStarLine::new(
            "l1",
            "a",
            "b",
            DependencyType::SuccessOnly,
        ));
        c
    }

    #[test]
    fn lookups_follow_the_lines() {
        let c = sample();
        assert_eq!(c.name(), "c1");
        assert_eq!(c.task("b").map(|t| t.name.as_str()), Some("B"));
        assert!(c.task("z").is_none());
        let into_b: Vec<_> = c.incoming("b").map(|l| l.from_task_id.as_str()).collect();
        assert_eq!(into_b, ["a"]);
        assert_eq!(c.outgoing("b").count(), 0);
        assert_eq!(c.dependency("l1").map(|l| l.to_task_id.as_str()), Some("b"));
    }

    #[test]
    fn only_tasks_not_started_are_modifiable() {
        let mut c = sample();
        c.tasks[0].status = TaskStatus::Running;
        let ids: Vec<_> = c.modifiable_tasks().map(|t| t.task_id.as_str()).collect();
        assert_eq!(ids, ["b"]);
        assert!(!c.all_ended());
        assert!(TaskConstellation::new("e", "E").all_ended());
    }
}
