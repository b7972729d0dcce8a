//! The edit commands, with UFO's names and arguments (its
//! "ConstellationEditor" tools), read from the model's
//! `{"function": …, "arguments": {…}}` actions.
//!
//! Two extensions, both optional: `add_dependency` and `update_dependency`
//! take a `dependency_type` (UFO's always create `unconditional`, which
//! would make the types of [`crate::ready`] unreachable by an edit), and
//! `update_dependency` needs only one of `condition_description` and
//! `dependency_type`. Arguments a function does not know are ignored; a
//! `tips` given as one text is a list of one, as in UFO.

use crate::edit::error::EditError;
use crate::model::{DependencyType, TaskConstellation};
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// One action of a model's reply: `{"function": "add_task", "arguments":
/// {…}}`, not yet checked.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
pub struct Action {
    /// The editor function; an empty one is dropped, as UFO drops it.
    #[serde(default)]
    pub function: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Value,
}

/// `add_task`: a new `pending` task.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct AddTask {
    /// Its id, new to the constellation.
    pub task_id: String,
    /// Its name.
    pub name: String,
    /// What the device is asked to do.
    pub description: String,
    /// The device that runs it.
    #[serde(default)]
    pub target_device_id: Option<String>,
    /// Hints sent with the description.
    #[serde(default, deserialize_with = "opt_tips")]
    pub tips: Option<Vec<String>>,
}

/// `remove_task`: a task that has not started, and every dependency
/// touching it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RemoveTask {
    /// The task.
    pub task_id: String,
}

/// `update_task`: the fields given (at least one), of a task that has not
/// started.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct UpdateTask {
    /// The task.
    pub task_id: String,
    /// A new name.
    #[serde(default)]
    pub name: Option<String>,
    /// A new description.
    #[serde(default)]
    pub description: Option<String>,
    /// A new device.
    #[serde(default)]
    pub target_device_id: Option<String>,
    /// New tips (replacing the old ones).
    #[serde(default, deserialize_with = "opt_tips")]
    pub tips: Option<Vec<String>>,
}

/// `add_dependency`: `from_task_id` must end before `to_task_id` (which
/// has not started) may start.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct AddDependency {
    /// Its id (the line's `line_id`), new to the constellation.
    pub dependency_id: String,
    /// The prerequisite.
    pub from_task_id: String,
    /// The task that waits.
    pub to_task_id: String,
    /// What must hold (free text).
    #[serde(default)]
    pub condition_description: Option<String>,
    /// Its type (an extension; `unconditional` when not given, as UFO's).
    #[serde(default, deserialize_with = "opt_dependency_type")]
    pub dependency_type: Option<DependencyType>,
}

/// `remove_dependency`: a dependency into a task that has not started.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RemoveDependency {
    /// The dependency.
    pub dependency_id: String,
}

/// `update_dependency`: the condition and/or (an extension) the type of a
/// dependency into a task that has not started.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct UpdateDependency {
    /// The dependency.
    pub dependency_id: String,
    /// A new condition.
    #[serde(default)]
    pub condition_description: Option<String>,
    /// A new type.
    #[serde(default, deserialize_with = "opt_dependency_type")]
    pub dependency_type: Option<DependencyType>,
}

/// `build_constellation`: the whole constellation from `config` (either of
/// UFO's shapes, or that JSON as text). With `clear_existing` (the
/// default) it replaces the current one; without, its tasks and
/// dependencies are added to it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct BuildConstellation {
    /// The constellation.
    #[serde(deserialize_with = "config")]
    pub config: TaskConstellation,
    /// Replace (true) or add to (false) the current constellation.
    #[serde(default = "yes")]
    pub clear_existing: bool,
}

fn yes() -> bool {
    true
}

/// One edit, checked: a function with its typed arguments.
#[derive(Debug, Clone, PartialEq)]
pub enum EditCommand {
    /// `add_task`.
    AddTask(AddTask),
    /// `remove_task`.
    RemoveTask(RemoveTask),
    /// `update_task`.
    UpdateTask(UpdateTask),
    /// `add_dependency`.
    AddDependency(AddDependency),
    /// `remove_dependency`.
    RemoveDependency(RemoveDependency),
    /// `update_dependency`.
    UpdateDependency(UpdateDependency),
    /// `build_constellation` (the agent's own; UFO hides it from the model).
    BuildConstellation(Box<BuildConstellation>),
}

impl EditCommand {
    /// Reads `arguments` for `function`; `null` arguments are `{}`.
    pub fn parse(function: &str, arguments: &Value) -> Result<Self, EditError> {
        let function = function.trim();
        Ok(match function {
            "add_task" => Self::AddTask(args(function, arguments)?),
            "remove_task" => Self::RemoveTask(args(function, arguments)?),
            "update_task" => Self::UpdateTask(args(function, arguments)?),
            "add_dependency" => Self::AddDependency(args(function, arguments)?),
            "remove_dependency" => Self::RemoveDependency(args(function, arguments)?),
            "update_dependency" => Self::UpdateDependency(args(function, arguments)?),
            "build_constellation" => Self::BuildConstellation(Box::new(args(function, arguments)?)),
            other => {
                return Err(EditError::UnknownFunction {
                    function: other.to_owned(),
                });
            }
        })
    }

