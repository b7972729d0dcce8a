//! The Linux [`Backend`]: AT-SPI for trees and semantic actions, X11 for pixels
//! and synthetic input.
//!
//! Tree capture is breadth-first with every D-Bus call of one level in flight at
//! once on the single accessibility-bus connection (the probe measured 3.7–7×
//! over sequential walks). Proxies are built with `CacheProperties::No`, so a
//! proxy costs no round trip. GTK4 reports component extents relative to the
//! window even when screen coordinates are asked for; the backend adds the X
//! window's origin for GTK4 applications.

use crate::bus;
use crate::children::Children;
use crate::roles;
use crate::target::DesktopTarget;
use crate::x11::{X11, XWindow};
use async_trait::async_trait;
use atspi::proxy::accessible::AccessibleProxy;
use atspi::proxy::action::ActionProxy;
use atspi::proxy::application::ApplicationProxy;
use atspi::proxy::cache::CacheProxy;
use atspi::proxy::component::ComponentProxy;
use atspi::proxy::editable_text::EditableTextProxy;
use atspi::proxy::selection::SelectionProxy;
use atspi::proxy::table::TableProxy;
use atspi::proxy::table_cell::TableCellProxy;
use atspi::proxy::text::TextProxy;
use atspi::proxy::value::ValueProxy;
use atspi::{CoordType, Interface, InterfaceSet, Role, State, StateSet};
use futures::future::join_all;
use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use ufo_core::geometry::Frame;
use ufo_core::ui::Capabilities;
use ufo_core::{ElementHandle, Point, Rect, Screen, UiNode, UiTree, WindowInfo};
use ufo_desktop::keys::KeyEvent;
use ufo_desktop::{Backend, DesktopError, MouseButton, Screenshot, ScreenshotTarget, TreeBudget};
use zbus::proxy::CacheProperties;

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

/// How long a raised window is given to repaint before it is photographed.
const REPAINT_WAIT: Duration = Duration::from_millis(150);

/// The AT-SPI + X11 backend. Cheap to share (`Arc<AtspiBackend>`).
pub struct AtspiBackend {
    conn: zbus::Connection,
    x11: X11,
    /// bus name → is GTK4 (extents window-relative)
    gtk4: Mutex<HashMap<String, bool>>,
    /// bus name → how to reach the application
    routes: tokio::sync::Mutex<HashMap<String, Route>>,
    /// bus name → the window of that application captured last
    last_window: Mutex<HashMap<String, WindowInfo>>,
    /// Whether to try peer-to-peer connections at all.
    use_p2p: bool,
    /// Table cells already obtained (LibreOffice never frees them).
    pub(crate) cell_cache: crate::children::CellCache,
    /// Bus names of applications whose texts are read with GetText(0, -1).
    whole_text: Mutex<std::collections::HashSet<String>>,
}

impl std::fmt::Debug for AtspiBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtspiBackend")
            .field("x11", &self.x11)
            .finish_non_exhaustive()
    }
}

/// Splits a handle `bus_name|path` into its parts.
pub fn split_handle(h: &ElementHandle) -> Result<(&str, &str)> {
    h.0.split_once('|')
        .filter(|(b, p)| !b.is_empty() && p.starts_with('/'))
        .ok_or_else(|| DesktopError::BadArguments {
            tool: "element handle".into(),
            detail: format!("{:?} is not an AT-SPI handle (bus_name|/object/path)", h.0),
        })
}

pub(crate) fn handle(bus: &str, path: &str) -> ElementHandle {
    ElementHandle(format!("{bus}|{path}"))
}

/// Maps a zbus error on element `h` to a typed error: vanished objects and
/// applications become [`DesktopError::StaleElement`].
fn map_err(h: &ElementHandle, e: zbus::Error) -> DesktopError {
    let text = e.to_string();
    let stale = matches!(e, zbus::Error::InputOutput(_))
        || [
            "UnknownObject",
            "ServiceUnknown",
            "NameHasNoOwner",
            "NoReply",
            "UnknownMethod",
            "Disconnected",
            "defunct",
        ]
        .iter()
        .any(|k| text.contains(k));
    if stale {
        DesktopError::StaleElement {
            handle: h.0.clone(),
            detail: text,
        }
    } else {
        DesktopError::Backend(format!("AT-SPI call on {h} failed: {text}"))
    }
}

/// Runs a D-Bus future with [`CALL_TIMEOUT`].
pub(crate) async fn call<T>(
    h: &ElementHandle,
    what: &str,
    f: impl Future<Output = zbus::Result<T>>,
) -> Result<T> {
    call_within(CALL_TIMEOUT, h, what, f).await
}

/// Runs a D-Bus future with the given time limit.
async fn call_within<T>(
    limit: Duration,
    h: &ElementHandle,
    what: &str,
    f: impl Future<Output = zbus::Result<T>>,
) -> Result<T> {
    match tokio::time::timeout(limit, f).await {
        Ok(r) => r.map_err(|e| map_err(h, e)),
        Err(_) => Err(DesktopError::Timeout {
            what: format!("{what} on {h}"),
            millis: limit.as_millis() as u64,
        }),
    }
}

