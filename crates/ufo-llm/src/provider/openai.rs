//! OpenAI-shaped providers: `openai`, `aoai`, `azure_ad`, `custom`, `deepseek`,
//! `qwen` (compatible mode) and `zhipu`.

use serde_json::{Value, json};

use super::{
    Call, Family, Parsed, WireRequest, content_text, empty, join, malformed, merge, new_wire,
    sampling, usage_from, with_version,
};
use crate::api::{ApiType, Wire};
use crate::config::LlmConfig;
use crate::error::LlmError;
use crate::format::{Strategy, openai as fmt_openai, zhipu as fmt_zhipu};
use crate::message::JsonMode;

fn endpoint(cfg: &LlmConfig, api: ApiType, model: &str) -> Result<String, LlmError> {
    const CC: &str = "/chat/completions";
    let info = api.info();
    let base = cfg
        .base()
        .or(info.default_base)
        .ok_or_else(|| LlmError::config("API_BASE", format!("{api} needs {}", info.base_hint)))?;
    if !info.azure {
        return Ok(match info.bare_host_v1 {
            true => versioned(base, CC),
            false => join(base, CC),
        });
    }
    let version = cfg
        .api_version
        .as_deref()
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| {
            LlmError::config("API_VERSION", "Azure needs an api-version, e.g. 2024-10-21")
        })?;
    Ok(if base.contains("/deployments/") {
        if base.contains("api-version=") {
            base.to_owned()
        } else {
            let sep = if base.contains('?') { '&' } else { '?' };
            format!("{}{sep}api-version={version}", join(base, CC))
        }
    } else {
        format!(
            "{}/openai/deployments/{model}/chat/completions?api-version={version}",
            base.trim_end_matches('/')
        )
    })
}

/// Adds `/v1` to a bare host, then the endpoint.
fn versioned(base: &str, suffix: &str) -> String {
    join(&with_version(base, "v1"), suffix)
}

pub(super) fn build(c: &Call<'_>) -> Result<WireRequest, LlmError> {
    let (api, info) = (c.api, c.api.info());
    let formatted = match (c.strategy, info.wire) {
        (Strategy::ZhipuAiChat, _) => fmt_zhipu::zhipuai_chat(&c.request.messages),
        (Strategy::OpenAiChat, _) => {
            fmt_openai::openai_chat(&c.request.messages, fmt_openai::is_vision_model(c.model))
        }
        (_, Wire::Zhipu) => fmt_zhipu::native(&c.request.messages, c.model),
        _ => fmt_openai::openai_chat(&c.request.messages, info.vision),
    };
    let mut warnings = formatted.warnings;
    let mut body = json!({"model": c.model, "messages": formatted.value});
    let max_tokens = if c.cfg.reasoning_model && info.completion_tokens_key {
        "max_completion_tokens"
    } else {
        "max_tokens"
    };
    merge(
        &mut body,
        sampling(c.opts, ["temperature", "top_p", max_tokens]),
    );
    match &c.opts.json {
        JsonMode::Off => {}
        JsonMode::Object => body["response_format"] = json!({"type": "json_object"}),
        JsonMode::Schema { .. } if !info.json_schema => {
            warnings.push(format!(
                "{api} has no json_schema mode: json_object sent instead"
            ));
            body["response_format"] = json!({"type": "json_object"});
        }
        JsonMode::Schema { name, schema } => {
            body["response_format"] = json!({"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": true}});
        }
    }
    Ok(new_wire(
        endpoint(c.cfg, api, c.model)?,
        body,
        Family::OpenAi,
        warnings,
    ))
}

pub(super) fn parse(provider: &str, v: &Value) -> Result<Parsed, LlmError> {
    let choice = v
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| malformed(provider, "no `choices[0]` in the reply"))?;
    let message = choice
        .get("message")
        .ok_or_else(|| malformed(provider, "no `choices[0].message` in the reply"))?;
    let finish_reason = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let text = match content_text(message.get("content")) {
        Some(text) => text,
        None => {
            let reason = if let Some(r) = message.get("refusal").and_then(Value::as_str) {
                format!("refusal: {r}")
            } else if message.get("tool_calls").is_some() {
                "the model answered with tool calls only".to_owned()
            } else {
                format!(
                    "content is null (finish_reason {})",
                    finish_reason.as_deref().unwrap_or("none")
                )
            };
            return Err(empty(provider, reason));
        }
    };
    Ok(Parsed {
        text,
        usage: usage_from(
            &v["usage"],
            "prompt_tokens",
            &["completion_tokens"],
            Some("total_tokens"),
        ),
        finish_reason,
    })
}
