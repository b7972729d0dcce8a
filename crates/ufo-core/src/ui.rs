//! UI trees, windows and the numbered controls an agent sees.
//!
//! A backend captures a window into a flat [`UiTree`] (nodes in breadth-first
//! order, parents before children). Filtering turns the tree into a list of
//! [`Control`]s labelled `1..N` in reading order; that list is what the model is
//! shown and what `id` arguments of UI tools refer to.

use crate::geometry::{Rect, Screen};
use crate::states::States;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// An opaque, serialisable reference to one accessible element, valid for as long
/// as the element lives. Backends choose the encoding (AT-SPI: `bus_name|path`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ElementHandle(pub String);

impl fmt::Display for ElementHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

macro_rules! control_types {
    ($( $(#[$m:meta])* $v:ident => $s:literal ),+ $(,)?) => {
        /// A control type with UFO's (UI Automation's) names, so prompts and
        /// `CONTROL_LIST` configs written for UFO work unchanged.
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ControlType {
            $( $(#[$m])* $v, )+
            /// A type this vocabulary does not name; carries the backend's name.
            Other(String),
        }

        impl ControlType {
            /// The UFO/UIA name, e.g. `"Button"`.
            pub fn as_str(&self) -> &str {
                match self {
                    $( ControlType::$v => $s, )+
                    ControlType::Other(s) => s,
                }
            }

            /// Every named control type.
            pub const ALL: &'static [ControlType] = &[ $( ControlType::$v ),+ ];
        }

        impl FromStr for ControlType {
            type Err = std::convert::Infallible;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let t = s.trim();
                $( if t.eq_ignore_ascii_case($s) { return Ok(ControlType::$v); } )+
                Ok(ControlType::Other(t.to_owned()))
            }
        }
    };
}

control_types! {
    /// Push button, toggle button, switch.
    Button => "Button",
    /// Calendar widget.
    Calendar => "Calendar",
    /// Check box or check menu item's box.
    CheckBox => "CheckBox",
    /// Combo box / drop-down.
    ComboBox => "ComboBox",
    /// A data cell in a table.
    DataItem => "DataItem",
    /// A document (rich text area).
    Document => "Document",
    /// Single- or multi-line text entry.
    Edit => "Edit",
    /// Grouping container (panel, filler with a name).
    Group => "Group",
    /// Column/row header.
    Header => "Header",
    /// One header cell.
    HeaderItem => "HeaderItem",
    /// Link.
    Hyperlink => "Hyperlink",
    /// Picture or icon.
    Image => "Image",
    /// List container.
    List => "List",
    /// Item of a list.
    ListItem => "ListItem",
    /// Pop-up menu.
    Menu => "Menu",
    /// Menu bar.
    MenuBar => "MenuBar",
    /// Menu item.
    MenuItem => "MenuItem",
    /// Generic container.
    Pane => "Pane",
    /// Progress bar.
    ProgressBar => "ProgressBar",
    /// Radio button.
    RadioButton => "RadioButton",
    /// Scroll bar.
    ScrollBar => "ScrollBar",
    /// Separator.
    Separator => "Separator",
    /// Slider.
    Slider => "Slider",
    /// Spin button.
    Spinner => "Spinner",
    /// Split button.
    SplitButton => "SplitButton",
    /// Status bar.
    StatusBar => "StatusBar",
    /// Tab strip.
    Tab => "Tab",
    /// Page tab.
    TabItem => "TabItem",
    /// Table.
    Table => "Table",
    /// Static text / label.
    Text => "Text",
    /// Title bar.
    TitleBar => "TitleBar",
    /// Tool bar.
    ToolBar => "ToolBar",
    /// Tool tip.
    ToolTip => "ToolTip",
    /// Tree.
    Tree => "Tree",
    /// Tree item.
    TreeItem => "TreeItem",
    /// Top-level window or dialog.
    Window => "Window",
}

impl fmt::Display for ControlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ControlType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ControlType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(s.parse().unwrap_or(ControlType::Other(s)))
    }
}

/// UFO's default `CONTROL_LIST`, plus `Slider` (which GTK apps use where Windows
/// apps would use a Spinner), `SplitButton`, `DataItem` (spreadsheet and
/// table cells; empty cells are listed only in small tables, see the filter),
/// `Calendar` (a date picker: GTK 3's has no items of its own to list) and
/// `HeaderItem` (a table's column headers: a click sorts by that column).
pub const DEFAULT_CONTROL_LIST: &[&str] = &[
    "Button",
    "Edit",
    "TabItem",
    "Document",
    "ListItem",
    "MenuItem",
    "ScrollBar",
    "TreeItem",
    "Hyperlink",
    "ComboBox",
    "RadioButton",
    "Spinner",
    "CheckBox",
    "Group",
    "Text",
    "Slider",
    "SplitButton",
    "DataItem",
    "Calendar",
    "HeaderItem",
];

/// Which optional interfaces an element implements.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// Has a geometry (AT-SPI Component).
    pub component: bool,
    /// Has named actions (click, press, activate, toggle, ...).
    pub action: bool,
    /// Exposes its text.
    pub text: bool,
    /// Its text can be set or edited.
    pub editable_text: bool,
    /// Has a numeric value (slider, spin button, progress bar).
    pub value: bool,
    /// Has selectable children (lists, combo boxes, tabs).
    pub selection: bool,
}

