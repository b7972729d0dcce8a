//! How an unknown key is reported: the known key it is nearest to ("did
//! you mean"), the error that lists them all, the warnings of lenient
//! loading. Used by the top-level reading (`unknown`), by the value reader
//! (`de`, for enum names and struct keys) and by the third-party configs.

use crate::error::SessionError;

/// The known key closest to `key` (edit distance at most a third of its
/// length, at least 2), for "did you mean".
pub(super) fn nearest<'a>(key: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (key.len() / 3).max(2);
    known
        .map(|k| {
            let d = strsim::levenshtein(&key.to_ascii_uppercase(), &k.to_ascii_uppercase());
            (d, k)
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The error for the first unknown key (all of them listed); `note` says
/// what belongs there.
pub(super) fn error(unknown: &[(String, Option<String>)], note: &str) -> SessionError {
    let describe = |(k, near): &(String, Option<String>)| match near {
        Some(n) => format!("{k} (did you mean {n}?)"),
        None => k.clone(),
    };
    let (first, rest) = unknown
        .split_first()
        .map_or((String::new(), Vec::new()), |(f, r)| {
            (f.0.clone(), r.iter().map(describe).collect())
        });
    let mut message = match unknown.first().and_then(|u| u.1.as_deref()) {
        Some(n) => format!("unknown key; did you mean {n}?"),
        None => "unknown key: ufo-rs does not read it".to_owned(),
    };
    if !note.is_empty() {
        message.push_str(&format!("; {note}"));
    }
    if !rest.is_empty() {
        message.push_str(&format!(" (also unknown: {})", rest.join(", ")));
    }
    SessionError::UnknownKey {
        key: first,
        message,
    }
}

/// One warning line per unknown key (lenient loading).
pub(super) fn warnings(unknown: &[(String, Option<String>)]) -> Vec<String> {
    unknown
        .iter()
        .map(|(k, near)| match near {
            Some(n) => format!("config key `{k}` is not used by ufo-rs (did you mean {n}?)"),
            None => format!("config key `{k}` is not used by ufo-rs; ignored"),
        })
        .collect()
}
