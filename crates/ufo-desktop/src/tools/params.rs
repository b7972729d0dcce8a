//! The typed arguments of every tool: one struct per tool, read leniently
//! (models send `"4"` for `4` and `"true"` for `true`) and documented by its
//! doc comments. The JSON schema a model is shown is derived from the same
//! struct ([`schema_of`]), and the executors receive the struct ([`parse`]).

use super::args::parse_id;
use crate::backend::MouseButton;
use crate::error::{DesktopError, Result};
use schemars::JsonSchema;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

pub mod operator;

/// A control or window label: `4`, `4.0`, `"4"` or `" #4 "`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Label(pub u32);

impl<'de> Deserialize<'de> for Label {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        parse_id(&v)
            .map(Label)
            .ok_or_else(|| D::Error::custom(format!("must be an id such as \"4\", got {v}")))
    }
}

impl JsonSchema for Label {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Label".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(g)
    }
    fn inline_schema() -> bool {
        true
    }
}

/// `true`, `"True"`, `"yes"`, `1`; `false`, `"false"`, `"no"`, `0`, `""`.
fn flag<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<bool, D::Error> {
    let v = Value::deserialize(d)?;
    match &v {
        Value::Null => Ok(false),
        Value::Bool(b) => Ok(*b),
        Value::Number(n) if n.as_f64() == Some(1.0) => Ok(true),
        Value::Number(n) if n.as_f64() == Some(0.0) => Ok(false),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" => Ok(true),
            "false" | "no" | "0" | "" => Ok(false),
            _ => Err(D::Error::custom(format!("must be true or false, got {v}"))),
        },
        _ => Err(D::Error::custom(format!("must be true or false, got {v}"))),
    }
}

fn number_of(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
    .filter(|f| f.is_finite())
}

/// A finite number; numeric strings accepted.
fn number<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    let v = Value::deserialize(d)?;
    number_of(&v).ok_or_else(|| D::Error::custom(format!("must be a number, got {v}")))
}

/// An optional finite number (`null` counts as absent).
fn opt_number<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<f64>, D::Error> {
    let v = Value::deserialize(d)?;
    match v {
        Value::Null => Ok(None),
        v => number_of(&v)
            .map(Some)
            .ok_or_else(|| D::Error::custom(format!("must be a number, got {v}"))),
    }
}

/// A string; numbers and booleans are taken as their text, `null` as empty.
fn text<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    })
}

/// An optional string (`null` counts as absent).
fn opt_text<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Null => None,
        Value::String(s) => Some(s),
        other => Some(other.to_string()),
    })
}

/// `left` (default), `right` or `middle`.
fn button<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<MouseButton, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(MouseButton::Left),
        Value::String(s) => s.parse().map_err(D::Error::custom),
        other => Err(D::Error::custom(format!(
            "must be \"left\", \"right\" or \"middle\", got {other}"
        ))),
    }
}

fn yes() -> bool {
    true
}

/// A flag whose default is true: `null` counts as absent.
fn flag_or_yes<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<bool, D::Error> {
    let v = Value::deserialize(d)?;
    match v {
        Value::Null => Ok(true),
        v => flag(v).map_err(D::Error::custom),
    }
}

fn one_second() -> f64 {
    1.0
}

/// Arguments of a tool that takes none.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct NoArgs {}

/// `get_app_window_controls_target_info`: UFO's callers name the fields they
/// want; every field is always returned.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct FieldList {
    /// The control fields wanted, e.g. ["control_text", "control_type", "control_rect"]. Omit for all.
    #[serde(default)]
    pub field_list: Option<Vec<String>>,
}