/// One element of a captured tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiNode {
    /// Index of this node in [`UiTree::nodes`].
    pub index: usize,
    /// Index of the parent node; `None` for the root.
    pub parent: Option<usize>,
    /// Indices of the children captured (may be fewer than exist if truncated).
    pub children: Vec<usize>,
    /// Depth below the window root (root = 0).
    pub depth: u32,
    /// How to reach the element again to act on it.
    pub handle: ElementHandle,
    /// The toolkit's own role name (AT-SPI: `"push button"`, `"text"`, ...).
    pub role: String,
    /// UFO-style control type derived from the role.
    pub control_type: ControlType,
    /// Accessible name.
    pub name: String,
    /// Accessible description (often empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Current value (text content or numeric value), bounded in length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// What the element says about itself (enabled, showing, checked, ...).
    pub states: States,
    /// On-screen rectangle, when the element has a geometry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rect: Option<Rect<Screen>>,
    /// Names of the element's actions, in the toolkit's order, where the
    /// backend reads them with the tree (UI Automation's patterns); empty
    /// where it does not (AT-SPI: a click asks the one control it acts on).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    /// Optional interfaces present.
    pub capabilities: Capabilities,
}

/// A top-level window as listed on the desktop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowInfo {
    /// A short identifier unique on this desktop at capture time (e.g. `"w1"`
    /// numbering or an X window id); accepted by `--window`.
    pub id: String,
    /// Application name as the accessibility registry reports it.
    pub app_name: String,
    /// Process id of the application, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Window title.
    pub title: String,
    /// Screen rectangle of the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rect: Option<Rect<Screen>>,
    /// True when the window is active / has focus.
    pub focused: bool,
    /// The window's accessible element.
    pub handle: ElementHandle,
    /// The native window id (X11 window), when the backend could match one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_id: Option<u64>,
    /// True for dialogs (dialog, file chooser, alert, colour/font chooser):
    /// windows an application opens over its main window.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dialog: bool,
    /// True when the window is modal: its application takes no input
    /// elsewhere until it closes.
    #[serde(default, skip_serializing_if = "is_false")]
    pub modal: bool,
    /// The native id of the window this one belongs to (X11
    /// `WM_TRANSIENT_FOR`), when the toolkit says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<u64>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// True when a person's name for an application (`inkscape`, `Meld`)
/// names the application registered as `registered`: equal ignoring case,
/// or equal to the last part of a reverse-DNS id (`org.inkscape.Inkscape`,
/// `org.gnome.Meld`), either way round.
pub fn app_name_matches(given: &str, registered: &str) -> bool {
    let last = |s: &str| -> Option<String> {
        let s = s.trim();
        (s.matches('.').count() >= 2 && !s.contains(char::is_whitespace))
            .then(|| s.rsplit('.').next().unwrap_or_default().to_owned())
    };
    let (g, r) = (given.trim(), registered.trim());
    !g.is_empty()
        && (g.eq_ignore_ascii_case(r)
            || last(r).is_some_and(|l| l.eq_ignore_ascii_case(g))
            || last(g).is_some_and(|l| l.eq_ignore_ascii_case(r)))
}

impl WindowInfo {
    /// True when `other` is a window of the same application process (same
    /// pid, or the same accessibility bus connection when no pid is known).
    pub fn same_app(&self, other: &WindowInfo) -> bool {
        match (self.pid, other.pid) {
            (Some(a), Some(b)) => a == b,
            _ => {
                let bus = |h: &ElementHandle| h.0.split_once('|').map(|(b, _)| b.to_owned());
                bus(&self.handle).is_some() && bus(&self.handle) == bus(&other.handle)
            }
        }
    }
}

