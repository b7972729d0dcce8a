//! The server's shared state: connected devices, their outstanding commands,
//! and the tasks with their results.

use crate::{DevicePolicy, Limits, ServerOptions, runner::SessionRunner};
use axum::extract::ws::Message;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;
use tokio::sync::{mpsc, oneshot, watch};
use ufo_aip::messages::ServerMessage;
use ufo_aip::messages::WireResult;

/// How many finished tasks keep their result for `/api/task_result`.
const KEEP_RESULTS: usize = 10_000;

/// Locks `m`, recovering from a poisoned lock (a panicking holder cannot
/// leave these maps half-updated: every update is one insert or remove).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What a connection's writer task is asked to send.
#[derive(Debug)]
pub(crate) enum Outgoing {
    /// A frame.
    Frame(Message),
    /// A close frame with a code and reason; the writer stops after it.
    Close(u16, String),
}

/// One registered device.
pub(crate) struct Device {
    /// Its client id (fixed for the connection).
    pub(crate) id: String,
    /// What it sent at REGISTER.
    pub(crate) metadata: Map<String, Value>,
    /// Whether it connected with its own device key (not the shared key).
    pub(crate) own_key: bool,
    /// When it registered (ISO 8601).
    pub(crate) registered_at: String,
    out: mpsc::Sender<Outgoing>,
    pending: Mutex<HashMap<String, oneshot::Sender<Vec<WireResult>>>>,
    /// The task it runs now, if any.
    task: Mutex<Option<String>>,
    closed: watch::Sender<bool>,
    last_seen: Mutex<Instant>,
}

impl Device {
    pub(crate) fn new(
        id: String,
        metadata: Map<String, Value>,
        own_key: bool,
        out: mpsc::Sender<Outgoing>,
    ) -> Self {
        Self {
            id,
            metadata,
            own_key,
            registered_at: ufo_aip::messages::now(),
            out,
            pending: Mutex::new(HashMap::new()),
            task: Mutex::new(None),
            closed: watch::Sender::new(false),
            last_seen: Mutex::new(Instant::now()),
        }
    }

    /// Queues `msg` for the device. `false` when the connection is gone or
    /// its queue is full (the device stopped reading).
    pub(crate) fn send(&self, msg: &ServerMessage) -> bool {
        match serde_json::to_string(msg) {
            Ok(text) => self
                .out
                .try_send(Outgoing::Frame(Message::Text(text.into())))
                .is_ok(),
            Err(_) => false,
        }
    }

    /// Asks the writer to close the connection with `code` and `reason`.
    pub(crate) fn close(&self, code: u16, reason: &str) {
        let _ = self.out.try_send(Outgoing::Close(code, reason.to_owned()));
    }

    /// Registers a command batch awaiting results under `response_id`.
    pub(crate) fn expect(&self, response_id: &str) -> oneshot::Receiver<Vec<WireResult>> {
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(response_id.to_owned(), tx);
        rx
    }

    /// Forgets a command batch (timed out).
    pub(crate) fn forget(&self, response_id: &str) {
        lock(&self.pending).remove(response_id);
    }

    /// Delivers results for `response_id`; `false` when nothing waits for them.
    pub(crate) fn deliver(&self, response_id: &str, results: Vec<WireResult>) -> bool {
        match lock(&self.pending).remove(response_id) {
            Some(tx) => tx.send(results).is_ok(),
            None => false,
        }
    }

    /// Marks the device gone: outstanding commands fail at once.
    pub(crate) fn mark_closed(&self) {
        lock(&self.pending).clear();
        self.closed.send_replace(true);
    }

    /// Whether the connection is gone.
    pub(crate) fn is_closed(&self) -> bool {
        *self.closed.borrow()
    }

    /// Resolves when the connection is gone.
    pub(crate) async fn closed(&self) {
        let mut rx = self.closed.subscribe();
        let _ = rx.wait_for(|c| *c).await;
    }

    /// Notes that a frame arrived.
    pub(crate) fn seen(&self) {
        *lock(&self.last_seen) = Instant::now();
    }

    /// Time since the last frame.
    pub(crate) fn idle(&self) -> std::time::Duration {
        lock(&self.last_seen).elapsed()
    }

    /// Claims the device for `task`; `Err(running)` when it runs one already.
    pub(crate) fn claim(&self, task: &str) -> Result<(), String> {
        let mut t = lock(&self.task);
        match t.as_ref() {
            Some(running) => Err(running.clone()),
            None => {
                *t = Some(task.to_owned());
                Ok(())
            }
        }
    }

