//! Which tool calls SAFE_GUARD stops for the user's confirmation, whatever
//! the model said: calls that erase or close what a person would lose.
//!
//! By default a call is sensitive when it
//! * replaces a control's text (`set_edit_text` with `clear_current_text`),
//! * sends keys that select everything (`^a`, or `^+{END}` from the
//!   document's start) and then delete, type, cut or paste over it, in the
//!   same call or the next one (`^a{DELETE}`, `^{HOME}^+{END}{BACKSPACE}`,
//!   `^a` then `x`), or close a window or application (`%{F4}`, `^w`, `^q`),
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
    sensitive_after(tool, arguments, tools, false)
}

/// [`sensitive`] for a call that follows one which left everything
/// selected (`selected`, from [`leaves_all_selected`]): then typing,
/// deleting, cutting or pasting erases it all, even in a call of its own
/// (`^a` in one step, `{BACKSPACE}` in the next).
pub fn sensitive_after(
    tool: &ToolName,
    arguments: &Map<String, Value>,
    tools: Option<&[String]>,
    selected: bool,
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
    let t = tool.builtin()?;
    if selected && matches!(t, Tool::SetEditText | Tool::Type) {
        return Some("everything is selected: the text would replace it".to_owned());
    }
    // Only a tool its spec calls destructive can be; its arguments say whether
    // this call is.
    if !t.destructive() {
        return None;
    }
    match t {
        Tool::SetEditText => arguments
            .get("clear_current_text")
            .is_some_and(truthy)
            .then(|| "it replaces the control's whole text".to_owned()),
        Tool::KeyboardInput => arguments
            .get("keys")
            .and_then(Value::as_str)
            .and_then(|k| keys_effect(k, selected).erases),
        Tool::RunShell => Some("it runs a command".to_owned()),
        Tool::Keypress => arguments
            .get("keys")
            .and_then(Value::as_array)
            .map(|keys| chord(keys))
            .and_then(|k| keys_effect(&k, selected).erases),
        _ => None,
    }
}

/// Whether a call leaves everything selected (`^a`, `^+{END}` as its last
/// selecting keys), so that what the next call types, deletes or pastes
/// replaces it all. `selected`: the call before left everything selected.
pub fn leaves_all_selected(
    tool: &ToolName,
    arguments: &Map<String, Value>,
    selected: bool,
) -> bool {
    match tool.builtin() {
        Some(Tool::KeyboardInput) => arguments
            .get("keys")
            .and_then(Value::as_str)
            .is_some_and(|k| keys_effect(k, selected).selected),
        Some(Tool::Keypress) => arguments
            .get("keys")
            .and_then(Value::as_array)
            .is_some_and(|keys| keys_effect(&chord(keys), selected).selected),
        _ => false,
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

/// What a key sequence does that a person could lose work by.
struct KeysEffect {
    /// Why it erases or closes, if it does.
    erases: Option<String>,
    /// Everything is selected when it ends.
    selected: bool,
}

/// Reads a key sequence stroke by stroke. Everything counts as selected
/// after Ctrl+A or Ctrl+Shift+Home/End (from the caret to the document's
/// start or end) and stays so until a key that moves the caret; while it
/// is, Delete, Backspace, Enter, a typed character, Ctrl+X and Ctrl+V
/// erase it. Alt+F4, Ctrl+W and Ctrl+Q close.
fn keys_effect(keys: &str, selected: bool) -> KeysEffect {
    let Ok(events) = parse_keys(keys) else {
        return KeysEffect {
            erases: None,
            selected,
        };
    };
    let mut held: Vec<Key> = Vec::new();
    let mut selected_all = selected;
    let erased = |why: &str| KeysEffect {
        erases: Some(why.to_owned()),
        selected: false,
    };
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
        let shift = held.contains(&Key::Named(NamedKey::Shift));
        match k {
            Key::Named(NamedKey::F(4)) if alt => return erased("Alt+F4 closes the window"),
            Key::Char(c) if ctrl && matches!(c.to_ascii_lowercase(), 'w' | 'q') => {
                return KeysEffect {
                    erases: Some(format!(
                        "Ctrl+{} closes the window or the application",
                        c.to_ascii_uppercase()
                    )),
                    selected: false,
                };
            }
            Key::Char(c) if ctrl && c.eq_ignore_ascii_case(&'a') => selected_all = true,
            Key::Named(NamedKey::Home | NamedKey::End) if ctrl && shift => selected_all = true,
            Key::Named(NamedKey::Delete | NamedKey::Backspace | NamedKey::Enter)
                if selected_all =>
            {
                return erased("it selects everything and deletes it");
            }
            Key::Char(c) if selected_all && ctrl && matches!(c.to_ascii_lowercase(), 'x' | 'v') => {
                return erased("it selects everything and cuts or pastes over it");
            }
            Key::Char(_) if selected_all && !ctrl && !alt => {
                return erased("it selects everything and types over it");
            }
            Key::Named(
                NamedKey::Left
                | NamedKey::Right
                | NamedKey::Up
                | NamedKey::Down
                | NamedKey::Home
                | NamedKey::End
                | NamedKey::PageUp
                | NamedKey::PageDown
                | NamedKey::Tab
                | NamedKey::Escape,
            ) => selected_all = false,
            _ => {}
        }
        held.push(k);
    }
    KeysEffect {
        erases: None,
        selected: selected_all,
    }
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
            // Selecting everything spelled otherwise, then erasing it.
            ("keyboard_input", json!({"keys": "^{HOME}^+{END}{DELETE}"})),
            ("keyboard_input", json!({"keys": "^+{HOME}{BACKSPACE}"})),
            ("keyboard_input", json!({"keys": "^anew text"})),
            ("keyboard_input", json!({"keys": "^a^x"})),
            ("keyboard_input", json!({"keys": "^a^v"})),
            ("keyboard_input", json!({"keys": "^a{ENTER}"})),
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
            // Selected, then the caret moved: nothing is replaced.
            ("keyboard_input", json!({"keys": "^a{RIGHT}x"})),
            ("keyboard_input", json!({"keys": "^a^c"})),
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
    fn a_selection_left_by_one_call_makes_the_next_erasing_call_sensitive() {
        let tool = |n: &str| ToolName::parse(n);
        let select = args(json!({"keys": "^a"}));
        assert_eq!(sensitive(&tool("keyboard_input"), &select, None), None);
        let selected = leaves_all_selected(&tool("keyboard_input"), &select, false);
        assert!(selected);
        for (t, a) in [
            ("keyboard_input", json!({"keys": "{BACKSPACE}"})),
            ("keyboard_input", json!({"keys": "hello"})),
            ("keypress", json!({"keys": ["delete"]})),
            ("set_edit_text", json!({"text": "x"})),
            ("type", json!({"text": "x"})),
        ] {
            let a = args(a);
            assert!(
                sensitive_after(&tool(t), &a, None, selected).is_some(),
                "{t} {a:?}"
            );
            assert_eq!(
                sensitive_after(&tool(t), &a, None, false),
                None,
                "{t} {a:?}"
            );
        }
        // A click or a caret move ends the selection.
        assert!(!leaves_all_selected(
            &tool("click_input"),
            &Map::new(),
            true
        ));
        let moved = args(json!({"keys": "{END}"}));
        assert!(!leaves_all_selected(&tool("keyboard_input"), &moved, true));
        let copied = args(json!({"keys": "^c"}));
        assert!(leaves_all_selected(&tool("keyboard_input"), &copied, true));
        let chord = args(json!({"keys": ["ctrl", "a"]}));
        assert!(leaves_all_selected(&tool("keypress"), &chord, false));
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
