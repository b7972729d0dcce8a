//! What the ConstellationAgent's model sees (brief §2.2): the creation and
//! editing templates (`prompts/constellation/*.yaml`, built in), the
//! device list and the constellation as text, and the examples.

use crate::error::AgentError;
use crate::prompter::{Template, field, numbered_examples, render};
use serde_json::{Map, Value};
use std::fmt::Write as _;
use ufo_galaxy::{TaskConstellation, TaskStar};

/// Built-in creation template (`prompts/constellation/creation.yaml`).
pub const CREATION: &str = include_str!("../../../../prompts/constellation/creation.yaml");
/// Built-in editing template (`prompts/constellation/editing.yaml`).
pub const EDITING: &str = include_str!("../../../../prompts/constellation/editing.yaml");
/// Built-in examples (`prompts/constellation/examples.yaml`): `creation`
/// and `editing` sections of `example1…` entries with `Request`,
/// `Device-Info` and `Response`.
pub const EXAMPLES: &str = include_str!("../../../../prompts/constellation/examples.yaml");

/// The most characters of one task's result shown to the model.
pub const MAX_RESULT_CHARS: usize = 2000;

/// The ConstellationAgent's templates.
#[derive(Debug, Clone)]
pub struct ConstellationPrompts {
    /// Creation: `system` (`{examples}`), `user` (`{request}`,
    /// `{device_info}`), `retry` (`{error}`), `refused` (`{error}`).
    pub creation: Template,
    /// Editing: `system` (`{apis}`, `{examples}`), `user` (`{request}`,
    /// `{ended}`, `{feedback}`, `{constellation}`, `{device_info}`),
    /// `apis`, `retry`.
    pub editing: Template,
    /// The examples.
    pub examples: Template,
}

impl ConstellationPrompts {
    /// The built-in templates.
    pub fn builtin() -> Result<Self, AgentError> {
        Ok(Self {
            creation: Template::parse("built-in:constellation/creation.yaml", CREATION)?,
            editing: Template::parse("built-in:constellation/editing.yaml", EDITING)?,
            examples: Template::parse("built-in:constellation/examples.yaml", EXAMPLES)?,
        })
    }

    /// The creation prompt: `(system, user)`.
    pub fn creation(
        &self,
        request: &str,
        device_info: &str,
    ) -> Result<(String, String), AgentError> {
        let system = render(
            self.creation.get("system")?,
            &[("examples", &examples(&self.examples, "creation"))],
        );
        let user = render(
            self.creation.get("user")?,
            &[("request", request), ("device_info", device_info)],
        );
        Ok((system, user))
    }

    /// The editing prompt: `(system, user)`.
    pub fn editing(&self, vars: &EditingVars<'_>) -> Result<(String, String), AgentError> {
        let system = render(
            self.editing.get("system")?,
            &[
                ("apis", self.editing.opt("apis").unwrap_or_default()),
                ("examples", &examples(&self.examples, "editing")),
            ],
        );
        let ended = if vars.ended.is_empty() {
            "(none)".to_owned()
        } else {
            vars.ended.join(", ")
        };
        let user = render(
            self.editing.get("user")?,
            &[
                ("request", vars.request),
                ("ended", &ended),
                ("feedback", vars.feedback),
                ("constellation", &format_constellation(vars.constellation)),
                ("device_info", vars.device_info),
            ],
        );
        Ok((system, user))
    }
}

/// The variables of one editing prompt.
#[derive(Debug, Clone, Copy)]
pub struct EditingVars<'a> {
    /// The user's request.
    pub request: &'a str,
    /// The tasks that ended since the last turn.
    pub ended: &'a [String],
    /// How the model's last edits went (or that there were none).
    pub feedback: &'a str,
    /// The constellation now.
    pub constellation: &'a TaskConstellation,
    /// [`format_devices`] of the devices.
    pub device_info: &'a str,
}

/// A device as the model is told about it (UFO's agent profile).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceProfile {
    /// The id tasks name in `target_device_id`.
    pub device_id: String,
    /// Its OS (`None`: "Unknown").
    pub os: Option<String>,
    /// What it can do.
    pub capabilities: Vec<String>,
    /// Anything else known about it.
    pub metadata: Map<String, Value>,
    /// Its connection status; `disconnected` devices are not listed.
    pub status: Option<String>,
}

/// The device list (UFO's `_format_agent_profile`): one block per device
/// not `disconnected`, or `No devices available.`.
pub fn format_devices(devices: &[DeviceProfile]) -> String {
    let blocks: Vec<String> = devices
        .iter()
        .filter(|d| {
            !d.status
                .as_deref()
                .is_some_and(|s| s.eq_ignore_ascii_case("disconnected"))
        })
        .map(|d| {
            let caps = if d.capabilities.is_empty() {
                "None".to_owned()
            } else {
                d.capabilities.join(", ")
            };
            let meta: Vec<String> = d
                .metadata
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => format!("{k}: {s}"),
                    other => format!("{k}: {other}"),
                })
                .collect();
            format!(
                "Device ID: {}\nOS: {}\n  - Capabilities: {caps}\n | Metadata: {}",
                d.device_id,
                d.os.as_deref().unwrap_or("Unknown"),
                meta.join(", ")
            )
        })
        .collect();
    if blocks.is_empty() {
        return "No devices available.".into();
    }
    format!(
        "Available Device Agent Profiles:\n\n{}",
        blocks.join("\n\n")
    )
}

