//! Windows as Win32 sees them: listing, class, style, text, owner, focus.
//!
//! Every function here is a thin, checked wrapper over one Win32 call; text
//! is read with `SendMessageTimeout` so a hung application answers "" rather
//! than stalling the caller.
#![allow(unsafe_code)]

use ufo_core::{ElementHandle, Rect, Screen, WindowInfo};
use windows::Win32::Foundation::{CloseHandle, HWND, LPARAM, RECT, WPARAM};
use windows::Win32::System::Threading::{
    AttachThreadInput, GetCurrentThreadId, OpenProcess, PROCESS_NAME_WIN32,
    PROCESS_QUERY_LIMITED_INFORMATION, QueryFullProcessImageNameW,
};
use windows::Win32::UI::WindowsAndMessaging as wm;
use windows::core::{BOOL, PWSTR};

/// How long a message to another application may take.
pub(crate) const MESSAGE_TIMEOUT_MS: u32 = 2000;

/// The `HWND` of a handle number.
pub(crate) fn hwnd(n: u64) -> HWND {
    HWND(n as usize as *mut core::ffi::c_void)
}

/// The handle number of an `HWND`.
pub(crate) fn num(h: HWND) -> u64 {
    h.0 as usize as u64
}

/// True while the window exists.
pub(crate) fn exists(h: HWND) -> bool {
    // SAFETY: IsWindow accepts any value.
    unsafe { wm::IsWindow(Some(h)) }.as_bool()
}

/// True when the window is visible (it and its ancestors).
pub(crate) fn visible(h: HWND) -> bool {
    // SAFETY: any value is accepted.
    unsafe { wm::IsWindowVisible(h) }.as_bool()
}

/// True when the window takes input.
pub(crate) fn enabled(h: HWND) -> bool {
    // SAFETY: any value is accepted.
    unsafe { windows::Win32::UI::Input::KeyboardAndMouse::IsWindowEnabled(h) }.as_bool()
}

/// The window's class name.
pub(crate) fn class_name(h: HWND) -> String {
    let mut buf = [0u16; 256];
    // SAFETY: the buffer outlives the call and its length is passed.
    let n = unsafe { wm::GetClassNameW(h, &mut buf) };
    String::from_utf16_lossy(buf.get(..usize::try_from(n).unwrap_or(0)).unwrap_or(&[]))
}

/// The window's style bits.
pub(crate) fn style(h: HWND) -> u32 {
    // SAFETY: any value is accepted; 0 for a bad window.
    unsafe { wm::GetWindowLongW(h, wm::GWL_STYLE) as u32 }
}

/// The window's control id (child windows).
pub(crate) fn control_id(h: HWND) -> i32 {
    // SAFETY: any value is accepted.
    unsafe { wm::GetDlgCtrlID(h) }
}

/// The window's screen rectangle.
pub(crate) fn rect(h: HWND) -> Option<Rect<Screen>> {
    let mut r = RECT::default();
    // SAFETY: `r` outlives the call.
    unsafe { wm::GetWindowRect(h, &mut r) }.ok()?;
    Some(to_rect(r))
}

/// A Win32 `RECT` as a screen rectangle.
pub(crate) fn to_rect(r: RECT) -> Rect<Screen> {
    Rect::new(r.left, r.top, r.right - r.left, r.bottom - r.top)
}

/// The process id and thread id owning the window.
pub(crate) fn pid_tid(h: HWND) -> (u32, u32) {
    let mut pid = 0u32;
    // SAFETY: `pid` outlives the call.
    let tid = unsafe { wm::GetWindowThreadProcessId(h, Some(&mut pid)) };
    (pid, tid)
}

/// Sends a message with a timeout; `None` when the application did not
/// answer in time or the window is gone.
pub(crate) fn send(h: HWND, msg: u32, w: usize, l: isize) -> Option<isize> {
    let mut out = 0usize;
    // SAFETY: the message carries plain numbers (callers pass pointers only
    // for messages the system marshals, to buffers that outlive the call).
    let r = unsafe {
        wm::SendMessageTimeoutW(
            h,
            msg,
            WPARAM(w),
            LPARAM(l),
            wm::SMTO_ABORTIFHUNG | wm::SMTO_BLOCK,
            MESSAGE_TIMEOUT_MS,
            Some(&mut out),
        )
    };
    (r.0 != 0).then_some(out as isize)
}

