//! Anthropic Messages: `system` at the top level, `messages` of user/assistant turns
//! with `text` and `image` blocks.
//!
//! Images: local files and `data:` URIs become `base64` sources, web URLs `url`
//! sources; media types other than jpeg, png, gif and webp are ignored with a
//! warning (the API rejects them). Turns that do not strictly alternate, starting
//! and ending with the user, are folded into one user message (as UFO does).

use serde_json::{Value, json};

use super::{Formatted, alternates, fold, split_system};
use crate::media::{self, Media, MediaKind};
use crate::message::{Msg, Part};

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
    let (system, turns) = split_system(msgs);
    let mut warnings = Vec::new();
    let mut value = serde_json::Map::new();
    let mut lead_media = Vec::new();
    if let Some(sys) = system {
        value.insert("system".into(), json!(sys.text()));
        lead_media = sys.media();
    }
    let messages: Vec<Value> = if alternates(turns) {
        turns
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let mut blocks = Vec::new();
                if i == 0 {
                    blocks.extend(image_blocks(&lead_media, &mut warnings));
                }
                for part in m.parts() {
                    match part {
                        Part::Text { text } if !text.is_empty() => {
                            blocks.push(json!({"type": "text", "text": text}));
                        }
                        Part::Text { .. } => {}
                        Part::ImageUrl { image_url } => {
                            blocks.extend(image_blocks(&[image_url.url], &mut warnings));
                        }
                    }
                }
                json!({"role": m.role.as_str(), "content": blocks})
            })
            .collect()
    } else {
        let folded = fold(msgs);
        let mut refs = lead_media;
        refs.extend(folded.media.iter().cloned());
        let mut blocks = Vec::new();
        if let Some(h) = folded.history() {
            blocks.push(json!({"type": "text", "text": h}));
        }
        blocks.extend(image_blocks(&refs, &mut warnings));
        if blocks.is_empty() {
            Vec::new()
        } else {
            vec![json!({"role": "user", "content": blocks})]
        }
    };
    value.insert("messages".into(), Value::Array(messages));
    Formatted {
        value: Value::Object(value),
        warnings,
    }
}
