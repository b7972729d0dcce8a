//! Pure argument handling for the tools: label ids, control/window resolution
//! by `id` + `name`, relative coordinates and the choice of click action (the
//! typed arguments themselves are [`super::params`]). No I/O, so all of it is
//! unit tested.

use crate::designate::{Designated, Unresolved, resolve};
use crate::error::{DesktopError, Result};
use serde_json::Value;
use ufo_core::{Control, ControlType, Point, Rect, Screen, WindowInfo};

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
/// one is not namespaced (GTK4's `clipboard.copy` is not a click) nor Qt's
/// `ShowMenu`, which opens nothing when run through the API. Text
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
        [only] if !only.contains('.') && !only.trim().is_empty() && !shows_menu(only) => Some(only),
        _ => None,
    }
}

/// Qt's `ShowMenu`, the only action of a tool button that drops a menu:
/// run through the accessibility API it opens nothing (Dolphin's "Open
/// Menu" stayed shut) where a click opens the menu.
pub(super) fn shows_menu(action: &str) -> bool {
    action.eq_ignore_ascii_case("showmenu")
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
            column: None,
            rect: Rect::new(0, 0, 10, 10),
            handle: ElementHandle(format!("h{id}")),
            role: String::new(),
            states: ufo_core::States::empty(),
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
            // Qt's menu-dropping tool button: clicked with the pointer.
            (ControlType::Button, vec!["ShowMenu"], None),
            (
                ControlType::Button,
                vec!["Press", "ShowMenu"],
                Some("Press"),
            ),
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
