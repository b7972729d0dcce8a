//! Listing windows: every application's showing top-levels matched to their X
//! windows (pid, title, size), with dialog ownership from X11.
//!
//! One application's list (what following it to its current window asks
//! for before every observation) is kept while the application reports
//! nothing about its windows and the X focus stays where it was: a live
//! re-observation then costs no round trip to list them.

use super::dbus::call;
use super::details::Extents;
use super::objref::ObjRef;
use super::{APP_LIST_DEADLINE, AtspiBackend, Result};
use crate::events::Change;
use crate::x11::XWindow;
use crate::{bus, roles};
use atspi::{Role, State, StateSet};
use futures::future::join_all;
use std::time::{Duration, Instant};
use ufo_core::{ElementHandle, Rect, Screen, WindowInfo};
use ufo_desktop::{Backend, DesktopError};

/// Where every application's accessible root is, on its own bus.
const APP_ROOT: &str = "/org/a11y/atspi/accessible/root";

/// A kept window list is listed again after this long, whatever the events
/// said.
const KEPT_WINDOWS_AGE: Duration = Duration::from_secs(10);

/// One application's window list and what it was true for.
pub(crate) struct KeptWindows {
    /// The event sequence up to which it is true.
    mark: u64,
    /// The X window that had the focus.
    focused_x: Option<u32>,
    windows: Vec<WindowInfo>,
    taken: Instant,
}

impl AtspiBackend {
    /// The showing windows of the application on `bus`: the kept list when
    /// nothing reported since can have changed it (see the module docs),
    /// else a fresh listing, kept.
    pub(super) async fn app_windows_kept(&self, bus: &str) -> Result<Vec<WindowInfo>> {
        let watch = self.events.as_ref().filter(|e| e.is_live());
        let focused_x = self.x11.focused_window();
        if let Some(watch) = watch
            && let Some(windows) = self.reuse.kept_windows(bus, |k| {
                let still = k.focused_x == focused_x
                    && k.taken.elapsed() < KEPT_WINDOWS_AGE
                    && windows_unchanged(k, &watch.since(bus, k.mark));
                still.then(|| k.windows.clone())
            })
        {
            return Ok(windows);
        }
        // The mark is taken before listing: what is reported meanwhile
        // makes the next call list again.
        let mark = watch.map(crate::events::EventWatch::mark);
        let windows = self.windows_now(Some(bus)).await?;
        if let Some(mark) = mark {
            self.reuse.keep_windows(
                bus,
                KeptWindows {
                    mark,
                    focused_x,
                    windows: windows.clone(),
                    taken: Instant::now(),
                },
            );
        }
        Ok(windows)
    }
}

/// True when nothing in `since` can change the kept list: no window event,
/// no top-level added or removed, no change to a listed window's own facts
/// (states, title, bounds).
fn windows_unchanged(kept: &KeptWindows, since: &crate::events::Since) -> bool {
    !since.overflowed
        && since.changes.iter().all(|c| {
            c.change != Change::Window
                && c.path != APP_ROOT
                && !kept
                    .windows
                    .iter()
                    .any(|w| ObjRef::parse(&w.handle).is_ok_and(|h| h.path() == c.path))
        })
}

