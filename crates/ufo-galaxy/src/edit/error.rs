//! What can go wrong with an edit, each with a stable code and a help line
//! written for the model that sent the edit.

use crate::model::TaskStatus;
use crate::validate::Invalid;
use std::fmt;
use ufo_core::Diagnostic;

/// The editor's functions, UFO's "ConstellationEditor" tools.
pub const FUNCTIONS: &[&str] = &[
    "add_task",
    "remove_task",
    "update_task",
    "add_dependency",
    "remove_dependency",
    "update_dependency",
    "build_constellation",
];

/// A task or a dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// A task (`task_id`).
    Task,
    /// A dependency (`dependency_id`, a line's `line_id`).
    Dependency,
}

impl fmt::Display for ItemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Task => "task",
            Self::Dependency => "dependency",
        })
    }
}

/// Why one edit command was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EditError {
    /// The `function` is none of the editor's.
    #[error("unknown edit function {function:?}; the functions are {}", FUNCTIONS.join(", "))]
    UnknownFunction {
        /// The name given.
        function: String,
    },
    /// The `arguments` do not fit the function.
    #[error("bad arguments for {function}: {message}")]
    BadArguments {
        /// The function.
        function: String,
        /// What is wrong, with the argument's path.
        message: String,
    },
    /// No task or dependency has this id.
    #[error("no {kind} {id:?} in the constellation")]
    NotFound {
        /// Task or dependency.
        kind: ItemKind,
        /// The id given.
        id: String,
    },
    /// The id is taken.
    #[error("{kind} with ID {id} already exists")]
    AlreadyExists {
        /// Task or dependency.
        kind: ItemKind,
        /// The id given.
        id: String,
    },
    /// The edit touches a task that has started (or a dependency into
    /// one).
    #[error("{}", started(*kind, id, task_id, *status))]
    Started {
        /// What the edit touches.
        kind: ItemKind,
        /// Its id.
        id: String,
        /// The task that has started (the dependency's `to_task_id`).
        task_id: String,
        /// Its status.
        status: TaskStatus,
    },
    /// An update with no field to change.
    #[error("{function}: at least one field must be provided for update")]
    NothingToUpdate {
        /// The function.
        function: String,
    },
    /// The edit would leave the constellation invalid (a cycle, a
    /// dependency on a missing task, an unknown device, …).
    #[error("{0}")]
    Invalid(Invalid),
    /// [`crate::edit::Editor::undo`] with no batch to undo.
    #[error("nothing to undo: no batch of edits is left to revert")]
    NothingToUndo,
    /// The last batch changed tasks that have started since.
    #[error("cannot undo the last batch of edits: it changed task(s) {} that started since", task_ids.join(", "))]
    UndoConflict {
        /// The tasks.
        task_ids: Vec<String>,
    },
}

fn started(kind: ItemKind, id: &str, task_id: &str, status: TaskStatus) -> String {
    match kind {
        ItemKind::Task => format!(
            "task {id:?} is {status}; only tasks that have not started (pending) can be edited"
        ),
        ItemKind::Dependency => format!(
            "dependency {id:?} leads to task {task_id:?}, which is {status}; only dependencies into tasks that have not started (pending) can be edited"
        ),
    }
}

impl Diagnostic for EditError {
    fn code(&self) -> &'static str {
        match self {
            Self::UnknownFunction { .. } => "ufo::galaxy::unknown_function",
            Self::BadArguments { .. } => "ufo::galaxy::bad_arguments",
            Self::NotFound { .. } => "ufo::galaxy::not_found",
            Self::AlreadyExists { .. } => "ufo::galaxy::already_exists",
            Self::Started { .. } => "ufo::galaxy::started",
            Self::NothingToUpdate { .. } => "ufo::galaxy::nothing_to_update",
            Self::Invalid(i) => i.code(),
            Self::NothingToUndo => "ufo::galaxy::nothing_to_undo",
            Self::UndoConflict { .. } => "ufo::galaxy::undo_conflict",
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            Self::UnknownFunction { .. } => "send each edit as {\"function\": <one of the functions>, \"arguments\": {...}}".into(),
            Self::BadArguments { .. } => "give the function's required arguments with their types (task_id, name, description, tips as a list of texts, …)".into(),
            Self::NotFound { kind, .. } => format!("use the id of an existing {kind}; the current constellation lists them"),
            Self::AlreadyExists { kind, .. } => format!("choose a new {kind} id, or update the existing {kind} instead"),
            Self::Started { .. } => "leave started and finished tasks as they are; to redo or follow up on one, add a new task (add_task) and make the waiting tasks depend on it".into(),
            Self::NothingToUpdate { .. } => "give at least one of the fields to change besides the id".into(),
            Self::Invalid(i) => return i.help(),
            Self::NothingToUndo => "apply a batch of edits first".into(),
            Self::UndoConflict { .. } => "correct the plan with a new edit instead of undoing".into(),
        })
    }
}

