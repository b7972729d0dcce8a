//! Whether a constellation is a plan that can run: a DAG with unique ids
//! and no dangling dependency, and — given the known devices — every task
//! that has yet to run assigned to one of them.
//!
//! Every problem is its own [`ValidationError`] variant, with a message
//! that names the tasks, dependencies and devices involved, so it can go
//! back to the model as it is; [`problems`] returns all of them at once.
//!
//! Compared with UFO:
//! * UFO's `validate_dag` says only "DAG contains cycles"; here each cycle
//!   is named, with its dependencies (`a → b → a (dependencies l1, l2)`).
//! * Duplicate ids are found (UFO's "duplicate task_id" check cannot fire:
//!   its reader lets the later entry win).
//! * Devices are checked here, where UFO's orchestrator checks them at each
//!   scheduling pass and, when one is wrong, stops without telling the
//!   agent (its hang, brief §7.2). Only tasks that have not started are
//!   checked: the ones still to be sent. As in UFO, every registered device
//!   counts, connected or not.

mod cycles;
mod error;

pub use error::{Invalid, LineEnd, ValidationError};

use crate::model::{DeviceType, TaskConstellation};

/// A device a task may be sent to: its `device_id` and, when known, its
/// kind (from its `os` in `devices.yaml` or its reported platform).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownDevice {
    /// The id tasks name in `target_device_id`.
    pub device_id: String,
    /// Its kind, if known.
    pub device_type: Option<DeviceType>,
}

impl KnownDevice {
    /// Device `device_id` of kind `device_type`.
    pub fn new(device_id: impl Into<String>, device_type: Option<DeviceType>) -> Self {
        Self {
            device_id: device_id.into(),
            device_type,
        }
    }

    /// Device `device_id` whose `os` is `os` (`linux`, `Windows`, `Darwin`,
    /// …; an unknown one gives no kind).
    pub fn with_os(device_id: impl Into<String>, os: &str) -> Self {
        Self::new(device_id, DeviceType::parse(os))
    }

    fn shown(&self) -> String {
        match self.device_type {
            Some(t) => format!("{} ({t})", self.device_id),
            None => self.device_id.clone(),
        }
    }
}

/// Checks the structure only (ids, ends, cycles).
pub fn validate(c: &TaskConstellation) -> Result<(), Invalid> {
    into_result(problems(c, None))
}

/// Checks the structure and the devices of the tasks that have not
/// started against `devices`.
pub fn validate_with_devices(
    c: &TaskConstellation,
    devices: &[KnownDevice],
) -> Result<(), Invalid> {
    into_result(problems(c, Some(devices)))
}

fn into_result(errors: Vec<ValidationError>) -> Result<(), Invalid> {
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Invalid { errors })
    }
}

/// Every problem of `c`: duplicate task ids, duplicate dependency ids,
/// dependencies naming missing tasks, cycles, then (with `devices`) each
/// task's device problem, in task order.
pub fn problems(c: &TaskConstellation, devices: Option<&[KnownDevice]>) -> Vec<ValidationError> {
    let mut out = duplicates(c);
    out.extend(missing_ends(c));
    out.extend(named_cycles(c));
    if let Some(devices) = devices {
        out.extend(device_problems(c, devices));
    }
    out
}

/// Each id used more than once, with how often, in first-seen order.
fn repeated<'a>(ids: impl Iterator<Item = &'a str>) -> Vec<(&'a str, usize)> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for id in ids {
        match counts.iter_mut().find(|(k, _)| *k == id) {
            Some((_, n)) => *n += 1,
            None => counts.push((id, 1)),
        }
    }
    counts.retain(|(_, n)| *n > 1);
    counts
}

fn duplicates(c: &TaskConstellation) -> Vec<ValidationError> {
    let tasks = repeated(c.tasks().iter().map(|t| t.task_id.as_str()))
        .into_iter()
        .map(|(id, count)| ValidationError::DuplicateTask {
            task_id: id.to_owned(),
            count,
        });
    let lines = repeated(c.dependencies().iter().map(|l| l.line_id.as_str()))
        .into_iter()
        .map(|(id, count)| ValidationError::DuplicateDependency {
            line_id: id.to_owned(),
            count,
        });
    tasks.chain(lines).collect()
}

fn missing_ends(c: &TaskConstellation) -> Vec<ValidationError> {
    let mut out = Vec::new();
    for l in c.dependencies() {
        for (end, id) in [
            (LineEnd::From, &l.from_task_id),
            (LineEnd::To, &l.to_task_id),
        ] {
            if c.task(id).is_none() {
                out.push(ValidationError::MissingTask {
                    line_id: l.line_id.clone(),
                    end,
                    task_id: id.clone(),
                });
            }
        }
    }
    out
}

fn named_cycles(c: &TaskConstellation) -> Vec<ValidationError> {
    let mut ids: Vec<&str> = Vec::new();
    for t in c.tasks() {
        if !ids.contains(&t.task_id.as_str()) {
            ids.push(&t.task_id);
        }
    }
    let index = |id: &str| ids.iter().position(|x| *x == id);
    let mut adj = vec![Vec::new(); ids.len()];
    for l in c.dependencies() {
        if let (Some(a), Some(b)) = (index(&l.from_task_id), index(&l.to_task_id)) {
            adj[a].push(b);
        }
    }
    cycles::cycles(&adj)
        .into_iter()
        .map(|cycle| {
            let names: Vec<String> = cycle.iter().map(|&i| ids[i].to_owned()).collect();
            let lines = names
                .windows(2)
                .filter_map(|w| {
                    c.dependencies()
                        .iter()
                        .find(|l| l.from_task_id == w[0] && l.to_task_id == w[1])
                        .map(|l| l.line_id.clone())
                })
                .collect();
            ValidationError::Cycle {
                cycle: names,
                lines,
            }
        })
        .collect()
}

