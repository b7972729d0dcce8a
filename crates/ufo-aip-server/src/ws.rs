//! One device connection: registration, identity pinning, limits, and the
//! frames of the task sequence; [`constellation`] answers the frames of
//! Galaxy's clients, which share the connection's limits.

mod constellation;

use crate::dispatcher::WsDispatcher;
use crate::hub::{ConnectionSlot, Device, Hub, Outgoing};
use crate::listen::SlotCell;
use crate::runner::{SessionRunner, TaskOutcome, TaskRequest, failed};
use axum::Extension;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::{SinkExt, StreamExt};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use ufo_aip::auth::key_from_headers;
use ufo_aip::messages::{
    ClientMessage, ClientMessageType, ClientType, ServerMessage, ServerMessageType, TaskStatus,
    is_safe_task_name, log_text, new_id,
};
use ufo_session::Mode;

/// Close codes (RFC 6455).
const POLICY: u16 = 1008;
const TOO_BIG: u16 = 1009;
const GOING_AWAY: u16 = 1001;

/// Initial read and write buffer of a connection.
const IO_BUFFER: usize = 4 << 10;

/// Frames the writer may have queued for one device.
const QUEUE: usize = 256;

/// `GET /ws`: checks the key and the connection limit, then upgrades.
pub(super) async fn upgrade(
    State(hub): State<Arc<Hub>>,
    Query(query): Query<HashMap<String, String>>,
    counted: Option<Extension<SlotCell>>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    // The header first; `?token=` is how UFO's own clients send the key.
    let given = key_from_headers(&headers).or_else(|| query.get("token").cloned());
    let credential = match hub.policy.keys.identify(given.as_deref()) {
        Some(id) => Credential::Device(id),
        None if hub.options.key.accepts(given.as_deref()) => Credential::Shared,
        None => return crate::refusal::unauthorized(),
    };
    // The connection is counted already when this server accepted it; the
    // socket keeps that count. (Served by another server: counted here.)
    let slot = match counted {
        Some(Extension(cell)) => cell.take().or_else(|| hub.open_connection()),
        None => hub.open_connection(),
    };
    let Some(slot) = slot else {
        return crate::refusal::refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "ufo::aip::too_many_connections",
            &format!(
                "the server holds its limit of {} connections",
                hub.limits().max_connections
            ),
            "try again later, or raise --max-connections",
        );
    };
    let max = hub.limits().max_frame_bytes;
    // Small buffers to start with (they grow for a big frame): an idle
    // device then costs a few KiB instead of tungstenite's 2 × 128 KiB.
    ws.max_message_size(max)
        .max_frame_size(max)
        .read_buffer_size(IO_BUFFER)
        .write_buffer_size(IO_BUFFER)
        .on_upgrade(move |socket| connection(socket, hub, slot, credential))
        .into_response()
}

fn text(msg: &ServerMessage) -> Message {
    Message::Text(serde_json::to_string(msg).unwrap_or_default().into())
}

fn close(code: u16, reason: &str) -> Message {
    // A close reason is at most 123 bytes.
    let mut r = reason.to_owned();
    while r.len() > 123 {
        r.pop();
    }
    Message::Close(Some(CloseFrame {
        code,
        reason: r.into(),
    }))
}

/// The text of a data frame; `None` for control frames.
fn frame_text(msg: &Message) -> Option<Result<&str, String>> {
    match msg {
        Message::Text(t) => Some(Ok(t.as_str())),
        Message::Binary(b) => Some(
            std::str::from_utf8(b).map_err(|_| "a binary frame that is not UTF-8 JSON".to_owned()),
        ),
        _ => None,
    }
}

fn parse(text: &str) -> Result<ClientMessage, String> {
    serde_json::from_str(text).map_err(|e| {
        format!(
            "malformed frame: {e}; frames are UFO's ClientMessage JSON, e.g. {{\"type\":\"heartbeat\",\"status\":\"ok\",\"client_id\":\"dev1\"}}"
        )
    })
}

/// Refuses a connection before registration: an ERROR frame, then a close.
async fn refuse_socket(socket: &mut WebSocket, why: &str) {
    let _ = socket.send(text(&ServerMessage::error(why))).await;
    let _ = socket.send(close(POLICY, why)).await;
}

