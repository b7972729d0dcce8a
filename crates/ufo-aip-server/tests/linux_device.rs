//! A command-line (LinuxAgent) task on a device that answers as UFO's own
//! Linux client does, over a real WebSocket: its `execute_command` requires
//! an `api_key` (UFO's Linux tool server), which the server adds from
//! `DEVICE_TOOL_ARGUMENTS` to the calls whose schema requires it, keeps out
//! of the model's tool docs and out of every session log; and the session,
//! having no window, ends without asking the device for a final window
//! screenshot.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;
use ufo_aip::auth::{ApiKey, HostCheck};
use ufo_aip_server::{DevicePolicy, Limits, Server, ServerOptions, SessionRunner};
use ufo_session::config::UfoConfig;
use ufo_testkit::scripted::{ScriptedModel, fixed};

const KEY: &str = "server-key";
const SECRET: &str = "mcp-secret-7f3a91";
const OUTPUT: &str = "report-line-5c2e";

/// UFO's `MCPToolInfo` for its Linux tool server's `execute_command`.
fn ufo_linux_tools() -> Value {
    json!([{
        "tool_key": "action::execute_command", "tool_name": "execute_command",
        "title": null, "namespace": "BashExecutor", "tool_type": "action",
        "description": "Execute a shell command on the Linux host.",
        "input_schema": {"type": "object",
            "properties": {"command": {"type": "string"}, "timeout": {"type": "integer"},
                           "api_key": {"type": "string"}},
            "required": ["command", "api_key"]},
        "output_schema": null, "meta": null, "annotations": null
    }])
}

fn reply(function: &str, arguments: Value, status: &str, result: &str) -> String {
    json!({"observation": "", "thought": "", "plan": [], "comment": "", "result": result,
        "action": {"function": function, "arguments": arguments, "status": status}})
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn device_tool_arguments_reach_the_device_only_and_no_final_screenshot() {
    linux_task(true).await;
}

/// `DEVICE_TOOL_ARGUMENTS` go only to the devices the server names
/// (`--tool-arguments-for`): any other device that asks for `api_key` in
/// its tool list gets the call without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn device_tool_arguments_are_withheld_from_a_device_not_named() {
    linux_task(false).await;
}

