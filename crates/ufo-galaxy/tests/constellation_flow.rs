//! One constellation through the model layer: read in UFO's serialised
//! shape and written back identically, edited by a model's batch (one that
//! applies, one that stops at a refusal), scheduled as its tasks complete
//! and fail, repaired, and rendered as Mermaid.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use ufo_core::Diagnostic;
use ufo_galaxy::edit::{Action, Editor, OutcomeStatus};
use ufo_galaxy::ready::{BlockReason, Gating, schedule};
use ufo_galaxy::validate::{KnownDevice, ValidationError, validate, validate_with_devices};
use ufo_galaxy::{
    ConstellationState, DependencyType, DeviceType, TaskConstellation, TaskPriority, TaskStatus,
};

const T0: &str = "2026-03-02T09:00:00.000000+00:00";
const T1: &str = "2026-03-02T09:04:10.500000+00:00";

fn task(
    id: &str,
    name: &str,
    description: &str,
    device: &str,
    deps: &[&str],
    dependents: &[&str],
) -> Value {
    json!({
        "task_id": id, "name": name, "description": description, "tips": [],
        "task_description": description, "target_device_id": device, "device_type": null,
        "priority": 2, "status": "pending", "result": null, "error": null, "timeout": null,
        "retry_count": 0, "current_retry": 0, "task_data": {}, "expected_output_type": null,
        "created_at": T0, "updated_at": T0, "execution_start_time": null,
        "execution_end_time": null, "execution_duration": null,
        "dependencies": deps, "dependents": dependents,
    })
}

fn line(id: &str, from: &str, to: &str, kind: &str, condition: &str) -> Value {
    json!({
        "line_id": id, "from_task_id": from, "to_task_id": to, "dependency_type": kind,
        "condition_description": condition, "metadata": {}, "is_satisfied": false,
        "last_evaluation_result": null, "last_evaluation_time": null,
        "created_at": T0, "updated_at": T0,
    })
}

/// A monthly sales deck: export the numbers (done), chart them, draft the
/// slides, tell the team.
fn sales_deck() -> Value {
    let mut export = task(
        "export_sales",
        "Export sales",
        "Export March sales to /data/march.csv",
        "linux_box",
        &[],
        &["chart_sales"],
    );
    export["status"] = json!("completed");
    export["priority"] = json!(3);
    export["tips"] = json!(["the table is sales.orders"]);
    export["execution_start_time"] = json!(T0);
    export["execution_end_time"] = json!(T1);
    export["execution_duration"] = json!(250.5);
    export["result"] = json!({"task_id": "export_sales", "status": "completed",
        "result": [{"request": "export", "result": "4,812 rows written"}], "error": null,
        "metadata": {"device_id": "linux_box"}, "start_time": T0, "end_time": T1});
    let mut chart = task(
        "chart_sales",
        "Chart sales",
        "Plot revenue per region from /data/march.csv",
        "linux_box",
        &["export_sales"],
        &["draft_slides"],
    );
    chart["device_type"] = json!("linux");
    let slides = task(
        "draft_slides",
        "Draft slides",
        "Put the chart into deck.pptx",
        "win_laptop",
        &["chart_sales"],
        &["notify_team"],
    );
    let notify = task(
        "notify_team",
        "Notify team",
        "Mail the deck to sales@example.invalid",
        "win_laptop",
        &["draft_slides"],
        &[],
    );
    json!({
        "constellation_id": "constellation_sales_0302", "name": "March sales deck", "state": "executing",
        "tasks": {"export_sales": export, "chart_sales": chart, "draft_slides": slides, "notify_team": notify},
        "dependencies": {
            "l_export_chart": line("l_export_chart", "export_sales", "chart_sales", "success_only", "the CSV exists"),
            "l_chart_slides": line("l_chart_slides", "chart_sales", "draft_slides", "success_only", ""),
            "l_slides_notify": line("l_slides_notify", "draft_slides", "notify_team", "completion_only", ""),
        },
        "metadata": {"request": "Prepare the March sales deck"},
        "created_at": T0, "updated_at": T1, "execution_start_time": T0,
        "execution_end_time": null, "execution_duration": null,
    })
}