    /// Reads one of the model's actions.
    pub fn from_action(action: &Action) -> Result<Self, EditError> {
        Self::parse(&action.function, &action.arguments)
    }

    /// Its function's name (`add_task`, …).
    pub fn function(&self) -> &'static str {
        match self {
            Self::AddTask(_) => "add_task",
            Self::RemoveTask(_) => "remove_task",
            Self::UpdateTask(_) => "update_task",
            Self::AddDependency(_) => "add_dependency",
            Self::RemoveDependency(_) => "remove_dependency",
            Self::UpdateDependency(_) => "update_dependency",
            Self::BuildConstellation(_) => "build_constellation",
        }
    }

    /// The action it was read from, for logs (`{function, arguments}`).
    pub fn to_action(&self) -> Action {
        let arguments = match self {
            Self::AddTask(a) => serde_json::to_value(a),
            Self::RemoveTask(a) => serde_json::to_value(a),
            Self::UpdateTask(a) => serde_json::to_value(a),
            Self::AddDependency(a) => serde_json::to_value(a),
            Self::RemoveDependency(a) => serde_json::to_value(a),
            Self::UpdateDependency(a) => serde_json::to_value(a),
            Self::BuildConstellation(a) => serde_json::to_value(a),
        };
        Action {
            function: self.function().to_owned(),
            arguments: arguments.unwrap_or_default(),
        }
    }
}

fn args<T: DeserializeOwned>(function: &str, arguments: &Value) -> Result<T, EditError> {
    let empty = Value::Object(Map::new());
    let v = if arguments.is_null() {
        &empty
    } else {
        arguments
    };
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        EditError::BadArguments {
            function: function.to_owned(),
            message: if path == "." {
                inner
            } else {
                format!("{path}: {inner}")
            },
        }
    })
}

/// `tips`: a list of texts, one text, or `null` (not given).
fn opt_tips<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Null => None,
        Value::String(s) => Some(vec![s]),
        Value::Array(items) => Some(
            items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => s,
                    other => other.to_string(),
                })
                .collect(),
        ),
        other => {
            return Err(D::Error::custom(format!(
                "tips is {other}; expected a list of texts"
            )));
        }
    })
}

/// A dependency type given in an edit: a known spelling or an error (a
/// silent `unconditional` would hide the model's mistake).
fn opt_dependency_type<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<DependencyType>, D::Error> {
    match Option::<String>::deserialize(d)? {
        None => Ok(None),
        Some(s) => DependencyType::parse(&s).map(Some).ok_or_else(|| {
            D::Error::custom(format!(
                "unknown dependency_type {s:?}; use one of {}",
                DependencyType::spellings()
            ))
        }),
    }
}

/// `config`: a constellation as JSON, or as text holding that JSON.
fn config<'de, D: Deserializer<'de>>(d: D) -> Result<TaskConstellation, D::Error> {
    match Value::deserialize(d)? {
        Value::String(text) => TaskConstellation::from_json(&text).map_err(D::Error::custom),
        v => TaskConstellation::from_value(&v).map_err(D::Error::custom),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn actions_read_into_typed_commands() {
        let cmd = EditCommand::parse(
            "add_task",
            &json!({"task_id": "t9", "name": "N", "description": "D", "tips": "one", "extra": 1}),
        )
        .unwrap();
        assert_eq!(
            cmd,
            EditCommand::AddTask(AddTask {
                task_id: "t9".into(),
                name: "N".into(),
                description: "D".into(),
                target_device_id: None,
                tips: Some(vec!["one".into()]),
            })
        );
        assert_eq!(cmd.function(), "add_task");
        assert_eq!(cmd.to_action().arguments["tips"], json!(["one"]));
    }

    #[test]
    fn bad_arguments_and_functions_are_named() {
        let e = EditCommand::parse("add_task", &json!({"task_id": "t9", "name": "N"})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad arguments for add_task: missing field `description`"
        );
        let e = EditCommand::parse("remove_task", &json!(null)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad arguments for remove_task: missing field `task_id`"
        );
        let e = EditCommand::parse(
            "add_dependency",
            &json!({"dependency_id": "d", "from_task_id": "a",
            "to_task_id": "b", "dependency_type": "sometimes"}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("dependency_type: unknown dependency_type \"sometimes\"; use one of unconditional, conditional, success_only, completion_only"), "{e}");
        let e = EditCommand::parse("delete_everything", &json!({})).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "unknown edit function \"delete_everything\"; the functions are add_task, "
            ),
            "{e}"
        );
    }

    #[test]
    fn build_takes_a_constellation_or_its_text() {
        let cmd = EditCommand::from_action(&Action {
            function: "build_constellation".into(),
            arguments: json!({"config": "{\"constellation_id\": \"c\", \"tasks\": [{\"task_id\": \"a\", \"description\": \"x\"}]}"}),
        })
        .unwrap();
        let EditCommand::BuildConstellation(b) = cmd else {
            panic!("not a build")
        };
        assert!(b.clear_existing);
        assert_eq!(b.config.tasks().len(), 1);
        let e = EditCommand::parse(
            "build_constellation",
            &json!({"config": {"tasks": [{"name": "no description"}]}}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("missing field `description`"), "{e}");
    }
}
