//! An application's own cache of its accessible objects (`Cache.GetItems`):
//! what it says of each object, and when it is not worth asking for.

use super::AtspiBackend;
use super::dbus::{Route, call};
use super::objref::ObjRef;
use atspi::proxy::cache::CacheProxy;
use atspi::{InterfaceSet, Role, State, StateSet};
use std::collections::HashMap;
use std::time::Duration;
use std::time::Instant;
use zbus::proxy::CacheProperties;

/// A cache whose `GetItems` took longer than this twice in a row (see
/// `stores.rs`'s `SLOW_READS`) is not asked for again:
/// LibreOffice computes every item it ever made, shown or not, through its
/// own accessibility layer (Writer: 1,101 items in 62 to 115 ms, 80 µs
/// each, for the 267 elements a capture reads; GTK 3 applications answer
/// in about 18 µs an item: evince's 135 in 2.5 ms). Its elements are then
/// read as those of toolkits without a cache are (Qt, GTK 4), which costs
/// LibreOffice Writer less than half.
const SLOW_CACHE: Duration = Duration::from_millis(30);

/// What the application's cache already says about a node. Only the fields
/// toolkits compute live when the cache is read are used: role, states,
/// interfaces, description (equal to a live read on every node of GTK 3
/// applications and Firefox, measured), a child count that is known, and —
/// from GTK 3's bridge only — the name. GTK 3's bridge (GTK 3 applications
/// and LibreOffice) computes every item's name when the cache is read:
/// equal to a live read on every item of gedit, evince, thunar, mousepad,
/// xfce4-terminal, gnumeric and LibreOffice Writer (5,350 items, measured);
/// Firefox leaves names empty in its cache until they are asked for (12 of
/// 137 items), and its child order lags.
#[derive(Clone)]
pub(crate) struct Hint {
    pub(super) role: Role,
    pub(super) states: StateSet,
    pub(super) ifaces: InterfaceSet,
    /// Negative when the toolkit has not counted them yet.
    pub(super) children: i32,
    pub(super) description: String,
    /// The name, where the toolkit's cache holds it current.
    pub(super) name: Option<String>,
}

/// An application's `Cache.GetItems`, indexed by object path, and the
/// children it lists under each object (by their index in the parent).
#[derive(Default)]
pub(super) struct AppCache {
    items: HashMap<String, Hint>,
    children: HashMap<String, Vec<(i32, String)>>,
}

impl AppCache {
    /// How many elements it holds.
    pub(super) fn len(&self) -> usize {
        self.items.len()
    }

    pub(super) fn hint(&self, path: &str) -> Option<Hint> {
        self.items.get(path).cloned()
    }

    /// What the cache says of `path`, without a copy.
    pub(super) fn hint_ref(&self, path: &str) -> Option<&Hint> {
        self.items.get(path)
    }

    /// The object paths of `path`'s children, in order, when the cache can
    /// be trusted with them: it lists exactly `count` (the child count it
    /// holds for `path`) whose indices in the parent are 0, 1, … `count`−1.
    /// GTK 3's bridge keeps a moved child under its old parent for a while;
    /// with this rule the cached children equalled GetChildren on all 388
    /// trusted containers of gedit, thunar, evince, zenity, mousepad,
    /// xfce4-terminal, galculator and LibreOffice (Writer and Calc),
    /// measured. A scrolled window is the one exception the rule admits
    /// (see [`scroll_bars_last`]).
    pub(super) fn children_of(&self, path: &str, count: i32) -> Option<Vec<&str>> {
        let listed = self.children.get(path)?;
        let n = usize::try_from(count).ok()?;
        if listed.len() != n {
            return None;
        }
        let mut sorted: Vec<&(i32, String)> = listed.iter().collect();
        sorted.sort_by_key(|(i, _)| *i);
        let placed = sorted.partition_point(|(i, _)| *i < 0);
        let (unplaced, indexed) = sorted.split_at(placed);
        let in_order = indexed
            .iter()
            .enumerate()
            .all(|(want, (i, _))| usize::try_from(*i).ok() == Some(want));
        if !in_order {
            return None;
        }
        let mut kids: Vec<&str> = indexed.iter().map(|(_, p)| p.as_str()).collect();
        if !unplaced.is_empty() {
            let role = self.items.get(path)?.role;
            kids.extend(self.scroll_bars_last(role, unplaced)?);
        }
        Some(kids)
    }

    /// The children GTK 3's bridge gives index −1 in a scrolled window (role
    /// scroll pane), in the order GetChildren gives them: its scroll bars,
    /// which it lists after its content, the horizontal one first (GTK 3's
    /// `GtkScrolledWindowAccessible`). `None` for any other parent, or any
    /// other unplaced child. Every scrolled window of gedit, mousepad,
    /// gtk3-widget-factory, galculator, thunar, evince, xfce4-terminal and
    /// zenity (16) matched GetChildren, measured; placing them last in the
    /// cache's order matched 9 of 19.
    fn scroll_bars_last<'a>(
        &self,
        role: Role,
        unplaced: &[&'a (i32, String)],
    ) -> Option<Vec<&'a str>> {
        if role != Role::ScrollPane {
            return None;
        }
        let mut bars: Vec<(bool, &str)> = Vec::with_capacity(unplaced.len());
        for (_, p) in unplaced {
            let hint = self.items.get(p.as_str())?;
            let horizontal = hint.states.contains(State::Horizontal);
            if hint.role != Role::ScrollBar
                || horizontal == hint.states.contains(State::Vertical)
                || bars.iter().any(|(h, _)| *h == horizontal)
            {
                return None;
            }
            bars.push((horizontal, p.as_str()));
        }
        bars.sort_by_key(|(horizontal, _)| !horizontal);
        Some(bars.into_iter().map(|(_, p)| p).collect())
    }
}