/// What a connection showed to be let in.
#[derive(Debug, Clone)]
pub(crate) enum Credential {
    /// The shared key (or none, when the server needs none).
    Shared,
    /// Device `id`'s own key: it registers that id and no other.
    Device(String),
}

/// Why a connection that showed `credential` may not register as `id`;
/// `None` when it may.
fn refuse_identity(hub: &Hub, credential: &Credential, id: &str) -> Option<String> {
    match credential {
        Credential::Device(own) if own == id => None,
        Credential::Device(own) => Some(format!(
            "this key is device {own:?}'s; it may not register as {id:?} (register as {own:?}, or use {id:?}'s own key)"
        )),
        Credential::Shared if hub.policy.keys.is_empty() => None,
        Credential::Shared => Some(format!(
            "this server gives each device its own key: the shared key registers no device; connect {id:?} with its key (the server's --device-key {id}=KEY)"
        )),
    }
}

/// Waits for REGISTER; `None` after refusing the connection.
async fn register(
    socket: &mut WebSocket,
    hub: &Hub,
    credential: &Credential,
) -> Option<ClientMessage> {
    let first = match tokio::time::timeout(hub.limits().register_timeout, socket.recv()).await {
        Ok(Some(Ok(m))) => m,
        Ok(Some(Err(_))) => {
            let _ = socket
                .send(close(
                    TOO_BIG,
                    "the first frame was unreadable or too large",
                ))
                .await;
            return None;
        }
        Ok(None) => return None,
        Err(_) => {
            refuse_socket(socket, "no REGISTER frame within the registration timeout").await;
            return None;
        }
    };
    let reg = match frame_text(&first) {
        Some(Ok(t)) => parse(t),
        Some(Err(e)) => Err(e),
        None => Err("the first frame must be a REGISTER text frame".into()),
    };
    let reg = match reg {
        Ok(r) => r,
        Err(e) => {
            refuse_socket(socket, &e).await;
            return None;
        }
    };
    let why = match (&reg.kind, reg.client_id.as_deref(), reg.client_type) {
        (ClientMessageType::Register, Some(id), ClientType::Constellation) => {
            constellation::refuse(hub, credential, id, reg.target_id.as_deref())
        }
        (ClientMessageType::Register, Some(id), _) if is_safe_task_name(id) => {
            refuse_identity(hub, credential, id)
        }
        (ClientMessageType::Register, Some(_), _) => {
            Some("client_id must be 1-128 characters of [A-Za-z0-9._-]".to_owned())
        }
        (ClientMessageType::Register, None, _) => {
            Some("Client ID is required for WebSocket registration".to_owned())
        }
        _ => Some("First message must be a registration message".to_owned()),
    };
    match why {
        Some(why) => {
            tracing::warn!(
                client_id = %log_text(reg.client_id.as_deref().unwrap_or_default()),
                "registration refused: {why}"
            );
            refuse_socket(socket, &why).await;
            None
        }
        None => Some(reg),
    }
}

/// A token bucket: `rate` frames a second, bursts of twice that.
struct Bucket {
    rate: f64,
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn new(rate: u32) -> Self {
        let rate = f64::from(rate.max(1));
        Self {
            rate,
            tokens: 2.0 * rate,
            at: Instant::now(),
        }
    }

    fn take(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.at).as_secs_f64() * self.rate)
            .min(2.0 * self.rate);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// A connection's whole life.