/// `click_input`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ClickInput {
    /// The control's id in the current control list, e.g. "4".
    pub id: Label,
    /// The control's name exactly as listed with that id.
    #[serde(default, deserialize_with = "opt_text")]
    #[schemars(extend("x-required" = true))]
    pub name: Option<String>,
    /// Mouse button.
    #[serde(default, deserialize_with = "button")]
    #[schemars(with = "String", extend("enum" = ["left", "right", "middle"], "default" = "left"))]
    pub button: MouseButton,
    /// Double-click instead of a single click.
    #[serde(default, deserialize_with = "flag")]
    pub double: bool,
}

/// `click_on_coordinates`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ClickOnCoordinates {
    /// Horizontal position, 0 = left edge, 1 = right edge.
    #[serde(deserialize_with = "number")]
    #[schemars(range(min = 0, max = 1))]
    pub x: f64,
    /// Vertical position, 0 = top edge, 1 = bottom edge.
    #[serde(deserialize_with = "number")]
    #[schemars(range(min = 0, max = 1))]
    pub y: f64,
    /// Mouse button.
    #[serde(default, deserialize_with = "button")]
    #[schemars(with = "String", extend("enum" = ["left", "right", "middle"], "default" = "left"))]
    pub button: MouseButton,
    /// Double-click instead of a single click.
    #[serde(default, deserialize_with = "flag")]
    pub double: bool,
}

/// `drag_on_coordinates`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct DragOnCoordinates {
    /// Start, horizontal fraction of the window.
    #[serde(deserialize_with = "number")]
    #[schemars(range(min = 0, max = 1))]
    pub start_x: f64,
    /// Start, vertical fraction of the window.
    #[serde(deserialize_with = "number")]
    #[schemars(range(min = 0, max = 1))]
    pub start_y: f64,
    /// End, horizontal fraction of the window.
    #[serde(deserialize_with = "number")]
    #[schemars(range(min = 0, max = 1))]
    pub end_x: f64,
    /// End, vertical fraction of the window.
    #[serde(deserialize_with = "number")]
    #[schemars(range(min = 0, max = 1))]
    pub end_y: f64,
    /// Mouse button.
    #[serde(default, deserialize_with = "button")]
    #[schemars(with = "String", extend("enum" = ["left", "right", "middle"], "default" = "left"))]
    pub button: MouseButton,
    /// Seconds the drag takes (0 to 10).
    #[serde(default = "one_second", deserialize_with = "number")]
    #[schemars(range(min = 0, max = 10))]
    pub duration: f64,
    /// A key held during the drag: shift, ctrl, alt or win. Omit for none.
    #[serde(default, deserialize_with = "opt_text")]
    pub key_hold: Option<String>,
}

/// `set_edit_text`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SetEditText {
    /// The control's id in the current control list, e.g. "4".
    pub id: Label,
    /// The control's name exactly as listed with that id.
    #[serde(default, deserialize_with = "opt_text")]
    #[schemars(extend("x-required" = true))]
    pub name: Option<String>,
    /// The text to enter, literally.
    #[serde(deserialize_with = "text")]
    pub text: String,
    /// Replace the current text instead of appending to it.
    #[serde(default, deserialize_with = "flag")]
    pub clear_current_text: bool,
}

/// `keyboard_input`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct KeyboardInput {
    /// The control's id in the current control list, e.g. "4".
    #[serde(default)]
    pub id: Option<Label>,
    /// The control's name exactly as listed with that id.
    #[serde(default, deserialize_with = "opt_text")]
    pub name: Option<String>,
    /// Key sequence in pywinauto syntax, e.g. "^a{DELETE}hello{ENTER}".
    #[serde(deserialize_with = "text")]
    pub keys: String,
    /// Focus the control before pressing the keys.
    #[serde(default = "yes", deserialize_with = "flag_or_yes")]
    pub control_focus: bool,
}

/// `wheel_mouse_input`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct WheelMouseInput {
    /// The control's id in the current control list, e.g. "4".
    pub id: Label,
    /// The control's name exactly as listed with that id.
    #[serde(default, deserialize_with = "opt_text")]
    #[schemars(extend("x-required" = true))]
    pub name: Option<String>,
    /// Notches to scroll; positive = up, negative = down.
    #[serde(default, deserialize_with = "number")]
    #[schemars(with = "i64", extend("x-required" = true))]
    pub wheel_dist: f64,
}

