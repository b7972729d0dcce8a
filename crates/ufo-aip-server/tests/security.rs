//! The server against devices and clients that misbehave, over real
//! WebSockets and HTTP on loopback: a screenshot answered with a link is
//! refused and never fetched; a device key registers only its own id and a
//! dispatched task runs only on its device; TLS (`wss://`, HTTPS) with a
//! certificate made here; half-sent requests and too many connections are
//! closed; a device's text cannot forge log lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;
use ufo_aip::auth::{ApiKey, DeviceKeys, HostCheck};
use ufo_aip_server::{DevicePolicy, Limits, Server, ServerOptions, SessionRunner, TlsConfig};
use ufo_session::config::UfoConfig;
use ufo_testkit::scripted::{ScriptedModel, fixed};

const KEY: &str = "shared-key-0123456789";
const PC1: &str = "pc1-own-key-0123456789";
const EVIL: &str = "evil-own-key-0123456789";

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

struct Running {
    addr: SocketAddr,
    _stop: tokio::sync::oneshot::Sender<()>,
}

async fn start(
    policy: DevicePolicy,
    runner: Option<SessionRunner>,
    limits: Limits,
    tls: Option<TlsConfig>,
) -> Running {
    let options = ServerOptions {
        key: ApiKey::required(KEY),
        hosts: HostCheck::for_bind("127.0.0.1".parse().unwrap(), &[]).with_tls(tls.is_some()),
        limits,
    };
    let server = Server::with_devices(options, policy, runner);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop) = tokio::sync::oneshot::channel::<()>();
    let shutdown = async {
        let _ = stop.await;
    };
    tokio::spawn(async move {
        let _ = match tls {
            Some(t) => server.serve_tls(listener, t, shutdown).await,
            None => server.serve(listener, shutdown).await,
        };
    });
    Running {
        addr,
        _stop: stop_tx,
    }
}

/// Sessions whose HostAgent (visual when `visual`) is `agent` (a model
/// section of the config).
fn runner(agent: &str, visual: bool, logs: &Path) -> SessionRunner {
    let config = UfoConfig::parse(
        &format!(
            "HOST_AGENT:\n{agent}  VISUAL_MODE: {visual}\nAPP_AGENT:\n{agent}SLEEP_TIME: 0\nEVA_SESSION: false\nMAX_STEP: 3\n"
        ),
        Path::new("."),
        &|_| None,
    )
    .unwrap();
    let prompts = ufo_agent::PromptSet::load(&config.prompts).unwrap();
    SessionRunner::new(config, Arc::new(prompts), logs.to_owned())
}

fn finish(result: &str) -> String {
    json!({"observation": "nothing open", "thought": "done", "status": "FINISH",
        "result": result})
    .to_string()
}

async fn connect(addr: SocketAddr, key: &str) -> Ws {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws?token={key}"))
        .await
        .unwrap();
    ws
}

/// The next text frame as JSON (a close frame as `{"close": code}`).
async fn next(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .expect("a frame within 30 s");
        match m {
            Some(Ok(Message::Text(t))) => return serde_json::from_str(&t).unwrap(),
            Some(Ok(Message::Close(c))) => {
                return json!({"close": c.map(|c| u16::from(c.code))});
            }
            Some(Ok(_)) => continue,
            _ => return json!({"close": null}),
        }
    }
}

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// Connects with `key` and registers as `id`; the server's answer.
async fn register(addr: SocketAddr, key: &str, id: &str) -> (Ws, Value) {
    let mut ws = connect(addr, key).await;
    send(
        &mut ws,
        json!({"type": "register", "status": "ok", "client_type": "device",
            "client_id": id, "metadata": {"platform": "windows"}}),
    )
    .await;
    let answer = next(&mut ws).await;
    (ws, answer)
}

