//! Google Gemini `generateContent` (REST, camelCase fields).

use serde_json::{Value, json};

use super::{
    Call, Family, Parsed, WireRequest, empty, join, malformed, new_wire, sampling, usage_from,
    with_version,
};
use crate::error::LlmError;
use crate::format::{Strategy, gemini as fmt};
use crate::message::JsonMode;

pub(super) fn build(c: &Call<'_>) -> WireRequest {
    let (mut body, warnings) = if c.strategy == Strategy::GeminiChat {
        // The c.strategy's SDK-style string parts become REST `{"text": …}` parts.
        let f = fmt::gemini_chat(&c.request.messages);
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
        let f = fmt::native(&c.request.messages);
        (f.value, f.warnings)
    };
    let mut config = sampling(c.opts, ["temperature", "topP", "maxOutputTokens"]);
    match &c.opts.json {
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
    let base = c
        .cfg
        .base()
        .or(c.api.info().default_base)
        .unwrap_or_default();
    let base = with_version(base, "v1beta");
    let base = base.split("/models/").next().unwrap_or(&base).to_owned();
    let url = join(&base, &format!("/models/{}:generateContent", c.model));
    new_wire(url, body, Family::Gemini, warnings)
}

pub(super) fn parse(provider: &str, v: &Value) -> Result<Parsed, LlmError> {
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
            return Err(empty(provider, format!("prompt blocked ({block})")));
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
        return Err(empty(
            provider,
            format!(
                "no text parts (finishReason {})",
                finish_reason.as_deref().unwrap_or("none")
            ),
        ));
    }
    Ok(Parsed {
        text: texts.concat(),
        usage: usage_from(
            &v["usageMetadata"],
            "promptTokenCount",
            &["candidatesTokenCount", "thoughtsTokenCount"],
            Some("totalTokenCount"),
        ),
        finish_reason,
    })
}
