//! The walk of a window's tree, pipelined: the children of a node are asked
//! for as soon as the node has been read, so a capture costs the longest
//! chain of reads from the window down, not the slowest read of every level
//! (a text view whose text takes 5 ms no longer holds up the rest of the
//! window). Where the application's cache lists a shown node's children
//! (see [`super::cache::AppCache::children_of`]), they are not asked for at all: they are
//! read in the same round as the node, so a GTK 3 window whose cache knows
//! its tree is read in one round however deep it is, and only containers
//! the cache cannot vouch for (and those that manage their descendants) wait
//! for their own read. The nodes are numbered breadth first once the walk
//! is done, so a capture's order does not depend on which application
//! answered first.

use super::Result;
use super::context::Capture;
use super::details::Extents;
use super::objref::ObjRef;
use super::plan::ReadKind;
use super::raw::RawNode;
use super::read::{ReadNode, mark_seen_despite_state};
use atspi::{Interface, Role, State};
use futures::StreamExt;
use futures::future::join_all;
use futures::stream::FuturesUnordered;
use std::collections::VecDeque;
use tokio::time::error::Elapsed;
use ufo_core::UiNode;
use ufo_desktop::TreeBudget;
use ufo_desktop::filter::MAX_EMPTY_CELLS;

/// Where a walk starts.
#[derive(Clone, Copy)]
pub(super) struct Start {
    /// The depth of the node it starts from (0: the window).
    pub(super) depth: u32,
    /// That node's children are a table's visible cells (see
    /// [`Queued::cells`]).
    pub(super) cells: bool,
}

impl Start {
    /// From the window.
    pub(super) const WINDOW: Start = Start {
        depth: 0,
        cells: false,
    };
}

/// The children of one node, read together: the rule that hides a branch
/// looks at a node's siblings.
struct Group {
    parent: usize,
    depth: u32,
    kids: Vec<ObjRef>,
    /// The parent is showing and is not the window: a child that says it is
    /// not showing is read no further (see [`ReadKind::IfShown`]).
    lean: bool,
    /// The parent is the window: its children are read lean, states first
    /// (see [`ReadKind::IfShownStatesFirst`]), and read again in full when none
    /// says it shows (GTK 4 says "showing" of the window only).
    under_window: bool,
    /// Per kid: its children come from the cache, planned in the same batch
    /// (it is read without them).
    planned: Vec<bool>,
    /// The parent's other children, read only when a kid shows (see
    /// [`Queued::probe`]).
    rest: Vec<ObjRef>,
    /// The kids are a table's visible cells (see [`Queued::cells`]).
    cells: bool,
}

impl Group {
    /// How its kids are read: only if shown when [`Group::lean`] or
    /// [`Group::under_window`] (states first under the window), and, when
    /// `cells_only`, only if filled.
    fn kind(&self, cells_only: bool) -> ReadKind {
        match (self.lean || self.under_window, cells_only) {
            (true, true) => ReadKind::IfShownAndFilled,
            (false, true) => ReadKind::IfFilled,
            (true, false) if self.under_window => ReadKind::IfShownStatesFirst,
            (true, false) => ReadKind::IfShown,
            (false, false) => ReadKind::Full,
        }
    }
}

/// Where a group of a batch goes.
#[derive(Clone, Copy)]
enum Under {
    /// Under a node already placed.
    Node(usize),
    /// Under kid `kid` of the batch's group `group`, once that is placed.
    Kid { group: usize, kid: usize },
}

/// Groups read in one round: one admitted group and, planned from the
/// application's cache, the groups below it whose children the cache knows.
/// Every group comes after the group holding its parent.
type Batch = Vec<(Under, Group)>;

/// A node whose children are to be read.
struct Queued {
    /// Its index.
    parent: usize,
    /// Its depth.
    depth: u32,
    /// Its children.
    kids: Vec<ObjRef>,
    /// Only the first child is read at first, the others when it shows: the
    /// node is a closed menu (see [`closed_menu`]).
    probe: bool,
    /// The children are a table's cells under its visible area: when there
    /// are more than [`MAX_EMPTY_CELLS`], each is read only if filled (see
    /// [`ReadKind::IfFilled`]).
    cells: bool,
}

