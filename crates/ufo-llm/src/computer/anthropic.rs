//! Anthropic's `computer` tool (Messages API, beta `computer-use-2025-01-24`).

use super::responses::push_line;
use super::{Action, Conversation, Input, Turn, malformed, num};
use crate::error::LlmError;
use serde_json::{Value, json};

/// The beta header the `computer_20250124` tool needs.
pub(super) const BETA: &str = "computer-use-2025-01-24";

fn image(data_url: &str) -> Value {
    let (media, data) = data_url
        .strip_prefix("data:")
        .and_then(|r| r.split_once(";base64,"))
        .unwrap_or(("image/png", data_url));
    json!({"type": "image", "source": {"type": "base64", "media_type": media, "data": data}})
}

/// The messages of the next request: the conversation, plus either the task
/// with the first screenshot or the pending tool call's result.
fn messages(conv: &Conversation, input: &Input<'_>) -> Vec<Value> {
    let mut m = conv.messages.clone();
    match &conv.pending_call {
        Some(id) => m.push(json!({"role": "user", "content": [{
            "type": "tool_result", "tool_use_id": id, "content": [image(input.screenshot)],
        }]})),
        None => m.push(json!({"role": "user", "content": [
            {"type": "text", "text": input.task},
            image(input.screenshot),
        ]})),
    }
    m
}

pub(super) fn body(model: &str, max_tokens: u32, conv: &Conversation, input: &Input<'_>) -> Value {
    json!({
        "model": model,
        "max_tokens": max_tokens,
        "tools": [{
            "type": "computer_20250124",
            "name": "computer",
            "display_width_px": input.display.width,
            "display_height_px": input.display.height,
        }],
        "messages": messages(conv, input),
    })
}

fn coordinate(v: Option<&Value>) -> (f64, f64) {
    let a = v.and_then(Value::as_array);
    let at = |i: usize| {
        a.and_then(|a| a.get(i))
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
    };
    (at(0), at(1))
}

/// The actions of one `computer` tool call.
fn actions(provider: &str, input: &Value) -> Result<Vec<Action>, LlmError> {
    let kind = input
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let (x, y) = coordinate(input.get("coordinate"));
    let click = |button: &str| Action::Click {
        x,
        y,
        button: button.to_owned(),
    };
    let text = input
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Ok(match kind {
        "left_click" => vec![click("left")],
        "right_click" => vec![click("right")],
        "middle_click" => vec![click("middle")],
        "double_click" => vec![Action::DoubleClick { x, y }],
        "triple_click" => vec![Action::DoubleClick { x, y }, click("left")],
        "mouse_move" => vec![Action::Move { x, y }],
        "left_click_drag" => {
            let from = coordinate(input.get("start_coordinate"));
            vec![Action::Drag {
                path: vec![from, (x, y)],
            }]
        }
        "key" => vec![Action::Keypress { keys: vec![text] }],
        "type" => vec![Action::Type { text }],
        "scroll" => {
            let amount = num(input, "scroll_amount").unwrap_or(3.0);
            let dir = input
                .get("scroll_direction")
                .and_then(Value::as_str)
                .unwrap_or("down");
            let notches = match dir {
                "up" => -amount,
                _ => amount,
            };
            vec![Action::Scroll {
                x,
                y,
                scroll_y: notches,
            }]
        }
        "wait" => vec![Action::Wait {
            seconds: num(input, "duration").unwrap_or(1.0),
        }],
        "screenshot" | "cursor_position" => vec![Action::Screenshot],
        other => {
            return Err(malformed(
                provider,
                format!("unknown computer action {other:?}"),
                input,
            ));
        }
    })
}

pub(super) fn absorb(
    provider: &str,
    conv: &mut Conversation,
    sent: &Value,
    v: &Value,
) -> Result<Turn, LlmError> {
    let content = v
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed(provider, "no `content` array in the reply", v))?;
    let mut turn = Turn::finished(v.get("usage"), "input_tokens", "output_tokens");
    let mut pending = None;
    for block in content {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = block.get("text").and_then(Value::as_str) {
                    push_line(&mut turn.text, t);
                }
            }
            Some("tool_use") if block.get("name").and_then(Value::as_str) == Some("computer") => {
                turn.done = false;
                pending = block.get("id").and_then(Value::as_str).map(str::to_owned);
                turn.actions.extend(actions(
                    provider,
                    block.get("input").unwrap_or(&Value::Null),
                )?);
            }
            _ => {}
        }
    }
    // The conversation is replayed whole: what was sent, then the answer.
    conv.replay(sent, json!(content));
    conv.pending_call = pending;
    Ok(turn)
}
