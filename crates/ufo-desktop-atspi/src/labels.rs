//! Names for controls the application left unnamed.
//!
//! Toolkits fall back to a widget's class name when the application set no
//! accessible name (GTK: `GtkMenuButton`, `EditorSourceView`; Qt:
//! `QToolButton`), and many icon buttons and fields have no name at all. A
//! person reads the label next to the field or the tooltip: here that is the
//! `labelled-by` relation, then the description. A class name is never shown.

use crate::backend::{AtspiBackend, call, handle, split_handle};
use atspi::RelationType;
use futures::future::join_all;
use std::time::Duration;
use ufo_core::{ControlType, UiNode};

/// Words a widget class name ends with.
const CLASS_SUFFIXES: &[&str] = &[
    "Button",
    "View",
    "Box",
    "Bin",
    "Widget",
    "Label",
    "Entry",
    "Window",
    "Grid",
    "Popover",
    "Stack",
    "Revealer",
    "Bar",
    "Frame",
    "Area",
    "Image",
    "Switch",
    "Scale",
    "Menu",
    "Item",
    "Text",
    "Edit",
    "Panel",
    "Pane",
    "Container",
    "Overlay",
    "Paned",
    "Dialog",
];

/// True when `name` looks like a toolkit class name rather than a label: one
/// CamelCase word of at least two parts that starts with a toolkit prefix
/// (`Gtk`, `Adw`, `Gdk`, `Q`+capital, `Kf`/`K`+capital) or ends with a widget
/// word (`…Button`, `…View`).
pub fn is_class_name(name: &str) -> bool {
    let n = name.trim();
    if n.len() < 4 || !n.chars().all(|c| c.is_ascii_alphanumeric()) {
        return false;
    }
    let humps = n.chars().filter(char::is_ascii_uppercase).count();
    if humps < 2 || !n.starts_with(|c: char| c.is_ascii_uppercase()) {
        return false;
    }
    let prefixed = ["Gtk", "Adw", "Gdk", "Gtk4", "Hdy"]
        .iter()
        .any(|p| n.starts_with(p) && n[p.len()..].starts_with(|c: char| c.is_ascii_uppercase()))
        || (n.len() > 2
            && n.starts_with('Q')
            && n[1..].starts_with(|c: char| c.is_ascii_uppercase())
            && n[2..].starts_with(|c: char| c.is_ascii_lowercase()));
    prefixed
        || CLASS_SUFFIXES
            .iter()
            .any(|s| n.len() > s.len() && n.ends_with(s))
}

/// Control types worth naming (what a model acts on).
fn wants_name(t: &ControlType) -> bool {
    matches!(
        t,
        ControlType::Button
            | ControlType::Edit
            | ControlType::ComboBox
            | ControlType::CheckBox
            | ControlType::RadioButton
            | ControlType::Spinner
            | ControlType::Slider
            | ControlType::Document
            | ControlType::MenuItem
            | ControlType::SplitButton
            | ControlType::List
            | ControlType::Tree
            | ControlType::Table
            | ControlType::ListItem
            | ControlType::TreeItem
            | ControlType::TabItem
    )
}

impl AtspiBackend {
    /// Names the unnamed and class-named controls of `nodes` in place: the
    /// `labelled-by` targets' names, else the description; a class name that
    /// finds no better name is cleared. Bounded by `limit` as a whole.
    pub(crate) async fn name_unnamed(&self, nodes: &mut [UiNode], limit: Duration) {
        let todo: Vec<usize> = nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                (n.name.trim().is_empty() || is_class_name(&n.name)) && wants_name(&n.control_type)
            })
            .map(|(i, _)| i)
            .collect();
        if todo.is_empty() {
            return;
        }
        let reads = join_all(todo.iter().map(|&i| {
            let h = nodes[i].handle.clone();
            async move {
                let (bus, _) = split_handle(&h).ok()?;
                let acc = self.accessible(&h).await.ok()?;
                let rels = call(&h, "GetRelationSet", acc.get_relation_set())
                    .await
                    .ok()?;
                let targets: Vec<_> = rels
                    .into_iter()
                    .filter(|(r, _)| *r == RelationType::LabelledBy)
                    .flat_map(|(_, t)| t)
                    .collect();
                let mut names = Vec::new();
                for t in targets.iter().take(3) {
                    let th = handle(
                        t.name_as_str().filter(|n| !n.is_empty()).unwrap_or(bus),
                        t.path_as_str(),
                    );
                    if let Ok(a) = self.accessible(&th).await
                        && let Ok(n) = call(&th, "Name", a.name()).await
                        && !n.trim().is_empty()
                    {
                        names.push(n.trim().to_owned());
                    }
                }
                Some(names.join(" "))
            }
        }));
        let labels = tokio::time::timeout(limit, reads).await.unwrap_or_default();
        for (k, &i) in todo.iter().enumerate() {
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
                continue;
            }
            let shown_text = visible_text(nodes, i);
            let node = &mut nodes[i];
            let labelled = labels.get(k).cloned().flatten().filter(|l| !l.is_empty());
            let described = Some(node.description.trim().to_owned())
                .filter(|d| !d.is_empty() && !is_class_name(d) && d.chars().count() <= 80);
            match labelled.or(shown_text).or(described) {
                Some(n) => node.name = n,
                None if is_class_name(&node.name) => node.name.clear(),
                None => {}
            }
        }
    }
}

/// The text a person reads on a control that has no name: its labels (up to
/// two levels down), joined. GTK list rows and LibreOffice's sidebar buttons
/// carry their text in a child label.
fn visible_text(nodes: &[UiNode], i: usize) -> Option<String> {
    if !matches!(
        nodes.get(i)?.control_type,
        ControlType::ListItem
            | ControlType::TreeItem
            | ControlType::Button
            | ControlType::MenuItem
            | ControlType::SplitButton
            | ControlType::TabItem
            | ControlType::CheckBox
            | ControlType::RadioButton
    ) {
        return None;
    }
    let mut words = Vec::new();
    let mut level = nodes.get(i)?.children.clone();
    for _ in 0..2 {
        let mut next = Vec::new();
        for c in level {
            let Some(n) = nodes.get(c) else { continue };
            if n.control_type == ControlType::Text && !n.name.trim().is_empty() {
                words.push(n.name.trim().to_owned());
            }
            next.extend(n.children.iter().copied());
        }
        level = next;
    }
    let text = words.join(" ");
    (!text.is_empty() && text.chars().count() <= 80).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_are_recognised_and_labels_are_not() {
        for n in [
            "GtkMenuButton",
            "GtkToggleButton",
            "EditorSourceView",
            "QToolButton",
            "AdwTabBar",
            "GtkBox",
        ] {
            assert!(is_class_name(n), "{n}");
        }
        for n in [
            "Save",
            "Save As",
            "LibreOffice",
            "FeatherPad",
            "JavaScript",
            "OK",
            "A1",
            "Name Box",
            "QR",
            "Bold",
            "",
        ] {
            assert!(!is_class_name(n), "{n}");
        }
    }
}
