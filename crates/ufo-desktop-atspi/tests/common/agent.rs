//! Driving an application the way the AppAgent does: observe through
//! `get_app_window_controls_target_info` (which follows the application's
//! dialogs), pick controls by type and name, act through the tool catalog.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(dead_code, unreachable_pub)]

use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use ufo_core::{ActionResult, Command, Control, ControlType, WindowInfo};
use ufo_desktop::Backend;
use ufo_desktop::names::names_match;
use ufo_desktop::tools::{ToolContext, execute};
use ufo_desktop_atspi::{AtspiBackend, DesktopTarget, HeadlessDesktop};

/// Tests in this binary run one at a time: each starts heavy applications.
pub static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A backend on desktop `d`.
pub async fn backend(d: &HeadlessDesktop) -> AtspiBackend {
    AtspiBackend::connect(&DesktopTarget::from_private(d))
        .await
        .unwrap()
}

/// Waits (up to 60 s) until `app` shows a window whose title contains
/// `title`, and returns it.
pub async fn window_titled(b: &AtspiBackend, app: &str, title: &str) -> WindowInfo {
    let mut seen = Vec::new();
    for _ in 0..600 {
        seen = b.list_windows().await.unwrap_or_default();
        if let Some(w) = seen
            .iter()
            .find(|w| w.app_name.eq_ignore_ascii_case(app) && w.title.contains(title))
        {
            return w.clone();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "no window of {app} titled {title:?}; windows: {:?}",
        seen.iter()
            .map(|w| (&w.app_name, &w.title))
            .collect::<Vec<_>>()
    )
}

/// A tool context on `window`, as after `select_application_window`.
pub fn context(window: WindowInfo) -> ToolContext {
    let mut ctx = ToolContext::for_window(window.clone(), Vec::new());
    ctx.app_window = Some(window);
    ctx
}

/// Runs one tool.
pub async fn run(b: &AtspiBackend, ctx: &mut ToolContext, tool: &str, args: Value) -> ActionResult {
    execute(b, ctx, &Command::action(tool, args)).await
}

/// Runs one tool and asserts it succeeded.
pub async fn ok(b: &AtspiBackend, ctx: &mut ToolContext, tool: &str, args: Value) -> Value {
    let r = run(b, ctx, tool, args).await;
    assert!(r.is_success(), "{tool} failed: {r:?}");
    r.result
}

/// Observes as the AppAgent does; returns the result (window, controls,
/// truncated).
pub async fn look(b: &AtspiBackend, ctx: &mut ToolContext) -> Value {
    ok(b, ctx, "get_app_window_controls_target_info", json!({})).await
}

/// The control of type `t` named `name` (leniently); `None` when absent.
pub fn control(ctx: &ToolContext, t: ControlType, name: &str) -> Option<Control> {
    ctx.controls
        .iter()
        .find(|c| c.control_type == t && names_match(name, &c.name))
        .cloned()
}

/// Observes until a control of type `t` named `name` is listed (up to 30 s).
pub async fn wait_for(
    b: &AtspiBackend,
    ctx: &mut ToolContext,
    t: ControlType,
    name: &str,
) -> Control {
    for _ in 0..150 {
        look(b, ctx).await;
        if let Some(c) = control(ctx, t.clone(), name) {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!(
        "no {t} {name:?} in window {:?}; controls: {}",
        ctx.window.as_ref().map(|w| &w.title),
        listing(ctx)
    )
}

/// Observes until the current window's title contains `title` (up to 30 s).
pub async fn wait_window(b: &AtspiBackend, ctx: &mut ToolContext, title: &str) -> WindowInfo {
    for _ in 0..150 {
        look(b, ctx).await;
        if let Some(w) = &ctx.window
            && w.title.contains(title)
        {
            return w.clone();
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!(
        "the agent's window never became {title:?}; it is {:?}",
        ctx.window.as_ref().map(|w| &w.title)
    )
}

/// `{id, name}` of a control plus `extra`.
pub fn on(c: &Control, extra: Value) -> Value {
    let mut v = json!({"id": c.id.to_string(), "name": c.name});
    if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        o.extend(e.clone());
    }
    v
}

/// The controls as `(id, type, name, value)`, for failure messages.
pub fn listing(ctx: &ToolContext) -> String {
    format!(
        "{:?}",
        ctx.controls
            .iter()
            .map(|c| (c.id, c.control_type.as_str(), &c.name, &c.value))
            .collect::<Vec<_>>()
    )
}

/// Waits (up to 20 s) until `path` exists and is not empty.
pub async fn wait_file(path: &Path) -> Vec<u8> {
    for _ in 0..200 {
        if let Ok(b) = std::fs::read(path)
            && !b.is_empty()
        {
            // Writers may still be flushing: read once more after a pause.
            tokio::time::sleep(Duration::from_millis(300)).await;
            return std::fs::read(path).unwrap_or(b);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{} was never written", path.display())
}

/// Resident memory of a process in KiB (`VmRSS`).
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

/// The pid of the running process whose command name is `comm` and which
/// belongs to desktop `d`.
pub fn pid_of(d: &HeadlessDesktop, comm: &str) -> u32 {
    d.processes()
        .into_iter()
        .find(|p| {
            std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == comm)
        })
        .unwrap_or_else(|| panic!("no {comm} process on the desktop"))
}

/// The first editable text control (an editor's text area).
pub fn editable(ctx: &ToolContext) -> Control {
    ctx.controls
        .iter()
        .find(|c| c.control_type == ControlType::Edit && c.capabilities.editable_text)
        .cloned()
        .unwrap_or_else(|| panic!("no editable text: {}", listing(ctx)))
}

/// In the save dialog the agent follows to (title containing `title`): puts
/// `path` into the field labelled `field` (verified), presses Save and waits
/// for the file. Returns the dialog as the agent saw it and the file's bytes.
pub async fn save_in_dialog(
    b: &AtspiBackend,
    ctx: &mut ToolContext,
    title: &str,
    field: &str,
    path: &Path,
) -> (WindowInfo, Vec<u8>) {
    let dialog = wait_window(b, ctx, title).await;
    assert!(dialog.dialog, "not a dialog: {dialog:?}");
    let name = wait_for(b, ctx, ControlType::Edit, field).await;
    let r = ok(
        b,
        ctx,
        "set_edit_text",
        on(
            &name,
            json!({"text": path.display().to_string(), "clear_current_text": true}),
        ),
    )
    .await;
    assert_eq!(r["verified"], json!(true), "{r}");
    let save = control(ctx, ControlType::Button, "Save")
        .unwrap_or_else(|| panic!("no Save button: {}", listing(ctx)));
    let r = ok(b, ctx, "click_input", on(&save, json!({}))).await;
    // A Save that closes its dialog opened nothing (it said "it opened a
    // window" of the window it went back to).
    assert!(r.get("opened").is_none(), "{r}");
    (dialog, wait_file(path).await)
}

/// Keys to the application's window, without focusing a control first.
pub async fn press(b: &AtspiBackend, ctx: &mut ToolContext, keys: &str) {
    ok(
        b,
        ctx,
        "keyboard_input",
        json!({"keys": keys, "control_focus": false}),
    )
    .await;
}

/// Starts Firefox on `url` with a fresh profile in `profile` (its own
/// instance: it never hands the URL to another desktop's Firefox).
pub async fn launch_firefox(d: &HeadlessDesktop, url: &str, profile: &Path) {
    std::fs::create_dir_all(profile).unwrap();
    std::fs::write(
        profile.join("user.js"),
        ufo_testkit::apps::fixture("ffprofile/user.js"),
    )
    .unwrap();
    let profile_arg = profile.display().to_string();
    ufo_testkit::launch(
        d,
        &[
            "firefox-esr",
            "--new-instance",
            "--no-remote",
            "--profile",
            &profile_arg,
            url,
        ],
    )
    .await;
}
