//! OpenAI's Responses API with the `computer_use_preview` tool.

use super::{Action, Conversation, Input, SafetyCheck, Turn, malformed, num};
use crate::error::LlmError;
use serde_json::{Value, json};

/// Pixels of `scroll_y` per wheel notch.
const PIXELS_PER_NOTCH: f64 = 100.0;

pub(super) fn body(model: &str, conv: &Conversation, input: &Input<'_>) -> Value {
    let tool = json!({
        "type": "computer_use_preview",
        "display_width": input.display.width,
        "display_height": input.display.height,
        "environment": "linux",
    });
    let items = match (&conv.previous_id, &conv.pending_call) {
        (Some(_), Some(call_id)) => {
            let mut out = json!({
                "type": "computer_call_output",
                "call_id": call_id,
                "output": {"type": "computer_screenshot", "image_url": input.screenshot},
            });
            if !input.acknowledged.is_empty() {
                out["acknowledged_safety_checks"] = input
                    .acknowledged
                    .iter()
                    .map(|c| json!({"id": c.id, "code": c.code, "message": c.message}))
                    .collect();
            }
            json!([out])
        }
        _ => json!([{
            "role": "user",
            "content": [
                {"type": "input_text", "text": input.task},
                {"type": "input_image", "image_url": input.screenshot},
            ],
        }]),
    };
    let mut body = json!({
        "model": model,
        "tools": [tool],
        "input": items,
        "reasoning": {"summary": "concise"},
        "truncation": "auto",
    });
    if let Some(id) = &conv.previous_id {
        body["previous_response_id"] = json!(id);
    }
    body
}

fn point(a: &Value) -> (f64, f64) {
    (num(a, "x").unwrap_or(0.0), num(a, "y").unwrap_or(0.0))
}

/// One `action` object of a `computer_call`.
pub(super) fn action(provider: &str, a: &Value) -> Result<Action, LlmError> {
    let kind = a.get("type").and_then(Value::as_str).unwrap_or_default();
    let (x, y) = point(a);
    Ok(match kind {
        "click" => Action::Click {
            x,
            y,
            button: a
                .get("button")
                .and_then(Value::as_str)
                .unwrap_or("left")
                .to_owned(),
        },
        "double_click" => Action::DoubleClick { x, y },
        "drag" => Action::Drag {
            path: a
                .get("path")
                .and_then(Value::as_array)
                .map(|p| p.iter().map(point).collect())
                .unwrap_or_default(),
        },
        "keypress" => Action::Keypress {
            keys: a
                .get("keys")
                .and_then(Value::as_array)
                .map(|k| {
                    k.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
        },
        "move" => Action::Move { x, y },
        "scroll" => {
            let px = num(a, "scroll_y").unwrap_or(0.0);
            let notches = (px / PIXELS_PER_NOTCH).round();
            let notches = match (notches, px) {
                (n, p) if n == 0.0 && p != 0.0 => p.signum(),
                (n, _) => n,
            };
            Action::Scroll {
                x,
                y,
                scroll_y: notches,
            }
        }
        "type" => Action::Type {
            text: a
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        },
        "wait" => Action::Wait { seconds: 1.0 },
        "screenshot" => Action::Screenshot,
        other => {
            return Err(malformed(
                provider,
                format!("unknown computer action {other:?}"),
                a,
            ));
        }
    })
}

pub(super) fn absorb(provider: &str, conv: &mut Conversation, v: &Value) -> Result<Turn, LlmError> {
    let output = v
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed(provider, "no `output` array in the reply", v))?;
    let mut turn = Turn::finished(v.get("usage"), "input_tokens", "output_tokens");
    conv.pending_call = None;
    for item in output {
        match item.get("type").and_then(Value::as_str) {
            Some("computer_call") => {
                turn.done = false;
                conv.pending_call = item
                    .get("call_id")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if let Some(a) = item.get("action") {
                    turn.actions.push(action(provider, a)?);
                }
                for a in item
                    .get("actions")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    turn.actions.push(action(provider, a)?);
                }
                for c in item
                    .get("pending_safety_checks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    turn.safety_checks.push(SafetyCheck {
                        id: c
                            .get("id")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                        code: c
                            .get("code")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                        message: c
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                    });
                }
            }
            Some("reasoning") => {
                for s in item
                    .get("summary")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(t) = s.get("text").and_then(Value::as_str) {
                        push_line(&mut turn.text, t);
                    }
                }
            }
            Some("message") => {
                for c in item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(t) = c.get("text").and_then(Value::as_str) {
                        push_line(&mut turn.text, t);
                    }
                }
            }
            _ => {}
        }
    }
    if !turn.done && conv.pending_call.is_none() {
        return Err(malformed(provider, "a computer_call without a call_id", v));
    }
    conv.previous_id = v.get("id").and_then(Value::as_str).map(str::to_owned);
    conv.pending_checks = turn.safety_checks.clone();
    Ok(turn)
}

pub(super) fn push_line(out: &mut String, t: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(t.trim());
}
