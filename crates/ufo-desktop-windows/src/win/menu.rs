//! Win32 menus: the menu bar of a window and any popup menu open over it.
#![allow(unsafe_code)]

use super::win32;
use crate::handle::WinHandle;
use crate::record::{ElementRecord, Layer, Toggle};
use windows::Win32::Foundation::{HWND, RECT};
use windows::Win32::UI::WindowsAndMessaging as wm;

/// `MN_GETHMENU`: the menu shown by a `#32768` window.
const MN_GETHMENU: u32 = 0x01E1;

/// One menu item read.
pub(crate) struct Item {
    pub(crate) handle: WinHandle,
    pub(crate) record: ElementRecord,
}

/// The menu of the window `owner` (a menu bar) or shown by the popup window
/// `owner` (`#32768`). `bar` says which.
pub(crate) fn items(owner: HWND, bar: bool) -> Option<(u64, Vec<Item>)> {
    // SAFETY: menu handles are checked by each call (a stale one fails).
    let menu = unsafe {
        if bar {
            wm::GetMenu(owner)
        } else {
            wm::HMENU(win32::send(owner, MN_GETHMENU, 0, 0)? as *mut core::ffi::c_void)
        }
    };
    if menu.is_invalid() {
        return None;
    }
    // SAFETY: as above.
    let count = unsafe { wm::GetMenuItemCount(Some(menu)) };
    let mut out = Vec::new();
    for pos in 0..u32::try_from(count).unwrap_or(0).min(200) {
        if let Some(rec) = item(owner, menu, pos, bar) {
            out.push(Item {
                handle: WinHandle::MenuItem {
                    hwnd: win32::num(owner),
                    hmenu: menu.0 as usize as u64,
                    position: pos,
                },
                record: rec,
            });
        }
    }
    Some((menu.0 as usize as u64, out))
}

fn item(owner: HWND, menu: wm::HMENU, pos: u32, bar: bool) -> Option<ElementRecord> {
    let mut buf = [0u16; 256];
    let mut info = wm::MENUITEMINFOW {
        cbSize: std::mem::size_of::<wm::MENUITEMINFOW>() as u32,
        fMask: wm::MIIM_FTYPE | wm::MIIM_STATE | wm::MIIM_STRING | wm::MIIM_SUBMENU | wm::MIIM_ID,
        dwTypeData: windows::core::PWSTR(buf.as_mut_ptr()),
        cch: buf.len() as u32 - 1,
        ..Default::default()
    };
    let mut r = RECT::default();
    // SAFETY: `info` points at `buf`, both outlive the calls.
    let rect_ok = unsafe {
        wm::GetMenuItemInfoW(menu, pos, true, &mut info).ok()?;
        wm::GetMenuItemRect(if bar { Some(owner) } else { None }, menu, pos, &mut r).is_ok()
    };
    if info.fType.0 & wm::MFT_SEPARATOR.0 != 0 {
        return None;
    }
    let len = (info.cch as usize).min(buf.len());
    let label = String::from_utf16_lossy(buf.get(..len).unwrap_or(&[]));
    let disabled = info.fState.0 & (wm::MFS_DISABLED.0 | wm::MFS_GRAYED.0) != 0;
    let checked = info.fState.0 & wm::MFS_CHECKED.0 != 0;
    let rect = win32::to_rect(r);
    Some(ElementRecord {
        layer: Layer::Menu,
        name: label,
        automation_id: info.wID.to_string(),
        rect: rect_ok.then_some([rect.x, rect.y, rect.width, rect.height]),
        enabled: !disabled,
        visible: rect_ok && rect.width > 0,
        toggle: checked.then_some(Toggle::On),
        submenu: !info.hSubMenu.is_invalid(),
        ..Default::default()
    })
}

/// The open popup menus (`#32768` windows) of the thread `tid`, top first.
pub(crate) fn open_popups(tid: u32) -> Vec<HWND> {
    win32::top_levels()
        .into_iter()
        .filter(|h| {
            win32::visible(*h) && win32::class_name(*h) == "#32768" && win32::pid_tid(*h).1 == tid
        })
        .collect()
}

/// The screen rectangle of a menu item now.
pub(crate) fn item_rect(
    hwnd: u64,
    hmenu: u64,
    position: u32,
) -> Option<ufo_core::Rect<ufo_core::Screen>> {
    let h = win32::hwnd(hwnd);
    let menu = wm::HMENU(hmenu as usize as *mut core::ffi::c_void);
    let bar = win32::class_name(h) != "#32768";
    let mut r = RECT::default();
    // SAFETY: a stale menu or window makes the call fail.
    unsafe { wm::GetMenuItemRect(if bar { Some(h) } else { None }, menu, position, &mut r) }
        .ok()?;
    Some(win32::to_rect(r)).filter(|r| r.width > 0 && r.height > 0)
}
