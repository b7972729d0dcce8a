//! Reading one branch of a kept capture again, whole, and putting it in
//! place of what the capture held there (see [`super::live`]).
//!
//! A container found moved may hold other children than before: GTK 4
//! reports a list that grew a row (gnome-calculator's history after "=")
//! only by the list's new bounds, never the child it added. Such a window
//! was captured again in full (110 nodes, 120–330 ms, on 4 of 10 steps of
//! `ufo bench step --app gnome-calculator`); now only the moved
//! container's branch is read, the rest of the kept capture stays.

use super::context::Capture;
use super::objref::ObjRef;
use super::read::{ReadNode, mark_seen_despite_state};
use super::walk::{Relations, Start, Walked, breadth_first};
use atspi::State;
use ufo_core::{States, UiNode};
use ufo_desktop::TreeBudget;

/// The moved containers whose branches are read again: those with no
/// moved ancestor. `None` when the window itself moved.
pub(super) fn branches(nodes: &[UiNode], moved: &[usize]) -> Option<Vec<usize>> {
    if moved.contains(&0) {
        return None;
    }
    let ancestors = |i: usize| std::iter::successors(nodes[i].parent, |&p| nodes[p].parent);
    Some(
        moved
            .iter()
            .copied()
            .filter(|&i| !ancestors(i).any(|a| moved.contains(&a)))
            .collect(),
    )
}

/// How many nodes lie below `nodes[at]`.
fn below(nodes: &[UiNode], at: usize) -> usize {
    let mut stack = nodes[at].children.clone();
    let mut n = 0;
    while let Some(i) = stack.pop() {
        n += 1;
        stack.extend(nodes.get(i).map_or(&[][..], |c| &c.children));
    }
    n
}

/// `nodes` with each `(at, branch)`'s branch put in place of what was below
/// `nodes[at]`, renumbered breadth first. A branch is numbered breadth
/// first from its root (index 0), which takes the place of `nodes[at]`;
/// the branches are disjoint.
pub(super) fn splice(mut nodes: Vec<UiNode>, branches: Vec<(usize, Vec<UiNode>)>) -> Vec<UiNode> {
    for (at, branch) in branches {
        let base = nodes.len();
        let place = |k: usize| if k == 0 { at } else { base + k - 1 };
        let (parent, depth) = (nodes[at].parent, nodes[at].depth);
        for (k, mut n) in branch.into_iter().enumerate() {
            n.index = place(k);
            n.children = n.children.iter().map(|&c| place(c)).collect();
            match k {
                0 => {
                    n.parent = parent;
                    n.depth = depth;
                    nodes[at] = n;
                }
                _ => {
                    n.parent = n.parent.map(place);
                    nodes.push(n);
                }
            }
        }
    }
    // What was below a branch's root is no longer reachable: dropped.
    breadth_first(nodes)
}

