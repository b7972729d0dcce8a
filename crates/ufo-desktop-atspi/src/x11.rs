//! X11 through `x11rb`: screenshots (`GetImage`), XTEST input, window focus and
//! the list of top-level client windows.
//!
//! One [`X11`] holds one connection. Calls are short blocking round trips
//! (sub-millisecond to a few milliseconds); a mutex serialises input sequences so
//! two concurrent key sequences never interleave.

use image::RgbImage;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;
use ufo_core::{Point, Rect, Screen};
use ufo_desktop::{DesktopError, MouseButton};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    self, AtomEnum, ConfigureWindowAux, ConnectionExt as _, ImageFormat, InputFocus, MapState,
    PropMode, StackMode,
};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

type Result<T> = std::result::Result<T, DesktopError>;

mod keyboard;
mod popup_notes;
use keyboard::KeyMap;
pub use keyboard::keysym;

fn xerr(what: &str) -> impl Fn(x11rb::errors::ReplyError) -> DesktopError + '_ {
    move |e| match e {
        x11rb::errors::ReplyError::ConnectionError(c) => gone(what, c),
        other => DesktopError::backend_by(format!("X11 {what} failed"), other),
    }
}

fn cerr(what: &str) -> impl Fn(x11rb::errors::ConnectionError) -> DesktopError + '_ {
    move |e| gone(what, e)
}

/// A broken connection means the X server is gone: the desktop was stopped
/// or crashed. That is not a stale element.
fn gone(what: &str, e: x11rb::errors::ConnectionError) -> DesktopError {
    DesktopError::unreachable_by(
        format!("the X display does not answer ({what}): the desktop was stopped or crashed"),
        e,
    )
}

/// A top-level X window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XWindow {
    /// The X window id.
    pub id: u32,
    /// `_NET_WM_PID`, when set.
    pub pid: Option<u32>,
    /// `_NET_WM_NAME` or `WM_NAME`.
    pub title: String,
    /// Position and size on the screen.
    pub rect: Rect<Screen>,
    /// True when mapped and viewable.
    pub viewable: bool,
    /// `WM_TRANSIENT_FOR`: the window this one (a dialog) belongs to.
    pub transient_for: Option<u32>,
    /// `_NET_WM_WINDOW_TYPE` says dialog.
    pub dialog: bool,
    /// `_NET_WM_STATE` says modal.
    pub modal: bool,
}

/// One connection to an X server.
pub struct X11 {
    conn: RustConnection,
    root: u32,
    width: u16,
    height: u16,
    keymap: Mutex<Option<KeyMap>>,
    input: Mutex<()>,
    atoms: Mutex<HashMap<String, u32>>,
}

impl std::fmt::Debug for X11 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("X11")
            .field("root", &self.root)
            .field("width", &self.width)
            .field("height", &self.height)
            .finish_non_exhaustive()
    }
}

impl X11 {
    /// Connects to `display` (e.g. `":3"`).
    pub fn connect(display: &str) -> Result<Self> {
        let (conn, screen_num) = RustConnection::connect(Some(display))
            .map_err(|e| DesktopError::unreachable_by(format!("X display {display}"), e))?;
        let screen = conn.setup().roots.get(screen_num).ok_or_else(|| {
            DesktopError::unreachable(format!("X display {display} has no screen {screen_num}"))
        })?;
        let (root, width, height) = (screen.root, screen.width_in_pixels, screen.height_in_pixels);
        let x = Self {
            conn,
            root,
            width,
            height,
            keymap: Mutex::new(None),
            input: Mutex::new(()),
            atoms: Mutex::new(HashMap::new()),
        };
        // A run killed while it held Shift or Ctrl leaves it held for every
        // later key and click: whoever connects next releases it.
        match x.release_stuck_modifiers() {
            Ok(0) => {}
            Ok(n) => tracing::info!(keys = n, "released modifier keys left held"),
            Err(e) => tracing::debug!(error = %e, "cannot check for held modifier keys"),
        }
        Ok(x)
    }

