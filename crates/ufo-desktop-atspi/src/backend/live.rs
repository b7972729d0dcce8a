//! The live tree: a window's last capture kept between observations and
//! brought up to date from what its application reported (see
//! [`crate::events`]).
//!
//! A capture is reused as it is when the application reported nothing since
//! it was taken and the X window has not moved. When it reported changes to
//! a few elements' own facts (states, name, value, text, a leaf's extents,
//! a leaf hidden), only those elements are read again; a container that
//! reported new bounds is checked where it is (GTK reports bounds of
//! containers that did not move). Anything structural — children added or
//! removed, a window created or closed, something shown, a container hidden
//! or moved, more than [`MAX_REFRESH`] elements, a log overflow, a different
//! budget, a capture cut short by its deadline, or an event stream that
//! stopped — makes the next observation a full capture, as does a capture
//! older than [`MAX_AGE`].

use super::dbus::call;
use super::{AtspiBackend, Result, split_handle};
use crate::events::{Change, EventWatch};
use atspi::State;
use futures::future::join_all;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use ufo_core::{Rect, Screen, UiTree, WindowInfo};
use ufo_desktop::{DesktopError, TreeBudget};

/// Most elements read again in place of a full capture.
const MAX_REFRESH: usize = 48;

/// A kept capture is taken again from scratch after this long, whatever
/// the events said.
const MAX_AGE: Duration = Duration::from_secs(60);

/// One window's last capture, shared (`Arc`) so that looking at it copies
/// nothing.
pub(crate) struct Kept {
    tree: UiTree,
    /// The event sequence up to which the tree is known true.
    mark: std::sync::atomic::AtomicU64,
    budget: TreeBudget,
    /// The X window's rectangle then.
    x_rect: Option<Rect<Screen>>,
    /// The toolkit offset applied to extents.
    offset: (i32, i32),
    /// Object path → node index (the same for a tree refreshed in place).
    index: Arc<HashMap<String, usize>>,
    taken: Instant,
}

