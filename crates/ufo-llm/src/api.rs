//! The providers, one row each: what an `API_TYPE` is called, which wire
//! format it speaks, where it lives by default, how it authenticates, how its
//! prices are keyed and what it cannot do. Everything that differs between
//! providers reads this table ([`ApiType::info`]); adding a provider that
//! speaks an existing wire format is one [`ApiType`] variant and one row.
//! This module depends on nothing else in the crate.

/// UFO's `API_TYPE` values (lower-cased before lookup, as UFO does), plus `zhipu`
/// and `replay`. A config file must name one; `OpenAi` is only the default
/// of an [`LlmConfig`](crate::LlmConfig) built in code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ApiType {
    /// OpenAI Chat Completions.
    #[default]
    OpenAi,
    /// Azure OpenAI with an `api-key` header.
    Aoai,
    /// Azure OpenAI with an Entra ID (Azure AD) bearer token.
    AzureAd,
    /// Qwen on DashScope: OpenAI-compatible mode by default, native when `API_BASE`
    /// contains `/api/v1`.
    Qwen,
    /// DeepSeek (OpenAI-shaped, text only).
    DeepSeek,
    /// Ollama's native `/api/chat`.
    Ollama,
    /// Google Gemini `generateContent`.
    Gemini,
    /// Anthropic Messages.
    Claude,
    /// Zhipu GLM (BigModel).
    Zhipu,
    /// Any OpenAI-compatible server (vLLM, llama.cpp, LM Studio); `API_BASE` required.
    Custom,
    /// Answers from a recorded cassette (`CASSETTE` or `API_BASE` is its path).
    Replay,
}

/// The wire format a provider speaks (one module of `provider/` each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI Chat Completions (`provider/openai.rs`).
    OpenAi,
    /// OpenAI-shaped, with Zhipu's own message format.
    Zhipu,
    /// DashScope: OpenAI-compatible mode, or native for `/api/v1` bases and
    /// the DashScope strategies (`provider/dashscope.rs`).
    Qwen,
    /// Ollama's `/api/chat` and `/api/generate` (`provider/ollama.rs`).
    Ollama,
    /// Gemini `generateContent` (`provider/gemini.rs`).
    Gemini,
    /// Anthropic Messages (`provider/anthropic.rs`).
    Anthropic,
    /// No HTTP: a recorded cassette.
    Replay,
}

/// How a provider is authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// Nothing is sent.
    None,
    /// `Authorization: Bearer API_KEY`, required.
    Bearer,
    /// `Authorization: Bearer API_KEY` when a key is set.
    OptionalBearer,
    /// The key in this header, required.
    Header(&'static str),
    /// An Azure AD (Entra ID) token as a bearer.
    AzureAdToken,
    /// `x-api-key` and `anthropic-version`.
    Anthropic,
}

/// One provider's row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiInfo {
    /// The variant this row describes (rows are in enum order).
    pub api: ApiType,
    /// The name written in configs, then accepted aliases.
    pub names: &'static [&'static str],
    /// Its wire format.
    pub wire: Wire,
    /// `API_BASE` when none is given; `None`: required.
    pub default_base: Option<&'static str>,
    /// What a missing `API_BASE` should be, for the error's help.
    pub base_hint: &'static str,
    /// A bare host (`http://host:port`) gets `/v1` before the endpoint.
    pub bare_host_v1: bool,
    /// Azure-style: the deployment is in the URL, `API_VERSION` required.
    pub azure: bool,
    /// How it authenticates.
    pub auth: Auth,
    /// The prefix of its price keys (`openai/gpt-4o`); `None`: the model alone.
    pub price_prefix: Option<&'static str>,
    /// Runs locally: calls cost nothing when no price is known.
    pub local: bool,
    /// Takes the OpenAI message shape (the `openai_chat` strategy applies).
    pub openai_shaped: bool,
    /// Takes images.
    pub vision: bool,
    /// Supports `response_format: json_schema` (else `json_object` is sent).
    pub json_schema: bool,
    /// A reasoning model's limit is `max_completion_tokens`.
    pub completion_tokens_key: bool,
    /// The model `ufo llm format` uses when none is given.
    pub default_model: &'static str,
    /// The `API_BASE` `ufo llm format` shows when none is configured.
    pub example_base: Option<&'static str>,
}

const fn row(api: ApiType, names: &'static [&'static str], wire: Wire) -> ApiInfo {
    ApiInfo {
        api,
        names,
        wire,
        default_base: None,
        base_hint: "",
        bare_host_v1: false,
        azure: false,
        auth: Auth::Bearer,
        price_prefix: None,
        local: false,
        openai_shaped: false,
        vision: true,
        json_schema: true,
        completion_tokens_key: false,
        default_model: "gpt-4o",
        example_base: None,
    }
}

const AZURE: ApiInfo = ApiInfo {
    base_hint: "https://<resource>.openai.azure.com",
    azure: true,
    price_prefix: Some("azure"),
    openai_shaped: true,
    completion_tokens_key: true,
    example_base: Some("https://YOUR-RESOURCE.openai.azure.com"),
    ..row(ApiType::Aoai, &["aoai"], Wire::OpenAi)
};

