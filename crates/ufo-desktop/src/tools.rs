//! The UI tool catalog: UFO's tool names and arguments, executed over any
//! [`Backend`].
//!
//! A [`Command`] names a tool and carries the model's arguments; [`execute`]
//! resolves the arguments against a [`ToolContext`] (the current window, its
//! labelled controls, the window list), performs the tool with the backend's
//! primitives and returns an [`ActionResult`]: a success with a JSON result, or
//! a failure carrying the [`DesktopError`](crate::DesktopError)'s report. It never panics.
//!
//! | namespace | tools |
//! |---|---|
//! | `AppUIExecutor` | `click_input`, `click_on_coordinates`, `drag_on_coordinates`, `set_edit_text`, `keyboard_input`, `wheel_mouse_input`, `texts`, `wait`, `summary` |
//! | `HostUIExecutor` | `select_application_window` |
//! | `CommandLineExecutor` | `run_shell` (HostAgent: start an allowlisted application) |
//! | `BashExecutor` | `execute_command`, `get_system_info` (the command-line agent; see [`crate::commands`]) |
//! | `UICollector` | `capture_window_screenshot`, `get_app_window_controls_target_info`, `get_desktop_app_info` |
//!
//! The data-collection tools also update the context: `get_desktop_app_info`
//! stores the window list that `select_application_window` ids refer to,
//! `select_application_window` sets the current window, and
//! `get_app_window_controls_target_info` stores the labelled controls that
//! `id` arguments refer to. A local session keeps one context per device; a
//! remote one keeps it on the device side, exactly like UFO's MCP servers.
//!
//! ## Semantics worth knowing
//! - `id` may be a number or a string (`4`, `"4"`); `name`, when given, must
//!   name the same control (trimmed, case-insensitive, GTK4's `"7 7"` ≡ `"7"`).
//! - `click_input` (left, single) invokes the element's accessibility action
//!   (first of `click`, `press`, `activate`, `toggle`, `jump`, `open`; see
//!   [`args::click_action`]) and falls back to a synthesised click at the
//!   rectangle's centre; right and double clicks, and clicks on text controls,
//!   are always synthesised, and so are clicks the backend says are better
//!   synthesised ([`Backend::prefers_pointer_click`]: GTK emits a button's
//!   `clicked` 250 ms after its action). After an action the tool waits until
//!   the application has reacted ([`Backend::settle`]: its events went
//!   quiet), at most [`ToolSettings::action_settle`].
//! - `set_edit_text`: `clear_current_text=true` replaces the whole text;
//!   `false` appends at the end (UFO types at the caret, which after a click on
//!   a field is usually the end). If the element has no editable-text interface
//!   the text is typed instead. The text is read back and a mismatch is
//!   [`DesktopError::VerificationFailed`](crate::DesktopError::VerificationFailed);
//!   a control captured without a text interface cannot be read back, so its
//!   result says `"verified": false` instead.
//! - `keyboard_input` parses `keys` before doing anything, so a bad sequence
//!   has no side effect.

mod args;
mod click;
pub mod guard;
mod name;
mod operator;
pub mod params;
mod run;
mod spec;
mod text_entry;
mod window;

pub use args::{
    CLICK_ACTIONS, click_action, parse_id, relative_point, resolve_control, resolve_window,
};
pub use name::ToolName;
pub use spec::{
    APP_UI_EXECUTOR, BASH_EXECUTOR, COMMAND_LINE_EXECUTOR, HOST_UI_EXECUTOR, LEGACY_NAMES,
    OPERATOR_EXECUTOR, SESSION_EXECUTOR, Tool, UI_COLLECTOR, catalog, catalog_for,
};
pub(crate) use window::{controls_now, screenshot_now, ui_tree_now};

use crate::backend::{Backend, TreeBudget};
use crate::encode::PngCompression;
use crate::filter::FilterConfig;
use crate::screenshot::Screenshot;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use ufo_core::geometry::Frame;
use ufo_core::{ActionResult, Command, Control, Diagnostic, WindowInfo};