    /// Keycodes currently down (X `QueryKeymap`).
    pub fn pressed_keys(&self) -> Result<Vec<u8>> {
        let map = self
            .conn
            .query_keymap()
            .map_err(cerr("QueryKeymap"))?
            .reply()
            .map_err(xerr("QueryKeymap"))?
            .keys;
        Ok((0u16..256)
            .filter(|&k| {
                map.get(usize::from(k / 8))
                    .is_some_and(|b| b & (1 << (k % 8)) != 0)
            })
            .filter_map(|k| u8::try_from(k).ok())
            .collect())
    }

    /// Releases the modifier keys (Shift, Control, Alt and the other mod keys;
    /// not Lock) that are held down. Returns how many were released.
    pub fn release_stuck_modifiers(&self) -> Result<usize> {
        let mods = self
            .conn
            .get_modifier_mapping()
            .map_err(cerr("GetModifierMapping"))?
            .reply()
            .map_err(xerr("GetModifierMapping"))?;
        let per = usize::from(mods.keycodes_per_modifier());
        // Index 1 is Lock (Caps Lock): a state, not a held key.
        let modifier_codes: Vec<u8> = mods
            .keycodes
            .chunks(per.max(1))
            .enumerate()
            .filter(|(i, _)| *i != 1)
            .flat_map(|(_, c)| c.iter().copied())
            .filter(|&c| c != 0)
            .collect();
        let stuck: Vec<u8> = self
            .pressed_keys()?
            .into_iter()
            .filter(|k| modifier_codes.contains(k))
            .collect();
        if stuck.is_empty() {
            return Ok(0);
        }
        let _guard = self.input.lock();
        for &code in &stuck {
            self.fake(xproto::KEY_RELEASE_EVENT, code, 0, 0)?;
        }
        self.sync()?;
        Ok(stuck.len())
    }

    /// The whole screen's rectangle.
    pub fn screen_rect(&self) -> Rect<Screen> {
        Rect::new(0, 0, i32::from(self.width), i32::from(self.height))
    }

    /// True when the XTEST extension is available.
    pub fn has_xtest(&self) -> bool {
        self.conn
            .xtest_get_version(2, 2)
            .ok()
            .and_then(|c| c.reply().ok())
            .is_some()
    }

    /// Captures a screen rectangle (clamped to the screen) as RGB.
    pub fn capture(&self, rect: &Rect<Screen>) -> Result<(RgbImage, Rect<Screen>)> {
        let r = rect
            .intersection(&self.screen_rect())
            .ok_or_else(|| DesktopError::backend(format!("region {rect:?} is off screen")))?;
        let reply = self
            .conn
            .get_image(
                ImageFormat::Z_PIXMAP,
                self.root,
                r.x as i16,
                r.y as i16,
                r.width as u16,
                r.height as u16,
                !0,
            )
            .map_err(cerr("GetImage"))?
            .reply()
            .map_err(xerr("GetImage"))?;
        let (w, h) = (r.width as u32, r.height as u32);
        let px = (w as usize) * (h as usize);
        let data = reply.data;
        if reply.depth < 24 || data.len() < px * 4 {
            return Err(DesktopError::backend(format!(
                "unsupported X visual: depth {} with {} bytes for {px} pixels; run Xvfb with -screen 0 WxHx24",
                reply.depth,
                data.len()
            )));
        }
        // Depth 24/32 on little-endian servers: bytes B, G, R, X.
        let mut rgb = Vec::with_capacity(px * 3);
        for p in data.chunks_exact(4).take(px) {
            rgb.extend_from_slice(&[p[2], p[1], p[0]]);
        }
        let img = RgbImage::from_raw(w, h, rgb)
            .ok_or_else(|| DesktopError::image("screenshot buffer has the wrong size"))?;
        Ok((img, r))
    }

    /// An existing atom, interned once per connection (atoms never change).
    fn atom(&self, name: &str) -> Option<u32> {
        self.cached_atom(name, true)
    }

