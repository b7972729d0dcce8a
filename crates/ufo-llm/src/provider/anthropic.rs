//! Anthropic Messages (`claude`).

use serde_json::{Value, json};

use super::{
    Call, Family, Parsed, WireRequest, empty, join, malformed, merge, new_wire, sampling,
    usage_from,
};
use crate::error::LlmError;
use crate::format::anthropic as fmt;
use crate::message::ChatOptions;

/// `max_tokens` is required by the API; this is sent when none is configured.
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 4096;

pub(super) fn build(c: &Call<'_>) -> WireRequest {
    let f = fmt::native(&c.request.messages);
    let mut body = json!({"model": c.model});
    if let Value::Object(m) = f.value {
        merge(&mut body, m);
    }
    let opts = ChatOptions {
        max_tokens: Some(c.opts.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
        ..c.opts.clone()
    };
    merge(
        &mut body,
        sampling(&opts, ["temperature", "top_p", "max_tokens"]),
    );
    let base = c.base();
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
        return Err(empty(
            provider,
            format!(
                "no text block (stop_reason {})",
                finish_reason.as_deref().unwrap_or("none")
            ),
        ));
    }
    Ok(Parsed {
        text: texts.concat(),
        usage: usage_from(&v["usage"], "input_tokens", &["output_tokens"], None),
        finish_reason,
    })
}
