//! An application's own cache of its accessible objects (`Cache.GetItems`):
//! what it says of each object, and when it is not worth asking for.

use super::*;
use std::time::Instant;

/// A cache whose `GetItems` took longer than this is not asked for again:
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
    /// GTK 3's bridge gives children it cannot place index −1 (a scrolled
    /// window's scroll bars) and keeps a moved child under its old parent
    /// for a while; with this rule the cached children equalled GetChildren
    /// on all 388 trusted containers of gedit, thunar, evince, zenity,
    /// mousepad, xfce4-terminal, galculator and LibreOffice (Writer and
    /// Calc), measured; 67 others were left to GetChildren.
    pub(super) fn children_of(&self, path: &str, count: i32) -> Option<Vec<&str>> {
        let listed = self.children.get(path)?;
        let n = usize::try_from(count).ok()?;
        if listed.len() != n {
            return None;
        }
        let mut sorted: Vec<&(i32, String)> = listed.iter().collect();
        sorted.sort_by_key(|(i, _)| *i);
        sorted
            .iter()
            .enumerate()
            .all(|(want, (i, _))| usize::try_from(*i).ok() == Some(want))
            .then(|| sorted.iter().map(|(_, p)| p.as_str()).collect())
    }
}

impl AtspiBackend {
    /// The application's own cache of its accessible objects (one call), keyed
    /// by object path, with the names it holds when `names` (see [`Hint`]).
    /// Empty when the toolkit has no cache or does not answer.
    pub(super) async fn app_cache(&self, bus_name: &str, names: bool) -> AppCache {
        if self.slow_caches.lock().is_ok_and(|s| s.contains(bus_name)) {
            return AppCache::default();
        }
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
        let asked = Instant::now();
        let Ok(items) = call(&h, "GetItems", proxy.get_items()).await else {
            return AppCache::default();
        };
        let took = asked.elapsed();
        if took > SLOW_CACHE
            && let Ok(mut s) = self.slow_caches.lock()
        {
            tracing::debug!(
                bus_name,
                items = items.len(),
                ms = took.as_millis() as u64,
                "slow cache: not asked again"
            );
            s.insert(bus_name.to_owned());
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
