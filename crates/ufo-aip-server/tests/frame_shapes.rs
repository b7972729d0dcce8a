//! Every frame kind and result payload ufo-rs sends, checked against the
//! field lists UFO documents for its Agent Interaction Protocol
//! (`ServerMessage`, `ClientMessage`, `Result`, `MCPToolInfo`, `WindowInfo`,
//! `TargetInfo`, the device's `system_info`) and the fields UFO's client and
//! server read. The lists below are facts about UFO's protocol, written here
//! so that a change on our side that UFO's code would trip over fails in CI.
//! Frames travel over real WebSockets.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;
use ufo_agent::CommandDispatcher;
use ufo_aip::auth::{ApiKey, HostCheck};
use ufo_aip::payloads::{from_ufo, to_ufo, tool_list};
use ufo_aip_server::{Limits, Server, ServerOptions};
use ufo_core::Command;

/// UFO's `ServerMessage` fields.
const SERVER_FIELDS: &[&str] = &[
    "type",
    "status",
    "user_request",
    "agent_name",
    "process_name",
    "root_name",
    "actions",
    "messages",
    "error",
    "session_id",
    "task_name",
    "timestamp",
    "response_id",
    "result",
];
/// UFO's `ClientMessage` fields.
const CLIENT_FIELDS: &[&str] = &[
    "type",
    "status",
    "client_type",
    "session_id",
    "task_name",
    "client_id",
    "target_id",
    "request",
    "action_results",
    "timestamp",
    "request_id",
    "prev_response_id",
    "error",
    "metadata",
];
/// UFO's `Result` fields; ufo-rs adds `error_report` and `ufo_rs`, which
/// UFO's model ignores.
const RESULT_FIELDS: &[&str] = &["status", "error", "result", "namespace", "call_id"];
const RESULT_EXTRAS: &[&str] = &["error_report", "ufo_rs"];
/// UFO's `MCPToolInfo` fields.
const TOOL_INFO_FIELDS: &[&str] = &[
    "tool_key",
    "tool_name",
    "title",
    "namespace",
    "tool_type",
    "description",
    "input_schema",
    "output_schema",
    "meta",
    "annotations",
];
/// UFO's `WindowInfo` fields (its `ControlInfo`'s and the window's own).
const WINDOW_INFO_FIELDS: &[&str] = &[
    "annotation_id",
    "name",
    "title",
    "handle",
    "class_name",
    "rectangle",
    "control_type",
    "automation_id",
    "is_enabled",
    "is_visible",
    "source",
    "text_content",
    "process_id",
    "process_name",
    "is_minimized",
    "is_maximized",
    "is_active",
];
/// The device information UFO's device provider reports.
const SYSTEM_INFO_FIELDS: &[&str] = &[
    "device_id",
    "platform",
    "os_version",
    "cpu_count",
    "memory_total_gb",
    "hostname",
    "ip_address",
    "supported_features",
    "platform_type",
    "schema_version",
    "custom_metadata",
];

const SERVER_TYPES: &[&str] = &[
    "task",
    "heartbeat",
    "task_end",
    "command",
    "error",
    "device_info_request",
    "device_info_response",
];
const CLIENT_TYPES: &[&str] = &[
    "task",
    "heartbeat",
    "command_results",
    "error",
    "register",
    "task_end",
    "device_info_request",
    "device_info_response",
];
const STATUSES: &[&str] = &["continue", "completed", "failed", "ok", "error"];

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

/// `v` is a frame UFO's `ServerMessage` model reads: known fields only,
/// `type` and `status` from UFO's enums, every server frame with a
/// `response_id`.
fn server_frame(v: &Value) {
    let extra: Vec<_> = keys(v)
        .into_iter()
        .filter(|k| !SERVER_FIELDS.contains(&k.as_str()))
        .collect();
    assert!(
        extra.is_empty(),
        "fields UFO does not know: {extra:?} in {v}"
    );
    assert!(
        SERVER_TYPES.contains(&v["type"].as_str().unwrap_or("")),
        "{v}"
    );
    assert!(
        STATUSES.contains(&v["status"].as_str().unwrap_or("")),
        "{v}"
    );
    assert!(
        v["response_id"].as_str().is_some_and(|s| !s.is_empty()),
        "no response_id: {v}"
    );
}

