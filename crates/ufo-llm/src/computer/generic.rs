//! Any OpenAI-compatible vision model that answers with a JSON action (the
//! way UI-TARS or Qwen-VL are prompted): `{"thought", "action": {"type",
//! "x", "y", ...}, "status": "CONTINUE" | "FINISH" | "FAIL"}`, coordinates in
//! the screenshot's pixels.

use super::{Action, Conversation, Input, Turn, malformed, num};
use crate::error::LlmError;
use crate::extract::{ExtractOptions, extract_json};
use serde_json::{Value, json};

fn user(text: &str, screenshot: &str) -> Value {
    json!({"role": "user", "content": [
        {"type": "text", "text": text},
        {"type": "image_url", "image_url": {"url": screenshot}},
    ]})
}

pub(super) fn body(
    model: &str,
    max_tokens: u32,
    instructions: &str,
    followup: &str,
    conv: &Conversation,
    input: &Input<'_>,
) -> Value {
    let mut messages = conv.messages.clone();
    if messages.is_empty() {
        let system = instructions
            .replace("{width}", &input.display.width.to_string())
            .replace("{height}", &input.display.height.to_string());
        messages.push(json!({"role": "system", "content": system}));
        messages.push(user(input.task, input.screenshot));
    } else {
        // Earlier screenshots are dropped: only the newest is worth its tokens.
        for m in &mut messages {
            if let Some(parts) = m.get_mut("content").and_then(Value::as_array_mut) {
                parts.retain(|p| p.get("type").and_then(Value::as_str) != Some("image_url"));
            }
        }
        messages.push(user(followup, input.screenshot));
    }
    json!({"model": model, "max_tokens": max_tokens, "temperature": 0, "messages": messages})
}

/// The action of a reply's JSON (`action` object, or the reply itself).
fn action(provider: &str, a: &Value) -> Result<Option<Action>, LlmError> {
    let kind = a
        .get("type")
        .or_else(|| a.get("action"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_ascii_lowercase();
    let x = num(a, "x").unwrap_or(0.0);
    let y = num(a, "y").unwrap_or(0.0);
    let text = a
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Ok(Some(match kind.as_str() {
        "" | "none" | "finish" | "done" => return Ok(None),
        "click" | "left_click" => Action::Click {
            x,
            y,
            button: a
                .get("button")
                .and_then(Value::as_str)
                .unwrap_or("left")
                .to_owned(),
        },
        "right_click" => Action::Click {
            x,
            y,
            button: "right".into(),
        },
        "double_click" => Action::DoubleClick { x, y },
        "move" | "hover" => Action::Move { x, y },
        "drag" => Action::Drag {
            path: vec![
                (
                    num(a, "start_x").unwrap_or(x),
                    num(a, "start_y").unwrap_or(y),
                ),
                (num(a, "end_x").unwrap_or(x), num(a, "end_y").unwrap_or(y)),
            ],
        },
        "keypress" | "key" | "hotkey" => Action::Keypress {
            keys: match a.get("keys") {
                Some(Value::Array(k)) => k
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
                _ => vec![text],
            },
        },
        "type" => Action::Type { text },
        "scroll" => Action::Scroll {
            x,
            y,
            scroll_y: num(a, "scroll_y").unwrap_or(3.0),
        },
        "wait" => Action::Wait {
            seconds: num(a, "seconds").unwrap_or(1.0),
        },
        "screenshot" => Action::Screenshot,
        other => {
            return Err(malformed(
                provider,
                format!("unknown action type {other:?}"),
                a,
            ));
        }
    }))
}

pub(super) fn absorb(
    provider: &str,
    conv: &mut Conversation,
    sent: &Value,
    v: &Value,
) -> Result<Turn, LlmError> {
    let text = v
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed(provider, "no choices[0].message.content in the reply", v))?;
    let reply = extract_json(text, ExtractOptions::lenient())?.value;
    let status = reply
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("CONTINUE")
        .to_ascii_uppercase();
    let a = reply.get("action").cloned().unwrap_or(Value::Null);
    let act = match &a {
        Value::Null => None,
        Value::String(s) => action(
            provider,
            &json!({"type": s, "x": reply.get("x"), "y": reply.get("y"), "text": reply.get("text")}),
        )?,
        obj => action(provider, obj)?,
    };
    let thought = ["thought", "observation", "result"]
        .iter()
        .filter_map(|k| reply.get(*k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    let turn = Turn {
        done: act.is_none() || status == "FINISH" || status == "FAIL",
        failed: status == "FAIL",
        actions: act.into_iter().collect(),
        text: thought,
        ..Turn::finished(v.get("usage"), "prompt_tokens", "completion_tokens")
    };
    conv.replay(sent, json!(text));
    Ok(turn)
}