    /// Atom `name` from the cache, else from the server (created there
    /// unless `only_if_exists`).
    fn cached_atom(&self, name: &str, only_if_exists: bool) -> Option<u32> {
        if let Some(&a) = self.atoms.lock().ok()?.get(name) {
            return Some(a);
        }
        let a = self
            .conn
            .intern_atom(only_if_exists, name.as_bytes())
            .ok()?
            .reply()
            .ok()
            .map(|r| r.atom)
            .filter(|&a| a != 0)?;
        // Only atoms that exist are remembered: a window manager started later
        // creates its atoms then.
        if let Ok(mut m) = self.atoms.lock() {
            m.insert(name.to_owned(), a);
        }
        Some(a)
    }

    /// True when the ATOM list property `prop` of `win` holds `value`.
    fn has_atom_in(&self, win: u32, prop: &str, value: &str) -> bool {
        match (self.atom(prop), self.atom(value)) {
            (Some(p), Some(v)) => self
                .prop_u32s(win, p, u32::from(AtomEnum::ATOM))
                .contains(&v),
            _ => false,
        }
    }

    fn prop_u32s(&self, win: u32, atom: u32, ty: u32) -> Vec<u32> {
        self.conn
            .get_property(false, win, atom, ty, 0, 4096)
            .ok()
            .and_then(|c| c.reply().ok())
            .and_then(|r| r.value32().map(|v| v.collect()))
            .unwrap_or_default()
    }

    fn title(&self, win: u32) -> String {
        if let (Some(net), Some(utf8)) = (self.atom("_NET_WM_NAME"), self.atom("UTF8_STRING"))
            && let Some(r) = self
                .conn
                .get_property(false, win, net, utf8, 0, 1024)
                .ok()
                .and_then(|c| c.reply().ok())
            && !r.value.is_empty()
        {
            return String::from_utf8_lossy(&r.value).into_owned();
        }
        self.conn
            .get_property(false, win, AtomEnum::WM_NAME, AtomEnum::STRING, 0, 1024)
            .ok()
            .and_then(|c| c.reply().ok())
            .map(|r| String::from_utf8_lossy(&r.value).into_owned())
            .unwrap_or_default()
    }

    /// Root position of a window's top-left corner.
    pub fn window_origin(&self, win: u32) -> Result<Point<Screen>> {
        let r = self
            .conn
            .translate_coordinates(win, self.root, 0, 0)
            .map_err(cerr("TranslateCoordinates"))?
            .reply()
            .map_err(xerr("TranslateCoordinates"))?;
        Ok(Point::new(i32::from(r.dst_x), i32::from(r.dst_y)))
    }

    /// The screen rectangle of one window.
    pub fn window_rect(&self, win: u32) -> Result<Rect<Screen>> {
        let g = self
            .conn
            .get_geometry(win)
            .map_err(cerr("GetGeometry"))?
            .reply()
            .map_err(xerr("GetGeometry"))?;
        let o = self.window_origin(win)?;
        Ok(Rect::new(o.x, o.y, i32::from(g.width), i32::from(g.height)))
    }

    /// Top-level client windows: `_NET_CLIENT_LIST` when a window manager runs,
    /// otherwise the root's mapped children that carry a `_NET_WM_PID`.
    pub fn client_windows(&self) -> Result<Vec<XWindow>> {
        let pid_atom = self.atom("_NET_WM_PID");
        let mut ids = self
            .atom("_NET_CLIENT_LIST")
            .map(|a| self.prop_u32s(self.root, a, u32::from(AtomEnum::WINDOW)))
            .unwrap_or_default();
        if ids.is_empty() {
            ids = self
                .conn
                .query_tree(self.root)
                .map_err(cerr("QueryTree"))?
                .reply()
                .map_err(xerr("QueryTree"))?
                .children;
        }
        let mut out = Vec::new();
        for id in ids {
            let Ok(Ok(attrs)) = self.conn.get_window_attributes(id).map(|c| c.reply()) else {
                continue;
            };
            let Ok(Ok(geo)) = self.conn.get_geometry(id).map(|c| c.reply()) else {
                continue;
            };
            let pid = pid_atom
                .map(|a| self.prop_u32s(id, a, u32::from(AtomEnum::CARDINAL)))
                .and_then(|v| v.first().copied());
            if pid.is_none() {
                continue;
            }
            let origin = self
                .window_origin(id)
                .unwrap_or(Point::new(i32::from(geo.x), i32::from(geo.y)));
            out.push(XWindow {
                id,
                pid,
                title: self.title(id),
                rect: Rect::new(
                    origin.x,
                    origin.y,
                    i32::from(geo.width),
                    i32::from(geo.height),
                ),
                viewable: attrs.map_state == MapState::VIEWABLE,
                transient_for: self
                    .prop_u32s(
                        id,
                        u32::from(AtomEnum::WM_TRANSIENT_FOR),
                        u32::from(AtomEnum::WINDOW),
                    )
                    .first()
                    .copied()
                    .filter(|&w| w != 0 && w != id),
                dialog: self.has_atom_in(id, "_NET_WM_WINDOW_TYPE", "_NET_WM_WINDOW_TYPE_DIALOG"),
                modal: self.has_atom_in(id, "_NET_WM_STATE", "_NET_WM_STATE_MODAL"),
            });
        }
        Ok(out)
    }