impl Kept {
    fn mark(&self) -> u64 {
        self.mark.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// How much of the kept capture is still true.
enum Plan {
    /// All of it, once these containers (indices) are found where they
    /// were (toolkits report bounds of containers that did not move).
    Reuse { verify: Vec<usize> },
    /// All but these nodes (indices), the containers to verify, and the
    /// leaves that must still have no children.
    Refresh {
        nodes: Vec<usize>,
        verify: Vec<usize>,
        leaves: Vec<usize>,
    },
    /// None of it.
    Full(&'static str),
}

fn plan(kept: &Kept, watch: &EventWatch, bus: &str) -> Plan {
    let since = watch.since(bus, kept.mark());
    if since.overflowed {
        return Plan::Full("too many changes");
    }
    let mut nodes: Vec<usize> = Vec::new();
    let mut verify: Vec<usize> = Vec::new();
    let mut leaves: Vec<usize> = Vec::new();
    for c in &since.changes {
        match c.change {
            Change::Window => return Plan::Full("its windows changed"),
            Change::Children => {
                // Children of an element the capture does not hold (another
                // window, the inside of a hidden branch) change nothing it
                // shows; the application's root is where new top-levels
                // (popups, dialogs) appear.
                let known = kept.index.get(&c.path).copied();
                match known {
                    None if !c.path.ends_with("/accessible/root") => continue,
                    // A leaf that says its children changed (LibreOffice's
                    // paragraphs, on every format change) is read again and
                    // checked to still be a leaf.
                    Some(i) if kept.tree.nodes[i].children.is_empty() => {
                        if !leaves.contains(&i) {
                            leaves.push(i);
                        }
                        if !nodes.contains(&i) {
                            nodes.push(i);
                        }
                        continue;
                    }
                    _ => {}
                }
                tracing::trace!(path = %c.path, "children changed");
                return Plan::Full("children were added or removed");
            }
            Change::Node | Change::Bounds => {
                // Elements outside the kept capture (other windows, unread
                // parts) change nothing the capture holds.
                let Some(&i) = kept.index.get(&c.path) else {
                    continue;
                };
                let has_children = !kept.tree.nodes[i].children.is_empty();
                match c.visibility {
                    // What lies below may need reading.
                    Some(true) => return Plan::Full("something was shown"),
                    Some(false) if has_children => {
                        return Plan::Full("a container was hidden");
                    }
                    _ => {}
                }
                let list = match (c.change, has_children) {
                    (Change::Bounds, true) => &mut verify,
                    _ => &mut nodes,
                };
                if !list.contains(&i) {
                    list.push(i);
                }
                if nodes.len() + verify.len() > MAX_REFRESH {
                    return Plan::Full("many elements changed");
                }
            }
        }
    }
    match nodes.is_empty() {
        true => Plan::Reuse { verify },
        false => Plan::Refresh {
            nodes,
            verify,
            leaves,
        },
    }
}

impl AtspiBackend {
    /// A capture of `window`, from the kept one when events allow (see the
    /// module docs).
    pub(super) async fn capture_live(
        &self,
        window: &WindowInfo,
        budget: &TreeBudget,
    ) -> Result<UiTree> {
        let Some(watch) = self.events.as_ref().filter(|w| w.is_live()) else {
            return self.capture_settled(window, budget).await;
        };
        let (bus, _) = split_handle(&window.handle)?;
        let x_rect = match window.native_id {
            Some(id) => match self.x11.window_rect(id as u32) {
                Ok(r) => Some(r),
                Err(e @ DesktopError::Unreachable { .. }) => return Err(e),
                Err(e) => {
                    return Err(DesktopError::StaleElement {
                        handle: window.handle.0.clone(),
                        detail: format!("its window is gone: {e}"),
                    });
                }
            },
            None => None,
        };
        let mark = watch.mark();
        let kept = self
            .kept
            .lock()
            .ok()
            .and_then(|m| m.get(&window.handle.0).cloned());
        let kept: Option<Arc<Kept>> = kept;
        if let Some(kept) = kept
            && kept.budget == *budget
            && !kept
                .tree
                .truncation
                .as_deref()
                .is_some_and(|t| t.starts_with("deadline"))
            && kept.x_rect == x_rect
            && kept.taken.elapsed() < MAX_AGE
            && !self
                .popover_open
                .lock()
                .is_ok_and(|m| m.contains(&window.handle.0))
        {
            match plan(&kept, watch, bus) {
                Plan::Reuse { verify } if self.unmoved(&kept, &verify).await => {
                    tracing::trace!(window = %window.title, "tree unchanged: kept capture");
                    kept.mark.store(mark, std::sync::atomic::Ordering::Relaxed);
                    return Ok(kept.tree.clone());
                }
                Plan::Refresh {
                    nodes,
                    verify,
                    leaves,
                } if self.unmoved(&kept, &verify).await
                    && self.still_leaves(&kept, &leaves).await =>
                {
                    if let Some(tree) = self.refresh_kept(&kept, &nodes, budget).await {
                        tracing::trace!(window = %window.title, n = nodes.len(), "tree refreshed in place");
                        self.keep(
                            window,
                            Kept {
                                tree: tree.clone(),
                                mark: mark.into(),
                                budget: *budget,
                                x_rect,
                                offset: kept.offset,
                                index: kept.index.clone(),
                                taken: kept.taken,
                            },
                        );
                        return Ok(tree);
                    }
                }
                Plan::Full(why) => tracing::trace!(window = %window.title, why, "full capture"),
                _ => {
                    tracing::trace!(window = %window.title, why = "a container moved", "full capture")
                }
            }
        }
        let tree = self.capture_settled(window, budget).await?;
        let offset = self.extents_offset(window).await.unwrap_or((0, 0));
        let index = tree
            .nodes
            .iter()
            .filter_map(|n| {
                let (_, path) = split_handle(&n.handle).ok()?;
                Some((path.to_owned(), n.index))
            })
            .collect();
        self.keep(
            window,
            Kept {
                tree: tree.clone(),
                mark: mark.into(),
                budget: *budget,
                x_rect,
                offset,
                index: Arc::new(index),
                taken: Instant::now(),
            },
        );
        Ok(tree)
    }

    /// True when every container in `verify` is where the kept capture has
    /// it (GTK reports bounds of containers that did not move).
    async fn unmoved(&self, kept: &Kept, verify: &[usize]) -> bool {
        let reads = join_all(verify.iter().map(|&i| async move {
            let n = &kept.tree.nodes[i];
            let (x, y, w, h) = self.extents(&n.handle).await.ok()?;
            let now = Rect::<Screen>::new(x + kept.offset.0, y + kept.offset.1, w, h);
            let same = n.rect.is_none_or(|r| r == now);
            if !same {
                tracing::trace!(role = %n.role, name = %n.name, was = ?n.rect, now = ?now, children = n.children.len(), "container moved");
            }
            Some(same)
        }))
        .await;
        reads.into_iter().all(|r| r == Some(true))
    }

    /// True when every node in `leaves` still has no children.
    async fn still_leaves(&self, kept: &Kept, leaves: &[usize]) -> bool {
        let reads = join_all(leaves.iter().map(|&i| async move {
            let h = &kept.tree.nodes[i].handle;
            let acc = self.accessible(h).await.ok()?;
            call(h, "ChildCount", acc.child_count()).await.ok()
        }))
        .await;
        reads.into_iter().all(|n| n == Some(0))
    }

    /// Reads `nodes` of the kept capture again; `None` when one is gone or
    /// fails (a full capture follows).
    async fn refresh_kept(
        &self,
        kept: &Kept,
        nodes: &[usize],
        budget: &TreeBudget,
    ) -> Option<UiTree> {
        let reads = join_all(nodes.iter().map(|&i| {
            let h = &kept.tree.nodes[i].handle;
            self.read_node(h, super::read::ReadNode::node(budget.max_text_chars))
        }))
        .await;
        let mut tree = kept.tree.clone();
        for (&i, raw) in nodes.iter().zip(reads) {
            let raw = raw.ok()?;
            if raw.states.contains(State::Defunct) {
                return None;
            }
            let old = &tree.nodes[i];
            let (role, states) = (raw.role, raw.states);
            let mut node = self.to_node(
                raw,
                old.handle.clone(),
                i,
                old.parent,
                old.depth,
                kept.offset,
            );
            // What the capture derived stays: the name read off a label for
            // an unnamed control, the menu-item reading of a submenu.
            if node.name.is_empty() || crate::labels::is_class_name(&node.name) {
                node.name = old.name.clone();
            }
            if node.role == old.role {
                node.control_type = old.control_type.clone();
            }
            if let Some(parent) = old.parent.and_then(|p| tree.nodes.get(p)) {
                let unshown = self.menu_entries_unshown(&node.handle);
                super::read::mark_seen_despite_state(role, states, &mut node, parent, unshown);
                // Where the capture placed an open popup's entry stays (Qt
                // reports a shared entry where another menu holds it).
                if unshown && parent.role == "popup menu" {
                    node.rect = old.rect;
                    node.states.set(
                        ufo_core::States::SHOWING,
                        old.states.contains(ufo_core::States::SHOWING),
                    );
                }
            }
            node.children = std::mem::take(&mut tree.nodes[i].children);
            tree.nodes[i] = node;
        }
        Some(tree)
    }

    fn keep(&self, window: &WindowInfo, kept: Kept) {
        if let Ok(mut m) = self.kept.lock() {
            // Only the windows observed lately are worth keeping.
            if m.len() >= 16 && !m.contains_key(&window.handle.0) {
                m.clear();
            }
            m.insert(window.handle.0.clone(), Arc::new(kept));
        }
    }
}
