//! Which label names a field: a Win32 edit, combo box or list has no name
//! of its own; a person reads it from the static text beside it. Plain
//! code over the captured nodes, compiled on every OS.
//!
//! The rule is geometric, among the field's siblings: the nearest one to
//! its left on the same row, when that is a named text; else the nearest
//! one directly above it (overlapping it horizontally, at most two label
//! heights away), when that is a named text; failing both, the sibling
//! just before it in child order, when that is a named text to its left
//! or over it (or either has no geometry). A field never takes a label
//! another control stands between, nor one from further back in child
//! order.
//!
//! MSAA's name of a field is checked against the same rule: Wine's
//! `oleacc` (and Windows' edit proxy) name an edit after a static that
//! precedes it in child order, which on a page laid out as "three labels,
//! then three fields" (Wine's Task Manager, Performance page) names all
//! three fields after the last label. A name that is the text of a sibling
//! label other than the field's own is dropped, and the field takes its
//! own label (or stays unnamed).

use ufo_core::{ControlType as C, Rect, Screen, States, UiNode};

/// Pixels a label may overlap the field it names (their frames touch).
const SLACK: i32 = 4;

/// True for the controls a label names.
pub fn is_field(t: &C) -> bool {
    matches!(t, C::Edit | C::ComboBox | C::List | C::Document)
}

/// The text a label gives its field: `"&Name:"` (already without its
/// mnemonic) → `"Name"`.
pub fn label_text(name: &str) -> &str {
    name.trim().trim_end_matches(':').trim()
}

fn named_text(n: &UiNode) -> bool {
    n.control_type == C::Text && !label_text(&n.name).is_empty()
}

fn area(n: &UiNode) -> Option<Rect<Screen>> {
    n.rect.filter(|r| !r.is_empty())
}

/// `r` shares a row with `f`: they overlap vertically by at least half of
/// the lower one's height.
fn same_row(r: &Rect<Screen>, f: &Rect<Screen>) -> bool {
    let overlap = r.bottom().min(f.bottom()) - r.y.max(f.y);
    overlap > 0 && 2 * overlap >= r.height.min(f.height)
}

/// Ends above `f` (within two of its own heights) and overlaps it
/// horizontally; the gap.
fn above(r: &Rect<Screen>, f: &Rect<Screen>) -> Option<i32> {
    let gap = f.y - r.bottom();
    let overlap = r.right().min(f.right()) - r.x.max(f.x);
    (gap >= -SLACK && gap <= 2 * r.height.max(8) && overlap > 0).then_some(gap.max(0))
}

/// The label of the field at `i`: the index of the sibling text that names
/// it by the rule of this module, if any.
pub fn label_of(nodes: &[UiNode], i: usize) -> Option<usize> {
    let n = nodes.get(i)?;
    let parent = nodes.get(n.parent?)?;
    let showing = |x: &UiNode| x.states.contains(States::SHOWING);
    // A hidden sibling labels nothing shown.
    let siblings: Vec<&UiNode> = parent
        .children
        .iter()
        .filter(|c| **c != i)
        .filter_map(|c| nodes.get(*c))
        .filter(|s| showing(s) || !showing(n))
        .collect();
    let Some(f) = area(n) else {
        // No geometry: the sibling just before it.
        let pos = parent.children.iter().position(|c| *c == i)?;
        let before = nodes.get(*parent.children.get(pos.checked_sub(1)?)?)?;
        return named_text(before).then_some(before.index);
    };
    let left = siblings
        .iter()
        .filter_map(|s| {
            let r = area(s)?;
            (same_row(&r, &f) && r.right() <= f.x + SLACK).then_some((f.x - r.right(), *s))
        })
        .min_by_key(|(gap, _)| *gap);
    if let Some((_, s)) = left.filter(|(_, s)| named_text(s)) {
        return Some(s.index);
    }
    let up = siblings
        .iter()
        .filter_map(|s| {
            let r = area(s)?;
            above(&r, &f).map(|gap| ((gap, (r.x - f.x).abs()), *s))
        })
        .min_by_key(|(key, _)| *key);
    if let Some((_, s)) = up.filter(|(_, s)| named_text(s)) {
        return Some(s.index);
    }
    // Nothing next to it: the sibling just before it, when it lies to its
    // left (further away, or off its row but not below it) or anywhere
    // over it.
    let pos = parent.children.iter().position(|c| *c == i)?;
    let before = nodes.get(*parent.children.get(pos.checked_sub(1)?)?)?;
    let r = area(before)?;
    let left_of = r.right() <= f.x + SLACK && r.y < f.bottom();
    let over = r.bottom() <= f.y + SLACK && r.right().min(f.right()) > r.x.max(f.x);
    (named_text(before) && (left_of || over) && (showing(before) || !showing(n)))
        .then_some(before.index)
}