    /// Frees the device after a task.
    pub(crate) fn release(&self) {
        *lock(&self.task) = None;
    }

    /// The platform it registered with (`linux`, `windows`, …): UFO's
    /// `metadata.platform`, else its `system_info.platform`.
    pub(crate) fn platform(&self) -> Option<&str> {
        self.metadata
            .get("platform")
            .or_else(|| self.metadata.get("system_info")?.get("platform"))
            .and_then(Value::as_str)
    }

    /// Whether it said it has the UI tools (a ufo-rs device does; UFO's
    /// own Linux device has only the command-line ones).
    pub(crate) fn has_ui_tools(&self) -> bool {
        self.metadata
            .get("ufo_rs")
            .and_then(|v| v.get("ui_tools"))
            .and_then(Value::as_bool)
            == Some(true)
    }

    /// The task it runs, if any.
    pub(crate) fn running(&self) -> Option<String> {
        lock(&self.task).clone()
    }
}

/// What `/api/clients` says about a device.
#[derive(Debug, Serialize)]
pub(crate) struct DeviceSummary {
    client_id: String,
    registered_at: String,
    platform: Option<String>,
    running_task: Option<String>,
}

/// How `/api/dispatch` asked a task to run, kept until the device sends
/// the TASK frame back.
#[derive(Debug, Clone, Default)]
pub(crate) struct Assignment {
    /// The device it was dispatched to: the only one that may run it.
    pub(crate) client_id: String,
    pub(crate) mode: Option<String>,
    pub(crate) app: Option<String>,
    /// The session id `/api/dispatch` answered with.
    pub(crate) session_id: Option<String>,
}

/// A task's state for `/api/task_result`.
#[derive(Debug, Clone)]
pub(crate) enum TaskState {
    Pending,
    Done(Value),
}

/// A task name's record: its state and the device that ran it.
#[derive(Debug, Clone)]
struct TaskRecord {
    state: TaskState,
    owner: String,
}

/// Everything the connections and the HTTP routes share.
pub(crate) struct Hub {
    pub(crate) options: ServerOptions,
    /// Which device may register under which id, and which get
    /// `DEVICE_TOOL_ARGUMENTS`.
    pub(crate) policy: DevicePolicy,
    pub(crate) runner: Option<SessionRunner>,
    devices: Mutex<HashMap<String, Arc<Device>>>,
    /// The connected constellation clients' ids.
    constellations: Mutex<std::collections::HashSet<String>>,
    tasks: Mutex<(HashMap<String, TaskRecord>, VecDeque<String>)>,
    assignments: Mutex<HashMap<String, Assignment>>,
    connections: AtomicUsize,
}

impl Hub {
    pub(crate) fn new(
        options: ServerOptions,
        policy: DevicePolicy,
        runner: Option<SessionRunner>,
    ) -> Self {
        Self {
            options,
            policy,
            runner,
            devices: Mutex::new(HashMap::new()),
            constellations: Mutex::new(std::collections::HashSet::new()),
            tasks: Mutex::new((HashMap::new(), VecDeque::new())),
            assignments: Mutex::new(HashMap::new()),
            connections: AtomicUsize::new(0),
        }
    }

    pub(crate) fn limits(&self) -> &Limits {
        &self.options.limits
    }

