//! One agent's model section of UFO's `agents.yaml` (`HOST_AGENT`, `APP_AGENT`,
//! `BACKUP_AGENT`, …), with UFO's upper-case key names.
//!
//! ```yaml
//! APP_AGENT:
//!   VISUAL_MODE: True
//!   API_TYPE: "aoai"
//!   API_BASE: "https://myres.openai.azure.com"
//!   API_KEY: "..."
//!   API_VERSION: "2024-02-15-preview"
//!   API_MODEL: "gpt-4o"
//!   API_DEPLOYMENT_ID: "gpt-4o-20240513"
//! ```
//!
//! Keys beyond UFO's (all optional): `AAD_TOKEN_ENV` / `AAD_TOKEN_COMMAND` (how
//! `azure_ad` gets its bearer token), `CASSETTE` (the file for `API_TYPE: replay`),
//! `RETRY_BASE_DELAY_MS` / `RETRY_MAX_DELAY_MS` (backoff). `API_TYPE` is read
//! into its type when the section is, so a wrong one is an error naming the key
//! and listing the accepted values. Keys this struct does not hold are skipped
//! here; the session's config loader names them.

use std::str::FromStr;
use std::time::Duration;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

use crate::error::LlmError;
use crate::redact::Secret;
use crate::retry::RetryPolicy;

pub use crate::api::ApiType;

impl FromStr for ApiType {
    type Err = LlmError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ApiType::from_name(s).ok_or_else(|| LlmError::UnknownApiType {
            value: s.to_owned(),
        })
    }
}

impl<'de> Deserialize<'de> for ApiType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        ApiType::from_name(&s).ok_or_else(|| {
            D::Error::custom(format!(
                "{s:?} is not a provider; use one of: {}",
                ApiType::NAMES.join(", ")
            ))
        })
    }
}

/// One agent's model configuration (a section of `agents.yaml`), plus the LLM keys
/// of `system.yaml` (`MAX_TOKENS`, `TEMPERATURE`, `TOP_P`, `TIMEOUT`, `MAX_RETRY`)
/// that the config loader merges in.
///
/// `A` is what `API_TYPE` names: a provider ([`ApiType`]) in the agent
/// sections, a computer-use format
/// ([`ComputerApi`](crate::computer::ComputerApi)) in `OPERATOR`.
///
/// `Debug` never shows `API_KEY` (a [`Secret`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(
    rename_all = "SCREAMING_SNAKE_CASE",
    expecting = "a map of agent keys (API_TYPE, API_MODEL, ...)"
)]
pub struct LlmConfig<A = ApiType> {
    /// Whether screenshots go into the prompt.
    pub visual_mode: Option<bool>,
    /// If true, `temperature` and `top_p` are not sent (o1/o3/o4-mini, gpt-5).
    #[serde(default)]
    pub reasoning_model: bool,
    /// `API_TYPE`: the provider (case-insensitive, any of [`ApiType::NAMES`]).
    pub api_type: A,
    /// The endpoint; see each provider for what it may contain.
    pub api_base: Option<String>,
    /// The key (ignored by Ollama; not used by `azure_ad`).
    #[serde(default)]
    pub api_key: Secret,
    /// `api-version` for Azure; `anthropic-version` for Claude.
    pub api_version: Option<String>,
    /// The model name.
    pub api_model: Option<String>,
    /// The Azure deployment (selects the model on `aoai`/`azure_ad`).
    pub api_deployment_id: Option<String>,
    /// OpenAI Responses API (not implemented: Chat Completions is used; a warning is logged).
    #[serde(default)]
    pub use_responses: bool,
    /// Azure AD tenant.
    pub aad_tenant_id: Option<String>,
    /// Azure AD scope.
    pub aad_api_scope: Option<String>,
    /// Azure AD scope base: the token scope is `api://{AAD_API_SCOPE_BASE}/.default`.
    pub aad_api_scope_base: Option<String>,
    /// Environment variable holding an Azure AD bearer token (`azure_ad`).
    pub aad_token_env: Option<String>,
    /// Command printing an Azure AD bearer token on stdout (`azure_ad`).
    pub aad_token_command: Option<String>,
    /// Maximum output tokens.
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Nucleus sampling.
    pub top_p: Option<f64>,
    /// `TIMEOUT`: the request timeout, written in seconds, more than 0 and
    /// at most an hour (UFO default 60).
    #[serde(
        default,
        deserialize_with = "ufo_core::de::opt_duration::<_, 0, 3600, false>"
    )]
    pub timeout: Option<Duration>,
    /// `PRIVATE_IMAGE_URLS` (false): images a message links to may be
    /// downloaded from loopback and private addresses too (an image server
    /// on your network). Off, only public addresses are fetched: a linked
    /// image cannot make ufo read a local service or a cloud's metadata.
    #[serde(default)]
    pub private_image_urls: bool,
    /// Retries after the first attempt on 429/5xx/timeouts (UFO default 20; ours 3).
    pub max_retry: Option<u32>,
    /// First backoff delay in milliseconds (default 500).
    pub retry_base_delay_ms: Option<u64>,
    /// Longest backoff delay, also the cap on `Retry-After`, in milliseconds (default 8000).
    pub retry_max_delay_ms: Option<u64>,
    /// The cassette file for `API_TYPE: replay`.
    pub cassette: Option<String>,
    /// `REPLAY_MATCH`: how a cassette is matched (`sequential`, else exact).
    pub replay_match: Option<String>,
    /// An AgentScope formatting strategy (`openai_chat`, `dashscope_chat`,
    /// `dashscope_multimodal`, `ollama_chat`, `ollama_generate`,
    /// `gemini_chat`, `zhipuai_chat`) instead of the provider's native
    /// message shape; `native` or unset keeps the native one.
    pub format_strategy: Option<String>,
    /// `PROMPT`: the agent's prompt template.
    pub prompt: Option<String>,
    /// `EXAMPLE_PROMPT`: the agent's examples template.
    pub example_prompt: Option<String>,
    /// `EXAMPLE_PROMPT_AS`: the AppAgent's examples for `ACTION_SEQUENCE`.
    pub example_prompt_as: Option<String>,
}

