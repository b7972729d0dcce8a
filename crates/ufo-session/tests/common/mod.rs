//! Shared test helpers: a session over a real desktop and a scripted model.
#![allow(
    dead_code,
    unused_imports,
    clippy::too_many_arguments,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
pub(crate) use ufo_agent::step::Phase;
pub(crate) use ufo_agent::{AgentKind, PromptSet, StepRecord};
pub(crate) use ufo_core::{ActionStatus, StepStatus};
use ufo_desktop::{Backend, TreeBudget};
use ufo_desktop_atspi::{AtspiBackend, HeadlessDesktop};
use ufo_session::ScriptedIo;
use ufo_session::config::UfoConfig;
use ufo_session::dispatcher::local_dispatcher;
use ufo_session::{Mode, RunOptions, Services, SessionReport};

pub(crate) struct Rig {
    pub(crate) desktop: HeadlessDesktop,
    pub(crate) backend: Arc<AtspiBackend>,
    pub(crate) logs: tempfile::TempDir,
}

pub(crate) async fn rig(label: &str, apps: &[&str]) -> Rig {
    let (desktop, backend) = ufo_testkit::desktop_with_apps(label, apps).await;
    Rig {
        desktop,
        backend: Arc::new(backend),
        logs: tempfile::tempdir().unwrap(),
    }
}

pub(crate) fn config(yaml: &str) -> UfoConfig {
    UfoConfig::parse(yaml, Path::new("."), &|_| None).unwrap()
}

/// A normal-mode session: the scripted `model` with `extra` config lines,
/// the user's `answers` in order, `request`, on `app` (single-tier) or
/// through the HostAgent. Returns the reports and the user's side.
pub(crate) async fn normal(
    rig: &Rig,
    model: &ufo_testkit::scripted::ScriptedModel,
    extra: &str,
    answers: &[&str],
    request: &str,
    app: Option<&str>,
    task: &str,
) -> (Vec<SessionReport>, Arc<ScriptedIo>) {
    let io = Arc::new(ScriptedIo::new(answers.iter().copied()));
    let cfg = base_config(model, extra);
    let reports = run(
        rig,
        cfg,
        io.clone(),
        Mode::Normal,
        Some(request),
        None,
        app,
        task,
    )
    .await;
    (reports, io)
}

pub(crate) async fn run(
    rig: &Rig,
    cfg: UfoConfig,
    io: Arc<ScriptedIo>,
    mode: Mode,
    request: Option<&str>,
    plan: Option<PathBuf>,
    app: Option<&str>,
    task: &str,
) -> Vec<SessionReport> {
    let services = Services {
        dispatcher: Arc::new(local_dispatcher(rig.backend.clone(), &cfg.system)),
        io,
        prompts: Arc::new(PromptSet::load(&cfg.prompts).unwrap()),
        log_root: rig.logs.path().to_path_buf(),
        config: cfg,
    };
    ufo_session::run(
        &services,
        &RunOptions {
            task: task.into(),
            mode,
            request: request.map(str::to_owned),
            plan,
            app: app.map(str::to_owned),
        },
    )
    .await
    .unwrap()
}

/// The calculator's display text.
pub(crate) use ufo_testkit::calculator_display;

/// Every text of `app`'s editable text nodes.
pub(crate) async fn app_texts(b: &AtspiBackend, app: &str) -> Vec<String> {
    let windows = b.list_windows().await.unwrap();
    let w = windows.iter().find(|w| w.app_name == app).unwrap();
    let tree = b.capture_tree(w, &TreeBudget::default()).await.unwrap();
    let mut out = Vec::new();
    for n in tree.nodes.iter().filter(|n| n.capabilities.editable_text) {
        if let Ok(t) = b.read_text(&n.handle).await {
            out.push(t);
        }
    }
    out
}

/// The step records of a `response.log`, each line read as the type that
/// wrote it.
pub(crate) fn steps(path: &Path) -> Vec<StepRecord> {
    ufo_agent::read_response_log(&std::fs::read_to_string(path).unwrap_or_default())
        .collect::<Result<_, _>>()
        .unwrap()
}

pub(crate) fn host_assign(
    app: &'static str,
    subtask: &'static str,
    message: &'static str,
) -> ufo_testkit::scripted::Reply {
    ufo_testkit::scripted::reply(move |r| {
        let (id, name) = r
            .window(app)
            .unwrap_or_else(|| panic!("no window of {app} in the host prompt:\n{}", r.text()));
        json!({
            "observation": format!("{app} is open"),
            "thought": format!("assign the sub-task to {app}"),
            "current_subtask": subtask,
            "message": [message],
            "plan": [],
            "status": "ASSIGN",
            "function": "select_application_window",
            "arguments": {"id": id, "name": name},
            "questions": [],
            "comment": "",
            "result": ""
        })
        .to_string()
    })
}

pub(crate) fn host_finish(result: &'static str) -> ufo_testkit::scripted::Reply {
    ufo_testkit::scripted::fixed(
        json!({"observation": "done", "thought": "all sub-tasks finished", "status": "FINISH", "result": result}).to_string(),
    )
}

pub(crate) fn click(name: &'static str, status: &'static str) -> ufo_testkit::scripted::Reply {
    ufo_testkit::scripted::reply(move |r| {
        let id = r
            .control_id(name)
            .unwrap_or_else(|| panic!("no control {name:?} in the app prompt"));
        json!({
            "observation": "the calculator",
            "thought": format!("click {name}"),
            "action": {"function": "click_input", "arguments": {"id": id, "name": name}, "status": status},
            "plan": [],
            "comment": ""
        })
        .to_string()
    })
}

pub(crate) fn app_finish(result: &'static str) -> ufo_testkit::scripted::Reply {
    ufo_testkit::scripted::fixed(
        json!({"observation": "done", "thought": "the sub-task is complete", "action": {"function": "summary", "arguments": {"text": result}, "status": "FINISH"}, "result": result}).to_string(),
    )
}

pub(crate) fn base_config(model: &ufo_testkit::scripted::ScriptedModel, extra: &str) -> UfoConfig {
    config(&format!(
        "HOST_AGENT:\n{m}APP_AGENT:\n{m}MAX_STEP: 30\nSLEEP_TIME: 0\nEVA_SESSION: false\n{extra}",
        m = model.agent_yaml()
    ))
}

pub(crate) fn app_reply(v: serde_json::Value) -> String {
    v.to_string()
}
