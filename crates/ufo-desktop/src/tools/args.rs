//! Pure argument handling for the tools: typed getters over the JSON arguments
//! a model produced, control/window resolution by `id` + `name`, relative
//! coordinates and the choice of click action. No I/O, so all of it is unit
//! tested.

use crate::backend::MouseButton;
use crate::designate::{Designated, Unresolved, resolve};
use crate::error::{DesktopError, Result};
use serde_json::{Map, Value};
use ufo_core::{Control, ControlType, Point, Rect, Screen, WindowInfo};

/// The arguments of one call, with lenient typed getters (models send `"4"`
/// for `4`, `"true"` for `true`).
#[derive(Debug, Clone)]
pub struct Args<'a> {
    tool: &'a str,
    map: Map<String, Value>,
}

impl<'a> Args<'a> {
    /// Wraps a command's `parameters`; `null` counts as no arguments.
    pub fn new(tool: &'a str, parameters: &Value) -> Result<Self> {
        let map = match parameters {
            Value::Object(m) => m.clone(),
            Value::Null => Map::new(),
            other => {
                return Err(DesktopError::BadArguments {
                    tool: tool.to_owned(),
                    detail: format!("arguments must be a JSON object, got {other}"),
                });
            }
        };
        Ok(Self { tool, map })
    }

    /// A [`DesktopError::BadArguments`] for this tool.
    pub fn bad(&self, detail: impl Into<String>) -> DesktopError {
        DesktopError::BadArguments {
            tool: self.tool.to_owned(),
            detail: detail.into(),
        }
    }

    fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// The `id` argument as a label number; accepts `4`, `4.0`, `"4"`, `" #4 "`.
    pub fn id(&self) -> Result<u32> {
        let v = self
            .get("id")
            .ok_or_else(|| self.bad("missing argument `id`"))?;
        parse_id(v)
            .ok_or_else(|| self.bad(format!("`id` must be a control id such as \"4\", got {v}")))
    }

    /// An optional string argument (numbers and booleans are stringified).
    pub fn opt_str(&self, key: &str) -> Option<String> {
        self.get(key).map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    }

    /// A required string argument.
    pub fn str(&self, key: &str) -> Result<String> {
        self.opt_str(key)
            .ok_or_else(|| self.bad(format!("missing argument `{key}`")))
    }

    /// A boolean with a default; accepts `true`, `"True"`, `"false"`, `1`, `0`.
    pub fn bool_or(&self, key: &str, default: bool) -> Result<bool> {
        let Some(v) = self.get(key) else {
            return Ok(default);
        };
        match v {
            Value::Bool(b) => Ok(*b),
            Value::Number(n) if n.as_f64() == Some(1.0) => Ok(true),
            Value::Number(n) if n.as_f64() == Some(0.0) => Ok(false),
            Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" | "1" => Ok(true),
                "false" | "no" | "0" | "" => Ok(false),
                _ => Err(self.bad(format!("`{key}` must be true or false, got {v}"))),
            },
            _ => Err(self.bad(format!("`{key}` must be true or false, got {v}"))),
        }
    }

    /// An optional finite number; accepts numeric strings.
    pub fn opt_f64(&self, key: &str) -> Result<Option<f64>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let n = match v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        };
        match n {
            Some(n) if n.is_finite() => Ok(Some(n)),
            _ => Err(self.bad(format!("`{key}` must be a number, got {v}"))),
        }
    }

    /// A required finite number.
    pub fn f64(&self, key: &str) -> Result<f64> {
        self.opt_f64(key)?
            .ok_or_else(|| self.bad(format!("missing argument `{key}`")))
    }

    /// The `button` argument (default left).
    pub fn button(&self) -> Result<MouseButton> {
        match self.opt_str("button") {
            None => Ok(MouseButton::Left),
            Some(s) => s.parse().map_err(|e: String| self.bad(e)),
        }
    }
}

/// Parses a label id from JSON: a non-negative integral number or a string of
/// digits (surrounding spaces and a leading `#` allowed).
pub fn parse_id(v: &Value) -> Option<u32> {
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                return u32::try_from(u).ok();
            }
            let f = n.as_f64()?;
            (f >= 0.0 && f.fract() == 0.0 && f <= f64::from(u32::MAX)).then_some(f as u32)
        }
        Value::String(s) => s.trim().trim_start_matches('#').trim().parse().ok(),
        _ => None,
    }
}

/// Finds the control labelled `id` and checks that `name`, when given, names
/// it (the rule of [`crate::designate`], without repair).
pub fn resolve_control<'c>(
    controls: &'c [Control],
    id: u32,
    name: Option<&str>,
) -> Result<&'c Control> {
    designated(controls, id, name)
}

