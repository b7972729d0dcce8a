//! Keys and pointer through `SendInput`.
//!
//! Characters are sent as Unicode packets (`KEYEVENTF_UNICODE`: any
//! character, whatever the keyboard layout) unless Ctrl, Alt or Win is
//! held, when the layout's virtual key is sent instead so that shortcuts
//! (`^s`, `%f`) reach the application's accelerators.
#![allow(unsafe_code)]

use ufo_core::{Point, Screen};
use ufo_desktop::keys::{Key, KeyEvent, NamedKey};
use ufo_desktop::{DesktopError, MouseButton, Result};
use windows::Win32::UI::Input::KeyboardAndMouse as km;
use windows::Win32::UI::WindowsAndMessaging::SetCursorPos;

/// The virtual key of a named key and whether it is an extended key.
pub(crate) fn named_vk(k: NamedKey) -> (u16, bool) {
    match k {
        NamedKey::Enter => (0x0D, false),
        NamedKey::Tab => (0x09, false),
        NamedKey::Escape => (0x1B, false),
        NamedKey::Backspace => (0x08, false),
        NamedKey::Delete => (0x2E, true),
        NamedKey::Insert => (0x2D, true),
        NamedKey::Home => (0x24, true),
        NamedKey::End => (0x23, true),
        NamedKey::PageUp => (0x21, true),
        NamedKey::PageDown => (0x22, true),
        NamedKey::Left => (0x25, true),
        NamedKey::Up => (0x26, true),
        NamedKey::Right => (0x27, true),
        NamedKey::Down => (0x28, true),
        NamedKey::Space => (0x20, false),
        NamedKey::F(n) => (0x70 + u16::from(n.clamp(1, 24)) - 1, false),
        NamedKey::CapsLock => (0x14, false),
        NamedKey::PrintScreen => (0x2C, true),
        NamedKey::Menu => (0x5D, true),
        NamedKey::Control => (0x11, false),
        NamedKey::Alt => (0x12, false),
        NamedKey::Shift => (0x10, false),
        NamedKey::Super => (0x5B, true),
    }
}

fn key_input(vk: u16, scan: u16, flags: km::KEYBD_EVENT_FLAGS) -> km::INPUT {
    km::INPUT {
        r#type: km::INPUT_KEYBOARD,
        Anonymous: km::INPUT_0 {
            ki: km::KEYBDINPUT {
                wVk: km::VIRTUAL_KEY(vk),
                wScan: scan,
                dwFlags: flags,
                time: 0,
                dwExtraInfo: 0,
            },
        },
    }
}

/// The input packets of one key event, given which shortcut modifiers are
/// held (Ctrl, Alt, Win).
fn packets(ev: KeyEvent, shortcut_held: bool) -> Vec<km::INPUT> {
    let (key, up) = match ev {
        KeyEvent::Down(k) => (k, km::KEYBD_EVENT_FLAGS(0)),
        KeyEvent::Up(k) => (k, km::KEYEVENTF_KEYUP),
    };
    match key {
        Key::Named(n) => {
            let (vk, ext) = named_vk(n);
            let flags = if ext {
                up | km::KEYEVENTF_EXTENDEDKEY
            } else {
                up
            };
            vec![key_input(vk, 0, flags)]
        }
        Key::Char(c) => {
            // SAFETY: VkKeyScanW takes a plain character.
            let scan = (c as u32 <= 0xFFFF).then(|| unsafe { km::VkKeyScanW(c as u16) });
            match scan.filter(|s| *s != -1) {
                Some(s) if shortcut_held => vec![key_input((s as u16) & 0xFF, 0, up)],
                _ => {
                    let mut units = [0u16; 2];
                    c.encode_utf16(&mut units)
                        .iter()
                        .map(|u| key_input(0, *u, up | km::KEYEVENTF_UNICODE))
                        .collect()
                }
            }
        }
    }
}

fn send(inputs: &[km::INPUT]) -> Result<()> {
    if inputs.is_empty() {
        return Ok(());
    }
    // SAFETY: the slice and its element size describe valid INPUT values.
    let n = unsafe { km::SendInput(inputs, std::mem::size_of::<km::INPUT>() as i32) };
    if n as usize == inputs.len() {
        Ok(())
    } else {
        Err(DesktopError::backend(format!(
            "SendInput took {n} of {} events (another desktop or a higher-integrity window has the input)",
            inputs.len()
        )))
    }
}

/// Sends key events (one stroke; the caller paces strokes).
pub(crate) fn keys(events: &[KeyEvent], held: &mut Vec<Key>) -> Result<()> {
    let mut inputs = Vec::new();
    for ev in events {
        let shortcut = held.iter().any(|k| {
            matches!(
                k,
                Key::Named(NamedKey::Control | NamedKey::Alt | NamedKey::Super)
            )
        });
        inputs.extend(packets(*ev, shortcut));
        match ev {
            KeyEvent::Down(k) if k.is_modifier() => held.push(*k),
            KeyEvent::Up(k) => held.retain(|h| h != k),
            KeyEvent::Down(_) => {}
        }
    }
    send(&inputs)
}

fn mouse(flags: km::MOUSE_EVENT_FLAGS, data: i32) -> km::INPUT {
    km::INPUT {
        r#type: km::INPUT_MOUSE,
        Anonymous: km::INPUT_0 {
            mi: km::MOUSEINPUT {
                dx: 0,
                dy: 0,
                mouseData: data as u32,
                dwFlags: flags,
                time: 0,
                dwExtraInfo: 0,
            },
        },
    }
}

fn buttons(b: MouseButton) -> (km::MOUSE_EVENT_FLAGS, km::MOUSE_EVENT_FLAGS) {
    match b {
        MouseButton::Left => (km::MOUSEEVENTF_LEFTDOWN, km::MOUSEEVENTF_LEFTUP),
        MouseButton::Right => (km::MOUSEEVENTF_RIGHTDOWN, km::MOUSEEVENTF_RIGHTUP),
        MouseButton::Middle => (km::MOUSEEVENTF_MIDDLEDOWN, km::MOUSEEVENTF_MIDDLEUP),
    }
}

/// Moves the pointer to a screen point.
pub(crate) fn move_to(p: Point<Screen>) -> Result<()> {
    // SAFETY: plain coordinates.
    unsafe { SetCursorPos(p.x, p.y) }
        .map_err(|e| DesktopError::backend_by("cannot move the pointer", e))
}

/// Presses (`down`) or releases a button where the pointer is.
pub(crate) fn button(b: MouseButton, down: bool) -> Result<()> {
    let (d, u) = buttons(b);
    send(&[mouse(if down { d } else { u }, 0)])
}

/// Wheel clicks where the pointer is (positive = up).
pub(crate) fn wheel(clicks: i32) -> Result<()> {
    send(&[mouse(km::MOUSEEVENTF_WHEEL, clicks.saturating_mul(120))])
}