/// `texts`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Texts {
    /// The control's id in the current control list, e.g. "4".
    pub id: Label,
    /// The control's name exactly as listed with that id.
    #[serde(default, deserialize_with = "opt_text")]
    #[schemars(extend("x-required" = true))]
    pub name: Option<String>,
}

/// `wait`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Wait {
    /// Seconds to wait, 0 to 300.
    #[serde(deserialize_with = "number")]
    #[schemars(range(min = 0, max = 300))]
    pub seconds: f64,
}

/// `summary`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Summary {
    /// The answer or summary.
    #[serde(default, deserialize_with = "text")]
    #[schemars(extend("x-required" = true))]
    pub text: String,
}

/// `select_application_window`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SelectApplicationWindow {
    /// The window's id in the window list, e.g. "2".
    pub id: Label,
    /// The window's title as listed (or its application name).
    #[serde(default, deserialize_with = "opt_text")]
    #[schemars(extend("x-required" = true))]
    pub name: Option<String>,
}

/// `run_shell`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct RunShell {
    /// The program and its arguments, e.g. "mousepad" or "gedit /tmp/notes.txt".
    #[serde(deserialize_with = "text")]
    pub bash_command: String,
}

/// `close_application`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CloseApplication {
    /// The application's name, as the window list shows it (e.g. "mousepad").
    #[serde(deserialize_with = "text")]
    pub name: String,
}

/// `execute_command`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ExecuteCommand {
    /// The program and its arguments, e.g. "ls -l /tmp" or "grep -n 'total' report.txt".
    #[serde(deserialize_with = "text")]
    pub command: String,
    /// Seconds before the command is stopped (1 to 120).
    #[serde(default, deserialize_with = "opt_number")]
    #[schemars(range(min = 1, max = 120), extend("default" = 30))]
    pub timeout: Option<f64>,
    /// The directory to run in. Omit for the default.
    #[serde(default, deserialize_with = "opt_text")]
    pub cwd: Option<String>,
}

/// Reads a command's `parameters` as `T`; `null` counts as no arguments. A
/// problem names the argument: "`double`: must be true or false, got …".
pub fn parse<T: DeserializeOwned>(tool: &str, parameters: &Value) -> Result<T> {
    let value = match parameters {
        Value::Null => Value::Object(Default::default()),
        Value::Object(_) => parameters.clone(),
        other => {
            return Err(DesktopError::BadArguments {
                tool: tool.to_owned(),
                detail: format!("arguments must be a JSON object, got {other}"),
            });
        }
    };
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let detail = match inner.strip_prefix("missing field ") {
            Some(field) => format!("missing argument {field}"),
            None if path == "." => inner,
            None => format!("`{path}`: {inner}"),
        };
        DesktopError::BadArguments {
            tool: tool.to_owned(),
            detail,
        }
    })
}

