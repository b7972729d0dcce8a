//! The one error type of the model layer, [`LlmError`], and the normalised provider
//! error it wraps, [`ApiError`].
//!
//! Every variant has a stable code (`ufo::llm::…`) and a help line naming what to
//! change — for configuration problems, the agents.yaml key. No variant ever holds an
//! API key: provider messages are scrubbed with [`crate::redact`] before they are
//! stored.

use std::path::PathBuf;
use std::time::Duration;

use ufo_core::{BoxError, Diagnostic};

/// How a provider error should be handled by the retry loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// 429, 5xx, 529: wait and try again.
    Retryable,
    /// 401/403/404: the configuration is wrong; retrying cannot help.
    Config,
    /// A parameter the model does not accept (temperature on reasoning models,
    /// `max_tokens`, `response_format`): downgrade the request and retry once.
    UnsupportedParameter,
    /// Any other client error (bad request, content filter, …).
    Fatal,
}

/// A provider's error reply, normalised across wire formats.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The provider (`openai`, `aoai`, `gemini`, …).
    pub provider: String,
    /// HTTP status code.
    pub status: u16,
    /// The provider's error code or type, e.g. `invalid_api_key`, `DeploymentNotFound`.
    pub code: Option<String>,
    /// The provider's message (secrets scrubbed).
    pub message: String,
    /// The provider's request id, when it sends one.
    pub request_id: Option<String>,
    /// The server's `Retry-After`, when present.
    pub retry_after: Option<Duration>,
}

/// Phrases providers use when a request parameter is not accepted by the model.
const UNSUPPORTED_MARKERS: &[&str] = &[
    "unsupported parameter",
    "unsupported value",
    "is not supported with this model",
    "only the default (1) value is supported",
    "use 'max_completion_tokens' instead",
    "response_format type is unavailable",
    "'response_format' of type",
    "cannot both be specified",
];

impl ApiError {
    /// How the retry loop should treat this error.
    pub fn class(&self) -> ErrorClass {
        let lower = self.message.to_ascii_lowercase();
        match self.status {
            429 | 529 => ErrorClass::Retryable,
            s if s >= 500 => ErrorClass::Retryable,
            401 | 403 | 404 => ErrorClass::Config,
            400 | 422 if UNSUPPORTED_MARKERS.iter().any(|m| lower.contains(m)) => {
                ErrorClass::UnsupportedParameter
            }
            _ => ErrorClass::Fatal,
        }
    }
}

