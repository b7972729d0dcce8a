//! Google Gemini `contents`.
//!
//! AgentScope's `GeminiChatWrapper` strategy folds the dialogue into one user turn:
//! the system text, a newline, then `"## Dialogue History\n{name}: {text}\n…"`.
//! Its `parts` are plain strings as the Python SDK takes them; the REST body
//! (see `crate::provider`) wraps them as `{"text": …}`. Images, which the
//! AgentScope strategy does not support, are appended as `inline_data` (local files)
//! or `file_data` (web URLs, which the provider downloads and inlines).
//!
//! Native formatting puts the leading system message into `systemInstruction`,
//! maps assistant to `model`, and folds the rest into one user turn unless the turns
//! strictly alternate starting and ending with the user.

use serde_json::{Value, json};

use super::{Formatted, fold, native_turns};
use crate::media::{self, Media, MediaKind};
use crate::message::{Msg, Role};

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
    let mut warnings = Vec::new();
    let (text, refs) = fold(msgs).prompt("\n");
    let mut parts = vec![json!(text)];
    parts.extend(media_parts(&refs, &mut warnings));
    Formatted {
        value: json!([{"role": "user", "parts": parts}]),
        warnings,
    }
}

/// Native Gemini body fragment: `{"systemInstruction"?, "contents"}`.
pub fn native(msgs: &[Msg]) -> Formatted {
    let mut warnings = Vec::new();
    let (system, turns) = native_turns(
        msgs,
        &mut warnings,
        |text| Some(json!({"text": text})),
        media_parts,
    );
    let mut value = serde_json::Map::new();
    if let Some(sys) = system {
        // systemInstruction takes text only: its images go to the first user turn.
        value.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": sys.text()}]}),
        );
    }
    let contents = turns
        .into_iter()
        .map(|(role, parts)| {
            let role = if role == Role::Assistant {
                "model"
            } else {
                "user"
            };
            json!({"role": role, "parts": parts})
        })
        .collect();
    value.insert("contents".into(), Value::Array(contents));
    Formatted {
        value: Value::Object(value),
        warnings,
    }
}