/// The JSON schema of `T` as a model is shown it: an object with typed,
/// described properties and the required ones (no `null` alternatives,
/// formats or titles). A field marked `x-required` is shown as required even
/// when it is read leniently without it (`name` beside `id`).
pub fn schema_of<T: JsonSchema>() -> Value {
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
    let v = serde_json::to_value(schema).unwrap_or(Value::Null);
    let mut properties = serde_json::Map::new();
    let mut required: Vec<Value> = v
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Some(props) = v.get("properties").and_then(Value::as_object) {
        for (k, p) in props {
            let mut p = p.clone();
            if let Some(obj) = p.as_object_mut() {
                if let Some(Value::Array(types)) = obj.get("type") {
                    let one = types.iter().find(|t| *t != "null").cloned();
                    if let Some(t) = one {
                        obj.insert("type".into(), t);
                    }
                }
                obj.remove("format");
                if obj.remove("x-required") == Some(Value::Bool(true)) {
                    // Shown as required: a default would contradict that.
                    obj.remove("default");
                    if !required.iter().any(|r| r == k) {
                        required.push(Value::String(k.clone()));
                    }
                }
                if obj.get("default") == Some(&Value::Null) {
                    obj.remove("default");
                }
            }
            properties.insert(k.clone(), p);
        }
    }
    serde_json::json!({"type": "object", "properties": properties, "required": required})
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_are_read_as_models_write_them() {
        let a: ClickInput = parse(
            "click_input",
            &json!({"id": " #4 ", "name": "Save", "double": "True", "button": "right", "extra": 1}),
        )
        .unwrap();
        assert_eq!(
            (a.id, a.double, a.button),
            (Label(4), true, MouseButton::Right)
        );
        let a: KeyboardInput = parse("keyboard_input", &json!({"keys": "^s"})).unwrap();
        assert!(a.control_focus && a.id.is_none());
        let a: KeyboardInput = parse(
            "keyboard_input",
            &json!({"keys": 7, "control_focus": null, "id": null}),
        )
        .unwrap();
        assert!(a.control_focus && a.id.is_none() && a.keys == "7");
        let a: ClickInput = parse(
            "click_input",
            &json!({"id": 2.0, "double": 0, "button": null}),
        )
        .unwrap();
        assert_eq!(
            (a.id, a.double, a.button),
            (Label(2), false, MouseButton::Left)
        );
        let a: Wait = parse("wait", &json!({"seconds": "2.5"})).unwrap();
        assert_eq!(a.seconds, 2.5);
        let a: Summary = parse("summary", &Value::Null).unwrap();
        assert_eq!(a.text, "");
        let a: DragOnCoordinates = parse(
            "drag_on_coordinates",
            &json!({"start_x": 0, "start_y": 0, "end_x": 1, "end_y": "1"}),
        )
        .unwrap();
        assert_eq!(a.duration, 1.0);
    }

    #[test]
    fn problems_name_the_argument() {
        for (tool, args, says) in [
            (
                "set_edit_text",
                json!({"id": "1"}),
                "missing argument `text`",
            ),
            ("click_input", json!({"id": "x"}), "`id`: must be an id"),
            (
                "click_input",
                json!({"id": 1, "double": "maybe"}),
                "`double`: must be true or false",
            ),
            (
                "wait",
                json!({"seconds": "soon"}),
                "`seconds`: must be a number",
            ),
            (
                "click_input",
                json!({"id": 1, "button": "left-ish"}),
                "`button`",
            ),
            ("click_input", json!([1]), "must be a JSON object"),
        ] {
            let e = match tool {
                "set_edit_text" => parse::<SetEditText>(tool, &args).err(),
                "wait" => parse::<Wait>(tool, &args).err(),
                _ => parse::<ClickInput>(tool, &args).err(),
            }
            .unwrap()
            .to_string();
            assert!(e.contains(says) && e.contains(tool), "{args}: {e}");
        }
    }

    #[test]
    fn schemas_are_plain_typed_objects() {
        let s = schema_of::<ClickInput>();
        assert_eq!(s["required"], json!(["id", "name"]));
        assert_eq!(s["properties"]["id"]["type"], "string");
        assert_eq!(s["properties"]["name"]["type"], "string");
        assert_eq!(
            s["properties"]["button"]["enum"],
            json!(["left", "right", "middle"])
        );
        assert_eq!(s["properties"]["double"]["type"], "boolean");
        let s = schema_of::<ClickOnCoordinates>();
        assert_eq!(s["properties"]["x"]["maximum"], 1);
        assert_eq!(
            schema_of::<WheelMouseInput>()["properties"]["wheel_dist"]["type"],
            "integer"
        );
        assert_eq!(schema_of::<NoArgs>()["properties"], json!({}));
    }
}
