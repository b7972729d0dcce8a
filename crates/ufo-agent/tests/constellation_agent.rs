//! The ConstellationAgent end to end: a scripted model over real HTTP, the
//! real orchestrator and editor, and a fake device runner that completes
//! or fails sub-tasks and records what it was sent.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use ufo_agent::constellation::{
    AgentStatus, ConstellationAgent, ConstellationOutcome, ConstellationPrompts,
    ConstellationSettings, EndReason,
};
use ufo_galaxy::TaskStatus;
use ufo_galaxy::orchestrate::{DeviceError, DeviceRunner, SubTask, TaskOutcome};
use ufo_galaxy::validate::KnownDevice;
use ufo_testkit::scripted::{Reply, ScriptedModel, fixed, reply};

/// Two devices; each task takes `delay` ms (10 by default) and fails when
/// listed in `fail`. Records every sub-task as it starts.
#[derive(Clone, Default)]
struct FakeDevices {
    delays: HashMap<String, u64>,
    fail: Vec<String>,
    sent: Arc<Mutex<Vec<SubTask>>>,
    ended: Arc<Mutex<Vec<String>>>,
}

impl FakeDevices {
    fn started(&self) -> Vec<String> {
        self.sent
            .lock()
            .unwrap()
            .iter()
            .map(|s| s.task_id.clone())
            .collect()
    }
    fn request_of(&self, task_id: &str) -> String {
        let sent = self.sent.lock().unwrap();
        sent.iter()
            .find(|s| s.task_id == task_id)
            .map(|s| s.request.clone())
            .unwrap_or_default()
    }
}

impl DeviceRunner for FakeDevices {
    fn devices(&self) -> Vec<KnownDevice> {
        vec![
            KnownDevice::with_os("linux-1", "linux"),
            KnownDevice::with_os("win-1", "windows"),
        ]
    }

    async fn run(&self, task: SubTask) -> Result<TaskOutcome, DeviceError> {
        self.sent.lock().unwrap().push(task.clone());
        let delay = self.delays.get(&task.task_id).copied().unwrap_or(10);
        tokio::time::sleep(Duration::from_millis(delay)).await;
        self.ended.lock().unwrap().push(task.task_id.clone());
        let result =
            json!([{"request": task.request, "result": format!("{} done: 42", task.task_id)}]);
        Ok(if self.fail.contains(&task.task_id) {
            TaskOutcome::failed(
                result,
                Some(format!("{} broke: share not mounted", task.task_id)),
            )
        } else {
            TaskOutcome::completed(result)
        })
    }
}

fn task(id: &str, device: &str) -> Value {
    json!({"task_id": id, "name": format!("Task {id}"), "description": format!("Do {id}"), "target_device_id": device})
}

fn line(from: &str, to: &str) -> Value {
    json!({"line_id": format!("{from}-{to}"), "from_task_id": from, "to_task_id": to, "condition_description": ""})
}

fn plan(tasks: Vec<Value>, lines: Vec<Value>) -> Reply {
    let r = json!({"thought": "split it", "status": "CONTINUE",
                   "constellation": {"tasks": tasks, "dependencies": lines}, "results": "planned"});
    fixed(format!("```json\n{r}\n```"))
}

fn say(status: &str, action: Value, results: &str) -> Reply {
    fixed(
        json!({"thought": "looked at it", "status": status, "action": action, "results": results})
            .to_string(),
    )
}

async fn run_with(
    replies: Vec<Reply>,
    devices: &FakeDevices,
    settings: ConstellationSettings,
) -> (ConstellationOutcome, ScriptedModel) {
    let model = ScriptedModel::start(replies).await;
    let cfg = ufo_llm::LlmConfig::from_yaml(&model.agent_yaml()).unwrap();
    let chat = ufo_llm::build_model(&cfg, None).unwrap();
    let agent =
        ConstellationAgent::new(chat, ConstellationPrompts::builtin().unwrap()).settings(settings);
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        agent.run("Sum the numbers and show them", devices.clone()),
    )
    .await
    .expect("the agent ends");
    (out, model)
}

fn status_of(out: &ConstellationOutcome, id: &str) -> TaskStatus {
    out.constellation.as_ref().unwrap().task(id).unwrap().status
}

