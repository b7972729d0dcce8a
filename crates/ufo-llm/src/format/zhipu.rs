//! Zhipu GLM (BigModel) chat messages.
//!
//! AgentScope's `ZhipuAIChatWrapper` strategy is DashScope's: a leading system
//! message stays a system message, the rest is folded into one user message under
//! `"## Dialogue History"`. Native formatting is OpenAI-shaped with raw base64
//! images (GLM-4V), folded when there is no user message (the API needs one).

use serde_json::json;

use super::openai::{InlineStyle, is_vision_model, openai_messages};
use super::{Formatted, fold};
use crate::message::{Msg, Role};

/// AgentScope's ZhipuAI strategy.
pub fn zhipuai_chat(msgs: &[Msg]) -> Formatted {
    let folded = fold(msgs);
    let mut warnings = Vec::new();
    let mut out = Vec::new();
    if let Some(sys) = folded.system_text() {
        out.push(json!({"role": "system", "content": sys}));
    }
    if let Some(history) = folded.history() {
        out.push(json!({"role": "user", "content": history}));
    }
    let media = msgs.iter().map(|m| m.media().len()).sum::<usize>();
    if media > 0 {
        warnings.push(format!(
            "{media} image(s) ignored: zhipuai_chat is text-only"
        ));
    }
    Formatted {
        value: json!(out),
        warnings,
    }
}

/// Native Zhipu messages for `model`.
pub fn native(msgs: &[Msg], model: &str) -> Formatted {
    if !msgs.iter().any(|m| m.role == Role::User) {
        return zhipuai_chat(msgs);
    }
    openai_messages(msgs, is_vision_model(model), InlineStyle::RawBase64)
}
