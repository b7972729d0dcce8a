//! Google Gemini `generateContent` (REST, camelCase fields).

use serde_json::{Value, json};

use super::{Family, Parsed, WireRequest, bare_host, join, malformed, new_wire, u64_at};
use crate::config::LlmConfig;
use crate::error::LlmError;
use crate::format::{Strategy, gemini as fmt};
use crate::message::{ChatOptions, ChatRequest, JsonMode};
use crate::usage::Usage;

pub(super) fn build(
    cfg: &LlmConfig,
    strategy: Strategy,
    model: &str,
    request: &ChatRequest,
    opts: &ChatOptions,
) -> WireRequest {
    let (mut body, warnings) = if strategy == Strategy::GeminiChat {
        // The strategy's SDK-style string parts become REST `{"text": …}` parts.
        let f = fmt::gemini_chat(&request.messages);
        let mut contents = f.value;
        if let Some(turns) = contents.as_array_mut() {
            for turn in turns {
                if let Some(parts) = turn.get_mut("parts").and_then(Value::as_array_mut) {
                    for p in parts.iter_mut() {
                        if let Value::String(s) = p {
                            *p = json!({"text": s});
                        }
                    }
                }
            }
        }
        (json!({"contents": contents}), f.warnings)
    } else {
        let f = fmt::native(&request.messages);
        (f.value, f.warnings)
    };
    let mut config = serde_json::Map::new();
    if let Some(t) = opts.temperature {
        config.insert("temperature".into(), json!(t));
    }
    if let Some(p) = opts.top_p {
        config.insert("topP".into(), json!(p));
    }
    if let Some(m) = opts.max_tokens {
        config.insert("maxOutputTokens".into(), json!(m));
    }
    match &opts.json {
        JsonMode::Off => {}
        JsonMode::Object => {
            config.insert("responseMimeType".into(), json!("application/json"));
        }
        JsonMode::Schema { schema, .. } => {
            config.insert("responseMimeType".into(), json!("application/json"));
            config.insert("responseJsonSchema".into(), schema.clone());
        }
    }
    if !config.is_empty() {
        body["generationConfig"] = Value::Object(config);
    }
    let base = cfg
        .base()
        .unwrap_or("https://generativelanguage.googleapis.com/v1beta");
    let base = if bare_host(base) {
        format!("{}/v1beta", base.trim_end_matches('/'))
    } else {
        base.to_owned()
    };
    let base = base.split("/models/").next().unwrap_or(&base).to_owned();
    let url = join(&base, &format!("/models/{model}:generateContent"));
    new_wire(url, body, Family::Gemini, warnings)
}

pub(super) fn parse(provider: &str, v: &Value) -> Result<Parsed, LlmError> {
    let um = v.get("usageMetadata").cloned().unwrap_or(Value::Null);
    let candidate = v
        .get("candidates")
        .and_then(Value::as_array)
        .and_then(|c| c.first());
    let Some(candidate) = candidate else {
        if let Some(block) = v
            .get("promptFeedback")
            .and_then(|f| f.get("blockReason"))
            .and_then(Value::as_str)
        {
            return Err(LlmError::EmptyResponse {
                provider: provider.to_owned(),
                reason: format!("prompt blocked ({block})"),
            });
        }
        return Err(malformed(provider, "no `candidates` in the reply"));
    };
    let finish_reason = candidate
        .get("finishReason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let parts = candidate
        .get("content")
        .and_then(|c| c.get("parts"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let texts: Vec<&str> = parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    if texts.is_empty() {
        return Err(LlmError::EmptyResponse {
            provider: provider.to_owned(),
            reason: format!(
                "no text parts (finishReason {})",
                finish_reason.as_deref().unwrap_or("none")
            ),
        });
    }
    let completion = u64_at(&um, &["candidatesTokenCount"]) + u64_at(&um, &["thoughtsTokenCount"]);
    let mut usage = Usage::new(u64_at(&um, &["promptTokenCount"]), completion);
    if let Some(t) = um.get("totalTokenCount").and_then(Value::as_u64) {
        usage.total_tokens = t;
    }
    Ok(Parsed {
        text: texts.concat(),
        usage,
        finish_reason,
    })
}
