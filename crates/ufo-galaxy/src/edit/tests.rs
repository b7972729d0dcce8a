//! The editor's batches, refusals, device checks and undo.

use super::*;
use crate::model::{DeviceType, TaskStatus};
use serde_json::{Value, json};
use ufo_core::Diagnostic;

fn plan() -> TaskConstellation {
    TaskConstellation::from_value(&json!({"constellation_id": "c", "tasks": [
        {"task_id": "a", "description": "x", "target_device_id": "pc"},
        {"task_id": "b", "description": "y", "target_device_id": "pc"}],
        "dependencies": [{"line_id": "ab", "from_task_id": "a", "to_task_id": "b"}]}))
    .unwrap()
}

fn actions(v: Value) -> Vec<Action> {
    serde_json::from_value(v).unwrap()
}

fn statuses(o: &[Outcome]) -> Vec<&str> {
    o.iter().map(|x| x.status.as_str()).collect()
}

#[test]
fn a_batch_applies_in_order() {
    let mut ed = Editor::new(plan());
    let done = ed
        .apply_actions(&actions(json!([
            {"function": "add_task", "arguments": {"task_id": "c", "name": "C", "description": "z", "tips": ["t"]}},
            {"function": "", "arguments": {}},
            {"function": "add_dependency", "arguments": {"dependency_id": "bc", "from_task_id": "b", "to_task_id": "c", "condition_description": "b wrote the file"}},
            {"function": "update_task", "arguments": {"task_id": "b", "tips": "use /tmp"}},
        ])))
        .unwrap();
    assert_eq!(statuses(&done.outcomes), ["success", "success", "success"]);
    let c = ed.constellation();
    assert_eq!(c.tasks().len(), 3);
    assert_eq!(c.task("b").unwrap().tips, ["use /tmp"]);
    assert_eq!(
        c.dependency("bc").unwrap().condition_description,
        "b wrote the file"
    );
    assert_eq!(ed.undoable(), 1);
}

#[test]
fn a_batch_stops_at_the_first_refusal_and_undo_reverts_it() {
    let mut ed = Editor::new(plan());
    ed.constellation_mut().start_task("a").unwrap();
    let e = ed
        .apply_actions(&actions(json!([
            {"function": "add_task", "arguments": {"task_id": "c", "name": "C", "description": "z"}},
            {"function": "update_task", "arguments": {"task_id": "a", "description": "changed"}},
            {"function": "remove_task", "arguments": {"task_id": "b"}},
        ])))
        .unwrap_err();
    assert_eq!(e.index, 1);
    assert_eq!(statuses(&e.outcomes), ["success", "failure", "skipped"]);
    assert_eq!(e.outcomes[2].error.as_deref(), Some(SKIPPED));
    assert_eq!(
        e.to_string(),
        "Failed to update task: task \"a\" is running; only tasks that have not started (pending) can be edited (edit 2 of 3; the edit before it stayed applied; the edit after it was skipped)"
    );
    assert!(
        ed.constellation().task("c").is_some(),
        "the first edit stayed"
    );
    assert!(
        ed.constellation().task("b").is_some(),
        "the third was skipped"
    );
    ed.undo().unwrap();
    assert!(ed.constellation().task("c").is_none());
    assert_eq!(
        ed.constellation().task("a").unwrap().status,
        TaskStatus::Running
    );
    assert_eq!(ed.undo(), Err(EditError::NothingToUndo));
}

#[test]
fn a_cycle_is_refused_with_its_name_and_nothing_changes() {
    let mut ed = Editor::new(plan());
    let before = ed.constellation().clone();
    let cmd = EditCommand::parse(
        "add_dependency",
        &json!({"dependency_id": "ba", "from_task_id": "b", "to_task_id": "a"}),
    )
    .unwrap();
    let e = ed.apply(&[cmd]).unwrap_err();
    assert_eq!(
        e.error.to_string(),
        "the constellation is not valid: the dependencies form a cycle: a → b → a (dependencies ab, ba)"
    );
    assert_eq!(ed.constellation(), &before);
    assert_eq!(
        ed.undoable(),
        0,
        "a batch that changed nothing leaves no snapshot"
    );
}

#[test]
fn known_devices_are_enforced_on_new_problems_only() {
    let devices = vec![KnownDevice::new("pc", Some(DeviceType::Linux))];
    let mut c = plan();
    c.task_mut("b").unwrap().target_device_id = Some("gone".into());
    let mut ed = Editor::new(c).with_devices(devices);
    assert_eq!(ed.problems().len(), 1, "read with a problem");
    let e = ed
        .apply_actions(&actions(json!([
            {"function": "update_task", "arguments": {"task_id": "a", "name": "still fine"}},
            {"function": "add_task", "arguments": {"task_id": "c", "name": "C", "description": "z", "target_device_id": "laptop"}},
        ])))
        .unwrap_err();
    assert_eq!(e.index, 1);
    assert_eq!(e.error.code(), "ufo::galaxy::unknown_device");
    ed.apply_actions(&actions(json!([
        {"function": "update_task", "arguments": {"task_id": "b", "target_device_id": "pc"}}])))
        .unwrap();
    assert!(ed.problems().is_empty());
}

#[test]
fn undo_keeps_the_run_state_reached_since() {
    let mut ed = Editor::new(plan());
    ed.apply_actions(&actions(json!([
        {"function": "update_task", "arguments": {"task_id": "b", "name": "renamed"}}])))
        .unwrap();
    ed.constellation_mut().start_task("a").unwrap();
    ed.constellation_mut()
        .complete_task("a", json!("done"))
        .unwrap();
    ed.undo().unwrap();
    let c = ed.constellation();
    assert_eq!(c.task("b").unwrap().name, "task_b");
    assert_eq!(c.task("a").unwrap().status, TaskStatus::Completed);
    assert_eq!(c.task("a").unwrap().result, json!("done"));
}

#[test]
fn undo_is_refused_when_the_batch_changed_a_task_that_started() {
    let mut ed = Editor::new(plan());
    ed.apply_actions(&actions(json!([
        {"function": "remove_dependency", "arguments": {"dependency_id": "ab"}}])))
        .unwrap();
    ed.constellation_mut().start_task("b").unwrap();
    assert_eq!(
        ed.undo(),
        Err(EditError::UndoConflict {
            task_ids: vec!["b".into()]
        })
    );
    assert_eq!(ed.undoable(), 1);
}

#[test]
fn unreadable_actions_fail_where_they_are() {
    let mut ed = Editor::new(plan());
    let e = ed
        .apply_actions(&actions(json!([
            {"function": "remove_task", "arguments": {"task_id": "b"}},
            {"function": "rename_everything", "arguments": {}}])))
        .unwrap_err();
    assert_eq!(
        (e.index, e.error.code()),
        (1, "ufo::galaxy::unknown_function")
    );
    assert!(ed.constellation().task("b").is_none());
}

#[test]
fn build_must_be_wholly_valid() {
    let mut ed = Editor::new(plan()).with_devices(vec![KnownDevice::with_os("pc", "linux")]);
    let e = ed
        .apply_actions(&actions(json!([{"function": "build_constellation", "arguments": {"config": {
            "tasks": [{"task_id": "x", "description": "x"}, {"task_id": "x", "description": "y", "target_device_id": "pc"}]}}}])))
        .unwrap_err();
    assert_eq!(e.error.code(), "ufo::galaxy::invalid");
    assert!(
        e.to_string().starts_with(
            "Failed to build constellation: the constellation is not valid (2 problems):"
        ),
        "{e}"
    );
}