/// A device with an empty desktop that answers screenshots with `shot`
/// (in ufo-rs's shape) until TASK_END; the ERROR frames it got beside it.
async fn serve_device(ws: &mut Ws, id: &str, shot: &str) -> (Value, Vec<String>) {
    let mut errors = Vec::new();
    loop {
        let m = next(ws).await;
        match m["type"].as_str() {
            Some("task") => {
                send(
                    ws,
                    json!({"type": "task", "status": "continue", "client_type": "device",
                        "client_id": id, "request": m["user_request"],
                        "task_name": m["task_name"], "session_id": m["session_id"]}),
                )
                .await;
            }
            Some("command") => {
                let results: Vec<Value> = m["actions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| {
                        let mut r = match a["tool_name"].as_str().unwrap() {
                            "get_desktop_app_info" | "list_tools" => {
                                json!({"status": "success", "result": []})
                            }
                            t if t.starts_with("capture_") => json!({"status": "success",
                                "result": shot,
                                "ufo_rs": {"frame": {"origin": {"x": 0, "y": 0}, "scale": 1.0},
                                           "width": 8, "height": 6}}),
                            t => json!({"status": "failure", "error": format!("no {t} here")}),
                        };
                        r["call_id"] = a["call_id"].clone();
                        r
                    })
                    .collect();
                send(
                    ws,
                    json!({"type": "command_results", "status": "continue",
                        "client_type": "device", "client_id": id,
                        "session_id": m["session_id"], "prev_response_id": m["response_id"],
                        "action_results": results}),
                )
                .await;
            }
            Some("error") => errors.push(m["error"].as_str().unwrap_or_default().to_owned()),
            Some("task_end") => return (m, errors),
            Some(_) => {}
            None => panic!("the connection ended before TASK_END: {m}"),
        }
    }
}

fn http() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

async fn dispatch(addr: SocketAddr, client_id: &str, task: &str) -> Value {
    http()
        .post(format!("http://{addr}/api/dispatch"))
        .header("X-API-Key", KEY)
        .json(&json!({"client_id": client_id, "request": "look around", "task_name": task}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn task_result(addr: SocketAddr, task: &str) -> Value {
    http()
        .get(format!("http://{addr}/api/task_result/{task}"))
        .header("X-API-Key", KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// A listener on loopback that counts the connections made to it: what a
/// server-side request forgery would reach.
async fn canary() -> (SocketAddr, Arc<AtomicUsize>) {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            h.fetch_add(1, Ordering::SeqCst);
            let _ = s
                .write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 4\r\n\r\nsecr",
                )
                .await;
        }
    });
    (addr, hits)
}

/// A device answers the HostAgent's desktop screenshot with a link to a
/// loopback service. The model is Ollama's (whose images the client
/// downloads): the server refuses the screenshot, tells the device why,
/// fetches nothing, and the task still ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_screenshot_link_is_refused_and_never_fetched() {
    let (target, hits) = canary().await;
    let model =
        ScriptedModel::start(vec![fixed(finish("no windows")), fixed(finish("again"))]).await;
    let logs = tempfile::tempdir().unwrap();
    let agent = model.ollama_yaml("ollama_chat");
    let s = start(
        DevicePolicy::default(),
        Some(runner(&agent, true, logs.path())),
        Limits::default(),
        None,
    )
    .await;
    let (mut ws, ok) = register(s.addr, KEY, "pc1").await;
    assert_eq!(ok["type"], "heartbeat", "{ok}");
    let sent = dispatch(s.addr, "pc1", "ssrf-1").await;
    assert_eq!(sent["status"], "dispatched", "{sent}");
    let link = format!("http://{target}/latest/meta-data/iam.png");
    let (end, errors) =
        tokio::time::timeout(Duration::from_secs(60), serve_device(&mut ws, "pc1", &link))
            .await
            .expect("TASK_END within a minute");
    assert_eq!(end["type"], "task_end", "{end}");
    // Nothing was fetched, and the link reached no model request.
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the server fetched the link"
    );
    for r in model.requests() {
        assert!(
            !r.body.to_string().contains(&target.to_string()),
            "{}",
            r.body
        );
    }
    // The device was told why its screenshot was refused.
    assert!(
        errors
            .iter()
            .any(|e| e.contains("may not answer with a link") && e.contains("data:image")),
        "{errors:?}"
    );
    // The server serves on.
    let done = task_result(s.addr, "ssrf-1").await;
    assert_eq!(done["status"], "done", "{done}");
}

