//! What each Windows layer calls an element, in UFO's vocabulary.
//!
//! Three sources name an element's kind: UI Automation's control type ids
//! (`UIA_ButtonControlTypeId` = 50000 ...), MSAA roles (`ROLE_SYSTEM_*`) and,
//! for the Win32 layer, a window's class name and style bits. Each maps to a
//! [`ControlType`] (UFO's names are UIA's, so UIA maps one to one) and to a
//! role string in the words the tool catalog reads (`"password text"`,
//! `"check menu item"`, `"toggle button"`).

use ufo_core::{ControlType, States};

/// UI Automation's control type id → control type and role string.
/// Ids outside 50000..=50040 keep their number as an `Other` type.
pub fn uia_control_type(id: i32) -> (ControlType, &'static str) {
    use ControlType as C;
    match id {
        50000 => (C::Button, "push button"),
        50001 => (C::Calendar, "calendar"),
        50002 => (C::CheckBox, "check box"),
        50003 => (C::ComboBox, "combo box"),
        50004 => (C::Edit, "edit"),
        50005 => (C::Hyperlink, "link"),
        50006 => (C::Image, "image"),
        50007 => (C::ListItem, "list item"),
        50008 => (C::List, "list"),
        50009 => (C::Menu, "menu"),
        50010 => (C::MenuBar, "menu bar"),
        50011 => (C::MenuItem, "menu item"),
        50012 => (C::ProgressBar, "progress bar"),
        50013 => (C::RadioButton, "radio button"),
        50014 => (C::ScrollBar, "scroll bar"),
        50015 => (C::Slider, "slider"),
        50016 => (C::Spinner, "spin button"),
        50017 => (C::StatusBar, "status bar"),
        50018 => (C::Tab, "page tab list"),
        50019 => (C::TabItem, "page tab"),
        50020 => (C::Text, "label"),
        50021 => (C::ToolBar, "tool bar"),
        50022 => (C::ToolTip, "tool tip"),
        50023 => (C::Tree, "tree"),
        50024 => (C::TreeItem, "tree item"),
        50025 => (C::Other("Custom".into()), "custom"),
        50026 => (C::Group, "group"),
        50027 => (C::Other("Thumb".into()), "thumb"),
        50028 => (C::Other("DataGrid".into()), "data grid"),
        50029 => (C::DataItem, "data item"),
        50030 => (C::Document, "document"),
        50031 => (C::SplitButton, "split button"),
        50032 => (C::Window, "window"),
        50033 => (C::Pane, "pane"),
        50034 => (C::Header, "header"),
        50035 => (C::HeaderItem, "header item"),
        50036 => (C::Table, "table"),
        50037 => (C::TitleBar, "title bar"),
        50038 => (C::Separator, "separator"),
        50039 => (C::Other("SemanticZoom".into()), "semantic zoom"),
        50040 => (C::Other("AppBar".into()), "app bar"),
        other => (C::Other(format!("ControlType{other}")), "unknown"),
    }
}

/// An MSAA role (`ROLE_SYSTEM_*`) → control type and role string.
pub fn msaa_role(role: u32) -> (ControlType, &'static str) {
    use ControlType as C;
    match role {
        0x01 => (C::TitleBar, "title bar"),
        0x02 => (C::MenuBar, "menu bar"),
        0x03 => (C::ScrollBar, "scroll bar"),
        0x08 => (C::Window, "alert"),
        0x09 => (C::Window, "window"),
        0x0A => (C::Pane, "client"),
        0x0B => (C::Menu, "menu"),
        0x0C => (C::MenuItem, "menu item"),
        0x0D => (C::ToolTip, "tool tip"),
        0x0E => (C::Pane, "application"),
        0x0F => (C::Document, "document"),
        0x10 => (C::Pane, "pane"),
        0x12 => (C::Window, "dialog"),
        0x14 => (C::Group, "grouping"),
        0x15 => (C::Separator, "separator"),
        0x16 => (C::ToolBar, "tool bar"),
        0x17 => (C::StatusBar, "status bar"),
        0x18 => (C::Table, "table"),
        0x19 | 0x1A => (C::HeaderItem, "header item"),
        0x1D => (C::DataItem, "cell"),
        0x1E => (C::Hyperlink, "link"),
        0x21 => (C::List, "list"),
        0x22 => (C::ListItem, "list item"),
        0x23 => (C::Tree, "tree"),
        0x24 => (C::TreeItem, "tree item"),
        0x25 => (C::TabItem, "page tab"),
        0x28 => (C::Image, "image"),
        0x29 => (C::Text, "label"),
        0x2A => (C::Edit, "edit"),
        0x2B => (C::Button, "push button"),
        0x2C => (C::CheckBox, "check box"),
        0x2D => (C::RadioButton, "radio button"),
        0x2E => (C::ComboBox, "combo box"),
        0x2F => (C::ComboBox, "drop list"),
        0x30 => (C::ProgressBar, "progress bar"),
        0x31 | 0x33 => (C::Slider, "slider"),
        0x34 => (C::Spinner, "spin button"),
        0x38 | 0x39 => (C::Button, "push button"),
        0x3C => (C::Tab, "page tab list"),
        0x3E => (C::SplitButton, "split button"),
        _ => (C::Pane, "unknown"),
    }
}