/// True for a menu of a menu bar or a submenu that says it is not open
/// (neither selected nor expanded): its items are drawn together or not at
/// all, so the first one tells whether the others can be seen. A closed
/// menu's items all say they are not showing; reading them only to learn
/// so cost LibreOffice Writer over 600 calls a capture (its menu bar's 300
/// items, which its cache does not hold until a menu was opened). An open
/// menu that does not say so still shows its first item, and all are read.
fn closed_menu(role: Role, states: atspi::StateSet, parent_role: &str) -> bool {
    role == Role::Menu
        && !states.contains(State::Selected)
        && !states.contains(State::Expanded)
        && (parent_role == Role::MenuBar.name() || parent_role == Role::Menu.name())
}

/// Each child's read, or the deadline that cut it short.
type Reads = Vec<std::result::Result<Result<RawNode>, Elapsed>>;

/// The walk's bookkeeping: how many nodes are promised (read or in flight)
/// and why it stopped short, if it did.
struct Admission<'a> {
    promised: usize,
    budget: &'a TreeBudget,
    truncated: Option<String>,
    deadline_hit: bool,
    /// What labels the unnamed controls read so far (handle → targets).
    relations: Relations,
}

/// What a walk tells besides its nodes.
pub(super) struct Walked {
    /// Why it stopped short, if a budget or the deadline cut it.
    pub(super) truncated: Option<String>,
    /// The `labelled-by` relations read with the nodes.
    pub(super) relations: Relations,
}

/// The `labelled-by` targets read with the nodes: handle → targets.
pub(super) type Relations = std::collections::HashMap<String, Vec<ObjRef>>;

impl Admission<'_> {
    /// The group to read for `kids` of node `parent` (at `depth`), within the
    /// node and depth budgets; `None` when nothing of it is to be read.
    fn admit(&mut self, parent: usize, depth: u32, kids: Vec<ObjRef>) -> Option<Group> {
        if kids.is_empty() || self.deadline_hit {
            return None;
        }
        if depth >= self.budget.max_depth {
            self.truncated
                .get_or_insert_with(|| format!("depth budget {} reached", self.budget.max_depth));
            return None;
        }
        let room = self.budget.max_nodes.saturating_sub(self.promised);
        if kids.len() > room {
            self.truncated = Some(format!("node budget {} reached", self.budget.max_nodes));
        }
        let kids: Vec<ObjRef> = kids.into_iter().take(room).collect();
        self.promised += kids.len();
        (!kids.is_empty()).then(|| Group {
            parent,
            depth: depth + 1,
            planned: vec![false; kids.len()],
            kids,
            lean: false,
            under_window: false,
            rest: Vec::new(),
            cells: false,
        })
    }

    /// `first` (under node `parent`) and every group below it the cache can
    /// plan: the children of each kid that the cache says is showing, does
    /// not manage its descendants, is no menu (of a closed one only the
    /// first item is read, see [`closed_menu`]), and whose children it can
    /// be trusted with (see [`super::cache::AppCache::children_of`]), within
    /// the budgets. A bar's items are read with the bar, and dropped with
    /// it when it has no extents (see [`Capture::place_group`]): one round
    /// less under a menu bar.
    fn plan(&mut self, parent: usize, first: Group, cap: &Capture<'_>) -> Batch {
        let mut batch: Batch = vec![(Under::Node(parent), first)];
        let mut g = 0;
        while g < batch.len() {
            let depth = batch[g].1.depth;
            for kid in 0..batch[g].1.kids.len() {
                let Some(kids) = planned_children(&batch[g].1.kids[kid], cap) else {
                    continue;
                };
                if let Some(mut sub) = self.admit(usize::MAX, depth, kids) {
                    // The kid is showing and is not the window.
                    sub.lean = true;
                    batch[g].1.planned[kid] = true;
                    batch.push((Under::Kid { group: g, kid }, sub));
                }
            }
            g += 1;
        }
        batch
    }
}

/// The children of `h` as the application's cache lists them, when it can
/// plan them (see [`Admission::plan`]).
fn planned_children(h: &ObjRef, cap: &Capture<'_>) -> Option<Vec<ObjRef>> {
    let path = h.path();
    if !cap.plan_children || h.bus() != cap.bus() {
        return None;
    }
    let hint = cap.cache.hint_ref(path)?;
    let plannable = hint.states.contains(State::Showing)
        && !hint.states.contains(State::ManagesDescendants)
        && !matches!(hint.role, Role::Menu | Role::PopupMenu)
        && hint.children > 0
        && usize::try_from(hint.children).is_ok_and(|n| n <= cap.budget.max_children);
    if !plannable {
        return None;
    }
    let kids = cap.cache.children_of(path, hint.children)?;
    Some(kids.into_iter().map(|p| h.sibling(p)).collect())
}