/// The same deck with tasks and dependencies as lists, in plan order (a
/// `json!` map's order is its keys' unless serde_json keeps insertion
/// order).
fn as_lists(mut deck: Value) -> Value {
    let tasks = ["export_sales", "chart_sales", "draft_slides", "notify_team"];
    let tasks: Vec<Value> = tasks.iter().map(|id| deck["tasks"][id].clone()).collect();
    let lines = ["l_export_chart", "l_chart_slides", "l_slides_notify"];
    let lines: Vec<Value> = lines
        .iter()
        .map(|id| deck["dependencies"][id].clone())
        .collect();
    deck["tasks"] = Value::Array(tasks);
    deck["dependencies"] = Value::Array(lines);
    deck
}

fn devices() -> Vec<KnownDevice> {
    vec![
        KnownDevice::with_os("linux_box", "Linux"),
        KnownDevice::with_os("win_laptop", "windows"),
    ]
}

fn actions(v: Value) -> Vec<Action> {
    serde_json::from_value(v).unwrap()
}

#[test]
fn ufos_serialised_shape_reads_and_writes_back_identically() {
    let original = sales_deck();
    let from_map = TaskConstellation::from_json(&original.to_string()).unwrap();
    let c = TaskConstellation::from_value(&as_lists(sales_deck())).unwrap();
    assert_eq!(
        from_map.to_value(),
        original,
        "the map shape reads and writes back"
    );
    assert_eq!(c.state(), ConstellationState::Executing);
    let ids: Vec<_> = c.tasks().iter().map(|t| t.task_id.as_str()).collect();
    assert_eq!(
        ids,
        ["export_sales", "chart_sales", "draft_slides", "notify_team"]
    );
    let export = c.task("export_sales").unwrap();
    assert_eq!(export.priority, TaskPriority::High);
    assert_eq!(export.status, TaskStatus::Completed);
    assert_eq!(export.execution_duration, Some(250.5));
    assert_eq!(export.result["result"][0]["result"], "4,812 rows written");
    assert_eq!(
        c.task("chart_sales").unwrap().device_type,
        Some(DeviceType::Linux)
    );
    assert_eq!(
        c.dependency("l_slides_notify").unwrap().dependency_type,
        DependencyType::CompletionOnly
    );
    let written: Value = serde_json::from_str(&c.to_json()).unwrap();
    assert_eq!(
        written, original,
        "the list shape is written as UFO's map shape"
    );
    assert_eq!(validate_with_devices(&c, &devices()), Ok(()));
}

#[test]
fn a_models_list_reply_reads_as_the_same_plan() {
    let reply = json!({"tasks": [
        {"task_id": "export_sales", "name": "Export sales", "description": "Export", "target_device_id": "linux_box"},
        {"task_id": "chart_sales", "name": "Chart sales", "description": "Plot", "tips": "use matplotlib", "target_device_id": "linux_box"}],
        "dependencies": [{"line_id": "l1", "from_task_id": "export_sales", "to_task_id": "chart_sales",
                          "condition_description": "the CSV exists"}]});
    let c = TaskConstellation::from_value(&reply).unwrap();
    assert_eq!(c.tasks()[1].tips, ["use matplotlib"]);
    assert_eq!(
        c.dependencies()[0].dependency_type,
        DependencyType::Unconditional
    );
    assert_eq!(c.state(), ConstellationState::Created);
    let v = c.to_value();
    assert_eq!(
        v["tasks"]["chart_sales"]["dependencies"],
        json!(["export_sales"])
    );
    assert_eq!(v["dependencies"]["l1"]["to_task_id"], "chart_sales");
}