/// Everything that can go wrong in the model layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// A configuration key is missing or has an invalid value.
    #[error("invalid model configuration: {key}: {message}")]
    Config {
        /// The agents.yaml key to fix, e.g. `API_BASE`.
        key: String,
        /// What is wrong with it.
        message: String,
        /// The underlying error (I/O, JSON, YAML), when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// `API_TYPE` (or `--api`) names no known provider or formatting strategy.
    #[error("unknown API type `{value}`")]
    UnknownApiType {
        /// The value given.
        value: String,
    },
    /// The messages given to the model are not well-formed.
    #[error("invalid messages: {message}")]
    InvalidMessages {
        /// What is wrong.
        message: String,
        /// The underlying error (I/O, JSON, YAML), when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// The provider answered with an error status.
    #[error("{} returned HTTP {}{}: {}", .0.provider, .0.status, .0.code.as_deref().map(|c| format!(" ({c})")).unwrap_or_default(), .0.message)]
    Api(ApiError),
    /// The request never got an HTTP answer (DNS, connection refused, TLS, timeout).
    #[error("{provider}: request failed: {message}")]
    Transport {
        /// The provider.
        provider: String,
        /// What failed (no secrets).
        message: String,
        /// Whether the failure was the configured timeout.
        timeout: bool,
    },
    /// The provider answered 2xx but the body is not what its API documents.
    #[error("{provider}: malformed response: {message}")]
    MalformedResponse {
        /// The provider.
        provider: String,
        /// What was expected and not found.
        message: String,
        /// The start of the body, for debugging.
        excerpt: String,
    },
    /// The provider answered without any text (blocked prompt, refusal, only
    /// thoughts or tool calls).
    #[error("{provider}: empty response: {reason}")]
    EmptyResponse {
        /// The provider.
        provider: String,
        /// Why there is no text (block reason, finish reason, refusal …).
        reason: String,
    },
    /// Getting an Azure AD bearer token failed.
    #[error("could not obtain an Azure AD token: {message}")]
    Token {
        /// What failed.
        message: String,
    },
    /// The replay cassette has no answer for this request.
    #[error("no recorded answer in cassette {} for request {key}", .cassette.display())]
    ReplayMiss {
        /// The cassette file.
        cassette: PathBuf,
        /// The start of the normalised request that was not found.
        key: String,
    },
    /// A cassette file cannot be read or written.
    #[error("cassette {}: {message}", .path.display())]
    Cassette {
        /// The cassette file.
        path: PathBuf,
        /// What failed.
        message: String,
        /// The underlying error (I/O, JSON, YAML), when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// A price table cannot be read.
    #[error("price table {source_name}: {message}")]
    PriceTable {
        /// Where the table came from.
        source_name: String,
        /// What failed.
        message: String,
        /// The underlying error (I/O, JSON, YAML), when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// Both the primary model and the `BACKUP_AGENT` model failed.
    #[error("primary model failed ({primary}); backup model failed too ({backup})")]
    Fallback {
        /// The primary model's error.
        primary: Box<LlmError>,
        /// The backup model's error.
        backup: Box<LlmError>,
    },
    /// The reply is empty or whitespace only.
    #[error("the model's reply is empty")]
    EmptyReply,
    /// A request or a response body over the size limit.
    #[error("the {what} is {bytes} bytes; at most {limit} bytes are {verb}")]
    TooLarge {
        /// "request" or "response".
        what: &'static str,
        /// "sent" or "read".
        verb: &'static str,
        /// Its size (for a response: how much was read before stopping).
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// The reply is larger than replies are parsed at all.
    #[error("the model's reply is {bytes} bytes; replies over {limit} bytes are not parsed")]
    ReplyTooLarge {
        /// The reply's size.
        bytes: usize,
        /// The limit (`extract::MAX_REPLY_BYTES`).
        limit: usize,
    },
    /// The reply contains no parseable JSON object.
    #[error("no JSON object found in the reply: {message}")]
    NoJson {
        /// The parser's last complaint.
        message: String,
    },
    /// The reply's JSON ends before it is complete (output cut at `max_tokens`).
    #[error("the JSON in the reply is truncated: {message}")]
    TruncatedJson {
        /// What is missing.
        message: String,
    },
    /// The JSON does not match the agent's response schema.
    #[error("the reply does not match the response schema at `{path}`: {message}")]
    SchemaMismatch {
        /// JSON path of the wrong field, e.g. `$.action[0].function`.
        path: String,
        /// What is wrong with it.
        message: String,
        /// The underlying error (I/O, JSON, YAML), when there is one.
        #[source]
        source: Option<BoxError>,
    },
}

impl LlmError {
    /// A configuration error for `key`.
    pub fn config(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Config {
            key: key.into(),
            message: message.into(),
            source: None,
        }
    }

    /// A configuration error for `key` caused by `source` (a YAML error),
    /// whose text the message shows.
    pub fn config_from<E: std::error::Error + Send + Sync + 'static>(
        key: impl Into<String>,
        source: E,
    ) -> Self {
        Self::Config {
            key: key.into(),
            message: source.to_string(),
            source: Some(Box::new(source)),
        }
    }

    /// Whether the retry loop may try this request again.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Api(e) => e.class() == ErrorClass::Retryable,
            Self::Transport { .. } => true,
            _ => false,
        }
    }

    /// The provider's `Retry-After`, when this is an API error that carries one.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Api(e) => e.retry_after,
            _ => None,
        }
    }
}