/// Names the fields of a captured tree by their labels. `msaa_named` are
/// the fields whose name MSAA gave: such a name is dropped when it is the
/// text of a sibling label that is not the field's own (see the module
/// documentation). A combo box's parts (its edit, the combo box of a
/// `ComboBoxEx`) take the combo box's name.
pub fn label_fields(nodes: &mut [UiNode], msaa_named: &[usize]) {
    let mut wrong = Vec::new();
    for &i in msaa_named {
        let Some(n) = nodes.get(i).filter(|n| is_field(&n.control_type)) else {
            continue;
        };
        let name = label_text(&n.name);
        if name.is_empty() {
            continue;
        }
        let own = label_of(nodes, i);
        if own.is_some_and(|l| label_text(&nodes[l].name) == name) {
            continue;
        }
        let siblings = n
            .parent
            .and_then(|p| nodes.get(p))
            .map(|p| p.children.as_slice())
            .unwrap_or_default();
        let from_other_label = siblings
            .iter()
            .filter_map(|c| nodes.get(*c))
            .any(|s| s.control_type == C::Text && label_text(&s.name) == name);
        if from_other_label {
            wrong.push(i);
        }
    }
    for i in wrong {
        if let Some(n) = nodes.get_mut(i) {
            n.name.clear();
        }
    }
    let mut names: Vec<(usize, String)> = Vec::new();
    for n in nodes.iter() {
        if n.name.is_empty()
            && is_field(&n.control_type)
            && let Some(l) = label_of(nodes, n.index).and_then(|l| nodes.get(l))
        {
            names.push((n.index, label_text(&l.name).to_owned()));
        }
    }
    for (i, name) in names {
        if let Some(n) = nodes.get_mut(i) {
            n.name = name;
        }
    }
    // The parts of a combo box (the combo box of a ComboBoxEx, its Edit)
    // are named as the combo box; parents come first, so names pass down.
    for i in 0..nodes.len() {
        let Some(n) = nodes.get(i) else { continue };
        if !n.name.is_empty() || !matches!(n.control_type, C::Edit | C::ComboBox) {
            continue;
        }
        let name = n
            .parent
            .and_then(|p| nodes.get(p))
            .filter(|p| p.control_type == C::ComboBox)
            .map(|p| p.name.clone());
        if let (Some(name), Some(n)) = (name, nodes.get_mut(i)) {
            n.name = name;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ufo_core::ElementHandle;

    /// A tree: a root dialog and children `(type, name, rect, showing)`
    /// in child order.
    fn tree(kids: &[(C, &str, Option<[i32; 4]>, bool)]) -> Vec<UiNode> {
        let mut root = node(0, None, C::Pane, "", Some([0, 0, 400, 300]), true);
        root.children = (1..=kids.len()).collect();
        let mut out = vec![root];
        for (k, (t, name, r, showing)) in kids.iter().enumerate() {
            out.push(node(k + 1, Some(0), t.clone(), name, *r, *showing));
        }
        out
    }

    fn node(
        index: usize,
        parent: Option<usize>,
        t: C,
        name: &str,
        r: Option<[i32; 4]>,
        showing: bool,
    ) -> UiNode {
        UiNode {
            index,
            parent,
            children: Vec::new(),
            depth: u32::from(parent.is_some()),
            handle: ElementHandle(format!("w32:{index}")),
            role: String::new(),
            control_type: t,
            name: name.into(),
            description: String::new(),
            value: None,
            states: if showing {
                States::SHOWING | States::VISIBLE
            } else {
                States::empty()
            },
            rect: r.map(|[x, y, w, h]| Rect::new(x, y, w, h)),
            actions: Vec::new(),
            capabilities: Default::default(),
        }
    }

    fn names(nodes: &[UiNode]) -> Vec<&str> {
        nodes.iter().skip(1).map(|n| n.name.as_str()).collect()
    }

    /// Wine's Task Manager, Performance page, "Totals": three labels, then
    /// three edits, each edit on its label's row; MSAA named all three
    /// "Processes" (the last static before them).
    #[test]
    fn fields_after_all_their_labels_take_the_label_on_their_row_not_msaas() {
        let label = |n, y| (C::Text, n, Some([475, y, 65, 12]), true);
        let edit = |y| (C::Edit, "Processes", Some([555, y, 68, 12]), true);
        let mut nodes = tree(&[
            (C::Group, "Totals", Some([465, 559, 167, 59]), true),
            label("Handles", 573),
            label("Threads", 586),
            label("Processes", 600),
            edit(573),
            edit(586),
            edit(600),
        ]);
        label_fields(&mut nodes, &[5, 6, 7]);
        assert_eq!(
            names(&nodes)[4..],
            ["Handles", "Threads", "Processes"],
            "{nodes:#?}"
        );
    }

    #[test]
    fn the_nearest_label_on_the_row_wins_and_another_field_between_blocks_it() {
        let mut nodes = tree(&[
            (C::Text, "Total", Some([475, 573, 65, 12]), true),
            (C::Edit, "", Some([555, 573, 68, 12]), true),
            (C::Text, "Available:", Some([655, 573, 80, 12]), true),
            (C::Edit, "", Some([735, 573, 72, 12]), true),
            // A field right of a field: no label of its own.
            (C::Edit, "", Some([810, 573, 40, 12]), true),
        ]);
        label_fields(&mut nodes, &[]);
        assert_eq!(
            names(&nodes),
            ["Total", "Total", "Available:", "Available", ""]
        );
    }

    #[test]
    fn a_label_directly_above_names_the_field_below_it_only() {
        let mut nodes = tree(&[
            (C::Text, "Comment:", Some([10, 10, 100, 14]), true),
            (C::Edit, "", Some([10, 26, 200, 60]), true),
            (C::Edit, "", Some([10, 90, 200, 20]), true),
        ]);
        label_fields(&mut nodes, &[]);
        assert_eq!(names(&nodes)[1..], ["Comment", ""]);
    }

    #[test]
    fn an_msaa_name_from_the_fields_own_label_or_from_no_label_is_kept() {
        let mut nodes = tree(&[
            (C::Text, "File name:", Some([10, 10, 60, 14]), true),
            (C::ComboBox, "File name:", Some([80, 8, 200, 20]), true),
            (C::Edit, "Search", Some([80, 40, 200, 20]), true),
        ]);
        label_fields(&mut nodes, &[2, 3]);
        assert_eq!(names(&nodes)[1..], ["File name:", "Search"]);
    }

    #[test]
    fn without_geometry_only_the_sibling_just_before_labels() {
        let mut nodes = tree(&[
            (C::Text, "Name:", None, true),
            (C::Text, "Age:", None, true),
            (C::Edit, "", None, true),
            (C::Edit, "", None, true),
        ]);
        label_fields(&mut nodes, &[]);
        assert_eq!(names(&nodes)[2..], ["Age", ""]);
    }

    #[test]
    fn a_hidden_label_does_not_name_a_shown_field_and_labels_after_it_do_not() {
        let mut nodes = tree(&[
            (C::Text, "Gone:", Some([10, 10, 60, 14]), false),
            (C::Edit, "", Some([80, 8, 200, 20]), true),
            (C::Text, "Below:", Some([80, 40, 60, 14]), true),
            (C::Edit, "", Some([10, 80, 60, 20]), true),
        ]);
        label_fields(&mut nodes, &[]);
        assert_eq!(names(&nodes)[1], "");
        // The text before the second field lies to its upper right, not
        // over it: it does not name it either.
        assert_eq!(names(&nodes)[3], "");
    }

    #[test]
    fn a_combo_boxs_edit_takes_the_combo_boxs_name() {
        let mut nodes = tree(&[
            (C::Text, "File name:", Some([10, 10, 60, 14]), true),
            (C::ComboBox, "", Some([80, 8, 200, 20]), true),
        ]);
        nodes[2].children = vec![3];
        nodes.push(node(3, Some(2), C::Edit, "", Some([82, 10, 180, 16]), true));
        label_fields(&mut nodes, &[]);
        assert_eq!(names(&nodes), ["File name:", "File name", "File name"]);
    }
}
