//! pywinauto's `type_keys` / `send_keys` syntax → [`KeyEvent`]s.
//!
//! Models trained on UFO write key sequences in pywinauto's syntax; this module
//! turns them into backend-neutral press/release events.
//!
//! | syntax | meaning |
//! |---|---|
//! | `hello` | the literal characters (spaces, too) |
//! | `{ENTER}`, `{F10}`, `{VK_RETURN}` | a named key (case-insensitive; see [`key_names`]) |
//! | `{TAB 3}`, `{a 5}` | a key repeated (at most [`MAX_REPEAT`] times) |
//! | `{SHIFT down}` … `{SHIFT up}` | press or release without the other half |
//! | `{{}` `{}}` `{+}` `{^}` `{%}` `{~}` `{#}` `{(}` `{)}` | the character itself |
//! | `~` | Enter |
//! | `^x` `%x` `+x` `#x` | Ctrl / Alt / Shift / Win held around the next key |
//! | `^+s`, `+{F10}` | modifiers combine and apply to braced keys |
//! | `+(abc)` | a modifier held around a parenthesised group (groups nest) |
//! | `\n`, `\t` | Enter, Tab |
//!
//! Two deliberate differences from pywinauto, both to make model output safer:
//! - `(` only opens a group right after a modifier; elsewhere `(` and `)` are
//!   typed literally (pywinauto would silently swallow them in `"f(x)"`).
//! - Keys still held by `{X down}` at the end of the sequence are released, in
//!   reverse order, so a sequence can never leave a modifier stuck.

use crate::error::{DesktopError, Result};
use crate::keys::{Key, KeyEvent, NamedKey};

/// The largest repeat count accepted in `{KEY n}`.
pub const MAX_REPEAT: u32 = 1000;

/// Named keys (upper case) and what they mean. `F1`–`F24` and `VK_F1`–`VK_F24`
/// are accepted as well and are not listed.
const NAMES: &[(&str, NamedKey)] = &[
    ("ENTER", NamedKey::Enter),
    ("RETURN", NamedKey::Enter),
    ("VK_RETURN", NamedKey::Enter),
    ("TAB", NamedKey::Tab),
    ("VK_TAB", NamedKey::Tab),
    ("ESC", NamedKey::Escape),
    ("ESCAPE", NamedKey::Escape),
    ("VK_ESCAPE", NamedKey::Escape),
    ("BACKSPACE", NamedKey::Backspace),
    ("BACK", NamedKey::Backspace),
    ("BKSP", NamedKey::Backspace),
    ("BS", NamedKey::Backspace),
    ("VK_BACK", NamedKey::Backspace),
    ("DELETE", NamedKey::Delete),
    ("DEL", NamedKey::Delete),
    ("VK_DELETE", NamedKey::Delete),
    ("INSERT", NamedKey::Insert),
    ("INS", NamedKey::Insert),
    ("VK_INSERT", NamedKey::Insert),
    ("HOME", NamedKey::Home),
    ("VK_HOME", NamedKey::Home),
    ("END", NamedKey::End),
    ("VK_END", NamedKey::End),
    ("PGUP", NamedKey::PageUp),
    ("PAGEUP", NamedKey::PageUp),
    ("PRIOR", NamedKey::PageUp),
    ("VK_PRIOR", NamedKey::PageUp),
    ("PGDN", NamedKey::PageDown),
    ("PAGEDOWN", NamedKey::PageDown),
    ("NEXT", NamedKey::PageDown),
    ("VK_NEXT", NamedKey::PageDown),
    ("LEFT", NamedKey::Left),
    ("VK_LEFT", NamedKey::Left),
    ("RIGHT", NamedKey::Right),
    ("VK_RIGHT", NamedKey::Right),
    ("UP", NamedKey::Up),
    ("VK_UP", NamedKey::Up),
    ("DOWN", NamedKey::Down),
    ("VK_DOWN", NamedKey::Down),
    ("SPACE", NamedKey::Space),
    ("VK_SPACE", NamedKey::Space),
    ("CAPSLOCK", NamedKey::CapsLock),
    ("CAP", NamedKey::CapsLock),
    ("VK_CAPITAL", NamedKey::CapsLock),
    ("PRTSC", NamedKey::PrintScreen),
    ("PRINTSCREEN", NamedKey::PrintScreen),
    ("VK_SNAPSHOT", NamedKey::PrintScreen),
    ("APPS", NamedKey::Menu),
    ("VK_APPS", NamedKey::Menu),
    ("CTRL", NamedKey::Control),
    ("CONTROL", NamedKey::Control),
    ("VK_CONTROL", NamedKey::Control),
    ("VK_LCONTROL", NamedKey::Control),
    ("VK_RCONTROL", NamedKey::Control),
    ("ALT", NamedKey::Alt),
    ("MENU", NamedKey::Alt),
    ("VK_MENU", NamedKey::Alt),
    ("LMENU", NamedKey::Alt),
    ("RMENU", NamedKey::Alt),
    ("VK_LMENU", NamedKey::Alt),
    ("VK_RMENU", NamedKey::Alt),
    ("SHIFT", NamedKey::Shift),
    ("VK_SHIFT", NamedKey::Shift),
    ("VK_LSHIFT", NamedKey::Shift),
    ("VK_RSHIFT", NamedKey::Shift),
    ("WIN", NamedKey::Super),
    ("LWIN", NamedKey::Super),
    ("RWIN", NamedKey::Super),
    ("VK_LWIN", NamedKey::Super),
    ("VK_RWIN", NamedKey::Super),
    ("SUPER", NamedKey::Super),
];