/// Finds window number `id` (1-based, as listed by `get_desktop_app_info`) and
/// checks that `name`, when given, matches its title or application name.
pub fn resolve_window<'w>(
    windows: &'w [WindowInfo],
    id: u32,
    name: Option<&str>,
) -> Result<&'w WindowInfo> {
    designated(windows, id, name)
}

fn designated<'a, T: Designated>(items: &'a [T], id: u32, name: Option<&str>) -> Result<&'a T> {
    match resolve(items, Some(id), name, false) {
        Ok(r) => Ok(r.item),
        Err(Unresolved::NameMismatch { actual, given, .. }) => Err(DesktopError::NameMismatch {
            id: id.to_string(),
            actual,
            expected: given,
        }),
        Err(_) => Err(DesktopError::UnknownControl {
            id: id.to_string(),
            count: items.len(),
        }),
    }
}

/// The screen point at fractions `(x, y)` ∈ [0, 1]² of `rect` (0 = left/top,
/// 1 = right/bottom edge), kept inside the rectangle.
pub fn relative_point(
    rect: &Rect<Screen>,
    x: f64,
    y: f64,
) -> std::result::Result<Point<Screen>, String> {
    for (v, n) in [(x, "x"), (y, "y")] {
        if !(0.0..=1.0).contains(&v) {
            return Err(format!(
                "`{n}` is {v}; coordinates are fractions of the window between 0 and 1"
            ));
        }
    }
    if rect.is_empty() {
        return Err("the window has no size".into());
    }
    let px = rect.x + (x * f64::from(rect.width)).round() as i32;
    let py = rect.y + (y * f64::from(rect.height)).round() as i32;
    Ok(Point::new(
        px.clamp(rect.x, rect.right() - 1),
        py.clamp(rect.y, rect.bottom() - 1),
    ))
}

/// Action names that mean "click", in order of preference.
pub const CLICK_ACTIONS: &[&str] = &["click", "press", "activate", "toggle", "jump", "open"];