/// Tunables of tool execution.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSettings {
    /// How controls are filtered by `get_app_window_controls_target_info`.
    pub filter: FilterConfig,
    /// Limits for tree capture.
    pub budget: TreeBudget,
    /// PNG compression of `capture_window_screenshot`.
    pub png: PngCompression,
    /// The longest wait after an action for the application to react
    /// (`SETTLE_TIMEOUT`); the wait ends as soon as the application's
    /// accessibility events go quiet (see [`Backend::settle`]); default 1 s.
    pub action_settle: Duration,
    /// How long `set_edit_text` polls the read-back text before failing;
    /// default 1 s.
    pub verify_timeout: Duration,
    /// What `run_shell` may start; `None`: the system's desktop entries.
    pub launch: Option<crate::launch::Allowlist>,
    /// How long `run_shell` waits for the application to register.
    pub launch_timeout: Duration,
    /// What `execute_command` may run; `None`: the command-line agent is not
    /// enabled and the tool refuses every command.
    pub commands: Option<crate::commands::CommandPolicy>,
}

impl Default for ToolSettings {
    fn default() -> Self {
        Self {
            filter: FilterConfig::default(),
            budget: TreeBudget::default(),
            png: PngCompression::Fast,
            action_settle: Duration::from_millis(1000),
            verify_timeout: Duration::from_secs(1),
            launch: None,
            launch_timeout: Duration::from_secs(60),
            commands: None,
        }
    }
}

/// What the tools act on: the current window, its labelled controls and the
/// window list. Updated by the data-collection tools and
/// `select_application_window`; can also be set directly.
#[derive(Debug, Clone, Default)]
pub struct ToolContext {
    /// The window AppAgent tools act in (relative coordinates, focus): the
    /// selected application's window a person would be working in now — its
    /// modal dialog while one is open, else its focused or selected window.
    pub window: Option<WindowInfo>,
    /// The window `select_application_window` chose: which application the
    /// tools follow.
    pub app_window: Option<WindowInfo>,
    /// Stay on `window`: do not follow the application to its dialogs
    /// (`ufo act --window`).
    pub pin_window: bool,
    /// The labelled controls `id` arguments refer to.
    pub controls: Vec<Control>,
    /// The window list `select_application_window` ids refer to (id = index + 1).
    pub windows: Vec<WindowInfo>,
    /// The last screenshot taken by `capture_window_screenshot`.
    pub last_screenshot: Option<Screenshot>,
    /// Tunables.
    pub settings: ToolSettings,
}

impl ToolContext {
    /// A context acting in `window` with the given labelled controls.
    pub fn for_window(window: WindowInfo, controls: Vec<Control>) -> Self {
        Self {
            window: Some(window),
            controls,
            ..Self::default()
        }
    }
}

/// The result of `capture_window_screenshot`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScreenshotInfo {
    /// `data:image/png;base64,...`.
    pub image_url: String,
    /// Where the pixels sit on the screen (for mapping control rectangles).
    pub frame: Frame,
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
}

impl ScreenshotInfo {
    /// Decodes back into a [`Screenshot`] (e.g. on the agent side of a remote
    /// device).
    pub fn decode(&self) -> crate::Result<Screenshot> {
        Ok(Screenshot {
            image: crate::encode::decode_image_data_url(&self.image_url)?,
            frame: self.frame,
        })
    }
}

/// The result of `get_app_window_controls_target_info`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlsInfo {
    /// The window the controls belong to.
    pub window: WindowInfo,
    /// The labelled controls, ids `1..N`.
    pub controls: Vec<Control>,
    /// True when tree capture hit a budget (some controls may be missing).
    pub truncated: bool,
}

/// One entry of `get_desktop_app_info`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowEntry {
    /// The id `select_application_window` accepts (`"1"`, `"2"`, ...).
    pub id: String,
    /// The window title.
    pub name: String,
    /// Always `"Window"`.
    #[serde(rename = "type")]
    pub control_type: String,
    /// The application name.
    pub app_name: String,
    /// The full window description.
    pub window: WindowInfo,
}

