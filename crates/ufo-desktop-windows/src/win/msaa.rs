//! MSAA (`oleacc`): role, state, name and default action of a window's
//! client object, and its default action.
#![allow(unsafe_code)]

use windows::Win32::Foundation::HWND;
use windows::Win32::System::Variant::{VARIANT, VT_I4};
use windows::Win32::UI::Accessibility::{AccessibleObjectFromWindow, IAccessible};
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
        })
    }
}

/// Performs the default action of `h`'s client object.
pub(crate) fn do_default_action(h: HWND) -> bool {
    let Some(acc) = client(h) else { return false };
    // SAFETY: COM call on a live object with a CHILDID_SELF variant.
    unsafe { acc.accDoDefaultAction(&VARIANT::from(0i32)) }.is_ok()
}
