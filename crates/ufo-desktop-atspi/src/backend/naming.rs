//! Naming the controls an application left unnamed, with what the
//! application says besides the tree (its `labelled-by` relations); the
//! text rules are in [`crate::labels`].

use super::context::Capture;
use super::objref::ObjRef;
use super::{AtspiBackend, call};
use crate::labels::{
    is_class_name, is_id_name, label_beside, needs_name, texts_on_screen, visible_text, wants_name,
    without_markup, wrapper_name,
};
use atspi::RelationType;
use atspi::proxy::accessible::AccessibleProxy;
use futures::future::join_all;
use std::collections::HashMap;
use std::time::Duration;
use ufo_core::{ControlType, UiNode};

impl AtspiBackend {
    /// Each element labelling `h` (`None`: the call failed).
    pub(super) async fn labelled_by(
        &self,
        h: &ObjRef,
        acc: &AccessibleProxy<'static>,
    ) -> Option<Vec<ObjRef>> {
        let bus = h.bus();
        let rels = self.relations(h, acc).await.ok()?;
        Some(
            rels.into_iter()
                .filter(|(r, _)| *r == RelationType::LabelledBy)
                .flat_map(|(_, t)| t)
                .map(|t| ObjRef::answered(bus, &t))
                .collect(),
        )
    }
}

impl Capture<'_> {
    /// Names the unnamed and class-named controls of `nodes` in place: the
    /// `labelled-by` targets' names, else the description; a class name that
    /// finds no better name is cleared. Bounded by `limit` as a whole.
    /// `relations` holds the relations already read with the nodes (handle
    /// → targets); a target in the tree is named by its node. With `only`,
    /// only the controls whose handles it holds are named (a branch read
    /// again; the rest were named before).
    pub(super) async fn name_unnamed(
        &self,
        nodes: &mut [UiNode],
        relations: &HashMap<String, Vec<ObjRef>>,
        limit: Duration,
        only: Option<&std::collections::HashSet<String>>,
    ) {
        for n in nodes.iter_mut() {
            if let std::borrow::Cow::Owned(clean) = without_markup(&n.name) {
                n.name = clean;
            }
            // A class name or widget id on what no one acts on is dropped
            // here; what is acted on gets a better name below. A name the
            // element shows as its text is what a person reads, however it
            // looks (an icon named "audio-volume-high", a file "to-do-list").
            if !wants_name(&n.control_type)
                && !shows_its_name(n)
                && (is_class_name(&n.name) || is_id_name(&n.name))
            {
                n.name.clear();
            }
        }
        // A grid's cell (GTK 4's grid and column views: "GtkListItemWidget")
        // shows its text in a child label.
        for i in 0..nodes.len() {
            if nodes[i].control_type == ControlType::DataItem
                && needs_name(&nodes[i].name)
                && let Some(text) = visible_text(nodes, i)
            {
                nodes[i].name = text;
            }
        }
        let todo: Vec<usize> = nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| only.is_none_or(|o| o.contains(&n.handle.0)))
            // A node read lean (not showing: no rectangle) is never listed.
            .filter(|(_, n)| {
                (n.rect.is_some() || n.states.contains(ufo_core::States::SHOWING))
                    && ((needs_name(&n.name) && !shows_its_name(n) && wants_name(&n.control_type))
                        || named_by_a_word_id(n))
            })
            .map(|(i, _)| i)
            .collect();
        if todo.is_empty() {
            return;
        }
        let in_tree: HashMap<&str, &str> = nodes
            .iter()
            .map(|n| (n.handle.0.as_str(), n.name.as_str()))
            .collect();
        let reads = join_all(todo.iter().map(|&i| {
            let h = nodes[i].handle.clone();
            let in_tree = &in_tree;
            async move {
                let targets = match relations.get(&h.0) {
                    Some(t) => t.clone(),
                    None => {
                        let h = ObjRef::parse(&h).ok()?;
                        let acc = self.backend.accessible(&h).await.ok()?;
                        self.backend.labelled_by(&h, &acc).await?
                    }
                };
                let mut names = Vec::new();
                for th in targets.iter().take(3) {
                    let name = match in_tree.get(th.0.as_str()) {
                        Some(n) => Some((*n).to_owned()),
                        None => match self.backend.accessible(th).await {
                            Ok(a) => call(th, "Name", a.name()).await.ok(),
                            Err(_) => None,
                        },
                    };
                    if let Some(n) = name.filter(|n| !n.trim().is_empty()) {
                        names.push(n.trim().to_owned());
                    }
                }
                Some(names.join(" "))
            }
        }));
        let labels = tokio::time::timeout(limit, reads).await.unwrap_or_default();
        let field_labels = texts_on_screen(nodes);
        for (k, &i) in todo.iter().enumerate() {
            // A label that is itself no name (GTK 4's menu button is
            // labelled by its own wrapper, "GtkMenuButton") is not taken.
            let labelled = labels.get(k).cloned().flatten().filter(|l| !needs_name(l));
            name_one(nodes, i, labelled, &field_labels);
        }
    }
}

