//! Galaxy across real desktops, as a user runs it: two `ufo serve` servers,
//! each with a `ufo client` device on its own private desktop, and `ufo
//! galaxy` planning and running one request over both (UFO's devices.yaml,
//! a scripted ConstellationAgent), the effects read back from the
//! applications.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::service::{
    Proc, app_finish, click, device, eventually, host_assign, host_finish, online, serve, ufo,
};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Stdio;
use ufo_testkit::scripted::{Reply, ScriptedModel, ScriptedRequest, fixed, reply};
use ufo_testkit::{calculator_display, desktop_env, desktop_with_apps, editable_texts};

/// Two devices for Galaxy, as a user sets them up: two `ufo serve`
/// servers, each with a `ufo client` device (`pc1`, `pc2`) on its own
/// private desktop with gnome-calculator; each server's model computes
/// 6*7 (pc1) or 2+3 (pc2) there.
struct TwoDevices {
    backends: [ufo_desktop_atspi::AtspiBackend; 2],
    models: [ScriptedModel; 2],
    devices_yaml: std::path::PathBuf,
    /// The `ufo client` processes of pc1 and pc2.
    devices: Vec<Proc>,
    _servers: Vec<Proc>,
    _desktops: Vec<ufo_desktop_atspi::HeadlessDesktop>,
}

async fn two_devices(dir: &Path) -> TwoDevices {
    let sum = |subtask, keys: [&'static str; 3], answer, result| {
        vec![
            host_assign("gnome-calculator", subtask),
            click(keys[0]),
            click(keys[1]),
            click(keys[2]),
            click("="),
            app_finish(answer),
            host_finish(result),
        ]
    };
    start_devices(
        dir,
        "sums",
        [
            (
                "gnome-calculator",
                sum("Compute 6*7", ["6", "×", "7"], "42", "6*7 = 42"),
            ),
            (
                "gnome-calculator",
                sum("Compute 2+3", ["2", "+", "3"], "5", "2+3 = 5"),
            ),
        ],
    )
    .await
}

