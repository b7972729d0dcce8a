//! Tool execution over a backend. See the module docs of [`crate::tools`] for
//! the semantics.

use super::args::{relative_point, resolve_window};
use super::click::{click_input, is_row};
use super::params::{self, parse};
use super::spec::Tool;
use super::text_entry::set_edit_text;
use super::window::{
    control, controls_now, raise, screenshot_now, settle, ui_tree_now, window_rect_now,
};
use super::{ControlsInfo, ScreenshotInfo, ToolContext, WindowEntry};
use crate::backend::{Backend, ScreenshotTarget};
use crate::encode::png_data_url;
use crate::error::{DesktopError, Result};
use crate::keyparse::{key_by_name, parse_keys};
use crate::keys::KeyEvent;
use serde::Serialize;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::time::sleep;
use ufo_core::{Control, ControlLog};

/// Longest `wait`.
const MAX_WAIT_SECONDS: f64 = 300.0;
/// Longest drag.
const MAX_DRAG_SECONDS: f64 = 10.0;
/// Largest `wheel_dist`.
const MAX_WHEEL: f64 = 1000.0;

pub(super) async fn run(
    tool: Tool,
    b: &dyn Backend,
    ctx: &mut ToolContext,
    params: &Value,
) -> Result<Value> {
    let log = match acted_on(tool, ctx, params) {
        Some(c) => Some(control_log(b, &c).await),
        None => None,
    };
    let mut out = run_tool(tool, b, ctx, params).await?;
    if let (Some(log), Value::Object(m)) = (log, &mut out) {
        m.insert("control_log".into(), to_json(&log)?);
    }
    Ok(out)
}

/// The control of the last observation an action names by its `id`
/// (`click_input`, `set_edit_text`, `keyboard_input`, `wheel_mouse_input`).
fn acted_on(tool: Tool, ctx: &ToolContext, params: &Value) -> Option<Control> {
    if !matches!(
        tool,
        Tool::ClickInput | Tool::SetEditText | Tool::KeyboardInput | Tool::WheelMouseInput
    ) {
        return None;
    }
    let id = params.get("id").and_then(super::args::parse_id)?;
    ctx.controls.iter().find(|c| c.id == id).cloned()
}

/// UFO's control log of `c`, read before the action (which may close its
/// window): its class and automation id as the platform tells them (on
/// AT-SPI, which names no classes, its role); what cannot be read is null.
async fn control_log(b: &dyn Backend, c: &Control) -> ControlLog {
    let identity = b.control_identity(&c.handle).await.unwrap_or_default();
    let observed = ControlLog::observed(c);
    ControlLog {
        control_class: identity.class_name.or(observed.control_class),
        control_automation_id: identity.automation_id,
        ..observed
    }
}

