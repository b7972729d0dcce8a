//! One element as a capture reads it, and its conversion to a [`UiNode`].
//!
//! Every layer (UI Automation, MSAA, Win32 windows and menus) fills an
//! [`ElementRecord`] with what it read; [`ElementRecord::to_node`] turns it
//! into the backend-neutral node. Keeping the raw facts apart from the
//! conversion lets the conversion be tested on recorded element data on any
//! OS, and lets `ufo inspect --raw` show what the platform said.

use crate::kinds;
use serde::{Deserialize, Serialize};
use ufo_core::ui::Capabilities;
use ufo_core::{ControlType, ElementHandle, Rect, Screen, States, UiNode};

/// Which layer read the element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    /// UI Automation.
    Uia,
    /// A Win32 window (class, style, text), enriched by MSAA when it answers.
    #[default]
    Win32,
    /// An MSAA object without a window of its own.
    Msaa,
    /// An item of a Win32 menu (menu bar or open popup menu).
    Menu,
}

/// UIA's `ToggleState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Toggle {
    /// `ToggleState_Off`.
    Off,
    /// `ToggleState_On`.
    On,
    /// `ToggleState_Indeterminate`.
    Indeterminate,
}

/// UIA's `ExpandCollapseState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expand {
    /// `ExpandCollapseState_Collapsed`.
    Collapsed,
    /// `ExpandCollapseState_Expanded`.
    Expanded,
    /// `ExpandCollapseState_PartiallyExpanded`.
    PartiallyExpanded,
    /// `ExpandCollapseState_LeafNode`: nothing to expand.
    LeafNode,
}

/// The UIA control patterns an element supports (from the cached
/// `Is*PatternAvailable` properties).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Patterns {
    /// `InvokePattern`: a click.
    pub invoke: bool,
    /// `ValuePattern`: a string value (read, and set unless read-only).
    pub value: bool,
    /// `RangeValuePattern`: a number (sliders, spinners).
    pub range_value: bool,
    /// `TogglePattern`: check boxes, toggle buttons.
    pub toggle: bool,
    /// `SelectionPattern`: a container of selectable items.
    pub selection: bool,
    /// `SelectionItemPattern`: an item that can be selected.
    pub selection_item: bool,
    /// `ExpandCollapsePattern`: combo boxes, menus, tree items.
    pub expand_collapse: bool,
    /// `ScrollPattern`: a scrollable container.
    pub scroll: bool,
    /// `TextPattern`: a text document.
    pub text: bool,
}

/// What one layer read of one element.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ElementRecord {
    /// The layer that read it.
    pub layer: Layer,
    /// UIA control type id (`UIA_ButtonControlTypeId` = 50000 ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control_type_id: Option<i32>,
    /// MSAA role (`ROLE_SYSTEM_*`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub msaa_role: Option<u32>,
    /// MSAA state bits (`STATE_SYSTEM_*`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub msaa_state: Option<u32>,
    /// MSAA default action (`"Press"`, `"Check"`, `"Open"` ...).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub default_action: String,
    /// Win32 window class name (UIA's `ClassName` too).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub class_name: String,
    /// Win32 window style bits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub style: Option<u32>,
    /// Name: UIA `Name`, MSAA `accName`, a window's text or a menu item's
    /// label (mnemonic `&` kept; the conversion strips it).
    pub name: String,
    /// UIA `AutomationId` or a Win32 control id.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub automation_id: String,
    /// UIA `HelpText` or MSAA `accDescription`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub help_text: String,
    /// Screen rectangle `[x, y, width, height]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rect: Option<[i32; 4]>,
    /// Enabled (UIA `IsEnabled`, no `WS_DISABLED`, no `STATE_SYSTEM_UNAVAILABLE`).
    pub enabled: bool,
    /// Visible on screen (not `IsOffscreen`, `IsWindowVisible`).
    pub visible: bool,
    /// Has keyboard focus.
    pub focused: bool,
    /// Can take keyboard focus.
    pub focusable: bool,
    /// A password field.
    pub password: bool,
    /// Supported UIA patterns.
    pub patterns: Patterns,
    /// Text value (UIA `ValuePattern.Value`, an edit control's text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Whether the value is read-only.
    pub read_only: bool,
    /// Numeric value (UIA `RangeValuePattern.Value`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range_value: Option<f64>,
    /// Toggle state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toggle: Option<Toggle>,
    /// Expand/collapse state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expand: Option<Expand>,
    /// Selected (UIA `SelectionItemPattern.IsSelected`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selected: Option<bool>,
    /// A modal dialog (its owner is disabled).
    pub modal: bool,
    /// A menu item that opens a submenu.
    pub submenu: bool,
}

