//! Which toolkit an application is written with, asked once per
//! application: the quirks handled elsewhere differ by toolkit.

use super::AtspiBackend;
use super::dbus::call;
use super::objref::ObjRef;
use ufo_desktop::DesktopError;

impl AtspiBackend {
    /// True when the application on `bus_name` is GTK 4 (window-relative extents).
    pub(super) async fn is_gtk4(&self, bus_name: &str) -> bool {
        self.gtk_version(bus_name).await == 4
    }

    /// True when the element's application is known to be GTK 2 (from what
    /// was asked before; no call).
    pub(super) fn is_gtk2(&self, h: &ObjRef) -> bool {
        self.known_toolkit(h.bus()) == Some(Toolkit::Gtk(2))
    }

    /// Whether `h`'s toolkit has menu entries that never say they show, in
    /// an open menu too: GTK 2 (they say visible) and Qt (entries without
    /// a submenu say neither).
    pub(super) fn menu_entries_unshown(&self, h: &ObjRef) -> bool {
        matches!(
            self.known_toolkit(h.bus()),
            Some(Toolkit::Gtk(2) | Toolkit::Qt)
        )
    }

    /// The application's GTK major version, 0 when it is not GTK (asked once
    /// per application; a busy application is asked again next time).
    pub(super) async fn gtk_version(&self, bus_name: &str) -> u8 {
        match self.toolkit(bus_name).await {
            Toolkit::Gtk(v) => v,
            _ => 0,
        }
    }

    /// The application's toolkit (asked once per application; a busy
    /// application is asked again next time and counts as `Other` meanwhile).
    pub(super) async fn toolkit(&self, bus_name: &str) -> Toolkit {
        if let Some(v) = self.known_toolkit(bus_name) {
            return v;
        }
        let h = ObjRef::new(bus_name, "/org/a11y/atspi/accessible/root");
        let answer = match self.application(&h).await {
            Ok(app) => {
                let (tk, ver) = futures::join!(
                    call(&h, "ToolkitName", app.toolkit_name()),
                    call(&h, "Version", app.version())
                );
                match (tk, ver) {
                    (Ok(tk), Ok(ver)) => Some(Toolkit::from_name(&tk, &ver)),
                    // No Application interface at all: not GTK.
                    (Err(DesktopError::Backend { .. }), _) => Some(Toolkit::Other),
                    _ => None,
                }
            }
            Err(_) => None,
        };
        if let Some(v) = answer {
            self.apps.learn_toolkit(bus_name, v);
        }
        answer.unwrap_or(Toolkit::Other)
    }

    /// The toolkit already learned for an application, without asking.
    pub(super) fn known_toolkit(&self, bus_name: &str) -> Option<Toolkit> {
        self.apps.toolkit(bus_name)
    }
}

/// The toolkit an application is written with, where its quirks differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Toolkit {
    /// GTK of this major version.
    Gtk(u8),
    /// Qt (any version).
    Qt,
    /// Firefox's Gecko (through GTK 3's bridge).
    Gecko,
    /// Anything else (Java, Electron, …). LibreOffice's VCL reports GTK 3.
    Other,
}

impl Toolkit {
    /// Whether its elements answer `Properties.GetAll` on the Accessible
    /// interface: GTK 3's bridge (GTK 3, LibreOffice, Firefox) and GTK 4 do,
    /// in one call for name, description and child count; Qt's bridge dies
    /// on it (qpdfview, measured).
    pub(super) fn answers_get_all(self) -> bool {
        matches!(self, Toolkit::Gtk(3..) | Toolkit::Gecko)
    }

    /// Whether an element of `role` never has children in this toolkit, so
    /// that its child count need not be asked. Qt only: across KCalc,
    /// FeatherPad, qt6ct and qpdfview, 0 of the 432 push buttons, check and
    /// radio buttons, labels, list items, page tabs, scroll bars,
    /// separators, table cells and headers, progress bars and images had a
    /// child (pyatspi, measured; Qt's menu items, texts, spin buttons and
    /// combo boxes do have some). Qt has no cache: the count is one call of
    /// the six a shown element costs.
    pub(super) fn leaf_role(self, role: atspi::Role) -> bool {
        use atspi::Role as R;
        self == Toolkit::Qt
            && matches!(
                role,
                R::Button
                    | R::CheckBox
                    | R::RadioButton
                    | R::Label
                    | R::ListItem
                    | R::PageTab
                    | R::ScrollBar
                    | R::Separator
                    | R::TableCell
                    | R::TableColumnHeader
                    | R::TableRowHeader
                    | R::ProgressBar
                    | R::Image
            )
    }

    /// From the Application interface's `ToolkitName` and `Version`.
    pub(super) fn from_name(name: &str, version: &str) -> Self {
        // GTK 2 speaks through gail, which names itself (version: GTK's).
        if name.eq_ignore_ascii_case("gail") {
            Toolkit::Gtk(2)
        } else if name.eq_ignore_ascii_case("gtk") {
            Toolkit::Gtk(
                version
                    .split('.')
                    .next()
                    .and_then(|m| m.parse().ok())
                    .unwrap_or(0),
            )
        } else if name.eq_ignore_ascii_case("qt") {
            Toolkit::Qt
        } else if name.eq_ignore_ascii_case("gecko") {
            Toolkit::Gecko
        } else {
            Toolkit::Other
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Toolkit;
    use atspi::Role;

    #[test]
    fn only_qt_leaves_skip_their_child_count() {
        assert!(Toolkit::Qt.leaf_role(Role::Button));
        assert!(Toolkit::Qt.leaf_role(Role::PageTab));
        // Qt's menu items open submenus, its texts and combo boxes hold
        // children: asked.
        assert!(!Toolkit::Qt.leaf_role(Role::MenuItem));
        assert!(!Toolkit::Qt.leaf_role(Role::Text));
        assert!(!Toolkit::Qt.leaf_role(Role::ComboBox));
        // Other toolkits are always asked.
        assert!(!Toolkit::Gtk(3).leaf_role(Role::Button));
        assert!(!Toolkit::Gecko.leaf_role(Role::Button));
    }
}

#[cfg(test)]
mod name_tests {
    use super::Toolkit;

    #[test]
    fn gtk_2_is_told_by_gail() {
        assert_eq!(Toolkit::from_name("GAIL", "2.24.33"), Toolkit::Gtk(2));
        assert_eq!(Toolkit::from_name("GTK", "3.24.38"), Toolkit::Gtk(3));
        assert_eq!(Toolkit::from_name("Qt", "5.15.8"), Toolkit::Qt);
    }
}