fn keyed() -> DevicePolicy {
    let mut keys = DeviceKeys::new();
    keys.insert("test", "pc1", PC1).unwrap();
    keys.insert("test", "evil", EVIL).unwrap();
    DevicePolicy {
        keys,
        ..DevicePolicy::default()
    }
}

/// With device keys, a key registers the id it is for and no other, the
/// shared key registers none, and a connected id cannot be registered
/// twice.
#[tokio::test]
async fn a_device_key_registers_only_its_own_id() {
    let s = start(keyed(), None, Limits::default(), None).await;
    // Another device's key: refused, with why.
    let (mut ws, e) = register(s.addr, EVIL, "pc1").await;
    assert_eq!(e["type"], "error", "{e}");
    let why = e["error"].as_str().unwrap();
    assert!(
        why.contains("this key is device \"evil\"'s") && why.contains("\"pc1\""),
        "{why}"
    );
    assert_eq!(next(&mut ws).await["close"], 1008);
    // The shared key registers no device here.
    let (_, e) = register(s.addr, KEY, "pc1").await;
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("the shared key registers no device"),
        "{e}"
    );
    // A key that is no key: HTTP 401 before any frame.
    let r =
        tokio_tungstenite::connect_async(format!("ws://{}/ws?token=not-a-key-0123456789", s.addr))
            .await;
    assert!(
        matches!(r, Err(tokio_tungstenite::tungstenite::Error::Http(ref resp)) if resp.status() == 401),
        "{r:?}"
    );
    // Its own key: registered.
    let (_pc1, ok) = register(s.addr, PC1, "pc1").await;
    assert_eq!(
        (ok["type"].as_str(), ok["status"].as_str()),
        (Some("heartbeat"), Some("ok"))
    );
    // A second registration of the connected id, even with its key: refused.
    let (_, e) = register(s.addr, PC1, "pc1").await;
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("\"pc1\" is already connected"),
        "{e}"
    );
    // Device keys do not open the REST routes: they are the shared key's.
    let r = http()
        .get(format!("http://{}/api/clients", s.addr))
        .header("X-API-Key", PC1)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let r: Value = http()
        .get(format!("http://{}/api/clients", s.addr))
        .header("X-API-Key", KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["online_clients"], json!(["pc1"]));
}

/// A task dispatched to pc1 runs on pc1 only: another device that sends a
/// TASK of its name first is refused, pc1 then runs it, the result is
/// pc1's, and the other device cannot take the name over afterwards.
/// Holds with the shared key alone (no device keys) too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dispatched_task_runs_only_on_its_device() {
    let model = ScriptedModel::start(vec![fixed(finish("pc1 looked around"))]).await;
    let logs = tempfile::tempdir().unwrap();
    let s = start(
        DevicePolicy::default(),
        Some(runner(&model.agent_yaml(), false, logs.path())),
        Limits::default(),
        None,
    )
    .await;
    let (mut pc1, _) = register(s.addr, KEY, "pc1").await;
    let (mut evil, _) = register(s.addr, KEY, "evil").await;
    let sent = dispatch(s.addr, "pc1", "t1").await;
    assert_eq!(sent["status"], "dispatched", "{sent}");
    // The impostor asks first.
    send(
        &mut evil,
        json!({"type": "task", "status": "continue", "client_type": "device",
            "client_id": "evil", "request": "evil's request", "task_name": "t1"}),
    )
    .await;
    let e = next(&mut evil).await;
    assert_eq!(e["type"], "error", "{e}");
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("was dispatched to another device"),
        "{e}"
    );
    // The real device gets the task and runs it.
    let shot = ufo_desktop::encode::png_data_url(
        &image::RgbImage::new(8, 6),
        ufo_desktop::encode::PngCompression::Fast,
    )
    .unwrap();
    let (end, errors) = tokio::time::timeout(
        Duration::from_secs(60),
        serve_device(&mut pc1, "pc1", &shot),
    )
    .await
    .expect("TASK_END within a minute");
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(end["status"], "completed", "{end}");
    let done = task_result(s.addr, "t1").await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["result"][0]["client_id"], "pc1", "{done}");
    assert_eq!(done["result"][0]["request"], "look around", "{done}");
    assert_eq!(done["result"][0]["result"], "pc1 looked around", "{done}");
    // Afterwards the name stays pc1's.
    send(
        &mut evil,
        json!({"type": "task", "status": "continue", "client_type": "device",
            "client_id": "evil", "request": "evil's request", "task_name": "t1"}),
    )
    .await;
    let e = next(&mut evil).await;
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("belongs to another device's task"),
        "{e}"
    );
    assert_eq!(task_result(s.addr, "t1").await, done);
}

