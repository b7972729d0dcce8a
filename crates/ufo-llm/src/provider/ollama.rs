//! Ollama native API: `/api/chat` and `/api/generate`, non-streaming.

use serde_json::{Value, json};

use super::{Call, Family, Parsed, WireRequest, join, malformed, new_wire, sampling, usage_from};
use crate::error::LlmError;
use crate::format::{Strategy, ollama as fmt};
use crate::message::JsonMode;

pub(super) fn build(c: &Call<'_>) -> WireRequest {
    let mut base = c
        .cfg
        .base()
        .or(c.api.info().default_base)
        .unwrap_or_default()
        .trim_end_matches('/');
    for suffix in ["/api/chat", "/api/generate", "/api", "/v1"] {
        base = base.strip_suffix(suffix).unwrap_or(base);
    }
    let generate = c.strategy == Strategy::OllamaGenerate;
    let (mut body, warnings, url, family) = if generate {
        let f = fmt::ollama_generate(&c.request.messages);
        let mut body = json!({"model": c.model, "prompt": f.value["prompt"]});
        if let Some(images) = f.value.get("images") {
            body["images"] = images.clone();
        }
        (
            body,
            f.warnings,
            join(base, "/api/generate"),
            Family::OllamaGenerate,
        )
    } else {
        let f = if c.strategy == Strategy::OllamaChat {
            fmt::ollama_chat(&c.request.messages)
        } else {
            fmt::native(&c.request.messages)
        };
        (
            json!({"model": c.model, "messages": f.value}),
            f.warnings,
            join(base, "/api/chat"),
            Family::OllamaChat,
        )
    };
    body["stream"] = json!(false);
    match &c.opts.json {
        JsonMode::Off => {}
        JsonMode::Object => body["format"] = json!("json"),
        JsonMode::Schema { schema, .. } => body["format"] = schema.clone(),
    }
    let options = sampling(c.opts, ["temperature", "top_p", "num_predict"]);
    if !options.is_empty() {
        body["options"] = Value::Object(options);
    }
    new_wire(url, body, family, warnings)
}

pub(super) fn parse(provider: &str, v: &Value) -> Result<Parsed, LlmError> {
    let text = v
        .get("message")
        .and_then(|m| m.get("content"))
        .or_else(|| v.get("response"))
        .and_then(Value::as_str)
        .ok_or_else(|| malformed(provider, "no `message.content` or `response` in the reply"))?;
    Ok(Parsed {
        text: text.to_owned(),
        // Absent on a cached prompt: 0.
        usage: usage_from(v, "prompt_eval_count", &["eval_count"], None),
        finish_reason: v
            .get("done_reason")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}
