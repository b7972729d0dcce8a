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
//! results back together on the server, and reads UFO's own device's bare
//! results (its Windows client) into the same types.
//!
//! [`tool_list`] is the device's answer to UFO's `list_tools`: its tools as
//! UFO's `MCPToolInfo` entries.

use serde_json::{Map, Value, json};
use ufo_core::geometry::Frame;
use ufo_core::ui::Capabilities;
use ufo_core::{
    Control, ControlType, ElementHandle, Point, Rect, Screen, ToolSpec, ToolType, WindowInfo,
};
use ufo_desktop::encode::decode_data_url;
use ufo_desktop::tools::{ControlsInfo, ScreenshotInfo, Tool, ToolName};

/// Why a device's result cannot be read: what is wrong with it, and the
/// error that showed it when there was one.
#[derive(Debug, thiserror::Error)]
#[error("{what}")]
pub struct PayloadError {
    what: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl PayloadError {
    fn new(what: impl Into<String>) -> Self {
        PayloadError {
            what: what.into(),
            source: None,
        }
    }

    fn by(what: impl Into<String>, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        PayloadError {
            what: what.into(),
            source: Some(Box::new(source)),
        }
    }
}

/// The field of a wire result that carries what UFO's shape leaves out.
pub const EXTRA_FIELD: &str = "ufo_rs";

/// UFO's meta tool: the tools a device offers.
pub const LIST_TOOLS: &str = "list_tools";

/// The fields UFO's AppAgent asks `get_app_window_controls_target_info` for.
pub const CONTROL_FIELDS: [&str; 4] = ["control_text", "control_type", "control_rect", "source"];

/// A ufo-rs tool result as UFO's tool of that name returns it, and what is
/// left out of that shape (`None` when nothing is).
pub fn to_ufo(tool: &str, result: Value) -> (Value, Option<Value>) {
    use Tool::*;
    match (ToolName::parse(tool).builtin(), result) {
        (Some(CaptureWindowScreenshot | CaptureDesktopScreenshot), Value::Object(mut m))
            if m.get("image_url").is_some_and(Value::is_string) =>
        {
            let url = m.remove("image_url").unwrap_or_default();
            (url, Some(Value::Object(m)))
        }
        (Some(GetDesktopAppInfo), Value::Array(items)) => (
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
        (Some(SelectApplicationWindow), Value::Object(mut m)) => {
            if let Some(w) = m.get("window") {
                let info = window_info(w);
                m.insert("window_info".into(), info);
            }
            (Value::Object(m), None)
        }
        (Some(GetAppWindowControlsTargetInfo), Value::Object(m))
            if m.get("controls").is_some_and(Value::is_array) =>
        {
            let list = m
                .get("controls")
                .and_then(Value::as_array)
                .map(|cs| cs.iter().map(target_info).collect())
                .unwrap_or_default();
            (Value::Array(list), Some(Value::Object(m)))
        }
        (Some(ExecuteCommand), Value::Object(mut m)) if m.contains_key("exit_code") => {
            let ok = m.get("exit_code") == Some(&json!(0))
                && m.get("timed_out") != Some(&Value::Bool(true));
            m.insert("success".into(), Value::Bool(ok));
            (Value::Object(m), None)
        }
        (_, other) => (other, None),
    }
}

/// A result from a device in the shape the ufo-rs agents read, or why it
/// cannot be read.
///
/// A ufo-rs device's UFO-shaped result comes with its `extra` and is put
/// back together. UFO's own device (its Windows client with the UI tool
/// servers) sends UFO's bare shapes, which are read into ours:
///
/// - a screenshot is a `data:image/…;base64,…` string: its frame is the
///   selected window's top-left corner (`selected`, from the last
///   `select_application_window`) for `capture_window_screenshot`, the
///   screen's origin for `capture_desktop_screenshot`, unscaled; a string
///   that is not a data URL (UFO's tool answers "Error: …") is an error;
/// - `get_app_window_controls_target_info` is a list of target entries
///   (`{kind, id, name, type, rect: [left, top, right, bottom]}`): each a
///   control with that label, in the selected window;
/// - `get_desktop_app_info` items (`{id, name, type, kind}`) name a window by
///   its title only: the title is its application name too;
/// - `select_application_window`'s `window_info` (UFO's `WindowInfo`) is read
///   into the ufo-rs window beside it.
///
/// Anything else comes through as it came.
pub fn from_ufo(
    tool: &str,
    result: Value,
    extra: Option<Value>,
    selected: Option<&WindowInfo>,
) -> Result<Value, PayloadError> {
    use Tool::*;
    let tool = ToolName::parse(tool).builtin();
    Ok(match (tool, result, extra) {
        (
            Some(CaptureWindowScreenshot | CaptureDesktopScreenshot),
            Value::String(url),
            Some(Value::Object(mut m)),
        ) => {
            inline_image(&url)?;
            m.insert("image_url".into(), Value::String(url));
            Value::Object(m)
        }
        (Some(CaptureWindowScreenshot | CaptureDesktopScreenshot), Value::String(url), None) => {
            let origin = match (tool, selected.and_then(|w| w.rect)) {
                (Some(CaptureWindowScreenshot), Some(r)) => Point::new(r.x, r.y),
                _ => Point::new(0, 0),
            };
            screenshot(url, Frame::at(origin))?
        }
        // A screenshot in ufo-rs's own shape (or any other): its image must
        // be inline data too.
        (Some(CaptureWindowScreenshot | CaptureDesktopScreenshot), other, _) => {
            match other.get("image_url") {
                Some(Value::String(url)) => inline_image(url)?,
                _ => {
                    return Err(PayloadError::new(format!(
                        "expected a screenshot (a data:image/…;base64 URL), got {}",
                        shorten(&other.to_string())
                    )));
                }
            }
            other
        }
        (Some(GetAppWindowControlsTargetInfo), Value::Array(_), Some(rich @ Value::Object(_))) => {
            rich
        }
        (Some(GetAppWindowControlsTargetInfo), Value::Array(items), None) => {
            controls(&items, selected)?
        }
        (Some(GetDesktopAppInfo), Value::Array(items), _) => Value::Array(
            items
                .into_iter()
                .map(|i| match i {
                    Value::Object(mut m) if m.contains_key("window") => {
                        m.remove("kind");
                        Value::Object(m)
                    }
                    Value::Object(m) => app_entry(&m),
                    other => other,
                })
                .collect(),
        ),
        (Some(SelectApplicationWindow), Value::Object(mut m), _)
            if !m.contains_key("window") && m.get("window_info").is_some_and(Value::is_object) =>
        {
            let w = m
                .get("window_info")
                .map(|i| own_window(i, ""))
                .unwrap_or(Value::Null);
            m.insert("window".into(), w);
            Value::Object(m)
        }
        (_, other, _) => other,
    })
}

/// The first 120 characters of `s`, for an error message.
fn shorten(s: &str) -> String {
    ufo_core::text::clip(s, 120)
}

/// Checks that a device's screenshot is inline data: a
/// `data:image/…;base64,` URL.
///
/// Anything else is refused: the server never fetches a link a device
/// answers with (an `http://` URL would be downloaded, by the providers
/// that take images inline, from wherever the server can reach: loopback,
/// a cloud's metadata service), nor reads a path (a model client reads
/// local files named as images).
pub fn inline_image(url: &str) -> Result<(), PayloadError> {
    let refused = || PayloadError::new(not_inline(url));
    let Some(head) = url.get(..5).filter(|h| h.eq_ignore_ascii_case("data:")) else {
        return Err(refused());
    };
    let Some((meta, _)) = url.get(head.len()..).and_then(|r| r.split_once(',')) else {
        return Err(refused());
    };
    let Some(mime) = meta.strip_suffix(";base64") else {
        return Err(refused());
    };
    let Some(subtype) = mime.strip_prefix("image/") else {
        return Err(refused());
    };
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-');
    match !subtype.is_empty() && subtype.chars().all(plain) {
        true => Ok(()),
        false => Err(refused()),
    }
}

/// Why `url` is no screenshot.
fn not_inline(url: &str) -> String {
    let why = match is_link(url) {
        true => "; a device may not answer with a link: the server fetches nothing a device names",
        false => "",
    };
    format!(
        "expected a screenshot as a data:image/…;base64 URL, got {:?}{why}",
        shorten(url)
    )
}

/// Whether `s` names something to fetch (a URL with a scheme other than
/// `data:`).
fn is_link(s: &str) -> bool {
    s.split_once("://").is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

/// UFO's screenshot (a data URL) as a ufo-rs screenshot result.
fn screenshot(url: String, frame: Frame) -> Result<Value, PayloadError> {
    let (mime, bytes) = decode_data_url(&url).map_err(|e| PayloadError::by(not_inline(&url), e))?;
    inline_image(&url)?;
    let (width, height) = image::ImageReader::new(std::io::Cursor::new(&bytes))
        .with_guessed_format()
        .map_err(|e| PayloadError::by(format!("cannot read the screenshot ({mime})"), e))?
        .into_dimensions()
        .map_err(|e| PayloadError::by(format!("cannot read the screenshot ({mime})"), e))?;
    let info = ScreenshotInfo {
        image_url: url,
        frame,
        width,
        height,
    };
    serde_json::to_value(info).map_err(|e| PayloadError::by("cannot encode the screenshot", e))
}

/// UFO's control list (`TargetInfo` entries) as a ufo-rs control list.
fn controls(items: &[Value], selected: Option<&WindowInfo>) -> Result<Value, PayloadError> {
    let mut out = Vec::with_capacity(items.len());
    for (i, t) in items.iter().enumerate() {
        let text = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or_default();
        let id = match t.get("id") {
            Some(Value::String(s)) => s.trim().parse::<u32>().ok(),
            Some(Value::Number(n)) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
            _ => None,
        }
        .ok_or_else(|| {
            PayloadError::new(format!(
                "control {} has no numeric id (UFO labels controls \"1\"..\"N\"): {t}",
                i + 1
            ))
        })?;
        let rect = match t.get("rect") {
            Some(Value::Array(c)) => {
                let n: Vec<i64> = c.iter().filter_map(Value::as_i64).collect();
                match n[..] {
                    [l, tp, r, b] => clamp_rect(l, tp, r, b),
                    _ => {
                        return Err(PayloadError::new(format!(
                            "control {id}: rect must be [left, top, right, bottom], got {}",
                            Value::Array(c.clone())
                        )));
                    }
                }
            }
            _ => Rect::new(0, 0, 0, 0),
        };
        let kind = text("type");
        let Ok(control_type) = kind.parse::<ControlType>();
        out.push(Control {
            id,
            name: text("name").to_owned(),
            control_type,
            value: None,
            column: None,
            rect,
            handle: ElementHandle(format!("ufo-target:{id}")),
            role: kind.to_owned(),
            states: ufo_core::States::empty(),
            actions: Vec::new(),
            capabilities: Capabilities {
                component: true,
                ..Capabilities::default()
            },
        });
    }
    let window = match selected {
        Some(w) => w.clone(),
        None => serde_json::from_value(own_window(&Value::Null, ""))
            .map_err(|e| PayloadError::by("cannot make the device's window", e))?,
    };
    serde_json::to_value(ControlsInfo {
        window,
        controls: out,
        truncated: false,
    })
    .map_err(|e| PayloadError::by("cannot encode the control list", e))
}

/// A screen rectangle from UFO's corners (a reversed one is empty).
fn clamp_rect(l: i64, t: i64, r: i64, b: i64) -> Rect<Screen> {
    let c = |v: i64| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
    Rect::new(c(l), c(t), c(r - l).max(0), c(b - t).max(0))
}

/// A `get_desktop_app_info` item of UFO's (`{id, name, type, kind}`) as a
/// ufo-rs one: the title is all UFO says of the window.
fn app_entry(m: &Map<String, Value>) -> Value {
    let text = |k: &str| {
        m.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let id = match m.get("id") {
        Some(Value::Number(n)) => n.to_string(),
        _ => text("id"),
    };
    let name = text("name");
    let window = own_window(&json!({"annotation_id": id, "name": name}), &name);
    json!({
        "id": id,
        "name": name,
        "type": m.get("type").and_then(Value::as_str).unwrap_or("Window"),
        "app_name": name,
        "window": window,
    })
}

/// UFO's `WindowInfo` (or what of it is known) as a ufo-rs window.
fn own_window(i: &Value, app_name: &str) -> Value {
    let text = |k: &str| i.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    let title = text("title").or(text("name")).unwrap_or_default();
    let handle = i.get("handle").and_then(Value::as_u64);
    let id = match (text("annotation_id"), handle) {
        (Some(a), _) => a.to_owned(),
        (None, Some(h)) => h.to_string(),
        (None, None) => String::new(),
    };
    let app = text("process_name")
        .or(Some(app_name).filter(|s| !s.is_empty()))
        .unwrap_or(title);
    let mut w = json!({
        "id": id,
        "app_name": app,
        "title": title,
        "focused": i.get("is_active").and_then(Value::as_bool).unwrap_or(false),
        "handle": match handle {
            Some(h) => format!("ufo-window:{h}"),
            None => format!("ufo-window:{id}"),
        },
    });
    if let Some(pid) = i.get("process_id").and_then(Value::as_u64) {
        w["pid"] = json!(pid);
    }
    if let Some(h) = handle {
        w["native_id"] = json!(h);
    }
    let r = &i["rectangle"];
    if let (Some(x), Some(y), Some(wd), Some(ht)) = (
        r["x"].as_i64(),
        r["y"].as_i64(),
        r["width"].as_i64(),
        r["height"].as_i64(),
    ) {
        w["rect"] = json!({"x": x, "y": y, "width": wd.max(0), "height": ht.max(0)});
    }
    w
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

#[cfg(test)]
mod tests {
    //! UFO's own device's results, in the shapes its UI tool servers
    //! document (`TargetInfo`: kind, id, name, type, rect as [left, top,
    //! right, bottom]; `WindowInfo`: annotation_id, name, title, handle,
    //! class_name, rectangle {x, y, width, height}, control_type,
    //! process_id, process_name, is_visible, is_minimized, is_maximized,
    //! is_active, text_content; screenshots as a data URL string), read into
    //! the types the ufo-rs agents parse.
    use super::*;
    use ufo_desktop::encode::{PngCompression, png_data_url};
    use ufo_desktop::tools::WindowEntry;

    fn png(w: u32, h: u32) -> String {
        png_data_url(&image::RgbImage::new(w, h), PngCompression::Fast).unwrap()
    }

    /// UFO's `WindowInfo` of a Notepad window at (10, 20).
    fn ufo_window_info() -> Value {
        json!({"annotation_id": null, "name": "Untitled - Notepad", "title": "Untitled - Notepad",
            "handle": 1234, "class_name": "Notepad",
            "rectangle": {"x": 10, "y": 20, "width": 800, "height": 600},
            "control_type": "Window", "automation_id": null, "is_enabled": null,
            "is_visible": true, "source": null, "text_content": "Untitled - Notepad",
            "process_id": 42, "process_name": null, "is_minimized": false,
            "is_maximized": false, "is_active": true})
    }

    fn selected() -> WindowInfo {
        let r = from_ufo(
            "select_application_window",
            json!({"root_name": "notepad.exe", "window_info": ufo_window_info()}),
            None,
            None,
        )
        .unwrap();
        serde_json::from_value(r["window"].clone()).unwrap()
    }

    #[test]
    fn select_application_window_reads_window_info() {
        let r = from_ufo(
            "select_application_window",
            json!({"root_name": "notepad.exe", "window_info": ufo_window_info()}),
            None,
            None,
        )
        .unwrap();
        // UFO's fields stay for whoever reads them.
        assert_eq!(r["root_name"], "notepad.exe");
        assert_eq!(r["window_info"]["handle"], 1234);
        let w: WindowInfo = serde_json::from_value(r["window"].clone()).unwrap();
        assert_eq!(w.title, "Untitled - Notepad");
        // No process_name from UFO's tool: the window's name stands in, as
        // UFO's server itself names the process by the selected target.
        assert_eq!(w.app_name, "Untitled - Notepad");
        assert_eq!(w.pid, Some(42));
        assert_eq!(w.native_id, Some(1234));
        assert!(w.focused);
        assert_eq!(w.rect, Some(Rect::new(10, 20, 800, 600)));
    }

    /// A device's screenshot must be inline data: a link (which a model
    /// client would fetch from wherever the server can reach) or a path
    /// (which it would read) is refused, in every shape a device can send.
    #[test]
    fn screenshots_that_are_links_or_paths_are_refused() {
        let extra = json!({"frame": {"origin": {"x": 0, "y": 0}, "scale": 1.0},
            "width": 4, "height": 3});
        for url in [
            "http://169.254.169.254/latest/meta-data/iam.png",
            "HTTPS://127.0.0.1:8080/a.png",
            "file:///etc/passwd",
            "/etc/passwd",
            "data:text/plain;base64,aGk=",
            "data:image/png,notbase64",
        ] {
            for tool in ["capture_window_screenshot", "capture_desktop_screenshot"] {
                // ufo-rs's shape: the string with the frame beside it.
                let e = from_ufo(tool, json!(url), Some(extra.clone()), None).unwrap_err();
                assert!(e.to_string().contains("data:image"), "{url}: {e}");
                // UFO's bare string.
                assert!(from_ufo(tool, json!(url), None, None).is_err(), "{url}");
                // A ufo-rs ScreenshotInfo object.
                let mut obj = extra.clone();
                obj["image_url"] = json!(url);
                assert!(from_ufo(tool, obj, None, None).is_err(), "{url}");
            }
        }
        let e = from_ufo(
            "capture_desktop_screenshot",
            json!("http://127.0.0.1:1/x.png"),
            Some(extra.clone()),
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("may not answer with a link"), "{e}");
        // Inline data passes in every shape.
        let ok = png(4, 3);
        assert!(
            from_ufo(
                "capture_desktop_screenshot",
                json!(ok),
                Some(extra.clone()),
                None
            )
            .is_ok()
        );
        let mut obj = extra;
        obj["image_url"] = json!(ok);
        assert!(from_ufo("capture_desktop_screenshot", obj, None, None).is_ok());
        // Nothing that is no screenshot at all.
        assert!(from_ufo("capture_desktop_screenshot", Value::Null, None, None).is_err());
    }

    #[test]
    fn screenshots_as_data_url_strings() {
        let w = selected();
        let got = from_ufo(
            "capture_window_screenshot",
            json!(png(4, 3)),
            None,
            Some(&w),
        )
        .unwrap();
        let info: ScreenshotInfo = serde_json::from_value(got).unwrap();
        assert_eq!((info.width, info.height), (4, 3));
        // The window's pixels sit at the window's corner.
        assert_eq!(info.frame, Frame::at(Point::new(10, 20)));
        assert_eq!(info.decode().unwrap().image.dimensions(), (4, 3));
        let got = from_ufo(
            "capture_desktop_screenshot",
            json!(png(8, 6)),
            None,
            Some(&w),
        )
        .unwrap();
        let info: ScreenshotInfo = serde_json::from_value(got).unwrap();
        assert_eq!(info.frame, Frame::at(Point::new(0, 0)));
        assert_eq!((info.width, info.height), (8, 6));
        // With no window selected the frame is the screen's.
        let got = from_ufo("capture_window_screenshot", json!(png(2, 2)), None, None).unwrap();
        assert_eq!(got["frame"]["origin"], json!({"x": 0, "y": 0}));
        // UFO's tool answers a failure as text.
        let e = from_ufo(
            "capture_window_screenshot",
            json!("Error: No window selected"),
            None,
            None,
        )
        .unwrap_err();
        // What was wrong with the text is kept as the cause.
        assert!(std::error::Error::source(&e).is_some(), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("data:image") && e.contains("No window selected"),
            "{e}"
        );
        let e = from_ufo(
            "capture_window_screenshot",
            json!("data:text/plain;base64,aGk="),
            None,
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("data:image"), "{e}");
    }

    #[test]
    fn control_lists_as_target_info() {
        let w = selected();
        let items = json!([
            {"kind": "control", "id": "1", "name": "Text editor", "type": "Edit", "rect": [10, 50, 810, 600]},
            {"kind": "control", "id": "2", "name": "File", "type": "MenuItem", "rect": [12, 22, 40, 44]},
            {"kind": "control", "id": "3", "name": "Odd", "type": "SemanticZoom", "rect": null}
        ]);
        let got = from_ufo("get_app_window_controls_target_info", items, None, Some(&w)).unwrap();
        let info: ControlsInfo = serde_json::from_value(got).unwrap();
        assert_eq!(info.window, w);
        assert!(!info.truncated);
        let c = &info.controls;
        assert_eq!(c.len(), 3);
        assert_eq!((c[0].id, c[0].name.as_str()), (1, "Text editor"));
        assert_eq!(c[0].control_type, ControlType::Edit);
        assert_eq!(c[0].rect, Rect::new(10, 50, 800, 550));
        assert_eq!(c[1].control_type, ControlType::MenuItem);
        assert_eq!(c[1].rect, Rect::new(12, 22, 28, 22));
        assert_eq!(c[2].control_type, ControlType::Other("SemanticZoom".into()));
        assert_eq!(c[2].rect, Rect::new(0, 0, 0, 0));
        // An empty window.
        let got = from_ufo("get_app_window_controls_target_info", json!([]), None, None).unwrap();
        let info: ControlsInfo = serde_json::from_value(got).unwrap();
        assert!(info.controls.is_empty());
        // Unreadable entries say which and why.
        let e = from_ufo(
            "get_app_window_controls_target_info",
            json!([{"kind": "control", "id": "a", "name": "x"}]),
            None,
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("no numeric id"), "{e}");
        let e = from_ufo(
            "get_app_window_controls_target_info",
            json!([{"kind": "control", "id": "1", "name": "x", "rect": [1, 2, 3]}]),
            None,
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("[left, top, right, bottom]"), "{e}");
    }

    #[test]
    fn desktop_app_info_items_with_kind() {
        let items = json!([
            {"id": "1", "name": "Untitled - Notepad", "type": "Window", "kind": "window"},
            {"id": "2", "name": "Calculator", "type": "Window", "kind": "window"}
        ]);
        let got = from_ufo("get_desktop_app_info", items, None, None).unwrap();
        let entries: Vec<WindowEntry> = serde_json::from_value(got).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].id, "1");
        assert_eq!(entries[0].name, "Untitled - Notepad");
        assert_eq!(entries[0].app_name, "Untitled - Notepad");
        assert_eq!(entries[0].window.title, "Untitled - Notepad");
        assert_eq!(entries[1].control_type, "Window");
    }

    #[test]
    fn ufo_rs_results_round_trip() {
        let window = json!({"id": "w1", "app_name": "gedit", "title": "notes", "focused": true,
            "handle": "h", "rect": {"x": 1, "y": 2, "width": 3, "height": 4}});
        let rich = json!({"root_name": "gedit", "window": window});
        let (wire, extra) = to_ufo("select_application_window", rich);
        assert!(wire["window_info"].is_object());
        let back = from_ufo("select_application_window", wire, extra, None).unwrap();
        // The device's own window is kept, not rebuilt from window_info.
        assert_eq!(back["window"], window);
    }
}
