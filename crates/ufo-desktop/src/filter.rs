//! From a captured [`UiTree`] to the numbered [`Control`]s a model sees.
//!
//! [`label_controls`] does what UFO does with `CONTROL_LIST`: keep the
//! interactive, visible, enabled, on-screen elements of the listed types, drop
//! toolkit duplicates, and number the rest `1..N` in reading order (rows top to
//! bottom, then left to right). Those numbers are the labels drawn on the
//! set-of-marks screenshot and the `id`s the UI tools accept.
//!
//! ```
//! use ufo_desktop::filter::{label_controls, FilterConfig};
//! # fn demo(tree: &ufo_core::UiTree) {
//! let controls = label_controls(tree, &FilterConfig::default(), None);
//! let for_prompt = ufo_desktop::filter::prompt_json(&controls);
//! # let _ = for_prompt;
//! # }
//! ```

use crate::names::{names_match, undouble};
use columns::Columns;
use serde::{Deserialize, Serialize};
use ufo_core::States;
use ufo_core::ui::{DEFAULT_CONTROL_LIST, PromptControl};
use ufo_core::{Control, ControlType, Rect, Screen, UiNode, UiTree};
use values::shown_value;

/// Which elements become controls. Deserialises from config with defaults for
/// missing fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FilterConfig {
    /// Control types kept (UFO's `CONTROL_LIST`); default
    /// [`DEFAULT_CONTROL_LIST`].
    pub control_types: Vec<ControlType>,
    /// Keep only elements reported `showing` (default true). See
    /// [`FilterConfig::visible_fallback`] for toolkits that do not report it.
    pub require_showing: bool,
    /// When no node below the window root reports `showing` at all (GTK 4.8),
    /// accept `visible` instead (default true).
    pub visible_fallback: bool,
    /// Keep only elements reported `enabled` or `sensitive` (default true).
    /// Skipped for trees where no node reports either state.
    pub require_enabled: bool,
    /// Keep only elements that intersect the visible area (default true); their
    /// rectangles are clipped to it, so the centre is clickable.
    pub require_on_screen: bool,
    /// Minimum width in screen pixels (after clipping); default 2.
    pub min_width: i32,
    /// Minimum height in screen pixels (after clipping); default 2.
    pub min_height: i32,
    /// Keep elements with an empty name (default true; icon-only buttons and
    /// unnamed text fields are real targets). Unnamed `Group` and `Text`
    /// elements are always dropped: they are layout boxes and empty labels.
    pub include_unnamed: bool,
    /// Drop an element whose rectangle equals that of its nearest kept ancestor
    /// and whose name is the same or empty (GTK4's label inside a button);
    /// default true.
    pub dedupe_nested: bool,
    /// Show GTK4's doubled names (`"7 7"`) as one half (`"7"`); default true.
    pub undouble_names: bool,
    /// Two controls whose vertical centres differ by at most this many pixels
    /// share a row in the numbering; default 10.
    pub row_tolerance: i32,
    /// At most this many controls (in reading order); default 500.
    pub max_controls: usize,
    /// Values longer than this many characters are cut (with `…`); default 100.
    pub max_value_chars: usize,
    /// A table showing more empty cells than this lists only its cells with a
    /// value and the focused or selected ones (a spreadsheet's hundreds of
    /// empty cells are reached through the Name Box or the keyboard); default 60.
    pub max_empty_cells: usize,
    /// A document's or terminal's content shown with it (its own text, or
    /// the text of what it holds that is not listed itself, such as a PDF
    /// viewer's pages) is cut at this many characters; default 300.
    pub max_content_chars: usize,
    /// Drop a control of the same type and name as an earlier one whose
    /// rectangle mostly covers it (LibreOffice lists its menu bar twice);
    /// default true.
    pub drop_duplicates: bool,
}

