//! The window an action works in: following the application to it (a
//! dialog it opened, its main window again), raising it before input,
//! where it is now, waiting for it to settle after an action, and the
//! controls and screenshot observed in it. Used by the dispatcher (`run`),
//! by each family of tools (`click`, `text_entry`, `operator`) and by
//! [`crate::observe`].

use super::ToolContext;
use super::args::resolve_control;
use super::params::Label;
use crate::backend::{Backend, ScreenshotTarget};
use crate::error::{DesktopError, Result};
use crate::filter::label_controls;
use crate::follow::{describe, foreground};
use std::time::Duration;
use tokio::time::Instant;
use ufo_core::{Control, Rect, Screen, WindowInfo};

/// Interval between read-backs while verifying text.
pub(super) const POLL: Duration = Duration::from_millis(100);

pub(super) fn window(ctx: &ToolContext) -> Result<&WindowInfo> {
    ctx.window.as_ref().ok_or(DesktopError::NoWindowSelected)
}

/// Moves `ctx.window` to the window of the selected application a person
/// would be working in now ([`foreground`]): a dialog it opened, or its main
/// window again once the dialog has closed. The controls of a window left
/// behind are dropped.
pub(super) async fn follow_app(b: &dyn Backend, ctx: &mut ToolContext) -> Result<()> {
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
pub(crate) async fn controls_now(
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
pub(crate) async fn screenshot_now(
    b: &dyn Backend,
    ctx: &mut ToolContext,
) -> Result<crate::Screenshot> {
    if ctx.controls.is_empty() {
        follow_app(b, ctx).await?;
    }
    let w = window(ctx)?.clone();
    b.screenshot(&ScreenshotTarget::Window(w)).await
}

/// The current window's full tree (`get_ui_tree`): a capture of its own.
pub(crate) async fn ui_tree_now(b: &dyn Backend, ctx: &ToolContext) -> Result<ufo_core::UiTree> {
    let w = window(ctx)?.clone();
    b.capture_tree(&w, &ctx.settings.budget).await
}

fn ms(since: Instant) -> f64 {
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

/// The observed window's rectangle where the window is now (see
/// [`window_moved`]): coordinates relative to it land where the model saw.
pub(super) async fn window_rect_now(b: &dyn Backend, ctx: &ToolContext) -> Result<Rect<Screen>> {
    let r = window_rect(ctx)?;
    Ok(match window_moved(b, ctx).await {
        Some(moved) => shifted(r, moved),
        None => r,
    })
}

/// `r` moved by `(dx, dy)`.
pub(super) fn shifted(r: Rect<Screen>, (dx, dy): (i32, i32)) -> Rect<Screen> {
    Rect::new(r.x + dx, r.y + dy, r.width, r.height)
}

/// How far the observed window has moved since it was observed, when it
/// has (read again; same size, another place). `None` when it has not, or
/// it cannot be told (no window, no rectangle, resized, or clipped by the
/// screen's edge when observed).
pub(super) async fn window_moved(b: &dyn Backend, ctx: &ToolContext) -> Option<(i32, i32)> {
    let w = ctx.window.as_ref()?;
    let then = w.rect?;
    let now = b.refresh_node(&w.handle, 0).await.ok()?.rect?;
    let same_size = (now.width, now.height) == (then.width, then.height);
    (same_size && (now.x, now.y) != (then.x, then.y)).then(|| (now.x - then.x, now.y - then.y))
}
