//! Tree capture: one capture of a window, from [`Capture::new`] (see
//! `context.rs`) through [`Capture::window`] — its root, the application's
//! cache and open popups, the walk (`walk.rs`), then [`Capture::finish`]
//! (popups placed, choices read, naming) — and the toolkit corrections
//! around it (GTK 4 offsets, LibreOffice's shifted positions); live re-reads
//! of one element. Reading one node is `read.rs`.

use super::cache::AppCache;
use super::children::Count;
use super::context::Capture;
use super::dbus::call;
use super::details::Text;
use super::identity::Identity;
use super::objref::ObjRef;
use super::plan::ReadKind;
use super::raw::RawNode;
use super::read::ReadNode;
use super::toolkit::Toolkit;
use super::walk::{Relations, Walked};
use super::{AtspiBackend, NAMING_TIME, Result};
use crate::labels::needs_name;
use atspi::{Role, State, StateSet};
use futures::future::join_all;
use std::collections::HashSet;
use std::future::Future;
use std::time::Duration;
use ufo_core::{ElementHandle, Point, Rect, Screen, UiNode, UiTree, WindowInfo};
use ufo_desktop::{DesktopError, TreeBudget};

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
    /// Showing popup top-levels (role window / menu) of the application that
    /// owns `window`, other than `window` itself, and the popups of it noted
    /// as open by whoever heard them open (Qt lists no open popup among its
    /// application's children; see [`Self::note_shown_popups`]).
    pub(super) async fn open_popups(&self, window: &ObjRef) -> Vec<ObjRef> {
        let bus = window.bus();
        let app = window.sibling("/org/a11y/atspi/accessible/root");
        let Ok(acc) = self.accessible(&app).await else {
            return Vec::new();
        };
        let Ok(tops) = call(&app, "GetChildren", acc.get_children()).await else {
            return Vec::new();
        };
        let mut candidates: Vec<ObjRef> = tops
            .iter()
            .map(|t| ObjRef::answered(bus, t))
            .filter(|h| h != window)
            .collect();
        for (b, p) in self.x11.noted_popups() {
            let h = ObjRef::new(&b, &p);
            if b == bus && !candidates.contains(&h) {
                candidates.push(h);
            }
        }
        let checks = join_all(
            candidates
                .into_iter()
                .map(|h| async move { self.is_open_popup(&h).await.then_some(h) }),
        )
        .await;
        checks.into_iter().flatten().collect()
    }

    /// Whether `h` is a popup (a window, menu or popup menu) on screen.
    async fn is_open_popup(&self, h: &ObjRef) -> bool {
        let Ok(acc) = self.accessible(h).await else {
            return false;
        };
        let (role, states) = futures::join!(
            call(h, "GetRole", acc.get_role()),
            call(h, "GetState", acc.get_state())
        );
        let (Ok(role), Ok(states)) = (role, states) else {
            return false;
        };
        matches!(role, Role::Window | Role::Menu | Role::PopupMenu)
            && states.contains(State::Showing)
    }

    /// Notes for later captures, in this process and the next, the popups
    /// among `paths` of application `bus` (elements it reported appearing)
    /// that are open now: a Qt tool button's menu is found nowhere else.
    /// Returns how many were.
    pub(super) async fn note_shown_popups(&self, bus: &str, paths: Vec<String>) -> usize {
        let open = join_all(paths.into_iter().map(|p| async move {
            let h = ObjRef::new(bus, &p);
            self.is_open_popup(&h).await.then(|| (bus.to_owned(), p))
        }))
        .await;
        let open: Vec<(String, String)> = open.into_iter().flatten().collect();
        self.x11.note_popups(&open);
        open.len()
    }

    /// The offset to add to this window's reported extents.
    pub(super) async fn extents_offset(&self, window: &WindowInfo) -> Result<(i32, i32)> {
        let w = ObjRef::parse(&window.handle)?;
        if !self.is_gtk4(w.bus()).await {
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
        // Each stage's future on the heap: in a debug build an inlined
        // capture's state and poll frames overflowed a 2 MiB test thread.
        let capture = Box::pin(Capture::new(self, window, budget)).await?;
        Box::pin(capture.window()).await
    }
}

