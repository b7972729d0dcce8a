//! MSAA (`oleacc`): role, state, name and default action of a window's
//! client object, its default action, and its simple elements (child ids:
//! the items of controls that draw them, where a proxy describes them).
#![allow(unsafe_code)]

use crate::items::MsaaChild;
use std::time::Instant;
use windows::Win32::Foundation::HWND;
use windows::Win32::System::Variant::{VARIANT, VT_I4};
use windows::Win32::UI::Accessibility::{
    AccessibleChildren, AccessibleObjectFromWindow, IAccessible,
};
use windows::core::Interface;

/// `OBJID_CLIENT`.
const OBJID_CLIENT: i32 = -4;

/// What MSAA says of a window's client object.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClientInfo {
    pub(crate) role: Option<u32>,
    pub(crate) state: Option<u32>,
    pub(crate) name: String,
    pub(crate) default_action: String,
    /// `accChildCount`: child windows and simple elements.
    pub(crate) children: i32,
}

fn variant_i32(v: &VARIANT) -> Option<i32> {
    // SAFETY: the union is read as the member its type tag names.
    unsafe { (v.Anonymous.Anonymous.vt == VT_I4).then(|| v.Anonymous.Anonymous.Anonymous.lVal) }
}

fn client(h: HWND) -> Option<IAccessible> {
    let mut p: *mut core::ffi::c_void = std::ptr::null_mut();
    // SAFETY: on success `p` holds an owned IAccessible reference, taken
    // over by `from_raw`.
    unsafe {
        AccessibleObjectFromWindow(h, OBJID_CLIENT as u32, &IAccessible::IID, &mut p).ok()?;
        (!p.is_null()).then(|| IAccessible::from_raw(p))
    }
}

/// Reads the client object of `h`; `None` when MSAA has none for it.
pub(crate) fn client_info(h: HWND) -> Option<ClientInfo> {
    let acc = client(h)?;
    let me = VARIANT::from(0i32);
    // SAFETY: COM calls on a live object with a CHILDID_SELF variant.
    unsafe {
        Some(ClientInfo {
            role: acc
                .get_accRole(&me)
                .ok()
                .and_then(|v| variant_i32(&v))
                .map(|r| r as u32),
            state: acc
                .get_accState(&me)
                .ok()
                .and_then(|v| variant_i32(&v))
                .map(|s| s as u32),
            name: acc
                .get_accName(&me)
                .map(|b| b.to_string())
                .unwrap_or_default(),
            default_action: acc
                .get_accDefaultAction(&me)
                .map(|b| b.to_string())
                .unwrap_or_default(),
            children: acc.accChildCount().unwrap_or(0),
        })
    }
}

/// Performs the default action of `h`'s client object.
pub(crate) fn do_default_action(h: HWND) -> bool {
    let Some(acc) = client(h) else { return false };
    // SAFETY: COM call on a live object with a CHILDID_SELF variant.
    unsafe { acc.accDoDefaultAction(&VARIANT::from(0i32)) }.is_ok()
}

/// `SELFLAG_TAKEFOCUS | SELFLAG_TAKESELECTION`.
const SELECT_FLAGS: i32 = 0x1 | 0x2;

fn text(r: windows::core::Result<windows::core::BSTR>) -> String {
    r.map(|b| b.to_string()).unwrap_or_default()
}

/// What MSAA says of the simple element `child` of `acc`.
fn child_facts(acc: &IAccessible, child: i32) -> MsaaChild {
    let v = VARIANT::from(child);
    let (mut x, mut y, mut w, mut h) = (0, 0, 0, 0);
    // SAFETY: COM calls on a live object with a child id variant; the
    // location outputs outlive the call.
    unsafe {
        let located = acc.accLocation(&mut x, &mut y, &mut w, &mut h, &v).is_ok();
        MsaaChild {
            role: acc
                .get_accRole(&v)
                .ok()
                .and_then(|r| variant_i32(&r))
                .map_or(0, |r| r as u32),
            state: acc
                .get_accState(&v)
                .ok()
                .and_then(|r| variant_i32(&r))
                .map_or(0, |r| r as u32),
            name: text(acc.get_accName(&v)),
            value: text(acc.get_accValue(&v)),
            description: text(acc.get_accDescription(&v)),
            default_action: text(acc.get_accDefaultAction(&v)),
            rect: (located && w > 0 && h > 0).then_some([x, y, w, h]),
        }
    }
}

/// The simple elements (child ids) of `h`'s client object, at most `cap`,
/// read until `until`; their total count (with the child windows MSAA
/// lists among them) comes second. Child windows are walked as windows,
/// not here.
pub(crate) fn simple_children(
    h: HWND,
    cap: usize,
    until: Instant,
) -> (Vec<(i32, MsaaChild)>, usize) {
    let Some(acc) = client(h) else {
        return (Vec::new(), 0);
    };
    // SAFETY: COM call on a live object.
    let total = unsafe { acc.accChildCount() }.unwrap_or(0).max(0) as usize;
    let want = total.min(cap.max(1));
    let mut vars = vec![VARIANT::default(); want];
    let mut got = 0i32;
    // SAFETY: `vars` has room for `want` children; the obtained ones are
    // owned by `vars` (dropped with it, which releases dispatch children).
    let ok = want > 0 && unsafe { AccessibleChildren(&acc, 0, &mut vars, &mut got) }.is_ok();
    let mut out = Vec::new();
    if !ok {
        return (out, total);
    }
    for v in vars.iter().take(usize::try_from(got).unwrap_or(0)) {
        if Instant::now() > until {
            break;
        }
        if let Some(id) = variant_i32(v).filter(|id| *id > 0) {
            out.push((id, child_facts(&acc, id)));
        }
    }
    (out, total)
}

/// Re-reads the simple element `child` of `h`'s client object; `None` when
/// the window or the element is gone.
pub(crate) fn simple_child(h: HWND, child: i32) -> Option<MsaaChild> {
    let acc = client(h)?;
    // SAFETY: COM call on a live object.
    let count = unsafe { acc.accChildCount() }.unwrap_or(0);
    (child > 0 && child <= count).then(|| child_facts(&acc, child))
}

/// Selects (`select`) or performs the default action of the simple
/// element `child` of `h`'s client object.
pub(crate) fn child_action(h: HWND, child: i32, select: bool) -> bool {
    let Some(acc) = client(h) else { return false };
    let v = VARIANT::from(child);
    // SAFETY: COM calls on a live object with a child id variant.
    unsafe {
        if select {
            acc.accSelect(SELECT_FLAGS, &v).is_ok()
        } else {
            acc.accDoDefaultAction(&v).is_ok()
        }
    }
}