/// Posts a message (does not wait).
pub(crate) fn post(h: HWND, msg: u32, w: usize, l: isize) -> bool {
    // SAFETY: posted messages carry plain numbers.
    unsafe { wm::PostMessageW(Some(h), msg, WPARAM(w), LPARAM(l)) }.is_ok()
}

/// The window's text through `WM_GETTEXT` (at most `max` UTF-16 units).
pub(crate) fn text(h: HWND, max: usize) -> String {
    let len = send(h, wm::WM_GETTEXTLENGTH, 0, 0).unwrap_or(0);
    let len = usize::try_from(len).unwrap_or(0).min(max);
    if len == 0 {
        return String::new();
    }
    let mut buf = vec![0u16; len + 1];
    // WM_GETTEXT is marshalled across processes by the system; the buffer
    // outlives the (synchronous) call.
    let got = send(h, wm::WM_GETTEXT, buf.len(), buf.as_mut_ptr() as isize).unwrap_or(0);
    let got = usize::try_from(got).unwrap_or(0).min(len);
    String::from_utf16_lossy(buf.get(..got).unwrap_or(&[]))
}

/// A top-level window's title as the system stores it (`GetWindowTextW`
/// sends no message to another process's window, so a busy or starting
/// application cannot stall a listing).
pub(crate) fn title(h: HWND) -> String {
    let mut buf = [0u16; 512];
    // SAFETY: the buffer outlives the call and its length is passed.
    let n = unsafe { wm::GetWindowTextW(h, &mut buf) };
    String::from_utf16_lossy(buf.get(..usize::try_from(n).unwrap_or(0)).unwrap_or(&[]))
}

/// Sets the window's text through `WM_SETTEXT`; false when refused or hung.
pub(crate) fn set_text(h: HWND, text: &str) -> bool {
    let wide: Vec<u16> = text.encode_utf16().chain(Some(0)).collect();
    // WM_SETTEXT is marshalled; `wide` outlives the synchronous call.
    send(h, wm::WM_SETTEXT, 0, wide.as_ptr() as isize).is_some_and(|r| r != 0)
}

/// The window that owns `h` (dialogs, popups), if any.
pub(crate) fn owner(h: HWND) -> Option<HWND> {
    // SAFETY: any value is accepted.
    unsafe { wm::GetWindow(h, wm::GW_OWNER) }
        .ok()
        .filter(|o| !o.is_invalid())
}

/// The parent window of a child window.
pub(crate) fn parent(h: HWND) -> Option<HWND> {
    // SAFETY: any value is accepted.
    unsafe { wm::GetParent(h) }.ok().filter(|p| !p.is_invalid())
}

/// The direct children of `h`, in Z order (top first).
pub(crate) fn children(h: HWND) -> Vec<HWND> {
    let mut out = Vec::new();
    // SAFETY: any value is accepted; a null result ends the walk.
    let mut c = unsafe { wm::GetWindow(h, wm::GW_CHILD) }.ok();
    while let Some(child) = c.filter(|c| !c.is_invalid()) {
        out.push(child);
        if out.len() > 10_000 {
            break;
        }
        // SAFETY: as above.
        c = unsafe { wm::GetWindow(child, wm::GW_HWNDNEXT) }.ok();
    }
    out
}

/// Every top-level window, in Z order (top first).
pub(crate) fn top_levels() -> Vec<HWND> {
    unsafe extern "system" fn each(h: HWND, l: LPARAM) -> BOOL {
        // SAFETY: `l` is the address of the Vec below, alive during EnumWindows.
        let v = unsafe { &mut *(l.0 as *mut Vec<HWND>) };
        v.push(h);
        BOOL(1)
    }
    let mut v: Vec<HWND> = Vec::new();
    // SAFETY: the callback only pushes into `v`, which outlives the call.
    let _ = unsafe { wm::EnumWindows(Some(each), LPARAM(&mut v as *mut Vec<HWND> as isize)) };
    v
}

/// The foreground window.
pub(crate) fn foreground() -> HWND {
    // SAFETY: no arguments.
    unsafe { wm::GetForegroundWindow() }
}