/// A CA and a server certificate for localhost and 127.0.0.1 signed by
/// it, made here: (CA PEM, certificate PEM, key PEM).
fn certificates() -> (String, String, String) {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    (ca.pem(), cert.pem(), key.serialize_pem())
}

/// `wss://` and HTTPS with a certificate from a private CA: a device that
/// trusts the CA registers and runs its own task to TASK_END; the REST
/// routes answer over HTTPS; a device that does not trust the CA is
/// refused at once with a TLS error that says what to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wss_with_a_private_ca() {
    let (ca, cert, key) = certificates();
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &ca).unwrap();
    let tls = TlsConfig::from_pem(cert.as_bytes(), key.as_bytes()).unwrap();
    let model = ScriptedModel::start(vec![fixed(finish("done over TLS"))]).await;
    let logs = tempfile::tempdir().unwrap();
    let s = start(
        DevicePolicy::default(),
        Some(runner(&model.agent_yaml(), false, logs.path())),
        Limits::default(),
        Some(tls),
    )
    .await;
    let port = s.addr.port();
    let factory: ufo_aip::client::DispatcherFactory = Arc::new(|| {
        Arc::new(ufo_testkit::fake::FakeDesktop::new(
            "calc",
            "Calculator",
            &[],
        )) as Arc<dyn ufo_desktop::dispatch::CommandDispatcher>
    });
    let mut opts =
        ufo_aip::client::ClientOptions::new(&format!("wss://localhost:{port}/ws"), "pc1");
    opts.api_key = Some(KEY.into());
    opts.max_retries = 0;
    opts.ca = Some(ca_file.clone());
    opts.task = Some(ufo_aip::client::OwnTask {
        request: "look around".into(),
        task_name: "tls-1".into(),
        mode: None,
        app: None,
        session_id: ufo_aip::messages::new_id(),
    });
    let end = tokio::time::timeout(
        Duration::from_secs(60),
        ufo_aip::client::run(opts.clone(), factory.clone()),
    )
    .await
    .expect("TASK_END within a minute")
    .unwrap()
    .unwrap();
    assert!(end.completed, "{end:?}");
    assert_eq!(end.result[0]["result"], "done over TLS");
    // The REST routes over HTTPS, trusting the same CA.
    let https = reqwest::Client::builder()
        .no_proxy()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(ca.as_bytes()).unwrap())
        .build()
        .unwrap();
    let done: Value = https
        .get(format!("https://127.0.0.1:{port}/api/task_result/tls-1"))
        .header("X-API-Key", KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(done["status"], "done", "{done}");
    // Plain HTTP to the TLS port gets no answer.
    assert!(
        http()
            .get(format!("http://127.0.0.1:{port}/api/health"))
            .header("X-API-Key", KEY)
            .send()
            .await
            .is_err()
    );
    // Without the CA (the web's roots only): refused at once, not retried.
    opts.ca = None;
    opts.max_retries = 5;
    opts.task = None;
    let t = Instant::now();
    let e = ufo_aip::client::run(opts, factory).await.unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    let r = ufo_core::Diagnostic::report(&e);
    assert_eq!(r.code, "ufo::aip::tls", "{r:?}");
    assert!(r.message.contains("not trusted"), "{r:?}");
    assert!(r.help.as_deref().unwrap().contains("--ca"), "{r:?}");
}

