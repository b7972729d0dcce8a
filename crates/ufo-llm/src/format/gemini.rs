//! Google Gemini `contents`.
//!
//! AgentScope's `GeminiChatWrapper` strategy folds the dialogue into one user turn:
//! the system text, a newline, then `"## Dialogue History\n{name}: {text}\n…"`.
//! Its `parts` are plain strings as the Python SDK takes them; the REST body
//! (see [`crate::provider`]) wraps them as `{"text": …}`. Images, which the
//! AgentScope strategy does not support, are appended as `inline_data` (local files)
//! or `file_data` (web URLs, which the provider downloads and inlines).
//!
//! Native formatting puts the leading system message into `systemInstruction`,
//! maps assistant to `model`, and folds the rest into one user turn unless the turns
//! strictly alternate starting and ending with the user.

use serde_json::{Value, json};

use super::{Formatted, alternates, fold, split_system};
use crate::media::{self, Media, MediaKind};
use crate::message::{Msg, Part, Role};

/// One Gemini part for a resolved image.
pub(crate) fn media_part(m: &Media) -> Value {
    match m {
        Media::Inline { mime, data, .. } => {
            json!({"inline_data": {"mime_type": mime, "data": data}})
        }
        Media::Url { url, .. } => {
            let mime = mime_guess::from_path(url.split('?').next().unwrap_or(url))
                .first()
                .map(|m| m.essence_str().to_owned())
                .unwrap_or_else(|| "image/png".to_owned());
            json!({"file_data": {"mime_type": mime, "file_uri": url}})
        }
    }
}

fn media_parts(refs: &[String], warnings: &mut Vec<String>) -> Vec<Value> {
    media::resolve_all(refs, &[MediaKind::Image], warnings)
        .iter()
        .map(media_part)
        .collect()
}

/// AgentScope's Gemini strategy: `[{"role": "user", "parts": [text, …images]}]`.
pub fn gemini_chat(msgs: &[Msg]) -> Formatted {
    let folded = fold(msgs);
    let mut warnings = Vec::new();
    let mut sections = Vec::new();
    let mut refs = Vec::new();
    if let Some(sys) = folded.system {
        sections.push(sys.text());
        refs.extend(sys.media());
    }
    if let Some(history) = folded.history() {
        sections.push(history);
    }
    refs.extend(folded.media.iter().cloned());
    let mut parts = vec![json!(sections.join("\n"))];
    parts.extend(media_parts(&refs, &mut warnings));
    Formatted {
        value: json!([{"role": "user", "parts": parts}]),
        warnings,
    }
}

/// Native Gemini body fragment: `{"systemInstruction"?, "contents"}`.
pub fn native(msgs: &[Msg]) -> Formatted {
    let (system, turns) = split_system(msgs);
    let mut warnings = Vec::new();
    let mut value = serde_json::Map::new();
    let mut lead_media = Vec::new();
    if let Some(sys) = system {
        value.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": sys.text()}]}),
        );
        // systemInstruction takes text only: its images go to the first user turn.
        lead_media = sys.media();
    }
    let contents: Vec<Value> = if alternates(turns) {
        turns
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let role = if m.role == Role::Assistant {
                    "model"
                } else {
                    "user"
                };
                let mut parts = Vec::new();
                if i == 0 {
                    parts.extend(media_parts(&lead_media, &mut warnings));
                }
                for part in m.parts() {
                    match part {
                        Part::Text { text } => parts.push(json!({"text": text})),
                        Part::ImageUrl { image_url } => {
                            parts.extend(media_parts(&[image_url.url], &mut warnings));
                        }
                    }
                }
                json!({"role": role, "parts": parts})
            })
            .collect()
    } else {
        let folded = fold(msgs);
        let mut refs = lead_media;
        refs.extend(folded.media.iter().cloned());
        let mut parts = Vec::new();
        if let Some(h) = folded.history() {
            parts.push(json!({"text": h}));
        }
        parts.extend(media_parts(&refs, &mut warnings));
        if parts.is_empty() {
            Vec::new()
        } else {
            vec![json!({"role": "user", "parts": parts})]
        }
    };
    value.insert("contents".into(), Value::Array(contents));
    Formatted {
        value: Value::Object(value),
        warnings,
    }
}