/// The constellation as the editing prompt shows it (after UFO's
/// `_format_constellation`, without its emoji): a header, one block per
/// task (status, device, description, tips, result cut at
/// [`MAX_RESULT_CHARS`], error, whether it may be edited), the
/// dependencies and a count of what may still change.
pub fn format_constellation(c: &TaskConstellation) -> String {
    let mut out = format!(
        "Task Constellation: {}\nStatus: {}\nTotal Tasks: {}\n\nTasks:\n",
        c.name(),
        c.state(),
        c.tasks().len()
    );
    for t in c.tasks() {
        task_block(&mut out, t);
    }
    out.push_str("Task Dependencies:\n");
    if c.dependencies().is_empty() {
        out.push_str("  (none)\n");
    }
    for l in c.dependencies() {
        let _ = write!(
            out,
            "  [{}] {} -> {} ({})",
            l.line_id, l.from_task_id, l.to_task_id, l.dependency_type
        );
        if !l.condition_description.is_empty() {
            let _ = write!(out, " - {}", l.condition_description);
        }
        out.push('\n');
    }
    let modifiable = c.modifiable_tasks().count();
    let _ = write!(
        out,
        "\nModification Summary: {modifiable} of {} tasks can be modified. Only pending and waiting_dependency tasks (and dependencies into them) can change.",
        c.tasks().len()
    );
    out
}

fn task_block(out: &mut String, t: &TaskStar) {
    let mark = if t.status.is_not_started() {
        "[MODIFIABLE]"
    } else {
        "[READ-ONLY]"
    };
    let _ = writeln!(out, "  [{}] {} {mark}", t.task_id, t.name);
    let _ = writeln!(out, "    Status: {}", t.status);
    let _ = writeln!(out, "    Device: {}", t.device().unwrap_or("(none)"));
    if !t.description.is_empty() {
        let _ = writeln!(out, "    Description: {}", t.description);
    }
    if !t.tips.is_empty() {
        out.push_str("    Tips:\n");
        for tip in &t.tips {
            let _ = writeln!(out, "      - {tip}");
        }
    }
    if !t.result.is_null() {
        let _ = writeln!(out, "    Result: {}", cut(&t.result.to_string()));
    }
    if let Some(e) = &t.error {
        let _ = writeln!(out, "    Error: {e}");
    }
    out.push('\n');
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_RESULT_CHARS) {
        None => text.to_owned(),
        Some((i, _)) => format!(
            "{}… [{} characters in all]",
            &text[..i],
            text.chars().count()
        ),
    }
}

/// The `section`'s examples in UFO's layout: a header, then `[Example
/// i:]` blocks with the request, the device info and the response as
/// JSON. Empty without examples.
pub fn examples(examples: &Template, section: &str) -> String {
    let entries = examples
        .value
        .get(section)
        .map(numbered_examples)
        .unwrap_or_default();
    if entries.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n<## Response Examples:>\n");
    for (i, v) in entries.iter().enumerate() {
        let _ = write!(
            out,
            "[Example {}:]\n[User Request]: {}\n[Device Info]: {}\n[Response]: {}\n",
            i + 1,
            field(v, "Request"),
            field(v, "Device-Info"),
            v.get("Response").map(Value::to_string).unwrap_or_default()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn devices_are_listed_as_ufo_lists_them() {
        let mut meta = Map::new();
        meta.insert("region".into(), json!("eu"));
        let devices = [
            DeviceProfile {
                device_id: "win-1".into(),
                os: Some("windows".into()),
                capabilities: vec!["excel".into(), "outlook".into()],
                metadata: meta,
                status: Some("connected".into()),
            },
            DeviceProfile {
                device_id: "gone".into(),
                status: Some("disconnected".into()),
                ..DeviceProfile::default()
            },
        ];
        assert_eq!(
            format_devices(&devices),
            "Available Device Agent Profiles:\n\nDevice ID: win-1\nOS: windows\n  - Capabilities: excel, outlook\n | Metadata: region: eu"
        );
        assert_eq!(format_devices(&devices[1..]), "No devices available.");
    }

    #[test]
    fn the_prompts_fill_every_variable() {
        let p = ConstellationPrompts::builtin().unwrap();
        let (system, user) = p.creation("Do it", "No devices available.").unwrap();
        assert!(system.contains("[Example 1:]") && system.contains("\"task_id\":\"count\""));
        assert!(user.contains("<User Request:> Do it"));
        let c = TaskConstellation::from_value(&json!({"tasks": [
            {"task_id": "a", "name": "A", "description": "x", "target_device_id": "d", "tips": ["t1"]}]}))
        .unwrap();
        let (system, user) = p
            .editing(&EditingVars {
                request: "Do it",
                ended: &["a".to_owned()],
                feedback: "none",
                constellation: &c,
                device_info: "No devices available.",
            })
            .unwrap();
        assert!(
            system.contains("add_dependency(dependency_id")
                && system.contains("\"function\":\"add_task\"")
        );
        assert!(user.contains("  [a] A [MODIFIABLE]\n    Status: pending\n    Device: d\n    Description: x\n    Tips:\n      - t1\n"), "{user}");
        for s in [&system, &user] {
            assert!(
                !s.contains("{request}") && !s.contains("{examples}") && !s.contains("{apis}"),
                "{s}"
            );
        }
    }
}
