//! Names a user can write, listed once: every module that accepts or mentions
//! them reads them from here.

/// The AgentScope model types accepted by `ufo llm format --api`.
pub(crate) const AGENTSCOPE_MODEL_TYPES: &[&str] = &[
    "openai_chat",
    "dashscope_chat",
    "dashscope_multimodal",
    "ollama_chat",
    "ollama_generate",
    "gemini_chat",
    "zhipuai_chat",
];