impl Capture<'_> {
    /// The capture of the window: the window, its application's cache and
    /// open popups read in one round, then the walk down from the window,
    /// then the finishing (see [`Self::finish`]).
    pub(super) async fn window(mut self) -> Result<UiTree> {
        let (backend, started, window) = (self.backend, self.started, self.window);
        // Open menus and combo-box lists are separate top-levels of the same
        // application (role "window"); they belong to what the user sees in this
        // window, so they are captured as extra children of its root.
        let popups = async {
            match self.gtk4() {
                true => Vec::new(),
                false => backend.open_popups(&self.root).await,
            }
        };
        // What the last capture asked after its first round goes out in
        // this one's, after its own calls (see `ahead.rs`).
        let mut ahead = backend.begin_ahead(&window.handle.0, &self.root);
        let ((root_raw, cache, popups), ()) =
            futures::join!(self.window_cache_and_popups(popups), ahead.send());
        let mut root_raw = root_raw?;
        let root_labels = root_raw.labelled_by.take();
        tracing::debug!(
            ms = started.elapsed().as_secs_f64() * 1000.0,
            items = cache.len(),
            "capture: window, cache and popups read"
        );
        self.cache = cache;
        let mut root_children = root_raw.children.clone();
        root_children.extend(popups);
        let mut nodes = vec![root_raw.into_node(window.handle.clone(), 0, None, 0, self.offset)];
        let Walked {
            truncated,
            mut relations,
        } = Box::pin(self.walk(&mut nodes, root_children)).await;
        let mut nodes = super::walk::breadth_first(nodes);
        tracing::debug!(
            ms = started.elapsed().as_secs_f64() * 1000.0,
            nodes = nodes.len(),
            "capture: walked"
        );
        let left = self.budget.deadline.saturating_sub(started.elapsed());
        if let Some(targets) = root_labels {
            relations.insert(window.handle.0.clone(), targets);
        }
        Box::pin(self.finish(&mut nodes, &relations, left, None)).await;
        ahead.ended(&nodes);
        tracing::debug!(
            ms = started.elapsed().as_secs_f64() * 1000.0,
            nodes = nodes.len(),
            "capture: named"
        );
        let mut window = window.clone();
        // Only the on-screen part of a window can be seen or clicked: controls are
        // later filtered against this rectangle.
        if let Some(r) = nodes.first().and_then(|n| n.rect) {
            window.rect = r.intersection(&backend.x11.screen_rect()).or(Some(r));
        }
        if window.native_id.is_some() {
            backend.reuse.set_last_window(self.bus(), window.clone());
        }
        Ok(UiTree {
            window,
            nodes,
            truncated: truncated.is_some(),
            truncation: truncated,
        })
    }

    /// What every capture does once its nodes are read (`nodes`, with the
    /// `labelled-by` relations read with them): GTK 4's popovers and Qt's
    /// popup entries placed where they are drawn, closed choices read,
    /// placeholders and control types set right, and the unnamed controls
    /// named — all of them, or those of `only` (handles) — within `left`
    /// (at most [`NAMING_TIME`]).
    pub(super) async fn finish(
        &self,
        nodes: &mut [UiNode],
        relations: &Relations,
        left: Duration,
        only: Option<&HashSet<String>>,
    ) {
        // GTK 4 reports an open popover's contents where it is not drawn,
        // Qt a popup's shared entries where another menu holds them.
        match self.gtk4() {
            true => self.note_popovers(nodes),
            false => self.backend.place_qt_popup_entries(nodes).await,
        }
        self.backend.read_closed_choices(nodes).await;
        super::placeholders::list_placeholders_as_names(nodes);
        retype_frames_and_submenus(nodes);
        // Unnamed and class-named controls get the name a person would read.
        self.name_unnamed(nodes, relations, left.min(NAMING_TIME), only)
            .await;
    }

    /// The window, the application's cache and `popups`, in one round. The
    /// window is read live: a stale window must fail here. A GTK 3 window
    /// read before is asked only its rectangle, text and children while the
    /// cache is read; its states, name and description are the cache's
    /// (GTK 3's bridge computes them when the cache is read, see
    /// [`super::cache::Hint`]): two calls fewer in the round every capture
    /// starts with. Its children are asked, not taken from the cache: gedit's
    /// and evince's windows hold children the cache gives no index. When the
    /// cache does not hold it (a window that is gone: the full read that
    /// follows fails, as it must), it is read in full, one round later.
    async fn window_cache_and_popups(
        &self,
        popups: impl Future<Output = Vec<ObjRef>>,
    ) -> (Result<RawNode>, AppCache, Vec<ObjRef>) {
        let (backend, h, budget) = (self.backend, &self.root, &self.budget);
        let bus = h.bus();
        let gtk3 = self.toolkit == Toolkit::Gtk(3);
        let full = || {
            backend.read_node(
                h,
                ReadNode {
                    max_children: Some(budget.max_children),
                    kind: ReadKind::Window,
                    ..ReadNode::node(budget.max_text_chars)
                },
            )
        };
        let remembered = backend.plan(h).remembered.filter(|_| gtk3);
        let slow_cache = backend.cache_is_slow(bus);
        let (Some(Identity { ifaces, .. }), false) = (remembered, slow_cache) else {
            return futures::join!(full(), backend.app_cache(bus, gtk3), popups);
        };
        let Ok(acc) = backend.accessible(h).await else {
            return futures::join!(full(), backend.app_cache(bus, true), popups);
        };
        let limit = budget.max_children;
        let (details, children, cache, popups) = futures::join!(
            backend.read_details(h, ifaces, Text::Read(budget.max_text_chars)),
            backend.read_children(h, &acc, limit, StateSet::empty(), ifaces, Count::Uncounted),
            backend.app_cache(bus, true),
            popups
        );
        let hint = cache
            .hint(h.path())
            .filter(|hint| hint.name.as_deref().is_some_and(|n| !needs_name(n)));
        match (hint, children) {
            (Some(hint), Ok(children)) => {
                backend.identity.saw(h, hint.states);
                let raw = RawNode::cached(hint, children, details, budget.max_text_chars);
                (Ok(raw), cache, popups)
            }
            _ => (full().await, cache, popups),
        }
    }
}

