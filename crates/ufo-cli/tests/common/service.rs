//! The service-mode pieces the CLI tests share: `ufo serve` and `ufo client`
//! as processes, the server's HTTP API, and the scripted replies of the
//! HostAgent and AppAgent that drive a device's calculator.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use ufo_testkit::scripted::{Reply, ScriptedModel, fixed, reply};

pub const KEY: &str = "svc-test-key-0123456789";

/// A child process killed when dropped.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn ufo() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ufo"));
    c.env_remove("UFO_CONFIG")
        .env("UFO_API_KEY", KEY)
        .env("UFO_LOG", "warn");
    c
}

/// `ufo serve` on `port` (0: any), with a config for `model`; returns the
/// process and the address it printed.
pub fn serve(dir: &Path, model: &ScriptedModel, port: u16) -> (Proc, String) {
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

/// `ufo client` as device `id` on the desktop described by `env`.
pub fn device(addr: &str, id: &str, env: &[(String, String)], extra: &[&str]) -> Command {
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

pub async fn api(addr: &str, path: &str) -> Value {
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

pub async fn dispatch(addr: &str, body: Value) -> Value {
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
pub async fn eventually<F, Fut>(secs: u64, what: &str, mut check: F) -> Value
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

pub async fn online(addr: &str, id: &str) {
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

pub async fn result(addr: &str, task: &str) -> Value {
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

pub fn host_assign(app: &'static str, subtask: &'static str) -> Reply {
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

pub fn host_finish(result: &'static str) -> Reply {
    fixed(
        json!({"observation": "done", "thought": "finished", "status": "FINISH", "result": result})
            .to_string(),
    )
}

pub fn click(name: &'static str) -> Reply {
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

pub fn app_finish(result: &'static str) -> Reply {
    fixed(json!({"observation": "done", "thought": "complete",
                 "action": {"function": "summary", "arguments": {"text": result}, "status": "FINISH"},
                 "result": result}).to_string())
}
