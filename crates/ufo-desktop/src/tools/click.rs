//! Clicks: on a control (by its action or the pointer, where a person
//! would aim), on a row, and what each is known to have done — the window
//! it opened or closed, the state it flipped, the menu it dropped.

use super::ToolContext;
use super::args::click_action;
use super::params;
use super::window::{POLL, control, follow_app, raise, settle, shifted, window_moved};
use crate::backend::{Backend, MouseButton};
use crate::error::{DesktopError, Result};
use crate::follow::describe;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::time::Instant;
use ufo_core::States;
use ufo_core::{Control, ControlType, Rect, Screen};

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
pub(super) async fn click_input(
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

/// Rows of lists, trees and tables: their accessibility action (GTK's
/// `activate`) opens them, as a double click does; a single click selects.
pub(super) fn is_row(c: &Control) -> bool {
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