impl AtspiBackend {
    /// One live read of an element (see [`Backend::refresh_node`]).
    pub(super) async fn refresh_once(&self, h: &ObjRef, max_text_chars: usize) -> Result<UiNode> {
        let raw = self.read_node(h, ReadNode::node(max_text_chars)).await?;
        if raw.states.contains(State::Defunct) {
            return Err(DesktopError::StaleElement {
                handle: h.0.clone(),
                detail: "the element is defunct".into(),
            });
        }
        let bus = h.bus();
        // A Qt menu entry that says it is not showing is measured in another
        // menu (see `qt_popups`): its rectangle is not where it is drawn.
        let misplaced = self.known_toolkit(bus) == Some(super::toolkit::Toolkit::Qt)
            && super::qt_popups::is_entry(raw.role.name())
            && !raw.states.contains(State::Showing);
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
        let mut node = raw.into_node(h.handle().clone(), 0, None, 0, offset);
        if misplaced {
            node.rect = None;
        }
        Ok(node)
    }

    /// Reads the rectangle of the panel holding each root pane where it was
    /// not read (an unnamed panel is a layout box, see
    /// [`super::plan::layout_box`]): [`shifted_root_pane`] compares the two.
    async fn measure_root_pane_holders(&self, nodes: &mut [UiNode]) {
        let holders: Vec<usize> = nodes
            .iter()
            .filter(|n| n.role == Role::RootPane.name())
            .filter_map(|n| n.parent)
            .filter(|&p| nodes.get(p).is_some_and(|p| p.rect.is_none()))
            .collect();
        for p in holders {
            if let Ok(h) = ObjRef::parse(&nodes[p].handle)
                && let Ok(e) = self.extents(&h).await
                && !e.is_empty()
            {
                nodes[p].rect = Some(e.moved((0, 0)));
            }
        }
    }

    /// A capture of `window`, taken again once when LibreOffice reports its
    /// positions shifted (see [`Backend::capture_tree`]).
    pub(super) async fn capture_settled(
        &self,
        window: &WindowInfo,
        budget: &TreeBudget,
    ) -> Result<UiTree> {
        let mut tree = Box::pin(self.capture_once(window, budget)).await?;
        self.measure_root_pane_holders(&mut tree.nodes).await;
        // LibreOffice reports what it draws itself 25 px too high (the GTK menu
        // bar's height) from its start until the pointer first moves over the
        // window; its own root pane then disagrees with the GTK panel holding
        // it. Moving the pointer onto the window, as a person's hand would,
        // makes it recompute; the capture is taken again once.
        if let Some((pane, rect)) = shifted_root_pane(&tree.nodes) {
            let pane = ObjRef::parse(&pane)?;
            tracing::debug!("positions reported shifted; moving the pointer over the window");
            let c = rect.center();
            self.x11.move_pointer(Point::new(c.x + 1, c.y + 1))?;
            self.x11.move_pointer(c)?;
            // It recomputes on its own schedule: wait (bounded) until its root
            // pane is where the GTK panel is.
            for _ in 0..20 {
                tokio::time::sleep(Duration::from_millis(50)).await;
                let now = self.extents(&pane).await?;
                if (now.x, now.y) == (rect.x, rect.y) {
                    break;
                }
            }
            return Box::pin(self.capture_once(window, budget)).await;
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
