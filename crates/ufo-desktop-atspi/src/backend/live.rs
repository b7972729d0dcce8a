//! The live tree: a window's last capture kept between observations and
//! brought up to date from what its application reported (see
//! [`crate::events`]).
//!
//! A capture is reused as it is when the application reported nothing since
//! it was taken and the X window has not moved. When it reported changes to
//! a few elements' own facts (states, name, value, text, a leaf's extents,
//! a leaf hidden), only those elements are read again. A container that
//! reported new bounds is checked where it is (GTK reports bounds of
//! containers that did not move); one that moved, and a leaf that grew
//! children (GTK 4 reports a row added to a list only by the list's
//! bounds), has its branch read again and put in place (see
//! [`super::rewalk`]). Anything else structural — children added or
//! removed, a window created or closed, something shown, a container hidden,
//! the window itself moved, more than [`MAX_REFRESH`] elements, a log
//! overflow, a different budget, a capture cut short by its deadline, or an
//! event stream that stopped — makes the next observation a full capture,
//! as does a capture older than [`MAX_AGE`].

use super::context::Capture;
use super::dbus::call;
use super::objref::ObjRef;
use super::{AtspiBackend, Result};
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
    /// leaves to check for children.
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
            Change::Children | Change::Data => {
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
                // A leaf with new bounds may have grown children: GTK 4
                // reports a row added to an empty list only so.
                if (c.change, has_children) == (Change::Bounds, false) && !leaves.contains(&i) {
                    leaves.push(i);
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

/// Object path → node index, for every node of `tree`.
fn index_of(tree: &UiTree) -> HashMap<String, usize> {
    tree.nodes
        .iter()
        .filter_map(|n| {
            let h = ObjRef::parse(&n.handle).ok()?;
            Some((h.path().to_owned(), n.index))
        })
        .collect()
}

/// The indices whose read said yes; `None` when one read failed.
fn those(reads: Vec<Option<(usize, bool)>>) -> Option<Vec<usize>> {
    reads.into_iter().try_fold(Vec::new(), |mut picked, read| {
        let (i, yes) = read?;
        if yes {
            picked.push(i);
        }
        Some(picked)
    })
}

/// What a kept capture became once brought up to date.
enum Brought {
    /// It is true as it is.
    Unchanged,
    /// Some of its nodes were read again; its shape is the same.
    Refreshed(UiTree),
    /// Branches under moved containers were read again too.
    Reshaped(UiTree),
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
            return Box::pin(self.capture_settled(window, budget)).await;
        };
        ObjRef::parse(&window.handle)?;
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
        let kept: Option<Arc<Kept>> = self.reuse.kept(&window.handle.0);
        if let Some(kept) = kept
            && kept.budget == *budget
            && !kept
                .tree
                .truncation
                .as_deref()
                .is_some_and(|t| t.starts_with("deadline"))
            && kept.x_rect == x_rect
            && kept.taken.elapsed() < MAX_AGE
            && !self.reuse.popover_open(&window.handle.0)
        {
            let brought = self.bring_up_to_date(window, &kept, watch, budget).await;
            let update = match brought {
                Some(Brought::Unchanged) => {
                    tracing::trace!(window = %window.title, "tree unchanged: kept capture");
                    kept.mark.store(mark, std::sync::atomic::Ordering::Relaxed);
                    return Ok(kept.tree.clone());
                }
                Some(Brought::Refreshed(tree)) => Some((tree, kept.index.clone())),
                Some(Brought::Reshaped(tree)) => {
                    let index = Arc::new(index_of(&tree));
                    Some((tree, index))
                }
                None => None,
            };
            if let Some((tree, index)) = update {
                self.reuse.keep(
                    &window.handle.0,
                    Kept {
                        tree: tree.clone(),
                        mark: mark.into(),
                        budget: *budget,
                        x_rect,
                        offset: kept.offset,
                        index,
                        taken: kept.taken,
                    },
                );
                return Ok(tree);
            }
        }
        let tree = Box::pin(self.capture_settled(window, budget)).await?;
        let offset = self.extents_offset(window).await.unwrap_or((0, 0));
        let index = index_of(&tree);
        self.reuse.keep(
            &window.handle.0,
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

    /// `kept` brought up to date from the events of its application (see
    /// the module docs); `None` when only a full capture will do.
    async fn bring_up_to_date(
        &self,
        window: &WindowInfo,
        kept: &Kept,
        watch: &EventWatch,
        budget: &TreeBudget,
    ) -> Option<Brought> {
        let w = ObjRef::parse(&window.handle).ok()?;
        let (nodes, verify, leaves) = match plan(kept, watch, w.bus()) {
            Plan::Reuse { verify } => (Vec::new(), verify, Vec::new()),
            Plan::Refresh {
                nodes,
                verify,
                leaves,
            } => (nodes, verify, leaves),
            Plan::Full(why) => {
                tracing::trace!(window = %window.title, why, "full capture");
                return None;
            }
        };
        let (moved, grown) = futures::join!(self.moved(kept, &verify), self.grown(kept, &leaves));
        let (Some(mut moved), Some(grown)) = (moved, grown) else {
            tracing::trace!(window = %window.title, why = "an element is gone", "full capture");
            return None;
        };
        // A leaf that has children now is read again with them, as a
        // container that moved is.
        moved.extend(grown);
        if moved.is_empty() && nodes.is_empty() {
            return Some(Brought::Unchanged);
        }
        let tree = match nodes.is_empty() {
            true => kept.tree.clone(),
            false => self.refresh_kept(kept, &nodes, budget).await?,
        };
        tracing::trace!(window = %window.title, n = nodes.len(), "tree refreshed in place");
        if moved.is_empty() {
            return Some(Brought::Refreshed(tree));
        }
        let tree = self.reread_moved(tree, &moved, (budget, kept.offset)).await;
        if tree.is_none() {
            tracing::trace!(window = %window.title, why = "a container moved", "full capture");
        }
        tree.map(Brought::Reshaped)
    }

    /// `tree` with the branches of the `moved` containers read again (see
    /// [`super::rewalk`]); `None` when one cannot be.
    async fn reread_moved(
        &self,
        mut tree: UiTree,
        moved: &[usize],
        (budget, offset): (&TreeBudget, (i32, i32)),
    ) -> Option<UiTree> {
        let at = super::rewalk::branches(&tree.nodes, moved)?;
        let window = tree.window.clone();
        let cap = Capture::kept(self, &window, budget, offset).await?;
        let reads = join_all(at.iter().map(|&i| cap.reread_branch(&tree.nodes, i))).await;
        let mut relations = super::walk::Relations::new();
        let mut fresh = std::collections::HashSet::new();
        let mut branches = Vec::with_capacity(at.len());
        for (&i, read) in at.iter().zip(reads) {
            let (branch, rel) = read?;
            tracing::trace!(container = %tree.nodes[i].name, nodes = branch.len(), "branch read again");
            fresh.extend(branch.iter().map(|n| n.handle.0.clone()));
            relations.extend(rel);
            branches.push((i, branch));
        }
        tree.nodes = super::rewalk::splice(std::mem::take(&mut tree.nodes), branches);
        cap.finish(
            &mut tree.nodes,
            &relations,
            super::NAMING_TIME,
            Some(&fresh),
        )
        .await;
        Some(tree)
    }

    /// The containers of `verify` that are not where the kept capture has
    /// them (toolkits also report bounds of containers that did not move);
    /// `None` when one cannot be read.
    async fn moved(&self, kept: &Kept, verify: &[usize]) -> Option<Vec<usize>> {
        let reads = join_all(verify.iter().map(|&i| async move {
            let n = &kept.tree.nodes[i];
            let e = self.extents(&ObjRef::parse(&n.handle).ok()?).await.ok()?;
            let now = e.moved(kept.offset);
            let same = n.rect.is_none_or(|r| r == now);
            if !same {
                tracing::trace!(role = %n.role, name = %n.name, was = ?n.rect, now = ?now, children = n.children.len(), "container moved");
            }
            Some((i, !same))
        }))
        .await;
        those(reads)
    }

    /// The nodes of `leaves` that have children now; `None` when one cannot
    /// be read.
    async fn grown(&self, kept: &Kept, leaves: &[usize]) -> Option<Vec<usize>> {
        let reads = join_all(leaves.iter().map(|&i| async move {
            let h = &ObjRef::parse(&kept.tree.nodes[i].handle).ok()?;
            let acc = self.accessible(h).await.ok()?;
            let n = call(h, "ChildCount", acc.child_count()).await.ok()?;
            if n > 0 {
                tracing::trace!(role = %kept.tree.nodes[i].role, children = n, "a leaf grew children");
            }
            Some((i, n > 0))
        }))
        .await;
        those(reads)
    }

    /// Reads `nodes` of the kept capture again; `None` when one is gone or
    /// fails (a full capture follows).
    async fn refresh_kept(
        &self,
        kept: &Kept,
        nodes: &[usize],
        budget: &TreeBudget,
    ) -> Option<UiTree> {
        let reads = join_all(nodes.iter().map(|&i| async move {
            let h = ObjRef::parse(&kept.tree.nodes[i].handle)?;
            self.read_node(&h, super::read::ReadNode::node(budget.max_text_chars))
                .await
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
            let mut node = raw.into_node(old.handle.clone(), i, old.parent, old.depth, kept.offset);
            // What the capture derived stays: the name read off a label for
            // an unnamed control, the menu-item reading of a submenu.
            if node.name.is_empty() || crate::labels::is_class_name(&node.name) {
                node.name = old.name.clone();
            }
            if node.role == old.role {
                node.control_type = old.control_type.clone();
            }
            if let Some(parent) = old.parent.and_then(|p| tree.nodes.get(p)) {
                let unshown =
                    ObjRef::parse(&node.handle).is_ok_and(|h| self.menu_entries_unshown(&h));
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
}
