//! Executors of the operator's coordinate tools: screen points straight to
//! the backend's input, keys by name (OpenAI's `CTRL`, Anthropic's `Return`,
//! pywinauto's `VK_` names all read).

use super::ToolContext;
use super::params::operator as p;
use super::params::parse;
use super::spec::Tool;
use crate::backend::{Backend, MouseButton};
use crate::error::{DesktopError, Result};
use crate::keyparse::{key_by_name, literal_text};
use crate::keys::{Key, KeyEvent};
use serde_json::{Value, json};
use std::time::Duration;
use ufo_core::{Point, Screen};

/// Wheel notches one call may scroll.
const MAX_NOTCHES: f64 = 1000.0;
/// Points one drag may pass.
const MAX_PATH: usize = 1000;

/// Other systems' key names, read as ours.
const ALIASES: &[(&str, &str)] = &[
    ("return", "ENTER"),
    ("arrowleft", "LEFT"),
    ("arrowright", "RIGHT"),
    ("arrowup", "UP"),
    ("arrowdown", "DOWN"),
    ("page_up", "PAGEUP"),
    ("page_down", "PAGEDOWN"),
    ("cmd", "SUPER"),
    ("meta", "SUPER"),
    ("option", "ALT"),
    ("esc", "ESCAPE"),
    ("del", "DELETE"),
];

fn key(name: &str) -> Option<Key> {
    let trimmed = name.trim();
    let lower = trimmed.to_ascii_lowercase();
    let name = ALIASES
        .iter()
        .find(|(a, _)| *a == lower)
        .map(|(_, n)| *n)
        .unwrap_or(trimmed);
    key_by_name(name).or_else(|| key_by_name(&name.to_ascii_uppercase()))
}

fn point(x: f64, y: f64) -> Point<Screen> {
    Point::new(x.round() as i32, y.round() as i32)
}

fn bad(tool: Tool, detail: String) -> DesktopError {
    DesktopError::BadArguments {
        tool: tool.name().to_owned(),
        detail,
    }
}

/// Runs one operator tool, then waits for the applications to react (see
/// [`super::window::settle`]): the next screenshot, and the model that reads
/// it, see what the click or key did, however loaded the machine (a
/// calculator shows the result of `=` only once it has computed it).
pub(super) async fn run(
    tool: Tool,
    b: &dyn Backend,
    ctx: &mut ToolContext,
    params: &Value,
) -> Result<Value> {
    let mark = b.event_mark();
    let done = act(tool, b, params).await?;
    if tool != Tool::Move {
        super::window::settle(b, ctx, mark).await;
    }
    Ok(done)
}

async fn act(tool: Tool, b: &dyn Backend, params: &Value) -> Result<Value> {
    let name = tool.name();
    match tool {
        Tool::Click => {
            let a: p::Click = parse(name, params)?;
            b.click_at(point(a.x, a.y), a.button, false).await?;
            Ok(
                json!({"point": {"x": a.x.round(), "y": a.y.round()}, "button": format!("{:?}", a.button).to_ascii_lowercase()}),
            )
        }
        Tool::DoubleClick => {
            let a: p::At = parse(name, params)?;
            b.click_at(point(a.x, a.y), MouseButton::Left, true).await?;
            Ok(json!({"point": {"x": a.x.round(), "y": a.y.round()}}))
        }
        Tool::Move => {
            let a: p::At = parse(name, params)?;
            b.move_pointer(point(a.x, a.y)).await?;
            Ok(json!({"point": {"x": a.x.round(), "y": a.y.round()}}))
        }
        Tool::Drag => {
            let a: p::Drag = parse(name, params)?;
            let (Some(from), Some(to)) = (a.path.first(), a.path.last()) else {
                return Err(bad(tool, "`path` needs at least two points".into()));
            };
            if a.path.len() < 2 || a.path.len() > MAX_PATH {
                return Err(bad(
                    tool,
                    format!("`path` has {} points; give 2 to {MAX_PATH}", a.path.len()),
                ));
            }
            b.drag(
                point(from.x, from.y),
                point(to.x, to.y),
                MouseButton::Left,
                Duration::from_millis(300),
            )
            .await?;
            Ok(
                json!({"from": {"x": from.x.round(), "y": from.y.round()}, "to": {"x": to.x.round(), "y": to.y.round()}}),
            )
        }
        Tool::Scroll => {
            let a: p::Scroll = parse(name, params)?;
            let n = a.scroll_y.round();
            if n.abs() > MAX_NOTCHES {
                return Err(bad(
                    tool,
                    format!("`scroll_y` is {n}; at most {MAX_NOTCHES} notches either way"),
                ));
            }
            if n != 0.0 {
                // Our backend counts up as positive.
                b.scroll_at(point(a.x, a.y), -(n as i32)).await?;
            }
            Ok(json!({"point": {"x": a.x.round(), "y": a.y.round()}, "scroll_y": n}))
        }
        Tool::Keypress => {
            let a: p::Keypress = parse(name, params)?;
            if a.keys.is_empty() {
                return Err(bad(tool, "`keys` is empty; e.g. [\"ctrl\", \"a\"]".into()));
            }
            let mut keys = Vec::with_capacity(a.keys.len());
            for k in &a.keys {
                // "ctrl+a" in one string, as Anthropic writes it.
                for part in k.split('+').filter(|s| !s.is_empty()) {
                    keys.push(key(part).ok_or_else(|| {
                        bad(
                            tool,
                            format!("{part:?} is not a key name; e.g. \"ctrl\", \"enter\", \"a\""),
                        )
                    })?);
                }
            }
            let mut events: Vec<KeyEvent> = keys.iter().cloned().map(KeyEvent::Down).collect();
            events.extend(keys.iter().rev().cloned().map(KeyEvent::Up));
            b.send_keys(&events).await?;
            Ok(json!({"keys": a.keys}))
        }
        Tool::Type => {
            let a: p::TypeText = parse(name, params)?;
            b.send_keys(&literal_text(&a.text)).await?;
            Ok(json!({"typed": a.text.chars().count()}))
        }
        other => Err(DesktopError::UnknownTool(other.name().to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_of_other_systems() {
        for n in [
            "CTRL",
            "ctrl",
            "Return",
            "ENTER",
            "ArrowLeft",
            "esc",
            "a",
            "F5",
            "BackSpace",
        ] {
            assert!(key(n).is_some(), "{n}");
        }
        assert!(key("hyperdrive").is_none());
    }
}
