//! Galaxy's link to one device (UFO's `ConstellationClient` device
//! connection): a WebSocket to the server the device is registered with,
//! registered as `<task name>@<device id>` for that device, over which
//! sub-tasks go as TASK frames and come back as TASK_END.
//!
//! As UFO's client: REGISTER with `client_type: constellation`, the
//! device as `target_id` and UFO's metadata; the server's HEARTBEAT ok
//! accepts, its ERROR refuses. A sub-task `t` of task `TN` is sent as
//! `task_name: galaxy/TN/t`, `session_id: TN@t`, and the TASK_END that
//! names the session ends it. DEVICE_INFO_REQUEST asks for the device's
//! information (10 s). A heartbeat goes every `heartbeat`.
//!
//! Unlike UFO's: a sub-task the server refuses (an ERROR naming its
//! session or task) fails at once instead of waiting out its timeout, and
//! a sub-task that times out or whose connection breaks fails with its
//! own error ([`AipError::SubTaskTimeout`], [`AipError::LinkLost`]).

use super::transport::{Endpoint, open, upgrade_request};
use crate::error::AipError;
use crate::messages::{
    ClientMessage, ClientMessageType, ClientType, ServerMessage, ServerMessageType, TaskStatus,
};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use super::TaskEnd;

/// How the link connects.
#[derive(Debug, Clone)]
pub struct LinkOptions {
    /// The server the device is registered with (`ws://host:port/ws`).
    pub server: String,
    /// The server's shared key.
    pub api_key: Option<String>,
    /// For `wss://`: certificate authorities to trust.
    pub ca: Option<std::path::PathBuf>,
    /// Galaxy's task name (`TN`).
    pub task_name: String,
    /// The device (`D`).
    pub device_id: String,
    /// Heartbeat interval (UFO: 30 s).
    pub heartbeat: Duration,
    /// Largest frame accepted.
    pub max_frame_bytes: usize,
}

impl LinkOptions {
    /// Options with UFO's defaults.
    pub fn new(server: &str, task_name: &str, device_id: &str) -> Self {
        Self {
            server: server.to_owned(),
            api_key: None,
            ca: None,
            task_name: task_name.to_owned(),
            device_id: device_id.to_owned(),
            heartbeat: Duration::from_secs(30),
            max_frame_bytes: 100 << 20,
        }
    }

    /// The client id: `TN@D`.
    pub fn client_id(&self) -> String {
        format!("{}@{}", self.task_name, self.device_id)
    }
}

type Answer<T> = oneshot::Sender<Result<T, String>>;

/// Who waits for what, and why the link is down when it is.
#[derive(Default)]
struct Waiting {
    tasks: HashMap<String, Answer<TaskEnd>>,
    info: HashMap<String, Answer<Value>>,
    lost: Option<String>,
}

