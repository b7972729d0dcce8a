//! What can make a constellation invalid, one variant per problem, each
//! with a stable code and a help line written for the model that has to
//! fix the plan.

use crate::model::DeviceType;
use std::fmt;
use ufo_core::Diagnostic;

/// Which end of a dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnd {
    /// `from_task_id`, the prerequisite.
    From,
    /// `to_task_id`, the task that waits.
    To,
}

impl fmt::Display for LineEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::From => "from_task_id",
            Self::To => "to_task_id",
        })
    }
}

/// One problem of a constellation.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValidationError {
    /// Dependencies that lead back to where they start: none of these
    /// tasks could ever start.
    #[error("the dependencies form a cycle: {} (dependencies {})", cycle.join(" → "), lines.join(", "))]
    Cycle {
        /// The tasks in order, the first repeated at the end.
        cycle: Vec<String>,
        /// The dependencies along it, in the same order.
        lines: Vec<String>,
    },
    /// A dependency names a task the constellation does not have.
    #[error(
        "dependency {line_id:?} has {end} {task_id:?}, which is not a task of the constellation"
    )]
    MissingTask {
        /// The dependency.
        line_id: String,
        /// Which end names the missing task.
        end: LineEnd,
        /// The id it names.
        task_id: String,
    },
    /// Several tasks share an id.
    #[error("task id {task_id:?} is used by {count} tasks")]
    DuplicateTask {
        /// The id.
        task_id: String,
        /// How many tasks use it.
        count: usize,
    },
    /// Several dependencies share an id.
    #[error("dependency id {line_id:?} is used by {count} dependencies")]
    DuplicateDependency {
        /// The id.
        line_id: String,
        /// How many dependencies use it.
        count: usize,
    },
    /// A task that has not started names no device.
    #[error("task {task_id:?} has no target_device_id (known devices: {})", known.join(", "))]
    Unassigned {
        /// The task.
        task_id: String,
        /// The known devices, as `id (type)`.
        known: Vec<String>,
    },
    /// A task that has not started names a device nobody knows.
    #[error("task {task_id:?} has target_device_id {device_id:?}, which is not a known device (known devices: {})", known.join(", "))]
    UnknownDevice {
        /// The task.
        task_id: String,
        /// The device it names.
        device_id: String,
        /// The known devices, as `id (type)`.
        known: Vec<String>,
    },
    /// A task that has not started wants a kind of device no known device
    /// is.
    #[error("task {task_id:?} has device_type {device_type}, and no known device is one (known devices: {})", known.join(", "))]
    NoDeviceOfType {
        /// The task.
        task_id: String,
        /// The kind it wants.
        device_type: DeviceType,
        /// The known devices, as `id (type)`.
        known: Vec<String>,
    },
    /// A task that has not started wants one kind of device and names a
    /// device of another.
    #[error(
        "task {task_id:?} has device_type {wanted}, but its target device {device_id:?} is {actual}"
    )]
    DeviceTypeMismatch {
        /// The task.
        task_id: String,
        /// The device it names.
        device_id: String,
        /// The kind it wants.
        wanted: DeviceType,
        /// The kind the device is.
        actual: DeviceType,
    },
}

impl Diagnostic for ValidationError {
    fn code(&self) -> &'static str {
        match self {
            Self::Cycle { .. } => "ufo::galaxy::cycle",
            Self::MissingTask { .. } => "ufo::galaxy::missing_task",
            Self::DuplicateTask { .. } => "ufo::galaxy::duplicate_task",
            Self::DuplicateDependency { .. } => "ufo::galaxy::duplicate_dependency",
            Self::Unassigned { .. } => "ufo::galaxy::unassigned",
            Self::UnknownDevice { .. } => "ufo::galaxy::unknown_device",
            Self::NoDeviceOfType { .. } => "ufo::galaxy::no_device_of_type",
            Self::DeviceTypeMismatch { .. } => "ufo::galaxy::device_type_mismatch",
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            Self::Cycle { .. } => "remove or reverse one dependency of the cycle (remove_dependency), so that some task in it can start first".into(),
            Self::MissingTask { .. } => "add the task first (add_task), or make the dependency name an existing task id".into(),
            Self::DuplicateTask { .. } => "give every task its own task_id".into(),
            Self::DuplicateDependency { .. } => "give every dependency its own line_id".into(),
            Self::Unassigned { .. } | Self::UnknownDevice { .. } => "set target_device_id to one of the known devices (update_task)".into(),
            Self::NoDeviceOfType { .. } => "use a device type that one of the known devices has, or leave device_type unset".into(),
            Self::DeviceTypeMismatch { .. } => "assign a device of the wanted type, or correct device_type".into(),
        })
    }
}

/// Every problem found in a constellation, at least one.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    /// The problems, in the order [`crate::validate::problems`] finds them.
    pub errors: Vec<ValidationError>,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.errors.as_slice() {
            [one] => write!(f, "the constellation is not valid: {one}"),
            many => {
                write!(
                    f,
                    "the constellation is not valid ({} problems):",
                    many.len()
                )?;
                for e in many {
                    write!(f, "\n  - {e}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for Invalid {}

impl Diagnostic for Invalid {
    fn code(&self) -> &'static str {
        match self.errors.as_slice() {
            [one] => one.code(),
            _ => "ufo::galaxy::invalid",
        }
    }

    fn help(&self) -> Option<String> {
        let mut helps: Vec<String> = Vec::new();
        for h in self.errors.iter().filter_map(Diagnostic::help) {
            if !helps.contains(&h) {
                helps.push(h);
            }
        }
        Some(helps.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_problem_reads_as_itself_and_several_as_a_list() {
        let cycle = ValidationError::Cycle {
            cycle: vec!["a".into(), "b".into(), "a".into()],
            lines: vec!["l1".into(), "l2".into()],
        };
        let one = Invalid {
            errors: vec![cycle.clone()],
        };
        assert_eq!(
            one.to_string(),
            "the constellation is not valid: the dependencies form a cycle: a → b → a (dependencies l1, l2)"
        );
        assert_eq!(one.code(), "ufo::galaxy::cycle");
        let dup = ValidationError::DuplicateTask {
            task_id: "a".into(),
            count: 2,
        };
        let two = Invalid {
            errors: vec![cycle, dup],
        };
        assert_eq!(
            two.to_string(),
            "the constellation is not valid (2 problems):\n  - the dependencies form a cycle: a → b → a (dependencies l1, l2)\n  - task id \"a\" is used by 2 tasks"
        );
        assert_eq!(two.code(), "ufo::galaxy::invalid");
        assert!(
            two.help()
                .unwrap()
                .contains("; give every task its own task_id")
        );
    }
}
