//! The orchestrator over fake devices that sleep, succeed, fail, hang past
//! their timeout or lose their connection, on tokio's paused clock: every
//! sleep and timeout is virtual, so the runs are instant and the times
//! they record exact.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::time::{Instant, sleep};
use ufo_core::Diagnostic;
use ufo_galaxy::edit::{Action, Editor};
use ufo_galaxy::orchestrate::{
    CancelReason, DeviceError, DeviceRunner, Event, Finished, Gating, OrchestrateError,
    Orchestrator, SubTask, TaskOutcome, planner_channel, planner_fn,
};
use ufo_galaxy::validate::KnownDevice;
use ufo_galaxy::{ConstellationState, TaskConstellation, TaskStatus};

/// What a fake device does with one task.
#[derive(Debug, Clone, Copy)]
enum Act {
    /// Works this many seconds, then completes.
    Ok(u64),
    /// Works this many seconds, then reports failure.
    Fail(u64),
    /// Never answers.
    Hang,
    /// Loses the connection after this many seconds.
    Disconnect(u64),
}

/// One task as a device saw it, in seconds from the fake's creation.
#[derive(Debug, Clone)]
struct Span {
    task: String,
    device: String,
    request: String,
    timeout: Duration,
    start: f64,
    end: Option<f64>,
}

/// Devices `pc`, `mac` and `phone`, acting per task id (default: 10 s of
/// work, then success).
struct Fake {
    t0: Instant,
    acts: HashMap<String, Act>,
    log: Mutex<Vec<Span>>,
    active: AtomicUsize,
}

/// Counts a task as running until its future ends or is dropped.
struct Active<'a>(&'a AtomicUsize);

impl Drop for Active<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Fake {
    fn new(acts: &[(&str, Act)]) -> std::sync::Arc<Self> {
        std::sync::Arc::new(Self {
            t0: Instant::now(),
            acts: acts.iter().map(|(t, a)| ((*t).to_owned(), *a)).collect(),
            log: Mutex::new(Vec::new()),
            active: AtomicUsize::new(0),
        })
    }

    fn now(&self) -> f64 {
        self.t0.elapsed().as_secs_f64()
    }

    fn spans(&self) -> Vec<Span> {
        self.log.lock().unwrap().clone()
    }

    fn span(&self, task: &str) -> Span {
        self.spans()
            .into_iter()
            .find(|s| s.task == task)
            .unwrap_or_else(|| panic!("{task} never ran"))
    }

    fn order_on(&self, device: &str) -> Vec<String> {
        let mut spans: Vec<Span> = self
            .spans()
            .into_iter()
            .filter(|s| s.device == device)
            .collect();
        spans.sort_by(|a, b| a.start.total_cmp(&b.start));
        for w in spans.windows(2) {
            let end = w[0].end.expect("ended");
            assert!(w[1].start >= end, "{} overlaps {}", w[1].task, w[0].task);
        }
        spans.into_iter().map(|s| s.task).collect()
    }
}

impl DeviceRunner for Fake {
    fn devices(&self) -> Vec<KnownDevice> {
        vec![
            KnownDevice::with_os("pc", "linux"),
            KnownDevice::with_os("mac", "darwin"),
            KnownDevice::new("phone", None),
        ]
    }

