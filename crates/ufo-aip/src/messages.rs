//! The frames of UFO's Agent Interaction Protocol, field for field as UFO's
//! `aip/messages.py` writes them, so UFO's clients and servers and ours
//! understand each other.
//!
//! Every frame is one JSON text message. A device sends [`ClientMessage`]s,
//! the server [`ServerMessage`]s. Optional fields are left out when empty;
//! unknown fields are ignored on input (as pydantic does).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ufo_core::{ActionResult, ActionStatus, Command, ErrorReport};

/// What a device sends (`ClientMessageType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientMessageType {
    /// Asks the server to run a request on this device.
    Task,
    /// Keep-alive.
    Heartbeat,
    /// The results of a COMMAND frame.
    CommandResults,
    /// Something went wrong on the device.
    Error,
    /// The first frame of every connection.
    Register,
    /// The device acknowledges the end of a task.
    TaskEnd,
    /// Asks for a device's information.
    DeviceInfoRequest,
    /// Answers a device-information request.
    DeviceInfoResponse,
}

/// What the server sends (`ServerMessageType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerMessageType {
    /// A request for the device (from `/api/dispatch`): the device answers
    /// with its own TASK frame.
    Task,
    /// Keep-alive answer; also the registration confirmation.
    Heartbeat,
    /// The task ended (`completed` or `failed`) with its result.
    TaskEnd,
    /// Commands for the device to execute.
    Command,
    /// A frame was refused; `error` says why and what to do.
    Error,
    /// Asks for a device's information.
    DeviceInfoRequest,
    /// Answers a device-information request.
    DeviceInfoResponse,
}

/// The status field of every frame (`TaskStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The task goes on.
    Continue,
    /// The task finished.
    Completed,
    /// The task failed.
    Failed,
    /// An acknowledgement.
    Ok,
    /// A protocol-level error.
    Error,
}

/// Who is connecting (`ClientType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientType {
    /// A device that executes commands on its desktop.
    #[default]
    Device,
    /// An orchestrator of devices (UFO's Galaxy).
    Constellation,
}

/// A frame from the server (`ServerMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerMessage {
    /// The frame's kind.
    #[serde(rename = "type")]
    pub kind: ServerMessageType,
    /// Task status.
    pub status: TaskStatus,
    /// The request (TASK).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_request: Option<String>,
    /// The agent that issued the commands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_name: Option<String>,
    /// The application's process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_name: Option<String>,
    /// The application's root name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_name: Option<String>,
    /// Commands to execute (COMMAND).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<Vec<Command>>,
    /// Log lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<String>>,
    /// What went wrong (ERROR, failed TASK_END).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The session this frame belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The task's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_name: Option<String>,
    /// ISO 8601, UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// Correlates a COMMAND with the device's COMMAND_RESULTS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// The task's result (TASK_END).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

impl ServerMessage {
    /// A frame of `kind` with `status`, stamped now and with a fresh
    /// `response_id` (UFO gives every server frame one), everything else
    /// empty.
    pub fn new(kind: ServerMessageType, status: TaskStatus) -> Self {
        Self {
            kind,
            status,
            user_request: None,
            agent_name: None,
            process_name: None,
            root_name: None,
            actions: None,
            messages: None,
            error: None,
            session_id: None,
            task_name: None,
            timestamp: Some(now()),
            response_id: Some(new_id()),
            result: None,
        }
    }

    /// An ERROR frame saying `message`.
    pub fn error(message: impl Into<String>) -> Self {
        let mut m = Self::new(ServerMessageType::Error, TaskStatus::Error);
        m.error = Some(message.into());
        m
    }
}

/// A frame from a device (`ClientMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientMessage {
    /// The frame's kind.
    #[serde(rename = "type")]
    pub kind: ClientMessageType,
    /// Task status.
    pub status: TaskStatus,
    /// Device or constellation.
    #[serde(default)]
    pub client_type: ClientType,
    /// The session this frame belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The task's name (TASK).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_name: Option<String>,
    /// The sender's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// The device a TASK is for (constellations; a device may only name itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<String>,
    /// The request (TASK).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    /// Results of a COMMAND (COMMAND_RESULTS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_results: Option<Vec<WireResult>>,
    /// ISO 8601, UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// The frame's own id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The `response_id` of the COMMAND these results answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prev_response_id: Option<String>,
    /// What went wrong (ERROR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Anything else: the device's system information at REGISTER; for a
    /// TASK, ufo-rs reads `mode` (`service` or `linux_service`) and `app`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl ClientMessage {
    /// A frame of `kind` with `status` from `client_id`, stamped now.
    pub fn new(kind: ClientMessageType, status: TaskStatus, client_id: &str) -> Self {
        Self {
            kind,
            status,
            client_type: ClientType::Device,
            session_id: None,
            task_name: None,
            client_id: Some(client_id.to_owned()),
            target_id: None,
            request: None,
            action_results: None,
            timestamp: Some(now()),
            request_id: Some(new_id()),
            prev_response_id: None,
            error: None,
            metadata: None,
        }
    }

    /// A string field of `metadata`.
    pub fn meta_str(&self, key: &str) -> Option<&str> {
        self.metadata.as_ref()?.get(key)?.as_str()
    }
}