/// A captured UI tree of one window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiTree {
    /// The window the tree belongs to.
    pub window: WindowInfo,
    /// Nodes in breadth-first order; `nodes[0]` is the window root.
    pub nodes: Vec<UiNode>,
    /// True when a budget (nodes, depth, deadline) cut the capture short.
    pub truncated: bool,
    /// Which budget was hit, when truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncation: Option<String>,
}

impl UiTree {
    /// The root node, if the tree is not empty.
    pub fn root(&self) -> Option<&UiNode> {
        self.nodes.first()
    }

    /// Finds the first node whose handle equals `handle`.
    pub fn find(&self, handle: &ElementHandle) -> Option<&UiNode> {
        self.nodes.iter().find(|n| &n.handle == handle)
    }
}

/// A control as the model sees it: a label `id` (1..N) plus what it needs to act.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Control {
    /// Label shown on the annotated screenshot and used as the tool `id` argument.
    pub id: u32,
    /// Accessible name (the `name` tool argument must match it).
    pub name: String,
    /// UFO-style control type.
    #[serde(rename = "type")]
    pub control_type: ControlType,
    /// Current value, when the control has one worth showing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// For a table's cell: the name of the column header above it, when
    /// the table shows named headers (a person reads a cell by its column).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    /// Screen rectangle.
    pub rect: Rect<Screen>,
    /// Handle to act on the element.
    pub handle: ElementHandle,
    /// The toolkit's own role name.
    pub role: String,
    /// States at capture time.
    pub states: States,
    /// Action names at capture time, where the backend reads them then (see
    /// [`UiNode::actions`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    /// Capabilities at capture time.
    pub capabilities: Capabilities,
}

/// UFO's control log: what identifies the control an action was taken on,
/// beside its name (`null` where the platform does not tell).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControlLog {
    /// The widget class (Windows: the window or UI Automation class name);
    /// on AT-SPI, which names no widget classes, the accessible's role name.
    pub control_class: Option<String>,
    /// UFO's control type (`Button`, `Edit`, ...).
    pub control_type: Option<String>,
    /// The automation id (UI Automation's `AutomationId`, a Win32 control's
    /// id; AT-SPI's `AccessibleId`, which GTK 4, Qt, LibreOffice and Firefox
    /// set from the widget's or element's id).
    pub control_automation_id: Option<String>,
}

impl ControlLog {
    /// What an observation says of `c`: its role as the class, its type,
    /// no automation id (the platform's are read by the tool that acts).
    pub fn observed(c: &Control) -> Self {
        Self {
            control_class: Some(c.role.clone()).filter(|r| !r.is_empty()),
            control_type: Some(c.control_type.to_string()),
            control_automation_id: None,
        }
    }
}

/// The compact form of a control given to a model: `{"id","name","type","value"?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptControl {
    /// The label, as a string as UFO sends it (`"1"`).
    pub id: String,
    /// Accessible name.
    pub name: String,
    /// Control type name.
    #[serde(rename = "type")]
    pub control_type: String,
    /// Current value, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// A table cell's column (its header's name), when the table names its
    /// columns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    /// What a person would see of the control's state, when it has one worth
    /// saying: `checked`/`unchecked`, `selected`, `expanded`/`collapsed`,
    /// `focused`, comma-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

impl Control {
    /// The compact prompt form.
    pub fn to_prompt(&self) -> PromptControl {
        PromptControl {
            id: self.id.to_string(),
            name: self.name.clone(),
            control_type: self.control_type.as_str().to_owned(),
            value: self.value.clone(),
            column: self.column.clone(),
            state: self.visible_state(),
        }
    }

