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
//! (see `crate::media`).

pub mod anthropic;
pub mod dashscope;
pub mod gemini;
pub mod ollama;
pub mod openai;
pub mod zhipu;

use serde_json::{Value, json};

use crate::api::ApiType;
use crate::error::LlmError;
use crate::message::{Msg, Part, Role};

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
    pub const AGENTSCOPE_NAMES: &'static [&'static str] = crate::names::AGENTSCOPE_MODEL_TYPES;

    /// The provider an AgentScope strategy formats for (`None` for
    /// [`Strategy::Native`]; `openai_chat` also suits every OpenAI-shaped
    /// provider).
    pub fn home(self) -> Option<ApiType> {
        Some(match self {
            Self::Native => return None,
            Self::OpenAiChat => ApiType::OpenAi,
            Self::DashScopeChat | Self::DashScopeMultimodal => ApiType::Qwen,
            Self::OllamaChat | Self::OllamaGenerate => ApiType::Ollama,
            Self::GeminiChat => ApiType::Gemini,
            Self::ZhipuAiChat => ApiType::Zhipu,
        })
    }

    /// The model AgentScope's examples use with this strategy (what
    /// `ufo llm format` assumes when none is given).
    pub fn default_model(self) -> Option<&'static str> {
        match self {
            Self::DashScopeChat => Some("qwen-max"),
            Self::DashScopeMultimodal => Some("qwen-vl-plus"),
            Self::OllamaChat | Self::OllamaGenerate => Some("llama2"),
            Self::GeminiChat => Some("gemini-pro"),
            Self::ZhipuAiChat => Some("glm-4"),
            Self::Native | Self::OpenAiChat => None,
        }
    }

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

    /// AgentScope's one-string prompt (Gemini, Ollama): the system text and the
    /// history joined by `sep`, and every media reference, the system message's
    /// first.
    pub(crate) fn prompt(&self, sep: &str) -> (String, Vec<String>) {
        let mut sections = Vec::new();
        let mut refs = Vec::new();
        if let Some(sys) = self.system {
            sections.push(sys.text());
            refs.extend(sys.media());
        }
        if let Some(history) = self.history() {
            sections.push(history);
        }
        refs.extend(self.media.iter().cloned());
        (sections.join(sep), refs)
    }
}

/// AgentScope's text-only strategies (DashScope chat, Zhipu): the system message,
/// then one user message holding the history; images are ignored with the warning
/// `"{n} image(s) ignored: {why}"`.
pub(crate) fn folded_text_only(msgs: &[Msg], why: &str) -> Formatted {
    let folded = fold(msgs);
    let mut out = Vec::new();
    if let Some(sys) = folded.system_text() {
        out.push(json!({"role": "system", "content": sys}));
    }
    if let Some(history) = folded.history() {
        out.push(json!({"role": "user", "content": history}));
    }
    let mut warnings = Vec::new();
    let media = msgs.iter().map(|m| m.media().len()).sum::<usize>();
    if media > 0 {
        warnings.push(format!("{media} image(s) ignored: {why}"));
    }
    Formatted {
        value: json!(out),
        warnings,
    }
}

/// The turns of an API that takes the system prompt apart and wants strictly
/// alternating user/assistant turns (Anthropic, Gemini), as `(role, blocks)`.
///
/// Alternating turns keep their parts in order, the leading system message's
/// images (the system prompt takes text only) at the front of the first turn.
/// Anything else is folded into one user turn: the history text, then every
/// image (none at all when both are empty). `text` makes a text block (`None`
/// drops it); `images` makes the blocks of image references, pushing warnings.
/// Also returns the leading system message.
pub(crate) fn native_turns<'a>(
    msgs: &'a [Msg],
    warnings: &mut Vec<String>,
    text: impl Fn(String) -> Option<Value>,
    images: impl Fn(&[String], &mut Vec<String>) -> Vec<Value>,
) -> (Option<&'a Msg>, Vec<(Role, Vec<Value>)>) {
    let (system, turns) = split_system(msgs);
    let lead_media = system.map(Msg::media).unwrap_or_default();
    if !alternates(turns) {
        let folded = fold(msgs);
        let mut refs = lead_media;
        refs.extend(folded.media.iter().cloned());
        let mut blocks: Vec<Value> = folded.history().and_then(&text).into_iter().collect();
        blocks.extend(images(&refs, warnings));
        let turns = if blocks.is_empty() {
            Vec::new()
        } else {
            vec![(Role::User, blocks)]
        };
        return (system, turns);
    }
    let turns = turns
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mut blocks = Vec::new();
            if i == 0 {
                blocks.extend(images(&lead_media, warnings));
            }
            for part in m.parts() {
                match part {
                    Part::Text { text: t } => blocks.extend(text(t)),
                    Part::ImageUrl { image_url } => {
                        blocks.extend(images(&[image_url.url], warnings));
                    }
                }
            }
            (m.role, blocks)
        })
        .collect();
    (system, turns)
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
/// `crate::provider::build` for it.
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

/// Checks that a strategy can be used with a provider: `native` always,
/// `openai_chat` with the OpenAI-shaped ones, the others with their own.
pub(crate) fn check_strategy(api: ApiType, strategy: Strategy) -> Result<(), LlmError> {
    let ok = match strategy {
        Strategy::Native => true,
        Strategy::OpenAiChat => api.info().openai_shaped,
        other => other.home() == Some(api),
    };
    if ok {
        Ok(())
    } else {
        Err(LlmError::config(
            "API_TYPE",
            format!("the {strategy:?} formatting strategy cannot be used with API_TYPE {api}"),
        ))
    }
}