/// Removes the mnemonic marks of a Win32 label (`"&File"` → `"File"`,
/// `"&&"` → `"&"`) and its accelerator after a tab (`"&Open...\tCtrl+O"` →
/// `"Open..."`).
pub fn strip_mnemonic(label: &str) -> String {
    let label = label.split('\t').next().unwrap_or(label);
    let mut out = String::with_capacity(label.len());
    let mut chars = label.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '&' {
            if chars.peek() == Some(&'&') {
                out.push('&');
                chars.next();
            }
            continue;
        }
        out.push(c);
    }
    out.trim().to_owned()
}

/// The text a person reads of a SysLink's markup: its anchor tags
/// removed, their text kept (`Visit <a href="https://winehq.org">WineHQ</a>!`
/// → `Visit WineHQ!`). SysLink controls (winecfg's About page) take their
/// text with `<a>` tags (`<A ID="x">` too; tags in any case), and Win32 and
/// MSAA give it back as their name. Anything that is not an anchor tag,
/// including a `<` that opens none, is left as it is.
pub fn strip_link_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        let tag = &rest[lt..];
        match anchor_tag_len(tag) {
            Some(n) => rest = &tag[n..],
            None => {
                out.push('<');
                rest = &tag[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The length in bytes of the anchor tag `s` starts with (`<a …>` or
/// `</a>`, quoted `>` inside attribute values skipped); `None` when it
/// starts with none (`<abbr>`, `<b>`, a lone `<`, a tag left open).
fn anchor_tag_len(s: &str) -> Option<usize> {
    let body = s.strip_prefix('<')?;
    let body = body.strip_prefix('/').unwrap_or(body);
    let mut chars = body.chars();
    if !matches!(chars.next(), Some('a' | 'A')) {
        return None;
    }
    if !matches!(chars.next(), Some(c) if c == '>' || c.is_whitespace()) {
        return None;
    }
    let mut quote = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '>') => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// Keeps at most `max` characters of `s`.
pub fn bounded(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].to_owned(),
        None => s.to_owned(),
    }
}

impl ElementRecord {
    /// The control type and role this record says.
    pub fn kind(&self) -> (ControlType, &'static str) {
        let (t, role) = match (self.layer, self.control_type_id, self.msaa_role) {
            (Layer::Uia, Some(id), _) => kinds::uia_control_type(id),
            (Layer::Win32, _, _) if !self.class_name.is_empty() => {
                let (t, role) = kinds::win32_class(&self.class_name, self.style.unwrap_or(0));
                // A class the Win32 layer does not know: MSAA may.
                match (t, self.msaa_role) {
                    (ControlType::Pane, Some(r)) if r != 0x0A && r != 0x09 => kinds::msaa_role(r),
                    (t, _) => (t, role),
                }
            }
            (_, _, Some(r)) => kinds::msaa_role(r),
            (Layer::Menu, _, _) => (ControlType::MenuItem, "menu item"),
            _ => (ControlType::Pane, "unknown"),
        };
        if self.password {
            return (t, "password text");
        }
        match (&t, self.toggle, self.patterns.toggle) {
            (ControlType::Button, _, true) => (t, "toggle button"),
            (ControlType::MenuItem, Some(_), _) => (t, "check menu item"),
            _ => (t, role),
        }
    }

    /// The actions the element offers, as the tool catalog names them:
    /// `click` (Invoke, MSAA's default action, a Win32 button or menu
    /// item), `toggle`, `select`, `expand`/`collapse`.
    pub fn actions(&self) -> Vec<String> {
        let (t, _) = self.kind();
        let mut out: Vec<&str> = Vec::new();
        let p = self.patterns;
        match self.layer {
            Layer::Uia => {
                if p.invoke {
                    out.push("click");
                }
                if p.toggle {
                    out.push("toggle");
                }
                if p.selection_item {
                    out.push("select");
                }
                if p.expand_collapse && self.expand != Some(Expand::LeafNode) {
                    out.push("expand");
                    out.push("collapse");
                }
            }
            Layer::Menu => out.push("click"),
            Layer::Win32 | Layer::Msaa => match t {
                ControlType::Button
                | ControlType::SplitButton
                | ControlType::CheckBox
                | ControlType::RadioButton => out.push("click"),
                _ if !self.default_action.is_empty() && self.layer == Layer::Msaa => {
                    out.push("click")
                }
                _ => {}
            },
        }
        // An item its container selects (a list row, a tree item).
        let selectable = self.msaa_state.unwrap_or(0) & crate::state::SELECTABLE != 0;
        if self.layer == Layer::Msaa && selectable {
            out.push("select");
        }
        out.into_iter().map(str::to_owned).collect()
    }

    /// What the element implements, in the backend-neutral terms.
    pub fn capabilities(&self) -> Capabilities {
        let (t, _) = self.kind();
        let text_class = kinds::text_is_content(&self.class_name)
            && matches!(t, ControlType::Edit | ControlType::Document);
        let textual = self.patterns.text || self.patterns.value || text_class;
        Capabilities {
            component: self.rect.is_some(),
            action: !self.actions().is_empty(),
            text: textual,
            editable_text: textual
                && !self.read_only
                && matches!(
                    t,
                    ControlType::Edit | ControlType::Document | ControlType::ComboBox
                ),
            value: self.patterns.range_value,
            selection: self.patterns.selection
                || matches!(
                    t,
                    ControlType::List | ControlType::ComboBox | ControlType::Tab
                ) && self.layer == Layer::Win32,
        }
    }

    /// The element's states (see `ufo_core::UiNode::states`).
    pub fn states(&self) -> States {
        let mut s = match self.msaa_state {
            Some(bits) if self.layer == Layer::Msaa => kinds::msaa_states(bits),
            _ => States::empty(),
        };
        // Each fact adds its states; none takes away what MSAA said.
        let add = |s: &mut States, on: bool, st: States| {
            if on {
                *s |= st;
            }
        };
        if self.layer != Layer::Msaa {
            add(&mut s, self.enabled, States::ENABLED | States::SENSITIVE);
            add(&mut s, self.visible, States::VISIBLE | States::SHOWING);
        }
        add(&mut s, self.focused, States::FOCUSED);
        add(&mut s, self.focusable, States::FOCUSABLE);
        add(&mut s, self.modal, States::MODAL);
        match self.toggle {
            Some(Toggle::On) => s |= States::CHECKED,
            Some(Toggle::Indeterminate) => s |= States::INDETERMINATE,
            Some(Toggle::Off) | None => {}
        }
        add(
            &mut s,
            self.toggle.is_some() || self.patterns.toggle,
            States::CHECKABLE,
        );
        match self.expand {
            Some(Expand::Expanded | Expand::PartiallyExpanded) => {
                s |= States::EXPANDABLE | States::EXPANDED;
            }
            Some(Expand::Collapsed) => s |= States::EXPANDABLE,
            Some(Expand::LeafNode) | None => {}
        }
        add(&mut s, self.submenu, States::EXPANDABLE);
        add(&mut s, self.patterns.selection_item, States::SELECTABLE);
        add(&mut s, self.selected == Some(true), States::SELECTED);
        let (t, _) = self.kind();
        let editable = self.capabilities().editable_text && t != ControlType::ComboBox;
        add(&mut s, editable, States::EDITABLE);
        s
    }

    /// The node this record becomes at `index` in a tree.
    pub fn to_node(
        &self,
        handle: ElementHandle,
        index: usize,
        parent: Option<usize>,
        depth: u32,
        max_text_chars: usize,
    ) -> UiNode {
        let (control_type, role) = self.kind();
        // A SysLink's name is its markup; a person reads the text.
        let raw = match control_type {
            ControlType::Hyperlink => std::borrow::Cow::Owned(strip_link_markup(&self.name)),
            _ => std::borrow::Cow::Borrowed(self.name.as_str()),
        };
        let name = match self.layer {
            Layer::Win32 | Layer::Menu => strip_mnemonic(&raw),
            Layer::Uia | Layer::Msaa => raw.trim().to_owned(),
        };
        let value = match (&self.value, self.range_value) {
            (Some(v), _) if !self.password => Some(bounded(v, max_text_chars)),
            (None, Some(n)) => Some(format!("{n}")),
            _ => None,
        };
        UiNode {
            index,
            parent,
            children: Vec::new(),
            depth,
            handle,
            role: role.to_owned(),
            control_type,
            name: bounded(&name, max_text_chars),
            description: bounded(self.help_text.trim(), max_text_chars),
            value,
            states: self.states(),
            rect: self
                .rect
                .filter(|r| r[2] > 0 && r[3] > 0)
                .map(|[x, y, w, h]| Rect::<Screen>::new(x, y, w, h)),
            actions: self.actions(),
            capabilities: self.capabilities(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_markup_keeps_the_text_a_person_reads() {
        for (given, want) in [
            (
                r#"<a href="https://www.winehq.org/">https://www.winehq.org/</a>"#,
                "https://www.winehq.org/",
            ),
            (
                r#"Visit <a href="https://winehq.org">WineHQ</a> or <A ID="faq">the FAQ</A>!"#,
                "Visit WineHQ or the FAQ!",
            ),
            // A `>` inside a quoted attribute does not end the tag.
            (r#"<a href="x?a>b" id='y>z'>here</a >"#, "here"),
            // Not anchor tags: left as they are.
            (
                "1 < 2 and <abbr>x</abbr> <b>bold</b>",
                "1 < 2 and <abbr>x</abbr> <b>bold</b>",
            ),
            (
                "a tag left open: <a href=\"x",
                "a tag left open: <a href=\"x",
            ),
            ("no markup", "no markup"),
            ("", ""),
        ] {
            assert_eq!(strip_link_markup(given), want, "{given:?}");
        }
    }

    #[test]
    fn a_syslink_is_named_by_its_text_other_controls_keep_theirs() {
        let node = |class: &str, name: &str| {
            let r = ElementRecord {
                layer: Layer::Win32,
                class_name: class.into(),
                name: name.into(),
                rect: Some([0, 0, 100, 20]),
                enabled: true,
                visible: true,
                ..Default::default()
            };
            r.to_node(ElementHandle("w32:1".into()), 0, None, 0, 200)
        };
        let link = node(
            "SysLink",
            r#"<a href="https://www.winehq.org/">https://www.winehq.org/</a>"#,
        );
        assert_eq!(link.control_type, ControlType::Hyperlink);
        assert_eq!(link.name, "https://www.winehq.org/");
        // Another control's text is not markup, whatever it holds.
        assert_eq!(
            node("Static", "Use <a> for links").name,
            "Use <a> for links"
        );
    }
}