impl Default for FilterConfig {
    fn default() -> Self {
        Self {
            control_types: DEFAULT_CONTROL_LIST
                .iter()
                .map(|s| s.parse().unwrap_or_else(|e| match e {}))
                .collect(),
            require_showing: true,
            visible_fallback: true,
            require_enabled: true,
            require_on_screen: true,
            min_width: 2,
            min_height: 2,
            include_unnamed: true,
            dedupe_nested: true,
            undouble_names: true,
            row_tolerance: 10,
            max_controls: 500,
            max_value_chars: 100,
            max_empty_cells: MAX_EMPTY_CELLS,
            max_content_chars: 300,
            drop_duplicates: true,
        }
    }
}

/// Filters and numbers the controls of `tree`.
///
/// `visible_area` is the screen region that is actually visible (usually the
/// window's rectangle, or its intersection with the screen); `None` uses the
/// tree's window rectangle, then the root node's. Without any area the
/// on-screen check is skipped.
///
/// The result is numbered `1..N` in reading order and is deterministic for a
/// given tree (ties broken by tree order).
pub fn label_controls(
    tree: &UiTree,
    cfg: &FilterConfig,
    visible_area: Option<Rect<Screen>>,
) -> Vec<Control> {
    let area = visible_area
        .or(tree.window.rect)
        .or_else(|| tree.root().and_then(|r| r.rect));
    let reported = Reported::of(tree);
    let hidden = hidden_nodes(tree, cfg.require_showing && reported.showing);
    let popups = overlays(tree, &|n: &UiNode| reported.is_shown(n, cfg));
    let picker = Picker {
        tree,
        cfg,
        area,
        reported,
        hidden,
        popups,
        columns: Columns::of(tree),
    };
    let mut picked = picker.pick();
    if cfg.drop_duplicates {
        drop_duplicates(&mut picked);
    }
    drop_covered(tree, &mut picked, &picker.popups);
    drop_empty_cells(tree, &mut picked, cfg.max_empty_cells);
    numbered(tree, picked, &picker.popups, cfg)
}

/// Which states a tree reports at all: a toolkit that reports no node
/// `showing` (below the root), or none `enabled`/`sensitive`, is not
/// filtered on that state.
#[derive(Debug, Clone, Copy)]
struct Reported {
    showing: bool,
    enabled: bool,
}

impl Reported {
    fn of(tree: &UiTree) -> Self {
        let showing = tree
            .nodes
            .iter()
            .filter(|n| n.parent.is_some())
            .any(|n| n.states.contains(States::SHOWING));
        let enabled = tree
            .nodes
            .iter()
            .any(|n| n.states.contains(States::ENABLED) || n.states.contains(States::SENSITIVE));
        Self { showing, enabled }
    }

    /// `n` is shown, as far as `cfg` asks and the tree tells.
    fn is_shown(self, n: &UiNode, cfg: &FilterConfig) -> bool {
        if !cfg.require_showing {
            return true;
        }
        n.states.contains(States::SHOWING)
            || (cfg.visible_fallback && !self.showing && n.states.contains(States::VISIBLE))
    }

    /// `n` is enabled, as far as `cfg` asks and the tree tells.
    fn is_enabled(self, n: &UiNode, cfg: &FilterConfig) -> bool {
        !cfg.require_enabled
            || !self.enabled
            || n.states.contains(States::ENABLED)
            || n.states.contains(States::SENSITIVE)
    }
}

/// One pass over a tree's nodes, picking those that become controls.
struct Picker<'a> {
    tree: &'a UiTree,
    cfg: &'a FilterConfig,
    /// The visible area the controls are clipped to, when known.
    area: Option<Rect<Screen>>,
    reported: Reported,
    /// Nodes inside a hidden ancestor (see [`hidden_nodes`]).
    hidden: Vec<bool>,
    /// The popups drawn over the window (see [`overlays`]).
    popups: Vec<(usize, Rect<Screen>)>,
    /// The tables' named column headers.
    columns: Columns,
}

