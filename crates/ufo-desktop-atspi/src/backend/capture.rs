//! Tree capture: reading nodes (cache hints, details, texts), converting them,
//! the breadth-first walk of a window with its budgets, open popups, and the
//! toolkit corrections (GTK 4 offsets, LibreOffice's shifted positions).

use super::walk::WalkContext;
use super::*;

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
    ifaces: InterfaceSet,
    /// Negative when the toolkit has not counted them yet.
    pub(super) children: i32,
    description: String,
    /// The name, where the toolkit's cache holds it current.
    name: Option<String>,
}

/// An application's `Cache.GetItems`, indexed by object path, and the
/// children it lists under each object (by their index in the parent).
#[derive(Default)]
pub(super) struct AppCache {
    items: HashMap<String, Hint>,
    children: HashMap<String, Vec<(i32, String)>>,
}

impl AppCache {
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

/// Raw facts of one node, before conversion.
pub(crate) struct RawNode {
    pub(super) role: Role,
    pub(super) name: String,
    pub(super) description: String,
    pub(super) states: StateSet,
    pub(super) ifaces: InterfaceSet,
    pub(super) children: Vec<(String, String)>,
    /// Set when only part of the children were read (huge container).
    pub(super) children_note: Option<String>,
    pub(super) extents: Option<(i32, i32, i32, i32)>,
    actions: Vec<String>,
    pub(super) text: Option<String>,
    value: Option<f64>,
}

impl RawNode {
    /// A node known by its identity alone: no rectangle, actions, text,
    /// value or children were read.
    fn identity(
        role: Role,
        states: StateSet,
        ifaces: InterfaceSet,
        name: Option<String>,
        description: Option<String>,
    ) -> Self {
        RawNode {
            role,
            name: name.unwrap_or_default(),
            description: description.unwrap_or_default(),
            states,
            ifaces,
            children: Vec::new(),
            children_note: None,
            extents: None,
            actions: Vec::new(),
            text: None,
            value: None,
        }
    }
}

/// What one read of a node asks for (see [`AtspiBackend::read_node`]).
#[derive(Clone, Default)]
pub(crate) struct ReadNode {
    /// Most characters of its text.
    pub(crate) max_text: usize,
    /// Most children read; `None`: none.
    pub(crate) max_children: Option<usize>,
    /// What the application's cache says of it.
    pub(crate) hint: Option<Hint>,
    /// The node's parent is showing and is not the window: a node that says
    /// it is not showing cannot be seen (a closed popover, another notebook
    /// page, KCalc's 63 hidden buttons of 100 nodes), is never listed, and
    /// its branch is not entered, so its rectangle, actions, text, value and
    /// children are not read — nor its name and description unless the cache
    /// holds them. A live re-read of it (an event) reads it in full.
    pub(crate) lean: bool,
}

impl ReadNode {
    /// A full read of one node: `max_text` characters, no children.
    pub(crate) fn node(max_text: usize) -> Self {
        ReadNode {
            max_text,
            ..ReadNode::default()
        }
    }
}

pub(super) fn truncate(s: String, max: usize) -> String {
    if s.chars().count() <= max {
        s
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

pub(super) fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// LibreOffice's root pane and the rectangle of the GTK panel holding it,
/// when the two have the same size but not the same place (see
/// [`AtspiBackend::capture_tree`]).
pub(super) fn shifted_root_pane(nodes: &[UiNode]) -> Option<(ElementHandle, Rect<Screen>)> {
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

impl AtspiBackend {
    /// Reads everything about one node, issuing its calls concurrently. With a
    /// `hint` from the application's cache, role, states, interfaces and child
    /// count are taken from it and every remaining call goes out in a single
    /// round; without one, identity goes first and the rest in a second round.
    /// `max_children` (`None`: no children) bounds how many children are read:
    /// see [`AtspiBackend::read_children`]. With `lean`, a node that says it
    /// is not showing (nor defunct) is read no further than its identity and
    /// what the cache holds: see [`ReadNode::lean`].
    pub(crate) async fn read_node(&self, h: &ElementHandle, ask: ReadNode) -> Result<RawNode> {
        let ReadNode {
            max_text,
            max_children,
            hint,
            lean,
        } = ask;
        let acc = self.accessible(h).await?;
        let (role, states, ifaces, count, (name, description)) = match hint {
            // Caches count no managed descendants (LibreOffice's says 0);
            // a negative count is one not known yet.
            Some(x) => (
                x.role,
                x.states,
                x.ifaces,
                (!x.states.contains(State::ManagesDescendants) && x.children >= 0)
                    .then_some(x.children),
                (x.name, Some(x.description)),
            ),
            None => {
                // What the element is, unless read before (see
                // `identity.rs`). Name and description come along unless
                // the node may turn out hidden (then they wait for its
                // states), and so does the child count (a hidden node's is
                // never needed; a shown one's is asked with its children).
                let known = self.identity.get(h);
                let identity = async {
                    if let Some(x) = known {
                        return Ok(x);
                    }
                    let (role, ifaces) = futures::join!(
                        call(h, "GetRole", acc.get_role()),
                        call(h, "GetInterfaces", acc.get_interfaces()),
                    );
                    let role = role?;
                    Ok::<_, DesktopError>(match ifaces {
                        Ok(ifaces) => {
                            self.identity.remember(h, role, ifaces);
                            (role, ifaces)
                        }
                        Err(_) => (role, InterfaceSet::empty()),
                    })
                };
                let (identity, states, name, description, count) = futures::join!(
                    identity,
                    call(h, "GetState", acc.get_state()),
                    async {
                        match lean {
                            true => None,
                            false => call(h, "Name", acc.name()).await.ok(),
                        }
                    },
                    async {
                        match lean {
                            true => None,
                            false => call(h, "Description", acc.description()).await.ok(),
                        }
                    },
                    async {
                        match (max_children, lean) {
                            (None, _) => Some(0),
                            (Some(_), true) => None,
                            (Some(_), false) => {
                                match call(h, "ChildCount", acc.child_count()).await {
                                    Ok(n) => Some(n),
                                    Err(e) => {
                                        tracing::debug!(%h, error = %e, "ChildCount failed");
                                        Some(0)
                                    }
                                }
                            }
                        }
                    },
                );
                let (role, ifaces) = identity?;
                (role, states?, ifaces, count, (name, description))
            }
        };
        if lean && !states.contains(State::Showing) && !states.contains(State::Defunct) {
            return Ok(RawNode::identity(role, states, ifaces, name, description));
        }
        // Name and description in the second round when the cache has none
        // (no call is spent on them for a node found hidden).
        let name_f = async {
            match name {
                Some(name) => Ok(name),
                None => call(h, "Name", acc.name()).await,
            }
        };
        let description_f = async {
            match description {
                Some(d) => Ok(d),
                None => call(h, "Description", acc.description()).await,
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
        let (name, description, children, details) = futures::join!(
            name_f,
            description_f,
            children_f,
            self.read_details(h, ifaces, self.text_budget(h, states, max_text))
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

    /// How much of an element's text to read: none of an element that says
    /// it is not showing — a person cannot read it, and Evince dies when
    /// asked for the text of a page it has not laid out yet (measured: 3 of 3
    /// launches) — except in GTK 4, which says "showing" of nothing below
    /// the window.
    fn text_budget(&self, h: &ElementHandle, states: StateSet, max_text: usize) -> usize {
        let gtk4 = split_handle(h)
            .ok()
            .and_then(|(bus, _)| self.known_toolkit(bus))
            .is_some_and(|t| t == super::Toolkit::Gtk(4));
        if states.contains(State::Showing) || gtk4 {
            max_text
        } else {
            0
        }
    }

    /// Extents, action names, text and value — each only when the interface is
    /// there — concurrently.
    pub(super) async fn read_details(
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
    /// by object path, with the names it holds when `names` (see [`Hint`]).
    /// Empty when the toolkit has no cache or does not answer.
    pub(super) async fn app_cache(&self, bus_name: &str, names: bool) -> AppCache {
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

    pub(super) fn to_node(
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
            states: crate::roles::states(raw.states, raw.role),
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

    /// Showing popup top-levels (role window / menu) of the application that
    /// owns `window`, other than `window` itself.
    pub(super) async fn open_popups(&self, window: &ElementHandle) -> Vec<(String, String)> {
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
    pub(super) async fn extents_offset(&self, window: &WindowInfo) -> Result<(i32, i32)> {
        let (bus, _) = split_handle(&window.handle)?;
        if !self.is_gtk4(bus).await {
            return Ok((0, 0));
        }
        match window.native_id {
            Some(id) => match self.x11.window_origin(id as u32) {
                Ok(o) => Ok((o.x, o.y)),
                Err(e @ DesktopError::Unreachable { .. }) => Err(e),
                Err(e) => Err(DesktopError::StaleElement {
                    handle: window.handle.0.clone(),
                    detail: format!("its X window is gone: {e}"),
                }),
            },
            None => Ok((0, 0)),
        }
    }

    /// One capture of `window` (see [`Backend::capture_tree`]).
    pub(super) async fn capture_once(
        &self,
        window: &WindowInfo,
        budget: &TreeBudget,
    ) -> Result<UiTree> {
        let started = Instant::now();
        let offset = self.extents_offset(window).await?;
        let (bus, _) = split_handle(&window.handle)?;
        // Open menus and combo-box lists are separate top-levels of the same
        // application (role "window"); they belong to what the user sees in this
        // window, so they are captured as extra children of its root.
        let gtk = self.gtk_version(bus).await;
        let gtk4 = gtk == 4;
        let popups = async {
            match gtk4 {
                true => Vec::new(),
                false => self.open_popups(&window.handle).await,
            }
        };
        // The window itself is read live (a stale window must fail here); the
        // application's cache and its open popups come along in the same round.
        let (root_raw, cache, popups) = futures::join!(
            self.read_node(
                &window.handle,
                ReadNode {
                    max_children: Some(budget.max_children),
                    ..ReadNode::node(budget.max_text_chars)
                }
            ),
            self.app_cache(bus, gtk == 3),
            popups
        );
        let root_raw = root_raw?;
        tracing::debug!(
            ms = started.elapsed().as_secs_f64() * 1000.0,
            items = cache.items.len(),
            "capture: window, cache and popups read"
        );
        let mut root_children = root_raw.children.clone();
        root_children.extend(popups);
        let mut nodes = vec![self.to_node(root_raw, window.handle.clone(), 0, None, 0, offset)];
        let ctx = WalkContext {
            bus,
            cache: &cache,
            budget,
            offset,
            deadline: tokio::time::Instant::from_std(started) + budget.deadline,
        };
        let truncated = self.walk(&mut nodes, root_children, &ctx).await;
        let mut nodes = super::walk::breadth_first(nodes);
        tracing::debug!(
            ms = started.elapsed().as_secs_f64() * 1000.0,
            nodes = nodes.len(),
            "capture: walked"
        );
        // GTK 4 reports an open popover's contents where it is not drawn.
        if gtk4 {
            self.note_popovers(window, &mut nodes);
        }
        retype_frames_and_submenus(&mut nodes);
        // Unnamed and class-named controls get the name a person would read.
        let left = budget.deadline.saturating_sub(started.elapsed());
        self.name_unnamed(&mut nodes, left.min(NAMING_TIME)).await;
        tracing::debug!(
            ms = started.elapsed().as_secs_f64() * 1000.0,
            nodes = nodes.len(),
            "capture: named"
        );
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

    /// Places GTK 4's open popovers where they are drawn and remembers
    /// whether `window` has one open (it is then always captured in full).
    fn note_popovers(&self, window: &WindowInfo, nodes: &mut [UiNode]) {
        let placed = self.place_gtk4_popovers(window, nodes);
        if let Ok(mut m) = self.popover_open.lock() {
            match placed {
                true => m.insert(window.handle.0.clone()),
                false => m.remove(&window.handle.0),
            };
        }
    }

    /// One live read of an element (see [`Backend::refresh_node`]).
    pub(super) async fn refresh_once(
        &self,
        h: &ElementHandle,
        max_text_chars: usize,
    ) -> Result<UiNode> {
        let raw = self.read_node(h, ReadNode::node(max_text_chars)).await?;
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
                        DesktopError::Unreachable { .. } => e,
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

    /// A capture of `window`, taken again once when LibreOffice reports its
    /// positions shifted (see [`Backend::capture_tree`]).
    pub(super) async fn capture_settled(
        &self,
        window: &WindowInfo,
        budget: &TreeBudget,
    ) -> Result<UiTree> {
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
}

/// Control types the role alone gets wrong. A frame inside a window is no
/// window, and a menu inside a menu bar or menu is an item that opens a
/// submenu.
fn retype_frames_and_submenus(nodes: &mut [UiNode]) {
    // A frame inside a window is no window: Qt draws panels and displays
    // as frames (KCalc's display is a frame named by what it shows). A
    // named leaf is text a person reads; one with children a pane.
    for n in nodes.iter_mut().skip(1) {
        if n.role == "frame" {
            n.control_type = if n.children.is_empty() && !n.name.trim().is_empty() {
                ufo_core::ControlType::Text
            } else {
                ufo_core::ControlType::Pane
            };
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
}