/// Reads until the peer closes; how long that took (`None`: not within
/// `limit`).
async fn closed_within(s: &mut tokio::net::TcpStream, limit: Duration) -> Option<Duration> {
    let t = Instant::now();
    let mut buf = [0u8; 1024];
    tokio::time::timeout(limit, async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return t.elapsed(),
                Ok(_) => {}
            }
        }
    })
    .await
    .ok()
}

async fn health(addr: SocketAddr) -> u16 {
    http()
        .get(format!("http://{addr}/api/health"))
        .header("X-API-Key", KEY)
        .send()
        .await
        .map(|r| r.status().as_u16())
        .unwrap_or(0)
}

/// Half a request is closed after the header timeout (the server serves
/// on meanwhile), and connections of any kind count against the limit:
/// one over it is closed at once, and served again once the others went.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_requests_time_out_and_every_connection_counts() {
    let limits = Limits {
        header_timeout: Duration::from_millis(1500),
        max_connections: 3,
        ..Limits::default()
    };
    let s = start(DevicePolicy::default(), None, limits, None).await;
    let mut half = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    half.write_all(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ")
        .await
        .unwrap();
    assert_eq!(health(s.addr).await, 200, "the server serves meanwhile");
    let took = closed_within(&mut half, Duration::from_secs(10))
        .await
        .expect("half a request is closed");
    assert!(took >= Duration::from_millis(1000), "{took:?}");

    // Three silent connections fill the limit; a fourth is closed at once.
    let mut silent = Vec::new();
    for _ in 0..3 {
        silent.push(tokio::net::TcpStream::connect(s.addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut over = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let took = closed_within(&mut over, Duration::from_millis(1000)).await;
    assert!(
        took.is_some(),
        "a connection over the limit is closed at once"
    );
    // The silent ones are closed by the header timeout, and the server
    // serves again.
    for c in &mut silent {
        assert!(closed_within(c, Duration::from_secs(10)).await.is_some());
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(health(s.addr).await, 200);
}

/// A browser page on another port of the same host is another origin.
#[tokio::test]
async fn an_origin_on_another_port_is_refused() {
    let s = start(DevicePolicy::default(), None, Limits::default(), None).await;
    let at = |origin: String| {
        http()
            .get(format!("http://{}/api/health", s.addr))
            .header("X-API-Key", KEY)
            .header("Origin", origin)
            .send()
    };
    let port = s.addr.port();
    let r = at(format!("http://127.0.0.1:{}", port.wrapping_add(1)))
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "ufo::aip::host_refused");
    let r = at(format!("http://127.0.0.1:{port}")).await.unwrap();
    assert_eq!(r.status(), 200);
}

/// What the server logs, in a buffer.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A device's ERROR text with a newline and a terminal escape stays on its
/// own log line, escaped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_devices_text_cannot_forge_log_lines() {
    let logs = Logs::default();
    let writer = logs.clone();
    let _ = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::WARN)
        .try_init();
    let s = start(DevicePolicy::default(), None, Limits::default(), None).await;
    let (mut ws, _) = register(s.addr, KEY, "pc1").await;
    send(
        &mut ws,
        json!({"type": "error", "status": "error", "client_id": "pc1",
            "error": "boom\n2099-01-01T00:00:00Z  INFO ufo_aip_server: device registered client_id=admin\x1b[2K"}),
    )
    .await;
    let t = Instant::now();
    let text = loop {
        let text = String::from_utf8_lossy(&logs.0.lock().unwrap()).into_owned();
        if text.contains("device reports") {
            break text;
        }
        assert!(t.elapsed() < Duration::from_secs(10), "not logged: {text}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let line = text.lines().find(|l| l.contains("device reports")).unwrap();
    assert!(line.contains("boom\\n2099-01-01"), "{line}");
    assert!(line.contains("\\u{1b}[2K"), "{line}");
    assert!(!text.lines().any(|l| l.starts_with("2099")), "{text}");
    assert!(!text.contains('\x1b'), "{text}");
}