impl Picker<'_> {
    /// The nodes that become controls, in tree order, with their index;
    /// not numbered yet.
    fn pick(&self) -> Vec<(usize, Control)> {
        // kept[i] = Some(rect, display name) when node i became a control.
        let mut kept: Vec<Option<(Rect<Screen>, String)>> = vec![None; self.tree.nodes.len()];
        let mut picked: Vec<(usize, Control)> = Vec::new();
        for (i, node) in self.tree.nodes.iter().enumerate() {
            if !self.eligible(i, node) {
                continue;
            }
            let Some(rect) = self.visible_rect(i, node) else {
                continue;
            };
            let Some(name) = self.shown_name(node) else {
                continue;
            };
            if self.repeats_kept_ancestor(&kept, i, node, &name, rect) {
                continue;
            }
            if let Some(slot) = kept.get_mut(i) {
                *slot = Some((rect, name.clone()));
            }
            let value = shown_value(self.tree, i, node, &name, self.cfg);
            picked.push((
                i,
                Control {
                    id: 0,
                    value,
                    column: self.columns.of_cell(self.tree, i),
                    name,
                    control_type: node.control_type.clone(),
                    rect,
                    handle: node.handle.clone(),
                    role: node.role.clone(),
                    states: node.states,
                    actions: node.actions.clone(),
                    capabilities: node.capabilities,
                },
            ));
        }
        picked
    }

    /// Node `i` is of a listed type, shown, enabled, and in no hidden
    /// ancestor.
    fn eligible(&self, i: usize, node: &UiNode) -> bool {
        self.cfg.control_types.contains(&node.control_type)
            && self.reported.is_shown(node, self.cfg)
            && self.reported.is_enabled(node, self.cfg)
            && !self.hidden.get(i).copied().unwrap_or(false)
            && !self.holds_its_text_in_labels(node)
    }

    /// A paragraph whose words are named labels of its own (Chromium's
    /// `paragraph` over a `static`): the labels are listed, the paragraph
    /// would say their text a second time as an unnamed document.
    /// (Gecko's and LibreOffice's paragraphs hold their text themselves.)
    fn holds_its_text_in_labels(&self, node: &UiNode) -> bool {
        node.role == "paragraph"
            && node.children.iter().any(|&c| {
                self.tree.nodes.get(c).is_some_and(|n| {
                    n.control_type == ControlType::Text && !n.name.trim().is_empty()
                })
            })
    }

    /// The part of node `i` that can be seen (clipped to the visible area,
    /// or a popup's), when it is large enough to be a target.
    fn visible_rect(&self, i: usize, node: &UiNode) -> Option<Rect<Screen>> {
        let mut rect = node.rect?;
        if self.cfg.require_on_screen
            && let Some(area) = self.area
        {
            // A popup may reach past the window it belongs to (a menu
            // longer than its window): its own items are clipped to it.
            let area = match rect.intersection(&area) == Some(rect) {
                true => area,
                false => popup_area(self.tree, &self.popups, i).unwrap_or(area),
            };
            rect = rect.intersection(&area)?;
        }
        let small = rect.width < self.cfg.min_width || rect.height < self.cfg.min_height;
        (!rect.is_empty() && !small).then_some(rect)
    }

    /// The name the control is listed under; `None` when the node goes
    /// unlisted for want of one (an unnamed group, label, column header or
    /// empty cell, or
    /// any unnamed node when unnamed ones are not kept).
    fn shown_name(&self, node: &UiNode) -> Option<String> {
        let name = if self.cfg.undouble_names {
            undouble(&node.name).to_owned()
        } else {
            node.name.trim().to_owned()
        };
        let no_value = node.value.as_deref().is_none_or(|v| v.trim().is_empty());
        let dropped = name.is_empty()
            && (!self.cfg.include_unnamed
                || matches!(
                    node.control_type,
                    ControlType::Group | ControlType::Text | ControlType::HeaderItem
                )
                || (node.control_type == ControlType::DataItem && no_value));
        (!dropped).then_some(name)
    }

    /// Node `i` says nothing its nearest kept ancestor does not: a label
    /// repeating the name of the control it sits in (a list row named after
    /// its label), or (with `dedupe_nested`) a node on the same rectangle
    /// with the same name or none.
    fn repeats_kept_ancestor(
        &self,
        kept: &[Option<(Rect<Screen>, String)>],
        i: usize,
        node: &UiNode,
        name: &str,
        rect: Rect<Screen>,
    ) -> bool {
        let ancestor = || nearest_kept_ancestor(self.tree, kept, i);
        if node.control_type == ControlType::Text
            && ancestor().is_some_and(|(_, aname)| names_match(name, aname))
        {
            return true;
        }
        self.cfg.dedupe_nested
            && ancestor().is_some_and(|(arect, aname)| {
                *arect == rect && (name.is_empty() || names_match(name, aname))
            })
    }
}

