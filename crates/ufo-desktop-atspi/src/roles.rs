//! AT-SPI roles → UFO (UI Automation) control types.

use atspi::{Role, State, StateSet};
use ufo_core::{ControlType, States};

/// Maps an AT-SPI role to the control type UFO's prompts and `CONTROL_LIST` use.
pub fn control_type(role: Role) -> ControlType {
    use ControlType as C;
    match role {
        Role::Button | Role::ToggleButton | Role::PushButtonMenu => C::Button,
        Role::CheckBox => C::CheckBox,
        Role::RadioButton => C::RadioButton,
        // UI Automation (and so UFO) calls these menu items; their checked
        // state is shown with the control.
        Role::CheckMenuItem | Role::RadioMenuItem => C::MenuItem,
        Role::ComboBox => C::ComboBox,
        Role::Entry | Role::PasswordText | Role::Text | Role::Terminal => C::Edit,
        Role::DocumentFrame
        | Role::DocumentText
        | Role::DocumentWeb
        | Role::DocumentEmail
        | Role::DocumentSpreadsheet
        | Role::DocumentPresentation
        | Role::Paragraph => C::Document,
        Role::Label | Role::Static | Role::Caption | Role::Heading | Role::AcceleratorLabel => {
            C::Text
        }
        Role::Link => C::Hyperlink,
        Role::List | Role::ListBox => C::List,
        Role::ListItem => C::ListItem,
        Role::Menu | Role::PopupMenu => C::Menu,
        Role::MenuBar => C::MenuBar,
        Role::MenuItem | Role::TearoffMenuItem => C::MenuItem,
        Role::PageTab => C::TabItem,
        Role::PageTabList => C::Tab,
        Role::ProgressBar | Role::LevelBar => C::ProgressBar,
        Role::ScrollBar => C::ScrollBar,
        Role::Separator => C::Separator,
        Role::Slider | Role::Dial => C::Slider,
        Role::SpinButton => C::Spinner,
        Role::StatusBar => C::StatusBar,
        Role::Table | Role::TreeTable => C::Table,
        Role::TableCell => C::DataItem,
        Role::ColumnHeader | Role::RowHeader | Role::TableColumnHeader | Role::TableRowHeader => {
            C::HeaderItem
        }
        Role::Header => C::Header,
        Role::ToolBar => C::ToolBar,
        Role::ToolTip => C::ToolTip,
        Role::Tree => C::Tree,
        Role::TreeItem => C::TreeItem,
        Role::Frame
        | Role::Window
        | Role::Dialog
        | Role::Alert
        | Role::FileChooser
        | Role::ColorChooser
        | Role::FontChooser => C::Window,
        Role::Image | Role::Icon | Role::Animation | Role::Canvas => C::Image,
        Role::Calendar | Role::DateEditor => C::Calendar,
        Role::TitleBar => C::TitleBar,
        Role::Grouping
        | Role::Form
        | Role::Section
        | Role::Landmark
        | Role::Article
        | Role::BlockQuote => C::Group,
        Role::Panel
        | Role::Filler
        | Role::ScrollPane
        | Role::Viewport
        | Role::SplitPane
        | Role::LayeredPane
        | Role::RootPane
        | Role::GlassPane
        | Role::InternalFrame
        | Role::OptionPane
        | Role::DrawingArea
        | Role::Embedded
        | Role::Application => C::Pane,
        other => C::Other(other.name().to_owned()),
    }
}

/// The control type of an element with `role` and AT-SPI `states`: as
/// [`control_type`], except that a selectable icon or image is an item of
/// an icon view (GTK 3's GtkIconView, Thunar's, Qt's list view in icon
/// mode), which a person picks like a list's row: a `ListItem`.
pub fn control_type_of(role: Role, states: StateSet) -> ControlType {
    match role {
        Role::Icon | Role::Image if states.contains(State::Selectable) => ControlType::ListItem,
        _ => control_type(role),
    }
}

