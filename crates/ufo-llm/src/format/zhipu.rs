//! Zhipu GLM (BigModel) chat messages.
//!
//! AgentScope's `ZhipuAIChatWrapper` strategy is DashScope's: a leading system
//! message stays a system message, the rest is folded into one user message under
//! `"## Dialogue History"`. Native formatting is OpenAI-shaped with raw base64
//! images (GLM-4V), folded when there is no user message (the API needs one).

use super::openai::{InlineStyle, is_vision_model, openai_messages};
use super::{Formatted, folded_text_only};
use crate::message::{Msg, Role};

/// AgentScope's ZhipuAI strategy.
pub fn zhipuai_chat(msgs: &[Msg]) -> Formatted {
    folded_text_only(msgs, "zhipuai_chat is text-only")
}

/// Native Zhipu messages for `model`.
pub fn native(msgs: &[Msg], model: &str) -> Formatted {
    if !msgs.iter().any(|m| m.role == Role::User) {
        return zhipuai_chat(msgs);
    }
    openai_messages(msgs, is_vision_model(model), InlineStyle::RawBase64)
}
