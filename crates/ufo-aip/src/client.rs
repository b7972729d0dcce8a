//! The device client (`ufo client`): registers with the server, executes
//! the COMMAND frames of its tasks on this desktop and answers with
//! COMMAND_RESULTS, sends heartbeats, and reconnects with exponential backoff
//! (UFO's policy: 1, 2, 4 … s, at most 60 s, `max_retries` attempts in a row).
//!
//! With an [`OwnTask`] the device sends its own TASK after registering and
//! returns at its TASK_END; without one it serves dispatched tasks until
//! stopped. [`constellation`] is the other side: Galaxy's link to a device
//! through the device's server.

use crate::error::AipError;
use crate::messages::{
    ClientMessage, ClientMessageType, ServerMessage, ServerMessageType, TaskStatus, WireResult,
};
use crate::payloads::{LIST_TOOLS, list_tools_filter, to_ufo, tool_list};
use futures::{SinkExt, StreamExt};
use serde_json::{Map, Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use ufo_core::{ActionResult, BoxError, Command};
use ufo_desktop::dispatch::CommandDispatcher;

pub mod constellation;
mod transport;
use transport::{Endpoint, open, upgrade_request};

/// Close code of a refused key or policy breach (RFC 6455).
const POLICY: u16 = 1008;

/// Makes the dispatcher of a new session (a fresh selected window and
/// control list per task).
pub type DispatcherFactory = Arc<dyn Fn() -> Arc<dyn CommandDispatcher> + Send + Sync>;

/// How the device connects.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// `ws://host:port/ws`.
    pub server: String,
    /// This device's id.
    pub client_id: String,
    /// The server's API key, sent as `X-API-Key`.
    pub api_key: Option<String>,
    /// Heartbeat interval (`HEARTBEAT_INTERVAL`, 30 s: UFO's protocol default).
    pub heartbeat: Duration,
    /// Failed connection attempts in a row before giving up (UFO: 5).
    pub max_retries: u32,
    /// Largest frame accepted from the server.
    pub max_frame_bytes: usize,
    /// A task of the device's own, sent after registering.
    pub task: Option<OwnTask>,
    /// For `wss://`: a PEM file of the certificate authorities to trust
    /// (a private CA, a self-signed server); `None`: the web's public roots
    /// (Mozilla's, bundled).
    pub ca: Option<std::path::PathBuf>,
}

impl ClientOptions {
    /// Options with UFO's defaults for `server` and `client_id`.
    pub fn new(server: &str, client_id: &str) -> Self {
        Self {
            server: server.to_owned(),
            client_id: client_id.to_owned(),
            api_key: None,
            heartbeat: Duration::from_secs(30),
            max_retries: 5,
            max_frame_bytes: 16 << 20,
            task: None,
            ca: None,
        }
    }
}

/// A request the device sends itself.
#[derive(Debug, Clone)]
pub struct OwnTask {
    /// The request.
    pub request: String,
    /// Its name (the log folder on the server).
    pub task_name: String,
    /// `service` (default) or `linux_service`.
    pub mode: Option<String>,
    /// For `linux_service`: the agent's application.
    pub app: Option<String>,
    /// The session id the TASK frame carries (a fresh one by default): the
    /// TASK_END that names it ends the own task.
    pub session_id: String,
}

/// How a task ended (the TASK_END frame).
#[derive(Debug, Clone)]
pub struct TaskEnd {
    /// The task.
    pub task_name: String,
    /// `completed` (true) or `failed`.
    pub completed: bool,
    /// The server's result object.
    pub result: Value,
    /// Why it failed.
    pub error: Option<String>,
}

/// How one connection ended.
enum Ended {
    /// The own task's TASK_END.
    Done(TaskEnd),
    /// The connection broke; `registered` says whether it had registered;
    /// `source` is the error that said why, when one did.
    Lost {
        registered: bool,
        why: String,
        source: Option<BoxError>,
    },
}

