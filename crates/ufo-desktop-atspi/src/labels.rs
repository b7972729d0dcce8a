//! Names for controls the application left unnamed.
//!
//! Toolkits fall back to a widget's class name when the application set no
//! accessible name (GTK: `GtkMenuButton`, `EditorSourceView`; Qt:
//! `QToolButton`), and many icon buttons and fields have no name at all. A
//! person reads the label next to the field or the tooltip: here that is the
//! `labelled-by` relation, then the description. A class name is never shown.
//! (The rules on text live here; `backend::naming` asks the application.)

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

/// True when `name` is a widget id rather than a label: lower-case ASCII
/// words joined by `-` or `_`, three or more of them, or two ending in a
/// widget word (`page-label-entry`, `search_entry`).
pub fn is_id_name(name: &str) -> bool {
    let n = name.trim();
    if n.is_empty()
        || !n
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        return false;
    }
    let parts: Vec<&str> = n.split(['-', '_']).collect();
    if parts.iter().any(|p| p.is_empty()) || parts.len() < 2 {
        return false;
    }
    const WIDGET_WORDS: &[&str] = &[
        "entry", "button", "box", "label", "view", "bar", "widget", "menu", "list", "popover",
        "combo", "field", "icon", "image", "page", "pane", "panel", "stack", "switch", "toggle",
    ];
    parts.len() >= 3 || parts.last().is_some_and(|w| WIDGET_WORDS.contains(w))
}

/// Names toolkits give every element of a kind (GTK 4 names each notebook
/// tab "Tab"): no name a person could tell apart.
pub fn is_placeholder_name(name: &str) -> bool {
    matches!(
        name.trim().to_ascii_lowercase().as_str(),
        "tab" | "page tab" | "button" | "push button" | "label" | "image" | "icon" | "item"
    )
}

/// A name as a person reads it: the Pango markup some applications leave in
/// their labels (`x<sup>2</sup>`, `<b>Bold</b>`) rendered as text.
pub fn without_markup(name: &str) -> std::borrow::Cow<'_, str> {
    const TAGS: &[&str] = &[
        "b", "i", "u", "s", "tt", "big", "small", "sub", "sup", "span", "markup",
    ];
    if !name.contains('<') || !name.contains('>') {
        return name.into();
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    let mut sup = false;
    while let Some(open) = rest.find('<') {
        let Some(close) = rest[open..].find('>').map(|c| open + c) else {
            break;
        };
        let inner = &rest[open + 1..close];
        let (closing, body) = match inner.strip_prefix('/') {
            Some(b) => (true, b),
            None => (false, inner),
        };
        let tag = match body.starts_with(char::is_whitespace) {
            true => "",
            false => body.split_whitespace().next().unwrap_or_default(),
        };
        if !TAGS.contains(&tag) {
            // Not markup (`a < b > c`): keep it as written.
            push_text(&mut out, &rest[..=open], sup);
            rest = &rest[open + 1..];
            continue;
        }
        push_text(&mut out, &rest[..open], sup);
        if tag == "sup" {
            sup = !closing;
        }
        rest = &rest[close + 1..];
    }
    push_text(&mut out, rest, sup);
    out.into()
}

/// Appends `text`, as superscript characters where there are some.
fn push_text(out: &mut String, text: &str, sup: bool) {
    if !sup {
        out.push_str(text);
        return;
    }
    for ch in text.chars() {
        out.push(match ch {
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            '9' => '⁹',
            '+' => '⁺',
            '-' | '−' => '⁻',
            'n' => 'ⁿ',
            'x' => 'ˣ',
            'y' => 'ʸ',
            c => c,
        });
    }
}

/// True when `name` is no name a person reads (empty, a class name, a
/// widget id or a placeholder).
pub(crate) fn needs_name(name: &str) -> bool {
    name.trim().is_empty() || is_class_name(name) || is_id_name(name) || is_placeholder_name(name)
}

/// Control types worth naming (what a model acts on).
pub(crate) fn wants_name(t: &ControlType) -> bool {
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
            | ControlType::Calendar
    )
}