impl AtspiBackend {
    /// Whether the application's cache was once too slow to ask again (see
    /// [`SLOW_CACHE`]).
    pub(super) fn cache_is_slow(&self, bus_name: &str) -> bool {
        self.apps.cache_is_slow(bus_name)
    }

    /// The application's own cache of its accessible objects (one call), keyed
    /// by object path, with the names it holds when `names` (see [`Hint`]).
    /// Empty when the toolkit has no cache or does not answer.
    pub(super) async fn app_cache(&self, bus_name: &str, names: bool) -> AppCache {
        if self.cache_is_slow(bus_name) {
            return AppCache::default();
        }
        let h = ObjRef::new(bus_name, "/org/a11y/atspi/cache");
        // Over the application's private socket when it has one, as every
        // other call: one hop less for the largest message of a capture.
        let route = self.route(bus_name).await;
        let b = match &route {
            Route::Bus => CacheProxy::builder(&self.conn),
            Route::P2p(c) => CacheProxy::builder(c),
        };
        let Ok(b) = b.destination(bus_name.to_owned()) else {
            return AppCache::default();
        };
        let Ok(b) = b.path("/org/a11y/atspi/cache") else {
            return AppCache::default();
        };
        let Ok(proxy) = b.cache_properties(CacheProperties::No).build().await else {
            return AppCache::default();
        };
        let asked = Instant::now();
        let Ok(items) = call(&h, "GetItems", proxy.get_items()).await else {
            return AppCache::default();
        };
        let took = asked.elapsed();
        if self.apps.note_cache_read(bus_name, took > SLOW_CACHE) {
            tracing::debug!(
                bus_name,
                items = items.len(),
                ms = took.as_millis() as u64,
                "slow cache: not asked again"
            );
        }
        let mut cache = AppCache::default();
        for item in items {
            cache
                .children
                .entry(item.parent.path_as_str().to_owned())
                .or_default()
                .push((item.index, item.object.path_as_str().to_owned()));
            let hint = Hint {
                role: item.role,
                states: item.states,
                ifaces: item.ifaces,
                children: item.children,
                // atspi names the cache's description field `name` (and
                // the name `short_name`).
                description: item.name,
                name: names.then_some(item.short_name),
            };
            cache
                .items
                .insert(item.object.path_as_str().to_owned(), hint);
        }
        cache
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint(role: Role, states: StateSet, children: i32) -> Hint {
        Hint {
            role,
            states,
            ifaces: InterfaceSet::empty(),
            children,
            description: String::new(),
            name: None,
        }
    }

    /// A cache of `parent` (a `role` with `kids.len()` children) holding
    /// `kids`: (index in the parent, path, role, states).
    fn cache(role: Role, kids: &[(i32, &str, Role, StateSet)]) -> AppCache {
        let mut c = AppCache::default();
        let n = i32::try_from(kids.len()).unwrap();
        c.items
            .insert("/p".into(), hint(role, StateSet::empty(), n));
        for (i, path, role, states) in kids {
            c.items.insert((*path).into(), hint(*role, *states, 0));
            c.children
                .entry("/p".into())
                .or_default()
                .push((*i, (*path).into()));
        }
        c
    }

    #[test]
    fn children_at_every_index_are_listed_in_order() {
        let shown = StateSet::new(State::Showing);
        let c = cache(
            Role::Panel,
            &[
                (1, "/b", Role::Label, shown),
                (0, "/a", Role::Button, shown),
            ],
        );
        assert_eq!(c.children_of("/p", 2), Some(vec!["/a", "/b"]));
        // A count the listing does not match, or a gap, is left to GetChildren.
        assert_eq!(c.children_of("/p", 3), None);
        let gap = cache(
            Role::Panel,
            &[
                (0, "/a", Role::Button, shown),
                (2, "/b", Role::Label, shown),
            ],
        );
        assert_eq!(gap.children_of("/p", 2), None);
    }

    #[test]
    fn a_scrolled_windows_bars_come_after_its_content_horizontal_first() {
        let h = StateSet::new(State::Horizontal);
        let v = StateSet::new(State::Vertical);
        let shown = StateSet::new(State::Showing);
        let kids = [
            (-1, "/v", Role::ScrollBar, v),
            (0, "/table", Role::Table, shown),
            (-1, "/h", Role::ScrollBar, h),
        ];
        let c = cache(Role::ScrollPane, &kids);
        assert_eq!(c.children_of("/p", 3), Some(vec!["/table", "/h", "/v"]));
        // Anywhere else, or with an unplaced child that is no scroll bar (or
        // two bars of one orientation), the order is not known.
        assert_eq!(cache(Role::Panel, &kids).children_of("/p", 3), None);
        let odd = [(0, "/t", Role::Table, shown), (-1, "/x", Role::Label, h)];
        assert_eq!(cache(Role::ScrollPane, &odd).children_of("/p", 2), None);
        let twice = [
            (-1, "/a", Role::ScrollBar, v),
            (-1, "/b", Role::ScrollBar, v),
        ];
        assert_eq!(cache(Role::ScrollPane, &twice).children_of("/p", 2), None);
    }
}
