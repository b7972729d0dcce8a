//! The contract every OS backend fulfils.
//!
//! A backend is a thin adapter over one platform's accessibility and input APIs.
//! It knows nothing of labels, prompts or tools: the tool catalog
//! ([`crate::tools`]) turns UFO's tool calls into the primitives below, and the
//! control filter ([`crate::filter`]) turns captured trees into labelled controls.
//!
//! ## Contract
//! - Every method is cancel-safe and bounded: a hung application yields
//!   [`DesktopError::Timeout`], never a hang.
//! - A handle whose element no longer exists yields
//!   [`DesktopError::StaleElement`], never a panic.
//! - Methods take `&self`; a backend is shared (`Arc<dyn Backend>`) and must
//!   serialise internally what the platform requires.
//! - Coordinates are always [`Screen`] coordinates; backends correct toolkit quirks
//!   (GTK4 window-relative extents) before returning.

use crate::error::{DesktopError, Result};
use crate::keys::KeyEvent;
use crate::screenshot::Screenshot;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use ufo_core::{ElementHandle, Point, Rect, Screen, UiNode, UiTree, WindowInfo};

/// Limits for one tree capture. A capture that hits one returns what it has with
/// `truncated = true` and the reason in `truncation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeBudget {
    /// Maximum number of nodes.
    pub max_nodes: usize,
    /// Maximum depth below the window (root = 0).
    pub max_depth: u32,
    /// Wall-clock limit for the whole capture.
    pub deadline: Duration,
    /// Longest value/text kept per node, in characters.
    pub max_text_chars: usize,
    /// Most children read of one container. A container with more (or one
    /// that manages its descendants, like a spreadsheet) is read by what is
    /// visible of it: a table's cells under its visible area, else its first
    /// children up to this many.
    #[serde(default = "default_max_children")]
    pub max_children: usize,
}

fn default_max_children() -> usize {
    500
}

impl Default for TreeBudget {
    fn default() -> Self {
        Self {
            max_nodes: 20_000,
            max_depth: 64,
            deadline: Duration::from_secs(10),
            max_text_chars: 200,
            max_children: default_max_children(),
        }
    }
}

/// The wait after an action when the application's reaction cannot be
/// heard (no events): long enough for toolkits to apply an action and
/// repaint.
pub const BLIND_SETTLE: Duration = Duration::from_millis(300);

/// What to photograph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ScreenshotTarget {
    /// The whole screen.
    Desktop,
    /// One window (its screen rectangle, cropped from the screen).
    Window(WindowInfo),
    /// An arbitrary screen rectangle.
    Region(Rect<Screen>),
}

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    /// Primary button.
    #[default]
    Left,
    /// Secondary button.
    Right,
    /// Middle button.
    Middle,
}

impl std::str::FromStr for MouseButton {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "left" | "" => Ok(MouseButton::Left),
            "right" => Ok(MouseButton::Right),
            "middle" => Ok(MouseButton::Middle),
            other => Err(format!(
                "unknown button {other:?}; use left, right or middle"
            )),
        }
    }
}

/// An application started by [`Backend::launch_app`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Launched {
    /// Its name on the accessibility registry.
    pub app_name: String,
    /// Its process id.
    pub pid: u32,
}

/// What identifies an element beside its name and role
/// ([`Backend::control_identity`]); empty parts are `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    /// The widget class the platform names.
    pub class_name: Option<String>,
    /// The automation id.
    pub automation_id: Option<String>,
}

impl Identity {
    /// An identity from the platform's strings; empty ones are `None`.
    pub fn of(class_name: String, automation_id: String) -> Self {
        let some = |s: String| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
        Self {
            class_name: some(class_name),
            automation_id: some(automation_id),
        }
    }
}

/// The platform operations the tool catalog is built from.
#[async_trait]
pub trait Backend: Send + Sync {
    /// A short name for logs (`"atspi"`, `"uia"`).
    fn name(&self) -> &'static str;

    /// Lists top-level windows of all applications, in stacking/registry order.
    /// Windows that are not showing are left out.
    async fn list_windows(&self) -> Result<Vec<WindowInfo>>;

    /// Applications that did not answer during the last
    /// [`Backend::list_windows`] (hung or busy), described for a person
    /// (`"kcalc (pid 4373)"`). The default: none known.
    fn unresponsive_apps(&self) -> Vec<String> {
        Vec::new()
    }

