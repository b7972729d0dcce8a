//! OpenAI Chat Completions messages (also used by Azure, DeepSeek, Qwen's
//! OpenAI-compatible mode, Zhipu and any OpenAI-compatible server).
//!
//! AgentScope's `OpenAIChatWrapper` strategy: every message is passed as
//! `{role, name, content}`. For vision models, a message with images gets a list of
//! `text` and `image_url` parts; web URLs pass through, local files become
//! `data:` URIs; invalid references are ignored.

use serde_json::{Value, json};

use super::Formatted;
use crate::media::{self, MediaKind};
use crate::message::{Content, Msg, Part};

/// Models that take images (substring match on the lower-cased name).
const VISION_MARKERS: &[&str] = &[
    "gpt-4o",
    "gpt-4-turbo",
    "gpt-4-vision",
    "gpt-4.1",
    "gpt-4.5",
    "gpt-5",
    "o1",
    "o3",
    "o4",
    "vision",
    "vl",
    "glm-4v",
    "llava",
    "gemini",
    "claude",
    "qvq",
    "omni",
];

/// Whether `model` is a vision model, by name.
pub fn is_vision_model(model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    VISION_MARKERS.iter().any(|v| m.contains(v))
}

/// Makes a speaker name valid for OpenAI's `name` (`^[a-zA-Z0-9_-]{1,64}$`): other
/// characters become `_`. `None` when nothing usable is left.
pub fn sanitize_name(name: &str) -> Option<String> {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    (!s.trim_matches('_').is_empty()).then_some(s)
}

/// How image URLs are written into `image_url.url`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InlineStyle {
    /// `data:image/png;base64,…` (OpenAI and most compatible servers).
    DataUri,
    /// Raw base64 without the `data:` prefix (Zhipu GLM-4V).
    RawBase64,
}

/// AgentScope's OpenAI strategy. `vision` says whether the model takes images; for
/// other models, images are ignored with a warning.
pub fn openai_chat(msgs: &[Msg], vision: bool) -> Formatted {
    openai_messages(msgs, vision, InlineStyle::DataUri)
}

pub(crate) fn openai_messages(msgs: &[Msg], vision: bool, style: InlineStyle) -> Formatted {
    let mut warnings = Vec::new();
    let out = msgs
        .iter()
        .map(|m| {
            let mut obj = serde_json::Map::new();
            obj.insert("role".into(), json!(m.role.as_str()));
            if let Some(name) = m.name.as_deref().and_then(sanitize_name) {
                obj.insert("name".into(), json!(name));
            }
            obj.insert("content".into(), content(m, vision, style, &mut warnings));
            Value::Object(obj)
        })
        .collect();
    Formatted {
        value: Value::Array(out),
        warnings,
    }
}

fn content(m: &Msg, vision: bool, style: InlineStyle, warnings: &mut Vec<String>) -> Value {
    let media = m.media();
    if media.is_empty() {
        return match &m.content {
            Content::Text(t) => json!(t),
            Content::Parts(_) => Value::Array(
                m.parts()
                    .into_iter()
                    .filter_map(|p| match p {
                        Part::Text { text } => Some(json!({"type": "text", "text": text})),
                        Part::ImageUrl { .. } => None,
                    })
                    .collect(),
            ),
        };
    }
    if !vision {
        let w = format!(
            "{} image(s) of `{}` ignored: the model is not a vision model",
            media.len(),
            m.speaker()
        );
        tracing::warn!(target: "ufo_llm", "{w}");
        warnings.push(w);
        return json!(m.text());
    }
    let mut parts = Vec::new();
    for p in m.parts() {
        match p {
            Part::Text { text } => parts.push(json!({"type": "text", "text": text})),
            Part::ImageUrl { image_url } => {
                match media::resolve(&image_url.url, &[MediaKind::Image]) {
                    Ok(resolved) => {
                        let url = match (&resolved, style) {
                            (media::Media::Inline { data, .. }, InlineStyle::RawBase64) => {
                                data.clone()
                            }
                            _ => resolved.to_url(),
                        };
                        let mut img = json!({"url": url});
                        if let Some(d) = image_url.detail {
                            img["detail"] = json!(d);
                        }
                        parts.push(json!({"type": "image_url", "image_url": img}));
                    }
                    Err(w) => {
                        tracing::warn!(target: "ufo_llm", "{w}");
                        warnings.push(w);
                    }
                }
            }
        }
    }
    Value::Array(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitised() {
        assert_eq!(sanitize_name("Bob Smith").as_deref(), Some("Bob_Smith"));
        assert_eq!(sanitize_name("Alice").as_deref(), Some("Alice"));
        assert_eq!(sanitize_name("小明"), None);
        assert_eq!(sanitize_name(&"x".repeat(80)).map(|s| s.len()), Some(64));
    }

    #[test]
    fn vision_models() {
        assert!(is_vision_model("gpt-4o"));
        assert!(!is_vision_model("gpt-4"));
        assert!(!is_vision_model("deepseek-chat"));
    }
}