/// True for the roles of windows an application opens over its main window.
pub fn is_dialog(role: Role) -> bool {
    matches!(
        role,
        Role::Dialog | Role::Alert | Role::FileChooser | Role::ColorChooser | Role::FontChooser
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_gtk_roles_map_to_ufo_names() {
        assert_eq!(control_type(Role::Button), ControlType::Button);
        assert_eq!(control_type(Role::ToggleButton), ControlType::Button);
        assert_eq!(control_type(Role::Text), ControlType::Edit);
        assert_eq!(control_type(Role::SpinButton), ControlType::Spinner);
        assert_eq!(control_type(Role::PageTab), ControlType::TabItem);
        assert_eq!(control_type(Role::Frame), ControlType::Window);
        assert_eq!(Role::ToggleButton.name(), "toggle button");
    }

    #[test]
    fn a_selectable_icon_is_an_icon_views_item() {
        let item = StateSet::new(State::Selectable | State::Visible);
        assert_eq!(control_type_of(Role::Icon, item), ControlType::ListItem);
        assert_eq!(control_type_of(Role::Image, item), ControlType::ListItem);
        let picture = StateSet::new(State::Visible);
        assert_eq!(control_type_of(Role::Icon, picture), ControlType::Image);
        assert_eq!(control_type_of(Role::Button, item), ControlType::Button);
    }
}

/// AT-SPI's states of an element with `role`, as ufo's [`States`]. A
/// toggle button held in is `checked` (AT-SPI says `pressed`), and toggle
/// buttons and check/radio menu items are `checkable` whether or not
/// AT-SPI says so, so nothing past the backend needs the role to tell a
/// ticked control.
pub fn states(set: StateSet, role: Role) -> States {
    let mut out = States::empty();
    for st in set.iter() {
        let s = match st {
            State::Enabled => States::ENABLED,
            State::Sensitive => States::SENSITIVE,
            State::Showing => States::SHOWING,
            State::Visible => States::VISIBLE,
            State::Focused => States::FOCUSED,
            State::Focusable => States::FOCUSABLE,
            State::Selected => States::SELECTED,
            State::Selectable => States::SELECTABLE,
            State::Checked => States::CHECKED,
            State::Checkable => States::CHECKABLE,
            State::Pressed => States::PRESSED,
            State::Indeterminate => States::INDETERMINATE,
            State::Expanded => States::EXPANDED,
            State::Expandable => States::EXPANDABLE,
            State::Modal => States::MODAL,
            State::Defunct => States::DEFUNCT,
            State::Horizontal => States::HORIZONTAL,
            State::Vertical => States::VERTICAL,
            State::Editable => States::EDITABLE,
            State::MultiLine => States::MULTI_LINE,
            State::SingleLine => States::SINGLE_LINE,
            State::ReadOnly => States::READ_ONLY,
            State::Active => States::ACTIVE,
            State::ManagesDescendants => States::MANAGES_DESCENDANTS,
            State::Multiselectable => States::MULTISELECTABLE,
            State::Busy => States::BUSY,
            State::Required => States::REQUIRED,
            State::InvalidEntry => States::INVALID,
            State::HasPopup => States::HAS_POPUP,
            State::Visited => States::VISITED,
            _ => States::empty(),
        };
        out |= s;
    }
    if matches!(
        role,
        Role::ToggleButton | Role::CheckMenuItem | Role::RadioMenuItem
    ) {
        out |= States::CHECKABLE;
    }
    if role == Role::ToggleButton && out.contains(States::PRESSED) {
        out |= States::CHECKED;
    }
    out
}

#[cfg(test)]
mod state_tests {
    use super::*;

    #[test]
    fn a_toggle_button_held_in_is_checked() {
        let set = StateSet::new(State::Pressed | State::Enabled | State::Showing);
        let s = states(set, Role::ToggleButton);
        assert!(s.contains(States::CHECKED | States::CHECKABLE | States::ENABLED));
        let plain = states(set, Role::Button);
        assert!(!plain.intersects(States::CHECKED | States::CHECKABLE));
        assert!(states(StateSet::empty(), Role::CheckMenuItem).contains(States::CHECKABLE));
        let multi = states(
            StateSet::new(State::MultiLine | State::InvalidEntry),
            Role::Text,
        );
        assert_eq!(multi, States::MULTI_LINE | States::INVALID);
    }
}
