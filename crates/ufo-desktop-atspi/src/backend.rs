//! The Linux [`Backend`]: AT-SPI for trees and semantic actions, X11 for pixels
//! and synthetic input.
//!
//! Tree capture is pipelined: a node's calls all go out at once, and its
//! children's as soon as it has answered (see `backend/walk.rs`), on the
//! single accessibility-bus connection or the application's own socket. Proxies are built with `CacheProperties::No`, so a
//! proxy costs no round trip. GTK4 reports component extents relative to the
//! window even when screen coordinates are asked for; the backend adds the X
//! window's origin for GTK4 applications.

use crate::bus;
use crate::target::DesktopTarget;
use crate::x11::X11;
use async_trait::async_trait;
use atspi::Interface;
use atspi::proxy::action::ActionProxy;
use details::format_number;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use ufo_core::geometry::Frame;
use ufo_core::{ElementHandle, Point, Screen, UiNode, UiTree, WindowInfo};
use ufo_desktop::keys::KeyEvent;
use ufo_desktop::{
    Backend, DesktopError, Launched, MouseButton, Screenshot, ScreenshotTarget, TreeBudget,
};
use zbus::proxy::CacheProperties;

mod ahead;
mod cache;
mod capture;
mod children;
mod choices;
mod close;
mod content;
mod context;
mod dbus;
mod details;
mod focus;
mod identity;
mod live;
mod naming;
mod objref;
mod placeholders;
mod plan;
mod popovers;
mod qt_popups;
mod raw;
mod read;
mod rewalk;
mod stores;
mod toolkit;
mod walk;
mod windows;
pub(crate) use dbus::call;
use dbus::{Route, call_within, map_err};
pub use objref::ObjRef;
pub(crate) use toolkit::Toolkit;

type Result<T, E = DesktopError> = std::result::Result<T, E>;

/// How long one D-Bus call may take before the element counts as hung.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// How long one application may take to list its windows before it is left
/// out of [`Backend::list_windows`].
const APP_LIST_DEADLINE: Duration = Duration::from_millis(1500);

/// How long `DoAction` may take. Qt answers an action that opens a modal
/// dialog only when the dialog closes; the tools treat a timeout as "sent".
const ACTION_TIMEOUT: Duration = Duration::from_millis(2000);

/// At most this long is spent naming unnamed controls of one capture.
const NAMING_TIME: Duration = Duration::from_millis(1000);

/// After an action, how long an application that reports nothing is given
/// before the action counts as done (see [`Backend::settle`]).
const SETTLE_FIRST: Duration = Duration::from_millis(100);

/// After an action, how long an application must be quiet after its last
/// event for its reaction to count as complete.
const SETTLE_QUIET: Duration = Duration::from_millis(30);

/// How many of the elements an action made appear are checked for a popup
/// it opened (the newest).
const SHOWN_CHECKED: usize = 8;

/// How often [`Backend::await_popup`] looks again.
const POPUP_POLL: Duration = Duration::from_millis(25);

/// At most this many actions of one element are read.
const MAX_ACTIONS: i32 = 16;

/// An element's action names, read one by one (`NActions`, then `GetName`
/// for each), never with `GetActions`: Gecko (Firefox, Thunderbird) answers
/// `GetActions` from freed buffers — every name, description and key binding
/// the same garbage — and sometimes aborts the application. `GetName(i)`
/// reads are safe on every toolkit we know.
async fn action_list(h: &ElementHandle, a: &ActionProxy<'_>) -> Result<Vec<String>> {
    let n = call(h, "NActions", a.n_actions()).await?;
    let mut names = Vec::new();
    for i in 0..n.clamp(0, MAX_ACTIONS) {
        names.push(call(h, "GetName", a.get_name(i)).await?);
    }
    Ok(names)
}

/// After an action at screen coordinates (no window known: the operator's),
/// how long every application must be quiet after its last event. Longer
/// than [`SETTLE_QUIET`]: such an action's effect can come in a second burst
/// after the first (gnome-calculator's `=` shows the button pressed at once,
/// then polls its solver every 50 ms and shows the result when it has it; a
/// screenshot between the two bursts showed `12×7` for `12×7=`). A computer-
/// use model's turn takes seconds; this wait is small beside it.
const WINDOWLESS_QUIET: Duration = Duration::from_millis(150);