/// Names node `i`, which needs a name, from what the capture holds and
/// `labelled` (the names of what labels it, from its relations).
fn name_one(
    nodes: &mut [UiNode],
    i: usize,
    labelled: Option<String>,
    field_labels: &[(ufo_core::Rect<ufo_core::Screen>, String)],
) {
    // A text area inside a named container (LibreOffice's "Input line"
    // panel around the formula bar's paragraph) is that container; an
    // empty paragraph is 1 px wide, the container is where to click.
    if matches!(
        nodes[i].control_type,
        ControlType::Edit | ControlType::Document
    ) && let Some(p) = nodes[i].parent
        && let Some(parent) = nodes.get(p)
        && !parent.name.trim().is_empty()
        && !is_class_name(&parent.name)
        && matches!(parent.control_type, ControlType::Pane | ControlType::Group)
    {
        let (name, rect) = (parent.name.trim().to_owned(), parent.rect);
        let node = &mut nodes[i];
        node.name = name;
        if node.rect.is_none_or(|r| r.width <= 2 || r.height <= 2) {
            node.rect = rect;
        }
        return;
    }
    let shown_text = visible_text(nodes, i);
    let beside = label_beside(&nodes[i], field_labels);
    let wrapper = wrapper_name(nodes, i);
    let node = &mut nodes[i];
    if named_by_a_word_id(node) {
        // Only a label names it; the word is what it shows.
        if let Some(label) = labelled.or(beside) {
            let word = std::mem::replace(&mut node.name, without_markup(&label).into_owned());
            if node.value.as_deref().is_none_or(|v| v.trim().is_empty()) {
                node.value = Some(word);
            }
        }
        return;
    }
    // A tooltip's first line: what the control does (qalculate's arrow
    // keys: "Move cursor left or right", then a blank line and
    // "Right-click: …").
    let first_line = node.description.trim().lines().next().unwrap_or("");
    let described = Some(first_line.trim().to_owned())
        .filter(|d| !d.is_empty() && !needs_name(d) && d.chars().count() <= 80);
    match labelled.or(shown_text).or(beside).or(described).or(wrapper) {
        Some(n) => node.name = without_markup(&n).into_owned(),
        // A placeholder is at least a word; a class name or id is not.
        None if is_class_name(&node.name) || is_id_name(&node.name) => node.name.clear(),
        None => {}
    }
}

/// True when combo box `n` is named by one lower-case word (`light`,
/// `colorful`): an id from the application's settings or the choice it
/// shows, not what the label beside it says. Such a combo is named by its
/// label when it has one, and the word becomes its value.
fn named_by_a_word_id(n: &UiNode) -> bool {
    let name = n.name.trim();
    n.control_type == ControlType::ComboBox
        && !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
}

/// True when `n`'s name is the text it shows (a label's, a cell's): what a
/// person reads there, never a widget id to be replaced.
fn shows_its_name(n: &UiNode) -> bool {
    let name = n.name.trim();
    !name.is_empty() && n.value.as_deref().map(str::trim) == Some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::walk::tests::node;

    #[test]
    fn an_unnamed_button_takes_its_tooltip_s_first_line() {
        let mut nodes = vec![
            node(0, None, vec![1], "window"),
            node(1, Some(0), vec![], ""),
        ];
        nodes[1].control_type = ControlType::Button;
        nodes[1].description =
            "Move cursor left or right\n\nRight-click: Move cursor to beginning or end".into();
        name_one(&mut nodes, 1, None, &[]);
        assert_eq!(nodes[1].name, "Move cursor left or right");
    }
}
