//! Galaxy's side of AIP over real WebSockets: a constellation client
//! registers as `<task name>@<device>` for a connected device, asks for its
//! information, and sends it a sub-task, which runs as a session on that
//! device (its commands reach the device) and ends with a TASK_END to both;
//! what UFO's server refuses is refused with its words, and the server
//! keeps serving.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;
use ufo_aip::auth::{ApiKey, DeviceKeys, HostCheck};
use ufo_aip_server::{DevicePolicy, Limits, Server, ServerOptions, SessionRunner};
use ufo_session::config::UfoConfig;
use ufo_testkit::scripted::{ScriptedModel, fixed};

const KEY: &str = "galaxy-key";
const DEVICE_KEY: &str = "dev-own-key-5c2e7f3a91d4b8";

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A server whose sessions ask `model`; device `dev` connects with its own
/// key (the shared key registers no device then).
async fn serve(model: &ScriptedModel, logs: &Path) -> std::net::SocketAddr {
    let m = model.agent_yaml();
    let config = UfoConfig::parse(
        &format!(
            "HOST_AGENT:\n{m}APP_AGENT:\n{m}SLEEP_TIME: 0\nEVA_SESSION: false\nMAX_STEP: 5\n\
             ENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]\n"
        ),
        Path::new("."),
        &|_| None,
    )
    .unwrap();
    let prompts = ufo_agent::PromptSet::load(&config.prompts).unwrap();
    let runner = SessionRunner::new(config, Arc::new(prompts), logs.to_owned());
    let policy = DevicePolicy {
        keys: DeviceKeys::parse("test keys", &format!("dev: {DEVICE_KEY}")).unwrap(),
        ..DevicePolicy::default()
    };
    let server = Server::with_devices(
        ServerOptions {
            key: ApiKey::required(KEY),
            hosts: HostCheck::for_bind("127.0.0.1".parse().unwrap(), &[]),
            limits: Limits::default(),
        },
        policy,
        Some(runner),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(server.serve(listener, std::future::pending()));
    addr
}

async fn connect(addr: std::net::SocketAddr, key: &str) -> Ws {
    tokio_tungstenite::connect_async(format!("ws://{addr}/ws?token={key}"))
        .await
        .unwrap()
        .0
}

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// The next text frame as JSON (`{"closed": true}` when the socket ends).
async fn next(ws: &mut Ws) -> Value {
    loop {
        match tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .expect("a frame within 30 s")
        {
            Some(Ok(Message::Text(t))) => return serde_json::from_str(&t).unwrap(),
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return json!({"closed": true}),
            Some(Ok(_)) => {}
        }
    }
}

/// REGISTER as UFO's constellation client writes it; the reply.
async fn register_constellation(
    addr: std::net::SocketAddr,
    key: &str,
    id: &str,
    target: &str,
) -> (Ws, Value) {
    let mut ws = connect(addr, key).await;
    send(
        &mut ws,
        json!({"type": "register", "status": "ok", "client_type": "constellation",
            "client_id": id, "target_id": target,
            "metadata": {"type": "constellation_client", "task_name": "TN",
                "targeted_device_id": target, "version": "2.0"}}),
    )
    .await;
    let reply = next(&mut ws).await;
    (ws, reply)
}

/// UFO's Linux device: registers with its system information, answers
/// `list_tools` with a command tool and any other command with a failure,
/// and reports the TASK_END it gets.
async fn linux_device(addr: std::net::SocketAddr) -> tokio::task::JoinHandle<(Vec<String>, Value)> {
    let mut ws = connect(addr, DEVICE_KEY).await;
    send(
        &mut ws,
        json!({"type": "register", "status": "ok", "client_type": "device", "client_id": "dev",
            "metadata": {"platform": "linux", "system_info": {"platform": "linux",
                "hostname": "box-7", "cpu_count": 2}}}),
    )
    .await;
    assert_eq!(next(&mut ws).await["type"], "heartbeat");
    tokio::spawn(async move {
        let mut tools = Vec::new();
        loop {
            let m = next(&mut ws).await;
            match m["type"].as_str() {
                Some("command") => {
                    let mut results = Vec::new();
                    for a in m["actions"].as_array().unwrap() {
                        let name = a["tool_name"].as_str().unwrap().to_owned();
                        let mut r = match name.as_str() {
                            "list_tools" => json!({"status": "success", "result": [{
                                "tool_key": "action::execute_command", "tool_name": "execute_command",
                                "namespace": "BashExecutor", "tool_type": "action",
                                "description": "Run a command.",
                                "input_schema": {"type": "object",
                                    "properties": {"command": {"type": "string"}}, "required": ["command"]}}]}),
                            other => {
                                json!({"status": "failure", "error": format!("no {other} here")})
                            }
                        };
                        r["call_id"] = a["call_id"].clone();
                        tools.push(name);
                        results.push(r);
                    }
                    send(
                        &mut ws,
                        json!({"type": "command_results", "status": "continue",
                        "client_id": "dev", "session_id": m["session_id"],
                        "prev_response_id": m["response_id"], "action_results": results}),
                    )
                    .await;
                }
                Some("task_end") => return (tools, m),
                Some(_) => {}
                None => return (tools, Value::Null),
            }
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_constellation_runs_a_sub_task_on_its_device_and_both_hear_the_end() {
    let answer = json!({"observation": "", "thought": "", "plan": [], "comment": "",
        "result": "the logs are summarised",
        "action": {"function": "", "arguments": {}, "status": "FINISH"}});
    let model = ScriptedModel::start(vec![fixed(answer.to_string())]).await;
    let logs = tempfile::tempdir().unwrap();
    let addr = serve(&model, logs.path()).await;
    let device = linux_device(addr).await;

    let (mut galaxy, ok) = register_constellation(addr, KEY, "TN@dev", "dev").await;
    assert_eq!(
        (ok["type"].as_str(), ok["status"].as_str()),
        (Some("heartbeat"), Some("ok")),
        "{ok}"
    );

    // What the device told of itself, for the registered target only.
    send(
        &mut galaxy,
        json!({"type": "device_info_request", "status": "ok",
        "client_type": "constellation", "client_id": "TN@dev", "target_id": "dev",
        "request_id": "device_info_dev_1"}),
    )
    .await;
    let info = next(&mut galaxy).await;
    assert_eq!(info["type"], "device_info_response", "{info}");
    assert_eq!(info["response_id"], "device_info_dev_1");
    assert_eq!(info["result"]["hostname"], "box-7", "{info}");
    send(
        &mut galaxy,
        json!({"type": "device_info_request", "status": "ok",
        "client_type": "constellation", "client_id": "TN@dev", "target_id": "other",
        "request_id": "q2"}),
    )
    .await;
    let refused = next(&mut galaxy).await;
    assert_eq!(refused["type"], "error");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("Not authorized"),
        "{refused}"
    );

    // A TASK as UFO's constellation client sends it.
    send(&mut galaxy, json!({"type": "task", "status": "continue",
        "client_type": "constellation", "client_id": "TN@dev", "target_id": "dev",
        "task_name": "galaxy/TN/t1", "session_id": "TN@t1",
        "request": "Task Description: Summarise the logs\nTips for Completion:\n - they are in /tmp"}))
    .await;
    let ack = next(&mut galaxy).await;
    assert_eq!(
        (ack["type"].as_str(), ack["session_id"].as_str()),
        (Some("heartbeat"), Some("TN@t1")),
        "{ack}"
    );
    assert_eq!(ack["task_name"], "galaxy_TN_t1");
    let end = next(&mut galaxy).await;
    assert_eq!(end["type"], "task_end", "{end}");
    assert_eq!(end["status"], "completed", "{end}");
    assert_eq!(end["session_id"], "TN@t1");
    assert_eq!(
        end["result"][0]["result"], "the logs are summarised",
        "{end}"
    );
    // The session ran on the device: its commands went there, and so did
    // the same TASK_END.
    let (tools, device_end) = tokio::time::timeout(Duration::from_secs(30), device)
        .await
        .unwrap()
        .unwrap();
    assert!(tools.iter().any(|t| t == "list_tools"), "{tools:?}");
    assert_eq!(device_end["session_id"], "TN@t1");
    assert_eq!(device_end["status"], "completed");
    // The model was asked with the sub-task's text.
    assert!(model.requests()[0].contains("Summarise the logs"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_ufos_server_refuses_is_refused_and_the_server_keeps_serving() {
    let model = ScriptedModel::start(Vec::new()).await;
    let logs = tempfile::tempdir().unwrap();
    let addr = serve(&model, logs.path()).await;
    let _device = linux_device(addr).await;
    let error_of = |v: &Value| v["error"].as_str().unwrap_or_default().to_owned();

    // A target that is not connected.
    let (_, r) = register_constellation(addr, KEY, "TN@ghost", "ghost").await;
    assert!(
        error_of(&r).contains("Target device 'ghost' is not connected"),
        "{r}"
    );
    // A device's own key registers no constellation.
    let (_, r) = register_constellation(addr, DEVICE_KEY, "TN@dev", "dev").await;
    assert!(error_of(&r).contains("shared key"), "{r}");
    // An id that is not <task>@<device>.
    let (_, r) = register_constellation(addr, KEY, "../x", "dev").await;
    assert!(error_of(&r).contains("<task name>@<device id>"), "{r}");

    let (mut galaxy, ok) = register_constellation(addr, KEY, "TN@dev", "dev").await;
    assert_eq!(ok["type"], "heartbeat", "{ok}");
    // The same id twice.
    let (_, r) = register_constellation(addr, KEY, "TN@dev", "dev").await;
    assert!(
        error_of(&r).contains("duplicate registrations are not allowed"),
        "{r}"
    );

    // Tasks without a target, for a device not connected, speaking for
    // another client.
    let task = |target: Value, id: &str| {
        json!({"type": "task", "status": "continue",
        "client_type": "constellation", "client_id": id, "target_id": target,
        "task_name": "galaxy/TN/t9", "session_id": "TN@t9", "request": "x"})
    };
    send(&mut galaxy, task(Value::Null, "TN@dev")).await;
    assert!(error_of(&next(&mut galaxy).await).contains("require target_id"));
    send(&mut galaxy, task(json!("ghost"), "TN@dev")).await;
    assert!(error_of(&next(&mut galaxy).await).contains("Target device 'ghost' is not connected"));
    send(&mut galaxy, task(json!("dev"), "TN@other")).await;
    assert!(error_of(&next(&mut galaxy).await).contains("client_id does not match"));
    // Commands' results are a device's to send.
    send(
        &mut galaxy,
        json!({"type": "command_results", "status": "continue",
        "client_id": "TN@dev", "prev_response_id": "forged", "action_results": []}),
    )
    .await;
    assert!(error_of(&next(&mut galaxy).await).contains("runs no commands"));
    // The connection still answers, and the device was never dispatched to
    // as a constellation: the server lists the device alone.
    send(
        &mut galaxy,
        json!({"type": "heartbeat", "status": "ok", "client_id": "TN@dev"}),
    )
    .await;
    assert_eq!(next(&mut galaxy).await["type"], "heartbeat");
    let clients: Value = reqwest::Client::new()
        .get(format!("http://{addr}/api/clients"))
        .header("X-API-Key", KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(clients.to_string().contains("\"dev\""), "{clients}");
    assert!(!clients.to_string().contains("TN@dev"), "{clients}");
    // Once it leaves, its id is free again.
    drop(galaxy);
    let again = async {
        loop {
            let (_, r) = register_constellation(addr, KEY, "TN@dev", "dev").await;
            if r["type"] == "heartbeat" {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), again)
        .await
        .unwrap();
}

/// Galaxy's link (`ufo_aip::client::constellation`) against this server:
/// it registers for the device, reads its information, runs a sub-task to
/// its TASK_END, has a second sub-task for the busy device refused at once
/// (not timed out), and a link to a device not connected is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn galaxys_link_runs_sub_tasks_and_reports_refusals() {
    use ufo_aip::AipError;
    use ufo_aip::client::constellation::{DeviceLink, LinkOptions};

    let answer = json!({"observation": "", "thought": "", "plan": [], "comment": "",
        "result": "done on the device",
        "action": {"function": "", "arguments": {}, "status": "FINISH"}});
    let model = ScriptedModel::start(vec![fixed(answer.to_string())]).await;
    let logs = tempfile::tempdir().unwrap();
    let addr = serve(&model, logs.path()).await;
    let device = linux_device(addr).await;
    let options = |device: &str| LinkOptions {
        api_key: Some(KEY.to_owned()),
        ..LinkOptions::new(&format!("ws://{addr}/ws"), "TN", device)
    };

    match DeviceLink::connect(options("ghost")).await {
        Err(AipError::Registration { message, .. }) => {
            assert!(
                message.contains("Target device 'ghost' is not connected"),
                "{message}"
            );
        }
        other => panic!("{:?}", other.map(|l| l.client_id().to_owned())),
    }
    let link = DeviceLink::connect(options("dev")).await.unwrap();
    assert_eq!(link.client_id(), "TN@dev");
    let info = link.device_info().await.unwrap();
    assert_eq!(info["hostname"], "box-7", "{info}");

    let timeout = Duration::from_secs(60);
    let (first, second) = tokio::join!(
        link.run_task("t1", "Task Description: Tidy the logs", timeout),
        link.run_task("t2", "Task Description: Anything else", timeout),
    );
    let end = first.unwrap();
    assert!(end.completed, "{end:?}");
    assert_eq!(end.result[0]["result"], "done on the device", "{end:?}");
    match second {
        Err(AipError::SubTaskRefused { task, message }) => {
            assert_eq!(task, "t2");
            assert!(message.contains("is running task"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let (_, device_end) = tokio::time::timeout(Duration::from_secs(30), device)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(device_end["session_id"], "TN@t1");
}

/// A constellation that leaves while its sub-task runs has the sub-task
/// cancelled, as UFO's server does: the device hears a TASK_END `failed`
/// saying why, and is free for the next task.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_constellation_that_leaves_has_its_task_cancelled() {
    let model = ScriptedModel::start(Vec::new()).await;
    let logs = tempfile::tempdir().unwrap();
    let addr = serve(&model, logs.path()).await;
    // A device that never answers a command: the session waits on it.
    let mut device = connect(addr, DEVICE_KEY).await;
    send(
        &mut device,
        json!({"type": "register", "status": "ok", "client_type": "device", "client_id": "dev",
            "metadata": {"platform": "linux"}}),
    )
    .await;
    assert_eq!(next(&mut device).await["type"], "heartbeat");
    let task = |id: &str| {
        json!({"type": "task", "status": "continue",
        "client_type": "constellation", "client_id": "TN@dev", "target_id": "dev",
        "task_name": format!("galaxy/TN/{id}"), "session_id": format!("TN@{id}"), "request": "x"})
    };

    let (mut galaxy, ok) = register_constellation(addr, KEY, "TN@dev", "dev").await;
    assert_eq!(ok["type"], "heartbeat", "{ok}");
    send(&mut galaxy, task("t1")).await;
    assert_eq!(next(&mut galaxy).await["session_id"], "TN@t1");
    // The session asks the device something; then the constellation leaves.
    let asked = next(&mut device).await;
    assert_eq!(asked["type"], "command", "{asked}");
    drop(galaxy);
    let end = loop {
        let m = next(&mut device).await;
        if m["type"] == "task_end" || m.get("closed").is_some() {
            break m;
        }
    };
    assert_eq!(end["status"], "failed", "{end}");
    assert_eq!(end["session_id"], "TN@t1");
    assert!(
        end["error"]
            .as_str()
            .unwrap_or_default()
            .contains("constellation client that sent it disconnected"),
        "{end}"
    );
    // The device is free: the next constellation's task is accepted.
    let (mut again, ok) = register_constellation(addr, KEY, "TN@dev", "dev").await;
    assert_eq!(ok["type"], "heartbeat", "{ok}");
    send(&mut again, task("t2")).await;
    let ack = next(&mut again).await;
    assert_eq!(
        (ack["type"].as_str(), ack["session_id"].as_str()),
        (Some("heartbeat"), Some("TN@t2")),
        "{ack}"
    );
}
