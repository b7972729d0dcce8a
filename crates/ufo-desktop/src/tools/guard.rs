//! Which tool calls SAFE_GUARD stops for the user's confirmation, whatever
//! the model said: calls that erase or close what a person would lose.
//!
//! By default a call is sensitive when it
//! * replaces a control's text (`set_edit_text` with `clear_current_text`),
//! * sends keys that select everything and then delete (`^a{DELETE}`,
//!   `^a{BACKSPACE}`) or close a window or application (`%{F4}`, `^w`, `^q`),
//! * runs a command (`run_shell`),
//! * presses such a chord as an operator (`keypress` with `["ctrl", "w"]`).
//!
//! Only tools whose [`Tool::destructive`] is set can be
//! sensitive; their arguments decide. A config list (`SAFE_GUARD_TOOLS`)
//! replaces that rule by tool name: every call of a listed tool is sensitive,
//! any other call is not.

use super::{Tool, ToolName};
use crate::keyparse::parse_keys;
use crate::keys::{Key, KeyEvent, NamedKey};
use serde_json::{Map, Value};

/// Why a call of `tool` with `arguments` needs the user's confirmation, or
/// `None`. `tools` is the configured `SAFE_GUARD_TOOLS`, when given.
pub fn sensitive(
    tool: &ToolName,
    arguments: &Map<String, Value>,
    tools: Option<&[String]>,
) -> Option<String> {
    if let Some(list) = tools {
        // A listed older name stands for the tool it names.
        return list
            .iter()
            .any(|t| {
                t.trim().eq_ignore_ascii_case(tool.as_str())
                    || tool.builtin().is_some() && ToolName::parse(t) == *tool
            })
            .then(|| format!("{tool} is listed in SAFE_GUARD_TOOLS"));
    }
    // Only a tool its spec calls destructive can be; its arguments say whether
    // this call is.
    let t = tool.builtin().filter(|t| t.destructive())?;
    match t {
        Tool::SetEditText => arguments
            .get("clear_current_text")
            .is_some_and(truthy)
            .then(|| "it replaces the control's whole text".to_owned()),
        Tool::KeyboardInput => arguments
            .get("keys")
            .and_then(Value::as_str)
            .and_then(erasing_or_closing),
        Tool::RunShell => Some("it runs a command".to_owned()),
        Tool::Keypress => arguments
            .get("keys")
            .and_then(Value::as_array)
            .map(|keys| chord(keys))
            .and_then(|k| erasing_or_closing(&k)),
        _ => None,
    }
}

/// An operator chord (`["ctrl", "w"]`, `["alt+F4"]`) in key syntax (`^w`,
/// `%{F4}`), so one rule judges both.
fn chord(keys: &[Value]) -> String {
    let mut mods = String::new();
    let mut rest = String::new();
    for k in keys
        .iter()
        .filter_map(Value::as_str)
        .flat_map(|k| k.split('+'))
    {
        match k.trim().to_ascii_lowercase().as_str() {
            "ctrl" | "control" => mods.push('^'),
            "alt" | "option" => mods.push('%'),
            "shift" => mods.push('+'),
            "" => {}
            other if other.chars().count() == 1 => rest.push_str(other),
            other => rest.push_str(&format!("{{{}}}", other.to_ascii_uppercase())),
        }
    }
    format!("{mods}{rest}")
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => matches!(s.trim().to_ascii_lowercase().as_str(), "true" | "yes" | "1"),
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        _ => false,
    }
}

/// What a key sequence would do that a person could lose work by.
fn erasing_or_closing(keys: &str) -> Option<String> {
    let events = parse_keys(keys).ok()?;
    let mut held: Vec<Key> = Vec::new();
    let mut selected_all = false;
    for e in events {
        let k = match e {
            KeyEvent::Down(k) => k,
            KeyEvent::Up(k) => {
                held.retain(|h| *h != k);
                continue;
            }
        };
        let ctrl = held.contains(&Key::Named(NamedKey::Control));
        let alt = held.contains(&Key::Named(NamedKey::Alt));
        match k {
            Key::Named(NamedKey::F(4)) if alt => return Some("Alt+F4 closes the window".into()),
            Key::Char(c) if ctrl && matches!(c.to_ascii_lowercase(), 'w' | 'q') => {
                return Some(format!(
                    "Ctrl+{} closes the window or the application",
                    c.to_ascii_uppercase()
                ));
            }
            Key::Char(c) if ctrl && c.eq_ignore_ascii_case(&'a') => selected_all = true,
            Key::Named(NamedKey::Delete | NamedKey::Backspace) if selected_all => {
                return Some("it selects everything and deletes it".into());
            }
            _ => {}
        }
        held.push(k);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn erasing_replacing_closing_and_commands_are_sensitive() {
        let yes = [
            (
                "set_edit_text",
                json!({"text": "x", "clear_current_text": true}),
            ),
            ("keyboard_input", json!({"keys": "^a{DELETE}"})),
            ("keyboard_input", json!({"keys": "^A{BACKSPACE}"})),
            ("keyboard_input", json!({"keys": "%{F4}"})),
            ("keyboard_input", json!({"keys": "hello^w"})),
            ("run_shell", json!({"bash_command": "mousepad"})),
            ("keypress", json!({"keys": ["CTRL", "W"]})),
            ("keypress", json!({"keys": ["alt+F4"]})),
        ];
        for (tool, a) in yes {
            assert!(
                sensitive(&ToolName::parse(tool), &args(a.clone()), None).is_some(),
                "{tool} {a}"
            );
        }
        let no = [
            ("set_edit_text", json!({"text": "x"})),
            ("keyboard_input", json!({"keys": "hello{BACKSPACE}{ENTER}"})),
            ("keyboard_input", json!({"keys": "^s"})),
            ("keyboard_input", json!({"keys": "{F4}"})),
            ("click_input", json!({"id": "1", "name": "Delete"})),
            ("keypress", json!({"keys": ["ctrl", "s"]})),
            ("keypress", json!({"keys": ["enter"]})),
        ];
        for (tool, a) in no {
            assert_eq!(
                sensitive(&ToolName::parse(tool), &args(a.clone()), None),
                None,
                "{tool} {a}"
            );
        }
    }

    #[test]
    fn the_configured_list_replaces_the_rule() {
        let list = vec!["click_input".to_owned()];
        assert!(sensitive(&ToolName::parse("click_input"), &Map::new(), Some(&list)).is_some());
        let clear = args(json!({"text": "x", "clear_current_text": true}));
        assert_eq!(
            sensitive(&ToolName::parse("set_edit_text"), &clear, Some(&list)),
            None
        );
        assert_eq!(
            sensitive(&ToolName::parse("set_edit_text"), &clear, Some(&[])),
            None
        );
        // An older name in the list, or in the call, is the tool it names.
        let list = vec!["type_keys".to_owned()];
        assert!(sensitive(&ToolName::parse("set_edit_text"), &clear, Some(&list)).is_some());
        let list = vec!["fs.write_file".to_owned()];
        assert!(sensitive(&ToolName::parse("fs.write_file"), &Map::new(), Some(&list)).is_some());
        assert!(sensitive(&ToolName::parse("fs.read_file"), &Map::new(), Some(&list)).is_none());
    }
}