/// A command's result on the wire (UFO's `Result`): `error` is a string
/// there, so ufo-rs sends the message in `error` and the whole report (code,
/// message, help) in `error_report`, which UFO ignores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireResult {
    /// `success`, `failure`, `skipped` or `none`.
    pub status: ActionStatus,
    /// What went wrong, as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The tool's return value.
    #[serde(default)]
    pub result: Value,
    /// The tool namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The command's `call_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// ufo-rs's structured error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_report: Option<ErrorReport>,
    /// What UFO's shape of `result` has no room for (a screenshot's frame,
    /// the controls' window); see [`crate::payloads`]. UFO ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ufo_rs: Option<Value>,
}

impl From<ActionResult> for WireResult {
    fn from(r: ActionResult) -> Self {
        Self {
            status: r.status,
            error: r.error.as_ref().map(|e| e.message.clone()),
            result: r.result,
            namespace: r.namespace,
            call_id: Some(r.call_id),
            error_report: r.error,
            ufo_rs: None,
        }
    }
}

impl From<WireResult> for ActionResult {
    fn from(w: WireResult) -> Self {
        let error = w.error_report.or_else(|| {
            w.error
                .map(|m| ErrorReport::new("ufo::aip::device_error", m))
        });
        let error = match (w.status, error) {
            (ActionStatus::Failure, None) => Some(ErrorReport::new(
                "ufo::aip::device_error",
                "the device reported a failure without saying why",
            )),
            (_, e) => e,
        };
        ActionResult {
            status: w.status,
            error,
            result: w.result,
            namespace: w.namespace,
            call_id: w.call_id.unwrap_or_default(),
        }
    }
}

/// A fresh random id (UUID v4), as UFO uses for every id.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The current time in ISO 8601 (RFC 3339), UTC.
pub fn now() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// Whether `name` may name a task: 1–128 characters of `[A-Za-z0-9._-]`, not
/// starting with `.` (it becomes a log folder; UFO's rule).
pub fn is_safe_task_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Longest text of a peer's a log line carries (characters).
const LOG_TEXT_MAX: usize = 2000;

/// Text that came from a device or a client, fit for one log line: control
/// characters (a newline, a carriage return, an ANSI escape) are written as
/// escapes (`\n`, `\u{1b}`), so a peer cannot forge log lines or colour a
/// terminal, and the text is cut at 2,000 characters.
pub fn log_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(LOG_TEXT_MAX));
    for (i, c) in s.chars().enumerate() {
        if i == LOG_TEXT_MAX {
            out.push('…');
            break;
        }
        match c {
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn peer_text_cannot_forge_log_lines() {
        let forged =
            "boom\n2026-01-01T00:00:00Z  INFO ufo_aip: device registered client_id=admin\r\x1b[2K";
        let t = log_text(forged);
        assert!(!t.chars().any(char::is_control), "{t}");
        assert!(t.starts_with("boom\\n2026"), "{t}");
        assert!(t.contains("\\u{1b}[2K"), "{t}");
        assert_eq!(log_text("plain words: ok"), "plain words: ok");
        assert_eq!(log_text(&"x".repeat(5000)).chars().count(), 2001);
    }

    #[test]
    fn reads_ufo_frames() {
        // As UFO's RegistrationProtocol and TaskExecutionProtocol write them.
        let reg: ClientMessage = serde_json::from_value(json!({
            "type": "register", "status": "ok", "client_type": "device",
            "client_id": "dev1", "metadata": {"platform": "linux"},
            "timestamp": "2026-01-01T00:00:00+00:00", "session_id": null
        }))
        .unwrap();
        assert_eq!(reg.kind, ClientMessageType::Register);
        assert_eq!(reg.meta_str("platform"), Some("linux"));
        let res: ClientMessage = serde_json::from_value(json!({
            "type": "command_results", "status": "continue", "client_id": "dev1",
            "prev_response_id": "r1", "session_id": "s1",
            "action_results": [
                {"status": "success", "result": {"x": 1}, "call_id": "c1", "namespace": null, "error": null},
                {"status": "failure", "error": "no such control", "call_id": "c2"}
            ]
        }))
        .unwrap();
        let results: Vec<ActionResult> = res
            .action_results
            .unwrap()
            .into_iter()
            .map(Into::into)
            .collect();
        assert!(results[0].is_success());
        assert_eq!(
            results[1].error.as_ref().unwrap().message,
            "no such control"
        );
        assert_eq!(results[1].call_id, "c2");
    }

    #[test]
    fn writes_ufo_frames() {
        let mut m = ServerMessage::new(ServerMessageType::Command, TaskStatus::Continue);
        m.actions = Some(vec![Command::action("click_input", json!({"id": "3"}))]);
        m.response_id = Some("r1".into());
        let v = serde_json::to_value(&m).unwrap();
        assert_eq!(v["type"], "command");
        assert_eq!(v["status"], "continue");
        assert_eq!(v["actions"][0]["tool_type"], "action");
        assert!(v.get("error").is_none());
        let r: WireResult =
            ActionResult::failure(ErrorReport::new("ufo::x", "nope").with_help("try again")).into();
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["error"], "nope");
        assert_eq!(v["error_report"]["help"], "try again");
        let back: ActionResult = serde_json::from_value::<WireResult>(v).unwrap().into();
        assert_eq!(back.error.unwrap().code, "ufo::x");
    }

    #[test]
    fn task_names() {
        assert!(is_safe_task_name("t1.run-2_b"));
        for bad in ["", "../x", ".hidden", "a/b", "a b", "é"] {
            assert!(!is_safe_task_name(bad), "{bad:?}");
        }
    }
}