async fn connection(
    mut socket: WebSocket,
    hub: Arc<Hub>,
    _slot: ConnectionSlot,
    credential: Credential,
) {
    let Some(reg) = register(&mut socket, &hub, &credential).await else {
        return;
    };
    let client_id = reg.client_id.clone().unwrap_or_default();
    // A constellation client speaks through the same queue and limits as a
    // device, but is not one: it is never dispatched to.
    let constellation = (reg.client_type == ClientType::Constellation)
        .then(|| reg.target_id.clone().filter(|t| !t.is_empty()));
    let (tx, mut rx) = mpsc::channel::<Outgoing>(QUEUE);
    let device = Arc::new(Device::new(
        client_id.clone(),
        reg.metadata.clone().unwrap_or_default(),
        matches!(credential, Credential::Device(_)),
        tx,
    ));
    let added = match constellation {
        Some(_) => hub.add_constellation(&client_id),
        None => hub.add(device.clone()),
    };
    if let Err(why) = added {
        tracing::warn!(client_id, "registration refused: {why}");
        refuse_socket(&mut socket, &why).await;
        return;
    }
    tracing::info!(
        client_id,
        constellation = constellation.is_some(),
        "client registered"
    );
    let (mut sink, mut stream) = socket.split();
    // The registration confirmation, as UFO sends it.
    let ok = ServerMessage::new(ServerMessageType::Heartbeat, TaskStatus::Ok);
    if sink.send(text(&ok)).await.is_err() {
        leave(&hub, &device, constellation.is_some());
        return;
    }
    let writer = tokio::spawn(async move {
        while let Some(out) = rx.recv().await {
            let (msg, last) = match out {
                Outgoing::Frame(m) => (m, false),
                Outgoing::Close(code, reason) => (close(code, &reason), true),
            };
            if sink.send(msg).await.is_err() || last {
                break;
            }
        }
        let _ = sink.close().await;
    });
    let mut bucket = Bucket::new(hub.limits().frames_per_second);
    let mut refused_in_a_row = 0u32;
    while let Some(frame) = stream.next().await {
        let msg = match frame {
            Ok(m) => m,
            Err(e) => {
                // Oversized frames end up here: say so before going.
                let why = format!(
                    "unreadable frame ({e}); frames are at most {} bytes",
                    hub.limits().max_frame_bytes
                );
                device.close(TOO_BIG, &why);
                break;
            }
        };
        device.seen();
        let text = match frame_text(&msg) {
            Some(Ok(t)) => t,
            Some(Err(e)) => {
                device.send(&ServerMessage::error(e));
                continue;
            }
            None if matches!(msg, Message::Close(_)) => break,
            None => continue,
        };
        if !bucket.take() {
            refused_in_a_row += 1;
            if refused_in_a_row > 100 {
                device.close(POLICY, "too many frames; closing");
                break;
            }
            device.send(&ServerMessage::error(format!(
                "too many frames (limit {} a second); this frame was dropped",
                hub.limits().frames_per_second
            )));
            continue;
        }
        refused_in_a_row = 0;
        match (parse(text), &constellation) {
            (Ok(m), Some(target)) => {
                constellation::handle(&hub, &device, target.as_deref(), m);
            }
            (Ok(m), None) => handle(&hub, &device, m),
            (Err(e), _) => {
                device.send(&ServerMessage::error(e));
            }
        }
    }
    leave(&hub, &device, constellation.is_some());
    tracing::info!(client_id, "client disconnected");
    // Let the writer flush a close frame it was asked to send.
    let _ = tokio::time::timeout(Duration::from_secs(2), writer).await;
}

/// A connection gone: a device leaves the hub (its commands fail), a
/// constellation frees its id.
fn leave(hub: &Hub, client: &Arc<Device>, constellation: bool) {
    match constellation {
        true => {
            hub.remove_constellation(&client.id);
            client.mark_closed();
        }
        false => hub.remove(client),
    }
}

/// One parsed frame from a registered device.
fn handle(hub: &Arc<Hub>, device: &Arc<Device>, m: ClientMessage) {
    if m.client_id.as_deref().is_some_and(|id| id != device.id) {
        device.send(&ServerMessage::error(format!(
            "this connection is registered as {:?}; it may not speak for {:?}",
            device.id,
            m.client_id.as_deref().unwrap_or_default()
        )));
        return;
    }
    match m.kind {
        ClientMessageType::Heartbeat => {
            device.send(&ServerMessage::new(
                ServerMessageType::Heartbeat,
                TaskStatus::Ok,
            ));
        }
        ClientMessageType::CommandResults => {
            let id = m.prev_response_id.unwrap_or_default();
            let results = m.action_results.unwrap_or_default();
            if !device.deliver(&id, results) {
                tracing::warn!(
                    client_id = %device.id,
                    "results for {:?}, which waits for none from this device: refused",
                    log_text(&id)
                );
                device.send(&ServerMessage::error(format!(
                    "no command {id:?} is waiting for results from this device (answered late, or not sent to it)"
                )));
            }
        }
        ClientMessageType::Task => start_task(hub, device, m),
        ClientMessageType::Register => {
            device.send(&ServerMessage::error(format!(
                "already registered as {:?}",
                device.id
            )));
        }
        ClientMessageType::DeviceInfoRequest => {
            // A device's system information (hostname, addresses) is for
            // orchestrators, and this server has none: refused, as UFO does.
            let mut e = ServerMessage::error(
                "DEVICE_INFO_REQUEST is permitted only for constellation clients",
            );
            e.response_id = m.request_id;
            device.send(&e);
        }
        ClientMessageType::Error => {
            tracing::warn!(client_id = %device.id, "device reports: {}", log_text(&m.error.unwrap_or_default()));
        }
        ClientMessageType::TaskEnd | ClientMessageType::DeviceInfoResponse => {}
    }
}