    /// True when an EWMH window manager runs (`_NET_SUPPORTING_WM_CHECK` on the root).
    pub fn has_window_manager(&self) -> bool {
        self.atom("_NET_SUPPORTING_WM_CHECK").is_some_and(|a| {
            !self
                .prop_u32s(self.root, a, u32::from(AtomEnum::WINDOW))
                .is_empty()
        })
    }

    /// The window that has keyboard focus, if any.
    pub fn focused_window(&self) -> Option<u32> {
        if let Some(a) = self.atom("_NET_ACTIVE_WINDOW")
            && let Some(&w) = self
                .prop_u32s(self.root, a, u32::from(AtomEnum::WINDOW))
                .first()
            && w != 0
        {
            return Some(w);
        }
        self.conn
            .get_input_focus()
            .ok()?
            .reply()
            .ok()
            .map(|r| r.focus)
            .filter(|&w| w > 1)
    }

    /// Raises a window and gives it keyboard focus (works without a window
    /// manager; with one, also sends `_NET_ACTIVE_WINDOW`).
    pub fn activate(&self, win: u32) -> Result<()> {
        if let Some(active) = self.atom("_NET_ACTIVE_WINDOW") {
            let ev = xproto::ClientMessageEvent::new(32, win, active, [1, 0, 0, 0, 0]);
            let _ = self.conn.send_event(
                false,
                self.root,
                xproto::EventMask::SUBSTRUCTURE_REDIRECT | xproto::EventMask::SUBSTRUCTURE_NOTIFY,
                ev,
            );
        }
        self.conn
            .configure_window(win, &ConfigureWindowAux::new().stack_mode(StackMode::ABOVE))
            .map_err(cerr("ConfigureWindow"))?;
        self.raise_popups_of(win)?;
        self.conn
            .set_input_focus(InputFocus::PARENT, win, x11rb::CURRENT_TIME)
            .map_err(cerr("SetInputFocus"))?;
        self.sync()
    }

    /// Asks a top-level window to close, as its close button does: a
    /// `WM_DELETE_WINDOW` message when the window takes it (ICCCM), else
    /// `_NET_CLOSE_WINDOW` to the window manager. The application decides
    /// (it may ask to save first); nothing is destroyed here.
    pub fn close(&self, win: u32) -> Result<()> {
        if let (Some(protocols), Some(delete)) =
            (self.atom("WM_PROTOCOLS"), self.atom("WM_DELETE_WINDOW"))
            && self
                .prop_u32s(win, protocols, u32::from(AtomEnum::ATOM))
                .contains(&delete)
        {
            let ev = xproto::ClientMessageEvent::new(
                32,
                win,
                protocols,
                [delete, x11rb::CURRENT_TIME, 0, 0, 0],
            );
            self.conn
                .send_event(false, win, xproto::EventMask::NO_EVENT, ev)
                .map_err(cerr("SendEvent"))?;
            return self.sync();
        }
        match self.atom("_NET_CLOSE_WINDOW") {
            Some(close) if self.has_window_manager() => {
                // Source 2: a direct request of the user (EWMH).
                let ev = xproto::ClientMessageEvent::new(
                    32,
                    win,
                    close,
                    [x11rb::CURRENT_TIME, 2, 0, 0, 0],
                );
                self.conn
                    .send_event(
                        false,
                        self.root,
                        xproto::EventMask::SUBSTRUCTURE_REDIRECT
                            | xproto::EventMask::SUBSTRUCTURE_NOTIFY,
                        ev,
                    )
                    .map_err(cerr("SendEvent"))?;
                self.sync()
            }
            _ => Err(DesktopError::Unsupported {
                what: "closing a window that takes no WM_DELETE_WINDOW, without a window manager"
                    .into(),
                handle: format!("x11:{win:#x}"),
            }),
        }
    }

