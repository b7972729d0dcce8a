//! Constellation clients: Galaxy's orchestrator (UFO's
//! `ConstellationClient`) connects once per device it uses, as
//! `<task name>@<device id>`, and sends that device sub-tasks.
//!
//! As UFO's server does:
//! - REGISTER with `client_type: constellation` names its `target_id`,
//!   which must be a connected device ("Target device '…' is not
//!   connected"); the id is pinned to the connection;
//! - a TASK needs `target_id` (a connected device); its `task_name` is made
//!   safe (characters other than `[A-Za-z0-9._-]` become `_`, leading dots
//!   go: `galaxy/TN/t1` runs as `galaxy_TN_t1`); the session runs on the
//!   target device (its commands go to that device's connection) and is
//!   acknowledged at once with HEARTBEAT ok carrying the session id;
//! - at the end, TASK_END (status, result, error, the constellation's
//!   `session_id`) goes to the constellation and to the device;
//! - DEVICE_INFO_REQUEST is answered with DEVICE_INFO_RESPONSE for the
//!   registered target only, its `result` what the device sent at REGISTER
//!   (`system_info`, else its metadata).
//!
//! A constellation that disconnects has its running sessions cancelled, as
//! UFO's server does; the device gets a TASK_END `failed` saying so.
//!
//! Safer than UFO's: a constellation shows the server's shared key (the
//! key of the REST routes, which can dispatch too); a device's own key
//! registers only that device. A device runs one task at a time: a second
//! TASK for a busy device gets an ERROR (UFO's client queues per device and
//! never sends one).

use super::{Credential, accept_task, run_task};
use crate::hub::{Device, Hub};
use serde_json::{Value, json};
use std::sync::Arc;
use ufo_aip::messages::{
    ClientMessage, ClientMessageType, ServerMessage, ServerMessageType, TaskStatus,
    is_safe_task_name, log_text, new_id,
};

/// Why a connection that showed `credential` may not register as the
/// constellation `id` aimed at `target`; `None` when it may.
pub(crate) fn refuse(
    hub: &Hub,
    credential: &Credential,
    id: &str,
    target: Option<&str>,
) -> Option<String> {
    if !matches!(credential, Credential::Shared) {
        return Some(
            "a device's own key registers only that device; a constellation client connects with the server's shared key"
                .into(),
        );
    }
    let well_formed = id
        .split_once('@')
        .is_some_and(|(task, device)| is_safe_task_name(task) && is_safe_task_name(device));
    if !well_formed {
        return Some(
            "a constellation client_id is <task name>@<device id>, each 1-128 characters of [A-Za-z0-9._-]"
                .into(),
        );
    }
    match target {
        Some(t) if hub.device(t).is_none() => Some(format!("Target device '{t}' is not connected")),
        _ => None,
    }
}

/// One parsed frame from the constellation `me`, registered for `target`.
pub(crate) fn handle(hub: &Arc<Hub>, me: &Arc<Device>, target: Option<&str>, m: ClientMessage) {
    if m.client_id.as_deref().is_some_and(|id| id != me.id) {
        me.send(&ServerMessage::error(
            "client_id does not match the registered connection",
        ));
        return;
    }
    match m.kind {
        ClientMessageType::Heartbeat => {
            me.send(&ServerMessage::new(
                ServerMessageType::Heartbeat,
                TaskStatus::Ok,
            ));
        }
        ClientMessageType::Task => start(hub, me, m),
        ClientMessageType::DeviceInfoRequest => device_info(hub, me, target, &m),
        ClientMessageType::Register => {
            me.send(&ServerMessage::error(format!(
                "already registered as {:?}",
                me.id
            )));
        }
        ClientMessageType::CommandResults => {
            me.send(&ServerMessage::error(
                "a constellation client runs no commands; COMMAND_RESULTS come from devices",
            ));
        }
        ClientMessageType::Error => {
            tracing::warn!(client_id = %me.id, "constellation reports: {}", log_text(&m.error.unwrap_or_default()));
        }
        ClientMessageType::TaskEnd | ClientMessageType::DeviceInfoResponse => {}
    }
}

