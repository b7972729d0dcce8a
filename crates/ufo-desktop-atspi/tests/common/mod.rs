//! Helpers shared by the real-application tests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(dead_code, unreachable_pub)]

use serde_json::{Value, json};
use std::time::Duration;
use ufo_core::{ActionResult, Command, Control, ControlType, WindowInfo};
use ufo_desktop::tools::{ToolContext, execute};
use ufo_desktop::{Backend, TreeBudget, filter};
use ufo_desktop_atspi::{AtspiBackend, HeadlessDesktop};

/// A fresh desktop with `app` running, and a backend connected to it.
pub async fn desktop_with(app: &str) -> (HeadlessDesktop, AtspiBackend) {
    trace_to_stderr();
    ufo_testkit::desktop_with_apps(app, &[app]).await
}

/// Sends the backend's logs to standard error as `UFO_LOG` says (e.g.
/// `UFO_LOG=ufo_desktop_atspi::backend::live=trace`), when it is set.
pub fn trace_to_stderr() {
    if let Ok(filter) = std::env::var("UFO_LOG") {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(std::io::stderr)
            .with_test_writer()
            .try_init();
    }
}

/// The app's main (largest) window.
pub async fn main_window(b: &AtspiBackend, app: &str) -> WindowInfo {
    let windows = b.list_windows().await.unwrap();
    windows
        .into_iter()
        .filter(|w| w.app_name == app)
        .max_by_key(|w| w.rect.map_or(0, |r| r.area()))
        .unwrap_or_else(|| panic!("no window of {app}"))
}

/// Observes a window as an agent would: tree → labelled controls.
pub async fn observe(b: &AtspiBackend, w: &WindowInfo) -> ToolContext {
    let tree = b.capture_tree(w, &TreeBudget::default()).await.unwrap();
    let controls = filter::label_controls(&tree, &filter::FilterConfig::default(), None);
    ToolContext::for_window(tree.window.clone(), controls)
}

/// The first control matching `pred`; panics listing the controls otherwise.
pub fn find<'a>(ctx: &'a ToolContext, pred: impl Fn(&Control) -> bool, what: &str) -> &'a Control {
    ctx.controls.iter().find(|c| pred(c)).unwrap_or_else(|| {
        panic!(
            "no control {what} among {:?}",
            ctx.controls
                .iter()
                .map(|c| (c.id, c.control_type.as_str(), &c.name))
                .collect::<Vec<_>>()
        )
    })
}

/// The first editable text control (the document of a text editor).
pub fn editor(ctx: &ToolContext) -> Control {
    find(
        ctx,
        |c| {
            c.capabilities.editable_text
                && matches!(c.control_type, ControlType::Edit | ControlType::Document)
        },
        "editable text",
    )
    .clone()
}

/// Runs one tool of the catalog.
pub async fn act(b: &AtspiBackend, ctx: &mut ToolContext, tool: &str, args: Value) -> ActionResult {
    execute(b, ctx, &Command::action(tool, args)).await
}

/// `{id, name}` of a control, plus `extra` arguments.
pub fn args(c: &Control, extra: Value) -> Value {
    let mut v = json!({"id": c.id.to_string(), "name": c.name});
    if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        o.extend(e.clone());
    }
    v
}

/// Polls `read` until it returns `want` (toolkits apply some actions
/// asynchronously); returns the last value read.
pub async fn eventually<F, Fut>(want: &str, mut read: F) -> String
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = String>,
{
    let mut last = String::new();
    for _ in 0..200 {
        last = read().await;
        if last == want {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    last
}

/// Re-reads a control's states.
pub async fn states(b: &AtspiBackend, c: &Control) -> ufo_core::States {
    b.refresh_node(&c.handle, 100).await.unwrap().states
}
/// Runs a Python snippet with Debian's python3 (which has pyatspi and Gio)
/// against `d`'s buses; its stdout.
pub fn python(d: &HeadlessDesktop, code: &str) -> String {
    let out = std::process::Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(code)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .envs(ufo_testkit::desktop_env(d))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "python3 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Runs a pyatspi snippet against `d`'s buses; its stdout.
pub fn pyatspi(d: &HeadlessDesktop, code: &str) -> String {
    python(d, &format!("import pyatspi\n{code}"))
}

pub mod agent;