    /// Puts the open popups (menus, combo lists, tooltips: override-redirect
    /// windows) of the application owning `win` back above it, in their
    /// order: raising a window must not bury the menu a person has open on
    /// it. An application's windows share the X resource-id base of its
    /// connection.
    fn raise_popups_of(&self, win: u32) -> Result<()> {
        let base = |w: u32| w & !self.conn.setup().resource_id_mask;
        let order = self.stacking_order()?;
        let own: Vec<u32> = order
            .into_iter()
            .filter(|&w| w != win && base(w) == base(win))
            .collect();
        let attrs: Vec<_> = own
            .iter()
            .map(|&w| self.conn.get_window_attributes(w).ok())
            .collect();
        for (&w, a) in own.iter().zip(attrs) {
            let Some(Ok(a)) = a.map(|c| c.reply()) else {
                continue;
            };
            if a.override_redirect && a.map_state == MapState::VIEWABLE {
                self.conn
                    .configure_window(w, &ConfigureWindowAux::new().stack_mode(StackMode::ABOVE))
                    .map_err(cerr("ConfigureWindow"))?;
            }
        }
        Ok(())
    }

    /// The screen rectangles of the open popups (viewable override-redirect
    /// windows: menus, popovers, combo lists) of the application owning
    /// `win`, bottom to top. An application's windows share the X
    /// resource-id base of its connection.
    pub fn popups_of(&self, win: u32) -> Result<Vec<Rect<Screen>>> {
        let base = |w: u32| w & !self.conn.setup().resource_id_mask;
        let mut out = Vec::new();
        for w in self.stacking_order()? {
            if w == win || base(w) != base(win) {
                continue;
            }
            let Ok(Ok(a)) = self.conn.get_window_attributes(w).map(|c| c.reply()) else {
                continue;
            };
            if !a.override_redirect || a.map_state != MapState::VIEWABLE {
                continue;
            }
            if let Ok(r) = self.window_rect(w)
                && r.width > 1
                && r.height > 1
            {
                out.push(r);
            }
        }
        Ok(out)
    }

    /// The root's children, bottom to top.
    fn stacking_order(&self) -> Result<Vec<u32>> {
        Ok(self
            .conn
            .query_tree(self.root)
            .map_err(cerr("QueryTree"))?
            .reply()
            .map_err(xerr("QueryTree"))?
            .children)
    }