impl Capture<'_> {
    /// Reads the tree under `nodes[0]` (whose children are `root_children`)
    /// into `nodes`, in the order the reads complete. Returns why the walk
    /// stopped short, if a budget cut it, and the `labelled-by` relations
    /// read with the nodes.
    pub(super) async fn walk(&self, nodes: &mut Vec<UiNode>, root_children: Vec<ObjRef>) -> Walked {
        self.walk_from(nodes, root_children, Start::WINDOW).await
    }

    /// [`Self::walk`] from `start`: the window, or a container of it read
    /// again on its own (see `rewalk.rs`), whose `parent` must then be
    /// `Some` (it is below the window).
    pub(super) async fn walk_from(
        &self,
        nodes: &mut Vec<UiNode>,
        root_children: Vec<ObjRef>,
        start: Start,
    ) -> Walked {
        let mut admission = Admission {
            promised: nodes.len(),
            budget: &self.budget,
            truncated: None,
            deadline_hit: false,
            relations: Relations::new(),
        };
        let mut inflight = FuturesUnordered::new();
        if let Some(mut g) = admission.admit(0, start.depth, root_children) {
            match start.depth {
                0 => g.under_window = true,
                _ => {
                    g.lean = nodes[0].states.contains(ufo_core::States::SHOWING);
                    g.cells = start.cells;
                }
            }
            let batch = admission.plan(0, g, self);
            inflight.push(self.read_batch(batch));
        }
        while let Some(batch) = inflight.next().await {
            let queued = self.place_batch(nodes, batch, &mut admission);
            for q in queued {
                let (kids, rest) = match q.probe {
                    true => {
                        let mut kids = q.kids;
                        let rest = kids.split_off(kids.len().min(1));
                        (kids, rest)
                    }
                    false => (q.kids, Vec::new()),
                };
                if let Some(mut g) = admission.admit(q.parent, q.depth, kids) {
                    let p = &nodes[q.parent];
                    g.lean = p.parent.is_some() && p.states.contains(ufo_core::States::SHOWING);
                    g.rest = rest;
                    g.cells = q.cells;
                    let batch = admission.plan(q.parent, g, self);
                    inflight.push(self.read_batch(batch));
                }
            }
        }
        if admission.deadline_hit {
            admission.truncated = Some(format!(
                "deadline of {} ms reached",
                self.budget.deadline.as_millis()
            ));
        }
        Walked {
            truncated: admission.truncated,
            relations: admission.relations,
        }
    }

    /// Reads every group of a batch concurrently.
    async fn read_batch(&self, batch: Batch) -> Vec<(Under, Group, Reads)> {
        join_all(batch.into_iter().map(|(under, g)| async move {
            let (g, reads) = self.read_group(g).await;
            (under, g, reads)
        }))
        .await
    }

    /// Places a batch's groups in order, each under its parent unless that
    /// was not placed or its branch is not entered. Returns the children to
    /// read next, as [`Self::place_group`] does.
    fn place_batch(
        &self,
        nodes: &mut Vec<UiNode>,
        batch: Vec<(Under, Group, Reads)>,
        admission: &mut Admission<'_>,
    ) -> Vec<Queued> {
        let mut entered: Vec<Vec<Option<usize>>> = Vec::with_capacity(batch.len());
        let mut next = Vec::new();
        for (under, mut group, reads) in batch {
            let parent = match under {
                Under::Node(i) => Some(i),
                Under::Kid { group, kid } => entered
                    .get(group)
                    .and_then(|e| e.get(kid))
                    .copied()
                    .flatten(),
            };
            let Some(parent) = parent else {
                entered.push(Vec::new());
                continue;
            };
            group.parent = parent;
            let (queued, placed) = self.place_group(nodes, group, reads, admission);
            next.extend(queued);
            entered.push(placed);
        }
        next
    }

    /// Reads every child of one group concurrently, each bounded by the
    /// capture's deadline (one hung element costs only itself). A kid whose
    /// children are planned is read without them. Of more than
    /// [`MAX_EMPTY_CELLS`] visible cells, each is read only if filled; the
    /// empty ones are read again in full when there are no more than that
    /// many. The window's children are read only if shown, states first,
    /// and again in full when none of them says it shows (see
    /// [`Group::under_window`]).
    async fn read_group(&self, group: Group) -> (Group, Reads) {
        let sparse = group.cells && group.kids.len() > MAX_EMPTY_CELLS;
        let mut reads: Reads = self
            .read_kids(&group, group.kind(sparse), |_| true)
            .await
            .into_iter()
            .flatten()
            .collect();
        if sparse {
            let n = reads
                .iter()
                .filter(|r| matches!(r, Ok(Ok(raw)) if raw.glanced))
                .count();
            if (1..=MAX_EMPTY_CELLS).contains(&n) {
                self.read_again(&group, group.kind(false), &mut reads, |r| r.glanced)
                    .await;
            }
        }
        let shown = |r: &RawNode| r.states.contains(State::Showing);
        if group.under_window && !reads.iter().any(|r| matches!(r, Ok(Ok(raw)) if shown(raw))) {
            self.read_again(&group, ReadKind::Full, &mut reads, |r| r.unseen)
                .await;
        }
        (group, reads)
    }

    /// Reads again, as `kind` says, the kids of `group` whose read `again`
    /// picks, in place in `reads`.
    async fn read_again(
        &self,
        group: &Group,
        kind: ReadKind,
        reads: &mut Reads,
        again: impl Fn(&RawNode) -> bool,
    ) {
        let picked: Vec<bool> = reads
            .iter()
            .map(|r| matches!(r, Ok(Ok(raw)) if again(raw)))
            .collect();
        if !picked.contains(&true) {
            return;
        }
        let fresh = self.read_kids(group, kind, |i| picked[i]).await;
        for (slot, read) in reads.iter_mut().zip(fresh) {
            if let Some(read) = read {
                *slot = read;
            }
        }
    }

    /// Reads the kids of `group` that `pick` (by position) chooses, as
    /// `kind` says, each bounded by the capture's deadline: `None` for the
    /// others.
    async fn read_kids(
        &self,
        group: &Group,
        kind: ReadKind,
        pick: impl Fn(usize) -> bool,
    ) -> Vec<Option<std::result::Result<Result<RawNode>, Elapsed>>> {
        let pick = &pick;
        join_all(group.kids.iter().zip(&group.planned).enumerate().map(
            |(i, (h, &planned))| async move {
                if !pick(i) {
                    return None;
                }
                let hint = Some(h)
                    .filter(|h| h.bus() == self.bus())
                    .and_then(|h| self.cache.hint(h.path()));
                let read = tokio::time::timeout_at(
                    self.deadline,
                    self.backend.read_node(
                        h,
                        ReadNode {
                            max_text: self.budget.max_text_chars,
                            max_children: (!planned).then_some(self.budget.max_children),
                            hint,
                            kind,
                        },
                    ),
                );
                Some(read.await)
            },
        ))
        .await
    }

    /// Places one group's reads under their parent. Returns the children to
    /// read next — (node index, its depth, its children) — and, per kid, its
    /// node's index when its branch is entered.
    fn place_group(
        &self,
        nodes: &mut Vec<UiNode>,
        group: Group,
        reads: Reads,
        admission: &mut Admission<'_>,
    ) -> (Vec<Queued>, Vec<Option<usize>>) {
        let Group {
            parent,
            depth,
            kids,
            rest,
            ..
        } = group;
        // A sibling that says it is showing makes one that does not hidden
        // (gedit's closed popovers are children of its window), even right
        // under the window — GTK 4.8 says "showing" of no child at all, and
        // loses nothing here.
        let sibling_shown = reads
            .iter()
            .any(|r| matches!(r, Ok(Ok(raw)) if raw.states.contains(State::Showing)));
        let parent_showing = nodes[parent].states.contains(ufo_core::States::SHOWING);
        let below_root = nodes[parent].parent.is_some();
        let mut next = Vec::new();
        let mut entered = Vec::with_capacity(kids.len());
        for (h, res) in kids.into_iter().zip(reads) {
            entered.push(None);
            let Ok(res) = res else {
                admission.deadline_hit = true;
                continue;
            };
            // Elements that vanished mid-capture are skipped, not fatal.
            let mut raw = match res {
                Ok(raw) => raw,
                Err(_) => {
                    self.backend.cell_cache.forget(&h);
                    self.backend.identity.forget(&h);
                    continue;
                }
            };
            if let Some(note) = &raw.children_note {
                admission.truncated.get_or_insert_with(|| {
                    format!("container {:?} ({}): {note}", raw.name, raw.role.name())
                });
            }
            let idx = nodes.len();
            let kids = raw.children.clone();
            let cells = raw.cells;
            if let Some(targets) = raw.labelled_by.take() {
                admission.relations.insert(h.0.clone(), targets);
            }
            // A menu bar or tool bar without height or width shows none of
            // its items (LibreOffice keeps VCL's own menu bar, 0 px high,
            // beside the GTK one: its items would be listed twice).
            let flat_bar = matches!(
                raw.role,
                Role::MenuBar | Role::ToolBar | Role::Menu | Role::PopupMenu
            ) && raw.states.contains(State::Showing)
                && raw.ifaces.contains(Interface::Component)
                && raw.extents.is_some_and(Extents::is_empty);
            let (role, states) = (raw.role, raw.states);
            let gtk2 = self.backend.is_gtk2(&h);
            let unshown = self.backend.menu_entries_unshown(&h);
            let mut node = raw.into_node(h.into_handle(), idx, Some(parent), depth, self.offset);
            mark_seen_despite_state(role, states, &mut node, &nodes[parent], unshown);
            // What lies under an element that is not showing, while its
            // parent is (the toolkit reports the state), cannot be seen:
            // LibreOffice keeps every closed menu's items in the tree.
            // (Its "defunct" Input line panel still shows its paragraph.)
            // (GTK 4 says "showing" of the window only: below the root
            // the parent's own state is what tells.)
            let hidden_branch = !node.states.contains(ufo_core::States::SHOWING)
                && !node.states.contains(ufo_core::States::DEFUNCT)
                && (below_root || sibling_shown)
                && parent_showing;
            nodes.push(node);
            nodes[parent].children.push(idx);
            if !(hidden_branch || flat_bar) {
                next.push(Queued {
                    parent: idx,
                    depth,
                    // GTK 2's menus open with a tearoff entry that never
                    // shows: its first entry tells nothing.
                    probe: !gtk2 && closed_menu(role, states, &nodes[parent].role),
                    kids,
                    cells,
                });
                if let Some(e) = entered.last_mut() {
                    *e = Some(idx);
                }
            }
        }
        // A closed menu's first item showed: the menu is open after all.
        if sibling_shown && !rest.is_empty() {
            next.push(Queued {
                parent,
                depth: depth.saturating_sub(1),
                kids: rest,
                probe: false,
                cells: false,
            });
        }
        (next, entered)
    }
}