    async fn run(&self, task: SubTask) -> Result<TaskOutcome, DeviceError> {
        let act = self.acts.get(&task.task_id).copied().unwrap_or(Act::Ok(10));
        let index = {
            let mut log = self.log.lock().unwrap();
            log.push(Span {
                task: task.task_id.clone(),
                device: task.device_id.clone(),
                request: task.request.clone(),
                timeout: task.timeout,
                start: self.now(),
                end: None,
            });
            log.len() - 1
        };
        self.active.fetch_add(1, Ordering::SeqCst);
        let _active = Active(&self.active);
        let reply = match act {
            Act::Ok(s) => {
                sleep(Duration::from_secs(s)).await;
                Ok(TaskOutcome::completed(
                    json!([{"request": task.request, "result": format!("{} done", task.task_id)}]),
                ))
            }
            Act::Fail(s) => {
                sleep(Duration::from_secs(s)).await;
                Ok(TaskOutcome::failed(
                    json!({"failure": "session ended with an error"}),
                    Some("the file was not there".into()),
                ))
            }
            Act::Hang => std::future::pending().await,
            Act::Disconnect(s) => {
                sleep(Duration::from_secs(s)).await;
                Err(DeviceError::disconnected(format!(
                    "Device {} disconnected while waiting for task response",
                    task.device_id
                )))
            }
        };
        self.log.lock().unwrap()[index].end = Some(self.now());
        reply
    }
}

/// A plan of `(id, device, priority)` tasks and `(from, to, type)` lines.
fn plan(tasks: &[(&str, &str, u8)], lines: &[(&str, &str, &str)]) -> TaskConstellation {
    let tasks: Vec<Value> = tasks
        .iter()
        .map(|(id, device, priority)| {
            json!({"task_id": id, "name": id, "description": format!("do {id}"),
                "target_device_id": device, "priority": priority})
        })
        .collect();
    let lines: Vec<Value> = lines
        .iter()
        .map(|(from, to, kind)| {
            json!({"line_id": format!("{from}->{to}"), "from_task_id": from,
                "to_task_id": to, "dependency_type": kind})
        })
        .collect();
    TaskConstellation::from_value(&json!({"constellation_id": "c1", "tasks": tasks,
        "dependencies": lines}))
    .unwrap()
}

/// `c` with task `task`'s `field` set to `value` (tasks come back in id
/// order: the JSON map is not ordered).
fn with(c: &TaskConstellation, task: &str, field: &str, value: Value) -> TaskConstellation {
    let mut v = c.to_value();
    v["tasks"][task][field] = value;
    TaskConstellation::from_value(&v).unwrap()
}

fn drain(rx: &mut UnboundedReceiver<Event>) -> Vec<Event> {
    let mut out = Vec::new();
    while let Ok(e) = rx.try_recv() {
        out.push(e);
    }
    out
}

fn status(done: &Finished, task: &str) -> TaskStatus {
    done.constellation.task(task).unwrap().status
}

#[tokio::test(start_paused = true)]
async fn a_diamond_runs_in_dependency_order_with_both_branches_in_parallel() {
    // a → b (pc), a → c (mac), b, c → d.
    let fake = Fake::new(&[("b", Act::Ok(20)), ("c", Act::Ok(30))]);
    let c = plan(
        &[
            ("a", "pc", 2),
            ("b", "pc", 2),
            ("c", "mac", 2),
            ("d", "pc", 2),
        ],
        &[
            ("a", "b", "unconditional"),
            ("a", "c", "success_only"),
            ("b", "d", "unconditional"),
            ("c", "d", "completion_only"),
        ],
    );
    let (tx, mut rx) = unbounded_channel();
    let done = Orchestrator::new(fake.clone())
        .events(tx)
        .run(c)
        .await
        .unwrap();

    let (a, b, cc, d) = (
        fake.span("a"),
        fake.span("b"),
        fake.span("c"),
        fake.span("d"),
    );
    assert_eq!((a.start, a.end), (0.0, Some(10.0)));
    assert_eq!(
        (b.start, cc.start),
        (10.0, 10.0),
        "both branches start together"
    );
    assert_eq!((b.end, cc.end), (Some(30.0), Some(40.0)));
    assert_eq!(d.start, 40.0, "d waits for the slower branch");
    assert_eq!(
        a.request,
        "Task Description: do a\nTips for Completion:\nNo tips available."
    );
    assert_eq!(
        a.timeout,
        Duration::from_secs(1000),
        "UFO's default timeout"
    );

    assert_eq!(done.report.state, ConstellationState::Completed);
    assert_eq!(done.report.total_tasks, 4);
    assert_eq!(done.report.task_status_counts.completed, 4);
    assert_eq!(done.report.execution_duration, 50.0);
    let result = &done.constellation.task("d").unwrap().result;
    assert_eq!(result["status"], "completed");
    assert_eq!(result["result"][0]["result"], "d done");
    assert_eq!(result["metadata"]["device_id"], "pc");

    let events = drain(&mut rx);
    let kinds: Vec<_> = events.iter().map(|e| e.event_type()).collect();
    assert_eq!(kinds.first(), Some(&"constellation_started"));
    assert_eq!(kinds.last(), Some(&"constellation_completed"));
    assert_eq!(kinds.iter().filter(|k| **k == "task_started").count(), 4);
    let after_a = events
        .iter()
        .find_map(|e| match e {
            Event::TaskCompleted(t) if t.task_id == "a" => Some(t),
            _ => None,
        })
        .unwrap();
    assert_eq!(after_a.newly_ready_tasks, ["b", "c"]);
    assert_eq!(
        after_a.constellation.task("a").unwrap().status,
        TaskStatus::Completed
    );
}