/// `v` is a frame UFO's `ClientMessage` model reads, with `client_id`.
fn client_frame(v: &Value) {
    let extra: Vec<_> = keys(v)
        .into_iter()
        .filter(|k| !CLIENT_FIELDS.contains(&k.as_str()))
        .collect();
    assert!(
        extra.is_empty(),
        "fields UFO does not know: {extra:?} in {v}"
    );
    assert!(
        CLIENT_TYPES.contains(&v["type"].as_str().unwrap_or("")),
        "{v}"
    );
    assert!(
        STATUSES.contains(&v["status"].as_str().unwrap_or("")),
        "{v}"
    );
    assert!(v["client_id"].is_string(), "{v}");
}

fn result_entry(v: &Value) {
    for k in keys(v) {
        assert!(
            RESULT_FIELDS.contains(&k.as_str()) || RESULT_EXTRAS.contains(&k.as_str()),
            "Result field UFO does not know: {k} in {v}"
        );
    }
    assert!(
        ["success", "failure", "skipped", "none"].contains(&v["status"].as_str().unwrap_or("")),
        "{v}"
    );
    assert!(
        v["error"].is_null() || v["error"].is_string(),
        "UFO's error is text: {v}"
    );
}

async fn next_json<S>(ws: &mut S) -> Value
where
    S: futures::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    loop {
        let m = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .expect("a frame")
            .expect("open")
            .expect("readable");
        if let Message::Text(t) = m {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

/// The server's frames: registration confirmation, heartbeat answer, ERROR
/// (a refused TASK, a refused DEVICE_INFO_REQUEST), COMMAND from the
/// dispatcher with the agent and application named; then the COMMAND_RESULTS
/// and DEVICE_INFO_RESPONSE a ufo-rs device writes.
#[tokio::test]
#[allow(clippy::too_many_lines)]
async fn every_server_frame_has_ufos_fields() {
    let server = Server::new(
        ServerOptions {
            key: ApiKey::required("k+e/y=="),
            hosts: HostCheck::for_bind("127.0.0.1".parse().unwrap(), &[]),
            limits: Limits::default(),
        },
        None,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop) = tokio::sync::oneshot::channel::<()>();
    let s2 = server.clone();
    tokio::spawn(async move {
        let _ = s2
            .serve(listener, async {
                let _ = stop.await;
            })
            .await;
    });
    // The key as UFO's client sends it: percent-encoded in `?token=`.
    let url = format!("ws://{addr}/ws?token=k%2Be%2Fy%3D%3D");
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    // A REGISTER as UFO's device writes it.
    let reg = json!({"type": "register", "status": "ok", "client_type": "device",
        "client_id": "dev1", "metadata": {"platform": "windows"}});
    ws.send(Message::Text(reg.to_string().into()))
        .await
        .unwrap();
    let ok = next_json(&mut ws).await;
    server_frame(&ok);
    assert_eq!(
        (ok["type"].as_str(), ok["status"].as_str()),
        (Some("heartbeat"), Some("ok"))
    );

    let hb = json!({"type": "heartbeat", "status": "ok", "client_id": "dev1"});
    ws.send(Message::Text(hb.to_string().into())).await.unwrap();
    let ack = next_json(&mut ws).await;
    server_frame(&ack);
    assert_eq!(ack["type"], "heartbeat");

    let ask = json!({"type": "device_info_request", "status": "ok", "client_id": "dev1",
        "target_id": "dev1", "request_id": "q1"});
    ws.send(Message::Text(ask.to_string().into()))
        .await
        .unwrap();
    let refused = next_json(&mut ws).await;
    server_frame(&refused);
    assert_eq!(refused["type"], "error");
    assert!(
        refused["error"].as_str().unwrap().contains("constellation"),
        "{refused}"
    );

    let task = json!({"type": "task", "status": "continue", "client_id": "dev1",
        "request": "x", "task_name": "t1"});
    ws.send(Message::Text(task.to_string().into()))
        .await
        .unwrap();
    let e = next_json(&mut ws).await;
    server_frame(&e);
    assert_eq!(e["type"], "error");

    // COMMAND: what UFO's client needs to pick its tool servers.
    let d = server.dispatcher("dev1").unwrap();
    let run = tokio::spawn(async move {
        let first = d
            .execute(vec![Command::action(
                "select_application_window",
                json!({"id": "1", "name": "Calculator"}),
            )])
            .await;
        let second = d
            .execute(vec![
                Command::data(
                    "get_app_window_controls_target_info",
                    json!({"field_list": ["control_text"]}),
                ),
                Command::data("capture_window_screenshot", json!({})),
            ])
            .await;
        let linux = d
            .execute(vec![Command::action(
                "execute_command",
                json!({"command": "ls"}),
            )])
            .await;
        (first, second, linux)
    });
    let cmd = next_json(&mut ws).await;
    server_frame(&cmd);
    assert_eq!(cmd["type"], "command");
    assert_eq!(cmd["agent_name"], "HostAgent", "{cmd}");
    for a in cmd["actions"].as_array().unwrap() {
        assert_eq!(
            keys(a),
            ["call_id", "parameters", "tool_name", "tool_type"]
                .map(String::from)
                .into()
        );
        assert!(["action", "data_collection"].contains(&a["tool_type"].as_str().unwrap()));
    }
    // The device answers as a ufo-rs device does: UFO's shape.
    let window = json!({"id": "w1", "app_name": "gnome-calculator", "pid": 7, "title": "Calculator",
        "rect": {"x": 10, "y": 20, "width": 300, "height": 400}, "focused": true, "handle": "h", "native_id": 5});
    let (sel, _) = to_ufo(
        "select_application_window",
        json!({"root_name": "gnome-calculator", "window": window}),
    );
    let reply = |c: &Value, results: Vec<Value>| {
        json!({"type": "command_results", "status": "continue", "client_id": "dev1",
            "session_id": c["session_id"], "prev_response_id": c["response_id"],
            "action_results": results})
    };
    let r = reply(
        &cmd,
        vec![json!({"status": "success", "result": sel, "call_id": cmd["actions"][0]["call_id"]})],
    );
    ws.send(Message::Text(r.to_string().into())).await.unwrap();
    let cmd2 = next_json(&mut ws).await;
    server_frame(&cmd2);
    assert_eq!(cmd2["agent_name"], "AppAgent", "{cmd2}");
    assert_eq!(cmd2["process_name"], "gnome-calculator", "{cmd2}");
    assert_eq!(cmd2["root_name"], "gnome-calculator", "{cmd2}");
    // A screenshot is inline data (a link or anything else is refused).
    let shot = ufo_desktop::encode::png_data_url(
        &image::RgbImage::new(4, 3),
        ufo_desktop::encode::PngCompression::Fast,
    )
    .unwrap();
    let results = cmd2["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| match a["tool_name"].as_str() {
            Some("capture_window_screenshot") => {
                json!({"status": "success", "result": shot, "call_id": a["call_id"]})
            }
            _ => json!({"status": "success", "result": [], "call_id": a["call_id"]}),
        })
        .collect();
    ws.send(Message::Text(reply(&cmd2, results).to_string().into()))
        .await
        .unwrap();
    let cmd3 = next_json(&mut ws).await;
    server_frame(&cmd3);
    assert_eq!(cmd3["agent_name"], "LinuxAgent", "{cmd3}");
    assert!(cmd3.get("root_name").is_none(), "{cmd3}");
    let r = json!({"status": "success", "call_id": cmd3["actions"][0]["call_id"],
        "result": {"success": true, "exit_code": 0, "stdout": "a\n", "stderr": ""}});
    ws.send(Message::Text(reply(&cmd3, vec![r]).to_string().into()))
        .await
        .unwrap();
    let (first, _, linux) = run.await.unwrap();
    assert!(first[0].is_success());
    assert_eq!(linux[0].result["stdout"], "a\n");
    let _ = stop_tx.send(());
}

/// A device that answers as UFO's own Windows client does (its UI tool
/// servers' bare results: windows as `{id, name, type, kind}`,
/// `select_application_window`'s `window_info`, controls as `TargetInfo`
/// lists, screenshots as data-URL strings) drives the ufo-rs agents'
/// observation over a real WebSocket; a screenshot answered with UFO's
/// "Error: …" text fails with a stable code instead of an empty picture.
#[tokio::test]
#[allow(clippy::too_many_lines)]
async fn ufos_windows_client_results_feed_the_agents() {
    let server = Server::new(
        ServerOptions {
            key: ApiKey::required("key"),
            hosts: HostCheck::for_bind("127.0.0.1".parse().unwrap(), &[]),
            limits: Limits::default(),
        },
        None,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop) = tokio::sync::oneshot::channel::<()>();
    let s2 = server.clone();
    tokio::spawn(async move {
        let _ = s2
            .serve(listener, async {
                let _ = stop.await;
            })
            .await;
    });
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws?token=key"))
        .await
        .unwrap();
    let reg = json!({"type": "register", "status": "ok", "client_type": "device",
        "client_id": "win1", "metadata": {"platform": "windows"}});
    ws.send(Message::Text(reg.to_string().into()))
        .await
        .unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "heartbeat");

    let d = server.dispatcher("win1").unwrap();
    let run = tokio::spawn(async move {
        let apps = d
            .execute(vec![Command::data("get_desktop_app_info", json!({}))])
            .await;
        let apps: Vec<ufo_desktop::tools::WindowEntry> =
            serde_json::from_value(apps[0].result.clone()).unwrap();
        let sel = d
            .execute(vec![Command::action(
                "select_application_window",
                json!({"id": apps[0].id, "name": apps[0].name}),
            )])
            .await;
        let seen = d.observe(Default::default()).await.unwrap();
        let failed = d
            .execute(vec![Command::data("capture_window_screenshot", json!({}))])
            .await;
        (apps, sel, seen, failed)
    });
    let reply = |c: &Value, result: Value| {
        json!({"type": "command_results", "status": "continue", "client_id": "win1",
            "session_id": c["session_id"], "prev_response_id": c["response_id"],
            "action_results": c["actions"].as_array().unwrap().iter().zip(result.as_array().unwrap())
                .map(|(a, r)| json!({"status": "success", "result": r, "call_id": a["call_id"],
                    "namespace": "UICollector"}))
                .collect::<Vec<_>>()})
    };
    let cmd = next_json(&mut ws).await;
    assert_eq!(cmd["actions"][0]["tool_name"], "get_desktop_app_info");
    let r = reply(
        &cmd,
        json!([[{"id": "1", "name": "Untitled - Notepad", "type": "Window", "kind": "window"}]]),
    );
    ws.send(Message::Text(r.to_string().into())).await.unwrap();
    let cmd = next_json(&mut ws).await;
    assert_eq!(cmd["actions"][0]["tool_name"], "select_application_window");
    assert_eq!(
        cmd["actions"][0]["parameters"],
        json!({"id": "1", "name": "Untitled - Notepad"})
    );
    let info = json!({"annotation_id": null, "name": "Untitled - Notepad",
        "title": "Untitled - Notepad", "handle": 1234, "class_name": "Notepad",
        "rectangle": {"x": 100, "y": 50, "width": 800, "height": 600}, "control_type": "Window",
        "process_id": 42, "is_visible": true, "is_minimized": false, "is_maximized": false,
        "is_active": true, "text_content": "Untitled - Notepad"});
    let r = reply(
        &cmd,
        json!([{"root_name": "notepad.exe", "window_info": info}]),
    );
    ws.send(Message::Text(r.to_string().into())).await.unwrap();
    // The AppAgent's observation, named for UFO's client to pick its tool servers.
    let cmd = next_json(&mut ws).await;
    server_frame(&cmd);
    assert_eq!(cmd["agent_name"], "AppAgent");
    assert_eq!(cmd["root_name"], "notepad.exe");
    assert_eq!(cmd["process_name"], "Untitled - Notepad");
    let tools: Vec<&str> = cmd["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["tool_name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "get_app_window_controls_target_info",
            "capture_window_screenshot"
        ]
    );
    let shot = ufo_desktop::encode::png_data_url(
        &image::RgbImage::new(800, 600),
        ufo_desktop::encode::PngCompression::Fast,
    )
    .unwrap();
    let r = reply(
        &cmd,
        json!([[
            {"kind": "control", "id": "1", "name": "Text editor", "type": "Edit", "rect": [108, 120, 892, 640]},
            {"kind": "control", "id": "2", "name": "File", "type": "MenuItem", "rect": [110, 80, 150, 100]}
        ], shot]),
    );
    ws.send(Message::Text(r.to_string().into())).await.unwrap();
    let cmd = next_json(&mut ws).await;
    let r = reply(&cmd, json!(["Error: No window selected"]));
    ws.send(Message::Text(r.to_string().into())).await.unwrap();

    let (apps, sel, seen, failed) = run.await.unwrap();
    assert_eq!(apps[0].app_name, "Untitled - Notepad");
    assert!(sel[0].is_success());
    assert_eq!(seen.controls.len(), 2);
    assert_eq!(seen.controls[0].name, "Text editor");
    assert_eq!(seen.controls[0].control_type, ufo_core::ControlType::Edit);
    assert_eq!(seen.controls[1].rect, ufo_core::Rect::new(110, 80, 40, 20));
    let window = seen.tree.window;
    assert_eq!(window.title, "Untitled - Notepad");
    assert_eq!(window.pid, Some(42));
    let shot = seen.screenshot.expect("the screenshot was read");
    assert_eq!(shot.image.dimensions(), (800, 600));
    // Its pixels sit at the window's corner: the menu item maps inside it.
    assert_eq!(shot.frame.origin, ufo_core::Point::new(100, 50));
    let e = failed[0].error.as_ref().expect("a failure");
    assert_eq!(e.code, "ufo::aip::bad_result");
    assert!(e.message.contains("No window selected"), "{}", e.message);
    // Why the text is no screenshot travels as the cause.
    assert!(e.causes.iter().any(|c| c.contains("data URL")), "{e:?}");
    assert!(
        e.help.as_deref().is_some_and(|h| h.contains("ufo client")),
        "{e:?}"
    );
    let _ = stop_tx.send(());
}