#[tokio::test]
async fn a_two_task_plan_is_created_run_and_finished() {
    let devices = FakeDevices::default();
    let copy_tip =
        json!([{"function": "update_task", "arguments": {"task_id": "b", "tips": ["a said: 42"]}}]);
    let replies = vec![
        plan(
            vec![task("a", "linux-1"), task("b", "win-1")],
            vec![line("a", "b")],
        ),
        say("CONTINUE", copy_tip, "a is done"),
        say("FINISH", json!([]), "The sum is 42."),
    ];
    let (out, model) = run_with(replies, &devices, ConstellationSettings::default()).await;
    assert_eq!(
        (out.status, out.end),
        (AgentStatus::Finish, EndReason::Model),
        "{out:#?}"
    );
    assert_eq!(out.results, "The sum is 42.");
    assert_eq!(devices.started(), ["a", "b"]);
    assert!(
        devices.request_of("b").contains("a said: 42"),
        "{}",
        devices.request_of("b")
    );
    assert_eq!(status_of(&out, "a"), TaskStatus::Completed);
    assert_eq!(status_of(&out, "b"), TaskStatus::Completed);
    assert_eq!(out.steps.len(), 3);
    assert_eq!(out.steps[1].ended_task_ids, ["a"]);
    assert_eq!(out.steps[1].actions, ["update_task: success"]);
    assert!(
        out.steps
            .iter()
            .all(|s| s.prompt_chars > 0 && s.reply_chars > 0 && s.attempts == 1)
    );
    let reqs = model.requests();
    assert!(
        reqs[0]
            .last_user_text()
            .contains("Device ID: win-1\nOS: windows")
    );
    let edit = reqs[1].last_user_text();
    assert!(
        edit.contains("<Tasks just ended:> a") && edit.contains("a done: 42"),
        "{edit}"
    );
    assert!(edit.contains("[b] Task b [MODIFIABLE]") && edit.contains("[a] Task a [READ-ONLY]"));
    assert!(
        reqs[2]
            .last_user_text()
            .contains("All 1 of your edits were applied")
    );
}

#[tokio::test]
async fn a_failure_is_remedied_by_an_added_task() {
    let devices = FakeDevices {
        fail: vec!["a".into()],
        ..FakeDevices::default()
    };
    let remedy = json!([
        {"function": "add_task", "arguments": {"task_id": "fix", "name": "Mount", "description": "Mount the share", "target_device_id": "linux-1"}},
        {"function": "add_dependency", "arguments": {"dependency_id": "fix-b", "from_task_id": "fix", "to_task_id": "b"}}]);
    let replies = vec![
        plan(
            vec![task("a", "linux-1"), task("b", "win-1")],
            vec![line("a", "b")],
        ),
        say("CONTINUE", remedy, "a failed; mounting first"),
        say("CONTINUE", json!([]), "mounted"),
        say("FINISH", json!([]), "Done after mounting."),
    ];
    let (out, model) = run_with(replies, &devices, ConstellationSettings::default()).await;
    assert_eq!(
        (out.status, out.end),
        (AgentStatus::Finish, EndReason::Model),
        "{out:#?}"
    );
    assert_eq!(devices.started(), ["a", "fix", "b"]);
    assert_eq!(status_of(&out, "a"), TaskStatus::Failed);
    assert_eq!(status_of(&out, "fix"), TaskStatus::Completed);
    assert_eq!(status_of(&out, "b"), TaskStatus::Completed);
    assert_eq!(
        out.steps[1].actions,
        ["add_task: success", "add_dependency: success"]
    );
    assert!(
        model.requests()[1]
            .last_user_text()
            .contains("share not mounted")
    );
}

#[tokio::test]
async fn a_failing_edit_stops_the_batch_and_is_reported_next_turn() {
    let devices = FakeDevices {
        delays: HashMap::from([("b".into(), 300)]),
        ..FakeDevices::default()
    };
    let bad = json!([
        {"function": "update_task", "arguments": {"task_id": "c", "tips": ["t"]}},
        {"function": "remove_task", "arguments": {"task_id": "nope"}},
        {"function": "update_task", "arguments": {"task_id": "c", "name": "never"}}]);
    let replies = vec![
        plan(
            vec![
                task("a", "linux-1"),
                task("b", "win-1"),
                task("c", "linux-1"),
            ],
            vec![line("b", "c")],
        ),
        say("CONTINUE", bad, "tweaking"),
        say("CONTINUE", json!([]), "waiting"),
        say("FINISH", json!([]), "ok"),
    ];
    let (out, model) = run_with(replies, &devices, ConstellationSettings::default()).await;
    assert_eq!(out.status, AgentStatus::Finish, "{out:#?}");
    assert_eq!(out.steps[1].actions.len(), 3);
    assert!(
        out.steps[1].actions[2].starts_with("update_task: skipped"),
        "{:?}",
        out.steps[1].actions
    );
    let c = out
        .constellation
        .as_ref()
        .unwrap()
        .task("c")
        .unwrap()
        .clone();
    assert_eq!((c.tips, c.name.as_str()), (vec!["t".to_owned()], "Task c"));
    let next = model.requests()[2].last_user_text();
    assert!(next.contains("Edit 2 (remove_task) failed"), "{next}");
}

#[tokio::test]
async fn an_unparseable_reply_is_asked_again() {
    let devices = FakeDevices::default();
    let replies = vec![
        fixed("Sure! Here is my plan: the first task, then {oops"),
        plan(vec![task("a", "linux-1")], vec![]),
        say("FINISH", json!([]), "done"),
    ];
    let (out, model) = run_with(replies, &devices, ConstellationSettings::default()).await;
    assert_eq!(out.status, AgentStatus::Finish, "{out:#?}");
    assert_eq!(out.steps.len(), 2);
    assert_eq!(out.steps[0].attempts, 2);
    assert_eq!(out.steps[0].parse_errors.len(), 1);
    assert!(
        model.requests()[1]
            .last_user_text()
            .contains("could not be used")
    );
}

