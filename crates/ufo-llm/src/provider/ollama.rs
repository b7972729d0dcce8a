//! Ollama native API: `/api/chat` and `/api/generate`, non-streaming.

use serde_json::{Value, json};

use super::{Family, Parsed, WireRequest, join, malformed, new_wire, u64_at};
use crate::config::LlmConfig;
use crate::error::LlmError;
use crate::format::{Strategy, ollama as fmt};
use crate::message::{ChatOptions, ChatRequest, JsonMode};
use crate::usage::Usage;

pub(super) fn build(
    cfg: &LlmConfig,
    strategy: Strategy,
    model: &str,
    request: &ChatRequest,
    opts: &ChatOptions,
) -> WireRequest {
    let mut base = cfg
        .base()
        .unwrap_or("http://localhost:11434")
        .trim_end_matches('/');
    for suffix in ["/api/chat", "/api/generate", "/api", "/v1"] {
        base = base.strip_suffix(suffix).unwrap_or(base);
    }
    let generate = strategy == Strategy::OllamaGenerate;
    let (mut body, warnings, url, family) = if generate {
        let f = fmt::ollama_generate(&request.messages);
        let mut body = json!({"model": model, "prompt": f.value["prompt"]});
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
        let f = if strategy == Strategy::OllamaChat {
            fmt::ollama_chat(&request.messages)
        } else {
            fmt::native(&request.messages)
        };
        (
            json!({"model": model, "messages": f.value}),
            f.warnings,
            join(base, "/api/chat"),
            Family::OllamaChat,
        )
    };
    body["stream"] = json!(false);
    match &opts.json {
        JsonMode::Off => {}
        JsonMode::Object => body["format"] = json!("json"),
        JsonMode::Schema { schema, .. } => body["format"] = schema.clone(),
    }
    let mut options = serde_json::Map::new();
    if let Some(t) = opts.temperature {
        options.insert("temperature".into(), json!(t));
    }
    if let Some(p) = opts.top_p {
        options.insert("top_p".into(), json!(p));
    }
    if let Some(m) = opts.max_tokens {
        options.insert("num_predict".into(), json!(m));
    }
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
        usage: Usage::new(
            u64_at(v, &["prompt_eval_count"]),
            u64_at(v, &["eval_count"]),
        ),
        finish_reason: v
            .get("done_reason")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}