/// How one command of a batch went, as UFO reports each action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutcomeStatus {
    /// Applied.
    Success,
    /// Refused; the batch stopped there.
    Failure,
    /// Not tried, because an earlier command failed.
    Skipped,
}

impl OutcomeStatus {
    /// UFO's spelling (`success`, `failure`, `skipped`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Failure => "failure",
            Self::Skipped => "skipped",
        }
    }
}

/// One command's outcome within a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The command's function.
    pub function: String,
    /// How it went.
    pub status: OutcomeStatus,
    /// Why it failed, or UFO's text for a skipped one.
    pub error: Option<String>,
}

/// UFO's error text for the commands after a failure.
pub const SKIPPED: &str = "Skipped due to previous failure (early_exit=True).";

/// A batch stopped at a command that was refused. The commands before it
/// stayed applied ([`crate::edit::Editor::undo`] reverts the batch); the
/// ones after it were skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchError {
    /// Which command failed (0-based).
    pub index: usize,
    /// Its function.
    pub function: String,
    /// Why.
    pub error: EditError,
    /// Every command's outcome, in order.
    pub outcomes: Vec<Outcome>,
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&batch_message(self))
    }
}

impl std::error::Error for BatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// UFO's prefix (`Failed to add task: …`), then where in the batch.
fn batch_message(b: &BatchError) -> String {
    let total = b.outcomes.len();
    let mut text = format!(
        "Failed to {}: {} (edit {} of {total}",
        b.function.replace('_', " "),
        b.error,
        b.index + 1
    );
    match b.index {
        0 => {}
        1 => text.push_str("; the edit before it stayed applied"),
        n => text.push_str(&format!("; the {n} edits before it stayed applied")),
    }
    match total.saturating_sub(b.index + 1) {
        0 => {}
        1 => text.push_str("; the edit after it was skipped"),
        n => text.push_str(&format!("; the {n} edits after it were skipped")),
    }
    text.push(')');
    text
}

impl Diagnostic for BatchError {
    fn code(&self) -> &'static str {
        self.error.code()
    }

    fn help(&self) -> Option<String> {
        let skipped = if self.index + 1 < self.outcomes.len() {
            " Then send again the edits that were skipped."
        } else {
            ""
        };
        Some(format!(
            "{}.{skipped}",
            self.error
                .help()
                .unwrap_or_else(|| "correct the edit".into())
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(function: &str, status: OutcomeStatus) -> Outcome {
        Outcome {
            function: function.into(),
            status,
            error: None,
        }
    }

    #[test]
    fn a_batch_error_says_which_edit_failed_and_what_was_skipped() {
        let e = BatchError {
            index: 1,
            function: "update_task".into(),
            error: EditError::Started {
                kind: ItemKind::Task,
                id: "t1".into(),
                task_id: "t1".into(),
                status: TaskStatus::Running,
            },
            outcomes: vec![
                outcome("add_task", OutcomeStatus::Success),
                outcome("update_task", OutcomeStatus::Failure),
                outcome("remove_task", OutcomeStatus::Skipped),
                outcome("add_dependency", OutcomeStatus::Skipped),
            ],
        };
        assert_eq!(
            e.to_string(),
            "Failed to update task: task \"t1\" is running; only tasks that have not started (pending) can be edited (edit 2 of 4; the edit before it stayed applied; the 2 edits after it were skipped)"
        );
        assert_eq!(e.code(), "ufo::galaxy::started");
        assert!(
            e.help()
                .unwrap()
                .ends_with("Then send again the edits that were skipped.")
        );
    }

    #[test]
    fn a_dependency_into_a_started_task_says_so() {
        let e = EditError::Started {
            kind: ItemKind::Dependency,
            id: "l1".into(),
            task_id: "t2".into(),
            status: TaskStatus::Completed,
        };
        assert!(
            e.to_string()
                .starts_with("dependency \"l1\" leads to task \"t2\", which is completed")
        );
        let e = EditError::AlreadyExists {
            kind: ItemKind::Task,
            id: "t1".into(),
        };
        assert_eq!(e.to_string(), "task with ID t1 already exists");
    }
}