/// MSAA state bits (`STATE_SYSTEM_*`) → the state names the control filter
/// and the tools read. `INVISIBLE`/`OFFSCREEN` clear `showing`; no
/// `UNAVAILABLE` means `enabled`.
pub fn msaa_states(bits: u32) -> States {
    const NAMED: &[(u32, States)] = &[
        (0x2, States::SELECTED),
        (0x4, States::FOCUSED),
        (0x8, States::PRESSED),
        (0x10, States::CHECKED),
        (0x20, States::INDETERMINATE),
        (0x200, States::EXPANDED),
        (0x100000, States::FOCUSABLE),
        (0x200000, States::SELECTABLE),
        (0x1000000, States::MULTISELECTABLE),
    ];
    let mut out = NAMED
        .iter()
        .filter(|(b, _)| bits & b != 0)
        .map(|(_, s)| *s)
        .collect::<States>();
    out.set(States::ENABLED | States::SENSITIVE, bits & 0x1 == 0);
    out.set(
        States::VISIBLE | States::SHOWING,
        bits & (0x8000 | 0x10000) == 0,
    );
    out.set(States::EXPANDABLE, bits & (0x200 | 0x400) != 0);
    out
}

/// True when MSAA state bits say the element is read-only.
pub fn msaa_read_only(bits: u32) -> bool {
    bits & 0x40 != 0
}

/// True when MSAA state bits say the element is protected (a password).
pub fn msaa_protected(bits: u32) -> bool {
    bits & 0x20000000 != 0
}

/// Window style bits the Win32 layer reads.
pub mod style {
    /// `WS_DISABLED`.
    pub const DISABLED: u32 = 0x0800_0000;
    /// `WS_VISIBLE`.
    pub const VISIBLE: u32 = 0x1000_0000;
    /// `WS_TABSTOP`.
    pub const TABSTOP: u32 = 0x0001_0000;
    /// `ES_MULTILINE`.
    pub const ES_MULTILINE: u32 = 0x4;
    /// `ES_PASSWORD`.
    pub const ES_PASSWORD: u32 = 0x20;
    /// `ES_READONLY`.
    pub const ES_READONLY: u32 = 0x800;
    /// `BS_TYPEMASK`.
    pub const BS_TYPEMASK: u32 = 0xF;
    /// `CBS_DROPDOWNLIST` (no editable field).
    pub const CBS_DROPDOWNLIST: u32 = 0x3;
}