/// Between keystrokes: how long the applications must be quiet after their
/// last event for a keystroke to count as taken (see `send_keys`).
const KEY_QUIET: Duration = Duration::from_millis(12);

/// Between keystrokes: how long to wait when no application reports
/// anything (an application without events, or a key that changes nothing
/// it reports).
const KEY_FIRST: Duration = Duration::from_millis(20);

/// Between keystrokes: the longest wait for the applications to go quiet.
const KEY_BOUND: Duration = Duration::from_millis(150);

/// The least time between two strokes of the same key (measured on
/// galculator: 150 ms still lost one key of 210 under load; see `send_keys`).
const KEY_REPEAT: Duration = Duration::from_millis(220);

/// How long a raised window is given to repaint before it is photographed.
const REPAINT_WAIT: Duration = Duration::from_millis(150);

/// The AT-SPI + X11 backend. Cheap to share (`Arc<AtspiBackend>`): the
/// connection, X11 and the events, and what it keeps between calls in named
/// stores. One capture's state is a `Capture` (see `backend/context.rs`).
pub struct AtspiBackend {
    conn: zbus::Connection,
    x11: std::sync::Arc<X11>,
    /// Whether to try peer-to-peer connections at all.
    use_p2p: bool,
    /// The private desktop applications are launched into, if any.
    private: Option<(String, std::path::PathBuf)>,
    /// What applications report (`None`: the registry refused; every
    /// observation is then a full capture and every settle a fixed wait).
    events: Option<crate::events::EventWatch>,
    /// What is known of each application (toolkit, route, quirks).
    apps: stores::Apps,
    /// What one capture or window listing leaves for the next.
    reuse: stores::Reuse,
    /// Table cells already obtained (LibreOffice never frees them).
    pub(crate) cell_cache: children::CellCache,
    /// Role and interfaces of the elements read so far (see `identity.rs`).
    pub(crate) identity: identity::IdentityMemo,
    /// Calls asked ahead of the walk, and what each window's last capture
    /// asked (see `ahead.rs`).
    ahead: ahead::AskedAhead,
}

impl std::fmt::Debug for AtspiBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtspiBackend")
            .field("x11", &self.x11)
            .finish_non_exhaustive()
    }
}

impl AtspiBackend {
    /// Connects to the accessibility bus and X display of `target`.
    pub async fn connect(target: &DesktopTarget) -> Result<Self> {
        let display = target
            .display
            .clone()
            .ok_or_else(|| DesktopError::unreachable("DISPLAY is not set"))?;
        let session = target.session_bus.clone().ok_or_else(|| {
            DesktopError::unreachable("no session bus (DBUS_SESSION_BUS_ADDRESS)")
        })?;
        let x11 = std::sync::Arc::new(X11::connect(&display)?);
        let a11y = tokio::time::timeout(CALL_TIMEOUT, async {
            let session = bus::connect(&session).await?;
            bus::a11y_address(&session).await
        })
        .await
        .map_err(|_| DesktopError::unreachable("org.a11y.Bus does not answer"))?
        .map_err(|e| DesktopError::unreachable_by("the accessibility bus", e))?;
        let conn = tokio::time::timeout(CALL_TIMEOUT, bus::connect(&a11y))
            .await
            .map_err(|_| {
                DesktopError::unreachable(format!("accessibility bus {a11y} does not answer"))
            })?
            .map_err(|e| DesktopError::unreachable_by(format!("accessibility bus {a11y}"), e))?;
        let events = match crate::events::EventWatch::start(&conn).await {
            Ok(w) => Some(w),
            Err(e) => {
                tracing::warn!(error = %e, "no accessibility events: every observation is a full capture and every action waits its whole settle time");
                None
            }
        };
        Ok(Self {
            conn,
            x11,
            use_p2p: std::env::var_os("UFO_ATSPI_NO_P2P").is_none(),
            private: target.private.clone(),
            events,
            apps: stores::Apps::default(),
            reuse: stores::Reuse::default(),
            cell_cache: children::CellCache::default(),
            identity: identity::IdentityMemo::default(),
            ahead: ahead::AskedAhead::default(),
        })
    }

    /// Runs X11 input off the async workers: it holds the input lock and
    /// sleeps between events (a drag for its whole duration, typing 2 ms a
    /// key). Dropping the future lets the input finish, so no button or key
    /// is left held.
    async fn input(&self, f: impl FnOnce(&X11) -> Result<()> + Send + 'static) -> Result<()> {
        let x = self.x11.clone();
        tokio::task::spawn_blocking(move || f(&x))
            .await
            .map_err(|e| DesktopError::backend_by("the input thread failed", e))?
    }
}