/// The default of [`FilterConfig::max_empty_cells`]. A capture does not read
/// the name and rectangle of an empty cell, neither focused nor selected, of
/// a table showing more than this many of them: no control list shows it.
pub const MAX_EMPTY_CELLS: usize = 60;

/// A table showing more than `max` empty cells keeps only its cells with a
/// value and the focused or selected ones. A cell is empty when the text it
/// shows is blank (a spreadsheet's, named by its address), or when it shows
/// no text and has no name either; a list's cell named by the text it shows
/// (GTK's) is not, although its value repeats its name and is not listed.
fn drop_empty_cells(tree: &UiTree, picked: &mut Vec<(usize, Control)>, max: usize) {
    let empty_cell = |i: usize, c: &Control| {
        let shown = tree.nodes.get(i).and_then(|n| n.value.as_deref());
        c.control_type == ControlType::DataItem
            && c.value.is_none()
            && shown.map_or(c.name.trim().is_empty(), |v| v.trim().is_empty())
            && !c.states.contains(States::FOCUSED)
            && !c.states.contains(States::SELECTED)
    };
    if picked.iter().filter(|(i, c)| empty_cell(*i, c)).count() > max {
        picked.retain(|(i, c)| !empty_cell(*i, c));
    }
}

/// hidden[i]: node i is not on screen whatever it says of itself. With
/// `check_ancestors`, an ancestor says it is not showing (a notebook's other
/// pages, a collapsed panel) although it reports being visible or enabled;
/// always, it is an item of a closed combo box. Nodes come parents first,
/// so one pass carries both down.
fn hidden_nodes(tree: &UiTree, check_ancestors: bool) -> Vec<bool> {
    let mut hidden = vec![false; tree.nodes.len()];
    if check_ancestors {
        for (i, n) in tree.nodes.iter().enumerate() {
            let Some(p) = n.parent else { continue };
            let parent_hidden = hidden.get(p).copied().unwrap_or(false);
            let p_node = tree.nodes.get(p);
            let p_off = p_node.is_some_and(|pn| {
                pn.parent.is_some()
                    && !pn.states.contains(States::SHOWING)
                    && !pn.states.contains(States::DEFUNCT)
                    && pn
                        .states
                        .intersects(States::VISIBLE | States::ENABLED | States::SENSITIVE)
            });
            if let Some(h) = hidden.get_mut(i) {
                *h = parent_hidden || p_off;
            }
        }
    }

    // The items of a closed combo box are not on screen, whatever they say
    // (Qt marks them showing). A combo is closed when it says it can expand
    // but is not expanded, or — Qt says neither — when the list it holds has
    // no place on screen (Qt gives an open popup's list its box, a closed
    // one none).
    let mut in_closed_combo = vec![false; tree.nodes.len()];
    for (i, n) in tree.nodes.iter().enumerate() {
        let Some((p, pn)) = n.parent.and_then(|p| tree.nodes.get(p).map(|pn| (p, pn))) else {
            continue;
        };
        let closed = pn.control_type == ControlType::ComboBox
            && !pn.states.contains(States::EXPANDED)
            && (pn.states.contains(States::EXPANDABLE)
                || (n.rect.is_none()
                    && matches!(n.control_type, ControlType::List | ControlType::Menu)));
        let below = closed || in_closed_combo.get(p).copied().unwrap_or(false);
        if let Some(slot) = in_closed_combo.get_mut(i) {
            *slot = below;
        }
        if below && let Some(h) = hidden.get_mut(i) {
            *h = true;
        }
    }
    hidden
}

