//! The file's top level, and the keys it holds that nothing reads: a
//! misspelling (`MAX_STEPP`) would otherwise silently leave its default in
//! place.
//!
//! `SYSTEM:` keys are lifted beside the top-level ones (a top-level key
//! wins), UFO's keys that ufo-rs accepts without reading are set aside with
//! their reason, and each concern reads the top level with its own struct
//! ([`TopLevel::read`]). A top-level key that no struct reads, or a key
//! inside an agent section that [`LlmConfig`] does not hold, is unknown.

use super::de::{self, KeyPath};
use super::misspelt::nearest;
use crate::error::SessionError;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use ufo_llm::LlmConfig;

/// The agent sections (top level only).
const SECTIONS: &[&str] = &[
    "HOST_AGENT",
    "APP_AGENT",
    "BACKUP_AGENT",
    "EVALUATION_AGENT",
    "OPERATOR",
];

/// UFO keys that ufo-rs accepts without reading them, and why; a config
/// that sets one gets a note with the reason, never an error.
const ACCEPTED: &[(&str, &str)] = &[
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
        "ufo-rs's diagnostics follow the UFO_LOG environment variable, or RUST_LOG when UFO_LOG is unset (e.g. UFO_LOG=debug)",
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

/// The top level of a config file, read concern by concern.
pub(super) struct TopLevel {
    value: Value,
    /// Keys that came from `SYSTEM:`.
    lifted: BTreeSet<String>,
    /// Keys of `SYSTEM:` that belong at the top level (sections).
    misplaced: Vec<String>,
    /// What each read left unread.
    ignored: Vec<KeyPath>,
    reads: usize,
    /// The keys the reads know.
    known: Vec<&'static str>,
    /// One line per accepted UFO key the file sets.
    pub(super) notes: Vec<String>,
}

impl TopLevel {
    /// The top-level map `top`, its `SYSTEM:` keys lifted and UFO's
    /// accepted keys set aside.
    pub(super) fn new(mut top: Map<String, Value>) -> Result<Self, SessionError> {
        let (mut lifted, mut misplaced) = (BTreeSet::new(), Vec::new());
        match top.remove("SYSTEM") {
            None | Some(Value::Null) => {}
            Some(Value::Object(system)) => {
                for (k, v) in system {
                    if SECTIONS.contains(&k.as_str()) {
                        misplaced.push(format!("SYSTEM.{k}"));
                    } else if !top.contains_key(&k) {
                        lifted.insert(k.clone());
                        top.insert(k, v);
                    }
                }
            }
            Some(other) => {
                return Err(SessionError::BadKey {
                    key: "SYSTEM".into(),
                    message: format!("expected a map of system keys, got {other}"),
                });
            }
        }
        let notes = ACCEPTED
            .iter()
            .filter(|(k, _)| top.remove(*k).is_some())
            .map(|(k, why)| format!("config key `{k}` is accepted and not used: {why}"))
            .collect();
        Ok(Self {
            value: Value::Object(top),
            lifted,
            misplaced,
            ignored: Vec::new(),
            reads: 0,
            known: vec!["SYSTEM"],
            notes,
        })
    }

    /// One concern's keys; an error names the key path (`SYSTEM.` first
    /// for a key that came from there).
    pub(super) fn read<T: DeserializeOwned>(&mut self) -> Result<T, SessionError> {
        self.reads += 1;
        self.known.extend(de::keys_of::<T>());
        de::read(&self.value, "", &mut self.ignored).map_err(|mut e| {
            if let SessionError::BadKey { key, .. } | SessionError::MissingKey { key, .. } = &mut e
            {
                *key = self.shown(std::mem::take(key));
            }
            e
        })
    }

    fn shown(&self, key: String) -> String {
        let first = key.split(['.', '[']).next().unwrap_or_default();
        match self.lifted.contains(first) {
            true => format!("SYSTEM.{key}"),
            false => key,
        }
    }

    /// Every key nothing read, as `(path, nearest known key)`.
    pub(super) fn unknown(&self) -> Vec<(String, Option<String>)> {
        let mut times: BTreeMap<&KeyPath, usize> = BTreeMap::new();
        for p in &self.ignored {
            *times.entry(p).or_default() += 1;
        }
        let agent_keys = de::keys_of::<LlmConfig>();
        let mut out: Vec<(String, Option<String>)> = times
            .into_iter()
            // A top-level key is unknown when no read knows it; a key
            // inside a section is reported by the one read that has it.
            .filter(|(p, n)| p.len() > 1 || *n == self.reads)
            .filter_map(|(p, _)| {
                let (key, parent) = p.split_last()?;
                let known = match parent.is_empty() {
                    true => &self.known,
                    false => &agent_keys,
                };
                let near = nearest(key, known.iter().copied()).map(str::to_owned);
                Some((self.shown(de::join("", p)), near))
            })
            .collect();
        out.extend(self.misplaced.iter().map(|k| (k.clone(), None)));
        out
    }
}