/// The short texts on screen that may label a field: their boxes and
/// words (read once per capture). A text holding a control is that
/// control's label (a web page's `<label>` around its check box), never
/// another field's.
pub(crate) fn texts_on_screen(nodes: &[UiNode]) -> Vec<(ufo_core::Rect<ufo_core::Screen>, String)> {
    let holds_control = |n: &UiNode| {
        n.children.iter().any(|&c| {
            nodes
                .get(c)
                .is_some_and(|k| k.control_type != ControlType::Text)
        })
    };
    nodes
        .iter()
        .filter(|n| {
            n.control_type == ControlType::Text
                && !n.name.trim().is_empty()
                && n.name.chars().count() <= 60
                && n.states
                    .intersects(ufo_core::States::SHOWING | ufo_core::States::VISIBLE)
                && !holds_control(n)
        })
        .filter_map(|n| Some((n.rect?, n.name.trim().to_owned())))
        .collect()
}

/// The label a person reads beside a field that has no name: one of
/// `texts` on the same line ending at most 120 px before the field's left
/// edge (the nearest), else one just above it, overlapping it horizontally.
pub(crate) fn label_beside(
    node: &UiNode,
    texts: &[(ufo_core::Rect<ufo_core::Screen>, String)],
) -> Option<String> {
    // A button beside a label ending in a colon is the field that label
    // names: LibreOffice's sidebar lists ("Format: [Screen 16:9 ▾]") are
    // toggle buttons whose choice is drawn, not exposed. Only the label on
    // its left counts: what is above a button is a heading.
    if node.control_type == ControlType::Button {
        return colon_label_left_of(node, texts);
    }
    // Fields only: a text view (multi-line) is a document, and what sits
    // above it is a heading or a window title, not its label.
    if !matches!(
        node.control_type,
        ControlType::Edit
            | ControlType::ComboBox
            | ControlType::Spinner
            | ControlType::Slider
            | ControlType::Calendar
    ) || node.states.contains(ufo_core::States::MULTI_LINE)
    {
        return None;
    }
    let r = node.rect?;
    let cy = r.y + r.height / 2;
    let left = texts
        .iter()
        .filter_map(|(t, name)| {
            let gap = r.x - t.right();
            let same_line = (t.y..=t.bottom()).contains(&cy);
            (same_line && (-2..=120).contains(&gap)).then_some((gap, name))
        })
        .min_by_key(|(gap, _)| *gap);
    let above = || {
        texts
            .iter()
            .filter_map(|(t, name)| {
                let gap = r.y - t.bottom();
                let overlaps = t.x < r.right() && r.x < t.right();
                (overlaps && (-2..=30).contains(&gap)).then_some((gap, name))
            })
            .min_by_key(|(gap, _)| *gap)
    };
    let (_, name) = left.or_else(above)?;
    Some(name.trim_end_matches(':').trim().to_owned()).filter(|s| !s.is_empty())
}

/// The label ending in a colon on `node`'s line, ending at most 120 px
/// before its left edge (the nearest), without the colon.
fn colon_label_left_of(
    node: &UiNode,
    texts: &[(ufo_core::Rect<ufo_core::Screen>, String)],
) -> Option<String> {
    let r = node.rect?;
    let cy = r.y + r.height / 2;
    texts
        .iter()
        .filter(|(_, name)| name.trim_end().ends_with(':'))
        .filter_map(|(t, name)| {
            let gap = r.x - t.right();
            ((t.y..=t.bottom()).contains(&cy) && (-2..=120).contains(&gap)).then_some((gap, name))
        })
        .min_by_key(|(gap, _)| *gap)
        .map(|(_, name)| name.trim_end().trim_end_matches(':').trim().to_owned())
        .filter(|s| !s.is_empty())
}

