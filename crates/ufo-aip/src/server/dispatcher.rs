//! The WebSocket command dispatcher (UFO's `WebSocketCommandDispatcher`):
//! the agents' [`Command`]s go to the device in a COMMAND frame and its
//! COMMAND_RESULTS come back as [`ActionResult`]s, matched by
//! `response_id` / `prev_response_id`.

use super::hub::Device;
use crate::error::AipError;
use crate::messages::{ServerMessage, ServerMessageType, TaskStatus, new_id};
use async_trait::async_trait;
use std::sync::Arc;
use std::time::Duration;
use ufo_agent::CommandDispatcher;
use ufo_core::{ActionResult, Command, Diagnostic};

/// Sends commands to one device for one session.
pub struct WsDispatcher {
    device: Arc<Device>,
    session_id: String,
    task_name: String,
    timeout: Duration,
}

impl WsDispatcher {
    pub(crate) fn new(
        device: Arc<Device>,
        session_id: &str,
        task_name: &str,
        timeout: Duration,
    ) -> Self {
        Self {
            device,
            session_id: session_id.to_owned(),
            task_name: task_name.to_owned(),
            timeout,
        }
    }

    /// One result per command: the first carries `error`, the rest are
    /// skipped (the dispatcher contract's early exit).
    fn all_failed(&self, commands: &[Command], error: AipError) -> Vec<ActionResult> {
        let report = error.report();
        commands
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let r = match i {
                    0 => ActionResult::failure(report.clone()),
                    _ => ActionResult::skipped(format!("skipped: {}", report.message)),
                };
                r.with_call_id(c.call_id.clone())
            })
            .collect()
    }
}

/// The device's results in the commands' order, by `call_id` (or by
/// position when the device sent none). A command without a result fails.
fn align(commands: &[Command], results: Vec<ActionResult>) -> Vec<ActionResult> {
    let mut slots: Vec<Option<ActionResult>> = results.into_iter().map(Some).collect();
    commands
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let at = slots
                .iter()
                .position(|r| r.as_ref().is_some_and(|r| r.call_id == c.call_id))
                .or_else(|| {
                    slots
                        .get(i)
                        .and_then(Option::as_ref)
                        .filter(|r| r.call_id.is_empty())
                        .map(|_| i)
                });
            match at.and_then(|j| slots[j].take()) {
                Some(r) => r.with_call_id(c.call_id.clone()),
                None => ActionResult::failure(ufo_core::ErrorReport::new(
                    "ufo::aip::missing_result",
                    format!("the device returned no result for {}", c.tool_name),
                ))
                .with_call_id(c.call_id.clone()),
            }
        })
        .collect()
}

#[async_trait]
impl CommandDispatcher for WsDispatcher {
    async fn execute(&self, mut commands: Vec<Command>) -> Vec<ActionResult> {
        if commands.is_empty() {
            return Vec::new();
        }
        for c in &mut commands {
            if c.call_id.is_empty() {
                c.call_id = new_id();
            }
        }
        let tool = commands[0].tool_name.clone();
        let gone = || AipError::DeviceGone {
            client_id: self.device.id.clone(),
            tool: tool.clone(),
        };
        if self.device.is_closed() {
            return self.all_failed(&commands, gone());
        }
        let response_id = new_id();
        let rx = self.device.expect(&response_id);
        let mut msg = ServerMessage::new(ServerMessageType::Command, TaskStatus::Continue);
        msg.actions = Some(commands.clone());
        msg.session_id = Some(self.session_id.clone());
        msg.task_name = Some(self.task_name.clone());
        msg.response_id = Some(response_id.clone());
        if !self.device.send(&msg) {
            self.device.forget(&response_id);
            return self.all_failed(&commands, gone());
        }
        match tokio::time::timeout(self.timeout, rx).await {
            Ok(Ok(results)) => align(&commands, results),
            Ok(Err(_)) => self.all_failed(&commands, gone()),
            Err(_) => {
                self.device.forget(&response_id);
                self.all_failed(
                    &commands,
                    AipError::CommandTimeout {
                        client_id: self.device.id.clone(),
                        tool,
                        seconds: self.timeout.as_secs_f64(),
                    },
                )
            }
        }
    }

    fn describe(&self) -> String {
        format!("ws://{}", self.device.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn aligns_by_call_id_then_position() {
        let mut a = Command::action("click_input", json!({}));
        a.call_id = "a".into();
        let mut b = Command::action("wait", json!({}));
        b.call_id = "b".into();
        let got = align(
            &[a.clone(), b.clone()],
            vec![
                ActionResult::success(json!(2)).with_call_id("b"),
                ActionResult::success(json!(1)).with_call_id("a"),
            ],
        );
        assert_eq!(got[0].result, json!(1));
        assert_eq!(got[1].result, json!(2));
        let got = align(&[a.clone(), b], vec![ActionResult::success(json!(1))]);
        assert_eq!(got[0].call_id, "a");
        assert!(got[0].is_success());
        assert_eq!(
            got[1].error.as_ref().unwrap().code,
            "ufo::aip::missing_result"
        );
    }
}