/// Every accepted key name (upper case; matching is case-insensitive), for
/// documentation and error messages. `F1`…`F24` (also `VK_F1`…) are included.
pub fn key_names() -> Vec<String> {
    let mut names: Vec<String> = NAMES.iter().map(|(n, _)| (*n).to_owned()).collect();
    names.extend((1..=24).map(|i| format!("F{i}")));
    names.extend((1..=24).map(|i| format!("VK_F{i}")));
    names
}

/// Looks up a key by name: a pywinauto/`VK_` name (case-insensitive), `F1`–`F24`,
/// or a single character. Used for `{...}` contents and for `key_hold` arguments
/// (`"shift"`, `"ctrl"`).
pub fn key_by_name(name: &str) -> Option<Key> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.clone().next()) {
        return Some(Key::Char(c));
    }
    let upper = name.trim().to_ascii_uppercase();
    if let Some((_, k)) = NAMES.iter().find(|(n, _)| *n == upper) {
        return Some(Key::Named(*k));
    }
    let digits = upper
        .strip_prefix("VK_F")
        .or_else(|| upper.strip_prefix('F'))?;
    let n: u8 = digits.parse().ok()?;
    (1..=24).contains(&n).then_some(Key::Named(NamedKey::F(n)))
}

/// Parses a pywinauto key sequence into press/release events.
///
/// Errors are [`DesktopError::BadKeys`] naming the problem and its 0-based
/// character position.
///
/// ```
/// use ufo_desktop::keyparse::parse_keys;
/// use ufo_desktop::keys::{Key, KeyEvent, NamedKey};
/// let ev = parse_keys("^a").unwrap();
/// assert_eq!(ev, vec![
///     KeyEvent::Down(Key::Named(NamedKey::Control)),
///     KeyEvent::Down(Key::Char('a')),
///     KeyEvent::Up(Key::Char('a')),
///     KeyEvent::Up(Key::Named(NamedKey::Control)),
/// ]);
/// ```
pub fn parse_keys(keys: &str) -> Result<Vec<KeyEvent>> {
    let n = keys.chars().count();
    if n > MAX_KEY_CHARS {
        let head: String = keys.chars().take(40).collect();
        return Err(DesktopError::BadKeys {
            keys: format!("{head}…"),
            detail: format!(
                "the sequence is {n} characters long; at most {MAX_KEY_CHARS} are typed as keys \
                 (about a minute of typing): put long text with set_edit_text instead"
            ),
        });
    }
    let mut p = Parser {
        src: keys,
        chars: keys.chars().collect(),
        pos: 0,
        out: Vec::new(),
        held: Vec::new(),
    };
    p.sequence(None)?;
    let held = std::mem::take(&mut p.held);
    for k in held.into_iter().rev() {
        p.out.push(KeyEvent::Up(k));
    }
    Ok(p.out)
}

/// The longest key sequence `parse_keys` accepts, in characters.
pub const MAX_KEY_CHARS: usize = 5000;

/// Events that type `text` literally (no syntax): every character pressed and
/// released, `\n` as Enter and `\t` as Tab. For `set_edit_text`'s typing fallback.
pub fn literal_text(text: &str) -> Vec<KeyEvent> {
    let mut out = Vec::with_capacity(text.len() * 2);
    for c in text.chars() {
        let k = match c {
            '\n' => Key::Named(NamedKey::Enter),
            '\t' => Key::Named(NamedKey::Tab),
            '\r' => continue,
            c => Key::Char(c),
        };
        out.push(KeyEvent::Down(k));
        out.push(KeyEvent::Up(k));
    }
    out
}