async fn run_tool(
    tool: Tool,
    b: &dyn Backend,
    ctx: &mut ToolContext,
    params: &Value,
) -> Result<Value> {
    let name = tool.name();
    let bad = |detail: String| DesktopError::BadArguments {
        tool: name.to_owned(),
        detail,
    };
    match tool {
        Tool::Click
        | Tool::DoubleClick
        | Tool::Drag
        | Tool::Keypress
        | Tool::Move
        | Tool::Scroll
        | Tool::Type => super::operator::run(tool, b, ctx, params).await,
        Tool::ClickInput => click_input(b, ctx, &parse(name, params)?).await,
        Tool::ClickOnCoordinates => click_on_coordinates(b, ctx, &parse(name, params)?, bad).await,
        Tool::DragOnCoordinates => drag_on_coordinates(b, ctx, &parse(name, params)?, bad).await,
        Tool::SetEditText => set_edit_text(b, ctx, &parse(name, params)?).await,
        Tool::KeyboardInput => keyboard_input(b, ctx, &parse(name, params)?).await,
        Tool::WheelMouseInput => wheel_mouse_input(b, ctx, &parse(name, params)?, bad).await,
        Tool::Texts => texts(b, ctx, &parse(name, params)?).await,
        Tool::Wait => wait(&parse(name, params)?, bad).await,
        Tool::Summary => Ok(Value::String(parse::<params::Summary>(name, params)?.text)),
        Tool::SelectApplicationWindow => {
            select_application_window(b, ctx, &parse(name, params)?).await
        }
        Tool::RunShell => run_shell(b, ctx, &parse(name, params)?).await,
        Tool::CloseApplication => {
            close_application(
                b,
                ctx,
                &parse::<params::CloseApplication>(name, params)?.name,
            )
            .await
        }
        Tool::ExecuteCommand => execute_command(ctx, parse(name, params)?).await,
        Tool::GetSystemInfo => Ok(crate::commands::system_info(
            ctx.settings
                .commands
                .as_ref()
                .and_then(|p| p.working_dir.as_deref()),
        )),
        Tool::CaptureWindowScreenshot => capture_window_screenshot(b, ctx).await,
        Tool::GetAppWindowControlsTargetInfo => {
            let (tree, controls, _) = controls_now(b, ctx).await?;
            to_json(&ControlsInfo {
                window: tree.window,
                controls,
                truncated: tree.truncated,
            })
        }
        Tool::GetDesktopAppInfo => get_desktop_app_info(b, ctx).await,
        Tool::CaptureDesktopScreenshot => {
            let shot = b.screenshot(&ScreenshotTarget::Desktop).await?;
            to_json(&screenshot_info(&shot, ctx)?)
        }
        Tool::GetUiTree => to_json(&ui_tree_now(b, ctx).await?),
    }
}

/// The text of a control, read back.
async fn texts(b: &dyn Backend, ctx: &ToolContext, a: &params::Texts) -> Result<Value> {
    let c = control(ctx, a.id, a.name.as_deref())?;
    Ok(Value::String(b.read_text(&c.handle).await?))
}

/// Waits `seconds` (at most [`MAX_WAIT_SECONDS`]).
async fn wait(a: &params::Wait, bad: impl Fn(String) -> DesktopError) -> Result<Value> {
    let s = a.seconds;
    if !(0.0..=MAX_WAIT_SECONDS).contains(&s) {
        return Err(bad(format!(
            "`seconds` is {s}; it must be between 0 and 300"
        )));
    }
    sleep(Duration::from_secs_f64(s)).await;
    Ok(json!({ "waited": s }))
}

/// Runs one allowed command of the command-line agent, when it is enabled.
async fn execute_command(ctx: &ToolContext, a: params::ExecuteCommand) -> Result<Value> {
    let command = a.command;
    let Some(policy) = &ctx.settings.commands else {
        return Err(DesktopError::CommandNotAllowed {
            command: command.chars().take(200).collect(),
            reason:
                "the command-line agent is not enabled on this device (ENABLED_THIRD_PARTY_AGENTS)"
                    .into(),
        });
    };
    let out = policy.run(&command, a.timeout, a.cwd.as_deref()).await?;
    Ok(serde_json::to_value(out).unwrap_or_default())
}

/// A screenshot of the current window, kept in the context for the next
/// annotated screenshot.
async fn capture_window_screenshot(b: &dyn Backend, ctx: &mut ToolContext) -> Result<Value> {
    let shot = screenshot_now(b, ctx).await?;
    let info = screenshot_info(&shot, ctx)?;
    ctx.last_screenshot = Some(shot);
    to_json(&info)
}

/// A screenshot as the tools return it: a PNG data URL, its frame and size.
fn screenshot_info(shot: &crate::Screenshot, ctx: &ToolContext) -> Result<ScreenshotInfo> {
    Ok(ScreenshotInfo {
        image_url: png_data_url(&shot.image, ctx.settings.png)?,
        frame: shot.frame,
        width: shot.image.width(),
        height: shot.image.height(),
    })
}

