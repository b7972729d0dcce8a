//! OpenAI-shaped providers: `openai`, `aoai`, `azure_ad`, `custom`, `deepseek`,
//! `qwen` (compatible mode) and `zhipu`.

use serde_json::{Value, json};

use super::{Family, Parsed, WireRequest, bare_host, join, malformed, new_wire, u64_at};
use crate::config::{ApiType, LlmConfig};
use crate::error::LlmError;
use crate::format::{Strategy, openai as fmt_openai, zhipu as fmt_zhipu};
use crate::message::{ChatOptions, ChatRequest, JsonMode};
use crate::usage::Usage;

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
    if bare_host(base) {
        join(&format!("{}/v1", base.trim_end_matches('/')), suffix)
    } else {
        join(base, suffix)
    }
}

pub(super) fn build(
    cfg: &LlmConfig,
    api: ApiType,
    strategy: Strategy,
    model: &str,
    request: &ChatRequest,
    opts: &ChatOptions,
) -> Result<WireRequest, LlmError> {
    let formatted = match (strategy, api) {
        (Strategy::ZhipuAiChat, _) => fmt_zhipu::zhipuai_chat(&request.messages),
        (Strategy::OpenAiChat, _) => {
            fmt_openai::openai_chat(&request.messages, fmt_openai::is_vision_model(model))
        }
        (_, ApiType::DeepSeek) => fmt_openai::openai_chat(&request.messages, false),
        (_, ApiType::Zhipu) => fmt_zhipu::native(&request.messages, model),
        _ => fmt_openai::openai_chat(&request.messages, true),
    };
    let mut warnings = formatted.warnings;
    let mut body = json!({"model": model, "messages": formatted.value});
    if let Some(t) = opts.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(p) = opts.top_p {
        body["top_p"] = json!(p);
    }
    if let Some(m) = opts.max_tokens {
        let key = if cfg.reasoning_model
            && matches!(api, ApiType::OpenAi | ApiType::Aoai | ApiType::AzureAd)
        {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body[key] = json!(m);
    }
    match &opts.json {
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
        endpoint(cfg, api, model)?,
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
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => {
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
            return Err(LlmError::EmptyResponse {
                provider: provider.to_owned(),
                reason,
            });
        }
    };
    let u = v.get("usage").cloned().unwrap_or(Value::Null);
    let mut usage = Usage::new(
        u64_at(&u, &["prompt_tokens"]),
        u64_at(&u, &["completion_tokens"]),
    );
    if let Some(t) = u.get("total_tokens").and_then(Value::as_u64) {
        usage.total_tokens = t;
    }
    Ok(Parsed {
        text,
        usage,
        finish_reason,
    })
}
