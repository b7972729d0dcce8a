//! The states of a UI element as a typed set. Each backend maps its
//! toolkit's states onto these (AT-SPI's `StateSet`, UI Automation's
//! properties and patterns); nothing past the backend compares state
//! strings.
//!
//! On the wire (UI trees, logs, tool results) a set is a list of names
//! (`["enabled", "showing"]`), the names AT-SPI uses; a name this build does
//! not know is dropped when read, so newer devices stay readable.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

bitflags::bitflags! {
    /// What an element says about itself at capture time.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct States: u32 {
        /// It can be used (not greyed out).
        const ENABLED = 1 << 0;
        /// It reacts to input (GTK's `sensitive`; usually with `ENABLED`).
        const SENSITIVE = 1 << 1;
        /// It is drawn on screen now (it and its ancestors are visible).
        const SHOWING = 1 << 2;
        /// It is meant to be visible (its ancestors may hide it).
        const VISIBLE = 1 << 3;
        /// It has the keyboard focus.
        const FOCUSED = 1 << 4;
        /// It can take the keyboard focus.
        const FOCUSABLE = 1 << 5;
        /// It is selected (a row, a tab, an item).
        const SELECTED = 1 << 6;
        /// It can be selected.
        const SELECTABLE = 1 << 7;
        /// It is ticked, on, or pressed in (a toggle button that stays down).
        const CHECKED = 1 << 8;
        /// It can be ticked (check boxes, check and radio menu items,
        /// toggle buttons).
        const CHECKABLE = 1 << 9;
        /// It is pressed in (a button held down).
        const PRESSED = 1 << 10;
        /// Neither ticked nor unticked (a mixed check box).
        const INDETERMINATE = 1 << 11;
        /// Its children are shown (an open combo box, tree row, menu).
        const EXPANDED = 1 << 12;
        /// It can be expanded.
        const EXPANDABLE = 1 << 13;
        /// A window that blocks the others of its application.
        const MODAL = 1 << 14;
        /// The element is gone.
        const DEFUNCT = 1 << 15;
        /// Laid out left to right (a toolbar, a scroll bar).
        const HORIZONTAL = 1 << 16;
        /// Laid out top to bottom.
        const VERTICAL = 1 << 17;
        /// Its text can be edited.
        const EDITABLE = 1 << 18;
        /// Its text may hold several lines.
        const MULTI_LINE = 1 << 19;
        /// Its text is one line.
        const SINGLE_LINE = 1 << 20;
        /// It shows a value that cannot be changed.
        const READ_ONLY = 1 << 21;
        /// The active window (the one with the focus).
        const ACTIVE = 1 << 22;
        /// A container whose children are made on demand (big tables): read
        /// by its visible part only.
        const MANAGES_DESCENDANTS = 1 << 23;
        /// Several of its children can be selected at once.
        const MULTISELECTABLE = 1 << 24;
        /// It is busy (loading).
        const BUSY = 1 << 25;
        /// A value is required.
        const REQUIRED = 1 << 26;
        /// Its value is invalid.
        const INVALID = 1 << 27;
        /// It has a popup (a menu button, a combo box).
        const HAS_POPUP = 1 << 28;
        /// It is a link already visited.
        const VISITED = 1 << 29;
        /// Off screen, though it is part of the layout.
        const OFFSCREEN = 1 << 30;
    }
}

/// The wire name of each state, in bit order.
const NAMES: &[(States, &str)] = &[
    (States::ENABLED, "enabled"),
    (States::SENSITIVE, "sensitive"),
    (States::SHOWING, "showing"),
    (States::VISIBLE, "visible"),
    (States::FOCUSED, "focused"),
    (States::FOCUSABLE, "focusable"),
    (States::SELECTED, "selected"),
    (States::SELECTABLE, "selectable"),
    (States::CHECKED, "checked"),
    (States::CHECKABLE, "checkable"),
    (States::PRESSED, "pressed"),
    (States::INDETERMINATE, "indeterminate"),
    (States::EXPANDED, "expanded"),
    (States::EXPANDABLE, "expandable"),
    (States::MODAL, "modal"),
    (States::DEFUNCT, "defunct"),
    (States::HORIZONTAL, "horizontal"),
    (States::VERTICAL, "vertical"),
    (States::EDITABLE, "editable"),
    (States::MULTI_LINE, "multi-line"),
    (States::SINGLE_LINE, "single-line"),
    (States::READ_ONLY, "read-only"),
    (States::ACTIVE, "active"),
    (States::MANAGES_DESCENDANTS, "manages-descendants"),
    (States::MULTISELECTABLE, "multiselectable"),
    (States::BUSY, "busy"),
    (States::REQUIRED, "required"),
    (States::INVALID, "invalid"),
    (States::HAS_POPUP, "has-popup"),
    (States::VISITED, "visited"),
    (States::OFFSCREEN, "offscreen"),
];

impl States {
    /// The state called `name` on the wire (`"multi-line"`), if known.
    pub fn from_wire(name: &str) -> Option<States> {
        NAMES.iter().find(|(_, n)| *n == name).map(|(s, _)| *s)
    }

    /// The wire names of the states in the set, in a fixed order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        NAMES
            .iter()
            .filter(move |(s, _)| self.contains(*s))
            .map(|(_, n)| *n)
    }

    /// A set from wire names; unknown names are dropped.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> States {
        names.into_iter().filter_map(States::from_wire).collect()
    }
}

impl Serialize for States {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.names())
    }
}

impl<'de> Deserialize<'de> for States {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let names = Vec::<String>::deserialize(d)?;
        Ok(States::from_names(names.iter().map(String::as_str)))
    }
}

impl schemars::JsonSchema for States {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "States".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = NAMES.iter().map(|(_, n)| *n).collect();
        schemars::json_schema!({
            "type": "array",
            "items": {"type": "string", "enum": names},
            "description": "the element's states",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_has_one_name_and_round_trips() {
        assert_eq!(NAMES.len(), States::all().iter().count());
        for (s, n) in NAMES {
            assert_eq!(States::from_wire(n), Some(*s));
            assert_eq!(s.names().collect::<Vec<_>>(), [*n]);
        }
        let set = States::ENABLED | States::MULTI_LINE | States::SHOWING;
        let json = serde_json::to_value(set).unwrap();
        assert_eq!(
            json,
            serde_json::json!(["enabled", "showing", "multi-line"])
        );
        let back: States = serde_json::from_value(json).unwrap();
        assert_eq!(back, set);
    }

    #[test]
    fn unknown_names_are_dropped_not_refused() {
        let s: States = serde_json::from_str(r#"["enabled", "armed", "showing"]"#).unwrap();
        assert_eq!(s, States::ENABLED | States::SHOWING);
        assert!(serde_json::from_str::<States>(r#""enabled""#).is_err());
    }
}
