//! The WebSocket command dispatcher (UFO's `WebSocketCommandDispatcher`):
//! the agents' [`Command`]s go to the device in a COMMAND frame and its
//! COMMAND_RESULTS come back as [`ActionResult`]s, matched by
//! `response_id` / `prev_response_id`.
//!
//! Every COMMAND names the agent that sends it (`agent_name`) and, for the
//! application agents, the application (`process_name`, `root_name`, from
//! the last `select_application_window`): UFO's devices choose the tool
//! servers by them and answer nothing without them. Results in UFO's
//! shapes are put back into the ones the agents read
//! ([`ufo_aip::payloads::from_ufo`]). Arguments the device's tools require
//! and the configuration supplies (`DEVICE_TOOL_ARGUMENTS`, e.g. UFO's
//! `api_key`) are added here, so no prompt or log sees them.

use crate::hub::Device;
use async_trait::async_trait;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use ufo_aip::error::AipError;
use ufo_aip::messages::{ServerMessage, ServerMessageType, TaskStatus, WireResult, new_id};
use ufo_aip::payloads::{LIST_TOOLS, from_ufo};
use ufo_core::{ActionResult, Command, Diagnostic, ToolSpec, ToolType};
use ufo_desktop::dispatch::CommandDispatcher;
use ufo_desktop::tools::{
    BASH_EXECUTOR, COMMAND_LINE_EXECUTOR, HOST_UI_EXECUTOR, Tool, UI_COLLECTOR,
};

/// UFO's agent names, as its devices' tool configuration knows them.
const HOST_AGENT: &str = "HostAgent";
const APP_AGENT: &str = "AppAgent";
const LINUX_AGENT: &str = "LinuxAgent";

/// The agent a command comes from: the one whose tool servers hold it.
fn agent_for(c: &Command) -> &'static str {
    if c.tool_name == LIST_TOOLS {
        return match c.parameters.get("namespace").and_then(Value::as_str) {
            Some(BASH_EXECUTOR) => LINUX_AGENT,
            Some(HOST_UI_EXECUTOR) => HOST_AGENT,
            _ => APP_AGENT,
        };
    }
    match c.tool_name.parse::<Tool>() {
        Ok(t) => match t.namespace() {
            BASH_EXECUTOR => LINUX_AGENT,
            HOST_UI_EXECUTOR | COMMAND_LINE_EXECUTOR => HOST_AGENT,
            UI_COLLECTOR
                if matches!(t, Tool::GetDesktopAppInfo | Tool::CaptureDesktopScreenshot) =>
            {
                HOST_AGENT
            }
            _ => APP_AGENT,
        },
        Err(_) => APP_AGENT,
    }
}

/// The application the agents work on, as the last
/// `select_application_window` named it.
#[derive(Debug, Default, Clone)]
struct Application {
    process_name: Option<String>,
    root_name: Option<String>,
    /// The window itself: UFO's devices' screenshots and control lists are
    /// read against it.
    window: Option<ufo_core::WindowInfo>,
}

