//! Backend-neutral key events (the parser of pywinauto's syntax lives in `keyparse`).

use serde::{Deserialize, Serialize};

/// A named, non-character key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum NamedKey {
    Enter,
    Tab,
    Escape,
    Backspace,
    Delete,
    Insert,
    Home,
    End,
    PageUp,
    PageDown,
    Left,
    Right,
    Up,
    Down,
    Space,
    F(u8),
    CapsLock,
    PrintScreen,
    Menu,
    Control,
    Alt,
    Shift,
    Super,
}

/// One key: a character or a named key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Key {
    /// A printable character (typed as the keyboard layout produces it).
    Char(char),
    /// A named key.
    Named(NamedKey),
}

/// A key press or release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum KeyEvent {
    /// Press and hold.
    Down(Key),
    /// Release.
    Up(Key),
}

impl Key {
    /// True for Shift, Ctrl, Alt and Super: keys held around others.
    pub fn is_modifier(&self) -> bool {
        matches!(
            self,
            Key::Named(NamedKey::Control | NamedKey::Alt | NamedKey::Shift | NamedKey::Super)
        )
    }
}

/// Splits a key sequence into strokes: each stroke ends when no key is held
/// any more, so a chord (`^a`: Ctrl down, a down, a up, Ctrl up) is one
/// stroke and `ab` is two. Backends pace input stroke by stroke, as a person
/// types; a sequence that leaves keys held ends in one last stroke.
pub fn strokes(events: &[KeyEvent]) -> Vec<&[KeyEvent]> {
    let mut out = Vec::new();
    let mut held: Vec<Key> = Vec::new();
    let mut start = 0;
    for (i, ev) in events.iter().enumerate() {
        match ev {
            KeyEvent::Down(k) => held.push(*k),
            KeyEvent::Up(k) => {
                if let Some(p) = held.iter().rposition(|h| h == k) {
                    held.remove(p);
                }
            }
        }
        if held.is_empty() {
            out.push(&events[start..=i]);
            start = i + 1;
        }
    }
    if start < events.len() {
        out.push(&events[start..]);
    }
    out
}

/// The key a stroke types: its last pressed key that is not a modifier
/// (`a` in `^a`), else its last pressed key.
pub fn stroke_key(stroke: &[KeyEvent]) -> Option<Key> {
    let downs = || {
        stroke.iter().rev().filter_map(|e| match e {
            KeyEvent::Down(k) => Some(*k),
            KeyEvent::Up(_) => None,
        })
    };
    downs()
        .find(|k| !k.is_modifier())
        .or_else(|| downs().next())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strokes_end_when_no_key_is_held() {
        let c = |ch| Key::Char(ch);
        let ctrl = Key::Named(NamedKey::Control);
        let ev = [
            KeyEvent::Down(ctrl),
            KeyEvent::Down(c('a')),
            KeyEvent::Up(c('a')),
            KeyEvent::Up(ctrl),
            KeyEvent::Down(c('7')),
            KeyEvent::Up(c('7')),
            KeyEvent::Down(c('7')),
            KeyEvent::Up(c('7')),
            KeyEvent::Down(ctrl),
        ];
        let s = strokes(&ev);
        assert_eq!(s.len(), 4);
        assert_eq!(s[0].len(), 4);
        assert_eq!(stroke_key(s[0]), Some(c('a')));
        assert_eq!(stroke_key(s[1]), Some(c('7')));
        assert_eq!(stroke_key(s[2]), Some(c('7')));
        assert_eq!(s[3], &[KeyEvent::Down(ctrl)]);
        assert_eq!(stroke_key(s[3]), Some(ctrl));
        assert!(strokes(&[]).is_empty());
    }
}
