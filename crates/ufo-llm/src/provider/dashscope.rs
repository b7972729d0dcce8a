//! DashScope native API (`qwen` with an `/api/v1` base, or a DashScope strategy):
//! `{"model", "input": {"messages"}, "parameters": {"result_format": "message", …}}`.

use serde_json::{Value, json};

use super::{Family, Parsed, WireRequest, join, malformed, new_wire, u64_at};
use crate::config::LlmConfig;
use crate::error::LlmError;
use crate::format::{Strategy, dashscope as fmt};
use crate::message::{ChatOptions, ChatRequest, JsonMode};
use crate::usage::Usage;

const TEXT: &str = "/services/aigc/text-generation/generation";
const MULTIMODAL: &str = "/services/aigc/multimodal-generation/generation";

fn is_mm_model(model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    ["-vl", "vl-", "qvq", "omni", "audio"]
        .iter()
        .any(|k| m.contains(k))
}

pub(super) fn build(
    cfg: &LlmConfig,
    strategy: Strategy,
    model: &str,
    request: &ChatRequest,
    opts: &ChatOptions,
) -> Result<WireRequest, LlmError> {
    let (formatted, multimodal) = match strategy {
        Strategy::DashScopeChat => (fmt::dashscope_chat(&request.messages), false),
        Strategy::DashScopeMultimodal => (fmt::dashscope_multimodal(&request.messages), true),
        _ => fmt::native(&request.messages, is_mm_model(model)),
    };
    let base = cfg
        .base()
        .unwrap_or("https://dashscope.aliyuncs.com/api/v1");
    let base = base.split("/services/aigc/").next().unwrap_or(base);
    let url = join(base, if multimodal { MULTIMODAL } else { TEXT });
    let mut params = json!({"result_format": "message"});
    if let Some(t) = opts.temperature {
        params["temperature"] = json!(t);
    }
    if let Some(p) = opts.top_p {
        params["top_p"] = json!(p);
    }
    if let Some(m) = opts.max_tokens {
        params["max_tokens"] = json!(m);
    }
    if opts.json != JsonMode::Off {
        params["response_format"] = json!({"type": "json_object"});
    }
    let body =
        json!({"model": model, "input": {"messages": formatted.value}, "parameters": params});
    Ok(new_wire(url, body, Family::DashScope, formatted.warnings))
}

pub(super) fn parse(provider: &str, v: &Value) -> Result<Parsed, LlmError> {
    let output = v
        .get("output")
        .ok_or_else(|| malformed(provider, "no `output` in the reply"))?;
    let choice = output
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first());
    let (text, finish_reason) = match choice {
        Some(c) => {
            let content = c.get("message").and_then(|m| m.get("content"));
            let text = match content {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(items)) => items
                    .iter()
                    .filter_map(|i| i.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join(""),
                _ => {
                    return Err(malformed(
                        provider,
                        "no `output.choices[0].message.content` in the reply",
                    ));
                }
            };
            (
                text,
                c.get("finish_reason")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            )
        }
        None => match output.get("text").and_then(Value::as_str) {
            Some(t) => (
                t.to_owned(),
                output
                    .get("finish_reason")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            ),
            None => {
                return Err(malformed(
                    provider,
                    "no `output.choices` or `output.text` in the reply",
                ));
            }
        },
    };
    let u = v.get("usage").cloned().unwrap_or(Value::Null);
    let mut usage = Usage::new(
        u64_at(&u, &["input_tokens"]),
        u64_at(&u, &["output_tokens"]),
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