/// The window with keyboard focus in the thread `tid`.
pub(crate) fn focus_of_thread(tid: u32) -> Option<HWND> {
    let mut info = wm::GUITHREADINFO {
        cbSize: std::mem::size_of::<wm::GUITHREADINFO>() as u32,
        ..Default::default()
    };
    // SAFETY: `info` is sized and outlives the call.
    unsafe { wm::GetGUIThreadInfo(tid, &mut info) }.ok()?;
    (!info.hwndFocus.is_invalid()).then_some(info.hwndFocus)
}

/// The executable's name without extension (`notepad`), as the
/// application's name.
pub(crate) fn process_name(pid: u32) -> Option<String> {
    // SAFETY: the handle is closed below; the buffer outlives the call.
    unsafe {
        let p = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, pid).ok()?;
        let mut buf = [0u16; 1024];
        let mut len = buf.len() as u32;
        let r =
            QueryFullProcessImageNameW(p, PROCESS_NAME_WIN32, PWSTR(buf.as_mut_ptr()), &mut len);
        let _ = CloseHandle(p);
        r.ok()?;
        let path = String::from_utf16_lossy(buf.get(..len as usize)?);
        let file = path.rsplit(['\\', '/']).next()?.to_owned();
        Some(match file.rsplit_once('.') {
            Some((stem, ext)) if ext.eq_ignore_ascii_case("exe") => stem.to_owned(),
            _ => file,
        })
    }
}

/// Raises the window and gives it the keyboard (restoring it if minimised).
/// Attaches to the foreground thread's input for the call, as Windows only
/// lets the foreground's owner pass the foreground on.
pub(crate) fn activate(h: HWND) -> bool {
    // SAFETY: plain window calls on handles that may be stale (they fail).
    unsafe {
        if wm::IsIconic(h).as_bool() {
            let _ = wm::ShowWindow(h, wm::SW_RESTORE);
        }
        let fg = wm::GetForegroundWindow();
        let fg_tid = wm::GetWindowThreadProcessId(fg, None);
        let me = GetCurrentThreadId();
        let attached = fg_tid != 0 && fg_tid != me && AttachThreadInput(me, fg_tid, true).as_bool();
        let _ = wm::BringWindowToTop(h);
        let ok = wm::SetForegroundWindow(h).as_bool();
        if attached {
            let _ = AttachThreadInput(me, fg_tid, false);
        }
        ok || wm::GetForegroundWindow() == h
    }
}

/// Gives keyboard focus to a child control of the foreground window.
pub(crate) fn focus_child(h: HWND) -> bool {
    let (_, tid) = pid_tid(h);
    // SAFETY: attach/detach are paired; SetFocus needs the attached queue.
    unsafe {
        let me = GetCurrentThreadId();
        let attached = tid != 0 && tid != me && AttachThreadInput(me, tid, true).as_bool();
        let ok = windows::Win32::UI::Input::KeyboardAndMouse::SetFocus(Some(h)).is_ok();
        if attached {
            let _ = AttachThreadInput(me, tid, false);
        }
        ok
    }
}

/// Describes a top-level window; `None` for windows a person does not see
/// as one (invisible, empty, tool and menu windows).
pub(crate) fn window_info(h: HWND, fg: HWND) -> Option<WindowInfo> {
    if !visible(h) {
        return None;
    }
    let class = class_name(h);
    if matches!(
        class.as_str(),
        "#32768" | "tooltips_class32" | "Shell_TrayWnd" | "Progman"
    ) || class.starts_with("__wine")
    {
        return None;
    }
    let r = rect(h)?;
    if r.width <= 1 || r.height <= 1 {
        return None;
    }
    let title = title(h);
    let own = owner(h);
    let dialog = class == "#32770" || own.is_some();
    if title.is_empty() && !dialog {
        return None;
    }
    let (pid, _) = pid_tid(h);
    let app_name = process_name(pid).unwrap_or_else(|| format!("pid{pid}"));
    Some(WindowInfo {
        id: format!("0x{:x}", num(h)),
        app_name,
        pid: Some(pid),
        title,
        rect: Some(r),
        focused: h == fg,
        handle: ElementHandle(format!("w32:{:x}", num(h))),
        native_id: Some(num(h)),
        dialog,
        modal: own.is_some_and(|o| !enabled(o)),
        owner: own.map(num),
    })
}