macro_rules! proxy_fn {
    ($fn:ident, $ty:ident) => {
        pub(crate) async fn $fn(&self, h: &ElementHandle) -> Result<$ty<'static>> {
            let (bus, path) = split_handle(h)?;
            let route = self.route(bus).await;
            let b = match &route {
                Route::Bus => $ty::builder(&self.conn)
                    .destination(bus.to_owned())
                    .map_err(|e| map_err(h, e))?,
                Route::P2p(c) => $ty::builder(c),
            };
            let b = b.path(path.to_owned()).map_err(|e| map_err(h, e))?;
            b.cache_properties(CacheProperties::No)
                .build()
                .await
                .map_err(|e| map_err(h, e))
        }
    };
}

/// How calls to one application travel.
#[derive(Clone)]
enum Route {
    /// Through the accessibility bus daemon.
    Bus,
    /// Over the application's private socket (GTK3, LibreOffice): one hop less.
    P2p(zbus::Connection),
}

/// What the application's cache already says about a node. Only the fields
/// toolkits compute live when the cache is read (role, states, interfaces) are
/// used: cached names and child order lag behind on GTK3 (measured).
#[derive(Clone, Copy)]
pub(crate) struct Hint {
    role: Role,
    states: StateSet,
    ifaces: InterfaceSet,
    children: i32,
}

/// An application's `Cache.GetItems`, indexed by object path.
#[derive(Default)]
struct AppCache {
    items: HashMap<String, Hint>,
}

impl AppCache {
    fn hint(&self, path: &str) -> Option<Hint> {
        self.items.get(path).copied()
    }
}

/// Raw facts of one node, before conversion.
pub(crate) struct RawNode {
    role: Role,
    name: String,
    description: String,
    states: StateSet,
    ifaces: InterfaceSet,
    children: Vec<(String, String)>,
    /// Set when only part of the children were read (huge container).
    children_note: Option<String>,
    extents: Option<(i32, i32, i32, i32)>,
    actions: Vec<String>,
    text: Option<String>,
    value: Option<f64>,
}

fn state_names(s: StateSet) -> Vec<String> {
    s.iter().map(|st| st.to_static_str().to_owned()).collect()
}

