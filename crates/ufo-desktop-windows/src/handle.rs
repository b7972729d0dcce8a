//! Element handles: how an element is found again.
//!
//! A handle is a string (`ufo_core::ElementHandle`) in one of three forms:
//! - `w32:<hwnd>`: a window (top-level or a child control), hex;
//! - `menu:<hwnd>:<hmenu>:<position>`: an item of a Win32 menu, where
//!   `hwnd` is the window owning the menu bar or the open popup menu's
//!   window (`#32768`);
//! - `uia:<hwnd>:<runtime id>`: a UI Automation element below the top-level
//!   window `hwnd`, its runtime id's parts joined by `.`.
//!
//! Window and menu handles are resolved again from the OS on every call
//! (a closed window is a stale element); UIA handles are looked up among
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
            WinHandle::MenuItem { hwnd, .. } | WinHandle::Uia { hwnd, .. } => *hwnd,
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
        ];
        for h in all {
            assert_eq!(WinHandle::parse(&h.encode()), Some(h.clone()));
        }
        assert_eq!(WinHandle::Window(0x20ab).encode().0, "w32:20ab");
        for bad in [
            "",
            "w32",
            "w32:zz",
            "menu:1:2",
            "uia:1:a.b",
            ":1:0",
            "bus|/path",
        ] {
            assert_eq!(WinHandle::parse(&ElementHandle(bad.into())), None, "{bad}");
        }
    }
}