    /// The states a model needs to decide (see [`PromptControl::state`]).
    pub fn visible_state(&self) -> Option<String> {
        let mut words: Vec<&str> = Vec::new();
        let st = self.states;
        let checkable = matches!(
            self.control_type,
            ControlType::CheckBox | ControlType::RadioButton
        ) || st.contains(States::CHECKABLE);
        if st.contains(States::CHECKED) {
            words.push("checked");
        } else if st.contains(States::INDETERMINATE) && checkable {
            words.push("mixed");
        } else if checkable {
            words.push("unchecked");
        }
        if st.contains(States::SELECTED)
            && matches!(
                self.control_type,
                ControlType::ListItem
                    | ControlType::TabItem
                    | ControlType::TreeItem
                    | ControlType::DataItem
                    | ControlType::MenuItem
            )
        {
            words.push("selected");
        }
        if st.intersects(States::EXPANDABLE | States::EXPANDED) {
            words.push(if st.contains(States::EXPANDED) {
                "expanded"
            } else {
                "collapsed"
            });
        }
        if st.contains(States::FOCUSED) {
            words.push("focused");
        }
        (!words.is_empty()).then(|| words.join(","))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn applications_are_named_as_people_name_them() {
        assert!(super::app_name_matches("inkscape", "org.inkscape.Inkscape"));
        assert!(super::app_name_matches("meld", "org.gnome.Meld"));
        assert!(super::app_name_matches("org.gnome.Meld", "meld"));
        assert!(super::app_name_matches("featherpad", "FeatherPad"));
        assert!(!super::app_name_matches("gnome", "org.gnome.Meld"));
        assert!(!super::app_name_matches("", "x"));
        assert!(!super::app_name_matches("Text Editor", "gnome-text-editor"));
    }

    use super::*;

    #[test]
    fn control_type_parses_case_insensitively_and_keeps_unknowns() {
        assert_eq!(
            "button".parse::<ControlType>().unwrap(),
            ControlType::Button
        );
        assert_eq!(
            "Weird".parse::<ControlType>().unwrap(),
            ControlType::Other("Weird".into())
        );
        let json = serde_json::to_string(&ControlType::CheckBox).unwrap();
        assert_eq!(json, "\"CheckBox\"");
        for t in ControlType::ALL {
            assert_eq!(&t.as_str().parse::<ControlType>().unwrap(), t);
        }
    }

    #[test]
    fn the_prompt_says_what_is_checked_selected_expanded_and_focused() {
        let c = |t: ControlType, role: &str, states: &[&str]| Control {
            id: 1,
            name: "x".into(),
            control_type: t,
            value: None,
            column: None,
            rect: Rect::new(0, 0, 1, 1),
            handle: ElementHandle("a|/b".into()),
            role: role.into(),
            states: States::from_names(states.iter().copied()),
            actions: vec![],
            capabilities: Capabilities::default(),
        };
        let state = |c: Control| c.to_prompt().state;
        assert_eq!(
            state(c(ControlType::CheckBox, "check box", &[])).as_deref(),
            Some("unchecked")
        );
        assert_eq!(
            state(c(
                ControlType::CheckBox,
                "check box",
                &["checked", "focused"]
            ))
            .as_deref(),
            Some("checked,focused")
        );
        assert_eq!(
            state(c(ControlType::MenuItem, "check menu item", &["checkable"])).as_deref(),
            Some("unchecked")
        );
        // A toggle button held in: the backend reports it checked and checkable.
        assert_eq!(
            state(c(
                ControlType::Button,
                "toggle button",
                &["checked", "checkable"]
            ))
            .as_deref(),
            Some("checked")
        );
        assert_eq!(
            state(c(ControlType::TabItem, "page tab", &["selected"])).as_deref(),
            Some("selected")
        );
        assert_eq!(
            state(c(ControlType::ComboBox, "combo box", &["expandable"])).as_deref(),
            Some("collapsed")
        );
        assert_eq!(
            state(c(ControlType::Button, "push button", &["enabled"])),
            None
        );
        let json =
            serde_json::to_string(&c(ControlType::CheckBox, "check box", &["checked"]).to_prompt())
                .unwrap();
        assert_eq!(
            json,
            r#"{"id":"1","name":"x","type":"CheckBox","state":"checked"}"#
        );
    }

    #[test]
    fn prompt_form_is_compact() {
        let c = Control {
            id: 3,
            name: "7".into(),
            control_type: ControlType::Button,
            value: None,
            column: None,
            rect: Rect::new(0, 0, 1, 1),
            handle: ElementHandle("a|/b".into()),
            role: "push button".into(),
            states: States::empty(),
            actions: vec![],
            capabilities: Capabilities::default(),
        };
        assert_eq!(
            serde_json::to_string(&c.to_prompt()).unwrap(),
            r#"{"id":"3","name":"7","type":"Button"}"#
        );
    }
}