fn truncate(s: String, max: usize) -> String {
    if s.chars().count() <= max {
        s
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

impl AtspiBackend {
    /// Connects to the accessibility bus and X display of `target`.
    pub async fn connect(target: &DesktopTarget) -> Result<Self> {
        let display = target
            .display
            .clone()
            .ok_or_else(|| DesktopError::Unreachable("DISPLAY is not set".into()))?;
        let session = target.session_bus.clone().ok_or_else(|| {
            DesktopError::Unreachable("no session bus (DBUS_SESSION_BUS_ADDRESS)".into())
        })?;
        let x11 = X11::connect(&display)?;
        let a11y = tokio::time::timeout(CALL_TIMEOUT, async {
            let session = bus::connect(&session).await?;
            bus::a11y_address(&session).await
        })
        .await
        .map_err(|_| DesktopError::Unreachable("org.a11y.Bus does not answer".into()))?
        .map_err(|e| DesktopError::Unreachable(format!("accessibility bus: {e}")))?;
        let conn = tokio::time::timeout(CALL_TIMEOUT, bus::connect(&a11y))
            .await
            .map_err(|_| {
                DesktopError::Unreachable(format!("accessibility bus {a11y} does not answer"))
            })?
            .map_err(|e| DesktopError::Unreachable(format!("accessibility bus {a11y}: {e}")))?;
        Ok(Self {
            conn,
            x11,
            gtk4: Mutex::new(HashMap::new()),
            routes: tokio::sync::Mutex::new(HashMap::new()),
            last_window: Mutex::new(HashMap::new()),
            use_p2p: std::env::var_os("UFO_ATSPI_NO_P2P").is_none(),
            cell_cache: crate::children::CellCache::default(),
            whole_text: Mutex::new(std::collections::HashSet::new()),
        })
    }

    /// How to reach the application on `bus`: its private socket when it offers
    /// one (asked once per application), else the bus.
    async fn route(&self, bus: &str) -> Route {
        if !self.use_p2p || !bus.starts_with(':') {
            return Route::Bus;
        }
        if let Some(r) = self.routes.lock().await.get(bus) {
            return r.clone();
        }
        // Opened without the lock held, so a slow application delays only itself;
        // if two callers race, the first route stored wins.
        let route = self.open_p2p(bus).await.map_or(Route::Bus, Route::P2p);
        self.routes
            .lock()
            .await
            .entry(bus.to_owned())
            .or_insert(route)
            .clone()
    }

    async fn open_p2p(&self, bus: &str) -> Option<zbus::Connection> {
        let h = handle(bus, "/org/a11y/atspi/accessible/root");
        let app = ApplicationProxy::builder(&self.conn)
            .destination(bus.to_owned())
            .ok()?
            .path("/org/a11y/atspi/accessible/root")
            .ok()?
            .cache_properties(CacheProperties::No)
            .build()
            .await
            .ok()?;
        // GTK4 answers UnknownMethod: it has no private socket.
        let addr = call(
            &h,
            "GetApplicationBusAddress",
            app.get_application_bus_address(),
        )
        .await
        .ok()?;
        if addr.is_empty() {
            return None;
        }
        let builder = zbus::connection::Builder::address(addr.as_str())
            .ok()?
            .p2p();
        tokio::time::timeout(CALL_TIMEOUT, builder.build())
            .await
            .ok()?
            .ok()
    }

    proxy_fn!(accessible, AccessibleProxy);
    proxy_fn!(component, ComponentProxy);
    proxy_fn!(action, ActionProxy);
    proxy_fn!(text, TextProxy);
    proxy_fn!(editable, EditableTextProxy);
    proxy_fn!(value, ValueProxy);
    proxy_fn!(selection, SelectionProxy);
    proxy_fn!(application, ApplicationProxy);
    proxy_fn!(table, TableProxy);
    proxy_fn!(table_cell, TableCellProxy);

    /// True when the application on `bus_name` is GTK 4 (window-relative extents).
    async fn is_gtk4(&self, bus_name: &str) -> bool {
        if let Some(v) = self.gtk4.lock().ok().and_then(|m| m.get(bus_name).copied()) {
            return v;
        }
        let h = handle(bus_name, "/org/a11y/atspi/accessible/root");
        let answer = match self.application(&h).await {
            Ok(app) => {
                let (tk, ver) = futures::join!(
                    call(&h, "ToolkitName", app.toolkit_name()),
                    call(&h, "Version", app.version())
                );
                match (tk, ver) {
                    (Ok(tk), Ok(ver)) => {
                        Some(tk.eq_ignore_ascii_case("gtk") && ver.starts_with('4'))
                    }
                    // No Application interface at all: not GTK 4.
                    (Err(DesktopError::Backend(_)), _) => Some(false),
                    _ => None,
                }
            }
            Err(_) => None,
        };
        // Only a real answer is remembered; a busy application is asked again.
        if let Some(v) = answer
            && let Ok(mut m) = self.gtk4.lock()
        {
            m.insert(bus_name.to_owned(), v);
        }
        answer.unwrap_or(false)
    }

    /// Reads everything about one node, issuing its calls concurrently. With a
    /// `hint` from the application's cache, role, states, interfaces and child
    /// count are taken from it and every remaining call goes out in a single
    /// round; without one, identity goes first and the rest in a second round.
    /// `max_children` (`None`: no children) bounds how many children are read:
    /// see [`AtspiBackend::read_children`].
    pub(crate) async fn read_node(
        &self,
        h: &ElementHandle,
        max_text: usize,
        max_children: Option<usize>,
        hint: Option<Hint>,
    ) -> Result<RawNode> {
        let acc = self.accessible(h).await?;
        let (role, states, ifaces, count, early) = match &hint {
            Some(x) => (x.role, x.states, x.ifaces, x.children, None),
            None => {
                let (role, name, states, ifaces, description, count) = futures::join!(
                    call(h, "GetRole", acc.get_role()),
                    call(h, "Name", acc.name()),
                    call(h, "GetState", acc.get_state()),
                    call(h, "GetInterfaces", acc.get_interfaces()),
                    call(h, "Description", acc.description()),
                    async {
                        match max_children {
                            Some(_) => match call(h, "ChildCount", acc.child_count()).await {
                                Ok(n) => n,
                                Err(e) => {
                                    tracing::debug!(%h, error = %e, "ChildCount failed");
                                    0
                                }
                            },
                            None => 0,
                        }
                    },
                );
                (
                    role?,
                    states?,
                    ifaces.unwrap_or_default(),
                    count,
                    Some((name, description)),
                )
            }
        };
        let late_names = async {
            match early {
                Some(v) => v,
                None => futures::join!(
                    call(h, "Name", acc.name()),
                    call(h, "Description", acc.description())
                ),
            }
        };
        let children_f = async {
            match max_children {
                Some(limit) => {
                    self.read_children(h, &acc, limit, states, ifaces, count)
                        .await
                }
                None => Ok(Children::default()),
            }
        };
        let ((name, description), children, details) = futures::join!(
            late_names,
            children_f,
            self.read_details(h, ifaces, max_text)
        );
        let children = children.unwrap_or_default();
        let (extents, actions, text, value) = details;
        Ok(RawNode {
            role,
            name: name.unwrap_or_default(),
            description: description.unwrap_or_default(),
            states,
            ifaces,
            children: children.refs,
            children_note: children.note,
            extents,
            actions,
            text: text.map(|t| truncate(t, max_text)),
            value,
        })
    }

    /// Extents, action names, text and value — each only when the interface is
    /// there — concurrently.
    async fn read_details(
        &self,
        h: &ElementHandle,
        ifaces: InterfaceSet,
        max_text: usize,
    ) -> (
        Option<(i32, i32, i32, i32)>,
        Vec<String>,
        Option<String>,
        Option<f64>,
    ) {
        let extents_f = async {
            if !ifaces.contains(Interface::Component) {
                return None;
            }
            let c = self.component(h).await.ok()?;
            call(h, "GetExtents", c.get_extents(CoordType::Screen))
                .await
                .ok()
        };
        let actions_f = async {
            if !ifaces.contains(Interface::Action) {
                return Vec::new();
            }
            match self.action(h).await {
                Ok(a) => call(h, "GetActions", a.get_actions())
                    .await
                    .map(|v| v.into_iter().map(|a| a.name).collect())
                    .unwrap_or_default(),
                Err(_) => Vec::new(),
            }
        };
        let text_f = async {
            if !ifaces.contains(Interface::Text) || max_text == 0 {
                return None;
            }
            let t = self.text(h).await.ok()?;
            let end = i32::try_from(max_text.saturating_add(1)).unwrap_or(i32::MAX);
            let (bus, _) = split_handle(h).ok()?;
            // LibreOffice answers "" to GetText past the end of the text (and
            // GTK 4 to GetText(0, -1)): once seen, that application's texts
            // are read whole, in one call as for the others.
            if self.whole_text.lock().is_ok_and(|m| m.contains(bus)) {
                return call(h, "GetText", t.get_text(0, -1)).await.ok();
            }
            let got = call(h, "GetText", t.get_text(0, end)).await.ok()?;
            if !got.is_empty() {
                return Some(got);
            }
            let n = call(h, "CharacterCount", t.character_count()).await.ok()?;
            if n <= 0 {
                return Some(got);
            }
            let whole = call(h, "GetText", t.get_text(0, -1)).await.ok()?;
            if !whole.is_empty()
                && let Ok(mut m) = self.whole_text.lock()
            {
                m.insert(bus.to_owned());
            }
            Some(whole)
        };
        let value_f = async {
            if !ifaces.contains(Interface::Value) {
                return None;
            }
            let v = self.value(h).await.ok()?;
            call(h, "CurrentValue", v.current_value()).await.ok()
        };
        futures::join!(extents_f, actions_f, text_f, value_f)
    }

    /// The application's own cache of its accessible objects (one call), keyed
    /// by object path. Empty when the toolkit has no cache or does not answer.
    async fn app_cache(&self, bus_name: &str) -> AppCache {
        let h = handle(bus_name, "/org/a11y/atspi/cache");
        let Ok(b) = CacheProxy::builder(&self.conn).destination(bus_name.to_owned()) else {
            return AppCache::default();
        };
        let Ok(b) = b.path("/org/a11y/atspi/cache") else {
            return AppCache::default();
        };
        let Ok(proxy) = b.cache_properties(CacheProperties::No).build().await else {
            return AppCache::default();
        };
        let Ok(items) = call(&h, "GetItems", proxy.get_items()).await else {
            return AppCache::default();
        };
        let mut cache = AppCache::default();
        for item in items {
            let hint = Hint {
                role: item.role,
                states: item.states,
                ifaces: item.ifaces,
                children: item.children,
            };
            cache
                .items
                .insert(item.object.path_as_str().to_owned(), hint);
        }
        cache
    }

    fn to_node(
        &self,
        raw: RawNode,
        h: ElementHandle,
        index: usize,
        parent: Option<usize>,
        depth: u32,
        offset: (i32, i32),
    ) -> UiNode {
        let rect = raw
            .extents
            // Toolkits park hidden elements far off screen; absurd values from a
            // misbehaving application must not overflow either.
            .filter(|&(x, y, w, hgt)| {
                w > 0
                    && hgt > 0
                    && (-10_000..100_000).contains(&x)
                    && (-10_000..100_000).contains(&y)
                    && w < 100_000
                    && hgt < 100_000
            })
            .map(|(x, y, w, hgt)| {
                Rect::<Screen>::new(
                    x.saturating_add(offset.0),
                    y.saturating_add(offset.1),
                    w,
                    hgt,
                )
            });
        let value = match (&raw.text, raw.value) {
            (Some(t), _) => Some(t.clone()),
            (None, Some(v)) => Some(format_number(v)),
            (None, None) => None,
        };
        UiNode {
            index,
            parent,
            children: Vec::new(),
            depth,
            handle: h,
            role: raw.role.name().to_owned(),
            control_type: roles::control_type(raw.role),
            name: raw.name,
            description: raw.description,
            value,
            states: state_names(raw.states),
            rect,
            actions: raw.actions,
            capabilities: Capabilities {
                component: raw.ifaces.contains(Interface::Component),
                action: raw.ifaces.contains(Interface::Action),
                text: raw.ifaces.contains(Interface::Text),
                editable_text: raw.ifaces.contains(Interface::EditableText),
                value: raw.ifaces.contains(Interface::Value),
                selection: raw.ifaces.contains(Interface::Selection),
            },
        }
    }

    /// Matches an AT-SPI window to an X window of the same process: the best of
    /// title equality, size agreement and overlap (GTK4 extents are window-relative,
    /// so sizes are compared separately from positions).
    fn match_x_window<'a>(
        xwins: &'a [XWindow],
        pid: Option<u32>,
        title: &str,
        extents: Option<(i32, i32, i32, i32)>,
    ) -> Option<&'a XWindow> {
        let pid = pid?;
        let candidates: Vec<&XWindow> = xwins
            .iter()
            .filter(|w| w.viewable && w.pid == Some(pid))
            .collect();
        if candidates.len() == 1 {
            return candidates.first().copied();
        }
        let score = |w: &XWindow| -> i32 {
            let mut s = 0;
            if !title.is_empty() && w.title == title {
                s += 4;
            } else if !title.is_empty()
                && !w.title.is_empty()
                && (w.title.contains(title) || title.contains(&w.title))
            {
                s += 2;
            }
            if let Some((x, y, ew, eh)) = extents {
                // Client-side decorations add a margin of a few pixels per side.
                if w.rect.width.abs_diff(ew) <= 24 && w.rect.height.abs_diff(eh) <= 24 {
                    s += 2;
                    if w.rect.x.abs_diff(x) <= 24 && w.rect.y.abs_diff(y) <= 24 {
                        s += 1;
                    }
                }
            }
            s
        };
        candidates
            .into_iter()
            .map(|w| (score(w), w))
            .filter(|(s, _)| *s > 0)
            .max_by_key(|(s, _)| *s)
            .map(|(_, w)| w)
    }

    /// Showing popup top-levels (role window / menu) of the application that
    /// owns `window`, other than `window` itself.
    async fn open_popups(&self, window: &ElementHandle) -> Vec<(String, String)> {
        let Ok((bus, _)) = split_handle(window) else {
            return Vec::new();
        };
        let app = handle(bus, "/org/a11y/atspi/accessible/root");
        let Ok(acc) = self.accessible(&app).await else {
            return Vec::new();
        };
        let Ok(tops) = call(&app, "GetChildren", acc.get_children()).await else {
            return Vec::new();
        };
        let candidates: Vec<ElementHandle> = tops
            .iter()
            .map(|t| {
                handle(
                    t.name_as_str().filter(|n| !n.is_empty()).unwrap_or(bus),
                    t.path_as_str(),
                )
            })
            .filter(|h| h != window)
            .collect();
        let checks = join_all(candidates.iter().map(|h| async move {
            let acc = self.accessible(h).await.ok()?;
            let (role, states) = futures::join!(
                call(h, "GetRole", acc.get_role()),
                call(h, "GetState", acc.get_state())
            );
            let (role, states) = (role.ok()?, states.ok()?);
            let popup = matches!(role, Role::Window | Role::Menu | Role::PopupMenu);
            (popup && states.contains(State::Showing)).then(|| {
                let (b, p) = split_handle(h).ok()?;
                Some((b.to_owned(), p.to_owned()))
            })?
        }))
        .await;
        checks.into_iter().flatten().collect()
    }

    /// The offset to add to this window's reported extents.
    async fn extents_offset(&self, window: &WindowInfo) -> Result<(i32, i32)> {
        let (bus, _) = split_handle(&window.handle)?;
        if !self.is_gtk4(bus).await {
            return Ok((0, 0));
        }
        match window.native_id {
            Some(id) => match self.x11.window_origin(id as u32) {
                Ok(o) => Ok((o.x, o.y)),
                Err(e @ DesktopError::Unreachable(_)) => Err(e),
                Err(e) => Err(DesktopError::StaleElement {
                    handle: window.handle.0.clone(),
                    detail: format!("its X window is gone: {e}"),
                }),
            },
            None => Ok((0, 0)),
        }
    }

    /// Finds the window containing an element, to focus it for keyboard input.
    async fn window_of(&self, h: &ElementHandle) -> Option<WindowInfo> {
        let (bus, _) = split_handle(h).ok()?;
        // The window last captured for this application is where tools act.
        if let Some(w) = self
            .last_window
            .lock()
            .ok()
            .and_then(|m| m.get(bus).cloned())
        {
            return Some(w);
        }
        let windows = self.list_windows().await.ok()?;
        windows
            .into_iter()
            .find(|w| w.handle.0.starts_with(&format!("{bus}|")))
    }

    /// One capture of `window` (see [`Backend::capture_tree`]).
    async fn capture_once(&self, window: &WindowInfo, budget: &TreeBudget) -> Result<UiTree> {
        let started = Instant::now();
        let offset = self.extents_offset(window).await?;
        let (bus, _) = split_handle(&window.handle)?;
        // The window itself is read live (a stale window must fail here); the
        // application's cache comes along in the same round.
        let (root_raw, cache) = futures::join!(
            self.read_node(
                &window.handle,
                budget.max_text_chars,
                Some(budget.max_children),
                None
            ),
            self.app_cache(bus)
        );
        let root_raw = root_raw?;
        let mut nodes = Vec::new();
        let mut pending: Vec<(usize, Vec<(String, String)>)> = Vec::new();
        let mut root_children = root_raw.children.clone();
        // Open menus and combo-box lists are separate top-levels of the same
        // application (role "window"); they belong to what the user sees in this
        // window, so they are captured as extra children of its root.
        if !self.is_gtk4(bus).await {
            root_children.extend(self.open_popups(&window.handle).await);
        }
        nodes.push(self.to_node(root_raw, window.handle.clone(), 0, None, 0, offset));
        let mut truncated: Option<String> = None;
        if budget.max_depth == 0 && !root_children.is_empty() {
            truncated = Some("depth budget 0 reached".to_owned());
        } else {
            pending.push((0, root_children));
        }
        let mut depth = 0u32;
        while !pending.is_empty() {
            depth += 1;
            // Every child of this level, in order, up to the node budget.
            let mut level: Vec<(usize, ElementHandle)> = Vec::new();
            for (parent, kids) in pending.drain(..) {
                for (b, p) in kids {
                    if nodes.len() + level.len() >= budget.max_nodes {
                        truncated = Some(format!("node budget {} reached", budget.max_nodes));
                        break;
                    }
                    level.push((parent, handle(&b, &p)));
                }
            }
            if level.is_empty() {
                break;
            }
            let remaining = budget.deadline.saturating_sub(started.elapsed());
            // The deadline bounds each read, so one hung element costs only itself:
            // its siblings that answered are kept.
            let reads = join_all(level.iter().map(|(_, h)| {
                let hint = split_handle(h)
                    .ok()
                    .filter(|(b, _)| *b == bus)
                    .and_then(|(_, p)| cache.hint(p));
                tokio::time::timeout(
                    remaining,
                    self.read_node(h, budget.max_text_chars, Some(budget.max_children), hint),
                )
            }));
            let results = reads.await;
            let mut deadline_hit = false;
            for ((parent, h), res) in level.into_iter().zip(results) {
                let Ok(res) = res else {
                    deadline_hit = true;
                    continue;
                };
                // Elements that vanished mid-capture are skipped, not fatal.
                let raw = match res {
                    Ok(raw) => raw,
                    Err(_) => {
                        self.cell_cache.forget(&h);
                        continue;
                    }
                };
                if let Some(note) = &raw.children_note {
                    truncated.get_or_insert_with(|| {
                        format!("container {:?} ({}): {note}", raw.name, raw.role.name())
                    });
                }
                let idx = nodes.len();
                let kids = raw.children.clone();
                // What lies under an element that is not showing, while its
                // parent is (the toolkit reports the state), cannot be seen:
                // LibreOffice keeps every closed menu's items in the tree.
                // (Its "defunct" Input line panel still shows its paragraph.)
                // (GTK 4 says "showing" of the window only: below the root
                // the parent's own state is what tells.)
                let hidden_branch = !raw.states.contains(State::Showing)
                    && !raw.states.contains(State::Defunct)
                    && nodes[parent].parent.is_some()
                    && nodes[parent].states.iter().any(|s| s == "showing");
                nodes.push(self.to_node(raw, h, idx, Some(parent), depth, offset));
                nodes[parent].children.push(idx);
                if kids.is_empty() || hidden_branch {
                    continue;
                }
                if depth >= budget.max_depth {
                    truncated.get_or_insert_with(|| {
                        format!("depth budget {} reached", budget.max_depth)
                    });
                } else {
                    pending.push((idx, kids));
                }
            }
            if deadline_hit {
                truncated = Some(format!(
                    "deadline of {} ms reached",
                    budget.deadline.as_millis()
                ));
                break;
            }
            if truncated.as_deref().is_some_and(|t| t.starts_with("node")) {
                break;
            }
        }
        // A "menu" inside a menu bar or another menu is an item that opens a
        // submenu: UFO (UI Automation) calls that a MenuItem.
        for i in 0..nodes.len() {
            if nodes[i].control_type == ufo_core::ControlType::Menu
                && let Some(p) = nodes[i].parent
                && matches!(
                    nodes[p].control_type,
                    ufo_core::ControlType::MenuBar
                        | ufo_core::ControlType::Menu
                        | ufo_core::ControlType::MenuItem
                )
            {
                nodes[i].control_type = ufo_core::ControlType::MenuItem;
            }
        }
        // Unnamed and class-named controls get the name a person would read.
        let left = budget.deadline.saturating_sub(started.elapsed());
        self.name_unnamed(&mut nodes, left.min(NAMING_TIME)).await;
        let mut window = window.clone();
        // Only the on-screen part of a window can be seen or clicked: controls are
        // later filtered against this rectangle.
        if let Some(r) = nodes.first().and_then(|n| n.rect) {
            window.rect = r.intersection(&self.x11.screen_rect()).or(Some(r));
        }
        if window.native_id.is_some()
            && let Ok(mut m) = self.last_window.lock()
        {
            m.insert(bus.to_owned(), window.clone());
        }
        Ok(UiTree {
            window,
            nodes,
            truncated: truncated.is_some(),
            truncation: truncated,
        })
    }

    /// One live read of an element (see [`Backend::refresh_node`]).
    async fn refresh_once(&self, h: &ElementHandle, max_text_chars: usize) -> Result<UiNode> {
        let raw = self.read_node(h, max_text_chars, None, None).await?;
        if raw.states.contains(State::Defunct) {
            return Err(DesktopError::StaleElement {
                handle: h.0.clone(),
                detail: "the element is defunct".into(),
            });
        }
        let (bus, _) = split_handle(h)?;
        let offset = if self.is_gtk4(bus).await {
            match self.window_of(h).await.and_then(|w| w.native_id) {
                Some(id) => {
                    let o = self.x11.window_origin(id as u32).map_err(|e| match e {
                        DesktopError::Unreachable(_) => e,
                        e => DesktopError::StaleElement {
                            handle: h.0.clone(),
                            detail: format!("its window is gone: {e}"),
                        },
                    })?;
                    (o.x, o.y)
                }
                None => (0, 0),
            }
        } else {
            (0, 0)
        };
        Ok(self.to_node(raw, h.clone(), 0, None, 0, offset))
    }
}

fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[async_trait]
impl Backend for AtspiBackend {
    fn name(&self) -> &'static str {
        "atspi"
    }

    async fn list_windows(&self) -> Result<Vec<WindowInfo>> {
        let root = bus::registry_root(&self.conn)
            .await
            .map_err(|e| DesktopError::Unreachable(e.to_string()))?;
        let rh = handle("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root");
        let apps = call(&rh, "GetChildren", root.get_children()).await?;
        let dbus = zbus::fdo::DBusProxy::new(&self.conn)
            .await
            .map_err(|e| DesktopError::Unreachable(e.to_string()))?;
        let xwins = self.x11.client_windows().unwrap_or_default();
        let focused_x = self.x11.focused_window();

        // Per application: name, pid, windows — all applications at once.
        let per_app = join_all(
            apps.iter()
                .filter_map(|a| Some((a.name_as_str()?.to_owned(), a.path_as_str().to_owned())))
                .map(|(bus, path)| {
                    let dbus = &dbus;
                    let app_bus = bus.clone();
                    let one_app = async move {
                        let ah = handle(&bus, &path);
                        let acc = self.accessible(&ah).await.ok()?;
                        let (name, kids) = futures::join!(
                            call(&ah, "Name", acc.name()),
                            call(&ah, "GetChildren", acc.get_children())
                        );
                        let pid = match zbus::names::BusName::try_from(bus.as_str()) {
                            Ok(n) => dbus.get_connection_unix_process_id(n).await.ok(),
                            Err(_) => None,
                        };
                        let gtk4 = self.is_gtk4(&bus).await;
                        let kids = kids.ok()?;
                        let wins = join_all(
                            kids.iter()
                                .filter_map(|k| {
                                    Some((k.name_as_str()?.to_owned(), k.path_as_str().to_owned()))
                                })
                                .map(|(b, p)| async move {
                                    let wh = handle(&b, &p);
                                    let acc = self.accessible(&wh).await.ok()?;
                                    let (title, states, role) = futures::join!(
                                        call(&wh, "Name", acc.name()),
                                        call(&wh, "GetState", acc.get_state()),
                                        call(&wh, "GetRole", acc.get_role())
                                    );
                                    let states = states.ok()?;
                                    let role = role.unwrap_or(Role::Frame);
                                    let ext = match self.component(&wh).await {
                                        Ok(c) => call(
                                            &wh,
                                            "GetExtents",
                                            c.get_extents(CoordType::Screen),
                                        )
                                        .await
                                        .ok(),
                                        Err(_) => None,
                                    };
                                    Some((wh, title.unwrap_or_default(), states, role, ext))
                                }),
                        )
                        .await;
                        Some((name.unwrap_or_default(), pid, gtk4, wins))
                    };
                    // One hung application must not stall the listing of the
                    // others: it is left out after a bounded wait.
                    async move {
                        match tokio::time::timeout(APP_LIST_DEADLINE, one_app).await {
                            Ok(v) => v,
                            Err(_) => {
                                tracing::warn!(bus = %app_bus, "application does not answer; left out of the window list");
                                None
                            }
                        }
                    }
                }),
        )
        .await;

        let mut out = Vec::new();
        for (app_name, pid, gtk4, wins) in per_app.into_iter().flatten() {
            for (wh, title, states, role, ext) in wins.into_iter().flatten() {
                if !(states.contains(State::Visible) || states.contains(State::Showing)) {
                    continue;
                }
                let xw = Self::match_x_window(&xwins, pid, &title, ext);
                let rect = match (xw, ext) {
                    (Some(x), Some((ex, ey, w, h))) if gtk4 => Some(Rect::new(
                        x.rect.x.saturating_add(ex),
                        x.rect.y.saturating_add(ey),
                        w,
                        h,
                    )),
                    (_, Some((x, y, w, h))) if w > 0 && h > 0 => Some(Rect::new(x, y, w, h)),
                    (Some(x), _) => Some(x.rect),
                    _ => None,
                };
                // Window managers and toolkits park helper windows off screen
                // (xfwm4: 5x5 at -1000,-1000); they are not windows to work in.
                if rect.is_some_and(|r| {
                    r.area() < 64 || r.intersection(&self.x11.screen_rect()).is_none()
                }) {
                    continue;
                }
                let focused =
                    states.contains(State::Active) || xw.is_some_and(|x| Some(x.id) == focused_x);
                out.push(WindowInfo {
                    id: xw.map_or_else(|| wh.0.clone(), |x| format!("{:#x}", x.id)),
                    app_name: app_name.clone(),
                    pid,
                    title,
                    rect,
                    focused,
                    handle: wh,
                    native_id: xw.map(|x| u64::from(x.id)),
                    // Toolkits disagree on roles (GTK 4's Save As is a
                    // "filler", Qt's dialogs are not "modal"): X11 says too.
                    dialog: roles::is_dialog(role)
                        || states.contains(State::Modal)
                        || xw.is_some_and(|x| x.dialog || x.modal),
                    modal: states.contains(State::Modal) || xw.is_some_and(|x| x.modal),
                    owner: xw.and_then(|x| x.transient_for).map(u64::from),
                });
            }
        }
        Ok(out)
    }

    async fn capture_tree(&self, window: &WindowInfo, budget: &TreeBudget) -> Result<UiTree> {
        let tree = self.capture_once(window, budget).await?;
        // LibreOffice reports what it draws itself 25 px too high (the GTK menu
        // bar's height) from its start until the pointer first moves over the
        // window; its own root pane then disagrees with the GTK panel holding
        // it. Moving the pointer onto the window, as a person's hand would,
        // makes it recompute; the capture is taken again once.
        if let Some((pane, rect)) = shifted_root_pane(&tree.nodes) {
            tracing::debug!("positions reported shifted; moving the pointer over the window");
            let c = rect.center();
            self.x11.move_pointer(Point::new(c.x + 1, c.y + 1))?;
            self.x11.move_pointer(c)?;
            // It recomputes on its own schedule: wait (bounded) until its root
            // pane is where the GTK panel is.
            let comp = self.component(&pane).await?;
            for _ in 0..20 {
                tokio::time::sleep(Duration::from_millis(50)).await;
                let now = call(&pane, "GetExtents", comp.get_extents(CoordType::Screen)).await?;
                if (now.0, now.1) == (rect.x, rect.y) {
                    break;
                }
            }
            return self.capture_once(window, budget).await;
        }
        Ok(tree)
    }

    async fn refresh_node(&self, h: &ElementHandle, max_text_chars: usize) -> Result<UiNode> {
        self.refresh_once(h, max_text_chars).await
    }

    async fn screenshot(&self, target: &ScreenshotTarget) -> Result<Screenshot> {
        let rect = match target {
            ScreenshotTarget::Desktop => self.x11.screen_rect(),
            ScreenshotTarget::Region(r) => *r,
            ScreenshotTarget::Window(w) => match (w.native_id, w.rect) {
                // The X window's own rectangle is the truth for what is on screen;
                // a window that is gone must not yield a picture of what replaced it.
                (Some(id), _) => self.x11.window_rect(id as u32).map_err(|e| match e {
                    DesktopError::Unreachable(_) => e,
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

    async fn do_action(&self, h: &ElementHandle, action: &str) -> Result<bool> {
        let a = self.action(h).await?;
        let actions = call(h, "GetActions", a.get_actions()).await?;
        let idx = actions
            .iter()
            .position(|x| x.name.eq_ignore_ascii_case(action))
            .ok_or_else(|| DesktopError::Unsupported {
                what: format!("action {action:?}"),
                handle: h.0.clone(),
            })?;
        call_within(ACTION_TIMEOUT, h, "DoAction", a.do_action(idx as i32)).await
    }

    async fn set_text(&self, h: &ElementHandle, text: &str) -> Result<()> {
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
                call(h, "CharacterCount", t.character_count()).await?
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
        let acc = self.accessible(h).await?;
        let ifaces = call(h, "GetInterfaces", acc.get_interfaces()).await?;
        if ifaces.contains(Interface::Text) {
            let t = self.text(h).await?;
            // GTK 4 entries answer "" to GetText(0, -1): ask for the length.
            let n = call(h, "CharacterCount", t.character_count()).await?;
            if n <= 0 {
                return Ok(String::new());
            }
            return call(h, "GetText", t.get_text(0, n)).await;
        }
        if ifaces.contains(Interface::Value) {
            let v = self.value(h).await?;
            return Ok(format_number(
                call(h, "CurrentValue", v.current_value()).await?,
            ));
        }
        call(h, "Name", acc.name()).await
    }

    async fn set_value(&self, h: &ElementHandle, value: f64) -> Result<()> {
        let v = self.value(h).await.map_err(|_| DesktopError::Unsupported {
            what: "setting a value".into(),
            handle: h.0.clone(),
        })?;
        call(h, "SetCurrentValue", v.set_current_value(value)).await
    }

    async fn select_child(&self, h: &ElementHandle, index: usize) -> Result<()> {
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

    async fn focus_element(&self, h: &ElementHandle) -> Result<()> {
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
                if typable && !node.states.iter().any(|s| s == "focused") {
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
                let ext = window.rect.map(|r| (r.x, r.y, r.width, r.height));
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
        self.x11.click(point, button, double)
    }

    async fn drag(
        &self,
        from: Point<Screen>,
        to: Point<Screen>,
        button: MouseButton,
        duration: Duration,
    ) -> Result<()> {
        self.x11.drag(from, to, button, duration)
    }

    async fn scroll_at(&self, point: Point<Screen>, clicks: i32) -> Result<()> {
        self.x11.scroll(point, clicks)
    }

    async fn send_keys(&self, events: &[KeyEvent]) -> Result<()> {
        self.x11.send_keys(events)
    }
}

/// LibreOffice's root pane and the rectangle of the GTK panel holding it,
/// when the two have the same size but not the same place (see
/// [`AtspiBackend::capture_tree`]).
fn shifted_root_pane(nodes: &[UiNode]) -> Option<(ElementHandle, Rect<Screen>)> {
    nodes.iter().find_map(|n| {
        if n.role != "root pane" {
            return None;
        }
        let r = n.rect?;
        let p = nodes.get(n.parent?)?.rect?;
        (p.width == r.width && p.height == r.height && (p.x, p.y) != (r.x, r.y))
            .then(|| (n.handle.clone(), p))
    })
}
