//! Popups heard opening, kept on the X server for the next process.
//!
//! Qt leaves an open popup (a tool button's menu, a context menu) out of its
//! application's children: only the `state-changed:showing` event it sends
//! when the popup opens tells where the popup is. The process that heard it
//! notes the popup here, on the root window, so that the next `ufo act` or
//! `ufo inspect` (each its own process) finds it too. A note says nothing by
//! itself: readers check that the object still is an open popup.

use super::X11;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, PropMode};
use x11rb::wrapper::ConnectionExt as _;

/// The root-window property holding the notes: `bus path` lines.
const POPUP_NOTES: &str = "_UFO_POPUPS";

/// How many notes are kept (the newest).
const KEPT: usize = 16;

impl X11 {
    /// Notes popups `(bus, path)` as open (newest last; older notes beyond
    /// the 16 newest are dropped).
    pub fn note_popups(&self, popups: &[(String, String)]) {
        if popups.is_empty() {
            return;
        }
        let Some(atom) = self.intern(POPUP_NOTES) else {
            return;
        };
        let mut notes = self.noted_popups();
        for p in popups {
            notes.retain(|n| n != p);
            notes.push(p.clone());
        }
        let skip = notes.len().saturating_sub(KEPT);
        let text: String = notes
            .iter()
            .skip(skip)
            .map(|(bus, path)| format!("{bus} {path}\n"))
            .collect();
        let _ = self.conn.change_property8(
            PropMode::REPLACE,
            self.root,
            atom,
            AtomEnum::STRING,
            text.as_bytes(),
        );
        let _ = self.conn.flush();
    }

    /// The popups noted as open, oldest first, as `(bus, path)`.
    pub fn noted_popups(&self) -> Vec<(String, String)> {
        let Some(atom) = self.atom(POPUP_NOTES) else {
            return Vec::new();
        };
        let Some(reply) = self
            .conn
            .get_property(false, self.root, atom, AtomEnum::STRING, 0, 4096)
            .ok()
            .and_then(|c| c.reply().ok())
        else {
            return Vec::new();
        };
        parse_notes(&String::from_utf8_lossy(&reply.value))
    }
}

/// The `bus path` lines of a note.
fn parse_notes(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(bus, path)| !bus.is_empty() && path.starts_with('/'))
        .map(|(bus, path)| (bus.to_owned(), path.to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse_notes;

    #[test]
    fn notes_are_read_line_by_line_and_junk_is_skipped() {
        let got = parse_notes(":1.94 /org/a11y/atspi/accessible/7\njunk\n:1.5 nopath\n");
        assert_eq!(
            got,
            [(
                ":1.94".to_owned(),
                "/org/a11y/atspi/accessible/7".to_owned()
            )]
        );
    }
}