/// A LinuxAgent task on a device that answers as UFO's Linux client; the
/// server names the device for `DEVICE_TOOL_ARGUMENTS` when `named`.
#[allow(clippy::too_many_lines)]
async fn linux_task(named: bool) {
    let model = ScriptedModel::start(vec![
        fixed(reply(
            "execute_command",
            json!({"command": "cat report.txt"}),
            "CONTINUE",
            "",
        )),
        fixed(reply("", json!({}), "FINISH", "read the report")),
    ])
    .await;
    let logs = tempfile::tempdir().unwrap();
    let m = model.agent_yaml();
    let env = |k: &str| (k == "MCP_KEY").then(|| SECRET.to_owned());
    let config = UfoConfig::parse(
        &format!(
            "HOST_AGENT:\n{m}APP_AGENT:\n{m}SLEEP_TIME: 0\nEVA_SESSION: false\nMAX_STEP: 5\n\
             ENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]\n\
             DEVICE_TOOL_ARGUMENTS:\n  api_key: \"${{MCP_KEY}}\"\n"
        ),
        Path::new("."),
        &env,
    )
    .unwrap();
    let prompts = ufo_agent::PromptSet::load(&config.prompts).unwrap();
    let runner = SessionRunner::new(config, Arc::new(prompts), logs.path().to_owned());
    let mut policy = DevicePolicy::default();
    if named {
        policy.tool_argument_devices.insert("ufo-linux".into());
    }
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
    let (_stop, stop) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server.clone().serve(listener, async {
        let _ = stop.await;
    }));

    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws?token={KEY}"))
        .await
        .unwrap();
    let reg = json!({"type": "register", "status": "ok", "client_type": "device",
        "client_id": "ufo-linux", "metadata": {"platform": "linux"}});
    ws.send(Message::Text(reg.to_string().into()))
        .await
        .unwrap();
    let next = |m: Option<Result<Message, _>>| -> Option<Value> {
        match m {
            Some(Ok(Message::Text(t))) => Some(serde_json::from_str(&t).unwrap()),
            Some(Ok(_)) => Some(Value::Null),
            _ => None,
        }
    };
    let ok = next(ws.next().await).unwrap();
    assert_eq!(
        (ok["type"].as_str(), ok["status"].as_str()),
        (Some("heartbeat"), Some("ok"))
    );

    // The task is dispatched over REST with no mode: the device's platform picks it.
    let sent: Value = reqwest::Client::new()
        .post(format!("http://{addr}/api/dispatch"))
        .header("X-API-Key", KEY)
        .json(
            &json!({"client_id": "ufo-linux", "request": "What does report.txt say?",
            "task_name": "lx-1"}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(sent["status"], "dispatched", "{sent}");

    // The device: UFO's Linux client's answers.
    let mut calls: Vec<Value> = Vec::new();
    let end = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let Some(m) = next(ws.next().await) else {
                panic!("the server closed the connection before TASK_END");
            };
            match m["type"].as_str() {
                Some("task") => {
                    let t = json!({"type": "task", "status": "continue", "client_type": "device",
                        "client_id": "ufo-linux", "request": m["user_request"],
                        "task_name": m["task_name"], "session_id": m["session_id"]});
                    ws.send(Message::Text(t.to_string().into())).await.unwrap();
                }
                Some("command") => {
                    let mut results = Vec::new();
                    for a in m["actions"].as_array().unwrap() {
                        calls.push(a.clone());
                        let result = match a["tool_name"].as_str().unwrap() {
                            "list_tools" => {
                                json!({"status": "success", "result": ufo_linux_tools()})
                            }
                            "execute_command" if a["parameters"]["api_key"] == SECRET => {
                                json!({"status": "success", "result": {"success": true,
                                    "exit_code": 0, "stdout": format!("{OUTPUT}\n"), "stderr": ""}})
                            }
                            "execute_command" => json!({"status": "failure",
                                "error": "Unauthorized: invalid or missing api_key"}),
                            other => json!({"status": "failure",
                                "error": format!("no tool {other} on this device")}),
                        };
                        let mut r = result;
                        r["call_id"] = a["call_id"].clone();
                        results.push(r);
                    }
                    let f = json!({"type": "command_results", "status": "continue",
                        "client_type": "device", "client_id": "ufo-linux",
                        "session_id": m["session_id"], "prev_response_id": m["response_id"],
                        "action_results": results});
                    ws.send(Message::Text(f.to_string().into())).await.unwrap();
                }
                Some("task_end") => return m,
                _ => {}
            }
        }
    })
    .await
    .expect("TASK_END within a minute");
    assert_eq!(end["status"], "completed", "{end}");
    assert_eq!(end["result"][0]["result"], "read the report", "{end}");
    let exec: Vec<&Value> = calls
        .iter()
        .filter(|c| c["tool_name"] == "execute_command")
        .collect();
    assert_eq!(exec.len(), 1, "{calls:?}");
    if !named {
        // The device asked for `api_key` and was not given it.
        assert!(exec[0]["parameters"].get("api_key").is_none(), "{calls:?}");
        assert_eq!(exec[0]["parameters"]["command"], "cat report.txt");
        for c in &calls {
            assert!(!c.to_string().contains(SECRET), "{c}");
        }
        assert!(!model.requests()[1].contains(OUTPUT));
        return;
    }

    // The key went to the call whose schema requires it, and only there.
    assert_eq!(exec[0]["parameters"]["api_key"], SECRET);
    assert_eq!(exec[0]["parameters"]["command"], "cat report.txt");
    for c in calls.iter().filter(|c| c["tool_name"] != "execute_command") {
        assert!(c["parameters"].get("api_key").is_none(), "{c}");
    }
    // A LinuxAgent-only session observes no window, not even at its end.
    let tools: Vec<&str> = calls
        .iter()
        .map(|c| c["tool_name"].as_str().unwrap())
        .collect();
    assert!(
        !tools.iter().any(|t| t.starts_with("capture_")),
        "{tools:?}"
    );

    // The model saw the command's output, and neither the key nor its name.
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[1].contains(OUTPUT));
    // The tool docs are the device's (its description), without the key.
    assert!(
        requests[0].contains("Execute a shell command on the Linux host."),
        "{}",
        requests[0].system()
    );
    for r in &requests {
        let body = r.body.to_string();
        assert!(!body.contains(SECRET), "the key reached the model");
        assert!(
            !body.contains("api_key"),
            "the hidden argument is in the tool docs"
        );
    }
    // No session log holds the key.
    let mut stack = vec![logs.path().to_owned()];
    let mut files = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files += 1;
                let bytes = std::fs::read(&p).unwrap();
                assert!(
                    !String::from_utf8_lossy(&bytes).contains(SECRET),
                    "{} holds the key",
                    p.display()
                );
            }
        }
    }
    assert!(files > 0, "the session wrote no logs");
}