#[tokio::test(start_paused = true)]
async fn one_device_runs_one_task_at_a_time_first_come_first_served() {
    // On pc: low (1), high (3), medium (2) are ready at once; urgent (4)
    // becomes ready at 1 s, when quick (mac) ends.
    let fake = Fake::new(&[("quick", Act::Ok(1))]);
    let c = plan(
        &[
            ("low", "pc", 1),
            ("high", "pc", 3),
            ("medium", "pc", 2),
            ("quick", "mac", 2),
            ("urgent", "pc", 4),
        ],
        &[("quick", "urgent", "unconditional")],
    );
    let done = Orchestrator::new(fake.clone()).run(c).await.unwrap();
    assert_eq!(
        fake.order_on("pc"),
        ["high", "medium", "low", "urgent"],
        "priority among tasks ready together, then arrival order"
    );
    assert_eq!(fake.span("quick").start, 0.0, "other devices run alongside");
    assert_eq!(fake.span("urgent").start, 30.0);
    assert_eq!(done.report.state, ConstellationState::Completed);
}

#[tokio::test(start_paused = true)]
async fn a_global_limit_holds_across_devices() {
    let fake = Fake::new(&[]);
    let c = plan(&[("a", "pc", 2), ("b", "mac", 2), ("c", "phone", 3)], &[]);
    let done = Orchestrator::new(fake.clone())
        .max_in_flight(1)
        .run(c)
        .await
        .unwrap();
    let starts: Vec<(String, f64)> = fake
        .spans()
        .into_iter()
        .map(|s| (s.task, s.start))
        .collect();
    assert_eq!(
        starts,
        [("c".into(), 0.0), ("a".into(), 10.0), ("b".into(), 20.0)]
    );
    assert_eq!(done.report.execution_duration, 30.0);
}