    /// Counts a new connection; `None` when the limit is reached.
    pub(crate) fn open_connection(self: &Arc<Self>) -> Option<ConnectionSlot> {
        let max = self.limits().max_connections;
        let n = self.connections.fetch_add(1, Ordering::SeqCst);
        if n >= max {
            self.connections.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(ConnectionSlot(self.clone()))
    }

    /// How many connections are counted now.
    pub(crate) fn open_connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// Adds a device; `Err` when its id is taken.
    pub(crate) fn add(&self, device: Arc<Device>) -> Result<(), String> {
        let mut d = lock(&self.devices);
        if d.contains_key(&device.id) {
            return Err(format!(
                "client id {:?} is already connected; use another --client-id or stop the other device",
                device.id
            ));
        }
        d.insert(device.id.clone(), device);
        Ok(())
    }

    /// Adds a constellation client's id; `Err` when it is connected already.
    pub(crate) fn add_constellation(&self, id: &str) -> Result<(), String> {
        match lock(&self.constellations).insert(id.to_owned()) {
            true => Ok(()),
            false => Err(format!(
                "client_id '{id}' is already registered; duplicate registrations are not allowed"
            )),
        }
    }

    /// Frees a constellation client's id.
    pub(crate) fn remove_constellation(&self, id: &str) {
        lock(&self.constellations).remove(id);
    }

    /// Removes `device` (only that connection's entry) and fails its commands.
    pub(crate) fn remove(&self, device: &Arc<Device>) {
        let mut d = lock(&self.devices);
        if d.get(&device.id).is_some_and(|x| Arc::ptr_eq(x, device)) {
            d.remove(&device.id);
        }
        drop(d);
        device.mark_closed();
    }

    /// The device registered as `id`.
    pub(crate) fn device(&self, id: &str) -> Option<Arc<Device>> {
        lock(&self.devices).get(id).cloned()
    }

    /// All devices.
    pub(crate) fn devices(&self) -> Vec<Arc<Device>> {
        lock(&self.devices).values().cloned().collect()
    }

    /// Ids of the connected devices, sorted.
    pub(crate) fn device_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = lock(&self.devices).keys().cloned().collect();
        ids.sort();
        ids
    }

    /// What `/api/clients` lists.
    pub(crate) fn summaries(&self) -> Vec<DeviceSummary> {
        let mut v: Vec<DeviceSummary> = self
            .devices()
            .iter()
            .map(|d| DeviceSummary {
                client_id: d.id.clone(),
                registered_at: d.registered_at.clone(),
                platform: d.platform().map(str::to_owned),
                running_task: d.running(),
            })
            .collect();
        v.sort_by(|a, b| a.client_id.cmp(&b.client_id));
        v
    }

    pub(crate) fn assign(&self, task: &str, a: Assignment) {
        lock(&self.assignments).insert(task.to_owned(), a);
    }

    /// Forgets the assignment of `task` (its TASK frame could not be sent).
    pub(crate) fn drop_assignment(&self, task: &str) {
        lock(&self.assignments).remove(task);
    }

    /// The assignment of `task` for device `client_id`, taken; `Ok(None)`
    /// when `task` was not dispatched; `Err(id)` when it was dispatched to
    /// device `id` (it stays that device's).
    pub(crate) fn take_assignment_for(
        &self,
        task: &str,
        client_id: &str,
    ) -> Result<Option<Assignment>, String> {
        let mut a = lock(&self.assignments);
        match a.get(task) {
            Some(x) if x.client_id != client_id => Err(x.client_id.clone()),
            Some(_) => Ok(a.remove(task)),
            None => Ok(None),
        }
    }

    /// Marks `task` pending for device `owner`. Refused (why) when a task of
    /// that name is pending, or when it is another device's and was not
    /// dispatched to this one (`dispatched`).
    pub(crate) fn start_task(
        &self,
        task: &str,
        owner: &str,
        dispatched: bool,
    ) -> Result<(), String> {
        let mut t = lock(&self.tasks);
        match t.0.get(task) {
            Some(r) if matches!(r.state, TaskState::Pending) => {
                return Err(format!(
                    "task {task:?} is still running; choose another task_name"
                ));
            }
            Some(r) if r.owner != owner && !dispatched => {
                return Err(format!(
                    "task name {task:?} belongs to another device's task; choose another task_name"
                ));
            }
            _ => {}
        }
        let record = TaskRecord {
            state: TaskState::Pending,
            owner: owner.to_owned(),
        };
        if t.0.insert(task.to_owned(), record).is_none() {
            t.1.push_back(task.to_owned());
        }
        while t.1.len() > KEEP_RESULTS {
            let Some(old) = t.1.pop_front() else { break };
            t.0.remove(&old);
        }
        Ok(())
    }

    /// Records `task`'s result, if `owner` runs it.
    pub(crate) fn finish_task(&self, task: &str, owner: &str, result: Value) {
        if let Some(r) = lock(&self.tasks).0.get_mut(task)
            && r.owner == owner
        {
            r.state = TaskState::Done(result);
        }
    }

    pub(crate) fn task(&self, task: &str) -> Option<TaskState> {
        lock(&self.tasks).0.get(task).map(|r| r.state.clone())
    }
}

/// One counted connection; uncounted when dropped.
pub(crate) struct ConnectionSlot(Arc<Hub>);

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::SeqCst);
    }
}