pub use crate::retry::DEFAULT_MAX_RETRY;
/// Default request timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Most `MAX_RETRY` accepted.
pub const MAX_RETRIES: u32 = 100;
/// Longest retry delay accepted (`RETRY_*_DELAY_MS`): ten minutes.
pub const MAX_RETRY_DELAY_MS: u64 = 600_000;

impl LlmConfig {
    /// A config for `api_type` and `model` with everything else defaulted.
    pub fn new(api_type: ApiType, model: impl Into<String>) -> Self {
        Self {
            api_type,
            api_model: Some(model.into()),
            ..Self::default()
        }
    }

    /// Parses one agent section from YAML (the section's content, not the whole file).
    pub fn from_yaml(yaml: &str) -> Result<Self, LlmError> {
        let v: serde_json::Value =
            serde_saphyr::from_str(yaml).map_err(|e| LlmError::config_from("API_TYPE", e))?;
        Self::from_value(&v, "")
    }

    /// Reads one section (`HOST_AGENT`, `APP_AGENT`, `BACKUP_AGENT`, …) of a whole
    /// `agents.yaml`. Other sections may have any shape.
    pub fn from_agents_yaml(yaml: &str, section: &str) -> Result<Self, LlmError> {
        let all: serde_json::Value =
            serde_saphyr::from_str(yaml).map_err(|e| LlmError::config_from(section, e))?;
        let part = all
            .get(section)
            .ok_or_else(|| LlmError::config(section, "no such section in agents.yaml"))?;
        Self::from_value(part, section)
    }

    /// Reads a section found at key `at` ("" for none); an error names the
    /// key path of the value at fault (`APP_AGENT.TIMEOUT`).
    fn from_value(v: &serde_json::Value, at: &str) -> Result<Self, LlmError> {
        serde_path_to_error::deserialize(v).map_err(|e| {
            let path = e.path().to_string();
            let message = e.into_inner().to_string();
            let field = message
                .strip_prefix("missing field `")
                .and_then(|m| m.strip_suffix('`'))
                .unwrap_or_default();
            let key: Vec<&str> = [at, path.trim_start_matches('.'), field]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect();
            LlmError::config(key.join("."), message)
        })
    }

    /// The formatting strategy (`FORMAT_STRATEGY`), checked against the
    /// provider: an AgentScope strategy must belong to `API_TYPE`'s family.
    pub fn strategy(&self) -> Result<crate::format::Strategy, LlmError> {
        use crate::format::Strategy;
        let Some(name) = self
            .format_strategy
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty() && !s.eq_ignore_ascii_case("native"))
        else {
            return Ok(Strategy::Native);
        };
        let Some((_, strategy)) = Strategy::from_agentscope(name) else {
            return Err(LlmError::config(
                "FORMAT_STRATEGY",
                format!(
                    "{name:?} is not a formatting strategy; use native or one of {}",
                    Strategy::AGENTSCOPE_NAMES.join(", ")
                ),
            ));
        };
        let api = self.api_type;
        crate::format::check_strategy(api, strategy).map_err(|_| {
            LlmError::config(
                "FORMAT_STRATEGY",
                format!(
                    "{name} cannot be used with API_TYPE {api}; it formats for another provider"
                ),
            )
        })?;
        Ok(strategy)
    }

    /// The model name sent to the provider and used for prices. On Azure the
    /// deployment selects the model, so (as UFO does) `API_DEPLOYMENT_ID` wins.
    pub fn model(&self) -> Result<String, LlmError> {
        let non_empty = |s: &Option<String>| {
            s.as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        if matches!(self.api_type, ApiType::Aoai | ApiType::AzureAd) {
            if let Some(d) = non_empty(&self.api_deployment_id) {
                return Ok(d);
            }
            return Err(LlmError::config(
                "API_DEPLOYMENT_ID",
                "Azure OpenAI needs the deployment name",
            ));
        }
        non_empty(&self.api_model).ok_or_else(|| LlmError::config("API_MODEL", "missing"))
    }
}

