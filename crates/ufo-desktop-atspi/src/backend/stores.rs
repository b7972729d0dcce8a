//! What the backend keeps between calls, in two stores beside
//! [`super::children::CellCache`] and [`super::identity::IdentityMemo`]:
//! [`Apps`], what is known of each application (learned once, used by
//! every capture and action), and [`Reuse`], what one capture or listing
//! leaves for the next. Each is locked only inside its own methods.

use super::dbus::Route;
use super::live::Kept;
use super::toolkit::Toolkit;
use super::windows::KeptWindows;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use ufo_core::WindowInfo;

/// Slow cache reads in a row after which an application's cache is not
/// asked again: LibreOffice's is slow every time, a GTK 3 application's
/// only when the machine is busy (one slow read under load used to switch
/// a cache off for good, and the captures after it read every layout box's
/// rectangle).
const SLOW_READS: u32 = 2;

/// What is known of the applications, by bus name.
#[derive(Default)]
pub(super) struct Apps {
    /// Each application's toolkit: GTK 4 extents are window-relative, GTK
    /// buttons act late, Qt lists no open popup.
    toolkits: Mutex<HashMap<String, Toolkit>>,
    /// How to reach each application.
    routes: Mutex<HashMap<String, Route>>,
    /// Applications whose texts are read with GetText(0, -1).
    whole_text: Mutex<HashSet<String>>,
    /// By application: how many of its last cache reads in a row were
    /// slow (see `cache.rs`).
    slow_caches: Mutex<HashMap<String, u32>>,
    /// Applications that did not answer the last window listing, as a
    /// person knows them.
    unresponsive: Mutex<Vec<String>>,
}

impl Apps {
    /// The toolkit learned for the application on `bus`.
    pub(super) fn toolkit(&self, bus: &str) -> Option<Toolkit> {
        self.toolkits.lock().ok().and_then(|m| m.get(bus).copied())
    }

    /// Remembers the toolkit of the application on `bus`.
    pub(super) fn learn_toolkit(&self, bus: &str, toolkit: Toolkit) {
        if let Ok(mut m) = self.toolkits.lock() {
            m.insert(bus.to_owned(), toolkit);
        }
    }

    /// How the application on `bus` is reached, if that was decided.
    pub(super) fn route(&self, bus: &str) -> Option<Route> {
        self.routes.lock().ok()?.get(bus).cloned()
    }

    /// Remembers `route` for the application on `bus` unless one was
    /// stored meanwhile, and returns the one stored (the first wins).
    pub(super) fn keep_route(&self, bus: &str, route: Route) -> Route {
        match self.routes.lock() {
            Ok(mut routes) => routes.entry(bus.to_owned()).or_insert(route).clone(),
            Err(_) => route,
        }
    }

    /// Whether the application on `bus` answers GetText only for its whole
    /// text (see `details.rs`).
    pub(super) fn reads_whole_text(&self, bus: &str) -> bool {
        self.whole_text.lock().is_ok_and(|m| m.contains(bus))
    }

    /// Remembers that the application on `bus` answers GetText only for
    /// its whole text.
    pub(super) fn note_whole_text(&self, bus: &str) {
        if let Ok(mut m) = self.whole_text.lock() {
            m.insert(bus.to_owned());
        }
    }

    /// Whether the cache of the application on `bus` was too slow
    /// [`SLOW_READS`] times in a row: it is not asked again.
    pub(super) fn cache_is_slow(&self, bus: &str) -> bool {
        self.slow_caches
            .lock()
            .is_ok_and(|s| s.get(bus).is_some_and(|&n| n >= SLOW_READS))
    }

    /// Notes whether a read of the cache of the application on `bus` was
    /// `slow`; true when that makes it too slow to ask again.
    pub(super) fn note_cache_read(&self, bus: &str, slow: bool) -> bool {
        let Ok(mut s) = self.slow_caches.lock() else {
            return false;
        };
        match slow {
            true => {
                let n = s.entry(bus.to_owned()).or_default();
                *n += 1;
                *n == SLOW_READS
            }
            false => {
                s.remove(bus);
                false
            }
        }
    }

