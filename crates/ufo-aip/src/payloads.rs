//! Tool results in the shapes UFO's agents read, and back.
//!
//! A ufo-rs device answers every tool the way UFO's own tool servers do, so
//! that UFO's server can use it: screenshots are a `data:image/png;base64,…`
//! string, `get_desktop_app_info` items carry `kind: "window"`,
//! `select_application_window` returns `window_info`,
//! `get_app_window_controls_target_info` returns a list of UFO's target
//! entries (`{kind, id, name, type, rect: [left, top, right, bottom],
//! source}`), `execute_command` results carry `success`. What UFO's shape has
//! no room for (a screenshot's frame, the window the controls belong to,
//! the controls' handles and states) travels beside it in the result's
//! `ufo_rs` field, which UFO ignores; [`from_ufo`] puts a ufo-rs device's
//! results back together on the server.
//!
//! [`tool_list`] is the device's answer to UFO's `list_tools`: its tools as
//! UFO's `MCPToolInfo` entries.

use serde_json::{Value, json};
use ufo_core::{ToolSpec, ToolType};

/// The field of a wire result that carries what UFO's shape leaves out.
pub const EXTRA_FIELD: &str = "ufo_rs";

/// UFO's meta tool: the tools a device offers.
pub const LIST_TOOLS: &str = "list_tools";

/// The fields UFO's AppAgent asks `get_app_window_controls_target_info` for.
pub const CONTROL_FIELDS: [&str; 4] = ["control_text", "control_type", "control_rect", "source"];

/// A ufo-rs tool result as UFO's tool of that name returns it, and what is
/// left out of that shape (`None` when nothing is).
pub fn to_ufo(tool: &str, result: Value) -> (Value, Option<Value>) {
    match (tool, result) {
        ("capture_window_screenshot" | "capture_desktop_screenshot", Value::Object(mut m))
            if m.get("image_url").is_some_and(Value::is_string) =>
        {
            let url = m.remove("image_url").unwrap_or_default();
            (url, Some(Value::Object(m)))
        }
        ("get_desktop_app_info", Value::Array(items)) => (
            Value::Array(
                items
                    .into_iter()
                    .map(|i| match i {
                        Value::Object(mut m) => {
                            m.insert("kind".into(), json!("window"));
                            Value::Object(m)
                        }
                        other => other,
                    })
                    .collect(),
            ),
            None,
        ),
        ("select_application_window", Value::Object(mut m)) => {
            if let Some(w) = m.get("window") {
                let info = window_info(w);
                m.insert("window_info".into(), info);
            }
            (Value::Object(m), None)
        }
        ("get_app_window_controls_target_info", Value::Object(m))
            if m.get("controls").is_some_and(Value::is_array) =>
        {
            let list = m
                .get("controls")
                .and_then(Value::as_array)
                .map(|cs| cs.iter().map(target_info).collect())
                .unwrap_or_default();
            (Value::Array(list), Some(Value::Object(m)))
        }
        ("execute_command", Value::Object(mut m)) if m.contains_key("exit_code") => {
            let ok = m.get("exit_code") == Some(&json!(0))
                && m.get("timed_out") != Some(&Value::Bool(true));
            m.insert("success".into(), Value::Bool(ok));
            (Value::Object(m), None)
        }
        (_, other) => (other, None),
    }
}

/// A result from a device in the shape the ufo-rs agents read: a ufo-rs
/// device's UFO-shaped result with its `extra` put back; anything else as
/// it came.
pub fn from_ufo(tool: &str, result: Value, extra: Option<Value>) -> Value {
    match (tool, result, extra) {
        (
            "capture_window_screenshot" | "capture_desktop_screenshot",
            Value::String(url),
            Some(Value::Object(mut m)),
        ) => {
            m.insert("image_url".into(), Value::String(url));
            Value::Object(m)
        }
        ("get_app_window_controls_target_info", Value::Array(_), Some(rich @ Value::Object(_))) => {
            rich
        }
        ("get_desktop_app_info", Value::Array(items), _) => Value::Array(
            items
                .into_iter()
                .map(|i| match i {
                    Value::Object(mut m) => {
                        m.remove("kind");
                        Value::Object(m)
                    }
                    other => other,
                })
                .collect(),
        ),
        (_, other, _) => other,
    }
}

