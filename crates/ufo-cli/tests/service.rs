//! Service mode as a user runs it: `ufo serve` (the agents) and `ufo client`
//! (a device on a private desktop) as separate processes talking UFO's AIP
//! over a real WebSocket, requests sent with `POST /api/dispatch` or by the
//! device itself, and the effect read back from the application.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};
use ufo_testkit::scripted::{Reply, ScriptedModel, fixed, reply};
use ufo_testkit::{calculator_display, desktop_env, desktop_with_apps};

const KEY: &str = "svc-test-key-0123456789";

/// A child process killed when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn ufo() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ufo"));
    c.env_remove("UFO_CONFIG")
        .env("UFO_API_KEY", KEY)
        .env("UFO_LOG", "warn");
    c
}

/// `ufo serve` on `port` (0: any), with a config for `model`; returns the
/// process and the address it printed.
fn serve(dir: &Path, model: &ScriptedModel, port: u16) -> (Proc, String) {
    let cfg = dir.join("agents.yaml");
    let m = model.agent_yaml();
    std::fs::write(
        &cfg,
        format!("HOST_AGENT:\n{m}APP_AGENT:\n{m}MAX_STEP: 20\nSLEEP_TIME: 0\nEVA_SESSION: false\n"),
    )
    .unwrap();
    let mut child = ufo()
        .args(["serve", "--port", &port.to_string(), "--config"])
        .arg(&cfg)
        .arg("--log-dir")
        .arg(dir.join("logs"))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // "ufo serve: listening on ws://127.0.0.1:PORT/ws (...)"
    let addr = line
        .split("ws://")
        .nth(1)
        .and_then(|s| s.split("/ws").next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned();
    (Proc(child), addr)
}

/// `ufo serve` refuses, before it listens, a key of a few characters, a
/// device key that is short or is the API key itself, and a certificate it
/// cannot read; each with its code and what to do.
#[test]
fn serve_refuses_weak_keys_and_unreadable_certificates() {
    let run = |key: &str, args: &[&str]| {
        let out = ufo()
            .env("UFO_API_KEY", key)
            .args(["serve", "--port", "0"])
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = run("x", &[]);
    assert!(err.contains("error[ufo::aip::weak_key]"), "{err}");
    assert!(
        err.contains("at least 16") && err.contains("urandom"),
        "{err}"
    );
    let err = run(KEY, &["--device-key", "pc1=short"]);
    assert!(err.contains("error[ufo::aip::bad_device_key]"), "{err}");
    let err = run(KEY, &["--device-key", &format!("pc1={KEY}")]);
    assert!(err.contains("the server's API key"), "{err}");
    let err = run(
        KEY,
        &[
            "--tls-cert",
            "/nonexistent/c.pem",
            "--tls-key",
            "/nonexistent/k.pem",
        ],
    );
    assert!(err.contains("error[ufo::aip::tls]"), "{err}");
    assert!(err.contains("/nonexistent/c.pem"), "{err}");
}

/// `ufo client` as device `id` on the desktop described by `env`.
fn device(addr: &str, id: &str, env: &[(String, String)], extra: &[&str]) -> Command {
    let mut c = ufo();
    c.args([
        "client",
        "--server",
        &format!("ws://{addr}/ws"),
        "--client-id",
        id,
    ])
    .args(extra)
    .env_remove("DISPLAY")
    .env_remove("DBUS_SESSION_BUS_ADDRESS")
    .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    c
}

async fn api(addr: &str, path: &str) -> Value {
    reqwest::Client::new()
        .get(format!("http://{addr}{path}"))
        .header("X-API-Key", KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn dispatch(addr: &str, body: Value) -> Value {
    let r = reqwest::Client::new()
        .post(format!("http://{addr}/api/dispatch"))
        .header("X-API-Key", KEY)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    r.json().await.unwrap()
}

/// Waits (up to `secs`) until `check` holds, panicking with `what` otherwise.
async fn eventually<F, Fut>(secs: u64, what: &str, mut check: F) -> Value
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<Value>>,
{
    let start = Instant::now();
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(start.elapsed() < Duration::from_secs(secs), "{what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn online(addr: &str, id: &str) {
    let id = id.to_owned();
    eventually(60, &format!("{id} never came online"), || async {
        let v = api(addr, "/api/clients").await;
        v["online_clients"]
            .as_array()?
            .iter()
            .any(|c| c == id.as_str())
            .then_some(v)
    })
    .await;
}

async fn result(addr: &str, task: &str) -> Value {
    let path = format!("/api/task_result/{task}");
    let v = eventually(180, &format!("task {task} never finished"), || async {
        let v = api(addr, &path).await;
        (v["status"] == "done").then(|| v["result"].clone())
    })
    .await;
    // UFO's shape: a list of {request, result}; ufo-rs's fields beside them.
    let last = v.as_array().and_then(|a| a.last()).cloned();
    let last = last.unwrap_or_else(|| panic!("not UFO's list of rounds: {v}"));
    assert!(
        last.get("request").is_some() && last.get("result").is_some(),
        "{v}"
    );
    last
}

fn host_assign(app: &'static str, subtask: &'static str) -> Reply {
    reply(move |r| {
        let (id, name) = r
            .window(app)
            .unwrap_or_else(|| panic!("no window of {app} in the host prompt:\n{}", r.text()));
        json!({"observation": format!("{app} is open"), "thought": "assign", "current_subtask": subtask,
               "message": [], "plan": [], "status": "ASSIGN", "function": "select_application_window",
               "arguments": {"id": id, "name": name}, "questions": [], "comment": "", "result": ""})
        .to_string()
    })
}

fn host_finish(result: &'static str) -> Reply {
    fixed(
        json!({"observation": "done", "thought": "finished", "status": "FINISH", "result": result})
            .to_string(),
    )
}

fn click(name: &'static str) -> Reply {
    reply(move |r| {
        let id = r
            .control_id(name)
            .unwrap_or_else(|| panic!("no control {name:?} in the app prompt"));
        json!({"observation": "the calculator", "thought": format!("click {name}"),
               "action": {"function": "click_input", "arguments": {"id": id, "name": name}, "status": "CONTINUE"},
               "plan": [], "comment": ""})
        .to_string()
    })
}

fn app_finish(result: &'static str) -> Reply {
    fixed(json!({"observation": "done", "thought": "complete",
                 "action": {"function": "summary", "arguments": {"text": result}, "status": "FINISH"},
                 "result": result}).to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_and_client_run_dispatched_and_own_requests_on_the_device() {
    let (desktop, backend) = desktop_with_apps("svc-e2e", &["gnome-calculator"]).await;
    let env = desktop_env(&desktop);
    let dir = tempfile::tempdir().unwrap();
    let model = ScriptedModel::start(vec![
        // 1. dispatched over REST: HostAgent → AppAgent → HostAgent
        host_assign("gnome-calculator", "Compute 6*7"),
        click("6"),
        click("×"),
        click("7"),
        click("="),
        app_finish("42"),
        host_finish("6*7 = 42"),
        // 2. the device's own task, single-tier (linux_service) on the calculator
        click("+"),
        click("1"),
        click("="),
        app_finish("43"),
    ])
    .await;
    let (_server, addr) = serve(dir.path(), &model, 0);
    let _dev = Proc(device(&addr, "dev1", &env, &[]).spawn().unwrap());
    online(&addr, "dev1").await;

    let sent = dispatch(&addr, json!({"client_id": "dev1", "request": "compute 6*7 in the calculator", "task_name": "calc-1"})).await;
    assert_eq!(sent["status"], "dispatched");
    let r = result(&addr, "calc-1").await;
    assert_eq!(r["status"], "FINISH", "{r}");
    assert_eq!(r["result"], "6*7 = 42");
    assert_eq!(r["steps"], 7);
    // The effect is on the device's desktop.
    assert_eq!(calculator_display(&backend).await, "42");
    // Logs are on the server, in the usual layout, screenshots included
    // (they travelled as data).
    let logs = dir.path().join("logs").join("calc-1");
    let text = std::fs::read_to_string(logs.join("response.log")).unwrap();
    let steps: Vec<ufo_agent::StepRecord> = ufo_agent::read_response_log(&text)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(steps.len(), 7, "{text}");
    assert!(logs.join("action_step2.png").exists());
    let clients = api(&addr, "/api/clients").await;
    assert_eq!(clients["clients"][0]["platform"], "linux");
    assert_eq!(clients["clients"][0]["running_task"], Value::Null);

    // The device sends its own request and waits for TASK_END.
    let own = tokio::task::spawn_blocking({
        let env = env.clone();
        let addr = addr.clone();
        move || {
            device(
                &addr,
                "dev2",
                &env,
                &[
                    "-r",
                    "add 1",
                    "-t",
                    "own-1",
                    "-m",
                    "linux_service",
                    "--app",
                    "gnome-calculator",
                ],
            )
            .output()
            .unwrap()
        }
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&own.stdout);
    assert!(
        own.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&own.stderr)
    );
    assert!(stdout.contains("own-1: FINISH"), "{stdout}");
    assert!(stdout.contains("result: 43"), "{stdout}");
    assert_eq!(calculator_display(&backend).await, "43");
    assert_eq!(result(&addr, "own-1").await["steps"], 4);
    assert_eq!(model.remaining(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_killed_mid_task_fails_the_task_and_keeps_its_logs() {
    let (desktop, _backend) = desktop_with_apps("svc-kill", &["gnome-calculator"]).await;
    let env = desktop_env(&desktop);
    let dir = tempfile::tempdir().unwrap();
    let pid = Arc::new(AtomicU32::new(0));
    let victim = pid.clone();
    let model = ScriptedModel::start(vec![
        host_assign("gnome-calculator", "Compute 6*7"),
        // The AppAgent has observed the calculator; now its device dies.
        reply(move |r| {
            let id = r.control_id("6").unwrap();
            let _ = Command::new("kill")
                .args(["-9", &victim.load(Ordering::SeqCst).to_string()])
                .status();
            json!({"observation": "", "thought": "click 6",
                   "action": {"function": "click_input", "arguments": {"id": id, "name": "6"}, "status": "CONTINUE"}})
            .to_string()
        }),
    ])
    .await;
    let (_server, addr) = serve(dir.path(), &model, 0);
    let dev = Proc(device(&addr, "dev1", &env, &[]).spawn().unwrap());
    pid.store(dev.0.id(), Ordering::SeqCst);
    online(&addr, "dev1").await;
    dispatch(
        &addr,
        json!({"client_id": "dev1", "request": "compute 6*7", "task_name": "doomed"}),
    )
    .await;
    let r = result(&addr, "doomed").await;
    assert_ne!(r["status"], "FINISH", "{r}");
    let text = r.to_string();
    assert!(
        text.contains("ufo::aip::device_gone") || text.contains("disconnected"),
        "{r}"
    );
    // What happened up to the loss is on disk.
    let steps = std::fs::read_to_string(dir.path().join("logs/doomed/response.log")).unwrap();
    assert!(ufo_agent::read_response_log(&steps).count() >= 2, "{steps}");
    assert!(steps.contains("device_gone"), "{steps}");
    // And the server lives on.
    assert_eq!(api(&addr, "/api/health").await["status"], "healthy");
    assert_eq!(
        api(&addr, "/api/clients").await["online_clients"],
        json!([])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_reconnects_after_a_server_restart_and_keys_are_required() {
    let (desktop, _backend) = desktop_with_apps("svc-restart", &["gnome-calculator"]).await;
    let env = desktop_env(&desktop);
    let dir = tempfile::tempdir().unwrap();
    let model = ScriptedModel::start(vec![host_finish("nothing to do")]).await;

    // No key: the server refuses to start; a wrong key: the device is refused.
    let out = ufo()
        .env_remove("UFO_API_KEY")
        .args(["serve", "--port", "0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ufo::aip::no_api_key"));
    let out = ufo()
        .env_remove("UFO_API_KEY")
        .args([
            "serve",
            "--port",
            "0",
            "--insecure-no-auth",
            "--host",
            "0.0.0.0",
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("ufo::aip::insecure_not_loopback"));

    let (server, addr) = serve(dir.path(), &model, 0);
    let port: u16 = addr.rsplit(':').next().unwrap().parse().unwrap();
    let out = device(&addr, "intruder", &env, &[])
        .env("UFO_API_KEY", "wrong")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ufo::aip::unauthorized"));

    let _dev = Proc(
        device(&addr, "dev1", &env, &["--max-retries", "10"])
            .spawn()
            .unwrap(),
    );
    online(&addr, "dev1").await;
    // A service manager stops the server with SIGTERM: it ends (telling the
    // device), and a new one on the same port gets the device back.
    let mut server = server;
    let stopped = Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let start = Instant::now();
    while server.0.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "ufo serve ignored SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let (_server, addr) = serve(dir.path(), &model, port);
    online(&addr, "dev1").await;
    dispatch(&addr, json!({"client_id": "dev1", "request": "look at the desktop", "task_name": "after-restart"})).await;
    let r = result(&addr, "after-restart").await;
    assert_eq!(r["status"], "FINISH", "{r}");
    assert_eq!(r["result"], "nothing to do");
}

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
    let (desk1, backend1) = desktop_with_apps("galaxy-1", &["gnome-calculator"]).await;
    let (desk2, backend2) = desktop_with_apps("galaxy-2", &["gnome-calculator"]).await;
    let (d1, d2) = (dir.join("s1"), dir.join("s2"));
    std::fs::create_dir_all(&d1).unwrap();
    std::fs::create_dir_all(&d2).unwrap();
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
    let model1 = ScriptedModel::start(sum("Compute 6*7", ["6", "×", "7"], "42", "6*7 = 42")).await;
    let model2 = ScriptedModel::start(sum("Compute 2+3", ["2", "+", "3"], "5", "2+3 = 5")).await;
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
            "task_name: sums\ndevices:\n  - device_id: pc1\n    server_url: ws://{addr1}/ws\n    os: linux\n  - device_id: pc2\n    server_url: ws://{addr2}/ws\n    os: linux\n"
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