/// A Win32 window class (and its style) → control type and role string, as
/// pywinauto's `win32` backend classifies windows. Class names compare
/// case-insensitively; versioned common-control names (`RichEdit20W`,
/// `WindowsForms10.BUTTON.app...`) by their stem.
pub fn win32_class(class: &str, style: u32) -> (ControlType, &'static str) {
    use ControlType as C;
    let c = class.to_ascii_lowercase();
    let stem = c
        .strip_prefix("windowsforms10.")
        .and_then(|s| s.split('.').next())
        .unwrap_or(&c);
    match stem {
        "button" => match style & style::BS_TYPEMASK {
            2 | 3 | 5 | 6 => (C::CheckBox, "check box"),
            4 | 9 => (C::RadioButton, "radio button"),
            7 => (C::Group, "grouping"),
            0xC | 0xD => (C::SplitButton, "split button"),
            _ => (C::Button, "push button"),
        },
        "edit" | "richedit" | "richedit20a" | "richedit20w" | "richedit50w" => {
            if style & style::ES_PASSWORD != 0 {
                (C::Edit, "password text")
            } else if stem.starts_with("richedit") && style & style::ES_MULTILINE != 0 {
                (C::Document, "document")
            } else {
                (C::Edit, "edit")
            }
        }
        "static" => (C::Text, "label"),
        "combobox" | "comboboxex32" => (C::ComboBox, "combo box"),
        "combolbox" | "listbox" => (C::List, "list"),
        "syslistview32" => (C::List, "list"),
        "systreeview32" => (C::Tree, "tree"),
        "sysheader32" => (C::Header, "header"),
        "systabcontrol32" => (C::Tab, "page tab list"),
        "toolbarwindow32" => (C::ToolBar, "tool bar"),
        "msctls_statusbar32" => (C::StatusBar, "status bar"),
        "msctls_progress32" => (C::ProgressBar, "progress bar"),
        "msctls_trackbar32" => (C::Slider, "slider"),
        "msctls_updown32" => (C::Spinner, "spin button"),
        "scrollbar" => (C::ScrollBar, "scroll bar"),
        "syslink" => (C::Hyperlink, "link"),
        "#32768" => (C::Menu, "menu"),
        "#32770" => (C::Window, "dialog"),
        _ => (C::Pane, "pane"),
    }
}

/// True for classes whose window text is their content (what is typed),
/// not their name.
pub fn text_is_content(class: &str) -> bool {
    let c = class.to_ascii_lowercase();
    c == "edit" || c.starts_with("richedit") || c == "combobox" || c == "comboboxex32"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_uia_control_type_id_has_a_name() {
        for id in 50000..=50040 {
            let (t, role) = uia_control_type(id);
            assert_ne!(role, "unknown", "id {id}");
            assert!(!t.as_str().is_empty());
        }
        assert_eq!(uia_control_type(50004).0, ControlType::Edit);
        assert_eq!(uia_control_type(50032).0, ControlType::Window);
        assert_eq!(
            uia_control_type(12).0,
            ControlType::Other("ControlType12".into())
        );
    }

    #[test]
    fn msaa_states_read_as_the_filter_expects() {
        // STATE_SYSTEM_FOCUSABLE | FOCUSED
        let s = msaa_states(0x100004);
        assert!(s.contains(States::ENABLED));
        assert!(s.contains(States::SHOWING));
        assert!(s.contains(States::FOCUSED));
        // UNAVAILABLE | INVISIBLE | COLLAPSED
        let s = msaa_states(0x1 | 0x8000 | 0x400);
        assert!(!s.contains(States::ENABLED));
        assert!(!s.contains(States::SHOWING));
        assert!(s.contains(States::EXPANDABLE));
        assert!(!s.contains(States::EXPANDED));
        assert!(msaa_read_only(0x40) && !msaa_read_only(0));
        assert!(msaa_protected(0x20000000));
        assert_eq!(msaa_role(0x2B).0, ControlType::Button);
        assert_eq!(msaa_role(0x2A).0, ControlType::Edit);
        assert_eq!(msaa_role(0x0C).0, ControlType::MenuItem);
    }

    #[test]
    fn win32_classes_follow_their_style() {
        assert_eq!(win32_class("Button", 0x0).0, ControlType::Button);
        assert_eq!(win32_class("Button", 0x3).0, ControlType::CheckBox);
        assert_eq!(win32_class("BUTTON", 0x9).0, ControlType::RadioButton);
        assert_eq!(win32_class("Button", 0x7).0, ControlType::Group);
        assert_eq!(
            win32_class("Edit", 0x20),
            (ControlType::Edit, "password text")
        );
        assert_eq!(win32_class("RichEdit20W", 0x4).0, ControlType::Document);
        assert_eq!(
            win32_class("WindowsForms10.BUTTON.app.0.2bf8098_r6_ad1", 0x0).0,
            ControlType::Button
        );
        assert_eq!(win32_class("#32770", 0).1, "dialog");
        assert_eq!(win32_class("NotepadClass", 0).0, ControlType::Pane);
        assert!(text_is_content("Edit") && !text_is_content("Static"));
        assert!(text_is_content("ComboBoxEx32"));
    }
}
