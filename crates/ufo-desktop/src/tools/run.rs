//! Tool execution over a backend. See the module docs of [`crate::tools`] for
//! the semantics.

use super::args::{click_action, relative_point, resolve_control, resolve_window};
use super::params::{self, Label, parse};
use super::spec::Tool;
use super::text_entry::set_edit_text;
use super::{ControlsInfo, ScreenshotInfo, ToolContext, WindowEntry};
use crate::backend::{Backend, MouseButton, ScreenshotTarget};
use crate::encode::png_data_url;
use crate::error::{DesktopError, Result};
use crate::filter::label_controls;
use crate::follow::{describe, foreground};
use crate::keyparse::{key_by_name, parse_keys};
use crate::keys::KeyEvent;
use serde::Serialize;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::time::{Instant, sleep};
use ufo_core::States;
use ufo_core::{Control, ControlType, Rect, Screen, WindowInfo};

/// Longest `wait`.
const MAX_WAIT_SECONDS: f64 = 300.0;
/// Longest drag.
const MAX_DRAG_SECONDS: f64 = 10.0;
/// Largest `wheel_dist`.
const MAX_WHEEL: f64 = 1000.0;
/// Interval between read-backs while verifying text.
pub(super) const POLL: Duration = Duration::from_millis(100);

pub(super) async fn run(
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
        Tool::GetUiTree => {
            let w = window(ctx)?.clone();
            let tree = b.capture_tree(&w, &ctx.settings.budget).await?;
            to_json(&tree)
        }
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

fn window(ctx: &ToolContext) -> Result<&WindowInfo> {
    ctx.window.as_ref().ok_or(DesktopError::NoWindowSelected)
}

/// Moves `ctx.window` to the window of the selected application a person
/// would be working in now ([`foreground`]): a dialog it opened, or its main
/// window again once the dialog has closed. The controls of a window left
/// behind are dropped.
async fn follow_app(b: &dyn Backend, ctx: &mut ToolContext) -> Result<()> {
    if ctx.pin_window {
        return window(ctx).map(|_| ());
    }
    let anchor = match (&ctx.app_window, &ctx.window) {
        (Some(a), _) => a.clone(),
        (None, Some(w)) => {
            ctx.app_window = Some(w.clone());
            w.clone()
        }
        (None, None) => return Err(DesktopError::NoWindowSelected),
    };
    let windows = match b.app_windows(&anchor).await {
        Ok(ws) => ws,
        Err(e) => {
            // Observing the window we have is still the best next step.
            tracing::debug!(error = %e, "cannot list the application's windows");
            return Ok(());
        }
    };
    if let Some(next) = foreground(&windows, &anchor) {
        if ctx.window.as_ref().map(|w| &w.handle) != Some(&next.handle) {
            tracing::debug!(window = %describe(next), "following the application's window");
            ctx.controls.clear();
        }
        ctx.window = Some(next.clone());
    }
    Ok(())
}

fn window_rect(ctx: &ToolContext) -> Result<Rect<Screen>> {
    let w = window(ctx)?;
    w.rect.ok_or_else(|| DesktopError::Unsupported {
        what: "acting at window coordinates (the window reports no rectangle)".into(),
        handle: w.handle.to_string(),
    })
}

/// The control named by `id` (+ `name`), cloned so the context can be changed
/// while acting.
pub(super) fn control(ctx: &ToolContext, id: Label, name: Option<&str>) -> Result<Control> {
    resolve_control(&ctx.controls, id.0, name).cloned()
}

/// Raises the current window before synthesised input; a failure is logged,
/// not fatal (the input may still land).
pub(super) async fn raise(b: &dyn Backend, ctx: &ToolContext) {
    if let Some(w) = &ctx.window
        && let Err(e) = b.activate_window(w).await
    {
        tracing::debug!(window = %w.title, error = %e, "could not activate window");
    }
}

/// Follows the application to the window a person would work in, captures
/// it and labels its controls (stored in the context for `id` arguments).
/// Returns the tree, the controls and the milliseconds spent following,
/// capturing and labelling.
pub(super) async fn controls_now(
    b: &dyn Backend,
    ctx: &mut ToolContext,
) -> Result<(ufo_core::UiTree, Vec<Control>, [f64; 3])> {
    let t = Instant::now();
    follow_app(b, ctx).await?;
    let follow = ms(t);
    let w = window(ctx)?.clone();
    let t = Instant::now();
    let tree = b.capture_tree(&w, &ctx.settings.budget).await?;
    let capture = ms(t);
    let t = Instant::now();
    let controls = label_controls(&tree, &ctx.settings.filter, None);
    let label = ms(t);
    ctx.controls = controls.clone();
    ctx.window = Some(tree.window.clone());
    Ok((tree, controls, [follow, capture, label]))
}

/// A screenshot of the current window (following the application first when
/// no controls were listed yet).
pub(super) async fn screenshot_now(
    b: &dyn Backend,
    ctx: &mut ToolContext,
) -> Result<crate::Screenshot> {
    if ctx.controls.is_empty() {
        follow_app(b, ctx).await?;
    }
    let w = window(ctx)?.clone();
    b.screenshot(&ScreenshotTarget::Window(w)).await
}

pub(super) fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Waits (at most [`super::ToolSettings::action_settle`]) until the
/// application has reacted to the action taken at `mark`.
pub(super) async fn settle(b: &dyn Backend, ctx: &ToolContext, mark: Option<u64>) -> Option<usize> {
    let bound = ctx.settings.action_settle;
    match bound.is_zero() {
        true => None,
        false => b.settle(ctx.window.as_ref(), mark, bound).await,
    }
}

/// How long a click on a button that drops a menu waits for the menu.
const MENU_WAIT: Duration = Duration::from_millis(1500);

/// What a click is known to have done, in the result's `effect`: the window
/// it opened, else whether the application reported any change after it
/// (`changes`, from [`settle`]). A click nothing answered is
/// `"unverifiable"`, never a bare success.
fn click_effect(result: &mut Value, changes: Option<usize>) {
    if result.get("effect").is_some() {
        return;
    }
    let (effect, how) = match (result.get("opened").is_some(), changes) {
        (true, _) => ("confirmed", "it opened a window"),
        _ if result.get("now_on").is_some() => ("confirmed", "its window closed"),
        (false, Some(n)) if n > 0 => ("confirmed", "the application reacted to it"),
        (false, Some(_)) => (
            "unverifiable",
            "the application reported no change after it: observe before clicking again",
        ),
        (false, None) => (
            "unverifiable",
            "the application's changes cannot be heard here: observe to check its effect",
        ),
    };
    result["effect"] = json!(effect);
    result[if effect == "confirmed" {
        "confirmed"
    } else {
        "why"
    }] = json!(how);
}

/// `click_input`, and for a control that holds a checked state (a check
/// box, a radio or toggle button, a check or radio menu item) what a person
/// would look at: whether that state changed. The result then says
/// `"effect": "confirmed"` with the state read back, or `"unverifiable"`
/// with why (the state did not change: the click may not have landed, or
/// the application refused it).
async fn click_input(
    b: &dyn Backend,
    ctx: &mut ToolContext,
    a: &params::ClickInput,
) -> Result<Value> {
    let c = control(ctx, a.id, a.name.as_deref())?;
    // An expander (a button that can expand) flips "expanded", the others
    // "checked".
    let expander = c.control_type == ControlType::Button
        && c.states.intersects(States::EXPANDABLE | States::EXPANDED);
    let (flag, words) = match expander {
        true => (States::EXPANDED, ["expanded", "collapsed"]),
        false => (States::CHECKED, ["checked", "unchecked"]),
    };
    let checkable = a.button == MouseButton::Left
        && !a.double
        && (expander
            || matches!(
                c.control_type,
                ControlType::CheckBox | ControlType::RadioButton
            )
            || matches!(
                c.role.as_str(),
                "toggle button" | "check menu item" | "radio menu item"
            ));
    // The state as it is now (the observation may be older than the last
    // click on it).
    let was = match checkable {
        true => b
            .refresh_node(&c.handle, 0)
            .await
            .map_or(c.states, |n| n.states)
            .contains(flag),
        false => false,
    };
    let mut result = click_control(b, ctx, a).await?;
    if checkable {
        // Read until it changes (Gecko reports the new state a moment after
        // its action returns), at most the verification time.
        let start = Instant::now();
        let now = loop {
            let now = b
                .refresh_node(&c.handle, 0)
                .await
                .ok()
                .map(|n| n.states.contains(flag));
            if now != Some(was) || start.elapsed() >= ctx.settings.verify_timeout {
                break now;
            }
            tokio::time::sleep(POLL).await;
        };
        let word = |on: bool| if on { words[0] } else { words[1] };
        match now {
            Some(now) if now != was || c.control_type == ControlType::RadioButton && now => {
                result["effect"] = json!("confirmed");
                result["confirmed"] = json!(format!("it is now {}", word(now)));
            }
            Some(now) => {
                // What the click's events seemed to confirm is not what
                // counts here.
                if let Some(r) = result.as_object_mut() {
                    r.remove("confirmed");
                }
                result["effect"] = json!("unverifiable");
                result["why"] = json!(format!(
                    "it is still {}: the click may not have reached it; observe before clicking again",
                    word(now)
                ));
            }
            None => {
                if let Some(r) = result.as_object_mut() {
                    r.remove("confirmed");
                }
                result["effect"] = json!("unverifiable");
                result["why"] = json!("it cannot be read any more (it closed or moved)");
            }
        }
    }
    Ok(result)
}

async fn click_control(
    b: &dyn Backend,
    ctx: &mut ToolContext,
    a: &params::ClickInput,
) -> Result<Value> {
    let c = control(ctx, a.id, a.name.as_deref())?;
    let (button, double) = (a.button, a.double);
    let mark = b.event_mark();
    if button == MouseButton::Left && !double && is_row(&c) {
        return click_row(b, ctx, &c, mark).await;
    }
    // A capture reads no action names (a click needs them of one control
    // only): they are asked now.
    let mut c = c;
    let asked = button == MouseButton::Left
        && !double
        && c.actions.is_empty()
        && c.capabilities.action
        && !b.prefers_pointer_click(&c);
    if asked {
        match b.action_names(&c.handle).await {
            Ok(names) => c.actions = names,
            Err(e @ DesktopError::StaleElement { .. }) => return Err(e),
            Err(e) => tracing::debug!(error = %e, "actions unreadable; clicking at coordinates"),
        }
    }
    if button == MouseButton::Left
        && !double
        && !b.prefers_pointer_click(&c)
        && let Some(action) = click_action(&c)
    {
        match b.do_action(&c.handle, action).await {
            Ok(true) => {
                let changes = settle(b, ctx, mark).await;
                let mut result = json!({ "method": "action", "action": action });
                click_effect(&mut result, changes);
                return Ok(result);
            }
            Ok(false) => tracing::debug!(action, "action refused; clicking at coordinates"),
            Err(DesktopError::Timeout { millis, .. }) => {
                // Toolkits that run a modal dialog inside the action's handler
                // (Qt) answer only once the dialog closes: the action was sent;
                // what it did is checked by looking.
                return Ok(unanswered_action(b, ctx, action, millis).await);
            }
            Err(e @ DesktopError::StaleElement { .. }) => return Err(e),
            Err(e) => tracing::debug!(action, error = %e, "action failed; clicking at coordinates"),
        }
    }
    let mut rect = c.rect;
    if button == MouseButton::Left && !double && b.prefers_pointer_click(&c) {
        // Where the control is now; a control that is gone is an error, not
        // a click on whatever took its place.
        if let Some(now) = b.refresh_node(&c.handle, 0).await?.rect {
            rect = now;
        }
    } else if let Some(moved) = window_moved(b, ctx).await {
        // Its window moved since it was observed (a window manager placing
        // a new window, a person dragging it): the control moved with it.
        // (Not re-read itself: GTK 4 reports an open popover's items where
        // they are not drawn, and the observation placed them.)
        rect = shifted(rect, moved);
    }
    raise(b, ctx).await;
    let p = aim(&c, rect);
    let before = ctx.window.as_ref().map(|w| w.handle.clone());
    b.click_at(p, button, double).await?;
    let changes = settle(b, ctx, mark).await;
    let mut result = json!({ "method": "click", "point": { "x": p.x, "y": p.y } });
    // A button that drops a menu: the menu is looked for, a while (an
    // application builds a menu the first time it opens it, and Qt offers
    // `ShowMenu` only once the menu exists: Dolphin's "Open Menu" had no
    // action before its first click).
    let shows_menu = |names: &[String]| names.iter().any(|a| super::args::shows_menu(a));
    let drops_menu = shows_menu(&c.actions)
        || (asked
            && c.actions.is_empty()
            && c.control_type == ControlType::Button
            && b.action_names(&c.handle)
                .await
                .is_ok_and(|n| shows_menu(&n)));
    if drops_menu && let Some(w) = ctx.window.clone() {
        match b.await_popup(&w, mark, MENU_WAIT).await {
            true => {
                result["effect"] = json!("confirmed");
                result["confirmed"] = json!("its menu opened: observe to see its items");
            }
            false => {
                result["effect"] = json!("unverifiable");
                result["why"] = json!("no menu was seen opening: observe before clicking again");
            }
        }
    }
    // A menu item or button that opened a window (a dialog) says which;
    // one that closed its own (a dialog's button) says so, and where the
    // agent is now.
    if matches!(c.control_type, ControlType::MenuItem | ControlType::Button)
        && follow_app(b, ctx).await.is_ok()
        && let Some(w) = ctx
            .window
            .clone()
            .filter(|w| Some(&w.handle) != before.as_ref())
    {
        let gone = match &before {
            Some(h) => !b
                .refresh_node(h, 0)
                .await
                .is_ok_and(|n| n.states.contains(States::SHOWING)),
            None => false,
        };
        result[if gone { "now_on" } else { "opened" }] = json!(describe(&w));
    }
    click_effect(&mut result, changes);
    Ok(result)
}

/// Where a person clicks control `c`, now at `rect`: its middle, but the
/// start of a wide expander's title. GTK 3's expander takes clicks only on
/// its arrow and label, drawn at its left: geany's "Replace All" is 597×17
/// with its label in the first 95 px, and a click in its middle did
/// nothing.
/// A column header's label is at its top: DB Browser for SQLite's header
/// sections are 50 px high with a filter field in their lower half, and a
/// click in the middle of "stock" went into that field (no sort).
fn aim(c: &Control, rect: Rect<Screen>) -> ufo_core::Point<Screen> {
    let p = rect.center();
    let expander = c.control_type == ControlType::Button
        && c.states.intersects(States::EXPANDABLE | States::EXPANDED)
        && rect.width > 3 * rect.height;
    match (expander, c.control_type == ControlType::HeaderItem) {
        (true, _) => ufo_core::Point::new(rect.x + (2 * rect.height).min(rect.width / 2), p.y),
        (false, true) => ufo_core::Point::new(p.x, rect.y + (rect.height / 2).min(12)),
        (false, false) => p,
    }
}

/// The observed window's rectangle where the window is now (see
/// [`window_moved`]): coordinates relative to it land where the model saw.
async fn window_rect_now(b: &dyn Backend, ctx: &ToolContext) -> Result<Rect<Screen>> {
    let r = window_rect(ctx)?;
    Ok(match window_moved(b, ctx).await {
        Some(moved) => shifted(r, moved),
        None => r,
    })
}

/// `r` moved by `(dx, dy)`.
fn shifted(r: Rect<Screen>, (dx, dy): (i32, i32)) -> Rect<Screen> {
    Rect::new(r.x + dx, r.y + dy, r.width, r.height)
}

/// How far the observed window has moved since it was observed, when it
/// has (read again; same size, another place). `None` when it has not, or
/// it cannot be told (no window, no rectangle, resized, or clipped by the
/// screen's edge when observed).
async fn window_moved(b: &dyn Backend, ctx: &ToolContext) -> Option<(i32, i32)> {
    let w = ctx.window.as_ref()?;
    let then = w.rect?;
    let now = b.refresh_node(&w.handle, 0).await.ok()?.rect?;
    let same_size = (now.width, now.height) == (then.width, then.height);
    (same_size && (now.x, now.y) != (then.x, then.y)).then(|| (now.x - then.x, now.y - then.y))
}

/// Rows of lists, trees and tables: their accessibility action (GTK's
/// `activate`) opens them, as a double click does; a single click selects.
fn is_row(c: &Control) -> bool {
    matches!(
        c.control_type,
        ControlType::ListItem | ControlType::TreeItem | ControlType::DataItem
    )
}

/// A single left click on a row, as a person's: the pointer clicks it where
/// it is now (a row that is gone is an error). A row that can be selected
/// but still is not (something drawn over it took the click) is selected
/// through its container. Never activates it.
async fn click_row(
    b: &dyn Backend,
    ctx: &mut ToolContext,
    c: &Control,
    mark: Option<u64>,
) -> Result<Value> {
    let rect = c.rect;
    raise(b, ctx).await;
    let p = rect.center();
    b.click_at(p, MouseButton::Left, false).await?;
    settle(b, ctx, mark).await;
    let after = b.refresh_node(&c.handle, 0).await.ok();
    let selectable = after
        .as_ref()
        .is_some_and(|n| n.states.contains(States::SELECTABLE));
    let mut selected = after
        .as_ref()
        .is_some_and(|n| n.states.contains(States::SELECTED));
    // A spreadsheet's cell under the cursor is focused, not selected; making
    // it a selection would keep Enter inside it.
    let current = after
        .as_ref()
        .is_some_and(|n| n.states.contains(States::FOCUSED));
    let mut method = "click";
    if selectable && !selected && !current && b.select_element(&c.handle).await.is_ok() {
        method = "select";
        settle(b, ctx, b.event_mark()).await;
        selected = b
            .refresh_node(&c.handle, 0)
            .await
            .is_ok_and(|n| n.states.contains(States::SELECTED));
    }
    Ok(json!({
        "method": method,
        "point": { "x": p.x, "y": p.y },
        "selected": selected,
    }))
}

/// The result of an action the application has not answered yet: says which
/// window it opened, if any, or that its effect is unconfirmed.
async fn unanswered_action(
    b: &dyn Backend,
    ctx: &mut ToolContext,
    action: &str,
    millis: u64,
) -> Value {
    let before = ctx.window.as_ref().map(|w| w.handle.clone());
    let _ = follow_app(b, ctx).await;
    match &ctx.window {
        Some(w) if Some(&w.handle) != before.as_ref() => json!({
            "method": "action",
            "action": action,
            "opened": describe(w),
        }),
        _ => json!({
            "method": "action",
            "action": action,
            "note": format!("sent; the application had not confirmed it after {millis} ms (busy, or it opened a window): observe to check its effect"),
        }),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use ufo_core::ElementHandle;
    use ufo_core::ui::Capabilities;

    fn control(t: ControlType, states: States, rect: Rect<Screen>) -> Control {
        Control {
            id: 1,
            name: "x".into(),
            control_type: t,
            value: None,
            column: None,
            rect,
            handle: ElementHandle(":1.1|/x".into()),
            role: String::new(),
            states,
            actions: Vec::new(),
            capabilities: Capabilities::default(),
        }
    }

    #[test]
    fn a_wide_expander_is_aimed_at_its_title_and_a_header_at_its_label() {
        let wide = Rect::new(244, 321, 321, 17);
        let expander = control(ControlType::Button, States::EXPANDABLE, wide);
        let p = aim(&expander, wide);
        assert_eq!((p.x, p.y), (244 + 34, 321 + 8));
        // A tall header section (a filter field below its label).
        let tall = Rect::new(148, 139, 48, 50);
        let header = control(ControlType::HeaderItem, States::empty(), tall);
        let p = aim(&header, tall);
        assert_eq!((p.x, p.y), (172, 151));
        // A usual header, a button, a narrow expander: their middle.
        let usual = Rect::new(0, 0, 80, 24);
        for (t, st) in [
            (ControlType::HeaderItem, States::empty()),
            (ControlType::Button, States::empty()),
            (ControlType::Button, States::EXPANDABLE),
        ] {
            let p = aim(&control(t.clone(), st, usual), usual);
            assert_eq!((p.x, p.y), (40, 12), "{t:?}");
        }
    }
}
