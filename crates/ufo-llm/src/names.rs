//! Names a user can write, listed once: every module that accepts or mentions
//! them reads them from here.

/// Every accepted `API_TYPE`, as written in agents.yaml.
pub const API_TYPES: &[&str] = &[
    "openai", "aoai", "azure_ad", "qwen", "deepseek", "ollama", "gemini", "claude", "zhipu",
    "custom", "replay",
];

/// The AgentScope model types accepted by `ufo llm format --api`.
pub const AGENTSCOPE_MODEL_TYPES: &[&str] = &[
    "openai_chat",
    "dashscope_chat",
    "dashscope_multimodal",
    "ollama_chat",
    "ollama_generate",
    "gemini_chat",
    "zhipuai_chat",
];
