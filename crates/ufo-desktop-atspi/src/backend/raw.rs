//! One node as read, before it becomes a node of a capture: [`RawNode`],
//! what it is made from, and how it converts ([`RawNode::into_node`]).

use super::cache::Hint;
use super::children::Children;
use super::details::{Details, Extents, format_number};
use super::identity::Identity;
use super::objref::ObjRef;
use atspi::{Interface, InterfaceSet, Role, StateSet};
use ufo_core::ui::Capabilities;
use ufo_core::{ElementHandle, UiNode};

/// Raw facts of one node, before conversion.
pub(crate) struct RawNode {
    /// Its role.
    pub(super) role: Role,
    /// Its name.
    pub(super) name: String,
    /// Its description.
    pub(super) description: String,
    /// Its states, as it said them.
    pub(super) states: StateSet,
    /// Its interfaces.
    pub(super) ifaces: InterfaceSet,
    /// Its children read.
    pub(super) children: Vec<ObjRef>,
    /// Set when only part of the children were read (huge container).
    pub(super) children_note: Option<String>,
    /// The children are a table's cells under its visible area.
    pub(super) cells: bool,
    /// Read no further than its states and text: an empty cell among many
    /// (see [`super::plan::ReadKind::IfFilled`]).
    pub(super) glanced: bool,
    /// Said it is not showing and was read no further than its identity
    /// (see [`super::plan::ReadKind::IfShown`]).
    pub(super) unseen: bool,
    /// The elements it is labelled by, asked with the rest of it when it
    /// was known to need a name (`None`: not asked; see `naming.rs`).
    pub(super) labelled_by: Option<Vec<ObjRef>>,
    /// Its rectangle as the toolkit reports it.
    pub(super) extents: Option<Extents>,
    /// Its text.
    pub(super) text: Option<String>,
    /// Its numeric value.
    pub(super) value: Option<f64>,
}

impl RawNode {
    /// A shown node read in full: its identity, its name, description and
    /// children, its details (text cut to `max_text` characters).
    pub(super) fn shown(
        Identity { role, ifaces }: Identity,
        states: StateSet,
        Said {
            name,
            description,
            children,
        }: Said,
        Details {
            extents,
            text,
            value,
        }: Details,
        max_text: usize,
    ) -> Self {
        RawNode {
            role,
            name,
            description,
            states,
            ifaces,
            children: children.refs,
            children_note: children.note,
            cells: children.cells,
            glanced: false,
            unseen: false,
            labelled_by: None,
            extents,
            text: text.map(|t| ufo_core::text::clip(&t, max_text)),
            value,
        }
    }

    /// A node as the application's cache holds it (identity, states, name,
    /// description), with its children and details read live.
    pub(super) fn cached(
        hint: Hint,
        children: Children,
        details: Details,
        max_text: usize,
    ) -> Self {
        let said = Said {
            name: hint.name.unwrap_or_default(),
            description: hint.description,
            children,
        };
        let identity = Identity {
            role: hint.role,
            ifaces: hint.ifaces,
        };
        Self::shown(identity, hint.states, said, details, max_text)
    }

    /// The node of a capture this is, as element `h` at `index` under
    /// `parent` at `depth`, its position moved by `offset` (GTK 4's window
    /// origin).
    pub(super) fn into_node(
        self,
        h: ElementHandle,
        index: usize,
        parent: Option<usize>,
        depth: u32,
        offset: (i32, i32),
    ) -> UiNode {
        let raw = self;
        let rect = raw.extents.and_then(|e| e.on_screen(offset));
        let value = match (&raw.text, raw.value) {
            (Some(t), _) => Some(t.clone()),
            (None, Some(v)) => Some(format_number(v)),
            (None, None) => None,
        };
        UiNode {
            index,
            parent,
            children: Vec::new(),
            depth,
            handle: h,
            role: raw.role.name().to_owned(),
            control_type: crate::roles::control_type_of(raw.role, raw.states),
            name: raw.name,
            description: raw.description,
            value,
            states: crate::roles::states(raw.states, raw.role),
            rect,
            actions: Vec::new(),
            capabilities: Capabilities {
                component: raw.ifaces.contains(Interface::Component),
                action: raw.ifaces.contains(Interface::Action),
                text: raw.ifaces.contains(Interface::Text),
                editable_text: raw.ifaces.contains(Interface::EditableText),
                value: raw.ifaces.contains(Interface::Value),
                selection: raw.ifaces.contains(Interface::Selection),
            },
        }
    }

    /// A node known by its identity alone: no rectangle, actions, text,
    /// value or children were read.
    pub(super) fn identity(
        role: Role,
        states: StateSet,
        ifaces: InterfaceSet,
        name: Option<String>,
        description: Option<String>,
    ) -> Self {
        RawNode {
            role,
            name: name.unwrap_or_default(),
            description: description.unwrap_or_default(),
            states,
            ifaces,
            children: Vec::new(),
            children_note: None,
            cells: false,
            glanced: false,
            unseen: false,
            labelled_by: None,
            extents: None,
            text: None,
            value: None,
        }
    }
}

/// What a shown node says of itself besides its identity and details.
pub(super) struct Said {
    /// Its name.
    pub(super) name: String,
    /// Its description.
    pub(super) description: String,
    /// Its children.
    pub(super) children: Children,
}
