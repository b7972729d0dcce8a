//! Why the orchestrator will not run a plan (or take a planner's edit),
//! each with a stable code and a help line. Nothing here is raised once
//! tasks run: a failing device fails its task, not the run.

use crate::validate::{Invalid, KnownDevice};
use ufo_core::Diagnostic;

/// Errors of the orchestrator.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OrchestrateError {
    /// The plan is not a valid DAG (a cycle, a dangling dependency, a
    /// duplicate id).
    #[error("{0}")]
    Invalid(Invalid),
    /// Tasks still to run name no device, or a device that is not
    /// registered (UFO's "Device assignment validation failed").
    #[error(
        "device assignment failed: {}; known devices: {}",
        problems(unassigned, unknown),
        names(known)
    )]
    DeviceAssignment {
        /// Tasks without a `target_device_id`.
        unassigned: Vec<String>,
        /// Tasks on an unknown device, with the id they name.
        unknown: Vec<(String, String)>,
        /// The registered devices, as `id (type)`.
        known: Vec<String>,
    },
    /// The plan given to the orchestrator has tasks already `running`:
    /// nobody would ever end them.
    #[error(
        "tasks {} are already running; the orchestrator runs only tasks it starts itself",
        quoted(task_ids)
    )]
    AlreadyRunning {
        /// The tasks.
        task_ids: Vec<String>,
    },
    /// A planner's edit disagrees with what is running: it removes a task
    /// in flight, or says a task runs that was never started.
    #[error(
        "the edit does not match the tasks running: {}",
        conflicts(removed, not_started)
    )]
    RunningConflict {
        /// Running tasks the edit removes.
        removed: Vec<String>,
        /// Tasks the edit marks `running` that the orchestrator never
        /// started.
        not_started: Vec<String>,
    },
}

fn quoted(ids: &[String]) -> String {
    ids.iter()
        .map(|i| format!("{i:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn names(known: &[String]) -> String {
    if known.is_empty() {
        "none".into()
    } else {
        known.join(", ")
    }
}

fn problems(unassigned: &[String], unknown: &[(String, String)]) -> String {
    let mut parts = Vec::new();
    if !unassigned.is_empty() {
        parts.push(format!("tasks without a device: {}", quoted(unassigned)));
    }
    if !unknown.is_empty() {
        let shown: Vec<String> = unknown
            .iter()
            .map(|(t, d)| format!("{t:?} (on {d:?})"))
            .collect();
        parts.push(format!("tasks on unknown devices: {}", shown.join(", ")));
    }
    parts.join("; ")
}

fn conflicts(removed: &[String], not_started: &[String]) -> String {
    let mut parts = Vec::new();
    if !removed.is_empty() {
        parts.push(format!("it removes running tasks {}", quoted(removed)));
    }
    if !not_started.is_empty() {
        parts.push(format!(
            "it marks {} running, which the orchestrator never started",
            quoted(not_started)
        ));
    }
    parts.join("; ")
}

impl OrchestrateError {
    /// The device problems of `devices`' tasks still to run, if any.
    pub(crate) fn check_devices(
        c: &crate::TaskConstellation,
        devices: &[KnownDevice],
    ) -> Result<(), Self> {
        let mut unassigned = Vec::new();
        let mut unknown = Vec::new();
        for t in c.modifiable_tasks() {
            match t.device() {
                None => unassigned.push(t.task_id.clone()),
                Some(d) if !devices.iter().any(|k| k.device_id == d) => {
                    unknown.push((t.task_id.clone(), d.to_owned()));
                }
                Some(_) => {}
            }
        }
        if unassigned.is_empty() && unknown.is_empty() {
            return Ok(());
        }
        let known = devices
            .iter()
            .map(|d| match d.device_type {
                Some(t) => format!("{} ({t})", d.device_id),
                None => d.device_id.clone(),
            })
            .collect();
        Err(Self::DeviceAssignment {
            unassigned,
            unknown,
            known,
        })
    }
}

impl Diagnostic for OrchestrateError {
    fn code(&self) -> &'static str {
        match self {
            Self::Invalid(i) => i.code(),
            Self::DeviceAssignment { .. } => "ufo::galaxy::device_assignment",
            Self::AlreadyRunning { .. } => "ufo::galaxy::already_running",
            Self::RunningConflict { .. } => "ufo::galaxy::running_conflict",
        }
    }

    fn help(&self) -> Option<String> {
        match self {
            Self::Invalid(i) => i.help(),
            Self::DeviceAssignment { .. } => Some("set each task's target_device_id to one of the known devices (update_task), or register the device in devices.yaml".into()),
            Self::AlreadyRunning { .. } => Some("give the orchestrator a plan whose unfinished tasks are pending (reset the running ones, or mark them ended)".into()),
            Self::RunningConflict { .. } => Some("leave running tasks in the plan as they are; edit only pending tasks, and let the orchestrator set statuses".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TaskConstellation;
    use serde_json::json;

    #[test]
    fn the_device_error_names_the_tasks_and_the_known_devices() {
        let c = TaskConstellation::from_value(&json!({"tasks": [
            {"task_id": "a", "description": "x", "target_device_id": "pc"},
            {"task_id": "b", "description": "x"},
            {"task_id": "c", "description": "x", "target_device_id": "ghost"},
            {"task_id": "d", "description": "x", "target_device_id": "ghost", "status": "completed"}]}))
        .unwrap();
        let devices = [
            KnownDevice::with_os("pc", "linux"),
            KnownDevice::new("mac", None),
        ];
        let e = OrchestrateError::check_devices(&c, &devices).unwrap_err();
        assert_eq!(
            e.to_string(),
            "device assignment failed: tasks without a device: \"b\"; tasks on unknown devices: \"c\" (on \"ghost\"); known devices: pc (linux), mac"
        );
        assert_eq!(e.code(), "ufo::galaxy::device_assignment");
        assert!(e.help().unwrap().contains("update_task"));
        let none = OrchestrateError::check_devices(&c, &[]).unwrap_err();
        assert!(none.to_string().ends_with("known devices: none"), "{none}");
    }

    #[test]
    fn conflicts_say_what_the_edit_did() {
        let e = OrchestrateError::RunningConflict {
            removed: vec!["a".into()],
            not_started: vec!["b".into()],
        };
        assert_eq!(
            e.to_string(),
            "the edit does not match the tasks running: it removes running tasks \"a\"; it marks \"b\" running, which the orchestrator never started"
        );
        assert_eq!(e.code(), "ufo::galaxy::running_conflict");
    }
}
