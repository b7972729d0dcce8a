//! What can go wrong reading a constellation or moving a task through its
//! life, each with a stable code and a help line.

use crate::model::enums::TaskStatus;
use ufo_core::Diagnostic;

/// Errors of the data model.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// The JSON is not a constellation: a field of the wrong type, a task
    /// without a description, not JSON at all.
    #[error("the constellation cannot be read{}: {message}", at_path(path))]
    Json {
        /// Where in the document (`tasks[2].tips`); empty at the top.
        path: String,
        /// What is wrong there.
        message: String,
    },
    /// No task has this id.
    #[error("no task {task_id:?} in the constellation")]
    NoSuchTask {
        /// The id asked for.
        task_id: String,
    },
    /// A task was asked to move to a status it cannot reach from its own
    /// (complete a task that is not running, start one that has ended).
    #[error("task {task_id:?} is {from}: it cannot become {to}")]
    Transition {
        /// The task.
        task_id: String,
        /// Its status.
        from: TaskStatus,
        /// The status asked for.
        to: TaskStatus,
    },
}

fn at_path(path: &str) -> String {
    if path.is_empty() || path == "." {
        String::new()
    } else {
        format!(" at {path}")
    }
}

impl Diagnostic for ModelError {
    fn code(&self) -> &'static str {
        match self {
            Self::Json { .. } => "ufo::galaxy::json",
            Self::NoSuchTask { .. } => "ufo::galaxy::no_such_task",
            Self::Transition { .. } => "ufo::galaxy::transition",
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            Self::Json { .. } => "write the constellation as {\"tasks\": [{\"task_id\", \"name\", \"description\", \"tips\": [...], \"target_device_id\"}], \"dependencies\": [{\"line_id\", \"from_task_id\", \"to_task_id\", \"dependency_type\", \"condition_description\"}]}; tasks and dependencies may be lists or maps by id".into(),
            Self::NoSuchTask { .. } => "use one of the constellation's task ids".into(),
            Self::Transition { .. } => "a task goes pending → running → completed, failed or cancelled; only a task not yet ended can be cancelled".into(),
        })
    }
}