impl<A> LlmConfig<A> {
    /// The non-empty API base, if set.
    pub fn base(&self) -> Option<&str> {
        self.api_base
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }

    /// Checks every number against its range, naming the key of the first
    /// one out of it (`TIMEOUT` is checked when the section is read).
    pub fn check_ranges(&self) -> Result<(), LlmError> {
        if let Some(n) = self.max_retry
            && n > MAX_RETRIES
        {
            return Err(LlmError::config(
                "MAX_RETRY",
                format!("is {n}; it must be at most {MAX_RETRIES}"),
            ));
        }
        for (key, v) in [
            ("RETRY_BASE_DELAY_MS", self.retry_base_delay_ms),
            ("RETRY_MAX_DELAY_MS", self.retry_max_delay_ms),
        ] {
            if let Some(ms) = v
                && ms > MAX_RETRY_DELAY_MS
            {
                return Err(LlmError::config(
                    key,
                    format!("is {ms}; it must be at most {MAX_RETRY_DELAY_MS} ms"),
                ));
            }
        }
        Ok(())
    }

    /// The request timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout.unwrap_or(DEFAULT_TIMEOUT)
    }

    /// The retry policy from `MAX_RETRY` and the backoff keys.
    pub fn retry_policy(&self) -> RetryPolicy {
        let mut p = RetryPolicy {
            max_retries: self.max_retry.unwrap_or(DEFAULT_MAX_RETRY),
            ..RetryPolicy::default()
        };
        if let Some(ms) = self.retry_base_delay_ms {
            p.base_delay = Duration::from_millis(ms);
        }
        if let Some(ms) = self.retry_max_delay_ms {
            p.max_delay = Duration::from_millis(ms);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ufo_agent_keys_all_land_in_fields() {
        // UFO's keys, ours, and the template keys read by the session.
        let keys = [
            "VISUAL_MODE",
            "REASONING_MODEL",
            "API_TYPE",
            "API_BASE",
            "API_KEY",
            "API_VERSION",
            "API_MODEL",
            "API_DEPLOYMENT_ID",
            "USE_RESPONSES",
            "AAD_TENANT_ID",
            "AAD_API_SCOPE",
            "AAD_API_SCOPE_BASE",
            "AAD_TOKEN_ENV",
            "AAD_TOKEN_COMMAND",
            "MAX_TOKENS",
            "TEMPERATURE",
            "TOP_P",
            "TIMEOUT",
            "MAX_RETRY",
            "RETRY_BASE_DELAY_MS",
            "RETRY_MAX_DELAY_MS",
            "CASSETTE",
            "PROMPT",
            "EXAMPLE_PROMPT",
            "EXAMPLE_PROMPT_AS",
            "REPLAY_MATCH",
            "FORMAT_STRATEGY",
        ];
        let yaml = keys
            .iter()
            .map(|k| {
                let v = match *k {
                    "VISUAL_MODE" | "REASONING_MODEL" | "USE_RESPONSES" => "true",
                    "MAX_TOKENS"
                    | "TEMPERATURE"
                    | "TOP_P"
                    | "TIMEOUT"
                    | "MAX_RETRY"
                    | "RETRY_BASE_DELAY_MS"
                    | "RETRY_MAX_DELAY_MS" => "1",
                    "API_TYPE" => "openai",
                    _ => "\"x\"",
                };
                format!("{k}: {v}\n")
            })
            .collect::<String>();
        let v: serde_json::Value = serde_saphyr::from_str(&yaml).unwrap();
        let mut ignored = Vec::new();
        let cfg: LlmConfig =
            serde_ignored::deserialize(&v, |p| ignored.push(p.to_string())).unwrap();
        assert!(ignored.is_empty(), "{ignored:?}");
        assert_eq!(
            (cfg.prompt, cfg.example_prompt_as, cfg.replay_match),
            (Some("x".into()), Some("x".into()), Some("x".into()))
        );
        assert_eq!(cfg.timeout, Some(Duration::from_secs(1)));
    }

    #[test]
    fn parses_ufo_section_and_hides_key() {
        let cfg = LlmConfig::from_yaml(
            "VISUAL_MODE: True\nREASONING_MODEL: False\nAPI_TYPE: \"AOAI\"\nAPI_BASE: \"https://r.openai.azure.com\"\nAPI_KEY: \"sk-topsecret\"\nAPI_VERSION: \"2024-02-15-preview\"\nAPI_MODEL: \"gpt-4o\"\nAPI_DEPLOYMENT_ID: \"gpt-4o-20240513\"\nPROMPT: \"x.yaml\"\nTEMPERATURE: 0.0\nMAX_RETRY: 2\n",
        )
        .unwrap();
        assert_eq!(cfg.api_type, ApiType::Aoai);
        assert_eq!(cfg.model().unwrap(), "gpt-4o-20240513");
        assert_eq!(cfg.visual_mode, Some(true));
        assert_eq!(cfg.max_retry, Some(2));
        assert_eq!(cfg.prompt.as_deref(), Some("x.yaml"));
        let dbg = format!("{cfg:?}");
        assert!(!dbg.contains("topsecret"), "{dbg}");
    }

    #[test]
    fn numbers_out_of_range_are_errors_naming_the_key() {
        for (yaml, key) in [
            ("TIMEOUT: 1e300", "TIMEOUT"),
            ("TIMEOUT: 0", "TIMEOUT"),
            ("TIMEOUT: -5", "TIMEOUT"),
            ("MAX_RETRY: 1000000", "MAX_RETRY"),
            ("RETRY_MAX_DELAY_MS: 99999999999", "RETRY_MAX_DELAY_MS"),
        ] {
            // TIMEOUT is checked when the section is read, the others when
            // the model is built; either way the error names the key.
            let e = match LlmConfig::from_yaml(&format!("API_TYPE: openai\nAPI_MODEL: m\n{yaml}\n"))
            {
                Err(e) => e,
                Ok(cfg) => {
                    // The timeout itself never panics, whatever the value.
                    let _ = cfg.timeout();
                    cfg.check_ranges().unwrap_err()
                }
            };
            assert!(e.to_string().contains(key), "{yaml}: {e}");
        }
        let ok = LlmConfig::from_yaml("API_TYPE: openai\nAPI_MODEL: m\nTIMEOUT: 30\n").unwrap();
        assert!(ok.check_ranges().is_ok());
        assert_eq!(ok.timeout(), Duration::from_secs(30));
    }

    #[test]
    fn reads_one_section_of_agents_yaml() {
        let yaml = "HOST_AGENT:\n  API_TYPE: openai\n  API_MODEL: gpt-4o\n  API_KEY: k1\nBACKUP_AGENT:\n  API_TYPE: ollama\n  API_MODEL: llava\nAPP_API_PROMPT_ADDRESS:\n  WINWORD.EXE: a.yaml\n";
        let b = LlmConfig::from_agents_yaml(yaml, "BACKUP_AGENT").unwrap();
        assert_eq!(b.api_type, ApiType::Ollama);
        assert_eq!(b.model().unwrap(), "llava");
        assert!(LlmConfig::from_agents_yaml(yaml, "NOPE").is_err());
        let e = LlmConfig::from_agents_yaml(
            "APP_AGENT:\n  API_TYPE: openai\n  TEMPERATURE: hot\n",
            "APP_AGENT",
        )
        .unwrap_err();
        assert!(
            matches!(&e, LlmError::Config { key, .. } if key == "APP_AGENT.TEMPERATURE"),
            "{e:?}"
        );
        let e =
            LlmConfig::from_agents_yaml("APP_AGENT:\n  API_MODEL: m\n", "APP_AGENT").unwrap_err();
        assert!(
            matches!(&e, LlmError::Config { key, .. } if key == "APP_AGENT.API_TYPE"),
            "{e:?}"
        );
    }

    #[test]
    fn unknown_api_type_is_an_error() {
        let e = LlmConfig::from_yaml("API_TYPE: martian\n").unwrap_err();
        let LlmError::Config { key, message, .. } = e else {
            panic!("{e:?}")
        };
        assert_eq!(key, "API_TYPE");
        assert!(
            message.contains("\"martian\" is not a provider"),
            "{message}"
        );
        assert!(message.contains("openai, aoai, azure_ad"), "{message}");
        assert!(matches!(
            "martian".parse::<ApiType>(),
            Err(LlmError::UnknownApiType { .. })
        ));
    }
}