/// What a ufo-rs device sends: REGISTER's metadata with UFO's
/// `system_info`, COMMAND_RESULTS entries, `list_tools` as `MCPToolInfo`.
#[tokio::test]
async fn device_frames_and_tool_list_have_ufos_fields() {
    let info = ufo_aip::client::system_info("dev1", "ws://127.0.0.1:5000/ws");
    for k in SYSTEM_INFO_FIELDS {
        assert!(info.get(*k).is_some(), "system_info lacks {k}: {info}");
    }
    assert_eq!(info["device_id"], "dev1");
    assert!(info["memory_total_gb"].is_number() && info["cpu_count"].is_number());

    // A COMMAND frame's list_tools and a failing tool, through the device's
    // own command runner (the in-process fake desktop stands for the
    // desktop).
    let fake = ufo_testkit::fake::FakeDesktop::new("calc", "Calculator", &[]);
    let results = ufo_aip::client::run_commands(
        &fake,
        vec![
            Command::action(
                "list_tools",
                json!({"tool_type": "action", "namespace": "BashExecutor"}),
            ),
            Command::action("list_tools", json!({})),
        ],
    )
    .await;
    let frame = {
        let mut m = ufo_aip::messages::ClientMessage::new(
            ufo_aip::messages::ClientMessageType::CommandResults,
            ufo_aip::messages::TaskStatus::Continue,
            "dev1",
        );
        m.action_results = Some(results);
        m.prev_response_id = Some("r1".into());
        serde_json::to_value(&m).unwrap()
    };
    client_frame(&frame);
    let rs = frame["action_results"].as_array().unwrap();
    for r in rs {
        result_entry(r);
    }
    let tools = rs[0]["result"].as_array().unwrap();
    let names: Vec<&str> = tools
        .iter()
        .map(|t| t["tool_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["execute_command", "get_system_info"], "{tools:?}");
    for t in tools {
        assert_eq!(
            keys(t),
            TOOL_INFO_FIELDS.iter().map(|s| s.to_string()).collect()
        );
        assert_eq!(
            t["tool_key"],
            format!("action::{}", t["tool_name"].as_str().unwrap())
        );
        assert_eq!(t["input_schema"]["type"], "object");
    }
    assert!(rs[1]["result"].as_array().unwrap().len() > tools.len());

    let all = tool_list(&ufo_desktop::tools::catalog(), None, None);
    let all: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tool_name"].as_str().unwrap())
        .collect();
    for t in [
        "get_desktop_app_info",
        "select_application_window",
        "get_app_window_controls_target_info",
        "capture_window_screenshot",
        "click_input",
        "execute_command",
    ] {
        assert!(all.contains(&t), "{t} missing from list_tools");
    }
    // The schema says `field_list` is taken.
    let c = tool_list(
        &ufo_desktop::tools::catalog(),
        Some("data_collection"),
        None,
    );
    let c = c
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tool_name"] == "get_app_window_controls_target_info")
        .cloned()
        .unwrap();
    assert!(
        c["input_schema"]["properties"].get("field_list").is_some(),
        "{c}"
    );
}

/// The result payloads in UFO's shapes, and ufo-rs's own put back together.
#[test]
fn result_payloads_have_ufos_shapes() {
    // Screenshots: a data URL string.
    let rich = json!({"image_url": "data:image/png;base64,iVBORw0KGgo=",
        "frame": {"origin": {"x": 10, "y": 20}, "scale": 1.0}, "width": 300, "height": 400});
    for tool in ["capture_window_screenshot", "capture_desktop_screenshot"] {
        let (ufo, extra) = to_ufo(tool, rich.clone());
        assert!(
            ufo.as_str().unwrap().starts_with("data:image/png;base64,"),
            "{ufo}"
        );
        assert_eq!(from_ufo(tool, ufo, extra, None).unwrap(), rich);
    }
    // get_desktop_app_info: items with kind "window".
    let apps = json!([{"id": "1", "name": "Calculator", "type": "Window", "app_name": "gnome-calculator", "window": {}}]);
    let (ufo, _) = to_ufo("get_desktop_app_info", apps.clone());
    for i in ufo.as_array().unwrap() {
        for k in ["id", "name", "type", "kind"] {
            assert!(i.get(k).is_some(), "{k} missing: {i}");
        }
        assert_eq!(i["kind"], "window");
    }
    assert_eq!(
        from_ufo("get_desktop_app_info", ufo, None, None).unwrap(),
        apps
    );
    // select_application_window: root_name and window_info.
    let window = json!({"id": "w1", "app_name": "gnome-calculator", "pid": 7, "title": "Calculator",
        "rect": {"x": 10, "y": 20, "width": 300, "height": 400}, "focused": true, "handle": "h"});
    let (ufo, _) = to_ufo(
        "select_application_window",
        json!({"root_name": "gnome-calculator", "window": window}),
    );
    assert_eq!(ufo["root_name"], "gnome-calculator");
    assert_eq!(
        keys(&ufo["window_info"]),
        WINDOW_INFO_FIELDS.iter().map(|s| s.to_string()).collect()
    );
    assert_eq!(
        ufo["window_info"]["rectangle"],
        json!({"x": 10, "y": 20, "width": 300, "height": 400})
    );
    assert_eq!(ufo["window_info"]["process_name"], "gnome-calculator");
    // get_app_window_controls_target_info: UFO's list of targets.
    let controls = json!({"window": window, "truncated": false, "controls": [
        {"id": 1, "name": "7", "type": "Button", "rect": {"x": 10, "y": 20, "width": 30, "height": 40},
         "handle": "c1", "role": "push button", "states": [], "capabilities": {}}]});
    let (ufo, extra) = to_ufo("get_app_window_controls_target_info", controls.clone());
    let items = ufo.as_array().unwrap();
    assert_eq!(
        keys(&items[0]),
        ["id", "kind", "name", "rect", "source", "type"]
            .map(String::from)
            .into()
    );
    assert_eq!(items[0]["id"], "1");
    assert_eq!(items[0]["kind"], "control");
    assert_eq!(items[0]["rect"], json!([10, 20, 40, 60]));
    assert_eq!(
        from_ufo("get_app_window_controls_target_info", ufo, extra, None).unwrap(),
        controls
    );
    // execute_command: `success` beside the exit code and streams.
    for (code, ok) in [(0, true), (2, false)] {
        let (ufo, _) = to_ufo(
            "execute_command",
            json!({"exit_code": code, "stdout": "", "stderr": "", "timed_out": false, "truncated": false}),
        );
        assert_eq!(ufo["success"], ok);
        assert_eq!(ufo["exit_code"], code);
    }
}