/// A TASK from the device: checks, then the session in the background.
fn start_task(hub: &Arc<Hub>, device: &Arc<Device>, m: ClientMessage) {
    let accepted = match accept_task(hub, device, &m) {
        Ok(a) => a,
        Err(why) => {
            let mut e = ServerMessage::error(why);
            e.task_name = m.task_name.clone();
            device.send(&e);
            return;
        }
    };
    // UFO acknowledges an accepted task with HEARTBEAT ok for its session.
    let mut ack = ServerMessage::new(ServerMessageType::Heartbeat, TaskStatus::Ok);
    ack.session_id = Some(accepted.session_id.clone());
    device.send(&ack);
    tokio::spawn(run_task(hub.clone(), device.clone(), accepted));
}

/// A task the device may run: what runs it, what it is, its session, and
/// who else hears its TASK_END (the constellation that sent it).
pub(crate) struct Accepted {
    runner: SessionRunner,
    task: TaskRequest,
    pub(crate) session_id: String,
    pub(crate) watcher: Option<Arc<Device>>,
}

/// Checks a TASK (its request, target, name and mode) and claims the device
/// and the task name for it; why not, when it is refused.
pub(crate) fn accept_task(
    hub: &Hub,
    device: &Device,
    m: &ClientMessage,
) -> Result<Accepted, String> {
    let Some(request) = m.request.clone().filter(|r| !r.trim().is_empty()) else {
        return Err("a TASK needs a non-empty \"request\"".into());
    };
    if m.target_id.as_deref().is_some_and(|t| t != device.id) {
        return Err(
            "a device may only send tasks for itself (target_id must be its own id)".into(),
        );
    }
    let task_name = m.task_name.clone().unwrap_or_else(new_id);
    if !is_safe_task_name(&task_name) {
        return Err(format!(
            "Invalid task_name {task_name:?}: use characters [A-Za-z0-9._-], not starting with '.'"
        ));
    }
    let Some(runner) = hub.runner.clone() else {
        return Err("this server runs no sessions (started without a config)".into());
    };
    // A dispatched task runs on the device it was dispatched to, and no other.
    let assigned = hub
        .take_assignment_for(&task_name, &device.id)
        .map_err(|owner| {
            tracing::warn!(
                client_id = %device.id,
                task = %task_name,
                "refused a TASK for a task dispatched to device {owner:?}"
            );
            format!(
                "task {task_name:?} was dispatched to another device; this device may not run it"
            )
        })?;
    let dispatched = assigned.is_some();
    let assigned = assigned.unwrap_or_default();
    let mode = task_mode(device, assigned.mode, m)?;
    if let Err(running) = device.claim(&task_name) {
        return Err(format!(
            "this device is running task {running:?}; wait for its TASK_END"
        ));
    }
    if let Err(why) = hub.start_task(&task_name, &device.id, dispatched) {
        device.release();
        tracing::warn!(client_id = %device.id, task = %task_name, "refused a TASK: {why}");
        return Err(why);
    }
    let task = TaskRequest {
        task_name,
        request,
        mode,
        app: assigned
            .app
            .or_else(|| m.meta_str("app").map(str::to_owned)),
        client_id: device.id.clone(),
    };
    // The device's session id (UFO's clients send the one they track),
    // else the one `/api/dispatch` answered with, else a new one.
    let session_id = m
        .session_id
        .clone()
        .filter(|s| !s.is_empty())
        .or(assigned.session_id)
        .unwrap_or_else(new_id);
    Ok(Accepted {
        runner,
        task,
        session_id,
        watcher: None,
    })
}

