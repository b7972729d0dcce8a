//! Text cut to a length for people to read: messages, log lines, console
//! fields, the text of a control. Lengths are in characters (never a byte
//! index inside one), and a cut is always marked.

/// The byte index where the first `max` characters of `s` end, when `s`
/// has more than `max`; `None` when it fits.
pub fn cut_at(s: &str, max: usize) -> Option<usize> {
    s.char_indices().nth(max).map(|(i, _)| i)
}

/// `s` cut to its first `max` characters, with `…` after a cut.
pub fn clip(s: &str, max: usize) -> String {
    match cut_at(s, max) {
        Some(i) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_is_marked_and_falls_between_characters() {
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("abcd", 3), "abc…");
        assert_eq!(clip("ééé", 2), "éé…");
        assert_eq!(clip("", 0), "");
        assert_eq!(clip("x", 0), "…");
        assert_eq!(cut_at("ééé", 1), Some(2));
        assert_eq!(cut_at("ééé", 3), None);
    }
}