/// The desktop's windows, numbered from 1 (kept in the context for
/// `select_application_window`).
async fn get_desktop_app_info(b: &dyn Backend, ctx: &mut ToolContext) -> Result<Value> {
    let ws = b.list_windows().await?;
    let entries: Vec<WindowEntry> = ws
        .iter()
        .enumerate()
        .map(|(i, w)| WindowEntry {
            id: (i + 1).to_string(),
            name: w.title.clone(),
            control_type: "Window".into(),
            app_name: w.app_name.clone(),
            window: w.clone(),
        })
        .collect();
    ctx.windows = ws;
    to_json(&entries)
}

fn to_json<T: Serialize>(v: &T) -> Result<Value> {
    serde_json::to_value(v).map_err(|e| DesktopError::backend_by("cannot serialise the result", e))
}

async fn click_on_coordinates(
    b: &dyn Backend,
    ctx: &mut ToolContext,
    a: &params::ClickOnCoordinates,
    bad: impl Fn(String) -> DesktopError,
) -> Result<Value> {
    let p = relative_point(&window_rect_now(b, ctx).await?, a.x, a.y).map_err(bad)?;
    let mark = b.event_mark();
    raise(b, ctx).await;
    b.click_at(p, a.button, a.double).await?;
    settle(b, ctx, mark).await;
    Ok(json!({ "point": { "x": p.x, "y": p.y } }))
}

async fn drag_on_coordinates(
    b: &dyn Backend,
    ctx: &mut ToolContext,
    a: &params::DragOnCoordinates,
    bad: impl Fn(String) -> DesktopError,
) -> Result<Value> {
    let rect = window_rect_now(b, ctx).await?;
    let from = relative_point(&rect, a.start_x, a.start_y).map_err(&bad)?;
    let to = relative_point(&rect, a.end_x, a.end_y).map_err(&bad)?;
    let (button, duration) = (a.button, a.duration);
    if !(0.0..=MAX_DRAG_SECONDS).contains(&duration) {
        return Err(bad(format!(
            "`duration` is {duration}; it must be between 0 and 10 seconds"
        )));
    }
    let hold = match a.key_hold.as_deref().filter(|k| !k.trim().is_empty()) {
        None => None,
        Some(k) => Some(key_by_name(k.trim()).ok_or_else(|| {
            bad(format!(
                "`key_hold` {k:?} is not a key name; use shift, ctrl, alt or win"
            ))
        })?),
    };
    let mark = b.event_mark();
    raise(b, ctx).await;
    if let Some(k) = hold {
        b.send_keys(&[KeyEvent::Down(k)]).await?;
    }
    let dragged = b
        .drag(from, to, button, Duration::from_secs_f64(duration))
        .await;
    // Release the held key even when the drag failed.
    let released = match hold {
        Some(k) => b.send_keys(&[KeyEvent::Up(k)]).await,
        None => Ok(()),
    };
    dragged?;
    released?;
    settle(b, ctx, mark).await;
    Ok(json!({
        "from": { "x": from.x, "y": from.y },
        "to": { "x": to.x, "y": to.y },
    }))
}