/// A registered link to one device.
pub struct DeviceLink {
    opts: LinkOptions,
    client_id: String,
    out: mpsc::Sender<Message>,
    waiting: Arc<Mutex<Waiting>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for DeviceLink {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

fn lock(m: &Mutex<Waiting>) -> std::sync::MutexGuard<'_, Waiting> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn frame(m: &ClientMessage) -> Message {
    Message::Text(serde_json::to_string(m).unwrap_or_default().into())
}

impl DeviceLink {
    /// Connects and registers; the server's refusal is
    /// [`AipError::Registration`] with its words.
    pub async fn connect(opts: LinkOptions) -> Result<Self, AipError> {
        let client_id = opts.client_id();
        let endpoint = Endpoint {
            server: &opts.server,
            api_key: &opts.api_key,
            ca: &opts.ca,
        };
        let request = upgrade_request(&endpoint)?;
        let connect_err = |message: String| AipError::Connect {
            url: opts.server.clone(),
            message,
        };
        let io = open(&endpoint, &request)
            .await?
            .map_err(|e| connect_err(e.to_string()))?;
        let config = WebSocketConfig::default()
            .max_message_size(Some(opts.max_frame_bytes))
            .max_frame_size(Some(opts.max_frame_bytes));
        let (ws, _) = tokio_tungstenite::client_async_with_config(request, io, Some(config))
            .await
            .map_err(|e| match e {
                tokio_tungstenite::tungstenite::Error::Http(r)
                    if matches!(r.status().as_u16(), 401 | 403) =>
                {
                    AipError::Unauthorized {
                        url: opts.server.clone(),
                        why: format!("HTTP {}", r.status().as_u16()),
                    }
                }
                other => connect_err(other.to_string()),
            })?;
        let (mut sink, mut stream) = ws.split();
        let mut reg = ClientMessage::new(ClientMessageType::Register, TaskStatus::Ok, &client_id);
        reg.client_type = ClientType::Constellation;
        reg.target_id = Some(opts.device_id.clone());
        reg.metadata = Some(
            json!({"type": "constellation_client", "task_name": opts.task_name,
                "targeted_device_id": opts.device_id,
                "capabilities": ["task_distribution", "session_management", "device_coordination"],
                "version": "2.0"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        );
        sink.send(frame(&reg))
            .await
            .map_err(|e| connect_err(e.to_string()))?;
        let answer = tokio::time::timeout(Duration::from_secs(30), stream.next()).await;
        let refused = |message: String| AipError::Registration {
            client_id: client_id.clone(),
            message,
        };
        match answer {
            Ok(Some(Ok(Message::Text(t)))) => match serde_json::from_str::<ServerMessage>(&t) {
                Ok(m) if m.kind == ServerMessageType::Heartbeat => {}
                Ok(m) => return Err(refused(m.error.unwrap_or_else(|| format!("{:?}", m.kind)))),
                Err(e) => return Err(refused(format!("unreadable answer: {e}"))),
            },
            Ok(Some(Ok(other))) => return Err(refused(format!("answered {other:?}"))),
            Ok(Some(Err(e))) => return Err(connect_err(e.to_string())),
            Ok(None) => return Err(connect_err("closed while registering".into())),
            Err(_) => return Err(connect_err("no registration answer within 30 s".into())),
        }
        let (out, mut rx) = mpsc::channel::<Message>(64);
        let writer = tokio::spawn(async move {
            while let Some(m) = rx.recv().await {
                if sink.send(m).await.is_err() {
                    break;
                }
            }
        });
        let waiting = Arc::new(Mutex::new(Waiting::default()));
        let reader = tokio::spawn(read(stream, waiting.clone()));
        let beat = tokio::spawn(heartbeat(out.clone(), client_id.clone(), opts.heartbeat));
        Ok(Self {
            opts,
            client_id,
            out,
            waiting,
            tasks: vec![writer, reader, beat],
        })
    }

    /// `TN@D`.
    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// Sends a frame; the link's loss as an error.
    async fn send(&self, m: &ClientMessage) -> Result<(), AipError> {
        self.out.send(frame(m)).await.map_err(|_| self.lost())
    }

    fn lost(&self) -> AipError {
        let why = lock(&self.waiting)
            .lost
            .clone()
            .unwrap_or_else(|| "the connection is closed".into());
        AipError::LinkLost {
            device: self.opts.device_id.clone(),
            why,
        }
    }

    /// The device's information (DEVICE_INFO_RESPONSE's `result`), within
    /// 10 s.
    pub async fn device_info(&self) -> Result<Value, AipError> {
        let request_id = format!(
            "device_info_{}_{}",
            self.opts.device_id,
            crate::messages::new_id()
        );
        let (tx, rx) = oneshot::channel();
        lock(&self.waiting).info.insert(request_id.clone(), tx);
        let mut m = ClientMessage::new(
            ClientMessageType::DeviceInfoRequest,
            TaskStatus::Ok,
            &self.client_id,
        );
        m.client_type = ClientType::Constellation;
        m.target_id = Some(self.opts.device_id.clone());
        m.request_id = Some(request_id.clone());
        self.send(&m).await?;
        match tokio::time::timeout(Duration::from_secs(10), rx).await {
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(why))) => Err(AipError::SubTaskRefused {
                task: request_id,
                message: why,
            }),
            Ok(Err(_)) => Err(self.lost()),
            Err(_) => {
                lock(&self.waiting).info.remove(&request_id);
                Err(AipError::SubTaskTimeout {
                    task: request_id,
                    seconds: 10.0,
                })
            }
        }
    }