/// A ufo-rs window as UFO's `WindowInfo`.
fn window_info(w: &Value) -> Value {
    let s = |k: &str| w.get(k).cloned().unwrap_or(Value::Null);
    json!({
        "annotation_id": s("id"),
        "name": s("title"),
        "title": s("title"),
        "handle": s("native_id"),
        "class_name": Value::Null,
        "rectangle": w.get("rect").map(rectangle).unwrap_or(Value::Null),
        "control_type": "Window",
        "automation_id": Value::Null,
        "is_enabled": true,
        "is_visible": true,
        "source": "atspi",
        "text_content": s("title"),
        "process_id": s("pid"),
        "process_name": s("app_name"),
        "is_minimized": false,
        "is_maximized": Value::Null,
        "is_active": s("focused"),
    })
}

/// The corners of a ufo-rs rectangle (`{x, y, width, height}` or
/// `{left, top, right, bottom}`): `[left, top, right, bottom]`.
fn corners(r: &Value) -> Option<[i64; 4]> {
    let n = |k: &str| r.get(k).and_then(|v| v.as_f64()).map(|f| f.round() as i64);
    match (n("left"), n("top"), n("right"), n("bottom")) {
        (Some(l), Some(t), Some(rt), Some(b)) => Some([l, t, rt, b]),
        _ => {
            let (x, y, w, h) = (n("x")?, n("y")?, n("width")?, n("height")?);
            Some([x, y, x + w, y + h])
        }
    }
}

/// UFO's `Rect` (`{x, y, width, height}`).
fn rectangle(r: &Value) -> Value {
    match corners(r) {
        Some([l, t, rt, b]) => json!({"x": l, "y": t, "width": rt - l, "height": b - t}),
        None => Value::Null,
    }
}

/// A ufo-rs control as UFO's target entry.
fn target_info(c: &Value) -> Value {
    let id = match c.get("id") {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    json!({
        "kind": "control",
        "id": id,
        "name": c.get("name").cloned().unwrap_or(Value::Null),
        "type": c.get("type").cloned().unwrap_or(Value::Null),
        "rect": c.get("rect").and_then(corners).map(|r| json!(r)).unwrap_or(Value::Null),
        "source": "uia",
    })
}

/// The device's tools as UFO's `list_tools` returns them (`MCPToolInfo`),
/// those of `tool_type` and `namespace` when given.
pub fn tool_list(specs: &[ToolSpec], tool_type: Option<&str>, namespace: Option<&str>) -> Value {
    Value::Array(
        specs
            .iter()
            .filter(|s| tool_type.is_none_or(|t| t == kind_name(s.tool_type)))
            .filter(|s| namespace.is_none_or(|n| n == s.namespace))
            .map(|s| {
                let kind = kind_name(s.tool_type);
                json!({
                    "tool_key": format!("{kind}::{}", s.name),
                    "tool_name": s.name,
                    "title": Value::Null,
                    "namespace": s.namespace,
                    "tool_type": kind,
                    "description": s.description,
                    "input_schema": s.parameters,
                    "output_schema": Value::Null,
                    "meta": Value::Null,
                    "annotations": json!({
                        "readOnlyHint": kind == "data_collection",
                        "destructiveHint": s.destructive,
                    }),
                })
            })
            .collect(),
    )
}

/// The arguments of a `list_tools` command: `tool_type` and `namespace`.
pub fn list_tools_filter(params: &Value) -> (Option<String>, Option<String>) {
    let s = |k: &str| params.get(k).and_then(Value::as_str).map(str::to_owned);
    (s("tool_type"), s("namespace"))
}

/// UFO's name of a tool type.
fn kind_name(t: ToolType) -> &'static str {
    match t {
        ToolType::DataCollection => "data_collection",
        ToolType::Action => "action",
    }
}
