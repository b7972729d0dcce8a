//! Formatting strategies: pure functions from [`Msg`]s to the message structure a
//! provider's API takes.
//!
//! Two families live here:
//!
//! * **AgentScope's strategies** (`seeds/prompt-formatting.txt`), reproduced exactly
//!   and golden-tested: [`openai::openai_chat`], [`dashscope::dashscope_chat`],
//!   [`dashscope::dashscope_multimodal`], [`ollama::ollama_chat`],
//!   [`ollama::ollama_generate`], [`gemini::gemini_chat`], [`zhipu::zhipuai_chat`].
//!   Where an API forbids consecutive or non-user/assistant roles, the dialogue is
//!   folded into one user turn:
//!   a leading system message stays the system prompt, every other message becomes a
//!   line `"{name}: {text}"` under `"## Dialogue History"`.
//! * **Native** formatting, used for UFO's `API_TYPE`s: messages are sent role by
//!   role in the provider's own shape (system prompt where the API wants it, images
//!   as the API takes them). When the API's role rules are broken (anything but
//!   strictly alternating user/assistant turns starting and ending with the user, on
//!   APIs that require that), it falls back to the same folding.
//!
//! Invalid image references are ignored with a warning in [`Formatted::warnings`]
//! (see [`crate::media`]).

pub mod anthropic;
pub mod dashscope;
pub mod gemini;
pub mod ollama;
pub mod openai;
pub mod zhipu;

use serde_json::Value;

use crate::config::ApiType;
use crate::message::{Msg, Role};

/// The result of a formatting strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct Formatted {
    /// The formatted prompt (its shape depends on the strategy).
    pub value: Value,
    /// Ignored images and other non-fatal problems.
    pub warnings: Vec<String>,
}

/// A formatting strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// The provider's native message shape (UFO's `API_TYPE`s).
    Native,
    /// AgentScope `OpenAIChatWrapper`.
    OpenAiChat,
    /// AgentScope `DashScopeChatWrapper`.
    DashScopeChat,
    /// AgentScope `DashScopeMultiModalWrapper`.
    DashScopeMultimodal,
    /// AgentScope `OllamaChatWrapper`.
    OllamaChat,
    /// AgentScope `OllamaGenerationWrapper`.
    OllamaGenerate,
    /// AgentScope `GeminiChatWrapper`.
    GeminiChat,
    /// AgentScope `ZhipuAIChatWrapper`.
    ZhipuAiChat,
}

impl Strategy {
    /// The AgentScope model types accepted by `ufo llm format --api`.
    pub const AGENTSCOPE_NAMES: &'static [&'static str] = &[
        "openai_chat",
        "dashscope_chat",
        "dashscope_multimodal",
        "ollama_chat",
        "ollama_generate",
        "gemini_chat",
        "zhipuai_chat",
    ];

    /// The provider and strategy of an AgentScope model type name.
    pub fn from_agentscope(name: &str) -> Option<(ApiType, Self)> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "openai_chat" => (ApiType::OpenAi, Self::OpenAiChat),
            "dashscope_chat" => (ApiType::Qwen, Self::DashScopeChat),
            "dashscope_multimodal" => (ApiType::Qwen, Self::DashScopeMultimodal),
            "ollama_chat" => (ApiType::Ollama, Self::OllamaChat),
            "ollama_generate" => (ApiType::Ollama, Self::OllamaGenerate),
            "gemini_chat" => (ApiType::Gemini, Self::GeminiChat),
            "zhipuai_chat" => (ApiType::Zhipu, Self::ZhipuAiChat),
            _ => return None,
        })
    }
}

/// The header that starts a folded dialogue.
pub const DIALOGUE_HISTORY: &str = "## Dialogue History";

/// A dialogue folded for a one-turn API.
#[derive(Debug, Clone, Default)]
pub(crate) struct Folded<'a> {
    /// The first message, when its role is system.
    pub(crate) system: Option<&'a Msg>,
    /// `"{name}: {text}"` for every other message.
    pub(crate) lines: Vec<String>,
    /// Media references of every other message, in order.
    pub(crate) media: Vec<String>,
}

impl Folded<'_> {
    /// `"## Dialogue History\n" + lines`, or `None` when there are no lines.
    pub(crate) fn history(&self) -> Option<String> {
        (!self.lines.is_empty()).then(|| format!("{DIALOGUE_HISTORY}\n{}", self.lines.join("\n")))
    }

    /// The system text, if any.
    pub(crate) fn system_text(&self) -> Option<String> {
        self.system.map(Msg::text)
    }
}

/// Folds messages: a *leading* system message is kept apart; every other message
/// (a later system message included) becomes a dialogue line.
pub(crate) fn fold(msgs: &[Msg]) -> Folded<'_> {
    let mut out = Folded::default();
    for (i, m) in msgs.iter().enumerate() {
        if i == 0 && m.role == Role::System {
            out.system = Some(m);
        } else {
            out.lines.push(format!("{}: {}", m.speaker(), m.text()));
            out.media.extend(m.media());
        }
    }
    out
}

/// Splits a leading system message off.
pub(crate) fn split_system(msgs: &[Msg]) -> (Option<&Msg>, &[Msg]) {
    match msgs.split_first() {
        Some((first, rest)) if first.role == Role::System => (Some(first), rest),
        _ => (None, msgs),
    }
}

/// Whether `turns` strictly alternate user/assistant, starting and ending with
/// the user — what DashScope, Gemini and Anthropic require.
pub(crate) fn alternates(turns: &[Msg]) -> bool {
    !turns.is_empty()
        && turns.first().map(|m| m.role) == Some(Role::User)
        && turns.last().map(|m| m.role) == Some(Role::User)
        && turns.iter().enumerate().all(|(i, m)| {
            m.role
                == if i % 2 == 0 {
                    Role::User
                } else {
                    Role::Assistant
                }
        })
}

/// Runs one of AgentScope's strategies (`model` decides vision for
/// [`Strategy::OpenAiChat`]). [`Strategy::Native`] depends on the provider: use
/// [`crate::provider::build`] for it.
pub fn format_agentscope(
    strategy: Strategy,
    model: &str,
    msgs: &[Msg],
) -> Result<Formatted, crate::LlmError> {
    Ok(match strategy {
        Strategy::OpenAiChat => openai::openai_chat(msgs, openai::is_vision_model(model)),
        Strategy::DashScopeChat => dashscope::dashscope_chat(msgs),
        Strategy::DashScopeMultimodal => dashscope::dashscope_multimodal(msgs),
        Strategy::OllamaChat => ollama::ollama_chat(msgs),
        Strategy::OllamaGenerate => ollama::ollama_generate(msgs),
        Strategy::GeminiChat => gemini::gemini_chat(msgs),
        Strategy::ZhipuAiChat => zhipu::zhipuai_chat(msgs),
        Strategy::Native => {
            return Err(crate::LlmError::config(
                "API_TYPE",
                "native formatting depends on the provider; use provider::build",
            ));
        }
    })
}