/// `nodes` renumbered breadth first from `nodes[0]`, each node's children
/// in the order its parent gave them (indices, parents and children
/// rewritten). Nodes not reachable from the root are dropped.
pub(super) fn breadth_first(nodes: Vec<UiNode>) -> Vec<UiNode> {
    if nodes.is_empty() {
        return nodes;
    }
    let mut order = Vec::with_capacity(nodes.len());
    let mut queue = VecDeque::from([0usize]);
    while let Some(i) = queue.pop_front() {
        order.push(i);
        queue.extend(nodes[i].children.iter().copied());
    }
    let mut new_index = vec![usize::MAX; nodes.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new;
    }
    let mut slots: Vec<Option<UiNode>> = nodes.into_iter().map(Some).collect();
    order
        .iter()
        .enumerate()
        .filter_map(|(new, &old)| {
            let mut n = slots[old].take()?;
            n.index = new;
            n.parent = n.parent.map(|p| new_index[p]);
            for c in &mut n.children {
                *c = new_index[*c];
            }
            Some(n)
        })
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use ufo_core::ui::Capabilities;
    use ufo_core::{ControlType, ElementHandle, States};

    /// A panel named `name` at `index`, for tests of the tree's shape.
    pub(in crate::backend) fn node(
        index: usize,
        parent: Option<usize>,
        children: Vec<usize>,
        name: &str,
    ) -> UiNode {
        UiNode {
            index,
            parent,
            children,
            depth: 0,
            handle: ElementHandle(format!(":1.1|/{name}")),
            role: "panel".into(),
            control_type: ControlType::Pane,
            name: name.into(),
            description: String::new(),
            value: None,
            states: States::empty(),
            rect: None,
            actions: Vec::new(),
            capabilities: Capabilities::default(),
        }
    }

    #[test]
    fn nodes_read_out_of_order_are_numbered_breadth_first() {
        // Read order: root, a, b, then b's child (fast), then a's children.
        let nodes = vec![
            node(0, None, vec![1, 2], "root"),
            node(1, Some(0), vec![4, 5], "a"),
            node(2, Some(0), vec![3], "b"),
            node(3, Some(2), vec![], "b1"),
            node(4, Some(1), vec![], "a1"),
            node(5, Some(1), vec![], "a2"),
        ];
        let out = breadth_first(nodes);
        let names: Vec<&str> = out.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["root", "a", "b", "a1", "a2", "b1"]);
        for (i, n) in out.iter().enumerate() {
            assert_eq!(n.index, i);
            for &c in &n.children {
                assert_eq!(out[c].parent, Some(i), "{} under {}", out[c].name, n.name);
            }
        }
        assert_eq!(out[1].children, [3, 4]);
        assert_eq!(out[2].children, [5]);
    }

    #[test]
    fn only_a_closed_menu_of_a_bar_or_menu_is_probed() {
        use atspi::StateSet;
        let closed = StateSet::new(State::Showing | State::Visible | State::Selectable);
        let open = StateSet::new(State::Showing | State::Selected);
        let expanded = StateSet::new(State::Showing | State::Expanded);
        assert!(closed_menu(Role::Menu, closed, "menu bar"));
        assert!(closed_menu(Role::Menu, closed, "menu"));
        assert!(!closed_menu(Role::Menu, open, "menu bar"));
        assert!(!closed_menu(Role::Menu, expanded, "menu"));
        // A context menu (a top-level) or a combo box's list is read whole.
        assert!(!closed_menu(Role::Menu, closed, "frame"));
        assert!(!closed_menu(Role::Menu, closed, "combo box"));
        assert!(!closed_menu(Role::MenuItem, closed, "menu"));
    }

    #[test]
    fn a_groups_kids_are_read_as_their_place_says() {
        let group = |lean, under_window| Group {
            parent: 0,
            depth: 1,
            kids: Vec::new(),
            lean,
            under_window,
            planned: Vec::new(),
            rest: Vec::new(),
            cells: false,
        };
        assert_eq!(group(false, false).kind(false), ReadKind::Full);
        assert_eq!(group(true, false).kind(false), ReadKind::IfShown);
        assert_eq!(group(false, true).kind(false), ReadKind::IfShownStatesFirst);
        assert_eq!(group(false, false).kind(true), ReadKind::IfFilled);
        assert_eq!(group(true, false).kind(true), ReadKind::IfShownAndFilled);
        // Only an element read only if shown stops when hidden; only a cell
        // read only if filled stops when empty.
        for kind in [ReadKind::Full, ReadKind::Window, ReadKind::IfFilled] {
            assert!(!kind.stops_if_hidden(), "{kind:?}");
        }
        for kind in [ReadKind::Full, ReadKind::Window, ReadKind::IfShown] {
            assert!(!kind.stops_if_empty(), "{kind:?}");
        }
        assert!(ReadKind::IfShownAndFilled.stops_if_hidden());
        assert!(ReadKind::IfShownAndFilled.stops_if_empty());
        assert!(ReadKind::IfShownStatesFirst.states_first());
        assert!(!ReadKind::IfShown.states_first());
    }

    #[test]
    fn budgets_cut_groups_and_say_why() {
        let budget = TreeBudget {
            max_nodes: 4,
            max_depth: 2,
            ..TreeBudget::default()
        };
        let mut a = Admission {
            promised: 1,
            budget: &budget,
            truncated: None,
            deadline_hit: false,
            relations: Relations::new(),
        };
        let kids = |n: usize| -> Vec<ObjRef> {
            (0..n)
                .map(|i| ObjRef::new(":1.1", &format!("/k{i}")))
                .collect()
        };
        let g = a.admit(0, 0, kids(2)).expect("room for two");
        assert_eq!((g.depth, g.kids.len()), (1, 2));
        assert!(a.admit(1, 2, kids(1)).is_none());
        assert_eq!(a.truncated.as_deref(), Some("depth budget 2 reached"));
        let g = a.admit(1, 1, kids(3)).expect("room for one");
        assert_eq!(g.kids.len(), 1);
        assert_eq!(a.truncated.as_deref(), Some("node budget 4 reached"));
        assert!(a.admit(2, 1, kids(1)).is_none());
    }
}
