//! DashScope native API (`qwen` with an `/api/v1` base, or a DashScope strategy):
//! `{"model", "input": {"messages"}, "parameters": {"result_format": "message", …}}`.

use serde_json::{Value, json};

use super::{
    Call, Family, Parsed, WireRequest, content_text, join, malformed, merge, new_wire, sampling,
    usage_from,
};
use crate::error::LlmError;
use crate::format::{Strategy, dashscope as fmt};
use crate::message::JsonMode;

const TEXT: &str = "/services/aigc/text-generation/generation";
const MULTIMODAL: &str = "/services/aigc/multimodal-generation/generation";

fn is_mm_model(model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    ["-vl", "vl-", "qvq", "omni", "audio"]
        .iter()
        .any(|k| m.contains(k))
}

pub(super) fn build(c: &Call<'_>) -> WireRequest {
    let (formatted, multimodal) = match c.strategy {
        Strategy::DashScopeChat => (fmt::dashscope_chat(&c.request.messages), false),
        Strategy::DashScopeMultimodal => (fmt::dashscope_multimodal(&c.request.messages), true),
        _ => fmt::native(&c.request.messages, is_mm_model(c.model)),
    };
    let base = c
        .cfg
        .base()
        .unwrap_or("https://dashscope.aliyuncs.com/api/v1");
    let base = base.split("/services/aigc/").next().unwrap_or(base);
    let url = join(base, if multimodal { MULTIMODAL } else { TEXT });
    let mut params = json!({"result_format": "message"});
    merge(
        &mut params,
        sampling(c.opts, ["temperature", "top_p", "max_tokens"]),
    );
    if c.opts.json != JsonMode::Off {
        params["response_format"] = json!({"type": "json_object"});
    }
    let body =
        json!({"model": c.model, "input": {"messages": formatted.value}, "parameters": params});
    new_wire(url, body, Family::DashScope, formatted.warnings)
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
            let text =
                content_text(c.get("message").and_then(|m| m.get("content"))).ok_or_else(|| {
                    malformed(
                        provider,
                        "no `output.choices[0].message.content` in the reply",
                    )
                })?;
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
    Ok(Parsed {
        text,
        usage: usage_from(
            &v["usage"],
            "input_tokens",
            &["output_tokens"],
            Some("total_tokens"),
        ),
        finish_reason,
    })
}