#[tokio::test(start_paused = true)]
async fn a_failure_releases_its_dependants_under_the_effective_rule() {
    let fake = Fake::new(&[("a", Act::Fail(5))]);
    let c = plan(
        &[("a", "pc", 2), ("b", "mac", 2), ("ok", "phone", 2)],
        &[("a", "b", "success_only")],
    );
    let (tx, mut rx) = unbounded_channel();
    let done = Orchestrator::new(fake.clone())
        .events(tx)
        .run(c)
        .await
        .unwrap();
    assert_eq!(fake.span("b").start, 5.0, "UFO ignores the dependency type");
    assert_eq!(status(&done, "a"), TaskStatus::Failed);
    assert_eq!(status(&done, "b"), TaskStatus::Completed);
    assert_eq!(done.report.state, ConstellationState::PartiallyFailed);
    let a = done.constellation.task("a").unwrap();
    assert_eq!(a.result["status"], "failed");
    assert_eq!(a.result["error"], "the file was not there");
    assert_eq!(a.error.as_deref(), Some("the file was not there"));
    let failed = drain(&mut rx)
        .into_iter()
        .find_map(|e| match e {
            Event::TaskFailed(t) => Some(t),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        (failed.task_id.as_str(), failed.newly_ready_tasks),
        ("a", vec!["b".to_owned()])
    );
}

#[tokio::test(start_paused = true)]
async fn type_aware_gating_holds_the_dependants_of_a_failure() {
    let fake = Fake::new(&[("a", Act::Fail(5))]);
    let c = plan(
        &[
            ("a", "pc", 2),
            ("b", "mac", 2),
            ("after_b", "mac", 2),
            ("d", "phone", 2),
        ],
        &[
            ("a", "b", "success_only"),
            ("b", "after_b", "unconditional"),
            ("a", "d", "completion_only"),
        ],
    );
    let (tx, mut rx) = unbounded_channel();
    let done = Orchestrator::new(fake.clone())
        .gating(Gating::ByType)
        .events(tx)
        .run(c)
        .await
        .unwrap();
    let ran: Vec<String> = fake.spans().into_iter().map(|s| s.task).collect();
    assert_eq!(
        ran,
        ["a", "d"],
        "completion_only releases d; success_only holds b"
    );
    assert_eq!(status(&done, "b"), TaskStatus::Cancelled);
    assert_eq!(status(&done, "after_b"), TaskStatus::Cancelled);
    assert_eq!(done.report.state, ConstellationState::PartiallyFailed);
    let blocked: Vec<String> = drain(&mut rx)
        .into_iter()
        .filter_map(|e| match e {
            Event::TaskCancelled {
                task_id,
                reason: CancelReason::Blocked,
                ..
            } => Some(task_id),
            _ => None,
        })
        .collect();
    assert_eq!(blocked, ["b", "after_b"]);
}

#[tokio::test(start_paused = true)]
async fn a_task_past_its_timeout_fails_with_ufos_payload() {
    let fake = Fake::new(&[("a_slow", Act::Hang), ("b_stuck", Act::Hang)]);
    let c = plan(
        &[
            ("a_slow", "pc", 2),
            ("b_stuck", "mac", 2),
            ("c_next", "pc", 2),
        ],
        &[],
    );
    let c = with(&c, "a_slow", "timeout", json!(60.0));
    let done = Orchestrator::new(fake.clone()).run(c).await.unwrap();

    let slow = done.constellation.task("a_slow").unwrap();
    assert_eq!(slow.status, TaskStatus::Failed);
    assert_eq!(
        slow.error.as_deref(),
        Some("Task execution timed out after 60.0 seconds")
    );
    assert_eq!(slow.result["status"], "failed");
    assert_eq!(
        slow.result["error"],
        "Task execution timed out after 60.0 seconds"
    );
    assert_eq!(
        slow.result["result"],
        json!({"error_type": "timeout", "message": "Task timed out after 60.0 seconds",
            "device_id": "pc", "task_id": "a_slow"})
    );
    assert_eq!(
        slow.result["metadata"],
        json!({"device_id": "pc", "timeout": 60.0, "error_category": "timeout_error"})
    );
    assert_eq!(fake.span("c_next").start, 60.0, "the device is free again");
    let stuck = done.constellation.task("b_stuck").unwrap();
    assert_eq!(
        stuck.result["error"],
        "Task execution timed out after 1000.0 seconds"
    );
    assert_eq!(done.report.execution_duration, 1000.0);
    assert_eq!(
        fake.active.load(Ordering::SeqCst),
        0,
        "timed-out jobs are dropped"
    );
    assert_eq!(done.report.state, ConstellationState::PartiallyFailed);
}

#[tokio::test(start_paused = true)]
async fn a_lost_device_fails_its_task_with_a_disconnection_payload() {
    let fake = Fake::new(&[("a", Act::Disconnect(3))]);
    let done = Orchestrator::new(fake.clone())
        .run(plan(&[("a", "phone", 2)], &[]))
        .await
        .unwrap();
    let a = done.constellation.task("a").unwrap();
    assert_eq!(a.result["result"]["error_type"], "device_disconnection");
    assert_eq!(
        a.result["result"]["message"],
        "Device phone disconnected during task execution"
    );
    assert_eq!(
        a.result["error"],
        "Device phone disconnected while waiting for task response"
    );
    assert_eq!(a.result["metadata"]["error_category"], "connection_error");
    assert_eq!(done.report.state, ConstellationState::Failed);
}

#[tokio::test(start_paused = true)]
async fn the_planner_adds_a_remediation_and_removes_a_dependant() {
    // fetch fails at 5 s; report waits on it; other runs alongside (30 s).
    let fake = Fake::new(&[("fetch", Act::Fail(5)), ("other", Act::Ok(30))]);
    let c = plan(
        &[
            ("fetch", "pc", 2),
            ("report", "pc", 2),
            ("other", "phone", 2),
        ],
        &[("fetch", "report", "unconditional")],
    );
    let (planner, mut requests) = planner_channel(1);
    let (tx, mut rx) = unbounded_channel();
    let run = tokio::spawn(
        Orchestrator::new(fake.clone())
            .planner(planner)
            .events(tx)
            .run(c),
    );
    let mut turns = Vec::new();
    while let Some(request) = requests.recv().await {
        turns.push(request.turn.ended_task_ids.clone());
        let now = request.turn.constellation.as_ref().clone();
        if now.task("fetch").unwrap().status != TaskStatus::Failed || now.task("report").is_none() {
            request.keep();
            continue;
        }
        // The agent thinks for 100 s: nothing new starts meanwhile.
        sleep(Duration::from_secs(100)).await;
        let mut editor = Editor::new(now);
        let reply: Vec<Action> = serde_json::from_value(json!([
            {"function": "remove_task", "arguments": {"task_id": "report"}},
            {"function": "add_task", "arguments": {"task_id": "fetch_again", "name": "Fetch again",
                "description": "Download the logs from the mirror", "target_device_id": "mac",
                "tips": ["the mirror is /mnt/mirror"]}}]))
        .unwrap();
        editor.apply_actions(&reply).unwrap();
        request.replace(editor.into_constellation());
    }
    let done = run.await.unwrap().unwrap();

    assert!(
        fake.spans().iter().all(|s| s.task != "report"),
        "removed, never run"
    );
    let again = fake.span("fetch_again");
    assert_eq!(again.start, 105.0, "scheduled once the edit landed");
    assert_eq!(
        again.request,
        "Task Description: Download the logs from the mirror\nTips for Completion:\n - the mirror is /mnt/mirror"
    );
    assert_eq!(
        fake.span("other").end,
        Some(30.0),
        "running tasks go on while the planner thinks"
    );
    assert_eq!(turns, [vec!["fetch"], vec!["other"], vec!["fetch_again"]]);
    assert!(done.constellation.task("report").is_none());
    assert_eq!(status(&done, "fetch_again"), TaskStatus::Completed);
    assert_eq!(
        status(&done, "other"),
        TaskStatus::Completed,
        "its end merged into the edit"
    );
    assert_eq!(done.report.total_tasks, 3);
    assert_eq!(done.report.state, ConstellationState::PartiallyFailed);
    let modified = drain(&mut rx)
        .into_iter()
        .find_map(|e| match e {
            Event::ConstellationModified {
                on_task_ids,
                old_constellation,
                new_constellation,
                ..
            } => Some((on_task_ids, old_constellation, new_constellation)),
            _ => None,
        })
        .unwrap();
    assert_eq!(modified.0, ["fetch"]);
    assert!(modified.1.task("report").is_some() && modified.2.task("report").is_none());
    assert_eq!(
        modified.2.task("other").unwrap().status,
        TaskStatus::Running
    );
}

#[tokio::test(start_paused = true)]
async fn a_planner_edit_that_cannot_run_is_refused_and_the_plan_kept() {
    // a (5 s) → b on pc; x runs 50 s on mac.
    let fake = Fake::new(&[("a", Act::Ok(5)), ("x", Act::Ok(50))]);
    let c = plan(
        &[("a", "pc", 2), ("b", "pc", 2), ("x", "mac", 2)],
        &[("a", "b", "unconditional")],
    );
    let mut turn = 0;
    let planner = planner_fn(move |t: ufo_galaxy::orchestrate::PlanTurn| {
        turn += 1;
        let mut v = t.constellation.to_value();
        let edited = match turn {
            // Drops x, which is running.
            1 => {
                v["tasks"].as_object_mut().unwrap().remove("x");
                Some(TaskConstellation::from_value(&v).unwrap())
            }
            // Adds a task on a device nobody registered.
            2 => {
                v["tasks"]["c"] =
                    json!({"task_id": "c", "description": "x", "target_device_id": "ghost"});
                Some(TaskConstellation::from_value(&v).unwrap())
            }
            _ => None,
        };
        async move { edited }
    });
    let (tx, mut rx) = unbounded_channel();
    let done = Orchestrator::new(fake.clone())
        .planner(planner)
        .events(tx)
        .run(c)
        .await
        .unwrap();
    let refused: Vec<(Vec<String>, String, String)> = drain(&mut rx)
        .into_iter()
        .filter_map(|e| match e {
            Event::PlanRefused {
                on_task_ids, error, ..
            } => Some((on_task_ids, error.code, error.message)),
            _ => None,
        })
        .collect();
    assert_eq!(refused.len(), 2);
    assert_eq!(refused[0].0, ["a"]);
    assert_eq!(refused[0].1, "ufo::galaxy::running_conflict");
    assert_eq!(refused[1].1, "ufo::galaxy::device_assignment");
    assert!(
        refused[1].2.contains("\"c\" (on \"ghost\")"),
        "{}",
        refused[1].2
    );
    assert_eq!(fake.span("b").start, 5.0);
    assert!(done.constellation.task("c").is_none());
    assert_eq!(done.report.task_status_counts.completed, 3);
    assert_eq!(done.report.state, ConstellationState::Completed);
}

#[tokio::test(start_paused = true)]
async fn cancelling_mid_run_ends_cancelled_with_nothing_left_running() {
    let fake = Fake::new(&[("long", Act::Ok(100)), ("hang", Act::Hang)]);
    let c = plan(
        &[
            ("long", "pc", 2),
            ("hang", "mac", 2),
            ("queued", "pc", 2),
            ("later", "phone", 2),
        ],
        &[("long", "later", "unconditional")],
    );
    let (tx, mut rx) = unbounded_channel();
    let orchestrator = Orchestrator::new(fake.clone()).events(tx);
    let cancel = orchestrator.cancel_handle();
    let run = tokio::spawn(orchestrator.run(c));
    let mut started = Vec::new();
    while started.len() < 2 {
        if let Some(Event::TaskStarted { task_id, .. }) = rx.recv().await {
            started.push(task_id);
        }
    }
    assert_eq!(fake.active.load(Ordering::SeqCst), 2);
    cancel.cancel();
    let done = run.await.unwrap().unwrap();

    assert_eq!(started, ["long", "hang"]);
    assert_eq!(fake.active.load(Ordering::SeqCst), 0, "both jobs aborted");
    assert!(
        fake.spans().iter().all(|s| s.end.is_none()),
        "none ran to its end"
    );
    assert_eq!(fake.spans().len(), 2, "nothing started after the cancel");
    assert_eq!(done.report.state, ConstellationState::Cancelled);
    assert_eq!(done.constellation.state(), ConstellationState::Cancelled);
    assert_eq!(done.report.task_status_counts.cancelled, 4);
    let events = drain(&mut rx);
    let cancelled: Vec<&str> = events
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::TaskCancelled {
                    reason: CancelReason::RunCancelled,
                    ..
                }
            )
        })
        .filter_map(Event::task_id)
        .collect();
    assert_eq!(cancelled, ["long", "hang", "queued", "later"]);
    match events.last() {
        Some(Event::ConstellationCompleted { report, .. }) => {
            assert_eq!(report.state, ConstellationState::Cancelled);
        }
        other => panic!("the run ends with its report, not {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn tasks_on_no_or_unknown_devices_are_named_before_anything_runs() {
    let fake = Fake::new(&[]);
    let c = plan(&[("a", "pc", 2), ("b", "", 2), ("c", "ghost", 2)], &[]);
    let (tx, mut rx) = unbounded_channel();
    let e = Orchestrator::new(fake.clone())
        .events(tx)
        .run(c)
        .await
        .unwrap_err();
    assert_eq!(
        e,
        OrchestrateError::DeviceAssignment {
            unassigned: vec!["b".into()],
            unknown: vec![("c".into(), "ghost".into())],
            known: vec!["pc (linux)".into(), "mac (macos)".into(), "phone".into()],
        }
    );
    assert_eq!(
        e.to_string(),
        "device assignment failed: tasks without a device: \"b\"; tasks on unknown devices: \"c\" (on \"ghost\"); known devices: pc (linux), mac (macos), phone"
    );
    assert_eq!(e.code(), "ufo::galaxy::device_assignment");
    assert!(e.help().unwrap().contains("target_device_id"));
    assert!(fake.spans().is_empty());
    assert!(drain(&mut rx).is_empty(), "not even constellation_started");

    let cycle = plan(
        &[("a", "pc", 2), ("b", "pc", 2)],
        &[("a", "b", "unconditional"), ("b", "a", "unconditional")],
    );
    let e = Orchestrator::new(fake.clone())
        .run(cycle)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "ufo::galaxy::cycle");
    let running = with(
        &plan(&[("a", "pc", 2)], &[]),
        "a",
        "status",
        json!("running"),
    );
    let e = Orchestrator::new(fake.clone())
        .run(running)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "ufo::galaxy::already_running");
    assert!(fake.spans().is_empty());
}

