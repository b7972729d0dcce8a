//! What a control shows the model beside its name: a field's text, a
//! slider's number, a combo box's current choice, a document's content.

use super::{FilterConfig, truncate};
use ufo_core::{ControlType, States, UiNode, UiTree};

/// The value a control shows the model: a document's or terminal's content
/// excerpt, else its own value; nothing when it only repeats the name or is
/// a bare number on a control that shows none.
pub(super) fn shown_value(
    tree: &UiTree,
    i: usize,
    node: &UiNode,
    name: &str,
    cfg: &FilterConfig,
) -> Option<String> {
    let content = is_content(node);
    let value = match content {
        true => Some(content_excerpt(tree, i, cfg)),
        false => node
            .value
            .clone()
            .filter(|v| !v.trim().is_empty())
            .or_else(|| chosen_item(tree, node)),
    };
    let max = match content {
        true => cfg.max_content_chars,
        false => cfg.max_value_chars,
    };
    value
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty() && *v != name)
        .filter(|v| !(bare_number(v) && numberless(&node.control_type)))
        .map(|v| truncate(v, max))
}

/// Documents and terminals: what they hold is content a person reads.
fn is_content(node: &UiNode) -> bool {
    node.control_type == ControlType::Document || node.role == "terminal"
}

/// The content of document `i`: its own text, else the text of the showing
/// elements below it that are not controls of the list themselves (a PDF
/// viewer's pages), in tree order, cut at `max_content_chars`.
fn content_excerpt(tree: &UiTree, i: usize, cfg: &FilterConfig) -> String {
    let Some(node) = tree.nodes.get(i) else {
        return String::new();
    };
    if let Some(v) = node.value.as_deref().filter(|v| !v.trim().is_empty()) {
        return v.to_owned();
    }
    let mut out = String::new();
    let mut queue: std::collections::VecDeque<usize> = node.children.iter().copied().collect();
    let mut seen = 0;
    while let Some(c) = queue.pop_front() {
        seen += 1;
        if seen > 500 || out.chars().count() > cfg.max_content_chars {
            break;
        }
        let Some(n) = tree.nodes.get(c) else { continue };
        if !n.states.contains(States::SHOWING) && !n.states.contains(States::VISIBLE) {
            continue;
        }
        if cfg.control_types.contains(&n.control_type) && n.control_type != ControlType::Text {
            // Listed on its own.
            continue;
        }
        if let Some(t) = n.value.as_deref().filter(|t| !t.trim().is_empty()) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(t.trim());
        }
        queue.extend(n.children.iter().copied());
    }
    out
}

/// A value that is only a number (`"0"`, `"1.5"`).
fn bare_number(v: &str) -> bool {
    v.parse::<f64>().is_ok()
}

/// Types whose numeric value (LibreOffice reports `0` for every button) says
/// nothing a person sees.
fn numberless(t: &ControlType) -> bool {
    matches!(
        t,
        ControlType::Button
            | ControlType::MenuItem
            | ControlType::TabItem
            | ControlType::ListItem
            | ControlType::TreeItem
            | ControlType::Hyperlink
            | ControlType::SplitButton
    )
}

/// The choice a combo box shows when it holds no text of its own: the
/// selected item of the list it holds, or the text of its entry (Gecko's `<select>` is a combo named
/// by its label, "Color", over a list whose selected item is "Green").
/// Searched two levels down, at most [`CHOICE_SCAN`] nodes.
fn chosen_item(tree: &UiTree, node: &UiNode) -> Option<String> {
    if node.control_type != ControlType::ComboBox {
        return None;
    }
    let mut level: Vec<usize> = node.children.clone();
    let mut seen = 0;
    for _ in 0..2 {
        let mut next = Vec::new();
        for c in level {
            seen += 1;
            if seen > CHOICE_SCAN {
                return None;
            }
            let Some(n) = tree.nodes.get(c) else { continue };
            let name = n.name.trim();
            if n.states.contains(States::SELECTED) && !name.is_empty() {
                return Some(name.to_owned());
            }
            // A combo with an entry shows what the entry holds.
            if let Some(v) = n.value.as_deref().map(str::trim).filter(|v| !v.is_empty())
                && n.control_type == ControlType::Edit
            {
                return Some(v.to_owned());
            }
            next.extend(n.children.iter().copied());
        }
        level = next;
    }
    None
}

/// How many nodes below a combo box are looked at for its choice (a font
/// list holds hundreds).
const CHOICE_SCAN: usize = 400;