/// The picked controls in reading order, numbered 1..N (at most
/// `max_controls`); the items of each open popup (a menu, a submenu) are
/// numbered together where the first of them comes, in their own reading
/// order, not interleaved with the controls beside the menu (LibreOffice's
/// Format menu ran "Text", "Bold", "Sort Descending", "Align Text"...).
fn numbered(
    tree: &UiTree,
    picked: Vec<(usize, Control)>,
    popups: &[(usize, Rect<Screen>)],
    cfg: &FilterConfig,
) -> Vec<Control> {
    let order = reading_order(
        &picked.iter().map(|(_, c)| c.rect).collect::<Vec<_>>(),
        cfg.row_tolerance,
    );
    // The innermost open popup holding each control (the deepest node; a
    // submenu's own item belongs to the menu it is in, not to its submenu).
    let group: Vec<Option<usize>> = picked
        .iter()
        .map(|(i, _)| {
            popups
                .iter()
                .filter(|(p, _)| p != i && within(tree, *i, *p))
                .max_by_key(|(p, _)| tree.nodes.get(*p).map_or(0, |n| n.depth))
                .map(|(p, _)| *p)
        })
        .collect();
    let mut sequence: Vec<usize> = Vec::with_capacity(order.len());
    let mut emitted: Vec<usize> = Vec::new();
    for &idx in &order {
        match group.get(idx).copied().flatten() {
            None => sequence.push(idx),
            Some(g) if !emitted.contains(&g) => {
                emitted.push(g);
                sequence.extend(order.iter().filter(|&&j| group.get(j) == Some(&Some(g))));
            }
            Some(_) => {}
        }
    }
    let mut out: Vec<Control> = Vec::with_capacity(sequence.len().min(cfg.max_controls));
    for idx in sequence.into_iter().take(cfg.max_controls) {
        if let Some((_, c)) = picked.get(idx) {
            let mut c = c.clone();
            c.id = u32::try_from(out.len() + 1).unwrap_or(u32::MAX);
            out.push(c);
        }
    }
    out
}

/// Open popups of the window: menus not in a menu bar, popup windows
/// captured with it, modal panes (GTK's popovers), each showing, and open
/// submenus (a menu item whose showing items lie outside it, as GTK hangs a
/// menu bar's open menu under its title). Their node indices and the
/// rectangles they cover.
fn overlays(tree: &UiTree, is_shown: &impl Fn(&UiNode) -> bool) -> Vec<(usize, Rect<Screen>)> {
    // Where a popup's items are drawn: the union of its showing children's
    // boxes (Swing reports its popup over the combo, its list below it); a
    // popup whose children have no place on screen is closed (Gecko keeps a
    // closed select's list "showing", its item at -1,-1).
    let drawn = |n: &UiNode| drawn_box(tree, n, is_shown, 0);
    let mut out: Vec<(usize, Rect<Screen>)> = tree
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| {
            n.parent.is_some()
                && is_shown(n)
                && (matches!(n.control_type, ControlType::Menu | ControlType::Window)
                    || n.states.contains(States::MODAL))
        })
        .filter_map(|(i, n)| {
            let own = n.rect?;
            match n.children.is_empty() {
                true => Some((i, own)),
                false => Some((i, drawn(n)?)),
            }
        })
        .collect();
    for (i, n) in tree.nodes.iter().enumerate() {
        if !matches!(n.control_type, ControlType::MenuItem | ControlType::Menu) || !is_shown(n) {
            continue;
        }
        let items = n
            .children
            .iter()
            .filter_map(|&c| tree.nodes.get(c))
            .filter(|c| is_shown(c))
            .filter_map(|c| c.rect);
        let Some(area) = items.reduce(|a, b| a.union(&b)) else {
            continue;
        };
        if n.rect
            .is_none_or(|own| own.intersection(&area) != Some(area))
        {
            out.push((i, area));
        }
    }
    out
}

