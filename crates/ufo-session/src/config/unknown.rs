//! Keys a config file holds that nothing reads: a misspelling (`MAX_STEPP`)
//! would otherwise silently leave its default in place.

use crate::error::SessionError;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use ufo_llm::config::{AGENT_KEYS, SHARED_AGENT_KEYS};

/// The agent sections.
pub(super) const SECTIONS: &[&str] = &[
    "HOST_AGENT",
    "APP_AGENT",
    "BACKUP_AGENT",
    "EVALUATION_AGENT",
    "OPERATOR",
];

/// UFO keys that ufo-rs accepts without reading them, and why; a config
/// that sets one gets a note with the reason, never an error.
pub(super) const ACCEPTED: &[(&str, &str)] = &[
    (
        "API_PROMPT",
        "the tools' descriptions come from ufo-rs's tool catalog (one definition per tool), not from an API prompt file",
    ),
    (
        "USE_APIS",
        "UFO's application APIs are Windows COM servers (Word, Excel, PowerPoint); ufo-rs acts through the accessibility tree and through MCP servers (`mcp:`)",
    ),
    (
        "PRINT_LOG",
        "the console always shows each step, and the logs are always written under logs/<task>/",
    ),
    (
        "LOG_LEVEL",
        "ufo-rs's diagnostics follow the RUST_LOG environment variable (e.g. RUST_LOG=debug)",
    ),
    (
        "CONTROL_BACKEND",
        "there is one accessibility backend per platform: AT-SPI on Linux, UI Automation on Windows",
    ),
    (
        "EXPERIENCE_SAVED_PATH",
        "experiences are stored in the knowledge base under KNOWLEDGE_DIR (`ufo knowledge` lists and edits them)",
    ),
    (
        "RAG_DEMONSTRATION_COMPLETION_N",
        "a demonstration is summarised with one model completion",
    ),
];

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

/// Every key of `top` (its `SYSTEM` map, its agent sections) that is not
/// known, as `(path, nearest known key)`. `read` are the system keys the
/// loader asked for.
pub(super) fn unknown_keys(
    top: &Map<String, Value>,
    read: &BTreeSet<String>,
) -> Vec<(String, Option<String>)> {
    let system_known: BTreeSet<&str> = read
        .iter()
        .map(String::as_str)
        .chain(SHARED_AGENT_KEYS.iter().copied())
        .collect();
    let top_known: BTreeSet<&str> = system_known
        .iter()
        .copied()
        .chain(SECTIONS.iter().copied())
        .chain(["SYSTEM"])
        .collect();
    let mut out = Vec::new();
    let mut check = |path: String, key: &str, known: &BTreeSet<&str>| {
        if !known.contains(key) {
            out.push((path, nearest(key, known.iter().copied()).map(str::to_owned)));
        }
    };
    let agent_known: BTreeSet<&str> = AGENT_KEYS.iter().copied().collect();
    for (k, v) in top {
        check(k.clone(), k, &top_known);
        match (k.as_str(), v) {
            ("SYSTEM", Value::Object(m)) => {
                for sk in m.keys() {
                    check(format!("SYSTEM.{sk}"), sk, &system_known);
                }
            }
            (s, Value::Object(m)) if SECTIONS.contains(&s) => {
                for ak in m.keys() {
                    check(format!("{s}.{ak}"), ak, &agent_known);
                }
            }
            _ => {}
        }
    }
    out
}

/// The error for the first unknown key (all of them listed).
pub(super) fn error(unknown: &[(String, Option<String>)]) -> SessionError {
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