/// Devices `pc1` and `pc2`, each a `ufo client` on its own private desktop
/// showing its application, under its own `ufo serve` whose agents answer
/// with its replies; UFO's devices.yaml for them names the run `task`.
async fn start_devices(
    dir: &Path,
    task: &str,
    each: [(&'static str, Vec<Reply>); 2],
) -> TwoDevices {
    let [(app1, replies1), (app2, replies2)] = each;
    let (desk1, backend1) = desktop_with_apps("galaxy-1", &[app1]).await;
    let (desk2, backend2) = desktop_with_apps("galaxy-2", &[app2]).await;
    let (d1, d2) = (dir.join("s1"), dir.join("s2"));
    std::fs::create_dir_all(&d1).unwrap();
    std::fs::create_dir_all(&d2).unwrap();
    let model1 = ScriptedModel::start(replies1).await;
    let model2 = ScriptedModel::start(replies2).await;
    let (s1, addr1) = serve(&d1, &model1, 0);
    let (s2, addr2) = serve(&d2, &model2, 0);
    let dev1 = Proc(
        device(&addr1, "pc1", &desktop_env(&desk1), &[])
            .spawn()
            .unwrap(),
    );
    let dev2 = Proc(
        device(&addr2, "pc2", &desktop_env(&desk2), &[])
            .spawn()
            .unwrap(),
    );
    online(&addr1, "pc1").await;
    online(&addr2, "pc2").await;
    let devices_yaml = dir.join("devices.yaml");
    std::fs::write(
        &devices_yaml,
        format!(
            "task_name: {task}\ndevices:\n  - device_id: pc1\n    server_url: ws://{addr1}/ws\n    os: linux\n  - device_id: pc2\n    server_url: ws://{addr2}/ws\n    os: linux\n"
        ),
    )
    .unwrap();
    TwoDevices {
        backends: [backend1, backend2],
        models: [model1, model2],
        devices_yaml,
        devices: vec![dev1, dev2],
        _servers: vec![s1, s2],
        _desktops: vec![desk1, desk2],
    }
}

/// The two sub-tasks: 6*7 on pc1, then 2+3 on pc2.
fn two_sums() -> Value {
    json!({"constellation_id": "c1", "name": "two sums",
        "tasks": [
            {"task_id": "mul", "name": "Multiply", "description": "compute 6*7 in the calculator",
             "tips": ["use the calculator's buttons"], "target_device_id": "pc1"},
            {"task_id": "add", "name": "Add", "description": "compute 2+3 in the calculator",
             "target_device_id": "pc2"}],
        "dependencies": [{"line_id": "l1", "from_task_id": "mul", "to_task_id": "add"}]})
}

/// `ufo ARGS` in a blocking task; its stdout as JSON, after asserting it
/// succeeded.
async fn ufo_json(args: Vec<std::ffi::OsString>) -> Value {
    let run = tokio::task::spawn_blocking(move || ufo().args(args).output().unwrap())
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap()
}

/// What both runs leave: each sub-task completed with its device's answer,
/// the addition begun after the multiplication ended, each desktop showing
/// its own sum, and the tips in what the device's agents were asked.
async fn assert_two_sums_done(two: &TwoDevices, constellation: &Value) {
    let tasks = &constellation["tasks"];
    for (id, answer) in [("mul", "6*7 = 42"), ("add", "2+3 = 5")] {
        assert_eq!(tasks[id]["status"], "completed", "{constellation}");
        assert!(
            tasks[id]["result"].to_string().contains(answer),
            "{constellation}"
        );
    }
    assert!(
        tasks["add"]["execution_start_time"].as_str().unwrap()
            >= tasks["mul"]["execution_end_time"].as_str().unwrap(),
        "{constellation}"
    );
    assert_eq!(calculator_display(&two.backends[0]).await, "42");
    assert_eq!(calculator_display(&two.backends[1]).await, "5");
    let asked = two.models[0].requests();
    let first = &asked[0];
    assert!(
        first.contains("use the calculator's buttons"),
        "{}",
        first.text()
    );
}

/// Galaxy across two desktops, as a user runs it: `ufo galaxy run` with a
/// plan of two sub-tasks (the second after the first) and UFO's
/// devices.yaml. The constellation ends completed, and the report is on
/// disk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn galaxy_runs_a_plan_across_two_desktops() {
    let dir = tempfile::tempdir().unwrap();
    let two = two_devices(dir.path()).await;
    let plan = dir.path().join("plan.json");
    std::fs::write(&plan, two_sums().to_string()).unwrap();
    let out = dir.path().join("result.json");
    let logs = dir.path().join("logs");
    let done = ufo_json(vec![
        "galaxy".into(),
        "run".into(),
        "--json".into(),
        "--plan".into(),
        plan.into(),
        "--devices".into(),
        two.devices_yaml.clone().into(),
        "--out".into(),
        out.clone().into(),
        "--log-dir".into(),
        logs.clone().into(),
    ])
    .await;
    assert_eq!(done["report"]["state"], "completed", "{done}");
    assert_two_sums_done(&two, &done["constellation"]).await;
    let written: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(written["report"]["state"], "completed");
    // The run's log: every event in order, the graph where it changed, and
    // a trajectory that `ufo galaxy replay` prints again.
    let run_dir = logs.join("sums");
    let events: Vec<Value> = std::fs::read_to_string(run_dir.join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<String> = events
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                e["type"].as_str().unwrap(),
                e["task_id"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "constellation_started ",
            "task_started mul",
            "task_completed mul",
            "task_started add",
            "task_completed add",
            "constellation_completed "
        ],
        "{events:?}"
    );
    assert_eq!(
        events[2]["constellation"]["tasks"]["mul"]["status"],
        "completed"
    );
    let trajectory = std::fs::read_to_string(run_dir.join("trajectory.md")).unwrap();
    assert!(
        trajectory.contains("```mermaid") && trajectory.contains("task_completed"),
        "{trajectory}"
    );
    let replay = tokio::task::spawn_blocking(move || {
        ufo()
            .args(["galaxy", "replay"])
            .arg(&run_dir)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(replay.status.success());
    assert_eq!(
        String::from_utf8_lossy(&replay.stdout).trim(),
        trajectory.trim()
    );
}

/// `ufo galaxy -r`: the ConstellationAgent (its own model, HOST_AGENT of
/// the config given) plans the request as the two sub-tasks, is asked
/// again as each ends, and finishes with its answer; its steps and the
/// outcome are in the task's log folder.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn galaxy_asks_the_agent_to_plan_and_runs_it_on_two_desktops() {
    let dir = tempfile::tempdir().unwrap();
    let two = two_devices(dir.path()).await;
    let planner = ScriptedModel::start(vec![
        fixed(
            json!({"thought": "one sum per device, the second after the first",
            "status": "CONTINUE", "constellation": two_sums()})
            .to_string(),
        ),
        fixed(
            json!({"thought": "the product is done", "status": "CONTINUE", "action": []})
                .to_string(),
        ),
        fixed(
            json!({"thought": "both are done", "status": "FINISH", "action": [],
            "results": "6*7 = 42 on pc1, 2+3 = 5 on pc2"})
            .to_string(),
        ),
    ])
    .await;
    let config = dir.path().join("galaxy.yaml");
    std::fs::write(&config, format!("HOST_AGENT:\n{}", planner.agent_yaml())).unwrap();
    let logs = dir.path().join("logs");
    let done = ufo_json(vec![
        // UFO's form: `galaxy -r REQUEST` (the same as `galaxy ask REQUEST`).
        "galaxy".into(),
        "-r".into(),
        "compute 6*7 on pc1, then 2+3 on pc2".into(),
        "--json".into(),
        "--devices".into(),
        two.devices_yaml.clone().into(),
        "--config".into(),
        config.into(),
        "--log-dir".into(),
        logs.clone().into(),
    ])
    .await;
    assert_eq!(done["status"], "FINISH", "{done}");
    assert_eq!(done["results"], "6*7 = 42 on pc1, 2+3 = 5 on pc2");
    assert_two_sums_done(&two, &done["constellation"]).await;
    // The agent saw both devices, and each step is a line of its log.
    let asked = &planner.requests()[0];
    assert!(
        asked.contains("pc1") && asked.contains("pc2"),
        "{}",
        asked.text()
    );
    let log = std::fs::read_to_string(logs.join("sums").join("response.log")).unwrap();
    assert_eq!(log.lines().count(), 3, "{log}");
    let result: Value =
        serde_json::from_slice(&std::fs::read(logs.join("sums").join("result.json")).unwrap())
            .unwrap();
    assert_eq!(result["status"], "FINISH");
    // The run's events beside the agent's steps (the agent kept the plan,
    // so nothing was merged).
    let events = std::fs::read_to_string(logs.join("sums").join("events.jsonl")).unwrap();
    assert_eq!(events.matches("\"task_completed\"").count(), 2, "{events}");
    assert_eq!(
        events.matches("\"constellation_completed\"").count(),
        1,
        "{events}"
    );
    assert!(logs.join("sums").join("trajectory.md").exists());
}

/// Two independent sub-tasks run at the same time on their two devices;
/// the second device is killed mid-task. Its task fails (the server ends
/// the session once the device is gone), the other completes, and the
/// constellation ends partially_failed, with no hang and exit status 1.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn galaxy_survives_a_device_killed_mid_task() {
    let dir = tempfile::tempdir().unwrap();
    let mut two = two_devices(dir.path()).await;
    let mut plan = two_sums();
    plan["dependencies"] = json!([]);
    let plan_file = dir.path().join("plan.json");
    std::fs::write(&plan_file, plan.to_string()).unwrap();
    let logs = dir.path().join("logs");
    let mut run = ufo()
        .args(["galaxy", "run", "--json", "--plan"])
        .arg(&plan_file)
        .arg("--devices")
        .arg(&two.devices_yaml)
        .arg("--log-dir")
        .arg(&logs)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // pc2's sub-task has started (the run's live log says so): kill pc2.
    let events = logs.join("sums").join("events.jsonl");
    eventually(60, "the sub-task on pc2 never started", || async {
        let text = std::fs::read_to_string(&events).unwrap_or_default();
        text.lines()
            .any(|l| l.contains("\"task_started\"") && l.contains("\"pc2\""))
            .then_some(Value::Null)
    })
    .await;
    let killed = two.devices.remove(1);
    drop(killed);
    let out = tokio::task::spawn_blocking(move || {
        let status = run.wait().unwrap();
        let mut stdout = String::new();
        std::io::Read::read_to_string(run.stdout.as_mut().unwrap(), &mut stdout).unwrap();
        (status, stdout)
    })
    .await
    .unwrap();
    assert_eq!(out.0.code(), Some(1), "{}", out.1);
    let done: Value = serde_json::from_str(out.1.trim()).unwrap();
    assert_eq!(done["report"]["state"], "partially_failed", "{done}");
    let tasks = &done["constellation"]["tasks"];
    assert_eq!(tasks["mul"]["status"], "completed", "{done}");
    assert_eq!(tasks["add"]["status"], "failed", "{done}");
    assert!(
        tasks["add"]["result"].to_string().contains("disconnected"),
        "{done}"
    );
    // They ran at the same time: each began before the other ended.
    let at = |id: &str, k: &str| tasks[id][k].as_str().unwrap().to_owned();
    assert!(
        at("mul", "execution_start_time") < at("add", "execution_end_time"),
        "{done}"
    );
    assert!(
        at("add", "execution_start_time") < at("mul", "execution_end_time"),
        "{done}"
    );
    assert_eq!(calculator_display(&two.backends[0]).await, "42");
}

/// `ufo galaxy` without `-r` or a subcommand asks for requests on the
/// terminal, one per line; an empty line or the end of input ends it.
#[test]
fn galaxy_reads_requests_from_the_terminal_until_an_empty_line() {
    for input in [Stdio::null(), Stdio::piped()] {
        let mut child = ufo()
            .args(["galaxy", "--devices", "devices.yaml"])
            .stdin(input)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if let Some(mut stdin) = child.stdin.take() {
            std::io::Write::write_all(&mut stdin, b"\n").unwrap();
        }
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("galaxy request"),
            "{out:?}"
        );
    }
}

