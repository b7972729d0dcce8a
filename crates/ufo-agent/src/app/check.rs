//! Checking an AppAgent reply against the tool catalog and the control list,
//! with the repairs that are unambiguous.

use super::*;
use ufo_desktop::designate::{Unresolved, resolve};

/// Validates an AppAgent reply against the tool catalog and the control list;
/// repairs a control id from an unambiguous control name.
pub(crate) fn check_app_reply(
    mut r: AppResponse,
    controls: &[Control],
    specs: &[ufo_core::ToolSpec],
    repairs: &mut Vec<String>,
) -> Result<Checked<AppResponse, AppAgentStatus>, String> {
    let mut status = match &r.status {
        Some(s) => Some(
            s.parse::<AppAgentStatus>()
                .map_err(|e| format!("$.status: {e}"))?,
        ),
        None => None,
    };
    let many = matches!(r.action, Some(crate::response::Actions::Many(_)));
    let mut calls = r.action.as_ref().map(|a| a.calls()).unwrap_or_default();
    for (i, c) in calls.iter_mut().enumerate() {
        let path = if many {
            format!("$.action[{i}]")
        } else {
            "$.action".to_owned()
        };
        if let Some(s) = &c.status {
            // The last action's status is the step's.
            status = Some(
                s.parse::<AppAgentStatus>()
                    .map_err(|e| format!("{path}.status: {e}"))?,
            );
        }
        // UFO's own convention for "no action" (FINISH, FAIL, ERROR with
        // nothing more to do): an empty function.
        if c.function.trim().is_empty() {
            continue;
        }
        // UFO's older names (`click_element`) are read as the tool they name.
        let f = c.function.trim();
        let f = f
            .parse::<ufo_desktop::tools::Tool>()
            .map_or(f, |t| t.name());
        // `ns.*` stands for every tool of an external server that did not
        // start: the call goes through and fails with that server's error.
        let spec = specs
            .iter()
            .find(|s| s.name == f)
            .or_else(|| {
                specs.iter().find(|s| {
                    s.name.strip_suffix('*').is_some_and(|ns| {
                        ns.ends_with('.') && f.len() > ns.len() && f.starts_with(ns)
                    })
                })
            })
            .ok_or_else(|| {
                format!(
                    "{path}.function: unknown tool {:?}; use one of {}",
                    c.function,
                    specs
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
        if !spec.name.ends_with('*') {
            c.function = spec.name.clone();
        }
        let focus_free = c.function == "keyboard_input"
            && c.arguments.get("control_focus").and_then(Value::as_bool) == Some(false);
        if !spec.targets_control || focus_free && !c.arguments.contains_key("id") {
            continue;
        }
        fix_control(&mut c.arguments, controls, &path, repairs)?;
    }
    calls.retain(|c| !c.function.trim().is_empty());
    // No status: a step without actions is done, one with actions goes on.
    let status = status.unwrap_or(match calls.is_empty() {
        true => AppAgentStatus::Finish,
        false => AppAgentStatus::Continue,
    });
    if let Some(a) = &mut r.action {
        *a = if many {
            crate::response::Actions::Many(calls)
        } else {
            match calls.into_iter().next() {
                Some(c) => crate::response::Actions::One(c),
                None => {
                    r.action = None;
                    return Ok(Checked { reply: r, status });
                }
            }
        };
    }
    Ok(Checked { reply: r, status })
}

fn fix_control(
    args: &mut Map<String, Value>,
    controls: &[Control],
    path: &str,
    repairs: &mut Vec<String>,
) -> Result<(), String> {
    let id = args.get("id").and_then(ufo_desktop::tools::parse_id);
    let name = args.get("name").and_then(Value::as_str).map(str::to_owned);
    match resolve(controls, id, name.as_deref(), true) {
        Ok(r) if r.repaired => {
            repairs.push(format!(
                "{path}.arguments.id: {} → {} (the control named {:?})",
                args.get("id")
                    .map(Value::to_string)
                    .unwrap_or_else(|| "missing".into()),
                r.item.id,
                name.unwrap_or_default()
            ));
            args.insert("id".into(), Value::String(r.item.id.to_string()));
            Ok(())
        }
        Ok(_) => Ok(()),
        Err(Unresolved::NoId) => Err(format!(
            "{path}.arguments.id: missing or not a number; give the id of a control from <Available Control Item:>"
        )),
        Err(Unresolved::UnknownId { id, count }) => Err(format!(
            "{path}.arguments.id: there is no control with id {id} (the ids are 1..{count}); use an id from <Available Control Item:>"
        )),
        Err(Unresolved::NameMismatch { id, actual, given }) => Err(format!(
            "{path}.arguments.name: control {id} is named {actual:?}, not {given:?}; give the id and the name of the same listed control"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use ufo_core::ui::Capabilities;
    use ufo_core::{ControlType, ElementHandle, Rect};

    fn control(id: u32, name: &str) -> Control {
        Control {
            id,
            name: name.into(),
            control_type: ControlType::Button,
            value: None,
            rect: Rect::new(0, 0, 5, 5),
            handle: ElementHandle(format!("h{id}")),
            role: "push button".into(),
            states: ufo_core::States::empty(),
            actions: vec![],
            capabilities: Capabilities::default(),
        }
    }

    fn reply(action: Value) -> AppResponse {
        serde_json::from_value(json!({"observation": "o", "thought": "t", "action": action}))
            .unwrap()
    }

    #[test]
    fn unknown_id_is_repaired_from_the_name_or_reported() {
        let cs = vec![control(1, "1"), control(2, "7"), control(3, "7 ")];
        let specs = catalog_for(APP_UI_EXECUTOR);
        let mut rep = Vec::new();
        let r = check_app_reply(
            reply(json!({"function": "click_input", "arguments": {"id": "99", "name": "1"}, "status": "CONTINUE"})),
            &cs,
            &specs,
            &mut rep,
        )
        .unwrap();
        let c = &r.reply.action.unwrap().calls()[0];
        assert_eq!(c.arguments["id"], "1");
        assert_eq!(rep.len(), 1);
        let e = check_app_reply(
            reply(json!({"function": "click_input", "arguments": {"id": "99"}})),
            &cs,
            &specs,
            &mut rep,
        )
        .unwrap_err();
        assert!(e.contains("no control with id 99"), "{e}");
        let e = check_app_reply(
            reply(json!({"function": "fly", "arguments": {}})),
            &cs,
            &specs,
            &mut rep,
        )
        .unwrap_err();
        assert!(e.starts_with("$.action.function: unknown tool"), "{e}");
        // UFO's older name of a tool is read as that tool.
        let r = check_app_reply(
            reply(json!({"function": "click_element", "arguments": {"id": "1", "name": "1"}})),
            &cs,
            &specs,
            &mut rep,
        )
        .unwrap();
        assert_eq!(r.reply.action.unwrap().calls()[0].function, "click_input");
        let e = check_app_reply(
            reply(json!([{"function": "click_input", "arguments": {"id": "1", "name": "1"}, "status": "DONE"}])),
            &cs,
            &specs,
            &mut rep,
        )
        .unwrap_err();
        assert!(e.starts_with("$.action[0].status"), "{e}");
    }

    #[test]
    fn external_tools_are_checked_by_name_and_a_down_server_by_namespace() {
        let external = |name: &str| ufo_core::ToolSpec {
            name: name.into(),
            namespace: "fs".into(),
            description: String::new(),
            parameters: json!({"type": "object"}),
            tool_type: ufo_core::ToolType::Action,
            destructive: false,
            targets_control: false,
            examples: Vec::new(),
        };
        let mut specs = catalog_for(APP_UI_EXECUTOR);
        specs.push(external("fs.read_text_file"));
        specs.push(external("down.*"));
        let mut rep = Vec::new();
        for f in ["fs.read_text_file", "down.anything"] {
            let r = check_app_reply(
                reply(json!({"function": f, "arguments": {"path": "/x"}})),
                &[],
                &specs,
                &mut rep,
            )
            .unwrap();
            assert_eq!(r.reply.action.unwrap().calls()[0].function, f);
        }
        for f in ["fs.nope", "down.", "down", "other.x"] {
            let e = check_app_reply(
                reply(json!({"function": f, "arguments": {}})),
                &[],
                &specs,
                &mut rep,
            )
            .unwrap_err();
            assert!(e.contains("unknown tool"), "{f}: {e}");
        }
    }
}