async fn keyboard_input(
    b: &dyn Backend,
    ctx: &mut ToolContext,
    a: &params::KeyboardInput,
) -> Result<Value> {
    let keys = a.keys.clone();
    let events = parse_keys(&keys)?;
    let target = match (a.control_focus, a.id) {
        (true, Some(id)) => Some(control(ctx, id, a.name.as_deref())?),
        _ => None,
    };
    // Keys go to the application's window, never to whatever else has focus;
    // `control_focus` only decides whether the control is focused first.
    let mark = b.event_mark();
    raise(b, ctx).await;
    let focus = match &target {
        // A row or a text field is confirmed to hold the focus before a
        // single key, clicked into it where asking was not enough (keys
        // "typed into a cell" went to the cell editor beside DB Browser
        // for SQLite's table, which kept the focus).
        Some(c) if is_row(c) || c.capabilities.editable_text => {
            Some(super::text_entry::take_focus(b, c).await?)
        }
        // Others (a button: a click would press it) are only asked.
        Some(c) => {
            b.focus_element(&c.handle).await?;
            None
        }
        None => None,
    };
    b.send_keys(&events).await?;
    settle(b, ctx, mark).await;
    let mut result = json!({ "keys": keys, "focused": target.map(|c| c.id) });
    match focus {
        Some(super::text_entry::Focus::Held) => {
            result["effect"] = json!("confirmed");
            result["confirmed"] =
                json!("the control held the keyboard focus when the keys were sent");
        }
        Some(super::text_entry::Focus::Untold) => {
            result["effect"] = json!("unverifiable");
            result["why"] = json!(
                "its toolkit does not say which control holds the keyboard focus: the keys went to whichever does; observe to see where they landed"
            );
        }
        None => {}
    }
    Ok(result)
}

async fn wheel_mouse_input(
    b: &dyn Backend,
    ctx: &mut ToolContext,
    a: &params::WheelMouseInput,
    bad: impl Fn(String) -> DesktopError,
) -> Result<Value> {
    let c = control(ctx, a.id, a.name.as_deref())?;
    let dist = a.wheel_dist.round();
    if dist.abs() > MAX_WHEEL {
        return Err(bad(format!(
            "`wheel_dist` is {dist}; at most 1000 notches either way"
        )));
    }
    let clicks = dist as i32;
    let p = c.rect.center();
    if clicks != 0 {
        let mark = b.event_mark();
        raise(b, ctx).await;
        b.scroll_at(p, clicks).await?;
        settle(b, ctx, mark).await;
    }
    Ok(json!({ "wheel_dist": clicks, "point": { "x": p.x, "y": p.y } }))
}

async fn select_application_window(
    b: &dyn Backend,
    ctx: &mut ToolContext,
    a: &params::SelectApplicationWindow,
) -> Result<Value> {
    if ctx.windows.is_empty() {
        ctx.windows = b.list_windows().await?;
    }
    let w = resolve_window(&ctx.windows, a.id.0, a.name.as_deref())?.clone();
    b.activate_window(&w).await?;
    ctx.controls.clear();
    ctx.last_screenshot = None;
    ctx.window = Some(w.clone());
    ctx.app_window = Some(w.clone());
    Ok(json!({ "root_name": w.app_name, "window": w }))
}

/// Starts an allowlisted program (no shell).
async fn run_shell(b: &dyn Backend, ctx: &mut ToolContext, a: &params::RunShell) -> Result<Value> {
    let argv = match &ctx.settings.launch {
        Some(list) => list.parse(&a.bash_command)?,
        None => crate::launch::Allowlist::system(&[]).parse(&a.bash_command)?,
    };
    let app = b.launch_app(&argv, ctx.settings.launch_timeout).await?;
    // The window list is read again by the next select_application_window.
    ctx.windows.clear();
    Ok(json!({ "launched": app.app_name, "pid": app.pid, "command": argv }))
}

/// How long `close_application` waits for an application's windows to go.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(10);

/// Closes `app` (by its name in the window list); an application with no
/// window is closed already. The tools forget its windows.
async fn close_application(b: &dyn Backend, ctx: &mut ToolContext, app: &str) -> Result<Value> {
    let windows = b.list_windows().await?;
    let Some(w) = windows
        .iter()
        .find(|w| ufo_core::app_name_matches(app, &w.app_name))
    else {
        return Ok(json!({ "closed": app, "was_open": false }));
    };
    b.close_app(w, CLOSE_TIMEOUT).await?;
    ctx.windows.clear();
    if ctx.app_window.as_ref().is_some_and(|s| s.same_app(w)) {
        ctx.app_window = None;
        ctx.window = None;
        ctx.controls.clear();
    }
    Ok(json!({ "closed": w.app_name, "was_open": true }))
}