#[tokio::test]
async fn replies_that_never_parse_end_in_fail() {
    let devices = FakeDevices::default();
    let replies = vec![fixed("no"), fixed("still no"), fixed("never")];
    let (out, model) = run_with(replies, &devices, ConstellationSettings::default()).await;
    assert_eq!(
        (out.status, out.end),
        (AgentStatus::Fail, EndReason::Error),
        "{out:#?}"
    );
    assert_eq!(out.steps[0].attempts, 3);
    assert!(out.reason.unwrap().contains("after 3 attempts"));
    assert_eq!(model.remaining(), 0);
    assert!(devices.started().is_empty());
}

#[tokio::test]
async fn a_cyclic_plan_is_sent_back_once_then_fails() {
    let devices = FakeDevices::default();
    let cyclic = || {
        plan(
            vec![task("a", "linux-1"), task("b", "win-1")],
            vec![line("a", "b"), line("b", "a")],
        )
    };
    let (out, model) = run_with(
        vec![cyclic(), cyclic()],
        &devices,
        ConstellationSettings::default(),
    )
    .await;
    assert_eq!(
        (out.status, out.end),
        (AgentStatus::Fail, EndReason::Refused),
        "{out:#?}"
    );
    assert!(
        out.reason
            .as_deref()
            .unwrap()
            .to_lowercase()
            .contains("cycle"),
        "{:?}",
        out.reason
    );
    assert_eq!(out.steps.len(), 2);
    let second = model.requests()[1].last_user_text();
    assert!(
        second.contains("Your constellation was refused")
            && second.to_lowercase().contains("cycle"),
        "{second}"
    );
    assert!(devices.started().is_empty());
}

#[tokio::test]
async fn continue_without_a_constellation_is_refused() {
    let devices = FakeDevices::default();
    let (out, _model) = run_with(
        vec![say("CONTINUE", Value::Null, "thinking")],
        &devices,
        ConstellationSettings::default(),
    )
    .await;
    assert_eq!(
        (out.status, out.end),
        (AgentStatus::Fail, EndReason::Refused),
        "{out:#?}"
    );
    assert!(out.reason.unwrap().contains("without a constellation"));
}

#[tokio::test]
async fn the_step_cap_ends_the_run_with_fail() {
    let devices = FakeDevices::default();
    let tasks = ["a", "b", "c", "d"].map(|t| task(t, "linux-1")).to_vec();
    let lines = vec![line("a", "b"), line("b", "c"), line("c", "d")];
    let replies = vec![
        plan(tasks, lines),
        say("CONTINUE", json!([]), "a ok"),
        say("CONTINUE", json!([]), "b ok"),
    ];
    let settings = ConstellationSettings {
        max_step: 3,
        ..ConstellationSettings::default()
    };
    let (out, _model) = run_with(replies, &devices, settings).await;
    assert_eq!(
        (out.status, out.end),
        (AgentStatus::Fail, EndReason::StepCap),
        "{out:#?}"
    );
    assert_eq!(out.steps.len(), 3);
    assert_eq!(out.results, "b ok");
    assert_eq!(devices.started(), ["a", "b", "c"]);
    assert_eq!(status_of(&out, "d"), TaskStatus::Cancelled);
}

#[tokio::test]
async fn finish_while_a_task_runs_does_not_end_the_run() {
    let devices = FakeDevices {
        delays: HashMap::from([("slow".into(), 400)]),
        ..FakeDevices::default()
    };
    let replies = vec![
        plan(
            vec![task("quick", "linux-1"), task("slow", "win-1")],
            vec![],
        ),
        say("FINISH", json!([]), "too early"),
        reply(|r| {
            let text = r.last_user_text();
            let status = if text.contains("You said FINISH while slow") {
                "FINISH"
            } else {
                "FAIL"
            };
            json!({"thought": "now", "status": status, "results": "both done"}).to_string()
        }),
    ];
    let (out, _model) = run_with(replies, &devices, ConstellationSettings::default()).await;
    assert_eq!(
        (out.status, out.end),
        (AgentStatus::Finish, EndReason::Model),
        "{out:#?}"
    );
    assert_eq!(out.results, "both done");
    assert!(out.steps[1].note.as_deref().unwrap().contains("ignored"));
    assert_eq!(status_of(&out, "slow"), TaskStatus::Completed);
    assert_eq!(*devices.ended.lock().unwrap(), ["quick", "slow"]);
}

#[tokio::test]
async fn the_run_ends_when_every_task_ended_and_the_model_wants_nothing_more() {
    let devices = FakeDevices::default();
    let replies = vec![
        plan(vec![task("a", "linux-1")], vec![]),
        say("CONTINUE", json!([]), "all good"),
    ];
    let (out, model) = run_with(replies, &devices, ConstellationSettings::default()).await;
    assert_eq!(
        (out.status, out.end),
        (AgentStatus::Finish, EndReason::AllTasksEnded),
        "{out:#?}"
    );
    assert_eq!(out.results, "all good");
    assert_eq!(out.report.unwrap().task_status_counts.completed, 1);
    assert_eq!(model.remaining(), 0);
}