fn device_problems(c: &TaskConstellation, devices: &[KnownDevice]) -> Vec<ValidationError> {
    let known = || devices.iter().map(KnownDevice::shown).collect::<Vec<_>>();
    let mut out = Vec::new();
    for t in c.modifiable_tasks() {
        let task_id = t.task_id.clone();
        let device = t
            .device()
            .map(|id| (id, devices.iter().find(|d| d.device_id == id)));
        match device {
            None => out.push(ValidationError::Unassigned {
                task_id,
                known: known(),
            }),
            Some((id, None)) => out.push(ValidationError::UnknownDevice {
                task_id,
                device_id: id.to_owned(),
                known: known(),
            }),
            Some((id, Some(d))) => match (t.device_type, d.device_type) {
                (Some(wanted), Some(actual)) if wanted != actual => {
                    out.push(ValidationError::DeviceTypeMismatch {
                        task_id,
                        device_id: id.to_owned(),
                        wanted,
                        actual,
                    });
                }
                _ => {}
            },
        }
    }
    for t in c.modifiable_tasks() {
        if let Some(wanted) = t.device_type
            && !devices.iter().any(|d| d.device_type == Some(wanted))
        {
            out.push(ValidationError::NoDeviceOfType {
                task_id: t.task_id.clone(),
                device_type: wanted,
                known: known(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use ufo_core::Diagnostic;

    fn read(v: serde_json::Value) -> TaskConstellation {
        TaskConstellation::from_value(&v).unwrap()
    }

    fn task(id: &str, device: &str) -> serde_json::Value {
        json!({"task_id": id, "description": id, "target_device_id": device})
    }

    #[test]
    fn a_sound_plan_passes() {
        let c = read(json!({"tasks": [task("a", "pc"), task("b", "pc")],
            "dependencies": [{"line_id": "l1", "from_task_id": "a", "to_task_id": "b"}]}));
        assert_eq!(validate(&c), Ok(()));
        assert_eq!(
            validate_with_devices(&c, &[KnownDevice::with_os("pc", "linux")]),
            Ok(())
        );
    }

    #[test]
    fn a_cycle_is_named_with_its_dependencies() {
        let c = read(
            json!({"tasks": [task("a", "pc"), task("b", "pc"), task("c", "pc")],
            "dependencies": [
                {"line_id": "l1", "from_task_id": "a", "to_task_id": "b"},
                {"line_id": "l2", "from_task_id": "b", "to_task_id": "c"},
                {"line_id": "l3", "from_task_id": "c", "to_task_id": "a"},
                {"line_id": "self", "from_task_id": "c", "to_task_id": "c"}]}),
        );
        let errors = validate(&c).unwrap_err().errors;
        assert_eq!(
            errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "the dependencies form a cycle: a → b → c → a (dependencies l1, l2, l3)",
                "the dependencies form a cycle: c → c (dependencies self)",
            ]
        );
    }

    #[test]
    fn missing_ends_and_duplicates_are_each_reported() {
        let c = read(json!({"tasks": [task("a", "pc"), task("a", "pc")],
            "dependencies": [
                {"line_id": "l1", "from_task_id": "ghost", "to_task_id": "a"},
                {"line_id": "l1", "from_task_id": "a", "to_task_id": "nowhere"}]}));
        let codes: Vec<_> = problems(&c, None).iter().map(|e| e.code()).collect();
        assert_eq!(
            codes,
            [
                "ufo::galaxy::duplicate_task",
                "ufo::galaxy::duplicate_dependency",
                "ufo::galaxy::missing_task",
                "ufo::galaxy::missing_task"
            ]
        );
        let text = validate(&c).unwrap_err().to_string();
        assert!(text.contains("dependency \"l1\" has from_task_id \"ghost\", which is not a task of the constellation"), "{text}");
        assert!(text.contains("to_task_id \"nowhere\""), "{text}");
    }

    #[test]
    fn devices_are_checked_for_tasks_still_to_run() {
        let mut done = task("done", "gone-pc");
        done["status"] = json!("completed");
        let mut typed = task("typed", "pc");
        typed["device_type"] = json!("windows");
        let c = read(
            json!({"tasks": [done, task("lost", "ghost"), task("none", ""), typed,
            {"task_id": "phone", "description": "p", "target_device_id": "pc", "device_type": "android"}]}),
        );
        let devices = [
            KnownDevice::with_os("pc", "Linux"),
            KnownDevice::new("mac", Some(DeviceType::Macos)),
        ];
        let errors = problems(&c, Some(&devices));
        let shown: Vec<_> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "task \"lost\" has target_device_id \"ghost\", which is not a known device (known devices: pc (linux), mac (macos))",
                "task \"none\" has no target_device_id (known devices: pc (linux), mac (macos))",
                "task \"typed\" has device_type windows, but its target device \"pc\" is linux",
                "task \"phone\" has device_type android, but its target device \"pc\" is linux",
                "task \"typed\" has device_type windows, and no known device is one (known devices: pc (linux), mac (macos))",
                "task \"phone\" has device_type android, and no known device is one (known devices: pc (linux), mac (macos))",
            ]
        );
        assert!(
            validate(&c).is_ok(),
            "without devices only the structure counts"
        );
    }
}
