//! Ollama native messages (`/api/chat`) and prompts (`/api/generate`).
//!
//! AgentScope's strategies fold everything into one string: the leading system
//! message, a blank line, then `"## Dialogue History\n{name}: {text}\n…"`; every
//! message's media are gathered into one `images` list. Ollama wants images as raw
//! base64 (no `data:` prefix): local files are encoded here; web URLs are kept as
//! given and inlined by the provider before sending (or noted in a dry run).

use serde_json::{Value, json};

use super::{Formatted, fold};
use crate::media::{self, Media, MediaKind};
use crate::message::Msg;

fn images(refs: &[String], warnings: &mut Vec<String>) -> Vec<Value> {
    media::resolve_all(refs, &[MediaKind::Image], warnings)
        .into_iter()
        .map(|m| match m {
            Media::Inline { data, .. } => json!(data),
            Media::Url { url, .. } => json!(url),
        })
        .collect()
}

fn folded_prompt(msgs: &[Msg], warnings: &mut Vec<String>) -> (String, Vec<Value>) {
    let (prompt, refs) = fold(msgs).prompt("\n\n");
    (prompt, images(&refs, warnings))
}

/// AgentScope's `OllamaChatWrapper` strategy: one system message.
pub fn ollama_chat(msgs: &[Msg]) -> Formatted {
    let mut warnings = Vec::new();
    let (content, imgs) = folded_prompt(msgs, &mut warnings);
    let mut msg = json!({"role": "system", "content": content});
    if !imgs.is_empty() {
        msg["images"] = Value::Array(imgs);
    }
    Formatted {
        value: json!([msg]),
        warnings,
    }
}

/// AgentScope's `OllamaGenerationWrapper` strategy: `{"prompt": str, "images"?: […]}`.
pub fn ollama_generate(msgs: &[Msg]) -> Formatted {
    let mut warnings = Vec::new();
    let (prompt, imgs) = folded_prompt(msgs, &mut warnings);
    let mut value = json!({"prompt": prompt});
    if !imgs.is_empty() {
        value["images"] = Value::Array(imgs);
    }
    Formatted { value, warnings }
}

/// Native Ollama chat messages: role by role, images on the message (Ollama accepts
/// any role order).
pub fn native(msgs: &[Msg]) -> Formatted {
    let mut warnings = Vec::new();
    let out = msgs
        .iter()
        .map(|m| {
            let mut msg = json!({"role": m.role.as_str(), "content": m.text()});
            let imgs = images(&m.media(), &mut warnings);
            if !imgs.is_empty() {
                msg["images"] = Value::Array(imgs);
            }
            msg
        })
        .collect();
    Formatted {
        value: Value::Array(out),
        warnings,
    }
}