/// The union of the boxes of `n`'s showing children, each child without a
/// box of its own (a layout box whose rectangle was not read) standing for
/// its own children's (at most [`LAYOUT_DEPTH`] such boxes deep). Boxes
/// at negative positions have no place on screen.
fn drawn_box(
    tree: &UiTree,
    n: &UiNode,
    is_shown: &impl Fn(&UiNode) -> bool,
    depth: usize,
) -> Option<Rect<Screen>> {
    n.children
        .iter()
        .filter_map(|&c| tree.nodes.get(c))
        .filter(|c| is_shown(c))
        .filter_map(|c| match c.rect {
            Some(r) => Some(r).filter(|r| r.x >= 0 && r.y >= 0),
            None if depth < LAYOUT_DEPTH => drawn_box(tree, c, is_shown, depth + 1),
            None => None,
        })
        .reduce(|a, b| a.union(&b))
}

/// Most boxes without a rectangle looked through, nested, for a popup's
/// extent (see [`drawn_box`]).
const LAYOUT_DEPTH: usize = 8;

/// True when node `i` is `ancestor` or lies below it.
fn within(tree: &UiTree, i: usize, ancestor: usize) -> bool {
    let mut cur = Some(i);
    for _ in 0..=tree.nodes.len() {
        match cur {
            Some(c) if c == ancestor => return true,
            Some(c) => cur = tree.nodes.get(c).and_then(|n| n.parent),
            None => return false,
        }
    }
    false
}

/// Where node `i` may be seen when it lies in one of `popups`: the popup's
/// own box and where its items are drawn.
fn popup_area(tree: &UiTree, popups: &[(usize, Rect<Screen>)], i: usize) -> Option<Rect<Screen>> {
    popups
        .iter()
        .find(|(p, _)| within(tree, i, *p))
        .map(|(p, drawn)| {
            tree.nodes
                .get(*p)
                .and_then(|n| n.rect)
                .map_or(*drawn, |own| own.union(drawn))
        })
}

/// Drops the controls an open menu or popover is drawn over: a person sees
/// the popup's items there, not what lies under them. A control counts as
/// covered when its centre is inside a popup and it is part of no popup.
fn drop_covered(
    tree: &UiTree,
    picked: &mut Vec<(usize, Control)>,
    popups: &[(usize, Rect<Screen>)],
) {
    if popups.is_empty() {
        return;
    }
    // What lies in any popup is what a person sees on top (a toolkit may
    // expose one popup twice: GTK's combo list under the combo and as a
    // window of its own). A popup does not cover the control it hangs from
    // either (Firefox reports a closed select's list where the select is).
    picked.retain(|(i, c)| {
        if popups.iter().any(|(p, _)| within(tree, *i, *p)) {
            return true;
        }
        let centre = c.rect.center();
        !popups
            .iter()
            .any(|(p, r)| r.contains(centre) && !within(tree, *p, *i))
    });
}