/// The digits that follow the first `marker` in `text` that digits follow.
fn number_after(text: &str, marker: &str) -> Option<String> {
    text.match_indices(marker).find_map(|(i, _)| {
        let digits: String = text[i + marker.len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        (!digits.is_empty()).then_some(digits)
    })
}

/// `number_after` in what a scripted request says of this step (its last
/// user message: the system prompt's examples hold numbers of their own),
/// or a panic showing it.
fn number_in(r: &ScriptedRequest, marker: &str) -> String {
    let text = r.last_user_text();
    number_after(&text, marker).unwrap_or_else(|| panic!("no number after {marker:?} in:\n{text}"))
}

/// The first control of the app prompt that is an `Edit` (with its value).
fn first_edit(r: &ScriptedRequest) -> Value {
    r.list_after("<Available Control Item:>")
        .into_iter()
        .find(|c| c["type"] == "Edit")
        .unwrap_or_else(|| panic!("no Edit control in:\n{}", r.text()))
}

/// pc1's agents: 6*7 in the calculator, then the AppAgent reads the
/// display from what it observes and the HostAgent reports that number.
fn product_on_the_calculator() -> Vec<Reply> {
    vec![
        host_assign("gnome-calculator", "Compute 6*7"),
        click("6"),
        click("×"),
        click("7"),
        click("="),
        reply(|r| {
            let shown = first_edit(r)["value"]
                .as_str()
                .unwrap_or_default()
                .trim()
                .to_owned();
            let said = format!("the display shows {shown}");
            json!({"observation": said, "thought": "read the display",
                   "action": {"function": "summary", "arguments": {"text": said}, "status": "FINISH"},
                   "result": said})
            .to_string()
        }),
        reply(|r| {
            let product = number_in(r, "the display shows ");
            json!({"observation": "done", "thought": "finished", "status": "FINISH",
                   "result": format!("the product is {product}")})
            .to_string()
        }),
    ]
}

/// pc2's agents: the number their request names, typed into the editor.
fn number_into_the_editor() -> Vec<Reply> {
    vec![
        reply(|r| {
            let n = number_in(r, "the number ");
            let (id, name) = r
                .window("mousepad")
                .unwrap_or_else(|| panic!("no mousepad in:\n{}", r.text()));
            json!({"observation": "mousepad is open", "thought": "assign",
                   "current_subtask": format!("write the number {n} in the document"),
                   "message": [], "plan": [], "status": "ASSIGN",
                   "function": "select_application_window", "arguments": {"id": id, "name": name},
                   "questions": [], "comment": "", "result": ""})
            .to_string()
        }),
        reply(|r| {
            let n = number_in(r, "the number ");
            let edit = first_edit(r);
            json!({"observation": "an empty document", "thought": "type it",
                   "action": {"function": "set_edit_text",
                              "arguments": {"id": edit["id"], "name": edit["name"], "text": n},
                              "status": "CONTINUE"},
                   "plan": [], "comment": ""})
            .to_string()
        }),
        app_finish("typed"),
        host_finish("the number is in the editor"),
    ]
}

/// The issue's case: a number computed in the calculator on pc1 is typed
/// into the editor on pc2. The ConstellationAgent plans both with the
/// second depending on the first, reads the product from the first task's
/// result when asked to edit, and puts it into the second task's
/// description; pc2's agents type what their request names. Nobody's
/// script holds the number: it comes from pc1's display.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn galaxy_carries_a_value_from_one_desktop_to_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let two = start_devices(
        dir.path(),
        "carry",
        [
            ("gnome-calculator", product_on_the_calculator()),
            ("mousepad", number_into_the_editor()),
        ],
    )
    .await;
    let plan = json!({"constellation_id": "c2", "name": "carry",
        "tasks": [
            {"task_id": "mul", "name": "Multiply", "description": "compute 6*7 in the calculator",
             "target_device_id": "pc1"},
            {"task_id": "write", "name": "Write", "description": "write the product in the text editor",
             "target_device_id": "pc2"}],
        "dependencies": [{"line_id": "l1", "from_task_id": "mul", "to_task_id": "write"}]});
    let planner = ScriptedModel::start(vec![
        fixed(
            json!({"thought": "compute, then write", "status": "CONTINUE", "constellation": plan})
                .to_string(),
        ),
        reply(|r| {
            let product = number_in(r, "the product is ");
            json!({"thought": "write needs the product", "status": "CONTINUE", "results": "",
                   "action": [{"function": "update_task", "arguments": {"task_id": "write",
                       "description": format!("write the number {product} in the text editor")}}]})
            .to_string()
        }),
        fixed(
            json!({"thought": "done", "status": "FINISH", "action": [], "results": "written"})
                .to_string(),
        ),
    ])
    .await;
    let config = dir.path().join("galaxy.yaml");
    std::fs::write(&config, format!("HOST_AGENT:\n{}", planner.agent_yaml())).unwrap();
    let done = ufo_json(vec![
        "galaxy".into(),
        "-r".into(),
        "compute 6*7 on pc1 and write the product in the editor on pc2".into(),
        "--json".into(),
        "--devices".into(),
        two.devices_yaml.clone().into(),
        "--config".into(),
        config.into(),
        "--log-dir".into(),
        dir.path().join("logs").into(),
    ])
    .await;
    assert_eq!(done["status"], "FINISH", "{done}");
    let tasks = &done["constellation"]["tasks"];
    assert_eq!(tasks["mul"]["status"], "completed", "{done}");
    assert_eq!(tasks["write"]["status"], "completed", "{done}");
    assert!(
        tasks["write"]["execution_start_time"].as_str().unwrap()
            >= tasks["mul"]["execution_end_time"].as_str().unwrap(),
        "{done}"
    );
    // Each effect, read back from its own desktop.
    assert_eq!(calculator_display(&two.backends[0]).await, "42");
    let seen = editable_texts(&two.backends[1], "mousepad", "42").await;
    assert!(
        seen.iter().any(|t| t == "42"),
        "mousepad holds {seen:?}; {done}"
    );
    // pc2 was asked with the number the planner read from pc1's result.
    assert!(two.models[1].requests()[0].contains("write the number 42 in the text editor"));
}
