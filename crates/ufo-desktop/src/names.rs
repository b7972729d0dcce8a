//! Lenient comparison of accessible names.
//!
//! Models copy names from the control list imperfectly (case, spacing), and GTK4
//! (4.8) reports a button's name as "label description", which for most buttons
//! doubles the label (`"7 7"`, `"+ +"`). Both the control filter (to show `"7"`)
//! and the tools (to accept `"7"` for a control named `"7 7"`) use these rules.

/// Trims, collapses runs of whitespace to one space and lower-cases.
pub fn normalize(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// `"7 7"` → `"7"`: a name made of two equal halves joined by one space is
/// reduced to one half; any other name is returned unchanged (trimmed).
pub fn undouble(name: &str) -> &str {
    let t = name.trim();
    // Split at the middle space only: "a b a b" → ("a b", "a b").
    let chars = t.chars().count();
    if chars >= 3 && chars % 2 == 1 {
        let mid = t.char_indices().nth(chars / 2).map(|(i, _)| i);
        if let Some(mid) = mid
            && t[mid..].starts_with(' ')
        {
            let (a, b) = (&t[..mid], &t[mid + 1..]);
            if a == b && !a.trim().is_empty() {
                return a;
            }
        }
    }
    t
}

/// True when `given` (from a model) names the control called `actual`: equal
/// after [`normalize`], or equal once GTK4's doubling is removed from either.
pub fn names_match(given: &str, actual: &str) -> bool {
    let g = normalize(given);
    let a = normalize(actual);
    g == a || undouble(&g) == undouble(&a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undoubles_only_exact_halves() {
        for (input, want) in [
            ("7 7", "7"),
            ("+ +", "+"),
            ("  Save Save ", "Save"),
            ("a b a b", "a b"),
            ("7", "7"),
            ("77", "77"),
            ("7 8", "7 8"),
            ("Bye  Bye", "Bye  Bye"),
            ("", ""),
            ("× ×", "×"),
        ] {
            assert_eq!(undouble(input), want, "{input:?}");
        }
    }

    #[test]
    fn matches_leniently() {
        for (given, actual, want) in [
            ("Save", "Save", true),
            (" save ", "Save", true),
            ("Save  As", "save as", true),
            ("7", "7 7", true),
            ("7 7", "7", true),
            ("7 7", "7 7", true),
            ("Open", "Save", false),
            ("7", "77", false),
            ("", "", true),
            ("", "Save", false),
        ] {
            assert_eq!(names_match(given, actual), want, "{given:?} vs {actual:?}");
        }
    }
}
