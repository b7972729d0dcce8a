//! Recorded model traffic: [`ReplayModel`] answers from a cassette file,
//! [`RecordingModel`] writes one while a real model answers.
//!
//! ## Cassette format
//! JSON Lines (one entry per line) or one JSON array of entries; each entry is
//! `{"request": <normalised request>, "response": <ChatResponse>}`:
//!
//! ```json
//! {"request":{"messages":[{"role":"system","content":"…"},{"role":"user","content":[{"type":"text","text":"…"},{"type":"image_url","image_url":{"url":"<image>"}}]}],"options":{}},"response":{"text":"{\"a\":1}","usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13},"cost":null,"model":"gpt-4o","provider":"openai","latency_ms":812}}
//! ```
//!
//! ## Matching rule
//! The request is *normalised*: it is the [`ChatRequest`] as JSON (messages and
//! options) with every image reference — image parts and `url` attachments —
//! replaced by `"<image>"`, because screenshots differ from run to run while the
//! text of a prompt does not. Two requests match when their normalised JSON is
//! equal (object key order does not matter).
//! * `exact` (default): the n-th time a request is asked, it gets the n-th
//!   recorded answer to that same request; once those run out the last one repeats.
//!   A request never recorded is an error ([`LlmError::ReplayMiss`]) naming the
//!   cassette.
//! * `sequential` (`REPLAY_MATCH: sequential`): answers are given in recorded order
//!   whatever the request; running past the end is an error.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::AsyncWriteExt;

use crate::config::LlmConfig;
use crate::error::LlmError;
use crate::message::{ChatRequest, ChatResponse, Content, Part};
use crate::model::ChatModel;

/// The placeholder that replaces image references in a normalised request.
pub const IMAGE_PLACEHOLDER: &str = "<image>";

/// One recorded call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CassetteEntry {
    /// The normalised request ([`normalize_request`]).
    pub request: Value,
    /// The answer.
    pub response: ChatResponse,
}

/// How requests are matched to recorded answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReplayMatch {
    /// By normalised request (see the module docs).
    #[default]
    Exact,
    /// In recorded order, whatever the request.
    Sequential,
}

/// The request with every image reference replaced by [`IMAGE_PLACEHOLDER`].
pub fn normalize_request(request: &ChatRequest) -> Value {
    let mut r = request.clone();
    for m in &mut r.messages {
        for u in &mut m.url {
            *u = IMAGE_PLACEHOLDER.to_owned();
        }
        if let Content::Parts(parts) = &mut m.content {
            for p in parts {
                if let Part::ImageUrl { image_url } = p {
                    image_url.url = IMAGE_PLACEHOLDER.to_owned();
                }
            }
        }
    }
    serde_json::to_value(&r).unwrap_or(Value::Null)
}

/// Reads a cassette (JSON Lines or a JSON array).
pub fn load_cassette(path: &Path) -> Result<Vec<CassetteEntry>, LlmError> {
    let err = |message: String, e: ufo_core::BoxError| LlmError::Cassette {
        path: path.to_owned(),
        message,
        source: Some(e),
    };
    let text =
        std::fs::read_to_string(path).map_err(|e| err(format!("cannot read it: {e}"), e.into()))?;
    if text.trim_start().starts_with('[') {
        return serde_json::from_str(&text)
            .map_err(|e| err(format!("not a JSON array of entries: {e}"), e.into()));
    }
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| err(format!("line {}: {e}", i + 1), e.into()))
        })
        .collect()
}

#[derive(Debug, Default)]
struct ReplayState {
    served: HashMap<String, usize>,
    cursor: usize,
}

/// A model that answers from a cassette.
#[derive(Debug)]
pub struct ReplayModel {
    path: PathBuf,
    entries: Vec<CassetteEntry>,
    mode: ReplayMatch,
    state: Mutex<ReplayState>,
}