/// UFO's task name made safe: other characters become `_`, leading dots
/// go, at most 128 characters; a new id when nothing is left.
fn safe_task_name(name: Option<&str>) -> String {
    let cleaned: String = name
        .unwrap_or_default()
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                true => c,
                false => '_',
            },
        )
        .collect();
    let cleaned: String = cleaned.trim_start_matches('.').chars().take(128).collect();
    match cleaned.is_empty() {
        true => new_id(),
        false => cleaned,
    }
}

/// A TASK for a device: checks, the acknowledgement, then the session on
/// the device in the background.
fn start(hub: &Arc<Hub>, me: &Arc<Device>, mut m: ClientMessage) {
    // A refusal names the task and session as sent, for the client to
    // fail the sub-task that waits.
    let (task_name, session_id) = (m.task_name.clone(), m.session_id.clone());
    let refuse = |why: String| {
        let mut e = ServerMessage::error(why);
        e.task_name = task_name.clone();
        e.session_id = session_id.clone();
        me.send(&e);
    };
    let Some(target) = m.target_id.clone().filter(|t| !t.is_empty()) else {
        return refuse("Constellation task requests require target_id".into());
    };
    let Some(device) = hub.device(&target) else {
        return refuse(format!("Target device '{target}' is not connected"));
    };
    m.task_name = Some(safe_task_name(m.task_name.as_deref()));
    let mut accepted = match accept_task(hub, &device, &m) {
        Ok(a) => a,
        Err(why) => return refuse(why),
    };
    accepted.watcher = Some(me.clone());
    let mut ack = ServerMessage::new(ServerMessageType::Heartbeat, TaskStatus::Ok);
    ack.session_id = Some(accepted.session_id.clone());
    ack.task_name = m.task_name.clone();
    me.send(&ack);
    tracing::info!(client_id = %me.id, device = %device.id, "constellation task accepted");
    tokio::spawn(run_task(hub.clone(), device, accepted));
}

/// DEVICE_INFO_REQUEST: the registered target's information.
fn device_info(hub: &Hub, me: &Device, target: Option<&str>, m: &ClientMessage) {
    let asked = m.target_id.as_deref().filter(|t| !t.is_empty()).or(target);
    let reply = match (asked, target) {
        (Some(a), Some(t)) if a != t => {
            Err("Not authorized to request device info for this device")
        }
        (None, _) => Err("DEVICE_INFO_REQUEST needs target_id (or a target at REGISTER)"),
        (Some(a), _) => Ok(hub.device(a).and_then(|d| system_info(&d)).unwrap_or_else(
            || json!({"error": format!("Device {a} not found or no system info available")}),
        )),
    };
    let mut out = match reply {
        Ok(result) => {
            let mut r = ServerMessage::new(ServerMessageType::DeviceInfoResponse, TaskStatus::Ok);
            r.result = Some(result);
            r
        }
        Err(why) => ServerMessage::error(why),
    };
    out.response_id = m.request_id.clone();
    me.send(&out);
}

/// What a device told of itself at REGISTER: its `system_info`, else its
/// metadata; `None` when it told nothing.
fn system_info(d: &Device) -> Option<Value> {
    match d.metadata.get("system_info") {
        Some(info) => Some(info.clone()),
        None if d.metadata.is_empty() => None,
        None => Some(Value::Object(d.metadata.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::safe_task_name;

    #[test]
    fn task_names_are_made_safe_as_ufo_does() {
        assert_eq!(safe_task_name(Some("galaxy/TN/t1")), "galaxy_TN_t1");
        assert_eq!(safe_task_name(Some("..hidden")), "hidden");
        assert_eq!(safe_task_name(Some("a b@c")), "a_b_c");
        assert_eq!(safe_task_name(Some(&"x".repeat(300))).len(), 128);
        assert!(!safe_task_name(Some("...")).is_empty());
        assert!(!safe_task_name(None).is_empty());
    }
}