/// Drops a control when another of the same type and name overlaps it (one
/// element exposed twice, as LibreOffice does with its menu bar). Of the two,
/// the one that can be acted on (a named action, or the action interface
/// where actions are not read with the tree) is kept, else the first.
fn drop_duplicates(picked: &mut Vec<(usize, Control)>) {
    let actionable =
        |c: &Control| c.capabilities.action || c.actions.iter().any(|a| !a.trim().is_empty());
    let mut keep: Vec<(usize, Control)> = Vec::with_capacity(picked.len());
    for (i, c) in picked.drain(..) {
        let twin = (!c.name.is_empty())
            .then(|| {
                // Cheapest tests first: hundreds of cells share a type.
                keep.iter().position(|(_, k)| {
                    k.control_type == c.control_type
                        && k.rect.intersection(&c.rect).is_some()
                        && names_match(&k.name, &c.name)
                })
            })
            .flatten();
        match twin {
            None => keep.push((i, c)),
            Some(t) => {
                if let Some(slot) = keep.get_mut(t)
                    && actionable(&c)
                    && !actionable(&slot.1)
                {
                    *slot = (i, c);
                }
            }
        }
    }
    *picked = keep;
}

fn nearest_kept_ancestor<'a>(
    tree: &UiTree,
    kept: &'a [Option<(Rect<Screen>, String)>],
    index: usize,
) -> Option<&'a (Rect<Screen>, String)> {
    let mut cur = tree.nodes.get(index)?.parent;
    // Bounded by the depth of the tree; a malformed parent cycle stops after
    // as many steps as there are nodes.
    for _ in 0..tree.nodes.len() {
        let p = cur?;
        if let Some(Some(k)) = kept.get(p) {
            return Some(k);
        }
        cur = tree.nodes.get(p)?.parent;
    }
    None
}

fn truncate(s: &str, max_chars: usize) -> String {
    ufo_core::text::clip(s, max_chars)
}

/// Indices of `rects` in reading order: rows by vertical centre (a rectangle
/// joins the current row when its centre is within `tolerance` pixels of the
/// row's first centre), each row left to right. Stable for equal positions.
pub fn reading_order<S>(rects: &[Rect<S>], tolerance: i32) -> Vec<usize> {
    // Centres doubled to stay in integers.
    let cy = |r: &Rect<S>| i64::from(r.y) * 2 + i64::from(r.height);
    let cx = |r: &Rect<S>| i64::from(r.x) * 2 + i64::from(r.width);
    let mut idx: Vec<usize> = (0..rects.len()).collect();
    idx.sort_by_key(|&i| rects.get(i).map(|r| (cy(r), cx(r), i)));
    let tol = i64::from(tolerance.max(0)) * 2;
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut anchor = i64::MIN;
    for i in idx {
        let Some(r) = rects.get(i) else { continue };
        let y = cy(r);
        match rows.last_mut() {
            Some(row) if y - anchor <= tol => row.push(i),
            _ => {
                anchor = y;
                rows.push(vec![i]);
            }
        }
    }
    let mut out = Vec::with_capacity(rects.len());
    for mut row in rows {
        row.sort_by_key(|&i| rects.get(i).map(|r| (cx(r), cy(r), i)));
        out.extend(row);
    }
    out
}

/// The compact prompt form of a control list (`[{"id":"1","name":..,"type":..}]`).
pub fn prompt_controls(controls: &[Control]) -> Vec<PromptControl> {
    controls.iter().map(Control::to_prompt).collect()
}

/// The control list exactly as the AppAgent puts it in its user prompt
/// (`{control_item}`): [`prompt_controls`] as compact JSON.
pub fn prompt_text(controls: &[Control]) -> String {
    serde_json::to_string(&prompt_controls(controls)).unwrap_or_default()
}

/// The compact prompt form as JSON (what UFO puts in the user prompt).
pub fn prompt_json(controls: &[Control]) -> serde_json::Value {
    serde_json::to_value(prompt_controls(controls)).unwrap_or_default()
}

/// The full form of a control list (handles, roles, states, actions,
/// rectangles) for `ui_tree` logs and remote transfer.
pub fn full_json(controls: &[Control]) -> serde_json::Value {
    serde_json::to_value(controls).unwrap_or_default()
}

mod columns;
#[cfg(test)]
mod tests;
mod values;