#[async_trait]
impl Backend for AtspiBackend {
    fn name(&self) -> &'static str {
        "atspi"
    }

    async fn list_windows(&self) -> Result<Vec<WindowInfo>> {
        self.windows_now(None).await
    }

    /// Asks only the window's own application (an observation follows its
    /// dialogs on every step; the other applications need not answer).
    async fn app_windows(&self, window: &WindowInfo) -> Result<Vec<WindowInfo>> {
        let w = ObjRef::parse(&window.handle)?;
        Ok(self
            .app_windows_kept(w.bus())
            .await?
            .into_iter()
            .filter(|w| w.same_app(window))
            .collect())
    }

    async fn capture_tree(&self, window: &WindowInfo, budget: &TreeBudget) -> Result<UiTree> {
        self.capture_live(window, budget).await
    }

    fn unresponsive_apps(&self) -> Vec<String> {
        self.apps.unresponsive()
    }

    fn event_mark(&self) -> Option<u64> {
        self.events
            .as_ref()
            .filter(|e| e.is_live())
            .map(|e| e.mark())
    }

    /// Returns once the window's application has been quiet for
    /// `SETTLE_QUIET` after its last event, or `SETTLE_FIRST` after the
    /// action when it reports nothing; without events, sleeps the old fixed
    /// [`ufo_desktop::backend::BLIND_SETTLE`] (at most `bound`).
    async fn settle(
        &self,
        window: Option<&WindowInfo>,
        mark: Option<u64>,
        bound: Duration,
    ) -> Option<usize> {
        let w = window.and_then(|w| ObjRef::parse(&w.handle).ok());
        let bus = w.as_ref().map(ObjRef::bus);
        match (self.events.as_ref().filter(|e| e.is_live()), mark, bus) {
            (Some(watch), Some(mark), Some(bus)) => {
                let changes = watch
                    .settle(bus, mark, SETTLE_FIRST, SETTLE_QUIET, bound)
                    .await;
                // A Qt popup the action opened is known only by its event.
                if self.known_toolkit(bus) == Some(Toolkit::Qt) {
                    let shown = watch.shown_since(bus, mark, SHOWN_CHECKED);
                    if !shown.is_empty() {
                        self.note_shown_popups(bus, shown).await;
                    }
                }
                Some(changes)
            }
            // No window: an action at screen coordinates (the operator's),
            // whose receiver is whatever is under the pointer or has the
            // keyboard. Every application must go quiet, for longer.
            (Some(watch), Some(mark), None) => {
                watch
                    .settle_any(mark, SETTLE_FIRST, WINDOWLESS_QUIET, bound)
                    .await;
                None
            }
            _ => {
                tokio::time::sleep(bound.min(ufo_desktop::backend::BLIND_SETTLE)).await;
                None
            }
        }
    }

    async fn await_popup(&self, window: &WindowInfo, mark: Option<u64>, bound: Duration) -> bool {
        let (Some(watch), Some(mark), Ok(w)) = (
            self.events.as_ref().filter(|e| e.is_live()),
            mark,
            ObjRef::parse(&window.handle),
        ) else {
            return false;
        };
        let bus = w.bus();
        let start = tokio::time::Instant::now();
        let mut checked: Vec<String> = Vec::new();
        loop {
            // Checked again only when what appeared has changed.
            let shown = watch.shown_since(bus, mark, SHOWN_CHECKED);
            if shown != checked {
                checked.clone_from(&shown);
                if self.note_shown_popups(bus, shown).await > 0 {
                    return true;
                }
            }
            if start.elapsed() >= bound {
                return false;
            }
            tokio::time::sleep(POPUP_POLL).await;
        }
    }

    /// GTK 3 and 4 buttons and toggle buttons: their `click` action shows the
    /// button pressed for 250 ms and only then emits `clicked`; a pointer
    /// click acts at once. Qt menu items: their action runs the command but
    /// leaves the menu open (and blocks while a dialog it opens is up); a
    /// click closes the menu (GTK 3's: see below). Qt toggle buttons: their
    /// action flips the state and runs nothing. A table's column header, in
    /// any toolkit:
    /// its action can report success and sort nothing (Thunar's list),
    /// where a person's click sorts. Only for a control fully on screen.
    fn prefers_pointer_click(&self, control: &ufo_core::Control) -> bool {
        let Ok(h) = ObjRef::parse(&control.handle) else {
            return false;
        };
        let bus = h.bus();
        let on_screen = control.rect.width > 0
            && control.rect.height > 0
            && self.x11.screen_rect().intersection(&control.rect) == Some(control.rect);
        let role = control.role.as_str();
        let header = matches!(role, "column header" | "table column header");
        let button = matches!(role, "push button" | "button" | "toggle button");
        let menu_item = matches!(role, "menu item" | "check menu item" | "radio menu item");
        on_screen
            && (header
                || match self.known_toolkit(bus) {
                    // GTK 3 runs a menu item's action inside the D-Bus call:
                    // an item that opens its dialog with `gtk_dialog_run`
                    // (mousepad's and Geany's Save As) spins a nested loop
                    // there, and the next key the application gets hangs it
                    // for good (atk-bridge asks the registry about the key
                    // and waits for an answer its blocked connection never
                    // reads). A click runs the item from GTK's event loop.
                    Some(Toolkit::Gtk(3)) => button || menu_item,
                    Some(Toolkit::Gtk(4)) => button,
                    // Qt runs a menu item's action and leaves its menu open; a
                    // click closes it, as it does for a person. A checkable
                    // button's Toggle action flips its state without running
                    // its command (Dolphin's Details view, KeePassXC's
                    // generator, PCManFM-Qt's "Detailed List", which Qt calls a
                    // check box: the view stayed icons, both views "checked"):
                    // a click does both.
                    Some(Toolkit::Qt) => {
                        menu_item || matches!(role, "toggle button" | "check box" | "radio button")
                    }
                    _ => false,
                })
    }

    async fn refresh_node(&self, h: &ElementHandle, max_text_chars: usize) -> Result<UiNode> {
        self.refresh_once(&ObjRef::parse(h)?, max_text_chars).await
    }

    async fn screenshot(&self, target: &ScreenshotTarget) -> Result<Screenshot> {
        let rect = match target {
            ScreenshotTarget::Desktop => self.x11.screen_rect(),
            ScreenshotTarget::Region(r) => *r,
            ScreenshotTarget::Window(w) => match (w.native_id, w.rect) {
                // The X window's own rectangle is the truth for what is on screen;
                // a window that is gone must not yield a picture of what replaced it.
                (Some(id), _) => self.x11.window_rect(id as u32).map_err(|e| match e {
                    DesktopError::Unreachable { .. } => e,
                    e => DesktopError::StaleElement {
                        handle: w.handle.0.clone(),
                        detail: format!("its window is gone: {e}"),
                    },
                })?,
                (None, Some(r)) => r,
                (None, None) => return Err(DesktopError::WindowNotFound(w.title.clone())),
            },
        };
        if let ScreenshotTarget::Window(WindowInfo {
            native_id: Some(id),
            ..
        }) = target
        {
            // Pixels of a covered window are whatever covers it: bring it up first
            // and give the toolkit a moment to repaint.
            let id = *id as u32;
            if self.x11.is_obscured(id).unwrap_or(false) {
                self.x11.raise(id)?;
                tokio::time::sleep(REPAINT_WAIT).await;
            }
        }
        let (image, actual) = self.x11.capture(&rect)?;
        Ok(Screenshot {
            image,
            frame: Frame::at(Point::new(actual.x, actual.y)),
        })
    }

    /// The action travels on a private connection of its own when the
    /// application offers one. GTK 3 answers `DoAction` first and then runs the
    /// action inside the dispatch of that message; a modal dialog
    /// (`gtk_dialog_run`) keeps that dispatch, and with it every later message
    /// on the same connection, waiting until the dialog closes. Other
    /// connections are served by the dialog's loop like any other.
    async fn do_action(&self, h: &ElementHandle, action: &str) -> Result<bool> {
        let h = &ObjRef::parse(h)?;
        let (bus, path) = (h.bus(), h.path());
        // An application known to have no private socket (GTK 4, Qt) is not
        // asked again; with UFO_ATSPI_NO_P2P the action still gets one.
        let offers_p2p = match self.use_p2p {
            true => matches!(self.route(bus).await, Route::P2p(_)),
            false => true,
        };
        let own = match bus.starts_with(':') && offers_p2p {
            true => self.open_p2p(bus).await,
            false => None,
        };
        let a = match &own {
            Some(c) => ActionProxy::builder(c)
                .path(path.to_owned())
                .map_err(|e| map_err(h, e))?
                .cache_properties(CacheProperties::No)
                .build()
                .await
                .map_err(|e| map_err(h, e))?,
            None => self.action(h).await?,
        };
        let actions = action_list(h, &a).await?;
        let idx = actions
            .iter()
            .position(|x| x.eq_ignore_ascii_case(action))
            .ok_or_else(|| DesktopError::Unsupported {
                what: format!("action {action:?}"),
                handle: h.0.clone(),
            })?;
        call_within(ACTION_TIMEOUT, h, "DoAction", a.do_action(idx as i32)).await
    }

    async fn action_names(&self, h: &ElementHandle) -> Result<Vec<String>> {
        let h = &ObjRef::parse(h)?;
        let a = self.action(h).await?;
        action_list(h, &a).await
    }

    /// AT-SPI names no widget classes; the automation id is the element's
    /// `AccessibleId` (AT-SPI 2.34), one property read.
    async fn control_identity(&self, h: &ElementHandle) -> Result<ufo_desktop::Identity> {
        let h = &ObjRef::parse(h)?;
        let acc = self.accessible(h).await?;
        let id = call(h, "AccessibleId", acc.accessible_id()).await?;
        Ok(ufo_desktop::Identity::of(String::new(), id))
    }

    /// `GetAttributes`, one call; AT-SPI's dictionary in the order zbus
    /// reads it, sorted by name (a D-Bus dictionary has no order).
    async fn attributes(&self, h: &ElementHandle) -> Result<Vec<(String, String)>> {
        let h = &ObjRef::parse(h)?;
        let acc = self.accessible(h).await?;
        let mut attrs: Vec<(String, String)> = call(h, "GetAttributes", acc.get_attributes())
            .await?
            .into_iter()
            .collect();
        attrs.sort();
        Ok(attrs)
    }

    async fn set_text(&self, h: &ElementHandle, text: &str) -> Result<()> {
        let h = &ObjRef::parse(h)?;
        let acc = self.accessible(h).await?;
        let ifaces = call(h, "GetInterfaces", acc.get_interfaces()).await?;
        if !ifaces.contains(Interface::EditableText) {
            return Err(DesktopError::Unsupported {
                what: "setting text".into(),
                handle: h.0.clone(),
            });
        }
        let e = self.editable(h).await?;
        if call(h, "SetTextContents", e.set_text_contents(text)).await? {
            Ok(())
        } else {
            Err(DesktopError::Unsupported {
                what: "setting text (the toolkit refused)".into(),
                handle: h.0.clone(),
            })
        }
    }

    async fn insert_text(&self, h: &ElementHandle, offset: Option<i32>, text: &str) -> Result<()> {
        let h = &ObjRef::parse(h)?;
        let acc = self.accessible(h).await?;
        let ifaces = call(h, "GetInterfaces", acc.get_interfaces()).await?;
        if !ifaces.contains(Interface::EditableText) {
            return Err(DesktopError::Unsupported {
                what: "inserting text".into(),
                handle: h.0.clone(),
            });
        }
        let pos = match offset {
            Some(o) => o,
            None => {
                let t = self.text(h).await?;
                let n = call(h, "CharacterCount", t.character_count()).await?;
                // After a slide's placeholder is after nothing: the text
                // replaces it, as it does when a person types in the box.
                if n > 0
                    && let Ok(shown) = call(h, "GetText", t.get_text(0, n)).await
                    && self.holds_placeholder(h, &shown).await
                {
                    return self.set_text(h, text).await;
                }
                n
            }
        };
        let e = self.editable(h).await?;
        let len = i32::try_from(text.chars().count()).unwrap_or(i32::MAX);
        if call(h, "InsertText", e.insert_text(pos, text, len)).await? {
            Ok(())
        } else {
            Err(DesktopError::Unsupported {
                what: "inserting text (the toolkit refused)".into(),
                handle: h.0.clone(),
            })
        }
    }

    async fn read_text(&self, h: &ElementHandle) -> Result<String> {
        let h = &ObjRef::parse(h)?;
        let acc = self.accessible(h).await?;
        let ifaces = call(h, "GetInterfaces", acc.get_interfaces()).await?;
        if ifaces.contains(Interface::Text) {
            let t = self.text(h).await?;
            // GTK 4 entries answer "" to GetText(0, -1): ask for the length.
            let n = call(h, "CharacterCount", t.character_count()).await?;
            if n <= 0 {
                return Ok(String::new());
            }
            let text = call(h, "GetText", t.get_text(0, n)).await?;
            // A slide's empty box shows a placeholder, which is no text.
            if self.holds_placeholder(h, &text).await {
                return Ok(String::new());
            }
            return Ok(text);
        }
        if ifaces.contains(Interface::Value) {
            let v = self.value(h).await?;
            return Ok(format_number(
                call(h, "CurrentValue", v.current_value()).await?,
            ));
        }
        // A container (Evince's document view, a display panel): the text
        // of what shows below it.
        let shown = self.text_below(h).await?;
        if !shown.trim().is_empty() {
            return Ok(shown);
        }
        call(h, "Name", acc.name()).await
    }

    async fn read_value(&self, h: &ElementHandle) -> Result<f64> {
        let h = &ObjRef::parse(h)?;
        let v = self.value(h).await.map_err(|_| DesktopError::Unsupported {
            what: "reading a numeric value".into(),
            handle: h.0.clone(),
        })?;
        call(h, "CurrentValue", v.current_value()).await
    }

    async fn set_value(&self, h: &ElementHandle, value: f64) -> Result<()> {
        let h = &ObjRef::parse(h)?;
        let v = self.value(h).await.map_err(|_| DesktopError::Unsupported {
            what: "setting a value".into(),
            handle: h.0.clone(),
        })?;
        call(h, "SetCurrentValue", v.set_current_value(value)).await
    }

    async fn select_child(&self, h: &ElementHandle, index: usize) -> Result<()> {
        let h = &ObjRef::parse(h)?;
        let s = self.selection(h).await?;
        let i = i32::try_from(index).map_err(|_| DesktopError::BadArguments {
            tool: "select".into(),
            detail: "index too large".into(),
        })?;
        if call(h, "SelectChild", s.select_child(i)).await? {
            Ok(())
        } else {
            Err(DesktopError::Unsupported {
                what: format!("selecting child {index}"),
                handle: h.0.clone(),
            })
        }
    }

    async fn select_element(&self, h: &ElementHandle) -> Result<()> {
        let h = &ObjRef::parse(h)?;
        let acc = self.accessible(h).await?;
        let (ph, index) = futures::join!(
            self.parent_of(h),
            call(h, "GetIndexInParent", acc.get_index_in_parent())
        );
        let (ph, index) = (ph?, index?);
        let index = usize::try_from(index).map_err(|_| DesktopError::StaleElement {
            handle: h.0.clone(),
            detail: "it is no longer in its container".into(),
        })?;
        self.select_child(&ph, index).await
    }

    async fn has_keyboard_focus(&self, h: &ElementHandle) -> Result<Option<bool>> {
        let h = &ObjRef::parse(h)?;
        self.keyboard_focus(h).await
    }

    async fn focus_element(&self, h: &ElementHandle) -> Result<()> {
        let h = &ObjRef::parse(h)?;
        let activated = match self.window_of(h).await {
            Some(w) => self.activate_window(&w).await,
            None => Ok(()),
        };
        let c = self.component(h).await?;
        // Some toolkits answer false for already-focused elements; not an error.
        // A vanished element fails here, with the more telling StaleElement.
        match call(h, "GrabFocus", c.grab_focus()).await {
            Ok(_) => {}
            Err(e @ (DesktopError::StaleElement { .. } | DesktopError::Timeout { .. })) => {
                return Err(e);
            }
            // GTK 4 answers NotSupported: a person would click the control.
            Err(e) => {
                let node = self.refresh_node(h, 0).await?;
                // Clicking a button would press it: only text fields and
                // documents are clicked into focus.
                let typable = node.capabilities.editable_text
                    || matches!(
                        node.control_type,
                        ufo_core::ControlType::Edit | ufo_core::ControlType::Document
                    );
                if typable && !node.states.contains(ufo_core::States::FOCUSED) {
                    let rect = node.rect.ok_or_else(|| DesktopError::Unsupported {
                        what: format!("focusing (the toolkit said: {e}; the control has no rectangle to click)"),
                        handle: h.0.clone(),
                    })?;
                    tracing::debug!(error = %e, "GrabFocus unsupported; clicking the control");
                    self.x11.click(rect.center(), MouseButton::Left, false)?;
                }
            }
        }
        if let Err(e) = activated {
            // The element has toolkit focus; keys may still reach it (a WM
            // focuses on its own). Say so in the logs rather than failing.
            tracing::warn!(error = %e, "could not raise the element's window");
        }
        Ok(())
    }

    async fn activate_window(&self, window: &WindowInfo) -> Result<()> {
        let id = match window.native_id {
            Some(id) => id as u32,
            None => {
                let xwins = self.x11.client_windows()?;
                let ext = window
                    .rect
                    .map(|r| details::Extents::from((r.x, r.y, r.width, r.height)));
                Self::match_x_window(&xwins, window.pid, &window.title, ext)
                    .map(|x| x.id)
                    .ok_or_else(|| {
                        DesktopError::WindowNotFound(format!("{:?} has no X window", window.title))
                    })?
            }
        };
        self.x11.activate(id)
    }

    async fn click_at(
        &self,
        point: Point<Screen>,
        button: MouseButton,
        double: bool,
    ) -> Result<()> {
        self.input(move |x| x.click(point, button, double)).await
    }

    async fn drag(
        &self,
        from: Point<Screen>,
        to: Point<Screen>,
        button: MouseButton,
        duration: Duration,
    ) -> Result<()> {
        self.input(move |x| x.drag(from, to, button, duration))
            .await
    }

    async fn move_pointer(&self, point: Point<Screen>) -> Result<()> {
        self.input(move |x| x.move_pointer(point)).await
    }

    async fn scroll_at(&self, point: Point<Screen>, clicks: i32) -> Result<()> {
        self.input(move |x| x.scroll(point, clicks)).await
    }

    /// Types stroke by stroke, as a person does: each stroke (a key, or a
    /// chord such as `^a`) goes out whole, then the keyboard's receiver is
    /// given time to take it — until the applications have been quiet for
    /// `KEY_QUIET` after their last event (`KEY_FIRST` when none
    /// reports anything, at most `KEY_BOUND`). A key struck again waits
    /// until `KEY_REPEAT` has passed since its last stroke: calculators
    /// show the button a key presses held down for a while and drop a second
    /// press of it that comes meanwhile (galculator: `98-19` read `98-1`).
    async fn send_keys(&self, events: &[KeyEvent]) -> Result<()> {
        let mut struck: HashMap<ufo_desktop::keys::Key, Instant> = HashMap::new();
        for stroke in ufo_desktop::keys::strokes(events) {
            let key = ufo_desktop::keys::stroke_key(stroke);
            if let Some(at) = key.and_then(|k| struck.get(&k)) {
                tokio::time::sleep_until((*at + KEY_REPEAT).into()).await;
            }
            let mark = self.event_mark();
            let s = stroke.to_vec();
            self.input(move |x| x.send_keys(&s)).await?;
            if let Some(k) = key {
                struck.insert(k, Instant::now());
            }
            match (self.events.as_ref().filter(|e| e.is_live()), mark) {
                (Some(w), Some(mark)) => w.settle_any(mark, KEY_FIRST, KEY_QUIET, KEY_BOUND).await,
                _ => tokio::time::sleep(KEY_FIRST).await,
            }
        }
        Ok(())
    }

    async fn close_app(&self, window: &WindowInfo, timeout: Duration) -> Result<()> {
        self.close_windows_of(window, timeout).await
    }

    /// Launches into the private desktop (its environment, its process
    /// marker, its log folder), as `ufo desktop launch` does.
    async fn launch_app(&self, argv: &[String], timeout: Duration) -> Result<Launched> {
        use ufo_core::Diagnostic;
        let Some((name, root)) = &self.private else {
            return Err(DesktopError::Unsupported {
                what: "starting applications on a desktop that is not a private one (start it yourself, or use `ufo desktop start`)".into(),
                handle: String::new(),
            });
        };
        let d = crate::headless::HeadlessDesktop::open(name, root)
            .map_err(|e| DesktopError::unreachable_by("the private desktop", e))?;
        let app = d.launch(argv, timeout).await.map_err(|e| {
            // The launch error's own help says what to do about this one.
            let help = e.help().unwrap_or_default();
            DesktopError::backend_by(format!("cannot start {:?} ({help})", argv.join(" ")), e)
        })?;
        Ok(Launched {
            app_name: app.app_name,
            pid: app.pid,
        })
    }
}
