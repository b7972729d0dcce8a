//! DashScope (Qwen) native messages: text generation and multimodal generation.
//!
//! AgentScope's strategies: a leading system message becomes the system message;
//! all other messages are folded into one user message whose text is
//! `"## Dialogue History\n{name}: {text}\n…"`. The multimodal variant writes every
//! content as a list of single-key dicts (`text`, `image`, `audio`, `video`), the
//! system message's included, with media after the text.

use serde_json::{Value, json};

use super::{Formatted, alternates, fold, folded_text_only, split_system};
use crate::media::{self, Media, MediaKind};
use crate::message::{Msg, Part};

/// AgentScope's `DashScopeChatWrapper` strategy (text only; images are ignored with
/// a warning).
pub fn dashscope_chat(msgs: &[Msg]) -> Formatted {
    folded_text_only(
        msgs,
        "dashscope_chat is text-only (use dashscope_multimodal)",
    )
}

const MM_KINDS: &[MediaKind] = &[MediaKind::Image, MediaKind::Audio, MediaKind::Video];

/// One DashScope multimodal content item for a resolved media reference.
pub(crate) fn media_item(m: &Media) -> Value {
    let key = match m.kind() {
        MediaKind::Audio => "audio",
        MediaKind::Video => "video",
        _ => "image",
    };
    json!({ key: m.to_url() })
}

fn mm_content(text: String, refs: &[String], warnings: &mut Vec<String>) -> Value {
    let mut content = vec![json!({"text": text})];
    content.extend(
        media::resolve_all(refs, MM_KINDS, warnings)
            .iter()
            .map(media_item),
    );
    Value::Array(content)
}

/// AgentScope's `DashScopeMultiModalWrapper` strategy.
pub fn dashscope_multimodal(msgs: &[Msg]) -> Formatted {
    let folded = fold(msgs);
    let mut warnings = Vec::new();
    let mut out = Vec::new();
    if let Some(sys) = folded.system {
        out.push(json!({"role": "system", "content": mm_content(sys.text(), &sys.media(), &mut warnings)}));
    }
    if let Some(history) = folded.history() {
        out.push(
            json!({"role": "user", "content": mm_content(history, &folded.media, &mut warnings)}),
        );
    }
    Formatted {
        value: json!(out),
        warnings,
    }
}

/// Native DashScope messages. Returns the messages and whether the multimodal
/// endpoint must be used (any media, or `multimodal` forced by the model).
///
/// Strictly alternating user/assistant turns are sent as they are; anything else is
/// folded with the AgentScope strategy.
pub fn native(msgs: &[Msg], multimodal: bool) -> (Formatted, bool) {
    let multimodal = multimodal || msgs.iter().any(|m| !m.media().is_empty());
    let (system, turns) = split_system(msgs);
    if !alternates(turns) {
        let f = if multimodal {
            dashscope_multimodal(msgs)
        } else {
            dashscope_chat(msgs)
        };
        return (f, multimodal);
    }
    let mut warnings = Vec::new();
    let out: Vec<Value> = system
        .into_iter()
        .chain(turns)
        .map(|m| {
            let content = if multimodal {
                let mut items = Vec::new();
                for part in m.parts() {
                    match part {
                        Part::Text { text } => items.push(json!({"text": text})),
                        Part::ImageUrl { image_url } => items.extend(
                            media::resolve_all(&[image_url.url], MM_KINDS, &mut warnings)
                                .iter()
                                .map(media_item),
                        ),
                    }
                }
                Value::Array(items)
            } else {
                json!(m.text())
            };
            json!({"role": m.role.as_str(), "content": content})
        })
        .collect();
    (
        Formatted {
            value: json!(out),
            warnings,
        },
        multimodal,
    )
}