impl Diagnostic for LlmError {
    fn code(&self) -> &'static str {
        match self {
            Self::Config { .. } => "ufo::llm::config",
            Self::UnknownApiType { .. } => "ufo::llm::unknown_api_type",
            Self::InvalidMessages { .. } => "ufo::llm::invalid_messages",
            Self::Api(e) => match (e.status, e.class()) {
                (401 | 403, _) => "ufo::llm::auth_failed",
                (404, _) => "ufo::llm::not_found",
                (429, _) => "ufo::llm::rate_limited",
                (_, ErrorClass::Retryable) => "ufo::llm::server_error",
                (_, ErrorClass::UnsupportedParameter) => "ufo::llm::unsupported_parameter",
                _ => "ufo::llm::http_status",
            },
            Self::Transport { timeout: true, .. } => "ufo::llm::timeout",
            Self::Transport { .. } => "ufo::llm::transport",
            Self::MalformedResponse { .. } => "ufo::llm::malformed_response",
            Self::EmptyResponse { .. } => "ufo::llm::empty_response",
            Self::Token { .. } => "ufo::llm::aad_token",
            Self::ReplayMiss { .. } => "ufo::llm::replay_miss",
            Self::Cassette { .. } => "ufo::llm::cassette",
            Self::PriceTable { .. } => "ufo::llm::price_table",
            Self::Fallback { .. } => "ufo::llm::fallback_failed",
            Self::EmptyReply => "ufo::llm::empty_reply",
            Self::ReplyTooLarge { .. } => "ufo::llm::reply_too_large",
            Self::TooLarge {
                what: "request", ..
            } => "ufo::llm::request_too_large",
            Self::TooLarge { .. } => "ufo::llm::response_too_large",
            Self::NoJson { .. } => "ufo::llm::no_json",
            Self::TruncatedJson { .. } => "ufo::llm::truncated_json",
            Self::SchemaMismatch { .. } => "ufo::llm::schema_mismatch",
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            Self::Config { key, .. } => {
                format!("set `{key}` in this agent's section of the config file given with --config")
            }
            Self::UnknownApiType { .. } => format!(
                "set API_TYPE to one of: {}; or, for `ufo llm format`, one of: {}",
                crate::api::ApiType::NAMES.join(", "),
                crate::names::AGENTSCOPE_MODEL_TYPES.join(", ")
            ),
            Self::InvalidMessages { .. } => {
                "pass one {\"name\",\"role\",\"content\",\"url\"} message, or a JSON array of such messages and lists of them (as AgentScope's format takes); role is system, user or assistant".into()
            }
            Self::Api(e) => match (e.status, e.class()) {
                (401 | 403, _) => format!(
                    "check API_KEY (and API_TYPE/API_BASE) for the `{}` provider in agents.yaml; for azure_ad check the AAD_* keys",
                    e.provider
                ),
                (404, _) => format!(
                    "check API_MODEL, API_DEPLOYMENT_ID and API_BASE for the `{}` provider in agents.yaml",
                    e.provider
                ),
                (429, _) => "the provider is rate limiting: wait, lower the request rate or raise your quota; MAX_RETRY controls retries".into(),
                (_, ErrorClass::Retryable) => "the provider had a server error; try again later or configure a BACKUP_AGENT".into(),
                (_, ErrorClass::UnsupportedParameter) => "the model rejects a parameter: set REASONING_MODEL: True for reasoning models, or unset TEMPERATURE/TOP_P/MAX_TOKENS".into(),
                _ => "read the provider's message above; check API_MODEL and the request options".into(),
            },
            Self::Transport { timeout: true, .. } => {
                "the provider did not answer in time: raise TIMEOUT or check the network".into()
            }
            Self::Transport { .. } => {
                "check API_BASE and that the server is reachable (proxy, TLS, firewall)".into()
            }
            Self::MalformedResponse { .. } => {
                "API_BASE may point at a server that does not speak this API_TYPE's protocol; check both".into()
            }
            Self::EmptyResponse { .. } => {
                "the model produced no text: rephrase the prompt, raise MAX_TOKENS or try another model".into()
            }
            Self::Token { .. } => {
                "set AAD_TOKEN_ENV (an environment variable holding a token) or AAD_TOKEN_COMMAND (a command printing one), or log in with `az login`".into()
            }
            Self::ReplayMiss { cassette, .. } => format!(
                "record this request into {} (run once with a real model and the recorder), or check that the prompt did not change",
                cassette.display()
            ),
            Self::Cassette { path, .. } => format!(
                "check that {} exists and holds one JSON object per line (or a JSON array) of {{request, response}}",
                path.display()
            ),
            Self::PriceTable { .. } => {
                "a price table is YAML: PRICES: {\"openai/gpt-4o\": {input: 0.005, output: 0.015}} (USD per 1K tokens)".into()
            }
            Self::Fallback { .. } => {
                "fix the primary model's configuration or the BACKUP_AGENT section; both errors are shown".into()
            }
            Self::EmptyReply => "re-ask the model; if it keeps happening raise MAX_TOKENS".into(),
            Self::TooLarge { what: "request", .. } => {
                "the prompt is far larger than any agent step needs (a huge request text, control list or image?): shorten the request or lower the screenshot count".into()
            }
            Self::TooLarge { .. } => {
                "the server sent far more than a chat completion: check API_BASE points at the model's API".into()
            }
            Self::ReplyTooLarge { .. } => {
                "the model is not answering in the reply format (a runaway output?): lower MAX_TOKENS or use another model".into()
            }
            Self::NoJson { .. } => {
                "re-ask the model with this error and remind it to answer with one JSON object".into()
            }
            Self::TruncatedJson { .. } => {
                "the reply was cut off: raise MAX_TOKENS or ask for a shorter answer".into()
            }
            Self::SchemaMismatch { path, .. } => {
                format!("re-ask the model with this error; the field `{path}` must be fixed")
            }
        })
    }
}