/// Sends commands to one device for one session.
pub struct WsDispatcher {
    device: Arc<Device>,
    session_id: String,
    task_name: String,
    timeout: Duration,
    /// `DEVICE_TOOL_ARGUMENTS` (secrets: never logged).
    secrets: BTreeMap<String, String>,
    application: Mutex<Application>,
    /// The device's tools per agent, once asked (`list_tools`).
    tools: Mutex<HashMap<&'static str, Vec<Value>>>,
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
            secrets: BTreeMap::new(),
            application: Mutex::new(Application::default()),
            tools: Mutex::new(HashMap::new()),
        }
    }

    /// Adds these arguments to calls of device tools that require them.
    pub(crate) fn with_tool_arguments(mut self, secrets: BTreeMap<String, String>) -> Self {
        self.secrets = secrets;
        self
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

    /// The device's tools for `agent` (asked once; empty when it cannot say).
    async fn device_tools(&self, agent: &'static str) -> Vec<Value> {
        if let Some(t) = crate::hub::lock(&self.tools).get(agent) {
            return t.clone();
        }
        let namespace = match agent {
            LINUX_AGENT => Some(BASH_EXECUTOR),
            _ => None,
        };
        let mut ask = Command::action(
            LIST_TOOLS,
            json!({"tool_type": "action", "namespace": namespace}),
        );
        ask.call_id = new_id();
        let got = self.send(vec![ask]).await;
        let tools: Vec<Value> = got
            .into_iter()
            .next()
            .filter(ActionResult::is_success)
            .and_then(|r| r.result.as_array().cloned())
            .unwrap_or_default();
        crate::hub::lock(&self.tools).insert(agent, tools.clone());
        tools
    }

    /// Adds the configured arguments a device tool requires and the call
    /// lacks.
    async fn add_secrets(&self, agent: &'static str, commands: &mut [Command]) {
        if self.secrets.is_empty() || commands.iter().all(|c| c.tool_name == LIST_TOOLS) {
            return;
        }
        let tools = self.device_tools(agent).await;
        for c in commands.iter_mut() {
            let Some(tool) = tools
                .iter()
                .find(|t| t["tool_name"] == c.tool_name.as_str())
            else {
                continue;
            };
            let required = tool["input_schema"]["required"].as_array();
            for (k, v) in &self.secrets {
                let wanted = required.is_some_and(|r| r.iter().any(|x| x == k.as_str()));
                if let (true, Some(p)) = (wanted, c.parameters.as_object_mut()) {
                    p.entry(k.clone())
                        .or_insert_with(|| Value::String(v.clone()));
                }
            }
        }
    }

    /// Sends `commands` in one COMMAND frame and waits for their results.
    async fn send(&self, commands: Vec<Command>) -> Vec<ActionResult> {
        let Some(first) = commands.first() else {
            return Vec::new();
        };
        let tool = first.tool_name.clone();
        let agent = agent_for(first);
        let gone = || AipError::DeviceGone {
            client_id: self.device.id.clone(),
            tool: tool.clone(),
        };
        if self.device.is_closed() {
            return self.all_failed(&commands, gone());
        }
        let response_id = new_id();
        let rx = self.device.expect(&response_id);
        let app = crate::hub::lock(&self.application).clone();
        let mut msg = ServerMessage::new(ServerMessageType::Command, TaskStatus::Continue);
        msg.agent_name = Some(agent.to_owned());
        if agent != LINUX_AGENT {
            msg.process_name = app.process_name;
            msg.root_name = app.root_name;
        }
        msg.actions = Some(commands.clone());
        msg.session_id = Some(self.session_id.clone());
        msg.task_name = Some(self.task_name.clone());
        msg.response_id = Some(response_id.clone());
        if !self.device.send(&msg) {
            self.device.forget(&response_id);
            return self.all_failed(&commands, gone());
        }
        match tokio::time::timeout(self.timeout, rx).await {
            Ok(Ok(results)) => align(
                &commands,
                restore(&commands, results, app.window.as_ref(), &self.device),
            ),
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

    /// Remembers the application a successful `select_application_window`
    /// chose.
    fn note_selection(&self, commands: &[Command], results: &[ActionResult]) {
        for (c, r) in commands.iter().zip(results) {
            if c.tool_name != Tool::SelectApplicationWindow.name() || !r.is_success() {
                continue;
            }
            let text = |v: &Value| v.as_str().filter(|s| !s.is_empty()).map(str::to_owned);
            let process = text(&r.result["window_info"]["process_name"])
                .or_else(|| text(&r.result["window"]["app_name"]));
            *crate::hub::lock(&self.application) = Application {
                process_name: process,
                root_name: text(&r.result["root_name"]),
                window: serde_json::from_value(r.result["window"].clone()).ok(),
            };
        }
    }
}

/// The device's results in the shapes the agents read: each matched to its
/// command by `call_id` (else by position) and put back together
/// ([`from_ufo`]; UFO's own device's results are read against `selected`,
/// the window last selected). A result in neither shape fails with
/// [`AipError::BadResult`], and the device is told why in an ERROR frame
/// (a screenshot that is a link rather than inline data among them: the
/// server fetches nothing a device names).
fn restore(
    commands: &[Command],
    results: Vec<WireResult>,
    selected: Option<&ufo_core::WindowInfo>,
    device: &Device,
) -> Vec<ActionResult> {
    results
        .into_iter()
        .enumerate()
        .map(|(i, mut w)| {
            let tool = w
                .call_id
                .as_deref()
                .and_then(|id| commands.iter().find(|c| c.call_id == id))
                .or_else(|| commands.get(i))
                .map(|c| c.tool_name.as_str())
                .unwrap_or_default();
            let extra = w.ufo_rs.take();
            let failed = w.status == ufo_core::ActionStatus::Failure;
            match from_ufo(tool, std::mem::take(&mut w.result), extra, selected) {
                Ok(v) => {
                    w.result = v;
                    ActionResult::from(w)
                }
                // A failure's payload is whatever the device said; keep the failure.
                Err(_) if failed => ActionResult::from(w),
                Err(source) => {
                    let call_id = w.call_id.unwrap_or_default();
                    let error = AipError::BadResult {
                        client_id: device.id.clone(),
                        tool: tool.to_owned(),
                        source,
                    };
                    tracing::warn!(client_id = %device.id, tool, "{}", ufo_aip::messages::log_text(&error.to_string()));
                    device.send(&ServerMessage::error(format!("refused: {error}")));
                    ActionResult::failure(error.report()).with_call_id(call_id)
                }
            }
        })
        .collect()
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
        let agent = agent_for(&commands[0]);
        let sent = commands.clone();
        self.add_secrets(agent, &mut commands).await;
        let results = self.send(commands).await;
        self.note_selection(&sent, &results);
        results
    }

    fn describe(&self) -> String {
        format!("ws://{}", self.device.id)
    }

    async fn tools(&self, namespace: &str) -> Option<Vec<ToolSpec>> {
        let agent = match namespace {
            BASH_EXECUTOR => LINUX_AGENT,
            _ => return None,
        };
        let tools = self.device_tools(agent).await;
        if tools.is_empty() {
            return None;
        }
        let hidden: Vec<String> = self.secrets.keys().cloned().collect();
        let specs: Vec<ToolSpec> = tools
            .iter()
            .filter_map(|t| device_spec(t, &hidden))
            .collect();
        (!specs.is_empty()).then_some(specs)
    }
}

/// A device's tool (UFO's `MCPToolInfo`) as a spec the model is shown,
/// without the arguments the server supplies.
fn device_spec(t: &Value, hidden: &[String]) -> Option<ToolSpec> {
    let name = t["tool_name"].as_str()?;
    let mut schema = t["input_schema"].clone();
    if !schema.is_object() {
        schema = json!({"type": "object", "properties": {}});
    }
    for k in hidden {
        if let Some(p) = schema["properties"].as_object_mut() {
            p.remove(k.as_str());
        }
        if let Some(r) = schema["required"].as_array_mut() {
            r.retain(|x| x != k.as_str());
        }
    }
    // Our catalog's row for the same tool keeps its examples and flags.
    let own = name.parse::<Tool>().ok().map(|t| t.spec());
    Some(ToolSpec {
        name: name.to_owned(),
        namespace: t["namespace"].as_str().unwrap_or_default().to_owned(),
        description: t["description"].as_str().unwrap_or_default().to_owned(),
        parameters: schema,
        tool_type: match t["tool_type"].as_str() {
            Some("data_collection") => ToolType::DataCollection,
            _ => ToolType::Action,
        },
        destructive: own.as_ref().is_none_or(|s| s.destructive),
        targets_control: own.as_ref().is_some_and(|s| s.targets_control),
        examples: own.map(|s| s.examples).unwrap_or_default(),
    })
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
