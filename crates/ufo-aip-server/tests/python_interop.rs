//! A client from another ecosystem: a Python device written the way UFO's
//! own client writes its frames (the `websockets` package, UFO's JSON, the
//! key in `?token=`, errors as plain strings) registers with our server, is
//! dispatched a task over REST, answers the session's commands, and gets
//! TASK_END completed — while another client sends garbage and an oversized
//! frame and is turned away.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use ufo_aip::auth::{ApiKey, HostCheck};
use ufo_aip_server::{Limits, Server, ServerOptions, SessionRunner};
use ufo_session::config::UfoConfig;
use ufo_testkit::scripted::{ScriptedModel, fixed};

const KEY: &str = "interop-key";
const WEBSOCKETS: &str = "websockets==15.0.1";

fn python() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ufo-aip-deps");
    ufo_testkit::deps::python_venv(&root, "py-websockets-15.0.1", &[WEBSOCKETS])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(clippy::too_many_lines)]
async fn a_ufo_style_python_device_runs_a_dispatched_task() {
    let py = python();
    let model = ScriptedModel::start(vec![fixed(
        json!({"observation": "no windows", "thought": "nothing to do here", "status": "FINISH",
               "result": "the device has no windows"})
        .to_string(),
    )])
    .await;
    let logs = tempfile::tempdir().unwrap();
    let m = model.agent_yaml();
    let config = UfoConfig::parse(
        &format!(
            "HOST_AGENT:\n{m}  VISUAL_MODE: false\nAPP_AGENT:\n{m}SLEEP_TIME: 0\nEVA_SESSION: false\n"
        ),
        Path::new("."),
        &|_| None,
    )
    .unwrap();
    let prompts = ufo_agent::PromptSet::load(&config.prompts).unwrap();
    let runner = SessionRunner::new(config, Arc::new(prompts), logs.path().to_owned());
    let server = Server::new(
        ServerOptions {
            key: ApiKey::required(KEY),
            hosts: HostCheck::for_bind("127.0.0.1".parse().unwrap(), &[]),
            limits: Limits::default(),
        },
        Some(runner),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (_stop, stop) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server.clone().serve(listener, async {
        let _ = stop.await;
    }));

    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/ufo_style_device.py"
    );
    let device = tokio::process::Command::new(&py)
        .arg(script)
        .arg(format!("ws://{addr}/ws?token={KEY}"))
        .arg("pydev")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !server.devices().contains(&"pydev".to_owned()) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the Python device never registered"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Meanwhile another client misbehaves: garbage, then a frame over 16 MiB.
    let (mut bad, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws?token={KEY}"))
        .await
        .unwrap();
    use futures::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    bad.send(Message::Text(
        json!({"type": "register", "status": "ok", "client_id": "bad"})
            .to_string()
            .into(),
    ))
    .await
    .unwrap();
    let _ = bad.next().await;
    bad.send(Message::Text("{\"type\": 42".into()))
        .await
        .unwrap();
    let e = bad.next().await.unwrap().unwrap();
    assert!(e.to_text().unwrap().contains("malformed frame"), "{e:?}");
    let _ = bad.send(Message::Text("x".repeat(17 << 20).into())).await;
    let mut closed = None;
    while let Some(Ok(m)) = bad.next().await {
        if let Message::Close(c) = m {
            closed = c;
            break;
        }
    }
    assert_eq!(closed.map(|c| u16::from(c.code)), Some(1009));

    let sent: Value = reqwest::Client::new()
        .post(format!("http://{addr}/api/dispatch"))
        .header("X-API-Key", KEY)
        .json(&json!({"client_id": "pydev", "request": "look around", "task_name": "py-1"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(sent["status"], "dispatched");
    let out = tokio::time::timeout(Duration::from_secs(60), device.wait_with_output())
        .await
        .expect("the Python device ends at TASK_END")
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        events[0],
        json!({"event": "registered", "type": "heartbeat", "status": "ok"})
    );
    assert_eq!(events[1]["event"], "task");
    assert_eq!(events[1]["task_name"], "py-1");
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "command" && e["tool"] == "get_desktop_app_info"),
        "{stdout}"
    );
    let end = events.last().unwrap();
    assert_eq!(end["event"], "task_end", "{stdout}");
    assert_eq!(end["status"], "completed", "{stdout}");
    // UFO's shape: one {request, result} per round, ufo-rs's fields beside.
    assert_eq!(end["result"][0]["request"], "look around");
    assert_eq!(end["result"][0]["result"], "the device has no windows");
    // No ERROR frame: every UFO-shaped frame was understood.
    assert!(!events.iter().any(|e| e["event"] == "error"), "{stdout}");
    let logs_dir = logs.path().join("py-1");
    assert!(logs_dir.join("response.log").exists());
}