/// The mode a task runs in: the one `/api/dispatch` assigned, else the
/// TASK's `metadata.mode`, else the device's platform's, as in UFO (a
/// Linux device without UI tools, UFO's own, runs the command-line agent).
fn task_mode(device: &Device, assigned: Option<String>, m: &ClientMessage) -> Result<Mode, String> {
    let by_platform = match device.platform() {
        Some("linux") if !device.has_ui_tools() => "linux_service",
        Some("mobile") => {
            return Err(
                "mobile devices are not supported by this server; connect a Windows or Linux device"
                    .into(),
            );
        }
        _ => "service",
    };
    let mode_name = assigned
        .or_else(|| m.meta_str("mode").map(str::to_owned))
        .unwrap_or_else(|| by_platform.into());
    match mode_name.as_str() {
        "service" => Ok(Mode::Service),
        "linux_service" => Ok(Mode::LinuxService),
        other => Err(format!(
            "unknown mode {other:?}: use \"service\" or \"linux_service\""
        )),
    }
}

/// Runs an accepted task's session over the device's connection, then
/// ends it with TASK_END. A session whose device is gone sees failing
/// commands and ends on its own; if it does not within the wind-up time,
/// it is cut off.
pub(crate) async fn run_task(hub: Arc<Hub>, device: Arc<Device>, accepted: Accepted) {
    let Accepted {
        runner,
        task,
        session_id,
        watcher,
    } = accepted;
    tracing::info!(client_id = %device.id, task = %task.task_name, "task started");
    let dispatcher = Arc::new(
        WsDispatcher::new(
            device.clone(),
            &session_id,
            &task.task_name,
            hub.limits().command_timeout,
        )
        .with_tool_arguments(tool_arguments(&hub, &device, &runner)),
    );
    let wind_up = hub.limits().wind_up;
    let session = runner.run(&task, dispatcher);
    tokio::pin!(session);
    // A constellation's task is cancelled when the constellation leaves
    // (as UFO's server does): nobody waits for its end any more.
    let watcher_gone = async {
        match &watcher {
            Some(w) => w.closed().await,
            None => std::future::pending().await,
        }
    };
    let outcome: TaskOutcome = tokio::select! {
        o = &mut session => o,
        _ = async { device.closed().await; tokio::time::sleep(wind_up).await } => failed(
            &task,
            format!("device {:?} disconnected during the task", device.id),
            None,
        ),
        _ = watcher_gone => failed(
            &task,
            "Task was cancelled because the constellation client that sent it disconnected".into(),
            None,
        ),
    };
    let mut end = ServerMessage::new(
        ServerMessageType::TaskEnd,
        match outcome.completed {
            true => TaskStatus::Completed,
            false => TaskStatus::Failed,
        },
    );
    end.session_id = Some(session_id);
    end.task_name = Some(task.task_name.clone());
    end.result = Some(outcome.result.clone());
    end.error = outcome.error.clone();
    hub.finish_task(&task.task_name, &device.id, outcome.result);
    device.release();
    device.send(&end);
    if let Some(w) = watcher {
        w.send(&end);
    }
    tracing::info!(client_id = %device.id, task = %task.task_name, completed = outcome.completed, "task ended");
}

/// `DEVICE_TOOL_ARGUMENTS` for `device`: all of them for a device the
/// policy names (and, on a server with device keys, that showed its own),
/// none for any other.
fn tool_arguments(
    hub: &Hub,
    device: &Device,
    runner: &SessionRunner,
) -> std::collections::BTreeMap<String, String> {
    let all = runner.tool_arguments();
    let named = hub.policy.tool_argument_devices.contains(&device.id);
    let proven = device.own_key || hub.policy.keys.is_empty();
    if named && proven {
        return all;
    }
    if !all.is_empty() {
        tracing::warn!(
            client_id = %device.id,
            "DEVICE_TOOL_ARGUMENTS withheld: the device is not named by --tool-arguments-for"
        );
    }
    std::collections::BTreeMap::new()
}

/// Drops devices that have been silent longer than the heartbeat timeout.
pub(super) async fn reap_silent(hub: Arc<Hub>) {
    let limit = hub.limits().heartbeat_timeout;
    let every = (limit / 3).max(Duration::from_millis(100));
    loop {
        tokio::time::sleep(every).await;
        for d in hub.devices() {
            if d.idle() > limit {
                tracing::warn!(client_id = %d.id, "no frame for {:?}; dropping the device", limit);
                d.close(GOING_AWAY, "no heartbeat within the timeout");
                hub.remove(&d);
            }
        }
    }
}
