//! LibreOffice's presentation placeholders: text a slide shows in an empty
//! title or outline box ("Click to add Title"), which is no text of it.
//!
//! Impress exposes an empty presentation object as a panel named after its
//! kind ("PresentationTitle ", "PresentationSubtitle ") holding one
//! paragraph whose text is the placeholder, with nothing (state, attribute,
//! name) telling it from typed text. A person who clicks the box sees it
//! empty and types the title alone; text inserted after the placeholder
//! through the accessibility API stays behind it ("Click to add
//! TitleQuarterly Review" was saved as the slide's title). So the placeholder
//! is read as an empty text, listed as the box's name, and replaced (never
//! appended to) when text is entered.
//!
//! The words are LibreOffice's English ones (its `STR_PRESOBJ_*` strings);
//! in another UI language the placeholder reads as text, as before.

use super::objref::ObjRef;
use super::{AtspiBackend, call};
use ufo_core::UiNode;

/// LibreOffice's placeholders of a slide's objects (its `STR_PRESOBJ_*`
/// strings; the master view's "Click to edit ..." are the master's own text,
/// edited as such).
const PLACEHOLDERS: &[&str] = &[
    "Click to add Title",
    "Click to add Text",
    "Click to add Notes",
    "Double-click to add an Image",
    "Double-click to add an Object",
    "Double-click to add a Chart",
    "Double-click to add an Organization Chart",
    "Double-click to add a Spreadsheet",
];

/// True when `text` is one of LibreOffice's placeholders.
pub(crate) fn reads_as_placeholder(text: &str) -> bool {
    PLACEHOLDERS.contains(&text.trim())
}

/// True when `holder` (the name of the element holding the text) is one of
/// Impress's presentation objects.
pub(crate) fn is_presentation_object(holder: &str) -> bool {
    holder.trim_start().starts_with("Presentation")
}

/// Lists every placeholder paragraph of a capture by what it shows, with no
/// value: the model reads an empty box labelled "Click to add Title".
pub(super) fn list_placeholders_as_names(nodes: &mut [UiNode]) {
    for i in 0..nodes.len() {
        let n = &nodes[i];
        let holder = n.parent.and_then(|p| nodes.get(p)).map(|p| p.name.as_str());
        let Some(text) = n.value.as_deref() else {
            continue;
        };
        if n.role == "paragraph"
            && n.name.trim().is_empty()
            && holder.is_some_and(is_presentation_object)
            && reads_as_placeholder(text)
        {
            let shown = text.trim().to_owned();
            let n = &mut nodes[i];
            n.name = shown;
            n.value = None;
        }
    }
}

impl AtspiBackend {
    /// True when the text element `h`, whose text is `text`, holds only a
    /// presentation placeholder (asks its holder's name only when the text
    /// reads like one).
    pub(super) async fn holds_placeholder(&self, h: &ObjRef, text: &str) -> bool {
        if !reads_as_placeholder(text) {
            return false;
        }
        let Ok(ph) = self.parent_of(h).await else {
            return false;
        };
        let Ok(pacc) = self.accessible(&ph).await else {
            return false;
        };
        call(&ph, "Name", pacc.name())
            .await
            .is_ok_and(|n| is_presentation_object(&n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ufo_core::{ControlType, ElementHandle, States, ui::Capabilities};

    fn node(
        i: usize,
        parent: Option<usize>,
        role: &str,
        name: &str,
        value: Option<&str>,
    ) -> UiNode {
        UiNode {
            index: i,
            parent,
            children: vec![],
            depth: 0,
            handle: ElementHandle(format!(":1.1|/{i}")),
            role: role.into(),
            control_type: ControlType::Document,
            name: name.into(),
            description: String::new(),
            value: value.map(str::to_owned),
            states: States::SHOWING,
            rect: None,
            actions: vec![],
            capabilities: Capabilities::default(),
        }
    }

    #[test]
    fn an_empty_title_box_is_listed_by_its_placeholder_with_no_text() {
        let mut nodes = vec![
            node(0, None, "panel", "PresentationTitle ", None),
            node(1, Some(0), "paragraph", "", Some("Click to add Title")),
            node(2, None, "panel", "PresentationSubtitle ", None),
            node(3, Some(2), "paragraph", "", Some("Quarterly Review")),
            // The same words typed in Writer are text.
            node(4, None, "panel", "Frame1", None),
            node(5, Some(4), "paragraph", "", Some("Click to add Title")),
        ];
        list_placeholders_as_names(&mut nodes);
        assert_eq!(nodes[1].name, "Click to add Title");
        assert_eq!(nodes[1].value, None);
        assert_eq!(nodes[3].value.as_deref(), Some("Quarterly Review"));
        assert_eq!(nodes[5].value.as_deref(), Some("Click to add Title"));
    }

    #[test]
    fn only_libreoffice_s_own_words_are_placeholders() {
        assert!(reads_as_placeholder("Click to add Text"));
        assert!(reads_as_placeholder("Double-click to add an Image"));
        assert!(!reads_as_placeholder("Click to add TitleQuarterly Review"));
        assert!(!reads_as_placeholder("Quarterly Review"));
    }
}
