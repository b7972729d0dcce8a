//! Replies as UFO-style models write them, made into the shape the response
//! types expect before they are validated. Only what is unambiguous is
//! changed, and every change is reported as a repair:
//!
//! * keys in another case or spelling (`Observation`, `current_sub_task`,
//!   `Current Sub-Task`) → the canonical key;
//! * UFO's capitalised legacy AppAgent reply (`ControlLabel`, `ControlText`,
//!   `Function`, `Args`, `Status`; its non-visual prompts and experience files
//!   still use it) → `action: {function, arguments: {id, name, ...}, status}`;
//!   the legacy HostAgent reply (`ControlLabel`, `ControlText`) → `function:
//!   select_application_window` with `arguments: {id, name}` (status
//!   `CONTINUE` read as `ASSIGN`: the legacy HostAgent selects what its label
//!   names), and its `Bash` → `run_shell` with `bash_command` (kept as `Bash`,
//!   run before the selection, when the reply also selects);
//! * `arguments` written as a JSON string → the object it holds.
//!
//! Statuses in lower case and a one-element action list need nothing here:
//! statuses parse case-insensitively and an action may be one call or a list.

use serde_json::{Map, Value};
use ufo_desktop::tools::Tool;

/// How a reply type is brought into shape before validation.
pub trait Normalize {
    /// Rewrites `reply` in place; each change is pushed to `repairs`.
    fn normalize(reply: &mut Value, repairs: &mut Vec<String>);
}

/// Canonical keys of every agent reply, by their squashed spelling
/// (lower case, without `_`, `-` or spaces).
const KEYS: &[(&str, &str)] = &[
    ("observation", "observation"),
    ("thought", "thought"),
    ("plan", "plan"),
    ("comment", "comment"),
    ("status", "status"),
    ("questions", "questions"),
    ("result", "result"),
    ("message", "message"),
    ("messages", "message"),
    ("currentsubtask", "current_subtask"),
    ("subtask", "current_subtask"),
    ("action", "action"),
    ("actions", "action"),
    ("function", "function"),
    ("arguments", "arguments"),
    ("args", "arguments"),
    ("savescreenshot", "save_screenshot"),
    ("controllabel", "ControlLabel"),
    ("controltext", "ControlText"),
    ("bash", "Bash"),
    ("reason", "reason"),
    ("subscores", "sub_scores"),
    ("complete", "complete"),
];