/// The name a button that has none takes from what wraps it alone: the
/// nearest of up to two ancestors, each holding only it and no more than
/// twice its size, with a name or a tooltip (without its key shortcut).
/// LibreOffice's sidebar tabs are unnamed toggle buttons, each alone in a
/// panel described "Properties (Ctrl+Alt+1)" inside a tool bar named
/// "Properties"; its deck's tools are in panels named "More Options".
pub(crate) fn wrapper_name(nodes: &[UiNode], i: usize) -> Option<String> {
    let n = nodes.get(i)?;
    if n.control_type != ControlType::Button {
        return None;
    }
    let area = |r: ufo_core::Rect<ufo_core::Screen>| i64::from(r.width) * i64::from(r.height);
    let mut inner = n;
    for _ in 0..2 {
        let p = nodes.get(inner.parent?)?;
        let snug = match (n.rect, p.rect) {
            (Some(a), Some(b)) => b.intersection(&a) == Some(a) && area(b) <= 2 * area(a),
            // A layout box is not measured (see `backend::plan`).
            (_, None) => true,
            (None, Some(_)) => false,
        };
        if !snug || p.children.len() != 1 {
            return None;
        }
        let named = [p.name.trim(), without_shortcut(p.description.trim())]
            .into_iter()
            .find(|t| !t.is_empty() && !needs_name(t) && t.chars().count() <= 80);
        if let Some(t) = named {
            return Some(t.to_owned());
        }
        inner = p;
    }
    None
}

/// A tooltip without the key shortcut it ends with ("Properties
/// (Ctrl+Alt+1)" is "Properties").
fn without_shortcut(tip: &str) -> &str {
    match tip.rsplit_once(" (") {
        Some((head, tail))
            if tail.ends_with(')')
                && ["Ctrl+", "Alt+", "Shift+", "F"]
                    .iter()
                    .any(|k| tail.starts_with(k)) =>
        {
            head.trim()
        }
        _ => tip,
    }
}