/// Runs the device until its own task ends (`Some`), or forever without one.
pub async fn run(
    opts: ClientOptions,
    factory: DispatcherFactory,
) -> Result<Option<TaskEnd>, AipError> {
    let mut failures = 0u32;
    let mut task_sent = false;
    loop {
        match connect_once(&opts, &factory, &mut task_sent).await? {
            Ended::Done(end) => return Ok(Some(end)),
            Ended::Lost {
                registered,
                why,
                source,
            } => {
                if registered {
                    failures = 0;
                }
                if let Some(t) = opts.task.as_ref().filter(|_| task_sent) {
                    return Err(AipError::TaskInterrupted {
                        task: t.task_name.clone(),
                    });
                }
                failures += 1;
                if failures > opts.max_retries {
                    return Err(AipError::RetriesExhausted {
                        url: opts.server.clone(),
                        attempts: failures,
                        last: why,
                        source,
                    });
                }
                let wait =
                    Duration::from_secs(1u64 << (failures - 1).min(6)).min(Duration::from_secs(60));
                let cause = source.map(|e| format!(" ({e})")).unwrap_or_default();
                tracing::warn!(
                    "{why}{cause}; retrying in {wait:?} ({failures}/{})",
                    opts.max_retries
                );
                tokio::time::sleep(wait).await;
            }
        }
    }
}

/// This device's system information in UFO's fields (`device_id`,
/// `platform`, `os_version`, `cpu_count`, `memory_total_gb`, `hostname`,
/// `ip_address`, `supported_features`, `platform_type`, `schema_version`,
/// `custom_metadata`), plus `architecture` and `client`.
pub fn system_info(client_id: &str, server: &str) -> Value {
    let read = |p: &str| std::fs::read_to_string(p).map(|s| s.trim().to_owned());
    let hostname = read("/proc/sys/kernel/hostname").unwrap_or_else(|_| "unknown".into());
    let os_version = read("/proc/sys/kernel/osrelease")
        .or_else(|_| read("/proc/sys/kernel/version"))
        .unwrap_or_else(|_| "unknown".into());
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let memory_total_gb = read("/proc/meminfo")
        .ok()
        .and_then(|m| {
            let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some((kb / (1024.0 * 1024.0) * 100.0).round() / 100.0)
        })
        .unwrap_or(0.0);
    json!({
        "device_id": client_id,
        "platform": std::env::consts::OS,
        "os_version": os_version,
        "cpu_count": cpus,
        "memory_total_gb": memory_total_gb,
        "hostname": hostname,
        "ip_address": local_address(server),
        "supported_features": ["gui", "cli", "file_system", "linux_apps"],
        "platform_type": "computer",
        "schema_version": "1.0",
        "custom_metadata": {},
        "architecture": std::env::consts::ARCH,
        "client": format!("ufo-rs {}", env!("CARGO_PKG_VERSION")),
    })
}

