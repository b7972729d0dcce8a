//! Checking an AppAgent reply against the tool catalog and the control list,
//! with the repairs that are unambiguous.

use crate::call::{Call, Decision, parse_status};
use crate::llm::Checked;
use crate::response::AppResponse;
use serde_json::{Map, Value};
use ufo_core::{AppAgentStatus, Control};
use ufo_desktop::designate::{Unresolved, resolve};
use ufo_desktop::tools::{Tool, ToolName};

/// Validates an AppAgent reply against the tool catalog and the control list;
/// repairs a control id from an unambiguous control name. Every name and
/// status is read here, once: the [`Decision`] carries them typed, and the
/// reply keeps the wire form (tool names written as the catalog spells them).
pub(crate) fn check_app_reply(
    mut r: AppResponse,
    controls: &[Control],
    specs: &[ufo_core::ToolSpec],
    repairs: &mut Vec<String>,
) -> Result<Checked<AppResponse, Decision>, String> {
    let mut status = parse_status(r.status.as_deref(), "$")?;
    let many = matches!(r.action, Some(crate::response::Actions::Many(_)));
    let mut wire = r.action.as_ref().map(|a| a.calls()).unwrap_or_default();
    let mut calls = Vec::with_capacity(wire.len());
    for (i, c) in wire.iter_mut().enumerate() {
        let path = if many {
            format!("$.action[{i}]")
        } else {
            "$.action".to_owned()
        };
        let mut call = Call::read(c, &path)?;
        // The last action's status is the step's.
        status = call.status.or(status);
        // UFO's own convention for "no action" (FINISH, FAIL, ERROR with
        // nothing more to do): an empty function.
        if call.tool.is_empty() {
            continue;
        }
        let spec = spec_of(&call.tool, specs).ok_or_else(|| {
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
        // UFO's older names (`click_element`) are written as the tool they name.
        c.function = call.tool.as_str().to_owned();
        let focus_free = call.tool.is(Tool::KeyboardInput)
            && c.arguments.get("control_focus").and_then(Value::as_bool) == Some(false);
        // A focus-free `keyboard_input` without an id types where the focus is.
        let at_focus = focus_free && !c.arguments.contains_key("id");
        if spec.targets_control && !at_focus {
            fix_control(&mut c.arguments, controls, &path, repairs)?;
        }
        call.arguments.clone_from(&c.arguments);
        calls.push(call);
    }
    wire.retain(|c| !c.function.trim().is_empty());
    // No status: a step without actions is done, one with actions goes on.
    let status = status.unwrap_or(match calls.is_empty() {
        true => AppAgentStatus::Finish,
        false => AppAgentStatus::Continue,
    });
    if r.action.is_some() {
        r.action = match many {
            true => Some(crate::response::Actions::Many(wire)),
            false => wire.into_iter().next().map(crate::response::Actions::One),
        };
    }
    Ok(Checked {
        reply: r,
        parsed: Decision { status, calls },
    })
}

/// The spec of `tool` among `specs`: a catalog tool by its name, an external
/// one by its name or, for a server that did not start, by its namespace
/// (`ns.*` stands for every tool of that server: the call goes through and
/// fails with that server's error).
fn spec_of<'a>(tool: &ToolName, specs: &'a [ufo_core::ToolSpec]) -> Option<&'a ufo_core::ToolSpec> {
    let f = tool.as_str();
    specs.iter().find(|s| s.name == f).or_else(|| match tool {
        ToolName::Builtin(_) => None,
        ToolName::External(_) => specs.iter().find(|s| {
            s.name
                .strip_suffix('*')
                .is_some_and(|ns| ns.ends_with('.') && f.len() > ns.len() && f.starts_with(ns))
        }),
    })
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
    use ufo_desktop::tools::APP_UI_EXECUTOR;
    use ufo_desktop::tools::catalog_for;

    fn control(id: u32, name: &str) -> Control {
        Control {
            id,
            name: name.into(),
            control_type: ControlType::Button,
            value: None,
            column: None,
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
        assert_eq!(r.parsed.calls[0].tool, ToolName::Builtin(Tool::ClickInput));
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
            // Not the catalog's: it stays external and goes out as named.
            assert_eq!(r.parsed.calls[0].tool, ToolName::External(f.into()));
            assert_eq!(r.parsed.calls[0].command().tool_name, f);
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

    #[test]
    fn names_and_statuses_are_read_once_into_the_decision() {
        let cs = vec![control(1, "1"), control(2, "Name")];
        let specs = catalog_for(APP_UI_EXECUTOR);
        let mut rep = Vec::new();
        let r = check_app_reply(
            reply(json!([
                {"function": "SetEditTextCommand", "arguments": {"id": "2", "name": "Name", "text": "x"}, "status": "continue"},
                {"function": "", "status": "CONTINUE"},
                {"function": "keyboard_input", "arguments": {"keys": "{ENTER}", "control_focus": false}, "status": "Finish"}
            ])),
            &cs,
            &specs,
            &mut rep,
        )
        .unwrap();
        let Decision { status, calls } = &r.parsed;
        // The last call's status is the step's; each call keeps its own.
        assert_eq!(*status, AppAgentStatus::Finish);
        let tools: Vec<_> = calls.iter().map(|c| (c.tool.clone(), c.status)).collect();
        assert_eq!(
            tools,
            [
                (Tool::SetEditText.into(), Some(AppAgentStatus::Continue)),
                (Tool::KeyboardInput.into(), Some(AppAgentStatus::Finish)),
            ]
        );
        // The wire reply keeps its strings (the empty call dropped, the older
        // name written as the catalog's), for the log.
        let wire = r.reply.action.unwrap().calls();
        assert_eq!(wire.len(), 2);
        assert_eq!(wire[0].function, "set_edit_text");
        assert_eq!(wire[0].status.as_deref(), Some("continue"));
        assert_eq!(wire[0].arguments, calls[0].arguments);
        // A reply-level status stands when no call gives one; none at all
        // is FINISH without calls.
        let r: AppResponse = serde_json::from_value(
            json!({"observation": "o", "thought": "t", "status": "PENDING", "questions": ["Which?"]}),
        )
        .unwrap();
        let r = check_app_reply(r, &cs, &specs, &mut rep).unwrap();
        assert_eq!(r.parsed.status, AppAgentStatus::Pending);
        assert!(r.parsed.calls.is_empty());
        let r = check_app_reply(reply(json!({"function": ""})), &cs, &specs, &mut rep).unwrap();
        assert_eq!(r.parsed.status, AppAgentStatus::Finish);
        assert!(r.reply.action.is_none());
    }
}
