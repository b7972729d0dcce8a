//! OpenAI-shaped providers: `openai`, `aoai`, `azure_ad`, `custom`, `deepseek`,
//! `qwen` (compatible mode) and `zhipu`.

use serde_json::{Value, json};

use super::{
    Call, Family, Parsed, WireRequest, content_text, empty, join, malformed, merge, new_wire,
    sampling, usage_from, with_version,
};
use crate::config::{ApiType, LlmConfig};
use crate::error::LlmError;
use crate::format::{Strategy, openai as fmt_openai, zhipu as fmt_zhipu};
use crate::message::JsonMode;

fn endpoint(cfg: &LlmConfig, api: ApiType, model: &str) -> Result<String, LlmError> {
    const CC: &str = "/chat/completions";
    let base = cfg.base();
    Ok(match api {
        ApiType::Aoai | ApiType::AzureAd => {
            let base = base.ok_or_else(|| {
                LlmError::config(
                    "API_BASE",
                    "Azure needs https://<resource>.openai.azure.com",
                )
            })?;
            let version = cfg
                .api_version
                .as_deref()
                .filter(|v| !v.trim().is_empty())
                .ok_or_else(|| {
                    LlmError::config("API_VERSION", "Azure needs an api-version, e.g. 2024-10-21")
                })?;
            if base.contains("/deployments/") {
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
            }
        }
        ApiType::Custom => {
            let base = base.ok_or_else(|| {
                LlmError::config("API_BASE", "custom needs the server's OpenAI-compatible base URL, e.g. http://localhost:8000/v1")
            })?;
            versioned(base, CC)
        }
        ApiType::OpenAi => versioned(base.unwrap_or("https://api.openai.com/v1"), CC),
        ApiType::DeepSeek => versioned(base.unwrap_or("https://api.deepseek.com/v1"), CC),
        ApiType::Qwen => join(
            base.unwrap_or("https://dashscope.aliyuncs.com/compatible-mode/v1"),
            CC,
        ),
        ApiType::Zhipu => join(base.unwrap_or("https://open.bigmodel.cn/api/paas/v4"), CC),
        ApiType::Ollama | ApiType::Gemini | ApiType::Claude | ApiType::Replay => {
            return Err(LlmError::config(
                "API_TYPE",
                format!("{api} is not OpenAI-shaped"),
            ));
        }
    })
}

/// Adds `/v1` to a bare host, then the endpoint.
fn versioned(base: &str, suffix: &str) -> String {
    join(&with_version(base, "v1"), suffix)
}

pub(super) fn build(c: &Call<'_>, api: ApiType) -> Result<WireRequest, LlmError> {
    let formatted = match (c.strategy, api) {
        (Strategy::ZhipuAiChat, _) => fmt_zhipu::zhipuai_chat(&c.request.messages),
        (Strategy::OpenAiChat, _) => {
            fmt_openai::openai_chat(&c.request.messages, fmt_openai::is_vision_model(c.model))
        }
        (_, ApiType::DeepSeek) => fmt_openai::openai_chat(&c.request.messages, false),
        (_, ApiType::Zhipu) => fmt_zhipu::native(&c.request.messages, c.model),
        _ => fmt_openai::openai_chat(&c.request.messages, true),
    };
    let mut warnings = formatted.warnings;
    let mut body = json!({"model": c.model, "messages": formatted.value});
    let max_tokens = if c.cfg.reasoning_model
        && matches!(api, ApiType::OpenAi | ApiType::Aoai | ApiType::AzureAd)
    {
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
        JsonMode::Schema { .. } if api == ApiType::DeepSeek => {
            warnings.push("deepseek has no json_schema mode: json_object sent instead".into());
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