/// The accessibility action that performs a left click on `control`, if any.
///
/// The first of [`CLICK_ACTIONS`] the control offers (compared
/// case-insensitively, also against the part after the last `.` as in GTK4's
/// `default.activate`), or its only action when it has exactly one and that
/// one is not namespaced (GTK4's `clipboard.copy` is not a click). Text
/// controls (`Edit`, `Document`, or editable text other than a combo box's
/// entry) never use an action: a click there must place the caret, so the
/// caller clicks at coordinates instead.
pub fn click_action(control: &Control) -> Option<&str> {
    let text_like = match control.control_type {
        ControlType::Edit | ControlType::Document => true,
        ControlType::ComboBox => false,
        _ => control.capabilities.editable_text,
    };
    if text_like {
        return None;
    }
    let base = |a: &str| a.rsplit('.').next().unwrap_or(a).to_ascii_lowercase();
    for want in CLICK_ACTIONS {
        if let Some(a) = control
            .actions
            .iter()
            .find(|a| a.eq_ignore_ascii_case(want) || base(a) == *want)
        {
            return Some(a);
        }
    }
    match control.actions.as_slice() {
        [only] if !only.contains('.') && !only.trim().is_empty() => Some(only),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use ufo_core::ElementHandle;
    use ufo_core::ui::Capabilities;

    fn control(id: u32, name: &str, ty: ControlType, actions: &[&str]) -> Control {
        Control {
            id,
            name: name.into(),
            control_type: ty,
            value: None,
            rect: Rect::new(0, 0, 10, 10),
            handle: ElementHandle(format!("h{id}")),
            role: String::new(),
            states: vec![],
            actions: actions.iter().map(|s| (*s).to_owned()).collect(),
            capabilities: Capabilities::default(),
        }
    }

    #[test]
    fn ids_parse_leniently() {
        for (v, want) in [
            (json!(4), Some(4)),
            (json!(4.0), Some(4)),
            (json!("4"), Some(4)),
            (json!(" #12 "), Some(12)),
            (json!(-1), None),
            (json!(4.5), None),
            (json!("four"), None),
            (json!(true), None),
            (json!(5_000_000_000u64), None),
        ] {
            assert_eq!(parse_id(&v), want, "{v}");
        }
    }

    #[test]
    fn typed_getters() {
        let p = json!({"id": "3", "double": "True", "x": "0.5", "n": 7, "b": 0, "bad": "maybe", "button": "Right", "nul": null});
        let a = Args::new("t", &p).unwrap();
        assert_eq!(a.id().unwrap(), 3);
        assert!(a.bool_or("double", false).unwrap());
        assert!(!a.bool_or("b", true).unwrap());
        assert!(a.bool_or("missing", true).unwrap());
        assert!(a.bool_or("nul", true).unwrap());
        assert!(a.bool_or("bad", true).is_err());
        assert_eq!(a.f64("x").unwrap(), 0.5);
        assert_eq!(a.opt_str("n").as_deref(), Some("7"));
        assert_eq!(a.button().unwrap(), MouseButton::Right);
        assert!(a.f64("bad").is_err());
        let e = a.str("text").unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad arguments for t: missing argument `text`"
        );
        assert!(Args::new("t", &json!([1])).is_err());
        assert!(Args::new("t", &Value::Null).unwrap().id().is_err());
        assert!(
            Args::new("t", &json!({"button": "top"}))
                .unwrap()
                .button()
                .is_err()
        );
    }

    #[test]
    fn resolves_controls_by_id_and_name() {
        let cs = vec![
            control(1, "Open", ControlType::Button, &[]),
            control(4, "Save", ControlType::Button, &[]),
            control(7, "7 7", ControlType::Button, &[]),
        ];
        assert_eq!(resolve_control(&cs, 4, Some("Save")).unwrap().id, 4);
        assert_eq!(resolve_control(&cs, 4, Some(" save ")).unwrap().id, 4);
        assert_eq!(resolve_control(&cs, 4, None).unwrap().id, 4);
        assert_eq!(resolve_control(&cs, 7, Some("7")).unwrap().id, 7);
        assert_eq!(
            resolve_control(&cs, 4, Some("Open"))
                .unwrap_err()
                .to_string(),
            "name mismatch: id 4 is \"Save\", not \"Open\""
        );
        assert_eq!(
            resolve_control(&cs, 17, Some("Save"))
                .unwrap_err()
                .to_string(),
            "id 17 is not in the current control list (3 controls)"
        );
    }

    #[test]
    fn resolves_windows() {
        let w = |title: &str, app: &str| WindowInfo {
            id: "x".into(),
            app_name: app.into(),
            pid: None,
            title: title.into(),
            rect: None,
            focused: false,
            handle: ElementHandle(String::new()),
            native_id: None,
            dialog: false,
            modal: false,
            owner: None,
        };
        let ws = vec![
            w("Calculator", "gnome-calculator"),
            w("Untitled - gedit", "gedit"),
        ];
        assert_eq!(
            resolve_window(&ws, 1, Some("calculator")).unwrap().app_name,
            "gnome-calculator"
        );
        assert_eq!(
            resolve_window(&ws, 2, Some("gedit")).unwrap().title,
            "Untitled - gedit"
        );
        assert!(resolve_window(&ws, 0, None).is_err());
        assert!(resolve_window(&ws, 3, None).is_err());
        assert!(matches!(
            resolve_window(&ws, 1, Some("gedit")),
            Err(DesktopError::NameMismatch { .. })
        ));
    }

    #[test]
    fn relative_points() {
        let r = Rect::<Screen>::new(100, 50, 200, 100);
        for ((x, y), want) in [
            ((0.0, 0.0), Some((100, 50))),
            ((0.5, 0.5), Some((200, 100))),
            ((1.0, 1.0), Some((299, 149))),
            ((0.25, 0.1), Some((150, 60))),
            ((1.2, 0.5), None),
            ((-0.1, 0.5), None),
            ((f64::NAN, 0.5), None),
        ] {
            let got = relative_point(&r, x, y).ok().map(|p| (p.x, p.y));
            assert_eq!(got, want, "({x}, {y})");
        }
        assert!(relative_point(&Rect::new(0, 0, 0, 10), 0.5, 0.5).is_err());
    }

    #[test]
    fn picks_click_actions() {
        for (ty, actions, want) in [
            (ControlType::Button, vec!["click"], Some("click")),
            (ControlType::ComboBox, vec!["press"], Some("press")),
            (
                ControlType::Button,
                vec!["clipboard.copy", "Press"],
                Some("Press"),
            ),
            (
                ControlType::MenuItem,
                vec!["default.activate"],
                Some("default.activate"),
            ),
            (
                ControlType::CheckBox,
                vec!["expand", "toggle"],
                Some("toggle"),
            ),
            (ControlType::Hyperlink, vec!["jump"], Some("jump")),
            (ControlType::ListItem, vec!["select"], Some("select")),
            (ControlType::Text, vec!["clipboard.copy"], None),
            (ControlType::Button, vec!["a", "b"], None),
            (ControlType::Button, vec![], None),
            (ControlType::Edit, vec!["activate"], None),
            (ControlType::Document, vec!["click"], None),
        ] {
            let c = control(1, "x", ty.clone(), &actions);
            assert_eq!(click_action(&c), want, "{ty} {actions:?}");
        }
        let mut editable = control(1, "x", ControlType::ComboBox, &["press"]);
        editable.capabilities.editable_text = true;
        assert_eq!(click_action(&editable), Some("press"));
        editable.control_type = ControlType::Text;
        assert_eq!(click_action(&editable), None);
    }
}