fn squash(key: &str) -> String {
    key.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Renames keys of `m` to their canonical spelling (a canonical key already
/// present wins).
fn canonical_keys(m: &mut Map<String, Value>, repairs: &mut Vec<String>) {
    let keys: Vec<String> = m.keys().cloned().collect();
    let mut renamed = Vec::new();
    for k in keys {
        let Some((_, canon)) = KEYS.iter().find(|(s, _)| *s == squash(&k)) else {
            continue;
        };
        if k == *canon || m.contains_key(*canon) {
            continue;
        }
        if let Some(v) = m.remove(&k) {
            renamed.push(format!("{k} → {canon}"));
            m.insert((*canon).to_owned(), v);
        }
    }
    if !renamed.is_empty() {
        repairs.push(format!("keys read as: {}", renamed.join(", ")));
    }
}

/// `arguments` given as a JSON string holding an object → that object.
fn arguments_object(m: &mut Map<String, Value>, path: &str, repairs: &mut Vec<String>) {
    if let Some(Value::String(s)) = m.get("arguments")
        && let Ok(Value::Object(o)) = serde_json::from_str::<Value>(s)
    {
        repairs.push(format!(
            "{path}.arguments: a JSON string, read as the object it holds"
        ));
        m.insert("arguments".into(), Value::Object(o));
    }
}

/// Moves the legacy `ControlLabel`/`ControlText` into `args` as `id`/`name`;
/// true when there was a label.
fn legacy_target(m: &mut Map<String, Value>, args: &mut Map<String, Value>) -> bool {
    let label = m.remove("ControlLabel");
    let text = m.remove("ControlText");
    let label = label.filter(|v| !matches!(v, Value::Null) && v.as_str() != Some(""));
    let Some(label) = label else {
        return false;
    };
    let id = match label {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s,
        other => other.to_string(),
    };
    args.entry("id").or_insert(Value::String(id));
    if let Some(t) = text {
        args.entry("name").or_insert(t);
    }
    true
}

fn args_of(m: &mut Map<String, Value>) -> Map<String, Value> {
    match m.remove("arguments") {
        Some(Value::Object(o)) => o,
        _ => Map::new(),
    }
}

impl Normalize for crate::response::AppResponse {
    fn normalize(reply: &mut Value, repairs: &mut Vec<String>) {
        let Value::Object(m) = reply else { return };
        canonical_keys(m, repairs);
        if !m.contains_key("action")
            && (m.contains_key("function") || m.contains_key("ControlLabel"))
        {
            // UFO's legacy reply: the call's fields sit at the top level.
            arguments_object(m, "$", repairs);
            let mut args = args_of(m);
            legacy_target(m, &mut args);
            let function = m.remove("function").unwrap_or(Value::String(String::new()));
            let mut call = Map::new();
            call.insert("function".into(), function);
            call.insert("arguments".into(), Value::Object(args));
            if let Some(st) = m.get("status") {
                call.insert("status".into(), st.clone());
            }
            m.insert("action".into(), Value::Object(call));
            repairs.push(
                "$: UFO's legacy reply (Function, Args, ControlLabel, ControlText) read as action"
                    .into(),
            );
        }
        match m.get_mut("action") {
            Some(Value::Object(call)) => {
                canonical_keys(call, repairs);
                arguments_object(call, "$.action", repairs);
            }
            Some(Value::Array(calls)) => {
                for (i, c) in calls.iter_mut().enumerate() {
                    if let Value::Object(call) = c {
                        canonical_keys(call, repairs);
                        arguments_object(call, &format!("$.action[{i}]"), repairs);
                    }
                }
            }
            _ => {}
        }
        m.remove("ControlLabel");
        m.remove("ControlText");
    }
}

impl Normalize for crate::response::HostResponse {
    fn normalize(reply: &mut Value, repairs: &mut Vec<String>) {
        let Value::Object(m) = reply else { return };
        canonical_keys(m, repairs);
        arguments_object(m, "$", repairs);
        if m.contains_key("ControlLabel") {
            let mut args = args_of(m);
            if legacy_target(m, &mut args) {
                m.entry("function")
                    .or_insert(Value::String(Tool::SelectApplicationWindow.name().into()));
                repairs.push(format!(
                    "$: UFO's legacy ControlLabel/ControlText read as the arguments of {}",
                    Tool::SelectApplicationWindow
                ));
                legacy_continue_assigns(m, repairs);
            }
            m.insert("arguments".into(), Value::Object(args));
        }
        m.remove("ControlLabel");
        m.remove("ControlText");
        legacy_bash(m, repairs);
    }
}

/// UFO's legacy HostAgent selects the application its `ControlLabel` names
/// with status `CONTINUE` (the seed's own format; ASSIGN came later): that
/// status is read as ASSIGN.
fn legacy_continue_assigns(m: &mut Map<String, Value>, repairs: &mut Vec<String>) {
    let continues = m
        .get("status")
        .and_then(Value::as_str)
        .is_some_and(|s| s.trim().eq_ignore_ascii_case("CONTINUE"));
    if continues {
        m.insert("status".into(), Value::String("ASSIGN".into()));
        repairs.push(
            "$.status: CONTINUE with a ControlLabel selects that application (UFO's legacy HostAgent), read as ASSIGN"
                .into(),
        );
    }
}

/// The seed's `Bash` field: a command the HostAgent runs. Alone it is a
/// `run_shell` call; beside a selection (`ControlLabel`) it stays as `Bash`,
/// run before the application is selected.
fn legacy_bash(m: &mut Map<String, Value>, repairs: &mut Vec<String>) {
    let Some(Value::String(cmd)) = m.remove("Bash") else {
        return;
    };
    if cmd.trim().is_empty() {
        return;
    }
    let selects = m
        .get("function")
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or_default();
    if selects.is_empty() {
        let mut args = Map::new();
        args.insert("bash_command".into(), Value::String(cmd));
        m.insert(
            "function".into(),
            Value::String(Tool::RunShell.name().into()),
        );
        m.insert("arguments".into(), Value::Object(args));
        repairs.push(format!("$.Bash: read as {}(bash_command)", Tool::RunShell));
    } else {
        m.insert("Bash".into(), Value::String(cmd));
    }
}

impl Normalize for crate::response::EvaluationResponse {
    fn normalize(reply: &mut Value, repairs: &mut Vec<String>) {
        if let Value::Object(m) = reply {
            canonical_keys(m, repairs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::response::{AppResponse, HostResponse};
    use serde_json::json;
    use ufo_llm::validate::validate_value;

    fn app(mut v: Value) -> (AppResponse, Vec<String>) {
        let mut repairs = Vec::new();
        AppResponse::normalize(&mut v, &mut repairs);
        (validate_value::<AppResponse>(&v).unwrap(), repairs)
    }

    #[test]
    fn ufo_legacy_app_replies_become_actions() {
        let (r, repairs) = app(json!({
            "Observation": "The dialogs demo is open.",
            "Thought": "Open the interactive dialog.",
            "ControlLabel": "3",
            "ControlText": "Interactive Dialog",
            "Function": "click_input",
            "Args": {"button": "left", "double": false},
            "Status": "CONTINUE",
            "Plan": ["type", "press OK"],
            "Comment": "Opening the dialog."
        }));
        let call = &r.action.unwrap().calls()[0];
        assert_eq!(call.function, "click_input");
        assert_eq!(call.arguments["id"], "3");
        assert_eq!(call.arguments["name"], "Interactive Dialog");
        assert_eq!(call.arguments["button"], "left");
        assert_eq!(call.status.as_deref(), Some("CONTINUE"));
        assert_eq!(r.plan.items(), ["type", "press OK"]);
        assert!(repairs.iter().any(|r| r.contains("legacy")), "{repairs:?}");
    }

    #[test]
    fn legacy_finish_without_a_control_is_no_action() {
        let (r, _) = app(
            json!({"Observation": "done", "Thought": "done", "ControlLabel": "", "ControlText": "", "Function": "", "Args": {}, "Status": "FINISH"}),
        );
        let call = &r.action.unwrap().calls()[0];
        assert_eq!(call.function, "");
        assert!(call.arguments.is_empty());
        assert_eq!(call.status.as_deref(), Some("FINISH"));
    }

    #[test]
    fn arguments_as_a_string_and_odd_key_spellings() {
        let (r, repairs) = app(json!({
            "observation": "x", "Thought": "y",
            "action": [{"Function": "set_edit_text", "arguments": "{\"id\": \"2\", \"text\": \"hi\"}", "status": "continue"}]
        }));
        let call = &r.action.unwrap().calls()[0];
        assert_eq!(call.function, "set_edit_text");
        assert_eq!(call.arguments["text"], "hi");
        assert!(
            repairs.iter().any(|r| r.contains("JSON string")),
            "{repairs:?}"
        );
        // A canonical key is never overwritten by another spelling.
        let (r, _) = app(json!({"observation": "kept", "Observation": "dropped", "thought": ""}));
        assert_eq!(r.observation, "kept");
    }

    #[test]
    fn legacy_host_replies_assign_by_control_label() {
        let mut v = json!({
            "Observation": "Desktop", "Thought": "Use the editor",
            "Current Sub-Task": "Write hello", "Message": ["be quick"],
            "ControlLabel": 2, "ControlText": "notes.txt",
            "Plan": [], "Status": "ASSIGN", "Comment": "", "Questions": []
        });
        let mut repairs = Vec::new();
        HostResponse::normalize(&mut v, &mut repairs);
        let r = validate_value::<HostResponse>(&v).unwrap();
        assert_eq!(r.current_subtask.as_deref(), Some("Write hello"));
        assert_eq!(r.function.as_deref(), Some("select_application_window"));
        let args = r.arguments.unwrap();
        assert_eq!(args["id"], "2");
        assert_eq!(args["name"], "notes.txt");
        assert_eq!(r.status, "ASSIGN");

        // The seed's Bash field starts an application.
        let mut v = json!({"Observation": "no editor", "Thought": "start one", "ControlLabel": "", "ControlText": "", "Status": "CONTINUE", "Bash": "featherpad"});
        let mut repairs = Vec::new();
        HostResponse::normalize(&mut v, &mut repairs);
        let r = validate_value::<HostResponse>(&v).unwrap();
        assert_eq!(r.function.as_deref(), Some("run_shell"));
        assert_eq!(r.arguments.unwrap()["bash_command"], "featherpad");
    }

    #[test]
    fn the_seed_example_continue_with_label_and_bash_selects_after_the_command() {
        // The seed's own example, with values.
        let mut v = json!({
            "Observation": "Desktop screenshot", "Thought": "start the editor, then use it",
            "Current Sub-Task": "Write hello", "Message": "Message to AppAgent",
            "ControlLabel": "2", "ControlText": "mousepad",
            "Plan": ["Sub-task 2"], "Status": "CONTINUE", "Comment": "",
            "Questions": [], "Bash": "mousepad"
        });
        let mut repairs = Vec::new();
        HostResponse::normalize(&mut v, &mut repairs);
        let r = validate_value::<HostResponse>(&v).unwrap();
        assert_eq!(r.status, "ASSIGN");
        assert_eq!(r.function.as_deref(), Some("select_application_window"));
        assert_eq!(r.arguments.unwrap()["name"], "mousepad");
        assert_eq!(r.bash.as_deref(), Some("mousepad"));
        assert!(
            repairs.iter().any(|r| r.contains("read as ASSIGN")),
            "{repairs:?}"
        );
        // Other statuses stay as written.
        let mut v = json!({"Observation": "", "Thought": "", "ControlLabel": "1", "ControlText": "x", "Status": "FINISH"});
        HostResponse::normalize(&mut v, &mut Vec::new());
        assert_eq!(v["status"], "FINISH");
    }
}