    /// Runs sub-task `task_id` (its text `request`) on the device and
    /// returns its TASK_END; at most `timeout`.
    pub async fn run_task(
        &self,
        task_id: &str,
        request: &str,
        timeout: Duration,
    ) -> Result<TaskEnd, AipError> {
        let session_id = format!("{}@{task_id}", self.opts.task_name);
        let (tx, rx) = oneshot::channel();
        lock(&self.waiting).tasks.insert(session_id.clone(), tx);
        let mut m = ClientMessage::new(
            ClientMessageType::Task,
            TaskStatus::Continue,
            &self.client_id,
        );
        m.client_type = ClientType::Constellation;
        m.target_id = Some(self.opts.device_id.clone());
        m.task_name = Some(format!("galaxy/{}/{task_id}", self.opts.task_name));
        m.session_id = Some(session_id.clone());
        m.request = Some(request.to_owned());
        self.send(&m).await?;
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(Ok(end))) => Ok(end),
            Ok(Ok(Err(why))) => Err(AipError::SubTaskRefused {
                task: task_id.to_owned(),
                message: why,
            }),
            Ok(Err(_)) => Err(self.lost()),
            Err(_) => {
                lock(&self.waiting).tasks.remove(&session_id);
                Err(AipError::SubTaskTimeout {
                    task: task_id.to_owned(),
                    seconds: timeout.as_secs_f64(),
                })
            }
        }
    }
}

/// Heartbeats every `every` until the link closes.
async fn heartbeat(out: mpsc::Sender<Message>, client_id: String, every: Duration) {
    loop {
        let mut m = ClientMessage::new(ClientMessageType::Heartbeat, TaskStatus::Ok, &client_id);
        m.client_type = ClientType::Constellation;
        if out.send(frame(&m)).await.is_err() {
            return;
        }
        tokio::time::sleep(every).await;
    }
}

/// Routes the server's frames to who waits for them; at the end, fails
/// everyone still waiting.
async fn read<S>(mut stream: S, waiting: Arc<Mutex<Waiting>>)
where
    S: futures::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    let why = loop {
        let text = match stream.next().await {
            Some(Ok(Message::Text(t))) => t,
            Some(Ok(Message::Close(c))) => {
                break format!(
                    "the server closed the link{}",
                    c.map(|c| format!(": {}", c.reason)).unwrap_or_default()
                );
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => break format!("the link broke: {e}"),
            None => break "the server closed the link".to_owned(),
        };
        let Ok(m) = serde_json::from_str::<ServerMessage>(&text) else {
            tracing::warn!("unreadable frame from the server: ignored");
            continue;
        };
        deliver(&waiting, m);
    };
    let mut w = lock(&waiting);
    w.lost = Some(why.clone());
    for (_, tx) in w.tasks.drain() {
        let _ = tx.send(Err(why.clone()));
    }
    w.info.clear();
}

/// One frame to its waiter: TASK_END by session, DEVICE_INFO_RESPONSE by
/// request, an ERROR by the session or task it names.
fn deliver(waiting: &Mutex<Waiting>, m: ServerMessage) {
    let mut w = lock(waiting);
    match m.kind {
        ServerMessageType::TaskEnd => {
            let Some(tx) = m.session_id.as_ref().and_then(|s| w.tasks.remove(s)) else {
                tracing::warn!("a TASK_END for no sub-task waiting: ignored");
                return;
            };
            let _ = tx.send(Ok(TaskEnd {
                task_name: m.task_name.clone().unwrap_or_default(),
                completed: m.status == TaskStatus::Completed,
                result: m.result.clone().unwrap_or(Value::Null),
                error: m.error.clone(),
            }));
        }
        ServerMessageType::DeviceInfoResponse => {
            if let Some(tx) = m.response_id.as_ref().and_then(|r| w.info.remove(r)) {
                let _ = tx.send(Ok(m.result.clone().unwrap_or(Value::Null)));
            }
        }
        ServerMessageType::Error => {
            let why = m.error.clone().unwrap_or_default();
            let by_session = m.session_id.as_ref().and_then(|s| w.tasks.remove(s));
            let by_request = m.response_id.as_ref().and_then(|r| w.info.remove(r));
            match (by_session, by_request) {
                (Some(tx), _) => {
                    let _ = tx.send(Err(why));
                }
                (None, Some(tx)) => {
                    let _ = tx.send(Err(why));
                }
                (None, None) => tracing::warn!("the server says: {why}"),
            }
        }
        _ => {}
    }
}