/// The rows, in [`ApiType`] order.
const TABLE: [ApiInfo; ApiType::ALL.len()] = [
    ApiInfo {
        default_base: Some("https://api.openai.com/v1"),
        bare_host_v1: true,
        price_prefix: Some("openai"),
        openai_shaped: true,
        completion_tokens_key: true,
        ..row(ApiType::OpenAi, &["openai"], Wire::OpenAi)
    },
    ApiInfo {
        auth: Auth::Header("api-key"),
        ..AZURE
    },
    ApiInfo {
        api: ApiType::AzureAd,
        names: &["azure_ad"],
        auth: Auth::AzureAdToken,
        ..AZURE
    },
    ApiInfo {
        default_base: Some("https://dashscope.aliyuncs.com/compatible-mode/v1"),
        price_prefix: Some("qwen"),
        openai_shaped: true,
        default_model: "qwen-vl-max",
        ..row(ApiType::Qwen, &["qwen", "dashscope"], Wire::Qwen)
    },
    ApiInfo {
        default_base: Some("https://api.deepseek.com/v1"),
        bare_host_v1: true,
        price_prefix: Some("deepseek"),
        openai_shaped: true,
        vision: false,
        json_schema: false,
        default_model: "deepseek-chat",
        ..row(ApiType::DeepSeek, &["deepseek"], Wire::OpenAi)
    },
    ApiInfo {
        default_base: Some("http://localhost:11434"),
        auth: Auth::None,
        local: true,
        default_model: "llama3.2-vision",
        ..row(ApiType::Ollama, &["ollama"], Wire::Ollama)
    },
    ApiInfo {
        default_base: Some("https://generativelanguage.googleapis.com/v1beta"),
        auth: Auth::Header("x-goog-api-key"),
        price_prefix: Some("gemini"),
        default_model: "gemini-2.0-flash",
        ..row(ApiType::Gemini, &["gemini"], Wire::Gemini)
    },
    ApiInfo {
        default_base: Some("https://api.anthropic.com/v1"),
        auth: Auth::Anthropic,
        price_prefix: Some("claude"),
        default_model: "claude-3-5-sonnet-latest",
        ..row(ApiType::Claude, &["claude", "anthropic"], Wire::Anthropic)
    },
    ApiInfo {
        default_base: Some("https://open.bigmodel.cn/api/paas/v4"),
        price_prefix: Some("zhipu"),
        openai_shaped: true,
        default_model: "glm-4v",
        ..row(ApiType::Zhipu, &["zhipu", "zhipuai", "glm"], Wire::Zhipu)
    },
    ApiInfo {
        base_hint: "the server's OpenAI-compatible base URL, e.g. http://localhost:8000/v1",
        bare_host_v1: true,
        auth: Auth::OptionalBearer,
        openai_shaped: true,
        default_model: "local-model",
        example_base: Some("http://localhost:8000/v1"),
        // UFO's docs say `custom_model`; the code says `custom`.
        ..row(ApiType::Custom, &["custom", "custom_model"], Wire::OpenAi)
    },
    ApiInfo {
        auth: Auth::None,
        local: true,
        ..row(ApiType::Replay, &["replay"], Wire::Replay)
    },
];

const fn names() -> [&'static str; ApiType::ALL.len()] {
    let mut out = [""; ApiType::ALL.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = TABLE[i].names[0];
        i += 1;
    }
    out
}

const NAMES: [&str; ApiType::ALL.len()] = names();

impl ApiType {
    /// Every provider, in table order.
    pub const ALL: [ApiType; 11] = [
        ApiType::OpenAi,
        ApiType::Aoai,
        ApiType::AzureAd,
        ApiType::Qwen,
        ApiType::DeepSeek,
        ApiType::Ollama,
        ApiType::Gemini,
        ApiType::Claude,
        ApiType::Zhipu,
        ApiType::Custom,
        ApiType::Replay,
    ];

    /// Every accepted value, as written in agents.yaml.
    pub const NAMES: &'static [&'static str] = &NAMES;

    /// The provider's row.
    pub fn info(self) -> &'static ApiInfo {
        &TABLE[self as usize]
    }

    /// The lower-case name used in config, logs and price keys.
    pub fn name(self) -> &'static str {
        self.info().names[0]
    }

    /// The provider a name or alias means (any case, surrounding spaces
    /// ignored).
    pub fn from_name(s: &str) -> Option<Self> {
        let s = s.trim().to_ascii_lowercase();
        TABLE
            .iter()
            .find(|r| r.names.contains(&s.as_str()))
            .map(|r| r.api)
    }
}

impl std::fmt::Display for ApiType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_enum_order_and_names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for (i, api) in ApiType::ALL.iter().enumerate() {
            assert_eq!(TABLE[i].api, *api, "row {i}");
            assert_eq!(*api as usize, i);
            for n in TABLE[i].names {
                assert!(seen.insert(*n), "{n} twice");
                assert_eq!(ApiType::from_name(&n.to_uppercase()), Some(*api));
            }
        }
        assert_eq!(ApiType::NAMES[2], "azure_ad");
        assert_eq!(ApiType::from_name(" Anthropic "), Some(ApiType::Claude));
        assert_eq!(ApiType::from_name("gpt"), None);
        assert_eq!(ApiType::AzureAd.info().auth, Auth::AzureAdToken);
        assert_eq!(ApiType::Aoai.info().auth, Auth::Header("api-key"));
    }
}
