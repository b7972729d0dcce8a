//! Runs a service session for a task: the same agents and session code as a
//! local run, with the device's [`WsDispatcher`](crate::WsDispatcher) and
//! nobody at a terminal.

use async_trait::async_trait;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use ufo_agent::{CommandDispatcher, PromptSet};
use ufo_aip::messages::log_text;
use ufo_core::Diagnostic;
use ufo_session::config::UfoConfig;
use ufo_session::{Mode, RunOptions, Services, SessionStatus, UserIo};

/// What a session needs besides its dispatcher: the config (models, limits),
/// the prompt templates and where logs go.
#[derive(Clone)]
pub struct SessionRunner {
    config: UfoConfig,
    prompts: Arc<PromptSet>,
    log_root: PathBuf,
}

/// The task a device asked for.
#[derive(Debug, Clone)]
pub(crate) struct TaskRequest {
    pub(crate) task_name: String,
    pub(crate) request: String,
    pub(crate) mode: Mode,
    pub(crate) app: Option<String>,
    pub(crate) client_id: String,
}

/// How a task ended: the TASK_END status and result.
#[derive(Debug, Clone)]
pub(crate) struct TaskOutcome {
    pub(crate) completed: bool,
    pub(crate) result: Value,
    pub(crate) error: Option<String>,
}

impl SessionRunner {
    /// Sessions with `config` and `prompts`, logging under `log_root`.
    pub fn new(config: UfoConfig, prompts: Arc<PromptSet>, log_root: PathBuf) -> Self {
        Self {
            config,
            prompts,
            log_root,
        }
    }

    /// `DEVICE_TOOL_ARGUMENTS`: what the dispatcher adds to device tool
    /// calls that require it.
    pub(crate) fn tool_arguments(&self) -> std::collections::BTreeMap<String, String> {
        self.config.system.device_tool_arguments.0.clone()
    }

    pub(crate) async fn run(
        &self,
        task: &TaskRequest,
        dispatcher: Arc<dyn CommandDispatcher>,
    ) -> TaskOutcome {
        let services = Services {
            config: self.config.clone(),
            dispatcher,
            io: Arc::new(ServiceIo {
                task: task.task_name.clone(),
            }),
            prompts: self.prompts.clone(),
            log_root: self.log_root.clone(),
        };
        let opts = RunOptions {
            task: task.task_name.clone(),
            mode: task.mode,
            request: Some(task.request.clone()),
            plan: None,
            app: task.app.clone(),
        };
        match ufo_session::run(&services, &opts).await {
            Ok(reports) => match reports.into_iter().next() {
                Some(r) => {
                    let error = r.error.as_ref().map(|e| e.headline());
                    TaskOutcome {
                        completed: r.status == SessionStatus::Finish,
                        // UFO's shape: one `{request, result}` per round;
                        // ufo-rs's own fields beside them.
                        result: json!([{
                            "request": task.request,
                            "status": r.status.as_str(),
                            "result": r.result,
                            "steps": r.steps,
                            "client_id": task.client_id,
                            "log_dir": r.log_dir,
                            "error": r.error,
                            "cost": r.usage.cost,
                            "tokens": r.usage.usage.total_tokens,
                        }]),
                        error,
                    }
                }
                None => failed(task, "the session produced no report".into(), None),
            },
            Err(e) => failed(task, e.report().headline(), Some(e.report())),
        }
    }
}

/// The outcome of a task that could not run or was cut short.
pub(crate) fn failed(
    task: &TaskRequest,
    message: String,
    report: Option<ufo_core::ErrorReport>,
) -> TaskOutcome {
    TaskOutcome {
        completed: false,
        result: json!([{
            "request": task.request,
            "status": SessionStatus::Error.as_str(),
            "result": "",
            "steps": 0,
            "client_id": task.client_id,
            "error": report,
        }]),
        error: Some(message),
    }
}

/// The user side of a service session: nobody can be asked, so sensitive
/// actions are declined (SAFE_GUARD holds), questions get no answer and no
/// new request follows. Lines go to the server's log.
struct ServiceIo {
    task: String,
}

#[async_trait]
impl UserIo for ServiceIo {
    async fn confirm(&self, prompt: &str) -> bool {
        tracing::warn!(task = %self.task, "declined (no user to confirm in service mode): {}", log_text(prompt));
        false
    }

    async fn ask(&self, question: &str) -> Option<String> {
        tracing::info!(task = %self.task, "unanswered (service mode): {}", log_text(question));
        None
    }

    async fn new_request(&self, _prompt: &str) -> Option<String> {
        None
    }

    fn show(&self, line: &str) {
        tracing::info!(task = %self.task, "{}", log_text(line));
    }
}
