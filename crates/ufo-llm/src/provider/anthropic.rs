//! Anthropic Messages (`claude`).

use serde_json::{Value, json};

use super::{Family, Parsed, WireRequest, bare_host, join, malformed, new_wire, u64_at};
use crate::config::LlmConfig;
use crate::error::LlmError;
use crate::format::anthropic as fmt;
use crate::message::{ChatOptions, ChatRequest};
use crate::usage::Usage;

/// `max_tokens` is required by the API; this is sent when none is configured.
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 4096;

pub(super) fn build(
    cfg: &LlmConfig,
    model: &str,
    request: &ChatRequest,
    opts: &ChatOptions,
) -> WireRequest {
    let f = fmt::native(&request.messages);
    let mut body =
        json!({"model": model, "max_tokens": opts.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)});
    if let (Value::Object(b), Value::Object(m)) = (&mut body, f.value) {
        b.extend(m);
    }
    if let Some(t) = opts.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(p) = opts.top_p {
        body["top_p"] = json!(p);
    }
    let base = cfg.base().unwrap_or("https://api.anthropic.com/v1");
    let base = if bare_host(base) {
        format!("{}/v1", base.trim_end_matches('/'))
    } else {
        base.to_owned()
    };
    new_wire(
        join(&base, "/messages"),
        body,
        Family::Anthropic,
        f.warnings,
    )
}

pub(super) fn parse(provider: &str, v: &Value) -> Result<Parsed, LlmError> {
    let blocks = v
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed(provider, "no `content` array in the reply"))?;
    let finish_reason = v
        .get("stop_reason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let texts: Vec<&str> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    if texts.is_empty() {
        return Err(LlmError::EmptyResponse {
            provider: provider.to_owned(),
            reason: format!(
                "no text block (stop_reason {})",
                finish_reason.as_deref().unwrap_or("none")
            ),
        });
    }
    let u = v.get("usage").cloned().unwrap_or(Value::Null);
    Ok(Parsed {
        text: texts.concat(),
        usage: Usage::new(
            u64_at(&u, &["input_tokens"]),
            u64_at(&u, &["output_tokens"]),
        ),
        finish_reason,
    })
}
