//! The logic behind `ufo llm format` and `ufo llm ping`, as library functions (the
//! `ufo` binary only parses arguments and prints).

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use crate::build::build_model;
use crate::client::HttpModel;
use crate::config::{ApiType, LlmConfig};
use crate::cost::PriceTable;
use crate::error::LlmError;
use crate::format::Strategy;
use crate::message::{ChatOptions, ChatRequest, Msg, Part, parse_messages};
use crate::model::ChatModel;
use crate::provider::RedactedRequest;
use crate::redact::Secret;
use crate::usage::Usage;

/// The provider and strategy for `--api`: one of UFO's `API_TYPE`s (native
/// formatting) or one of AgentScope's model types (the seed's strategy).
pub fn resolve_api(api: &str) -> Result<(ApiType, Strategy), LlmError> {
    if let Some(pair) = Strategy::from_agentscope(api) {
        return Ok(pair);
    }
    Ok((api.parse()?, Strategy::Native))
}

/// The model used by `ufo llm format` when `--model` is not given.
pub fn default_model(api: ApiType, strategy: Strategy) -> &'static str {
    strategy.default_model().unwrap_or(api.info().default_model)
}

/// `ufo llm format --api TYPE [--model M] < messages.json`: the exact HTTP request
/// that would be sent, with secrets redacted (it serializes as `{"method", "url",
/// "headers", "body"}` in that order, plus `notes` and `warnings` when there are
/// any); nothing is sent and web
/// images are not fetched. Default endpoints are used (`YOUR-RESOURCE` for Azure,
/// `http://localhost:8000/v1` for `custom`); see [`format_request_with`] to use a
/// real configuration.
pub fn format_request(
    api: &str,
    model: Option<&str>,
    messages_json: &str,
) -> Result<RedactedRequest, LlmError> {
    let (api_type, strategy) = resolve_api(api)?;
    if api_type == ApiType::Replay {
        return Err(LlmError::config(
            "API_TYPE",
            "replay sends no HTTP request; nothing to format",
        ));
    }
    let model = model
        .map(str::to_owned)
        .unwrap_or_else(|| default_model(api_type, strategy).to_owned());
    let mut cfg = LlmConfig::new(api_type, model.clone());
    cfg.api_key = Secret::new("<API_KEY>");
    let info = api_type.info();
    cfg.api_base = info.example_base.map(str::to_owned);
    if info.azure {
        cfg.api_version = Some("2024-10-21".into());
        cfg.api_deployment_id = Some(model);
    }
    format_request_with(&cfg, strategy, messages_json)
}

/// Like [`format_request`], for a real agent section (its `API_BASE`, model,
/// options; its key is redacted in the output).
pub fn format_request_with(
    cfg: &LlmConfig,
    strategy: Strategy,
    messages_json: &str,
) -> Result<RedactedRequest, LlmError> {
    let messages: Vec<Msg> = parse_messages(messages_json)?;
    let model = HttpModel::new(cfg.clone())?.with_strategy(strategy)?;
    let wire = model.dry_run(&ChatRequest::from_messages(messages))?;
    Ok(wire.redacted())
}

/// What `ufo llm ping` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PingReport {
    /// `provider/model`.
    pub model: String,
    /// Wall time of the call in milliseconds.
    pub latency_ms: u64,
    /// Token usage.
    pub usage: Usage,
    /// Cost in USD, when the model has a price.
    pub cost: Option<f64>,
    /// The model costs nothing (a local model, or a price of 0).
    pub local: bool,
    /// HTTP attempts.
    pub attempts: u32,
    /// The start of the reply.
    pub reply: String,
}

impl fmt::Display for PingReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} ms, {} in / {} out tokens, cost {}, reply {:?}",
            self.model,
            self.latency_ms,
            self.usage.prompt_tokens,
            self.usage.completion_tokens,
            match (self.local, self.cost) {
                (true, _) => "$0 (local model)".to_owned(),
                (false, Some(c)) => format!("${c:.6}"),
                (false, None) => "not available (no price for this model: PRICES)".to_owned(),
            },
            self.reply
        )
    }
}

/// `ufo llm ping`: one tiny request with the configured model.
pub async fn ping(
    cfg: &LlmConfig,
    prices: Option<Arc<PriceTable>>,
) -> Result<PingReport, LlmError> {
    let model = build_model(cfg, prices)?;
    let request = ChatRequest::agent(
        "You are a health check.",
        vec![Part::text("Reply with the single word: pong")],
    )
    .with_options(ChatOptions {
        max_tokens: (!cfg.reasoning_model).then_some(16),
        ..ChatOptions::default()
    });
    let r = model.chat(request).await?;
    Ok(PingReport {
        model: format!("{}/{}", r.provider, r.model),
        latency_ms: u64::try_from(r.latency.as_millis()).unwrap_or(u64::MAX),
        usage: r.usage,
        cost: r.cost,
        local: r.local,
        attempts: r.attempts,
        reply: r.text.chars().take(200).collect(),
    })
}

/// The `describe` of a model, used by callers that print which model answers.
pub fn describe(model: &dyn ChatModel) -> String {
    model.describe()
}