impl ReplayModel {
    /// Loads the cassette at `path`.
    pub fn open(path: impl Into<PathBuf>, mode: ReplayMatch) -> Result<Self, LlmError> {
        let path = path.into();
        let entries = load_cassette(&path)?;
        Ok(Self {
            path,
            entries,
            mode,
            state: Mutex::new(ReplayState::default()),
        })
    }

    /// From an agent section: `CASSETTE` (or `API_BASE`) is the path;
    /// `REPLAY_MATCH: sequential` selects sequential matching.
    pub fn from_config(cfg: &LlmConfig) -> Result<Self, LlmError> {
        let path = cfg
            .cassette
            .as_deref()
            .or(cfg.base())
            .filter(|p| !p.trim().is_empty())
            .ok_or_else(|| LlmError::config("CASSETTE", "replay needs the cassette file's path"))?;
        let mode = match cfg.replay_match.as_deref().map(str::trim) {
            Some(m) if m.eq_ignore_ascii_case("sequential") => ReplayMatch::Sequential,
            _ => ReplayMatch::Exact,
        };
        Self::open(path, mode)
    }

    /// Number of recorded entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the cassette is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn miss(&self, key: &str) -> LlmError {
        LlmError::ReplayMiss {
            cassette: self.path.clone(),
            key: key.chars().take(200).collect(),
        }
    }
}

#[async_trait]
impl ChatModel for ReplayModel {
    async fn chat(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        let key = normalize_request(&request);
        let key_text = serde_json::to_string(&key).unwrap_or_default();
        let mut state = self.state.lock().map_err(|_| self.miss(&key_text))?;
        let entry = match self.mode {
            ReplayMatch::Sequential => {
                let e = self
                    .entries
                    .get(state.cursor)
                    .ok_or_else(|| self.miss(&key_text))?;
                state.cursor += 1;
                e
            }
            ReplayMatch::Exact => {
                let matches: Vec<&CassetteEntry> =
                    self.entries.iter().filter(|e| e.request == key).collect();
                let n = state.served.entry(key_text.clone()).or_insert(0);
                let e = matches
                    .get((*n).min(matches.len().saturating_sub(1)))
                    .copied()
                    .ok_or_else(|| self.miss(&key_text))?;
                *n += 1;
                e
            }
        };
        let mut response = entry.response.clone();
        response.attempts = 1;
        Ok(response)
    }

    fn describe(&self) -> String {
        format!("replay/{}", self.path.display())
    }
}

/// Wraps a real model and appends every successful call to a cassette (JSON Lines).
pub struct RecordingModel {
    inner: Arc<dyn ChatModel>,
    path: PathBuf,
    lock: tokio::sync::Mutex<()>,
}

impl RecordingModel {
    /// Records `inner`'s answers into `path` (created or appended to).
    pub fn new(inner: Arc<dyn ChatModel>, path: impl Into<PathBuf>) -> Self {
        Self {
            inner,
            path: path.into(),
            lock: tokio::sync::Mutex::new(()),
        }
    }
}

#[async_trait]
impl ChatModel for RecordingModel {
    async fn chat(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        let key = normalize_request(&request);
        let response = self.inner.chat(request).await?;
        let entry = CassetteEntry {
            request: key,
            response: response.clone(),
        };
        let err = |message: String, e: ufo_core::BoxError| LlmError::Cassette {
            path: self.path.clone(),
            message,
            source: Some(e),
        };
        let mut line = serde_json::to_string(&entry).map_err(|e| err(e.to_string(), e.into()))?;
        line.push('\n');
        let _guard = self.lock.lock().await;
        let mut f = tokio::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .await
            .map_err(|e| err(format!("cannot open for appending: {e}"), e.into()))?;
        f.write_all(line.as_bytes())
            .await
            .map_err(|e| err(format!("cannot write: {e}"), e.into()))?;
        f.flush()
            .await
            .map_err(|e| err(format!("cannot write: {e}"), e.into()))?;
        Ok(response)
    }

    fn describe(&self) -> String {
        format!(
            "{} (recording to {})",
            self.inner.describe(),
            self.path.display()
        )
    }
}
