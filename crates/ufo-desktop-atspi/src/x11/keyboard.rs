//! The keyboard over XTEST: the server's keymap, keysyms, and key
//! sequences sent with held keys released when one fails half-way.

use super::{X11, cerr, xerr};
use std::collections::HashMap;
use std::time::Duration;
use ufo_desktop::DesktopError;
use ufo_desktop::keys::{Key, KeyEvent, NamedKey};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{self, ConnectionExt as _};

type Result<T> = std::result::Result<T, DesktopError>;

/// Keyboard state learned from the server.
#[derive(Debug, Default)]
pub(super) struct KeyMap {
    /// keysym → (keycode, needs shift)
    codes: HashMap<u32, (u8, bool)>,
    /// A keycode with no symbols, used to type characters the layout lacks.
    scratch: Option<u8>,
    per_code: u8,
}

impl X11 {
    fn load_keymap(&self) -> Result<KeyMap> {
        let setup = self.conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let reply = self
            .conn
            .get_keyboard_mapping(min, max - min + 1)
            .map_err(cerr("GetKeyboardMapping"))?
            .reply()
            .map_err(xerr("GetKeyboardMapping"))?;
        let per = reply.keysyms_per_keycode;
        let mut map = KeyMap {
            per_code: per,
            ..KeyMap::default()
        };
        for (i, syms) in reply.keysyms.chunks(usize::from(per.max(1))).enumerate() {
            let code = min.saturating_add(i as u8);
            if syms.iter().all(|&s| s == 0) && map.scratch.is_none() && code > min + 8 {
                map.scratch = Some(code);
            }
            for (col, &sym) in syms.iter().take(2).enumerate() {
                if sym != 0 {
                    map.codes.entry(sym).or_insert((code, col == 1));
                }
            }
        }
        Ok(map)
    }

    /// Sends key events through XTEST to whatever has focus.
    pub fn send_keys(&self, events: &[KeyEvent]) -> Result<()> {
        let _guard = self.input.lock();
        let mut km = self
            .keymap
            .lock()
            .map_err(|_| DesktopError::backend("keyboard map lock poisoned"))?;
        if km.is_none() {
            *km = Some(self.load_keymap()?);
        }
        let Some(map) = km.as_mut() else {
            return Err(DesktopError::backend("no keyboard map"));
        };
        let shift = map.codes.get(&0xffe1).map(|c| c.0);
        // Keycodes currently held by this sequence, to release them if it fails
        // half-way: a stuck Ctrl would corrupt every later key and click.
        let mut held: Vec<u8> = Vec::new();
        let result = self.send_events(map, shift, events, &mut held);
        if result.is_err() {
            for code in held.iter().rev() {
                let _ = self.fake(xproto::KEY_RELEASE_EVENT, *code, 0, 0);
            }
            let _ = self.sync();
        }
        result
    }

    fn send_events(
        &self,
        map: &mut KeyMap,
        shift: Option<u8>,
        events: &[KeyEvent],
        held: &mut Vec<u8>,
    ) -> Result<()> {
        // Keys pressed with an added shift, to release it with the key.
        let mut added_shift: HashMap<u32, bool> = HashMap::new();
        for ev in events {
            let (key, down) = match ev {
                KeyEvent::Down(k) => (k, true),
                KeyEvent::Up(k) => (k, false),
            };
            let sym = keysym(key);
            let (code, needs_shift) = match map.codes.get(&sym) {
                Some(&c) => c,
                None => {
                    // Bind the symbol to the scratch keycode (as xdotool does).
                    let scratch = map.scratch.ok_or_else(|| {
                        DesktopError::backend(format!(
                            "no keycode for keysym {sym:#x} and no free keycode to map it"
                        ))
                    })?;
                    let per = usize::from(map.per_code.max(1));
                    let mut syms = vec![0u32; per];
                    syms[0] = sym;
                    if per > 1 {
                        syms[1] = sym;
                    }
                    self.conn
                        .change_keyboard_mapping(1, scratch, map.per_code.max(1), &syms)
                        .map_err(cerr("ChangeKeyboardMapping"))?;
                    self.sync()?;
                    map.codes.retain(|_, v| v.0 != scratch);
                    map.codes.insert(sym, (scratch, false));
                    (scratch, false)
                }
            };
            if down {
                if needs_shift && let Some(s) = shift {
                    self.fake(xproto::KEY_PRESS_EVENT, s, 0, 0)?;
                    held.push(s);
                    added_shift.insert(sym, true);
                }
                self.fake(xproto::KEY_PRESS_EVENT, code, 0, 0)?;
                held.push(code);
            } else {
                self.fake(xproto::KEY_RELEASE_EVENT, code, 0, 0)?;
                if let Some(i) = held.iter().rposition(|&c| c == code) {
                    held.remove(i);
                }
                if added_shift.remove(&sym).is_some()
                    && let Some(s) = shift
                {
                    self.fake(xproto::KEY_RELEASE_EVENT, s, 0, 0)?;
                    if let Some(i) = held.iter().rposition(|&c| c == s) {
                        held.remove(i);
                    }
                }
            }
            self.sync()?;
            // Give the toolkit time to process (GTK coalesces very fast input).
            std::thread::sleep(Duration::from_millis(2));
        }
        Ok(())
    }
}

/// The X keysym of a key.
pub fn keysym(key: &Key) -> u32 {
    match key {
        Key::Char('\n') | Key::Char('\r') => 0xff0d,
        Key::Char('\t') => 0xff09,
        Key::Char(c) => {
            let cp = u32::from(*c);
            if (0x20..=0x7e).contains(&cp) || (0xa0..=0xff).contains(&cp) {
                cp
            } else {
                0x0100_0000 + cp
            }
        }
        Key::Named(n) => match n {
            NamedKey::Enter => 0xff0d,
            NamedKey::Tab => 0xff09,
            NamedKey::Escape => 0xff1b,
            NamedKey::Backspace => 0xff08,
            NamedKey::Delete => 0xffff,
            NamedKey::Insert => 0xff63,
            NamedKey::Home => 0xff50,
            NamedKey::End => 0xff57,
            NamedKey::PageUp => 0xff55,
            NamedKey::PageDown => 0xff56,
            NamedKey::Left => 0xff51,
            NamedKey::Up => 0xff52,
            NamedKey::Right => 0xff53,
            NamedKey::Down => 0xff54,
            NamedKey::Space => 0x20,
            NamedKey::F(n) => 0xffbe + u32::from(n.saturating_sub(1)),
            NamedKey::CapsLock => 0xffe5,
            NamedKey::PrintScreen => 0xff61,
            NamedKey::Menu => 0xff67,
            NamedKey::Control => 0xffe3,
            NamedKey::Alt => 0xffe9,
            NamedKey::Shift => 0xffe1,
            NamedKey::Super => 0xffeb,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keysyms_follow_x11_rules() {
        assert_eq!(keysym(&Key::Char('a')), 0x61);
        assert_eq!(keysym(&Key::Char('é')), 0xe9);
        assert_eq!(keysym(&Key::Char('€')), 0x0100_20ac);
        assert_eq!(keysym(&Key::Named(NamedKey::F(10))), 0xffc7);
        assert_eq!(keysym(&Key::Char('\n')), 0xff0d);
    }
}
