//! Anthropic Messages: `system` at the top level, `messages` of user/assistant turns
//! with `text` and `image` blocks.
//!
//! Images: local files and `data:` URIs become `base64` sources, web URLs `url`
//! sources; media types other than jpeg, png, gif and webp are ignored with a
//! warning (the API rejects them). Turns that do not strictly alternate, starting
//! and ending with the user, are folded into one user message (as UFO does).

use serde_json::{Value, json};

use super::{Formatted, native_turns};
use crate::media::{self, Media, MediaKind};
use crate::message::Msg;

const ACCEPTED: &[&str] = &["image/jpeg", "image/png", "image/gif", "image/webp"];

fn image_blocks(refs: &[String], warnings: &mut Vec<String>) -> Vec<Value> {
    media::resolve_all(refs, &[MediaKind::Image], warnings)
        .into_iter()
        .filter_map(|m| match m {
            Media::Inline { mime, data, .. } if ACCEPTED.contains(&mime.as_str()) => Some(
                json!({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}),
            ),
            Media::Inline { mime, .. } => {
                warnings.push(format!("ignored an image of type {mime}: Anthropic takes jpeg, png, gif and webp"));
                None
            }
            Media::Url { url, .. } => Some(json!({"type": "image", "source": {"type": "url", "url": url}})),
        })
        .collect()
}

/// Native Anthropic body fragment: `{"system"?, "messages"}`.
pub fn native(msgs: &[Msg]) -> Formatted {
    let mut warnings = Vec::new();
    let (system, turns) = native_turns(
        msgs,
        &mut warnings,
        |text| (!text.is_empty()).then(|| json!({"type": "text", "text": text})),
        image_blocks,
    );
    let mut value = serde_json::Map::new();
    if let Some(sys) = system {
        value.insert("system".into(), json!(sys.text()));
    }
    let messages = turns
        .into_iter()
        .map(|(role, blocks)| json!({"role": role.as_str(), "content": blocks}))
        .collect();
    value.insert("messages".into(), Value::Array(messages));
    Formatted {
        value: Value::Object(value),
        warnings,
    }
}