    /// The applications that did not answer the last window listing.
    pub(super) fn unresponsive(&self) -> Vec<String> {
        self.unresponsive
            .lock()
            .map(|m| m.clone())
            .unwrap_or_default()
    }

    /// Sets the applications that did not answer the last window listing.
    pub(super) fn set_unresponsive(&self, apps: Vec<String>) {
        if let Ok(mut m) = self.unresponsive.lock() {
            *m = apps;
        }
    }
}

/// Most windows whose last capture is kept; past it, the store starts
/// afresh (only the windows observed lately are worth keeping).
const MAX_KEPT: usize = 16;

/// What one capture or window listing leaves for the next.
#[derive(Default)]
pub(super) struct Reuse {
    /// Window handle → its last capture (see `live.rs`).
    kept: Mutex<HashMap<String, Arc<Kept>>>,
    /// Per application (bus name): its last window list, kept while it
    /// reports no change to its windows (see `windows.rs`).
    kept_windows: Mutex<HashMap<String, KeptWindows>>,
    /// Per application (bus name): the window of it captured last.
    last_window: Mutex<HashMap<String, WindowInfo>>,
    /// Windows whose last capture had a GTK 4 popover moved onto its
    /// surface: never reused in part (a re-read element would lose the move).
    popover_open: Mutex<HashSet<String>>,
}

impl Reuse {
    /// The last capture of the window with handle `window`.
    pub(super) fn kept(&self, window: &str) -> Option<Arc<Kept>> {
        self.kept.lock().ok().and_then(|m| m.get(window).cloned())
    }

    /// Keeps `kept` as the last capture of the window with handle `window`.
    pub(super) fn keep(&self, window: &str, kept: Kept) {
        if let Ok(mut m) = self.kept.lock() {
            if m.len() >= MAX_KEPT && !m.contains_key(window) {
                m.clear();
            }
            m.insert(window.to_owned(), Arc::new(kept));
        }
    }

    /// What `f` makes of the window list kept for the application on
    /// `bus`, if one is (`None` from `f`: it is not to be used).
    pub(super) fn kept_windows<R>(
        &self,
        bus: &str,
        f: impl FnOnce(&KeptWindows) -> Option<R>,
    ) -> Option<R> {
        let m = self.kept_windows.lock().ok()?;
        f(m.get(bus)?)
    }

    /// Keeps `windows` as the window list of the application on `bus`.
    pub(super) fn keep_windows(&self, bus: &str, windows: KeptWindows) {
        if let Ok(mut m) = self.kept_windows.lock() {
            m.insert(bus.to_owned(), windows);
        }
    }

    /// The window of the application on `bus` captured last.
    pub(super) fn last_window(&self, bus: &str) -> Option<WindowInfo> {
        self.last_window
            .lock()
            .ok()
            .and_then(|m| m.get(bus).cloned())
    }

    /// Remembers `window` as the window of the application on `bus`
    /// captured last.
    pub(super) fn set_last_window(&self, bus: &str, window: WindowInfo) {
        if let Ok(mut m) = self.last_window.lock() {
            m.insert(bus.to_owned(), window);
        }
    }

    /// Whether the last capture of the window with handle `window` had a
    /// GTK 4 popover open.
    pub(super) fn popover_open(&self, window: &str) -> bool {
        self.popover_open.lock().is_ok_and(|m| m.contains(window))
    }

    /// Remembers whether the last capture of the window with handle
    /// `window` had a GTK 4 popover open.
    pub(super) fn note_popover(&self, window: &str, open: bool) {
        if let Ok(mut m) = self.popover_open.lock() {
            match open {
                true => m.insert(window.to_owned()),
                false => m.remove(window),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_is_ruled_slow_only_when_slow_twice_in_a_row() {
        let apps = Apps::default();
        assert!(!apps.note_cache_read(":1.5", true));
        assert!(!apps.cache_is_slow(":1.5"), "one slow read under load");
        assert!(!apps.note_cache_read(":1.5", false));
        assert!(!apps.note_cache_read(":1.5", true));
        assert!(!apps.cache_is_slow(":1.5"), "a fast read in between");
        assert!(apps.note_cache_read(":1.5", true));
        assert!(apps.cache_is_slow(":1.5"));
        assert!(!apps.cache_is_slow(":1.6"));
    }
}