/// The text a person reads on a control that has no name: its labels (up to
/// four levels down), joined. GTK list rows, GTK 4's grid cells and
/// LibreOffice's sidebar buttons carry their text in a child label (GTK 3's
/// file chooser's places four levels down, under three boxes: without it the
/// row was named by its tooltip, "Open your personal folder" for "Home"); an
/// icon view's item (a list item without labels) in its own text.
pub(crate) fn visible_text(nodes: &[UiNode], i: usize) -> Option<String> {
    if !matches!(
        nodes.get(i)?.control_type,
        ControlType::ListItem
            | ControlType::TreeItem
            | ControlType::DataItem
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
    for _ in 0..4 {
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
    let mut text = words.join(" ");
    // An icon view's item carries its caption as its own text.
    let own = nodes.get(i)?;
    if text.is_empty()
        && matches!(
            own.control_type,
            ControlType::ListItem | ControlType::TreeItem
        )
    {
        let caption = own.value.as_deref().unwrap_or_default().trim();
        if !caption.contains('\n') {
            caption.clone_into(&mut text);
        }
    }
    (!text.is_empty() && text.chars().count() <= 80).then_some(text)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_label_around_a_check_box_labels_no_field_below_it() {
        // (top, width) of a 20 px high row at x = 8.
        let node = |i: usize, parent: Option<usize>, t: ControlType, name: &str, r: (i32, i32)| {
            super::tests::node(i, parent, t, name, (8, r.0, r.1, 20))
        };
        // "Subscribe" wraps its check box; the select below has no label.
        let mut nodes = vec![
            node(0, None, ControlType::Pane, "", (0, 400)),
            node(1, Some(0), ControlType::Text, "Subscribe", (232, 107)),
            node(2, Some(1), ControlType::CheckBox, "Subscribe", (234, 14)),
            node(3, Some(0), ControlType::ComboBox, "", (254, 57)),
            node(4, Some(0), ControlType::Text, "Country", (290, 60)),
            node(5, Some(0), ControlType::ComboBox, "", (312, 57)),
        ];
        nodes[0].children = vec![1, 3, 4, 5];
        nodes[1].children = vec![2];
        let texts = super::texts_on_screen(&nodes);
        assert_eq!(super::label_beside(&nodes[3], &texts), None);
        assert_eq!(
            super::label_beside(&nodes[5], &texts).as_deref(),
            Some("Country")
        );
    }

    use super::*;

    /// A showing node `i` of type `t` at rectangle `r` (x, y, width, height).
    fn node(
        i: usize,
        parent: Option<usize>,
        t: ControlType,
        name: &str,
        r: (i32, i32, i32, i32),
    ) -> UiNode {
        use ufo_core::{ElementHandle, Rect, States, ui::Capabilities};
        UiNode {
            index: i,
            parent,
            children: Vec::new(),
            depth: 0,
            handle: ElementHandle(format!(":1.1|/{i}")),
            role: String::new(),
            control_type: t,
            name: name.into(),
            description: String::new(),
            value: None,
            states: States::SHOWING | States::VISIBLE,
            rect: Some(Rect::new(r.0, r.1, r.2, r.3)),
            actions: Vec::new(),
            capabilities: Capabilities::default(),
        }
    }

    #[test]
    fn unnamed_buttons_take_a_colon_label_beside_or_their_wrapper_s_tooltip() {
        // Impress's sidebar: "Format:" left of its list; a heading above a
        // button and a label with no colon name nothing.
        let mut nodes = vec![
            node(0, None, ControlType::Pane, "", (843, 155, 329, 795)),
            node(1, Some(0), ControlType::Text, "Format:", (902, 203, 50, 34)),
            node(2, Some(0), ControlType::Button, "", (958, 203, 184, 34)),
            node(
                3,
                Some(0),
                ControlType::Text,
                "Layouts",
                (958, 240, 184, 17),
            ),
            node(4, Some(0), ControlType::Button, "", (958, 260, 184, 34)),
            node(5, Some(0), ControlType::Text, "Zoom", (880, 300, 50, 34)),
            node(6, Some(0), ControlType::Button, "", (958, 300, 34, 34)),
            node(7, Some(0), ControlType::Pane, "", (1176, 200, 37, 35)),
            node(8, Some(7), ControlType::Button, "", (1176, 200, 37, 35)),
            // A tool bar named "Styles" around an unmeasured box around it.
            node(
                9,
                Some(0),
                ControlType::ToolBar,
                "Styles",
                (1172, 238, 44, 42),
            ),
            node(10, Some(9), ControlType::Pane, "", (0, 0, 0, 0)),
            node(11, Some(10), ControlType::Button, "", (1176, 242, 37, 35)),
        ];
        nodes[0].children = vec![1, 2, 3, 4, 5, 6, 7, 9];
        nodes[7].children = vec![8];
        nodes[7].description = "Properties (Ctrl+Alt+1)".into();
        nodes[9].children = vec![10];
        nodes[10].children = vec![11];
        nodes[10].rect = None;
        let texts = texts_on_screen(&nodes);
        assert_eq!(label_beside(&nodes[2], &texts).as_deref(), Some("Format"));
        assert_eq!(label_beside(&nodes[4], &texts), None);
        assert_eq!(label_beside(&nodes[6], &texts), None);
        assert_eq!(wrapper_name(&nodes, 8).as_deref(), Some("Properties"));
        assert_eq!(wrapper_name(&nodes, 11).as_deref(), Some("Styles"));
        assert_eq!(wrapper_name(&nodes, 2), None, "a pane larger than it");
        assert_eq!(without_shortcut("Undo (Ctrl+Z)"), "Undo");
        assert_eq!(without_shortcut("Size (in points)"), "Size (in points)");
    }

    #[test]
    fn ids_placeholders_and_markup() {
        for n in ["page-label-entry", "search_entry", "main-menu-button"] {
            assert!(is_id_name(n), "{n}");
        }
        for n in ["e-mail", "x", "Save", "re-do", "lower case", "a--b"] {
            assert!(!is_id_name(n), "{n}");
        }
        assert!(is_placeholder_name("Tab"));
        assert!(!is_placeholder_name("Tabs"));
        assert_eq!(without_markup("x<sup>2</sup>"), "x²");
        assert_eq!(
            without_markup("<b>Bold</b> and <span foreground=\"red\">red</span>"),
            "Bold and red"
        );
        assert_eq!(without_markup("a < b > c"), "a < b > c");
        assert_eq!(without_markup("e<sup>x</sup>"), "eˣ");
        assert_eq!(without_markup("10<sup>-3</sup>"), "10⁻³");
    }

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
