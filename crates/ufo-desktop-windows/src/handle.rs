//! Element handles: how an element is found again.
//!
//! A handle is a string (`ufo_core::ElementHandle`) in one of three forms:
//! - `w32:<hwnd>`: a window (top-level or a child control), hex;
//! - `menu:<hwnd>:<hmenu>:<position>`: an item of a Win32 menu, where
//!   `hwnd` is the window owning the menu bar or the open popup menu's
//!   window (`#32768`);
//! - `uia:<hwnd>:<runtime id>`: a UI Automation element below the top-level
//!   window `hwnd`, its runtime id's parts joined by `.`;
//! - `item:<hwnd>:<id>`: an item the control `hwnd` draws itself, hex: a
//!   tree view item's `HTREEITEM`, else the item's index (list box, list
//!   view, toolbar, header);
//! - `msaa:<hwnd>:<child id>`: a simple element of the MSAA client object
//!   of the window `hwnd`, decimal.
//!
//! Window, menu, item and MSAA handles are resolved again from the OS on
//! every call (a closed window or a removed item is a stale element); UIA
//! handles are looked up among
//! the elements of the window's last capture.

use ufo_core::ElementHandle;

/// A parsed handle.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum WinHandle {
    /// A window.
    Window(u64),
    /// An item of a menu.
    MenuItem {
        /// The window showing the menu.
        hwnd: u64,
        /// The menu.
        hmenu: u64,
        /// The item's position in the menu.
        position: u32,
    },
    /// An item a control draws itself (no window of its own).
    Item {
        /// The control.
        hwnd: u64,
        /// A tree item's `HTREEITEM`, else the item's index.
        id: u64,
    },
    /// A simple element of a window's MSAA client object.
    Msaa {
        /// The window.
        hwnd: u64,
        /// Its MSAA child id (1 and up).
        child: i32,
    },
    /// A UI Automation element.
    Uia {
        /// Its top-level window.
        hwnd: u64,
        /// Its runtime id.
        runtime_id: Vec<i32>,
    },
}

impl WinHandle {
    /// The handle's string form.
    pub fn encode(&self) -> ElementHandle {
        ElementHandle(match self {
            WinHandle::Window(h) => format!("w32:{h:x}"),
            WinHandle::MenuItem {
                hwnd,
                hmenu,
                position,
            } => format!("menu:{hwnd:x}:{hmenu:x}:{position}"),
            WinHandle::Item { hwnd, id } => format!("item:{hwnd:x}:{id:x}"),
            WinHandle::Msaa { hwnd, child } => format!("msaa:{hwnd:x}:{child}"),
            WinHandle::Uia { hwnd, runtime_id } => {
                let id: Vec<String> = runtime_id.iter().map(i32::to_string).collect();
                format!("uia:{hwnd:x}:{}", id.join("."))
            }
        })
    }

    /// Parses a handle; `None` for a string no Windows capture produced.
    pub fn parse(handle: &ElementHandle) -> Option<WinHandle> {
        let hex = |s: &str| u64::from_str_radix(s, 16).ok();
        let mut parts = handle.0.split(':');
        match (parts.next()?, parts.next(), parts.next(), parts.next()) {
            ("w32", Some(h), None, None) => Some(WinHandle::Window(hex(h)?)),
            ("menu", Some(h), Some(m), Some(p)) if parts.next().is_none() => {
                Some(WinHandle::MenuItem {
                    hwnd: hex(h)?,
                    hmenu: hex(m)?,
                    position: p.parse().ok()?,
                })
            }
            ("item", Some(h), Some(id), None) => Some(WinHandle::Item {
                hwnd: hex(h)?,
                id: hex(id)?,
            }),
            ("msaa", Some(h), Some(c), None) => Some(WinHandle::Msaa {
                hwnd: hex(h)?,
                child: c.parse().ok().filter(|c| *c > 0)?,
            }),
            ("uia", Some(h), Some(id), None) => Some(WinHandle::Uia {
                hwnd: hex(h)?,
                runtime_id: id
                    .split('.')
                    .map(|p| p.parse().ok())
                    .collect::<Option<Vec<i32>>>()?,
            }),
            _ => None,
        }
    }

    /// The window the element lives in.
    pub fn hwnd(&self) -> u64 {
        match self {
            WinHandle::Window(h) => *h,
            WinHandle::MenuItem { hwnd, .. }
            | WinHandle::Item { hwnd, .. }
            | WinHandle::Msaa { hwnd, .. }
            | WinHandle::Uia { hwnd, .. } => *hwnd,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_and_garbage_is_refused() {
        let all = [
            WinHandle::Window(0x20ab),
            WinHandle::MenuItem {
                hwnd: 0x10,
                hmenu: 0xff01,
                position: 3,
            },
            WinHandle::Uia {
                hwnd: 0x10,
                runtime_id: vec![42, 65_830, -4],
            },
            WinHandle::Item {
                hwnd: 0x2007a,
                id: 0x7f00_1234_5678,
            },
            WinHandle::Msaa {
                hwnd: 0x10,
                child: 12,
            },
        ];
        for h in all {
            assert_eq!(WinHandle::parse(&h.encode()), Some(h.clone()));
        }
        assert_eq!(WinHandle::Window(0x20ab).encode().0, "w32:20ab");
        assert_eq!(
            WinHandle::Item { hwnd: 0x10, id: 3 }.encode().0,
            "item:10:3"
        );
        for bad in [
            "",
            "w32",
            "w32:zz",
            "menu:1:2",
            "uia:1:a.b",
            "item:1",
            "item:1:zz",
            "msaa:1:0",
            "msaa:1:-3",
            ":1:0",
            "bus|/path",
        ] {
            assert_eq!(WinHandle::parse(&ElementHandle(bad.into())), None, "{bad}");
        }
    }
}