    /// True when another viewable window overlapping `win` is stacked above it.
    pub fn is_obscured(&self, win: u32) -> Result<bool> {
        let order = self.stacking_order()?;
        // Under a reparenting window manager the client is inside a frame: find
        // the root child that contains it.
        let top_of = |w: u32| -> u32 {
            let mut cur = w;
            for _ in 0..16 {
                match self.conn.query_tree(cur).ok().and_then(|c| c.reply().ok()) {
                    Some(t) if t.parent != self.root && t.parent != 0 => cur = t.parent,
                    _ => break,
                }
            }
            cur
        };
        let me = top_of(win);
        let Some(pos) = order.iter().position(|&w| w == me) else {
            return Ok(false);
        };
        let Ok(Ok(g)) = self.conn.get_geometry(me).map(|c| c.reply()) else {
            return Ok(false);
        };
        let mine: Rect<Screen> = Rect::new(
            i32::from(g.x),
            i32::from(g.y),
            i32::from(g.width),
            i32::from(g.height),
        );
        for &above in &order[pos + 1..] {
            let Ok(Ok(a)) = self.conn.get_window_attributes(above).map(|c| c.reply()) else {
                continue;
            };
            if a.map_state != MapState::VIEWABLE || a.override_redirect {
                continue;
            }
            if let Ok(Ok(g2)) = self.conn.get_geometry(above).map(|c| c.reply()) {
                let r: Rect<Screen> = Rect::new(
                    i32::from(g2.x),
                    i32::from(g2.y),
                    i32::from(g2.width),
                    i32::from(g2.height),
                );
                if r.intersection(&mine).is_some() {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Raises a window to the top of the stack without changing focus.
    pub fn raise(&self, win: u32) -> Result<()> {
        self.conn
            .configure_window(win, &ConfigureWindowAux::new().stack_mode(StackMode::ABOVE))
            .map_err(cerr("ConfigureWindow"))?;
        self.raise_popups_of(win)?;
        self.sync()
    }

    fn sync(&self) -> Result<()> {
        self.conn
            .get_input_focus()
            .map_err(cerr("sync"))?
            .reply()
            .map_err(xerr("sync"))?;
        Ok(())
    }

    fn fake(&self, kind: u8, detail: u8, x: i16, y: i16) -> Result<()> {
        self.conn
            .xtest_fake_input(kind, detail, x11rb::CURRENT_TIME, self.root, x, y, 0)
            .map_err(cerr("XTEST"))?;
        Ok(())
    }

    fn motion(&self, p: Point<Screen>) -> Result<()> {
        self.fake(xproto::MOTION_NOTIFY_EVENT, 0, clamp16(p.x), clamp16(p.y))
    }

    /// Moves the pointer to `p` (no button), as a person's hand would.
    pub fn move_pointer(&self, p: Point<Screen>) -> Result<()> {
        let _guard = self.input.lock();
        self.motion(p)?;
        self.sync()
    }

    /// When and where the last click on this display ended (Unix time in
    /// ms, low 32 bits; the point when the clicker recorded one), as
    /// recorded on the root window by whichever process clicked.
    fn last_click(&self) -> Option<(u32, Option<Point<Screen>>)> {
        let a = self.intern(LAST_CLICK)?;
        let v = self.prop_u32s(self.root, a, u32::from(AtomEnum::CARDINAL));
        let at = match v.as_slice() {
            [_, x, y, ..] => Some(Point::new(*x as i32, *y as i32)),
            _ => None,
        };
        Some((*v.first()?, at))
    }

    /// An atom, created when missing (cached like [`Self::atom`]).
    fn intern(&self, name: &str) -> Option<u32> {
        self.cached_atom(name, false)
    }

    /// Waits until a press at `p` cannot join the previous click into a
    /// double (or triple) click: toolkits count presses within their
    /// double-click time as one gesture. A single press makes a double
    /// click only near the last click (GTK, Qt and Gecko allow 5 px, Java
    /// 4 px): one farther than [`MULTI_CLICK_REACH`] does not wait (a
    /// calculator's next key). A `double` click always waits: GTK 3's tree
    /// view takes a double click on a row right after a click on another
    /// row for a triple click and opens nothing. Each `ufo act` is its own
    /// process, so the last click is kept on the X server.
    fn wait_out_multi_click(&self, p: Point<Screen>, double: bool) {
        let Some((last, at)) = self.last_click() else {
            return;
        };
        let far = at.is_some_and(|a| {
            (a.x - p.x).abs() > MULTI_CLICK_REACH || (a.y - p.y).abs() > MULTI_CLICK_REACH
        });
        let since = unix_ms().wrapping_sub(last);
        if (double || !far) && since < MULTI_CLICK_MS {
            std::thread::sleep(Duration::from_millis(u64::from(MULTI_CLICK_MS - since)));
        }
    }

    /// Records on the root window that a click ended now at `p`.
    fn mark_click(&self, p: Point<Screen>) {
        if let Some(a) = self.intern(LAST_CLICK) {
            let _ = self.conn.change_property32(
                PropMode::REPLACE,
                self.root,
                a,
                AtomEnum::CARDINAL,
                &[unix_ms(), p.x as u32, p.y as u32],
            );
        }
    }

    /// Clicks at a screen point.
    pub fn click(&self, p: Point<Screen>, button: MouseButton, double: bool) -> Result<()> {
        let _guard = self.input.lock();
        let b = button_code(button);
        self.wait_out_multi_click(p, double);
        self.motion(p)?;
        for i in 0..(if double { 2 } else { 1 }) {
            if i > 0 {
                // A person's second click comes a moment after the first;
                // views that treat a press as the start of a drag or a
                // rubber band (Thunar's) miss a double click sent at once.
                self.sync()?;
                std::thread::sleep(DOUBLE_CLICK_GAP);
            }
            self.fake(xproto::BUTTON_PRESS_EVENT, b, 0, 0)?;
            self.sync()?;
            std::thread::sleep(CLICK_HOLD);
            self.fake(xproto::BUTTON_RELEASE_EVENT, b, 0, 0)?;
        }
        self.mark_click(p);
        self.sync()
    }

    /// Press at `from`, move in steps to `to` over `duration`, release.
    pub fn drag(
        &self,
        from: Point<Screen>,
        to: Point<Screen>,
        button: MouseButton,
        duration: Duration,
    ) -> Result<()> {
        let _guard = self.input.lock();
        let b = button_code(button);
        self.wait_out_multi_click(from, false);
        self.motion(from)?;
        self.fake(xproto::BUTTON_PRESS_EVENT, b, 0, 0)?;
        self.sync()?;
        let steps = 10;
        for i in 1..=steps {
            let x = from.x + (to.x - from.x) * i / steps;
            let y = from.y + (to.y - from.y) * i / steps;
            self.motion(Point::new(x, y))?;
            self.sync()?;
            std::thread::sleep(duration / steps as u32);
        }
        self.fake(xproto::BUTTON_RELEASE_EVENT, b, 0, 0)?;
        self.mark_click(to);
        self.sync()
    }

    /// Wheel clicks at a point: positive scrolls up, negative down.
    pub fn scroll(&self, p: Point<Screen>, clicks: i32) -> Result<()> {
        let _guard = self.input.lock();
        self.motion(p)?;
        let b = if clicks >= 0 { 4 } else { 5 };
        for _ in 0..clicks.unsigned_abs().min(MAX_WHEEL_CLICKS) {
            self.fake(xproto::BUTTON_PRESS_EVENT, b, 0, 0)?;
            self.fake(xproto::BUTTON_RELEASE_EVENT, b, 0, 0)?;
        }
        self.sync()
    }
}

/// How long a click holds the button down.
const CLICK_HOLD: Duration = Duration::from_millis(15);

/// Between the two clicks of a double click (well inside every toolkit's
/// double-click time, 250 ms and more).
const DOUBLE_CLICK_GAP: Duration = Duration::from_millis(60);

/// The longest double-click time of the toolkits (GTK and Qt 400 ms,
/// Java 500 ms), with a margin: two separate clicks are at least this far
/// apart.
const MULTI_CLICK_MS: u32 = 550;

/// How far (pixels, either axis) a press may be from the last click and
/// still join it into a double click, with a margin over the toolkits' own
/// distances (5 px, twice that at 2× scale).
const MULTI_CLICK_REACH: i32 = 16;

/// The root-window property holding when and where the last click ended
/// (time, x, y).
const LAST_CLICK: &str = "_UFO_LAST_CLICK";

/// Unix time in milliseconds, low 32 bits (differences wrap correctly).
fn unix_ms() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u32)
}

/// Most wheel clicks sent for one scroll (the tool catalog accepts up to this).
pub const MAX_WHEEL_CLICKS: u32 = 1000;

fn clamp16(v: i32) -> i16 {
    v.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
}

fn button_code(b: MouseButton) -> u8 {
    match b {
        MouseButton::Left => 1,
        MouseButton::Middle => 2,
        MouseButton::Right => 3,
    }
}