impl Capture<'_> {
    /// The branch under `nodes[at]` (a container below the window) read
    /// again, numbered breadth first from it (index 0), with the
    /// `labelled-by` relations read; `None` when it cannot be read whole
    /// (it is gone, hidden, or a budget or the deadline cut it): a full
    /// capture follows. Its budget is what is left of this capture's once
    /// the rest of `nodes` is counted; its deadline runs from now.
    pub(super) async fn reread_branch(
        &self,
        nodes: &[UiNode],
        at: usize,
    ) -> Option<(Vec<UiNode>, Relations)> {
        let rest = nodes.len() - below(nodes, at);
        let cap = self.branch(TreeBudget {
            max_nodes: self.budget.max_nodes.saturating_sub(rest),
            ..self.budget
        });
        let (backend, budget) = (self.backend, &self.budget);
        let old = &nodes[at];
        let parent = &nodes[old.parent?];
        let h = ObjRef::parse(&old.handle).ok()?;
        let ask = ReadNode {
            max_children: Some(budget.max_children),
            ..ReadNode::node(budget.max_text_chars)
        };
        let mut raw = backend.read_node(&h, ask).await.ok()?;
        if raw.states.contains(State::Defunct) || raw.children_note.is_some() {
            return None;
        }
        let (role, states, cells) = (raw.role, raw.states, raw.cells);
        let kids = std::mem::take(&mut raw.children);
        let mut relations = Relations::new();
        if let Some(targets) = raw.labelled_by.take() {
            relations.insert(old.handle.0.clone(), targets);
        }
        let unshown = backend.menu_entries_unshown(&h);
        // Its parent is outside this walk: `Some` says it is below the
        // window (see `walk_from`); the splice puts the real one back.
        let mut root = raw.into_node(old.handle.clone(), 0, Some(0), old.depth, cap.offset);
        mark_seen_despite_state(role, states, &mut root, parent, unshown);
        // Hidden where its parent shows: its branch is not entered (see
        // `place_group`; GTK 4 says "showing" of the window only).
        if !root.states.contains(States::SHOWING) && parent.states.contains(States::SHOWING) {
            return None;
        }
        // What the capture derived stays (see `refresh_kept`).
        if root.name.is_empty() || crate::labels::is_class_name(&root.name) {
            root.name = old.name.clone();
        }
        if root.role == old.role {
            root.control_type = old.control_type.clone();
        }
        let mut branch = vec![root];
        let start = Start {
            depth: old.depth,
            cells,
        };
        let Walked {
            truncated,
            relations: more,
        } = cap.walk_from(&mut branch, kids, start).await;
        if let Some(why) = truncated {
            tracing::trace!(why, "branch cut short");
            return None;
        }
        relations.extend(more);
        branch[0].parent = None;
        Some((breadth_first(branch), relations))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::walk::tests::node;

    fn names(nodes: &[UiNode]) -> Vec<&str> {
        nodes.iter().map(|n| n.name.as_str()).collect()
    }

    #[test]
    fn a_reread_branch_replaces_what_was_below_its_root() {
        // window → [display, history → [row1], keys → [k1, k2]]
        let mut tree = vec![
            node(0, None, vec![1, 2, 3], "window"),
            node(1, Some(0), vec![], "display"),
            node(2, Some(0), vec![4], "history"),
            node(3, Some(0), vec![5, 6], "keys"),
            node(4, Some(2), vec![], "row1"),
            node(5, Some(3), vec![], "k1"),
            node(6, Some(3), vec![], "k2"),
        ];
        for (n, d) in tree.iter_mut().zip([0, 1, 1, 1, 2, 2, 2]) {
            n.depth = d;
        }
        // The history list read again holds two rows, the second with a
        // label.
        let mut branch = vec![
            node(0, None, vec![1, 2], "history*"),
            node(1, Some(0), vec![], "row1"),
            node(2, Some(0), vec![3], "row2"),
            node(3, Some(2), vec![], "label2"),
        ];
        for (n, d) in branch.iter_mut().zip([9, 2, 2, 3]) {
            n.depth = d;
        }
        let out = splice(tree, vec![(2, branch)]);
        assert_eq!(
            names(&out),
            [
                "window", "display", "history*", "keys", "row1", "row2", "k1", "k2", "label2"
            ]
        );
        for (i, n) in out.iter().enumerate() {
            assert_eq!(n.index, i);
            for &c in &n.children {
                assert_eq!(out[c].parent, Some(i), "{} under {}", out[c].name, n.name);
                assert_eq!(out[c].depth, n.depth + 1, "{}", out[c].name);
            }
        }
        assert_eq!(out[2].parent, Some(0));
        assert_eq!(out[2].depth, 1);
    }

    #[test]
    fn only_the_outermost_moved_containers_are_read_again() {
        let tree = vec![
            node(0, None, vec![1, 2], "window"),
            node(1, Some(0), vec![3], "pane"),
            node(2, Some(0), vec![], "bar"),
            node(3, Some(1), vec![], "list"),
        ];
        assert_eq!(branches(&tree, &[3, 1, 2]), Some(vec![1, 2]));
        assert_eq!(branches(&tree, &[3]), Some(vec![3]));
        assert_eq!(branches(&tree, &[3, 0]), None);
        assert_eq!(below(&tree, 0), 3);
        assert_eq!(below(&tree, 1), 1);
    }
}
