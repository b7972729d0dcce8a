//! The server's protocol and security over real sockets: keys, Host checks,
//! registration and identity pinning, malformed and oversized frames, rate
//! limits, and that one misbehaving client never stops the server from
//! serving the others.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use ufo_aip::auth::{ApiKey, HostCheck};
use ufo_aip_server::{Limits, Server, ServerOptions};
use ufo_core::Command;

const KEY: &str = "test-key-123";

struct Running {
    addr: std::net::SocketAddr,
    server: Server,
    _stop: tokio::sync::oneshot::Sender<()>,
}

async fn start(limits: Limits) -> Running {
    let options = ServerOptions {
        key: ApiKey::required(KEY),
        hosts: HostCheck::for_bind("127.0.0.1".parse().unwrap(), &[]),
        limits,
    };
    let server = Server::new(options, None);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let s = server.clone();
    tokio::spawn(async move {
        s.serve(listener, async {
            let _ = rx.await;
        })
        .await
        .unwrap();
    });
    Running {
        addr,
        server,
        _stop: tx,
    }
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn ws(addr: std::net::SocketAddr, key: Option<&str>, query: &str) -> Result<Ws, String> {
    let mut req = format!("ws://{addr}/ws{query}")
        .into_client_request()
        .unwrap();
    if let Some(k) = key {
        req.headers_mut().insert("x-api-key", k.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(req).await {
        Ok((s, _)) => Ok(s),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status().to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// The next text frame as JSON, or the close frame as `{"close": code, "reason": ...}`.
async fn next(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a frame within 10 s");
        match m {
            Some(Ok(Message::Text(t))) => return serde_json::from_str(&t).unwrap(),
            Some(Ok(Message::Close(c))) => {
                let c = c.unwrap();
                return json!({"close": u16::from(c.code), "reason": c.reason.to_string()});
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => return json!({"error": e.to_string()}),
            None => return json!({"closed": true}),
        }
    }
}

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

async fn registered(addr: std::net::SocketAddr, id: &str) -> Ws {
    let mut s = ws(addr, Some(KEY), "").await.unwrap();
    send(&mut s, json!({"type": "register", "status": "ok", "client_id": id, "metadata": {"platform": "linux"}})).await;
    let ok = next(&mut s).await;
    assert_eq!(
        (ok["type"].as_str(), ok["status"].as_str()),
        (Some("heartbeat"), Some("ok")),
        "{ok}"
    );
    s
}

fn http() -> reqwest::Client {
    reqwest::Client::new()
}

async fn get(addr: std::net::SocketAddr, path: &str, key: Option<&str>) -> (u16, Value) {
    let mut r = http().get(format!("http://{addr}{path}"));
    if let Some(k) = key {
        r = r.header("X-API-Key", k);
    }
    let resp = r.send().await.unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn keys_and_hosts_are_checked_on_every_route() {
    let s = start(Limits::default()).await;
    let a = s.addr;
    for path in ["/api/health", "/api/clients", "/api/task_result/t1"] {
        let (st, body) = get(a, path, None).await;
        assert_eq!(st, 401, "{path}");
        assert_eq!(body["error"]["code"], "ufo::aip::unauthorized");
        assert_eq!(get(a, path, Some("wrong")).await.0, 401);
        assert_eq!(get(a, path, Some(KEY)).await.0, 200, "{path}");
    }
    let bearer = http()
        .get(format!("http://{a}/api/health"))
        .header("Authorization", format!("Bearer {KEY}"))
        .send()
        .await
        .unwrap();
    assert_eq!(bearer.status().as_u16(), 200);
    let post = http()
        .post(format!("http://{a}/api/dispatch"))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(post.status().as_u16(), 401);
    // DNS rebinding: a page served from another name that resolves here.
    let rebound = http()
        .get(format!("http://{a}/api/health"))
        .header("X-API-Key", KEY)
        .header("Host", format!("evil.example:{}", a.port()))
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status().as_u16(), 403);
    let cross = http()
        .get(format!("http://{a}/api/health"))
        .header("X-API-Key", KEY)
        .header("Origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(cross.status().as_u16(), 403);
    // The WebSocket: a header key, UFO's `?token=`, or nothing.
    assert_eq!(
        ws(a, None, "").await.err().as_deref(),
        Some("401 Unauthorized")
    );
    assert_eq!(
        ws(a, Some("wrong"), "").await.err().as_deref(),
        Some("401 Unauthorized")
    );
    assert!(ws(a, None, &format!("?token={KEY}")).await.is_ok());
    assert!(ws(a, None, "?token=wrong").await.is_err());
    // `?token=` is for UFO's WebSocket clients only, not the REST routes.
    assert_eq!(
        get(a, &format!("/api/health?token={KEY}"), None).await.0,
        401
    );
}

#[tokio::test]
async fn registration_is_required_and_identity_is_pinned() {
    let s = start(Limits::default()).await;
    let a = s.addr;
    // First frame not REGISTER: an ERROR frame, then a policy close.
    let mut c = ws(a, Some(KEY), "").await.unwrap();
    send(
        &mut c,
        json!({"type": "heartbeat", "status": "ok", "client_id": "x"}),
    )
    .await;
    let e = next(&mut c).await;
    assert_eq!(e["type"], "error");
    assert!(e["error"].as_str().unwrap().contains("registration"), "{e}");
    assert_eq!(next(&mut c).await["close"], 1008);
    // Garbage as the first frame.
    let mut c = ws(a, Some(KEY), "").await.unwrap();
    send(&mut c, json!("hello")).await;
    assert!(
        next(&mut c).await["error"]
            .as_str()
            .unwrap()
            .contains("malformed frame")
    );

    let mut dev1 = registered(a, "dev1").await;
    // A second connection may not take dev1's id.
    let mut dup = ws(a, Some(KEY), "").await.unwrap();
    send(
        &mut dup,
        json!({"type": "register", "status": "ok", "client_id": "dev1"}),
    )
    .await;
    let e = next(&mut dup).await;
    assert!(
        e["error"].as_str().unwrap().contains("already connected"),
        "{e}"
    );
    assert_eq!(s.server.devices(), vec!["dev1"]);
    // dev1 may not speak for dev2, target another device, or answer a
    // command nobody sent it.
    send(
        &mut dev1,
        json!({"type": "heartbeat", "status": "ok", "client_id": "dev2"}),
    )
    .await;
    assert!(
        next(&mut dev1).await["error"]
            .as_str()
            .unwrap()
            .contains("registered as \"dev1\"")
    );
    send(&mut dev1, json!({"type": "task", "status": "continue", "client_id": "dev1", "target_id": "dev2", "request": "x", "task_name": "t"})).await;
    assert!(
        next(&mut dev1).await["error"]
            .as_str()
            .unwrap()
            .contains("only send tasks for itself")
    );
    send(&mut dev1, json!({"type": "command_results", "status": "continue", "prev_response_id": "forged", "action_results": []})).await;
    assert!(
        next(&mut dev1).await["error"]
            .as_str()
            .unwrap()
            .contains("no command \"forged\"")
    );
    // Unsafe task names are refused.
    send(
        &mut dev1,
        json!({"type": "task", "status": "continue", "request": "x", "task_name": "../../etc"}),
    )
    .await;
    assert!(
        next(&mut dev1).await["error"]
            .as_str()
            .unwrap()
            .contains("Invalid task_name")
    );
    // And the connection still works.
    send(
        &mut dev1,
        json!({"type": "heartbeat", "status": "ok", "client_id": "dev1"}),
    )
    .await;
    assert_eq!(next(&mut dev1).await["type"], "heartbeat");
}

/// A device that answers every COMMAND with the tool names it was sent.
async fn echo_device(addr: std::net::SocketAddr, id: &str) -> tokio::task::JoinHandle<()> {
    let mut s = registered(addr, id).await;
    tokio::spawn(async move {
        while let Some(Ok(Message::Text(t))) = s.next().await {
            let m: Value = serde_json::from_str(&t).unwrap();
            if m["type"] != "command" {
                continue;
            }
            let results: Vec<Value> = m["actions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| json!({"status": "success", "result": c["tool_name"], "call_id": c["call_id"]}))
                .collect();
            let reply = json!({"type": "command_results", "status": "continue",
                "prev_response_id": m["response_id"], "session_id": m["session_id"], "action_results": results});
            if s.send(Message::Text(reply.to_string().into()))
                .await
                .is_err()
            {
                break;
            }
        }
    })
}

#[tokio::test]
async fn bad_frames_get_errors_and_the_server_keeps_serving_the_others() {
    let limits = Limits {
        max_frame_bytes: 64 << 10,
        frames_per_second: 20,
        ..Limits::default()
    };
    let s = start(limits).await;
    let a = s.addr;
    let _good = echo_device(a, "good").await;
    let mut bad = registered(a, "bad").await;

    // Malformed JSON and a wrong shape: ERROR frames that say what a frame is.
    bad.send(Message::Text("{not json".into())).await.unwrap();
    let e = next(&mut bad).await;
    assert_eq!(e["type"], "error");
    assert!(
        e["error"].as_str().unwrap().contains("ClientMessage"),
        "{e}"
    );
    send(&mut bad, json!({"type": "launch_missiles", "status": "ok"})).await;
    assert!(
        next(&mut bad).await["error"]
            .as_str()
            .unwrap()
            .contains("unknown variant")
    );
    // Too many frames: the excess is refused with a reason.
    for _ in 0..60 {
        send(&mut bad, json!({"type": "heartbeat", "status": "ok"})).await;
    }
    let mut limited = false;
    for _ in 0..60 {
        let m = next(&mut bad).await;
        if m["error"]
            .as_str()
            .is_some_and(|e| e.contains("too many frames"))
        {
            limited = true;
            break;
        }
    }
    assert!(limited, "no rate-limit error");

    // The good device still gets and answers commands.
    let d = s.server.dispatcher("good").unwrap();
    let r = ufo_agent::CommandDispatcher::execute(
        &d,
        vec![
            Command::data("get_desktop_app_info", json!({})),
            Command::action("wait", json!({})),
        ],
    )
    .await;
    assert!(r.iter().all(|r| r.is_success()), "{r:?}");
    assert_eq!(r[1].result, "wait");

    // An oversized frame closes that connection with 1009 and a reason.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let big = "x".repeat(100 << 10);
    let _ = bad
        .send(Message::Text(
            json!({"type": "error", "status": "error", "error": big})
                .to_string()
                .into(),
        ))
        .await;
    let mut closed = Value::Null;
    for _ in 0..100 {
        closed = next(&mut bad).await;
        if closed.get("close").is_some()
            || closed.get("closed").is_some()
            || closed.get("error").is_some_and(|e| !e.is_string())
        {
            break;
        }
    }
    assert_eq!(closed["close"], 1009, "{closed}");
    assert!(
        closed["reason"].as_str().unwrap().contains("bytes"),
        "{closed}"
    );

    // Health answers, and the good device still works.
    let (st, health) = get(a, "/api/health", Some(KEY)).await;
    assert_eq!(st, 200);
    assert_eq!(health["online_clients"], json!(["good"]));
    let r =
        ufo_agent::CommandDispatcher::execute(&d, vec![Command::action("wait", json!({}))]).await;
    assert!(r[0].is_success());
}

#[tokio::test]
async fn a_silent_device_is_dropped_and_its_commands_fail_clearly() {
    let limits = Limits {
        heartbeat_timeout: Duration::from_millis(600),
        command_timeout: Duration::from_secs(30),
        ..Limits::default()
    };
    let s = start(limits).await;
    // Registers, then never answers or beats.
    let _mute = registered(s.addr, "mute").await;
    let d = s.server.dispatcher("mute").unwrap();
    let r = ufo_agent::CommandDispatcher::execute(
        &d,
        vec![
            Command::action("click_input", json!({"id": "1"})),
            Command::action("wait", json!({})),
        ],
    )
    .await;
    let e = r[0].error.as_ref().unwrap();
    assert_eq!(e.code, "ufo::aip::device_gone", "{r:?}");
    assert!(e.help.as_ref().unwrap().contains("ufo client"));
    assert_eq!(r[1].status, ufo_core::ActionStatus::Skipped);
    assert!(s.server.devices().is_empty());
}

#[tokio::test]
async fn dispatch_validates_its_body() {
    let s = start(Limits::default()).await;
    let a = s.addr;
    let post = |body: Value| {
        http()
            .post(format!("http://{a}/api/dispatch"))
            .header("X-API-Key", KEY)
            .json(&body)
            .send()
    };
    let r = post(json!({"client_id": "dev1"})).await.unwrap();
    assert_eq!(r.status().as_u16(), 400);
    assert_eq!(
        r.json::<Value>().await.unwrap()["detail"],
        "Empty task content"
    );
    let r = post(json!({"request": "x"})).await.unwrap();
    assert_eq!(r.status().as_u16(), 400);
    // A field that is not text is named.
    let r = post(json!({"client_id": "dev1", "request": 5}))
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let body = r.json::<Value>().await.unwrap();
    let detail = body["detail"].as_str().unwrap();
    assert!(detail.starts_with("\"request\" must be text"), "{detail}");
    let r = post(json!({"client_id": "dev1", "request": "x", "task_name": "a/b"}))
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let r = post(json!({"client_id": "nobody", "request": "x"}))
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
    assert_eq!(
        r.json::<Value>().await.unwrap()["detail"],
        "Client not online"
    );
    let r = http()
        .post(format!("http://{a}/api/dispatch"))
        .header("X-API-Key", KEY)
        .body("not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    // A device gets the TASK frame, with the task's name.
    let mut dev = registered(a, "dev1").await;
    let r = post(json!({"client_id": "dev1", "request": "open gedit", "task_name": "t1"}))
        .await
        .unwrap();
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["status"], "dispatched");
    let t = next(&mut dev).await;
    assert_eq!(
        (
            t["type"].as_str(),
            t["task_name"].as_str(),
            t["user_request"].as_str()
        ),
        (Some("task"), Some("t1"), Some("open gedit"))
    );
    assert_eq!(
        get(a, "/api/task_result/t1", Some(KEY)).await.1["status"],
        "pending"
    );
    // This server runs no sessions: the device's TASK is refused with a reason.
    send(
        &mut dev,
        json!({"type": "task", "status": "continue", "request": "open gedit", "task_name": "t1"}),
    )
    .await;
    let e = next(&mut dev).await;
    assert_eq!(e["task_name"], "t1");
    assert!(
        e["error"].as_str().unwrap().contains("runs no sessions"),
        "{e}"
    );
}