/// The local address this machine reaches `server` from (a UDP socket's
/// route, nothing is sent); `unknown` when it cannot be told.
fn local_address(server: &str) -> String {
    let target = url::Url::parse(server)
        .ok()
        .and_then(|u| Some(format!("{}:{}", u.host_str()?, u.port_or_known_default()?)));
    target
        .and_then(|t| {
            let s = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
            s.connect(t.trim_start_matches('[').replace("]:", ":"))
                .ok()?;
            Some(s.local_addr().ok()?.ip().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// What REGISTER carries: the platform, UFO's `system_info`, and what this
/// device can do (`ufo_rs.ui_tools`: the server may run desktop sessions).
fn device_metadata(client_id: &str, server: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("platform".into(), json!(std::env::consts::OS));
    m.insert("system_info".into(), system_info(client_id, server));
    m.insert("registration_time".into(), json!(crate::messages::now()));
    m.insert(
        "ufo_rs".into(),
        json!({"version": env!("CARGO_PKG_VERSION"), "ui_tools": true}),
    );
    m
}

fn frame(m: &ClientMessage) -> Message {
    Message::Text(serde_json::to_string(m).unwrap_or_default().into())
}

/// One connection: connect, register, serve. `Err` only for what retrying
/// cannot fix.
async fn connect_once(
    opts: &ClientOptions,
    factory: &DispatcherFactory,
    task_sent: &mut bool,
) -> Result<Ended, AipError> {
    let endpoint = Endpoint {
        server: &opts.server,
        api_key: &opts.api_key,
        ca: &opts.ca,
    };
    let request = upgrade_request(&endpoint)?;
    let config = WebSocketConfig::default()
        .max_message_size(Some(opts.max_frame_bytes))
        .max_frame_size(Some(opts.max_frame_bytes));
    let io = match open(&endpoint, &request).await? {
        Ok(io) => io,
        Err(e) => {
            return Ok(Ended::Lost {
                registered: false,
                why: format!("cannot connect to {}", opts.server),
                source: Some(e),
            });
        }
    };
    let (ws, _) = match tokio_tungstenite::client_async_with_config(request, io, Some(config)).await
    {
        Ok(c) => c,
        Err(WsError::Http(resp)) if matches!(resp.status().as_u16(), 401 | 403) => {
            return Err(AipError::Unauthorized {
                url: opts.server.clone(),
                why: format!("HTTP {}", resp.status().as_u16()),
            });
        }
        Err(e) => {
            return Ok(Ended::Lost {
                registered: false,
                why: format!("cannot connect to {}", opts.server),
                source: Some(e.into()),
            });
        }
    };
    let (mut sink, mut stream) = ws.split();
    let mut reg = ClientMessage::new(ClientMessageType::Register, TaskStatus::Ok, &opts.client_id);
    reg.metadata = Some(device_metadata(&opts.client_id, &opts.server));
    let lost = |why: &str, source: Option<BoxError>| {
        Ok(Ended::Lost {
            registered: false,
            why: why.to_owned(),
            source,
        })
    };
    if let Err(e) = sink.send(frame(&reg)).await {
        return lost("connection broke while registering", Some(e.into()));
    }
    // The server confirms with HEARTBEAT ok, or refuses with ERROR.
    let confirm = tokio::time::timeout(Duration::from_secs(15), stream.next()).await;
    match confirm {
        Ok(Some(Ok(Message::Text(t)))) => match serde_json::from_str::<ServerMessage>(&t) {
            Ok(m) if m.kind == ServerMessageType::Heartbeat => {}
            Ok(m) if m.kind == ServerMessageType::Error => {
                return Err(AipError::Registration {
                    client_id: opts.client_id.clone(),
                    message: m.error.unwrap_or_default(),
                });
            }
            Ok(m) => {
                let why = format!(
                    "unexpected {:?} frame instead of the registration answer",
                    m.kind
                );
                return lost(&why, None);
            }
            Err(e) => return lost("unreadable registration answer", Some(e.into())),
        },
        Ok(Some(Ok(Message::Close(Some(c))))) if u16::from(c.code) == POLICY => {
            return Err(AipError::Unauthorized {
                url: opts.server.clone(),
                why: format!("closed with 1008 {}", c.reason),
            });
        }
        Ok(Some(Ok(other))) => {
            let why = format!("unexpected frame instead of the registration answer: {other:?}");
            return lost(&why, None);
        }
        Ok(Some(Err(e))) => return lost("connection broke while registering", Some(e.into())),
        Ok(None) => return lost("the server closed the connection while registering", None),
        Err(_) => return lost("no registration answer within 15 s", None),
    }
    tracing::info!(client_id = %opts.client_id, server = %opts.server, "registered");

    let (tx, mut rx) = mpsc::channel::<Message>(64);
    let writer = tokio::spawn(async move {
        while let Some(m) = rx.recv().await {
            if sink.send(m).await.is_err() {
                break;
            }
        }
        let _ = sink.close().await;
    });
    let result = serve(opts, factory, task_sent, &tx, &mut stream).await;
    drop(tx);
    let _ = tokio::time::timeout(Duration::from_secs(2), writer).await;
    result
}

/// The session of one task on this device: its id and dispatcher.
type Current = Arc<Mutex<Option<(String, Arc<dyn CommandDispatcher>)>>>;

/// The registered connection's loop.
async fn serve<S>(
    opts: &ClientOptions,
    factory: &DispatcherFactory,
    task_sent: &mut bool,
    tx: &mpsc::Sender<Message>,
    stream: &mut S,
) -> Result<Ended, AipError>
where
    S: futures::Stream<Item = Result<Message, WsError>> + Unpin,
{
    let id = opts.client_id.as_str();
    if let Some(t) = opts.task.as_ref().filter(|_| !*task_sent) {
        if tx.send(frame(&own_task(t, id))).await.is_err() {
            return Ok(Ended::Lost {
                registered: true,
                why: "connection closed".into(),
                source: None,
            });
        }
        *task_sent = true;
    }
    let current: Current = Arc::new(Mutex::new(None));
    let mut beat = tokio::time::interval(opts.heartbeat);
    beat.tick().await;
    loop {
        let msg = tokio::select! {
            _ = beat.tick() => {
                let hb = ClientMessage::new(ClientMessageType::Heartbeat, TaskStatus::Ok, id);
                let _ = tx.send(frame(&hb)).await;
                continue;
            }
            m = stream.next() => m,
        };
        let text = match frame_text(msg, opts) {
            Incoming::Text(t) => t,
            Incoming::Skip => continue,
            Incoming::End(end) => return end,
        };
        let m: ServerMessage = match serde_json::from_str(&text) {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!("unreadable frame from the server: {e}");
                continue;
            }
        };
        if let Some(end) = on_frame(opts, factory, &current, tx, m).await {
            return Ok(end);
        }
    }
}

/// The TASK frame of the device's own task (`ufo client --request`).
fn own_task(t: &OwnTask, id: &str) -> ClientMessage {
    let mut m = ClientMessage::new(ClientMessageType::Task, TaskStatus::Continue, id);
    m.request = Some(t.request.clone());
    m.task_name = Some(t.task_name.clone());
    // UFO's TASK_END names only the session: the own task is found by it.
    m.session_id = Some(t.session_id.clone());
    let mut meta = Map::new();
    meta.insert("platform".into(), json!(std::env::consts::OS));
    if let Some(mode) = &t.mode {
        meta.insert("mode".into(), json!(mode));
    }
    if let Some(app) = &t.app {
        meta.insert("app".into(), json!(app));
    }
    m.metadata = Some(meta);
    m
}

/// What one read from the socket means for the loop.
enum Incoming {
    /// A frame's text.
    Text(String),
    /// Nothing to act on (ping, pong).
    Skip,
    /// The connection is over.
    End(Result<Ended, AipError>),
}

fn frame_text(msg: Option<Result<Message, WsError>>, opts: &ClientOptions) -> Incoming {
    let lost = |why: String, source: Option<BoxError>| {
        Incoming::End(Ok(Ended::Lost {
            registered: true,
            why,
            source,
        }))
    };
    match msg {
        Some(Ok(Message::Text(t))) => Incoming::Text(t.to_string()),
        Some(Ok(Message::Binary(b))) => Incoming::Text(String::from_utf8_lossy(&b).into_owned()),
        Some(Ok(Message::Close(Some(c)))) if u16::from(c.code) == POLICY => {
            Incoming::End(Err(AipError::Unauthorized {
                url: opts.server.clone(),
                why: format!("closed with 1008 {}", c.reason),
            }))
        }
        Some(Ok(Message::Close(c))) => lost(
            c.map(|c| {
                format!(
                    "the server closed the connection ({}: {})",
                    c.code, c.reason
                )
            })
            .unwrap_or_else(|| "the server closed the connection".into()),
            None,
        ),
        Some(Ok(_)) => Incoming::Skip,
        Some(Err(e)) => lost("connection broke".into(), Some(e.into())),
        None => lost("the server closed the connection".into(), None),
    }
}

/// Acts on one server frame; the end of the device's own task, if it ended.
async fn on_frame(
    opts: &ClientOptions,
    factory: &DispatcherFactory,
    current: &Current,
    tx: &mpsc::Sender<Message>,
    m: ServerMessage,
) -> Option<Ended> {
    let id = opts.client_id.as_str();
    match m.kind {
        ServerMessageType::Command => execute(opts, factory, current, tx.clone(), m),
        ServerMessageType::Task => {
            // A dispatched task: ask the server to run it here (UFO's flow).
            let mut t = ClientMessage::new(ClientMessageType::Task, TaskStatus::Continue, id);
            t.request = m.user_request;
            t.task_name = m.task_name;
            t.session_id = m.session_id;
            let _ = tx.send(frame(&t)).await;
        }
        ServerMessageType::TaskEnd => return task_end(opts, current, &m),
        ServerMessageType::Error => {
            let why = m.error.unwrap_or_default();
            let own = opts
                .task
                .as_ref()
                .filter(|t| m.task_name.as_deref() == Some(&t.task_name));
            match own {
                Some(t) => {
                    return Some(Ended::Done(TaskEnd {
                        task_name: t.task_name.clone(),
                        completed: false,
                        result: Value::Null,
                        error: Some(format!("the server refused the task: {why}")),
                    }));
                }
                None => tracing::warn!("server: {}", crate::messages::log_text(&why)),
            }
        }
        ServerMessageType::DeviceInfoRequest => {
            let mut r =
                ClientMessage::new(ClientMessageType::DeviceInfoResponse, TaskStatus::Ok, id);
            r.metadata = match system_info(id, &opts.server) {
                Value::Object(o) => Some(o),
                _ => None,
            };
            r.prev_response_id = m.response_id;
            let _ = tx.send(frame(&r)).await;
        }
        ServerMessageType::Heartbeat | ServerMessageType::DeviceInfoResponse => {}
    }
    None
}

/// A TASK_END: the device's session is over; the end of its own task when
/// the frame names it (UFO's names only the session).
fn task_end(opts: &ClientOptions, current: &Current, m: &ServerMessage) -> Option<Ended> {
    // Not acknowledged: UFO's server answers an ack with ERROR.
    let own = opts.task.as_ref().filter(|t| {
        m.session_id.as_deref() == Some(t.session_id.as_str())
            || m.task_name.as_deref() == Some(t.task_name.as_str())
    });
    let end = TaskEnd {
        task_name: m
            .task_name
            .clone()
            .or_else(|| own.map(|t| t.task_name.clone()))
            .unwrap_or_default(),
        completed: m.status == TaskStatus::Completed,
        result: m.result.clone().unwrap_or(Value::Null),
        error: m.error.clone(),
    };
    if let Ok(mut c) = current.lock() {
        *c = None;
    }
    tracing::info!(task = %end.task_name, completed = end.completed, "task ended");
    own.map(|_| Ended::Done(end))
}

/// Executes a COMMAND frame in the background (the reader keeps reading and
/// heartbeats go on) and sends its COMMAND_RESULTS.
fn execute(
    opts: &ClientOptions,
    factory: &DispatcherFactory,
    current: &Current,
    tx: mpsc::Sender<Message>,
    m: ServerMessage,
) {
    let session = m.session_id.clone().unwrap_or_default();
    let dispatcher = {
        let mut c = match current.lock() {
            Ok(c) => c,
            Err(p) => p.into_inner(),
        };
        match c.as_ref() {
            Some((s, d)) if *s == session => d.clone(),
            _ => {
                let d = factory();
                *c = Some((session.clone(), d.clone()));
                d
            }
        }
    };
    let id = opts.client_id.clone();
    tokio::spawn(async move {
        let commands = m.actions.unwrap_or_default();
        let results = run_commands(dispatcher.as_ref(), commands).await;
        let mut r =
            ClientMessage::new(ClientMessageType::CommandResults, TaskStatus::Continue, &id);
        r.session_id = Some(session);
        r.task_name = m.task_name;
        r.prev_response_id = m.response_id;
        r.action_results = Some(results);
        let _ = tx.send(frame(&r)).await;
    });
}

/// Runs a COMMAND frame's commands: UFO's `list_tools` is answered from the
/// catalog, the rest by the dispatcher; results go out in UFO's shapes
/// ([`crate::payloads::to_ufo`]). After a failure the rest are skipped.
pub async fn run_commands(
    dispatcher: &dyn CommandDispatcher,
    commands: Vec<Command>,
) -> Vec<WireResult> {
    let mut out = Vec::with_capacity(commands.len());
    let mut batch: Vec<Command> = Vec::new();
    let mut failed = false;
    let mut it = commands.into_iter().peekable();
    while let Some(c) = it.next() {
        let is_list = c.tool_name == LIST_TOOLS;
        if !is_list {
            batch.push(c);
            if it.peek().is_some_and(|n| n.tool_name != LIST_TOOLS) {
                continue;
            }
            let cmds = std::mem::take(&mut batch);
            let results = match failed {
                true => skip_all(&cmds),
                false => dispatcher.execute(cmds.clone()).await,
            };
            for (cmd, r) in cmds.iter().zip(results) {
                failed |= r.status == ufo_core::ActionStatus::Failure;
                let mut w = WireResult::from(r);
                let (result, extra) = to_ufo(&cmd.tool_name, std::mem::take(&mut w.result));
                w.result = result;
                w.ufo_rs = extra;
                out.push(w);
            }
            continue;
        }
        let r = match failed {
            true => ActionResult::skipped("skipped: an earlier command failed"),
            false => {
                let (tool_type, namespace) = list_tools_filter(&c.parameters);
                ActionResult::success(tool_list(
                    &ufo_desktop::tools::catalog(),
                    tool_type.as_deref(),
                    namespace.as_deref(),
                ))
            }
        };
        let mut w = WireResult::from(r.with_call_id(c.call_id.clone()));
        w.namespace = Some("ufo-rs".into());
        out.push(w);
    }
    out
}

fn skip_all(cmds: &[Command]) -> Vec<ActionResult> {
    cmds.iter()
        .map(|c| {
            ActionResult::skipped("skipped: an earlier command failed")
                .with_call_id(c.call_id.clone())
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ufo_testkit::fake::FakeDesktop;

    fn factory() -> DispatcherFactory {
        Arc::new(|| Arc::new(FakeDesktop::new("fake", "Fake", &[])) as Arc<dyn CommandDispatcher>)
    }

    /// A server URL the parser refuses: the parser's error is the cause,
    /// and the key is in neither the message nor the cause.
    #[tokio::test]
    async fn a_bad_server_url_is_rendered_with_its_cause() {
        let mut opts = ClientOptions::new("ws://bad host:5000/ws", "dev1");
        opts.api_key = Some("s3cret-key-0123".into());
        let e = run(opts.clone(), factory()).await.unwrap_err();
        let cause = url::Url::parse(&opts.server).unwrap_err();
        assert_eq!(
            ufo_core::render(&e),
            format!(
                "error[ufo::aip::bad_url]: bad server URL \"ws://bad host:5000/ws\": it is not a URL\n  \
                 caused by: {cause}\n  \
                 help: use the form ws://127.0.0.1:5000/ws"
            )
        );
        // Without a key the WebSocket request is what refuses it.
        opts.api_key = None;
        let r = ufo_core::Diagnostic::report(&run(opts, factory()).await.unwrap_err());
        assert_eq!(r.code, "ufo::aip::bad_url");
        assert_eq!(r.causes.len(), 1, "{r:?}");
        assert!(r.rendered().contains("\n  caused by: "), "{}", r.rendered());
        // Not a WebSocket scheme: nothing underneath, no cause line.
        let r = ufo_core::Diagnostic::report(
            &run(
                ClientOptions::new("http://127.0.0.1:1/ws", "dev1"),
                factory(),
            )
            .await
            .unwrap_err(),
        );
        assert!(r.causes.is_empty(), "{r:?}");
    }

    /// A server that is not there: after the retries the last socket error
    /// is the cause.
    #[tokio::test]
    async fn giving_up_keeps_the_last_socket_error() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut opts = ClientOptions::new(&format!("ws://127.0.0.1:{port}/ws"), "dev1");
        opts.max_retries = 0;
        let e = run(opts, factory()).await.unwrap_err();
        let r = ufo_core::Diagnostic::report(&e);
        assert_eq!(r.code, "ufo::aip::retries_exhausted");
        let tail = format!("cannot connect to ws://127.0.0.1:{port}/ws");
        assert!(r.message.ends_with(&tail), "{r:?}");
        assert_eq!(r.causes.len(), 1, "{r:?}");
        assert!(r.rendered().contains("\n  caused by: "), "{}", r.rendered());
    }
}