impl AtspiBackend {
    /// Matches an AT-SPI window to an X window of the same process: the best of
    /// title equality, size agreement and overlap (GTK4 extents are window-relative,
    /// so sizes are compared separately from positions).
    pub(super) fn match_x_window<'a>(
        xwins: &'a [XWindow],
        pid: Option<u32>,
        title: &str,
        extents: Option<Extents>,
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
            if let Some(Extents {
                x,
                y,
                width: ew,
                height: eh,
            }) = extents
            {
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

    /// An application that does not answer, as a person knows it: its
    /// process's name and id (asked of the bus and /proc, not of it).
    async fn describe_unanswering(&self, dbus: &zbus::fdo::DBusProxy<'_>, bus: &str) -> String {
        let pid = match zbus::names::BusName::try_from(bus) {
            Ok(n) => dbus.get_connection_unix_process_id(n).await.ok(),
            Err(_) => None,
        };
        match pid {
            Some(pid) => {
                let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
                format!("{} (pid {pid})", comm.trim())
            }
            None => format!("the application on {bus}"),
        }
    }

    /// Finds the window containing an element, to focus it for keyboard input.
    pub(super) async fn window_of(&self, h: &ObjRef) -> Option<WindowInfo> {
        let bus = h.bus();
        // The window last captured for this application is where tools act.
        if let Some(w) = self.reuse.last_window(bus) {
            return Some(w);
        }
        let windows = self.list_windows().await.ok()?;
        windows
            .into_iter()
            .find(|w| w.handle.0.starts_with(&format!("{bus}|")))
    }

    /// One top-level of an application: its handle, title, states, role
    /// and extents, asked at once.
    async fn read_window(&self, wh: ObjRef) -> Option<WindowRead> {
        let acc = self.accessible(&wh).await.ok()?;
        let ext = async { self.extents(&wh).await.ok() };
        let (title, states, role, ext) = futures::join!(
            call(&wh, "Name", acc.name()),
            call(&wh, "GetState", acc.get_state()),
            call(&wh, "GetRole", acc.get_role()),
            ext
        );
        let states = states.ok()?;
        let role = role.unwrap_or(Role::Frame);
        Some(WindowRead {
            handle: wh.into_handle(),
            title: title.unwrap_or_default(),
            states,
            role,
            extents: ext,
        })
    }

    /// The showing top-level windows of every application — or only of the
    /// application on bus `only` — each application bounded by its own
    /// deadline (see [`Backend::list_windows`]).
    pub(super) async fn windows_now(&self, only: Option<&str>) -> Result<Vec<WindowInfo>> {
        let apps = self.listed_apps(only).await?;
        let dbus = zbus::fdo::DBusProxy::new(&self.conn)
            .await
            .map_err(|e| DesktopError::unreachable_by("the accessibility bus", e))?;
        let x = XSide {
            windows: self.x11.client_windows().unwrap_or_default(),
            focused: self.x11.focused_window(),
            screen: self.x11.screen_rect(),
        };
        // Per application: name, pid, windows — all applications at once.
        let per_app = join_all(
            apps.into_iter()
                .map(|app| self.read_app_in_time(&dbus, app)),
        )
        .await;
        let (answered, silent): (Vec<_>, Vec<_>) = per_app.into_iter().partition(Result::is_ok);
        self.apps
            .set_unresponsive(silent.into_iter().filter_map(Result::err).collect());
        let mut out = Vec::new();
        for mut app in answered.into_iter().filter_map(Result::ok).flatten() {
            let listed: Vec<(WindowInfo, bool)> = std::mem::take(&mut app.windows)
                .into_iter()
                .flatten()
                .filter_map(|w| {
                    let unnamed = w.title.trim().is_empty();
                    Some((window_info(&app, w, &x)?, unnamed))
                })
                .collect();
            out.extend(without_pieces(listed));
        }
        Ok(out)
    }

    /// The applications to ask for their windows, by their roots: the one
    /// on bus `only`, else every one the registry lists.
    async fn listed_apps(&self, only: Option<&str>) -> Result<Vec<ObjRef>> {
        // One application's windows need not go through the registry: its
        // root is at the well-known path on its own bus.
        if let Some(bus) = only {
            return Ok(vec![ObjRef::new(bus, APP_ROOT)]);
        }
        let root = bus::registry_root(&self.conn)
            .await
            .map_err(|e| DesktopError::unreachable_by("the accessibility registry", e))?;
        let rh = ObjRef::new("org.a11y.atspi.Registry", APP_ROOT);
        Ok(call(&rh, "GetChildren", root.get_children())
            .await?
            .iter()
            .filter_map(|a| Some(ObjRef::new(a.name_as_str()?, a.path_as_str())))
            .collect())
    }

    /// [`Self::read_app`] within [`APP_LIST_DEADLINE`]. One hung application
    /// must not stall the listing of the others: it is left out after a
    /// bounded wait, and said (the error is how a person knows it).
    async fn read_app_in_time(
        &self,
        dbus: &zbus::fdo::DBusProxy<'_>,
        app: ObjRef,
    ) -> std::result::Result<Option<AppWindows>, String> {
        let app_bus = app.bus().to_owned();
        match tokio::time::timeout(APP_LIST_DEADLINE, self.read_app(dbus, app)).await {
            Ok(v) => Ok(v),
            Err(_) => {
                tracing::warn!(bus = %app_bus, "application does not answer; left out of the window list");
                Err(self.describe_unanswering(dbus, &app_bus).await)
            }
        }
    }

    /// One application's name, pid, toolkit and top-levels, asked at once;
    /// `None` when it cannot be read.
    async fn read_app(&self, dbus: &zbus::fdo::DBusProxy<'_>, ah: ObjRef) -> Option<AppWindows> {
        let bus = ah.bus();
        let acc = self.accessible(&ah).await.ok()?;
        let pid = async {
            match zbus::names::BusName::try_from(bus) {
                Ok(n) => dbus.get_connection_unix_process_id(n).await.ok(),
                Err(_) => None,
            }
        };
        let (name, kids, pid) = futures::join!(
            call(&ah, "Name", acc.name()),
            call(&ah, "GetChildren", acc.get_children()),
            pid
        );
        let gtk4 = self.is_gtk4(bus).await;
        let kids = kids.ok()?;
        let windows = join_all(
            kids.iter()
                .filter_map(|k| Some(ObjRef::new(k.name_as_str()?, k.path_as_str())))
                .map(|wh| self.read_window(wh)),
        )
        .await;
        Some(AppWindows {
            name: name.unwrap_or_default(),
            pid,
            gtk4,
            windows,
        })
    }
}

/// One application as read for the window list.
struct AppWindows {
    /// Its accessible name.
    name: String,
    /// Its process, as the bus knows it.
    pid: Option<u32>,
    /// A GTK 4 application (window-relative extents).
    gtk4: bool,
    /// Its top-levels; `None` for one that could not be read.
    windows: Vec<Option<WindowRead>>,
}

/// What X11 says while windows are listed: its client windows, the one
/// with the focus, and the screen.
struct XSide {
    windows: Vec<XWindow>,
    focused: Option<u32>,
    screen: Rect<Screen>,
}

/// The window a person works in that top-level `w` of `app` is, matched to
/// its X window; `None` for one not showing, or parked off screen.
fn window_info(app: &AppWindows, w: WindowRead, x: &XSide) -> Option<WindowInfo> {
    let WindowRead {
        handle: wh,
        title,
        states,
        role,
        extents: ext,
    } = w;
    if !(states.contains(State::Visible) || states.contains(State::Showing)) {
        return None;
    }
    let xw = AtspiBackend::match_x_window(&x.windows, app.pid, &title, ext);
    let rect = window_rect(xw, ext, app.gtk4);
    // Window managers and toolkits park helper windows off screen
    // (xfwm4: 5x5 at -1000,-1000); they are not windows to work in.
    if rect.is_some_and(|r| r.area() < 64 || r.intersection(&x.screen).is_none()) {
        return None;
    }
    let focused = states.contains(State::Active) || xw.is_some_and(|w| Some(w.id) == x.focused);
    // A window the toolkit left unnamed (KCalc) has the title
    // its title bar shows, else its application's name.
    let title = [
        title.trim(),
        xw.map_or("", |w| w.title.trim()),
        app.name.trim(),
    ]
    .into_iter()
    .find(|t| !t.is_empty())
    .unwrap_or("(untitled)")
    .to_owned();
    Some(WindowInfo {
        id: xw.map_or_else(|| wh.0.clone(), |w| format!("{:#x}", w.id)),
        app_name: app.name.clone(),
        pid: app.pid,
        title,
        rect,
        focused,
        handle: wh,
        native_id: xw.map(|w| u64::from(w.id)),
        // Toolkits disagree on roles (GTK 4's Save As is a
        // "filler", Qt's dialogs are not "modal"): X11 says too.
        dialog: roles::is_dialog(role)
            || states.contains(State::Modal)
            || xw.is_some_and(|w| w.dialog || w.modal),
        modal: states.contains(State::Modal) || xw.is_some_and(|w| w.modal),
        owner: xw.and_then(|w| w.transient_for).map(u64::from),
    })
}

/// The windows of one application (each with whether the toolkit left it
/// unnamed) without the pieces of another: an unnamed top-level inside a
/// named one of the same X window is part of that window, not a window of
/// its own (Chromium's two 720×88 frames under its main one, which
/// `ufo windows` listed as three "Signup - Chromium").
fn without_pieces(listed: Vec<(WindowInfo, bool)>) -> Vec<WindowInfo> {
    let is_piece = |(w, unnamed): &(WindowInfo, bool)| {
        *unnamed && w.native_id.is_some() && listed.iter().any(|(o, o_unnamed)| {
            !o_unnamed
                && o.native_id == w.native_id
                && matches!((o.rect, w.rect), (Some(a), Some(b)) if a.intersection(&b) == Some(b))
        })
    };
    let pieces: Vec<bool> = listed.iter().map(is_piece).collect();
    listed
        .into_iter()
        .zip(pieces)
        .filter(|(_, piece)| !piece)
        .map(|((w, _), _)| w)
        .collect()
}

/// A top-level as read.
struct WindowRead {
    handle: ElementHandle,
    title: String,
    states: StateSet,
    role: Role,
    /// Its extents as the toolkit reports them (GTK 4's window-relative).
    extents: Option<Extents>,
}

/// Where a window is on screen: GTK 4 reports extents relative to its X
/// window; others report screen extents, or none (then the X window's).
fn window_rect(xw: Option<&XWindow>, ext: Option<Extents>, gtk4: bool) -> Option<Rect<Screen>> {
    match (xw, ext) {
        (Some(x), Some(e)) if gtk4 => Some(e.moved((x.rect.x, x.rect.y))),
        (_, Some(e)) if !e.is_empty() => Some(e.moved((0, 0))),
        (Some(x), _) => Some(x.rect),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(title: &str, native: u64, rect: (i32, i32, i32, i32)) -> WindowInfo {
        WindowInfo {
            id: format!("{native:#x}"),
            title: title.into(),
            native_id: Some(native),
            rect: Some(Rect::new(rect.0, rect.1, rect.2, rect.3)),
            app_name: "app".into(),
            pid: Some(7),
            focused: false,
            handle: ElementHandle(format!(":1.1|/w{native}")),
            dialog: false,
            modal: false,
            owner: None,
        }
    }

    #[test]
    fn an_unnamed_frame_inside_a_named_one_of_its_x_window_is_a_piece_of_it() {
        let main = window("Signup - Chromium", 0x40_0002, (10, 10, 1050, 1004));
        let listed = vec![
            (main.clone(), false),
            (
                window("Signup - Chromium", 0x40_0002, (109, 35, 720, 88)),
                true,
            ),
            (
                window("Signup - Chromium", 0x40_0002, (109, 35, 720, 89)),
                true,
            ),
        ];
        assert_eq!(without_pieces(listed), vec![main]);
    }

    #[test]
    fn unnamed_windows_of_their_own_stay_listed() {
        let main = window("Editor", 1, (0, 0, 800, 600));
        // Its own X window, or reaching outside the named one, or no named
        // window beside it: a window of its own.
        let own_x = window("Editor", 2, (10, 10, 100, 100));
        let outside = window("Editor", 1, (700, 500, 200, 200));
        let listed = vec![
            (main.clone(), false),
            (own_x.clone(), true),
            (outside.clone(), true),
        ];
        assert_eq!(without_pieces(listed), vec![main, own_x, outside]);
        let alone = window("Tool", 3, (0, 0, 50, 50));
        assert_eq!(without_pieces(vec![(alone.clone(), true)]), vec![alone]);
    }
}