fn modifier(c: char) -> Option<NamedKey> {
    match c {
        '^' => Some(NamedKey::Control),
        '%' => Some(NamedKey::Alt),
        '+' => Some(NamedKey::Shift),
        '#' => Some(NamedKey::Super),
        _ => None,
    }
}

struct Parser<'a> {
    src: &'a str,
    chars: Vec<char>,
    pos: usize,
    out: Vec<KeyEvent>,
    held: Vec<Key>,
}

impl Parser<'_> {
    fn err(&self, detail: String) -> DesktopError {
        DesktopError::BadKeys {
            keys: self.src.to_owned(),
            detail,
        }
    }

    fn tap(&mut self, k: Key, times: u32) {
        for _ in 0..times {
            self.out.push(KeyEvent::Down(k));
            self.out.push(KeyEvent::Up(k));
        }
    }

    /// Parses items until the end, or until the `)` closing a group opened at
    /// `group_start`.
    fn sequence(&mut self, group_start: Option<usize>) -> Result<()> {
        while let Some(&c) = self.chars.get(self.pos) {
            if c == ')' && group_start.is_some() {
                self.pos += 1;
                return Ok(());
            }
            self.item()?;
        }
        match group_start {
            Some(at) => Err(self.err(format!(
                "group opened with '(' at position {at} is never closed with ')'; \
                 type a literal parenthesis as {{(}} or {{)}}"
            ))),
            None => Ok(()),
        }
    }

    /// Parses one item: modifiers followed by a key or a group, a braced key, or
    /// a plain character.
    fn item(&mut self) -> Result<()> {
        let start = self.pos;
        let mut mods: Vec<NamedKey> = Vec::new();
        while let Some(m) = self.chars.get(self.pos).copied().and_then(modifier) {
            mods.push(m);
            self.pos += 1;
        }
        let Some(&c) = self.chars.get(self.pos) else {
            return Err(self.err(format!(
                "modifier '{}' at position {start} has no key after it; \
                 to type the character itself write {{{}}}",
                self.chars.get(start).copied().unwrap_or('^'),
                self.chars.get(start).copied().unwrap_or('^'),
            )));
        };
        for m in &mods {
            self.out.push(KeyEvent::Down(Key::Named(*m)));
        }
        if c == '(' && !mods.is_empty() {
            let at = self.pos;
            self.pos += 1;
            self.sequence(Some(at))?;
        } else if c == '{' {
            self.braced()?;
        } else {
            self.pos += 1;
            let k = match c {
                '~' | '\n' => Key::Named(NamedKey::Enter),
                '\t' => Key::Named(NamedKey::Tab),
                '}' => {
                    return Err(self.err(format!(
                        "unmatched '}}' at position {}; type a literal brace as {{}}}}",
                        self.pos - 1
                    )));
                }
                '\r' => {
                    for m in mods.iter().rev() {
                        self.out.push(KeyEvent::Up(Key::Named(*m)));
                    }
                    return Ok(());
                }
                c => Key::Char(c),
            };
            self.tap(k, 1);
        }
        for m in mods.iter().rev() {
            self.out.push(KeyEvent::Up(Key::Named(*m)));
        }
        Ok(())
    }

    /// Parses `{...}` starting at the `{`.
    fn braced(&mut self) -> Result<()> {
        let open = self.pos;
        // `{}}` and `{{}`: the first character after `{` is always content, so
        // the closing brace is searched from the second one on.
        let content_start = open + 1;
        let close = self
            .chars
            .iter()
            .enumerate()
            .skip(content_start + 1)
            .find(|(_, c)| **c == '}')
            .map(|(i, _)| i);
        let Some(close) = close.filter(|_| content_start < self.chars.len()) else {
            return Err(self.err(format!(
                "'{{' at position {open} is never closed with '}}'; \
                 type a literal brace as {{{{}}"
            )));
        };
        let content: String = self.chars[content_start..close].iter().collect();
        self.pos = close + 1;

        // `{NAME}`, `{NAME 3}`, `{NAME down}`, `{NAME up}`; a single character
        // (even a space) is always itself.
        let (name, arg) = match content.rsplit_once(' ') {
            Some((n, a)) if content.chars().count() > 1 && !n.is_empty() => (n, Some(a)),
            _ => (content.as_str(), None),
        };
        let Some(key) = key_by_name(name) else {
            return Err(self.err(format!(
                "unknown key name {name:?} in braces at position {open}; \
                 use e.g. ENTER, TAB, ESC, BACKSPACE, DELETE, HOME, END, PGUP, PGDN, \
                 LEFT, RIGHT, UP, DOWN, SPACE, F1-F24, CTRL, ALT, SHIFT, WIN \
                 (or their VK_ names)"
            )));
        };
        match arg.map(|a| a.trim().to_ascii_lowercase()) {
            None => self.tap(key, 1),
            Some(a) if a == "down" => {
                self.out.push(KeyEvent::Down(key));
                self.held.push(key);
            }
            Some(a) if a == "up" => {
                self.out.push(KeyEvent::Up(key));
                if let Some(i) = self.held.iter().rposition(|k| *k == key) {
                    self.held.remove(i);
                }
            }
            Some(a) => match a.parse::<u32>() {
                Ok(n) if n <= MAX_REPEAT => self.tap(key, n),
                Ok(n) => {
                    return Err(self.err(format!(
                        "repeat count {n} at position {open} is larger than {MAX_REPEAT}"
                    )));
                }
                Err(_) => {
                    return Err(self.err(format!(
                        "{a:?} after {name:?} at position {open} is not a repeat count, \
                         'down' or 'up'"
                    )));
                }
            },
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use KeyEvent::{Down, Up};

    fn c(ch: char) -> Key {
        Key::Char(ch)
    }
    fn n(k: NamedKey) -> Key {
        Key::Named(k)
    }
    fn tap(k: Key) -> Vec<KeyEvent> {
        vec![Down(k), Up(k)]
    }
    fn text(s: &str) -> Vec<KeyEvent> {
        s.chars().flat_map(|ch| tap(c(ch))).collect()
    }
    fn cat(parts: Vec<Vec<KeyEvent>>) -> Vec<KeyEvent> {
        parts.into_iter().flatten().collect()
    }
    fn with(m: NamedKey, inner: Vec<KeyEvent>) -> Vec<KeyEvent> {
        cat(vec![vec![Down(n(m))], inner, vec![Up(n(m))]])
    }

    use NamedKey::*;

    #[test]
    fn endless_typing_is_refused_with_a_short_message() {
        let long = "a".repeat(100_000);
        let e = parse_keys(&long).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("set_edit_text"), "{text}");
        assert!(
            text.len() < 400,
            "the error echoes the whole sequence: {} chars",
            text.len()
        );
        assert!(parse_keys(&"a".repeat(MAX_KEY_CHARS)).is_ok());
    }

    #[test]
    fn parses_valid_sequences() {
        let cases: Vec<(&str, Vec<KeyEvent>)> = vec![
            ("", vec![]),
            ("abc", text("abc")),
            ("hi there", text("hi there")),
            ("^a", with(Control, tap(c('a')))),
            ("%f", with(Alt, tap(c('f')))),
            ("+x", with(Shift, tap(c('x')))),
            ("#r", with(Super, tap(c('r')))),
            ("+{F10}", with(Shift, tap(n(F(10))))),
            (
                "{F1}{f24}{VK_F5}",
                cat(vec![tap(n(F(1))), tap(n(F(24))), tap(n(F(5)))]),
            ),
            ("{TAB 3}", cat(vec![tap(n(Tab)), tap(n(Tab)), tap(n(Tab))])),
            ("{a 2}", text("aa")),
            ("{+ 2}", text("++")),
            ("{TAB 0}", vec![]),
            (
                "hello{ENTER}world",
                cat(vec![text("hello"), tap(n(Enter)), text("world")]),
            ),
            ("{enter}{Vk_Return}~", cat(vec![tap(n(Enter)); 3])),
            ("a\nb", cat(vec![text("a"), tap(n(Enter)), text("b")])),
            ("a\r\nb", cat(vec![text("a"), tap(n(Enter)), text("b")])),
            ("\t", tap(n(Tab))),
            ("{{}{}}", text("{}")),
            ("{+}{^}{%}{~}{#}{(}{)}", text("+^%~#()")),
            ("{ }", text(" ")),
            ("{SPACE}", tap(n(Space))),
            ("^+s", with(Control, with(Shift, tap(c('s'))))),
            ("^{ESC}", with(Control, tap(n(Escape)))),
            ("^~", with(Control, tap(n(Enter)))),
            ("+(abc)", with(Shift, text("abc"))),
            (
                "^(a+(bc))d",
                cat(vec![
                    with(Control, cat(vec![text("a"), with(Shift, text("bc"))])),
                    text("d"),
                ]),
            ),
            ("+({F1}x)", with(Shift, cat(vec![tap(n(F(1))), text("x")]))),
            ("f(x)", text("f(x)")),
            (")", text(")")),
            (
                "{SHIFT down}ab{SHIFT up}c",
                cat(vec![
                    vec![Down(n(Shift))],
                    text("ab"),
                    vec![Up(n(Shift))],
                    text("c"),
                ]),
            ),
            (
                "{VK_CONTROL down}{VK_MENU DOWN}x",
                cat(vec![
                    vec![Down(n(Control)), Down(n(Alt))],
                    text("x"),
                    vec![Up(n(Alt)), Up(n(Control))],
                ]),
            ),
            ("{ctrl up}", vec![Up(n(Control))]),
            (
                "{BACKSPACE}{BS}{DEL}{INS}{HOME}{END}{PGUP}{PGDN}",
                cat(vec![
                    tap(n(Backspace)),
                    tap(n(Backspace)),
                    tap(n(Delete)),
                    tap(n(Insert)),
                    tap(n(Home)),
                    tap(n(End)),
                    tap(n(PageUp)),
                    tap(n(PageDown)),
                ]),
            ),
            (
                "{LEFT}{RIGHT}{UP}{DOWN}{CAPSLOCK}{PRTSC}{APPS}{WIN}",
                cat(vec![
                    tap(n(Left)),
                    tap(n(Right)),
                    tap(n(NamedKey::Up)),
                    tap(n(NamedKey::Down)),
                    tap(n(CapsLock)),
                    tap(n(PrintScreen)),
                    tap(n(Menu)),
                    tap(n(Super)),
                ]),
            ),
            ("é→", text("é→")),
        ];
        for (input, want) in cases {
            let got = parse_keys(input);
            assert_eq!(got.as_ref().ok(), Some(&want), "input {input:?}: {got:?}");
        }
    }

    #[test]
    fn rejects_bad_sequences_with_position() {
        let cases: &[(&str, &str)] = &[
            ("{ENTER", "position 0 is never closed"),
            ("ab{", "position 2 is never closed"),
            ("{", "position 0 is never closed"),
            ("}", "unmatched '}' at position 0"),
            ("x{FOO}", "unknown key name \"FOO\" in braces at position 1"),
            ("{F25}", "unknown key name \"F25\""),
            (
                "{TAB x}",
                "\"x\" after \"TAB\" at position 0 is not a repeat count",
            ),
            ("{TAB 1001}", "larger than 1000"),
            ("^", "modifier '^' at position 0 has no key"),
            ("ab+", "modifier '+' at position 2 has no key"),
            ("+(abc", "'(' at position 1 is never closed"),
            ("^(a+(b)", "'(' at position 1 is never closed"),
        ];
        for (input, want) in cases {
            match parse_keys(input) {
                Err(DesktopError::BadKeys { keys, detail }) => {
                    assert_eq!(keys, *input);
                    assert!(detail.contains(want), "input {input:?}: {detail}");
                }
                other => panic!("input {input:?}: expected BadKeys, got {other:?}"),
            }
        }
    }

    #[test]
    fn names_and_literals() {
        let names = key_names();
        assert!(names.iter().any(|n| n == "VK_RETURN"));
        assert!(names.iter().any(|n| n == "F24"));
        for name in &names {
            assert!(key_by_name(name).is_some(), "{name}");
            assert!(key_by_name(&name.to_lowercase()).is_some(), "{name}");
        }
        assert_eq!(key_by_name("ctrl"), Some(n(Control)));
        assert_eq!(key_by_name("F0"), None);
        assert_eq!(
            literal_text("a{b}\n"),
            cat(vec![text("a{b}"), tap(n(Enter))])
        );
    }
}

#[cfg(test)]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn key_sequences_never_panic(keys in "\\PC{0,200}") {
            let _ = parse_keys(&keys);
        }

        #[test]
        fn key_syntax_soup_never_panics(keys in "[{}^%+~()a-zA-Z0-9 ]{0,200}") {
            if let Ok(events) = parse_keys(&keys) {
                // Whatever is pressed is released by the end.
                let downs = events.iter().filter(|e| matches!(e, KeyEvent::Down(_))).count();
                let ups = events.iter().filter(|e| matches!(e, KeyEvent::Up(_))).count();
                prop_assert_eq!(downs, ups);
            }
        }
    }
}