#[test]
fn an_edit_batch_applies_and_a_refused_one_stops_where_it_failed() {
    let c = TaskConstellation::from_value(&sales_deck()).unwrap();
    let mut ed = Editor::new(c).with_devices(devices());
    let done = ed.apply_actions(&actions(json!([
        {"function": "add_task", "arguments": {"task_id": "check_totals", "name": "Check totals",
            "description": "Compare the CSV total with the ledger", "target_device_id": "linux_box"}},
        {"function": "add_dependency", "arguments": {"dependency_id": "l_export_check",
            "from_task_id": "export_sales", "to_task_id": "check_totals"}},
        {"function": "update_task", "arguments": {"task_id": "chart_sales",
            "tips": ["the export wrote 4,812 rows to /data/march.csv"]}},
    ])));
    assert_eq!(done.unwrap().outcomes.len(), 3);
    assert_eq!(ed.constellation().tasks().len(), 5);
    assert_eq!(
        ed.constellation().task("chart_sales").unwrap().tips,
        ["the export wrote 4,812 rows to /data/march.csv"]
    );

    let e = ed.apply_actions(&actions(json!([
        {"function": "update_dependency", "arguments": {"dependency_id": "l_chart_slides", "condition_description": "the PNG exists"}},
        {"function": "update_task", "arguments": {"task_id": "export_sales", "description": "export again"}},
        {"function": "remove_task", "arguments": {"task_id": "notify_team"}},
    ]))).unwrap_err();
    assert_eq!(e.index, 1);
    assert_eq!(e.error.code(), "ufo::galaxy::started");
    let statuses: Vec<_> = e.outcomes.iter().map(|o| o.status).collect();
    assert_eq!(
        statuses,
        [
            OutcomeStatus::Success,
            OutcomeStatus::Failure,
            OutcomeStatus::Skipped
        ]
    );
    assert!(
        e.to_string()
            .starts_with("Failed to update task: task \"export_sales\" is completed;"),
        "{e}"
    );
    assert_eq!(
        ed.constellation()
            .dependency("l_chart_slides")
            .unwrap()
            .condition_description,
        "the PNG exists"
    );
    assert!(ed.constellation().task("notify_team").is_some());

    ed.undo().unwrap();
    assert_eq!(
        ed.constellation()
            .dependency("l_chart_slides")
            .unwrap()
            .condition_description,
        ""
    );
    ed.undo().unwrap();
    assert!(ed.constellation().task("check_totals").is_none());
}

#[test]
fn an_edit_onto_an_unknown_device_goes_back_to_the_model() {
    let c = TaskConstellation::from_value(&sales_deck()).unwrap();
    let mut ed = Editor::new(c).with_devices(devices());
    let e = ed.apply_actions(&actions(json!([
        {"function": "update_task", "arguments": {"task_id": "notify_team", "target_device_id": "phone"}}])))
        .unwrap_err();
    assert_eq!(
        e.error.to_string(),
        "the constellation is not valid: task \"notify_team\" has target_device_id \"phone\", which is not a known device (known devices: linux_box (linux), win_laptop (windows))"
    );
    assert_eq!(
        ed.constellation()
            .task("notify_team")
            .unwrap()
            .target_device_id
            .as_deref(),
        Some("win_laptop")
    );
}