    /// The showing windows of the application that owns `window` (same
    /// process), dialogs included. The default filters [`Backend::list_windows`].
    async fn app_windows(&self, window: &WindowInfo) -> Result<Vec<WindowInfo>> {
        Ok(self
            .list_windows()
            .await?
            .into_iter()
            .filter(|w| w.same_app(window))
            .collect())
    }

    /// Captures the tree of one window within `budget`.
    async fn capture_tree(&self, window: &WindowInfo, budget: &TreeBudget) -> Result<UiTree>;

    /// Re-reads one element (states, value, rect) — used to verify an
    /// action's effect. Returns [`DesktopError::StaleElement`] if it is gone.
    async fn refresh_node(&self, handle: &ElementHandle, max_text_chars: usize) -> Result<UiNode>;

    /// Takes a screenshot.
    async fn screenshot(&self, target: &ScreenshotTarget) -> Result<Screenshot>;

    /// Invokes the element's named action (`click`, `press`, `activate`,
    /// `toggle`, ...). Returns `Ok(false)` if the toolkit refused.
    async fn do_action(&self, handle: &ElementHandle, action: &str) -> Result<bool>;

    /// The names of the element's actions, for a control observed without
    /// them (a capture does not read them: see [`Control::actions`]). The
    /// default: none.
    ///
    /// [`Control::actions`]: ufo_core::Control::actions
    async fn action_names(&self, handle: &ElementHandle) -> Result<Vec<String>> {
        let _ = handle;
        Ok(Vec::new())
    }

    /// The element's widget class and automation id, for the control log
    /// of an action taken on it (read for that one control, not in a
    /// capture). The default: neither is known.
    async fn control_identity(&self, handle: &ElementHandle) -> Result<Identity> {
        let _ = handle;
        Ok(Identity::default())
    }

    /// The element's toolkit attributes as name/value pairs (AT-SPI's
    /// `GetAttributes`: `toolkit`, `id`, `class`, …), in the order the
    /// application gives them; read for one element, never in a capture.
    /// The default: none.
    async fn attributes(&self, handle: &ElementHandle) -> Result<Vec<(String, String)>> {
        let _ = handle;
        Ok(Vec::new())
    }

    /// Replaces the element's whole text. [`DesktopError::Unsupported`] when it
    /// has no editable text.
    async fn set_text(&self, handle: &ElementHandle, text: &str) -> Result<()>;

    /// Inserts text at a character offset (`None` = at the end).
    async fn insert_text(
        &self,
        handle: &ElementHandle,
        offset: Option<i32>,
        text: &str,
    ) -> Result<()>;

    /// Reads the element's whole text (Text interface), or its name/value when it
    /// has none.
    async fn read_text(&self, handle: &ElementHandle) -> Result<String>;

    /// Sets a numeric value (sliders, spin buttons).
    async fn set_value(&self, handle: &ElementHandle, value: f64) -> Result<()>;

    /// The numeric value the element holds (Value interface: a spin
    /// button's committed value, which its entry's text may not be yet).
    /// The default says the backend cannot read one.
    async fn read_value(&self, handle: &ElementHandle) -> Result<f64> {
        Err(crate::DesktopError::Unsupported {
            what: "reading a numeric value".into(),
            handle: handle.0.clone(),
        })
    }

    /// Selects the `index`-th child of a selection container (combo, list, tabs).
    async fn select_child(&self, handle: &ElementHandle, index: usize) -> Result<()>;

    /// Selects the element itself in the container that holds it (a row of
    /// a list, tree or table), without activating it. The default says the
    /// backend cannot.
    async fn select_element(&self, handle: &ElementHandle) -> Result<()> {
        Err(crate::DesktopError::Unsupported {
            what: "selecting an element through its container".into(),
            handle: handle.0.clone(),
        })
    }

    /// Gives keyboard focus to an element (and its window).
    async fn focus_element(&self, handle: &ElementHandle) -> Result<()>;

    /// Whether the element holds the keyboard focus; `None` when its
    /// toolkit does not tell (Qt says "focused" of the current item of
    /// every view, focused or not). By default, its "focused" state.
    async fn has_keyboard_focus(&self, handle: &ElementHandle) -> Result<Option<bool>> {
        Ok(Some(
            self.refresh_node(handle, 0)
                .await?
                .states
                .contains(ufo_core::States::FOCUSED),
        ))
    }

    /// Raises a window and gives it keyboard focus, with or without a window
    /// manager.
    async fn activate_window(&self, window: &WindowInfo) -> Result<()>;