/// Executes one command. Never panics: every problem is a failed
/// [`ActionResult`] carrying the error's code, message and help. The result's
/// `namespace` and `call_id` are filled in.
pub async fn execute(backend: &dyn Backend, ctx: &mut ToolContext, cmd: &Command) -> ActionResult {
    let tool = match cmd.tool_name.parse::<Tool>() {
        Ok(t) => t,
        Err(e) => return ActionResult::failure(e.report()).with_call_id(cmd.call_id.clone()),
    };
    let outcome = run::run(tool, backend, ctx, &cmd.parameters).await;
    let mut result = match outcome {
        Ok(value) => ActionResult::success(value),
        Err(e) => {
            tracing::debug!(tool = tool.name(), error = %e, "tool failed");
            ActionResult::failure(e.report())
        }
    };
    result.namespace = Some(tool.namespace().to_owned());
    result.with_call_id(cmd.call_id.clone())
}

/// Executes commands in order, stopping at the first failure; the remaining
/// commands are reported as skipped (UFO's `early_exit`).
pub async fn execute_all(
    backend: &dyn Backend,
    ctx: &mut ToolContext,
    cmds: &[Command],
) -> Vec<ActionResult> {
    let mut out = Vec::with_capacity(cmds.len());
    let mut failed = false;
    for cmd in cmds {
        if failed {
            out.push(
                ActionResult::skipped("an earlier command in the sequence failed")
                    .with_call_id(cmd.call_id.clone()),
            );
            continue;
        }
        let r = execute(backend, ctx, cmd).await;
        failed = !r.is_success();
        out.push(r);
    }
    out
}

impl crate::designate::Designated for WindowEntry {
    fn label(&self, index: usize) -> u32 {
        self.id
            .parse()
            .unwrap_or_else(|_| u32::try_from(index + 1).unwrap_or(u32::MAX))
    }
    fn shown_name(&self) -> &str {
        &self.name
    }
    /// A window answers to its title or its application's name.
    fn answers_to(&self, given: &str) -> bool {
        crate::names::names_match(given, &self.name)
            || crate::names::names_match(given, &self.app_name)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_commands_module_names_the_execute_command_tool() {
        assert_eq!(
            super::Tool::ExecuteCommand.name(),
            crate::commands::EXECUTE_COMMAND
        );
    }

    use super::*;
    use ufo_core::{ElementHandle, Rect};

    /// Compile-time check: the execution futures can be spawned on a
    /// multi-threaded runtime.
    #[allow(dead_code)]
    fn futures_are_send(b: &dyn Backend, ctx: &mut ToolContext, cmds: &[Command]) {
        fn is_send<T: Send>(_: &T) {}
        is_send(&execute(b, ctx, &cmds[0]));
        is_send(&execute_all(b, ctx, cmds));
    }

    #[test]
    fn result_types_round_trip() {
        let w = WindowInfo {
            id: "w1".into(),
            app_name: "gnome-calculator".into(),
            pid: Some(7),
            title: "Calculator".into(),
            rect: Some(Rect::new(0, 0, 10, 10)),
            focused: true,
            handle: ElementHandle(":1.2|/a".into()),
            native_id: None,
            dialog: false,
            modal: false,
            owner: None,
        };
        let e = WindowEntry {
            id: "1".into(),
            name: w.title.clone(),
            control_type: "Window".into(),
            app_name: w.app_name.clone(),
            window: w.clone(),
        };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["type"], "Window");
        assert_eq!(serde_json::from_value::<WindowEntry>(v).unwrap(), e);
        let img = image::RgbImage::from_pixel(3, 2, image::Rgb([1, 2, 3]));
        let info = ScreenshotInfo {
            image_url: crate::encode::png_data_url(&img, PngCompression::Fast).unwrap(),
            frame: Frame::at(ufo_core::Point::new(5, 6)),
            width: 3,
            height: 2,
        };
        let back: ScreenshotInfo =
            serde_json::from_value(serde_json::to_value(&info).unwrap()).unwrap();
        let shot = back.decode().unwrap();
        assert_eq!(shot.image, img);
        assert_eq!(shot.frame, info.frame);
        let ctx = ToolContext::for_window(w, vec![]);
        assert!(ctx.window.is_some());
        assert_eq!(ctx.settings.action_settle, Duration::from_millis(1000));
    }
}
