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