#[tokio::test(start_paused = true)]
async fn an_empty_constellation_ends_at_once() {
    let fake = Fake::new(&[]);
    let (tx, mut rx) = unbounded_channel();
    let done = Orchestrator::new(fake.clone())
        .events(tx)
        .run(TaskConstellation::new("empty", ""))
        .await
        .unwrap();
    assert_eq!(done.report.total_tasks, 0);
    assert_eq!(done.report.state, ConstellationState::Created);
    assert_eq!(done.report.execution_duration, 0.0);
    let kinds: Vec<_> = drain(&mut rx).iter().map(Event::event_type).collect();
    assert_eq!(kinds, ["constellation_started", "constellation_completed"]);
}

#[tokio::test(start_paused = true)]
async fn a_planner_that_never_answers_is_let_go_after_its_timeout() {
    // UFO auto-releases a pending modification after 600 s.
    let fake = Fake::new(&[]);
    let c = plan(
        &[("a", "pc", 2), ("b", "pc", 2)],
        &[("a", "b", "unconditional")],
    );
    let silent = planner_fn(|_turn| std::future::pending::<Option<TaskConstellation>>());
    let done = Orchestrator::new(fake.clone())
        .planner(silent)
        .run(c)
        .await
        .unwrap();
    assert_eq!(fake.span("b").start, 610.0);
    assert_eq!(done.report.state, ConstellationState::Completed);
}