    /// Synthesises a click at a screen point.
    async fn click_at(&self, point: Point<Screen>, button: MouseButton, double: bool)
    -> Result<()>;

    /// Synthesises a press-move-release drag.
    async fn drag(
        &self,
        from: Point<Screen>,
        to: Point<Screen>,
        button: MouseButton,
        duration: Duration,
    ) -> Result<()>;

    /// Moves the pointer to a screen point without clicking. The default
    /// says the backend cannot.
    async fn move_pointer(&self, point: Point<Screen>) -> Result<()> {
        Err(crate::error::DesktopError::Unsupported {
            what: format!("moving the pointer to {},{}", point.x, point.y),
            handle: self.name().to_owned(),
        })
    }

    /// A point in the backend's stream of application events, taken just
    /// before an action so that [`Backend::settle`] knows what the action
    /// caused. `None` (the default): the backend hears no events.
    fn event_mark(&self) -> Option<u64> {
        None
    }

    /// Waits until the application owning `window` has reacted to an action
    /// taken at `mark` (from [`Backend::event_mark`]), at most `bound`: a
    /// backend that hears events returns as soon as the application has gone
    /// quiet (every application, when `window` is `None`: an action at
    /// screen coordinates); the default sleeps [`BLIND_SETTLE`] (at most
    /// `bound`). Returns how many changes the application reported, when
    /// the backend can tell.
    async fn settle(
        &self,
        window: Option<&WindowInfo>,
        mark: Option<u64>,
        bound: Duration,
    ) -> Option<usize> {
        let _ = (window, mark);
        tokio::time::sleep(bound.min(BLIND_SETTLE)).await;
        None
    }

    /// Waits, at most `bound`, until a popup (a menu) that an action taken
    /// at `mark` opened on `window`'s application is known, and says
    /// whether one is. For a control that drops a menu: the first opening of
    /// a menu the application builds then comes later than the action's
    /// settling. The default: `false` at once (nothing is heard).
    async fn await_popup(&self, window: &WindowInfo, mark: Option<u64>, bound: Duration) -> bool {
        let _ = (window, mark, bound);
        false
    }

    /// True when a left click on `control` is better synthesised at its
    /// centre than sent as its accessibility action: the toolkit delays the
    /// action's effect (GTK buttons answer `click` 250 ms later, after
    /// showing the button pressed). The default: never.
    fn prefers_pointer_click(&self, control: &ufo_core::Control) -> bool {
        let _ = control;
        false
    }

    /// Synthesises wheel clicks at a point (positive = up, negative = down).
    async fn scroll_at(&self, point: Point<Screen>, clicks: i32) -> Result<()>;

    /// Sends key events to whatever has keyboard focus.
    async fn send_keys(&self, events: &[KeyEvent]) -> Result<()>;

    /// Starts `argv` (already checked against the allowlist) on this desktop,
    /// with the desktop's environment, and returns once the new application
    /// is on the accessibility registry (at most `timeout`).
    async fn launch_app(&self, argv: &[String], timeout: Duration) -> Result<Launched> {
        let _ = timeout;
        Err(DesktopError::Unsupported {
            what: format!(
                "starting {:?} on this desktop",
                argv.first().map_or("", |s| s.as_str())
            ),
            handle: String::new(),
        })
    }

    /// Closes the application that owns `window` the way a person does:
    /// every one of its windows is asked to close (as its title bar's close
    /// button asks; on X11 `WM_DELETE_WINDOW`), then this waits, at most
    /// `timeout`, until none of them is open. Nothing is forced: no process
    /// is signalled, and an application that asks whether to save keeps its
    /// window (and its work) open.
    ///
    /// * `Ok(())` when none of the application's windows is open any more.
    /// * [`DesktopError::Timeout`] when a window of it is still open after
    ///   `timeout` (a "save changes?" dialog, a busy application); it is
    ///   left as it is.
    /// * [`DesktopError::WindowNotFound`] when the application has no window
    ///   (it is closed already).
    /// * [`DesktopError::Unsupported`] when the backend cannot close
    ///   applications (the default).
    async fn close_app(&self, window: &WindowInfo, timeout: Duration) -> Result<()> {
        let _ = timeout;
        Err(crate::DesktopError::Unsupported {
            what: format!("closing the application {:?}", window.app_name),
            handle: window.handle.0.clone(),
        })
    }
}