#[test]
fn the_ready_set_follows_completions_failures_and_the_repair() {
    let mut ed = Editor::new(TaskConstellation::from_value(&sales_deck()).unwrap());
    let ready = |ed: &Editor| {
        schedule(ed.constellation(), Gating::ByType)
            .ready_ids()
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(ready(&ed), ["chart_sales"]);

    let c = ed.constellation_mut();
    c.start_task("chart_sales").unwrap();
    assert!(ready(&ed).is_empty());
    let c = ed.constellation_mut();
    c.fail_task(
        "chart_sales",
        json!({"status": "failed", "error": "no display"}),
        Some("no display".into()),
    )
    .unwrap();
    let s = schedule(ed.constellation(), Gating::ByType);
    assert!(s.ready.is_empty() && s.is_stalled());
    assert_eq!(
        s.blocked[0].reasons,
        [BlockReason::PrerequisiteFailed {
            line_id: "l_chart_slides".into(),
            from_task_id: "chart_sales".into(),
            outcome: TaskStatus::Failed
        }]
    );
    assert!(s.is_blocked("notify_team"));
    assert_eq!(
        schedule(ed.constellation(), Gating::AnyEnd).ready_ids(),
        ["draft_slides"],
        "UFO's rule runs it anyway"
    );

    ed.apply_actions(&actions(json!([
        {"function": "add_task", "arguments": {"task_id": "chart_headless", "name": "Chart without a display",
            "description": "Plot with the Agg backend", "target_device_id": "linux_box"}},
        {"function": "add_dependency", "arguments": {"dependency_id": "l_export_headless",
            "from_task_id": "export_sales", "to_task_id": "chart_headless", "dependency_type": "success_only"}},
        {"function": "remove_dependency", "arguments": {"dependency_id": "l_chart_slides"}},
        {"function": "add_dependency", "arguments": {"dependency_id": "l_headless_slides",
            "from_task_id": "chart_headless", "to_task_id": "draft_slides", "dependency_type": "success_only"}},
    ]))).unwrap();
    assert_eq!(ready(&ed), ["chart_headless"]);
    for id in ["chart_headless", "draft_slides", "notify_team"] {
        let c = ed.constellation_mut();
        c.start_task(id).unwrap();
        c.complete_task(id, json!({"status": "completed"})).unwrap();
        assert!(!ready(&ed).contains(&id.to_owned()));
    }
    assert_eq!(
        ed.constellation().state(),
        ConstellationState::PartiallyFailed
    );
    assert!(ed.constellation().execution().1.is_some());
}

#[test]
fn mermaid_shows_status_per_node_and_type_per_edge() {
    let mut c = TaskConstellation::from_value(&as_lists(sales_deck())).unwrap();
    c.start_task("chart_sales").unwrap();
    let m = ufo_galaxy::render::mermaid(&c);
    let lines: Vec<&str> = m.lines().collect();
    assert_eq!(lines[0], "flowchart TD");
    assert_eq!(
        lines[1],
        "    n0[\"export_sales: Export sales<br/>completed\"]:::completed"
    );
    assert_eq!(
        lines[2],
        "    n1[\"chart_sales: Chart sales<br/>running\"]:::running"
    );
    assert!(lines.contains(&"    n0 ==>|\"success_only\"| n1"), "{m}");
    assert!(
        lines.contains(&"    n2 -.->|\"completion_only\"| n3"),
        "{m}"
    );
    assert!(
        lines.contains(&"    classDef running fill:#fff3cd,stroke:#d39e00"),
        "{m}"
    );
    let summary = ufo_galaxy::render::summary(&c, Gating::ByType);
    assert!(summary.starts_with("Constellation \"March sales deck\" (constellation_sales_0302): executing; 4 tasks (2 pending, 1 running, 1 completed); 3 dependencies"), "{summary}");
}

#[test]
fn a_cycle_is_named_for_the_model() {
    let mut deck = sales_deck();
    deck["dependencies"]["l_back"] =
        line("l_back", "notify_team", "chart_sales", "unconditional", "");
    let c = TaskConstellation::from_value(&deck).unwrap();
    let errors = validate(&c).unwrap_err().errors;
    assert_eq!(
        errors,
        [ValidationError::Cycle {
            cycle: ["chart_sales", "draft_slides", "notify_team", "chart_sales"]
                .map(String::from)
                .to_vec(),
            lines: ["l_chart_slides", "l_slides_notify", "l_back"]
                .map(String::from)
                .to_vec(),
        }]
    );
}
