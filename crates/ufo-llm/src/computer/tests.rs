//! Golden request bodies and reply parsing of the three formats.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use serde_json::json;

const SHOT: &str = "data:image/png;base64,iVBORw0KGgo=";
const D: Display = Display {
    width: 800,
    height: 600,
};

fn model(api_type: &str, base: Option<&str>) -> ComputerModel {
    let cfg: LlmConfig<ComputerApi> = serde_json::from_value(json!({
        "API_TYPE": api_type, "API_BASE": base, "API_KEY": "sk-x", "API_MODEL": "m", "MAX_TOKENS": 512
    }))
    .unwrap();
    ComputerModel::new(
        &cfg,
        "Act on a {width}x{height} screen.",
        "Here is the new screen.",
    )
    .unwrap()
}

fn input<'a>(ack: &'a [SafetyCheck]) -> Input<'a> {
    Input {
        task: "compute 12*7",
        screenshot: SHOT,
        display: D,
        acknowledged: ack,
    }
}

#[test]
fn api_types_and_display_fit() {
    assert_eq!(
        ComputerApi::from_api_type("operator").unwrap(),
        ComputerApi::Responses
    );
    assert_eq!(
        ComputerApi::from_api_type("Claude").unwrap(),
        ComputerApi::Anthropic
    );
    assert_eq!(
        ComputerApi::from_api_type("ollama").unwrap(),
        ComputerApi::Generic
    );
    assert!(ComputerApi::from_api_type("gemini").is_err());
    let max = ComputerApi::Anthropic.max_display();
    assert_eq!(
        Display::fit(1920, 1080, max),
        Display {
            width: 1024,
            height: 576
        }
    );
    assert_eq!(
        Display::fit(355, 486, max),
        Display {
            width: 355,
            height: 486
        }
    );
}

#[test]
fn responses_bodies_chain_by_previous_response_id() {
    let m = model("operator", Some("http://h/v1"));
    let mut conv = Conversation::default();
    let first = responses::body(&m.model, &conv, &input(&[]));
    assert_eq!(
        first,
        json!({
            "model": "m",
            "tools": [{"type": "computer_use_preview", "display_width": 800, "display_height": 600, "environment": "linux"}],
            "input": [{"role": "user", "content": [
                {"type": "input_text", "text": "compute 12*7"},
                {"type": "input_image", "image_url": SHOT}]}],
            "reasoning": {"summary": "concise"},
            "truncation": "auto"
        })
    );
    let reply = json!({"id": "resp_1", "output": [
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Click 1."}]},
        {"type": "computer_call", "id": "cu_1", "call_id": "call_1",
         "action": {"type": "click", "button": "left", "x": 10, "y": 20},
         "pending_safety_checks": [{"id": "sc_1", "code": "malicious_instructions", "message": "Check the screen."}],
         "status": "completed"}],
        "usage": {"input_tokens": 100, "output_tokens": 7, "total_tokens": 107}});
    let t = responses::absorb("p", &mut conv, &reply).unwrap();
    assert_eq!(
        t.actions,
        vec![Action::Click {
            x: 10.0,
            y: 20.0,
            button: "left".into()
        }]
    );
    assert_eq!(t.safety_checks[0].code, "malicious_instructions");
    assert_eq!(t.text, "Click 1.");
    assert!(!t.done);
    assert_eq!(t.usage.total_tokens, 107);
    let ack = t.safety_checks.clone();
    let next = responses::body(&m.model, &conv, &input(&ack));
    assert_eq!(next["previous_response_id"], "resp_1");
    assert_eq!(
        next["input"],
        json!([{"type": "computer_call_output", "call_id": "call_1",
                "output": {"type": "computer_screenshot", "image_url": SHOT},
                "acknowledged_safety_checks": [{"id": "sc_1", "code": "malicious_instructions", "message": "Check the screen."}]}])
    );
    let end = json!({"id": "resp_2", "output": [{"type": "message", "content": [{"type": "output_text", "text": "84"}]}]});
    let t = responses::absorb("p", &mut conv, &end).unwrap();
    assert!(t.done && t.actions.is_empty());
    assert_eq!(t.text, "84");
}

#[test]
fn responses_actions_of_every_kind() {
    let cases = [
        (
            json!({"type": "double_click", "x": 1, "y": 2}),
            Action::DoubleClick { x: 1.0, y: 2.0 },
        ),
        (
            json!({"type": "drag", "path": [{"x": 1, "y": 2}, {"x": 3, "y": 4}]}),
            Action::Drag {
                path: vec![(1.0, 2.0), (3.0, 4.0)],
            },
        ),
        (
            json!({"type": "keypress", "keys": ["CTRL", "A"]}),
            Action::Keypress {
                keys: vec!["CTRL".into(), "A".into()],
            },
        ),
        (
            json!({"type": "move", "x": 5, "y": 6}),
            Action::Move { x: 5.0, y: 6.0 },
        ),
        (
            json!({"type": "scroll", "x": 5, "y": 6, "scroll_x": 0, "scroll_y": 300}),
            Action::Scroll {
                x: 5.0,
                y: 6.0,
                scroll_y: 3.0,
            },
        ),
        (
            json!({"type": "scroll", "x": 5, "y": 6, "scroll_y": -40}),
            Action::Scroll {
                x: 5.0,
                y: 6.0,
                scroll_y: -1.0,
            },
        ),
        (
            json!({"type": "type", "text": "hi"}),
            Action::Type { text: "hi".into() },
        ),
        (json!({"type": "wait"}), Action::Wait { seconds: 1.0 }),
        (json!({"type": "screenshot"}), Action::Screenshot),
    ];
    for (a, want) in cases {
        assert_eq!(responses::action("p", &a).unwrap(), want, "{a}");
    }
    assert!(responses::action("p", &json!({"type": "teleport"})).is_err());
}

#[test]
fn anthropic_bodies_replay_the_conversation() {
    let m = model("claude", None);
    let mut conv = Conversation::default();
    let first = anthropic::body(&m.model, m.max_tokens, &conv, &input(&[]));
    assert_eq!(
        first,
        json!({
            "model": "m", "max_tokens": 512,
            "tools": [{"type": "computer_20250124", "name": "computer", "display_width_px": 800, "display_height_px": 600}],
            "messages": [{"role": "user", "content": [
                {"type": "text", "text": "compute 12*7"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]}]
        })
    );
    let reply = json!({"content": [
        {"type": "text", "text": "I'll press 1."},
        {"type": "tool_use", "id": "toolu_1", "name": "computer", "input": {"action": "left_click", "coordinate": [10, 20]}}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 50, "output_tokens": 9}});
    let t = anthropic::absorb("p", &mut conv, &first, &reply).unwrap();
    assert_eq!(
        t.actions,
        vec![Action::Click {
            x: 10.0,
            y: 20.0,
            button: "left".into()
        }]
    );
    let next = anthropic::body(&m.model, m.max_tokens, &conv, &input(&[]));
    let msgs = next["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 3);
    assert_eq!(msgs[1]["role"], "assistant");
    assert_eq!(msgs[2]["content"][0]["type"], "tool_result");
    assert_eq!(msgs[2]["content"][0]["tool_use_id"], "toolu_1");
    assert_eq!(msgs[2]["content"][0]["content"][0]["type"], "image");
    for (input, want) in [
        (
            json!({"action": "key", "text": "ctrl+a"}),
            vec![Action::Keypress {
                keys: vec!["ctrl+a".into()],
            }],
        ),
        (
            json!({"action": "scroll", "coordinate": [1, 2], "scroll_direction": "up", "scroll_amount": 2}),
            vec![Action::Scroll {
                x: 1.0,
                y: 2.0,
                scroll_y: -2.0,
            }],
        ),
        (
            json!({"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [3, 4]}),
            vec![Action::Drag {
                path: vec![(1.0, 2.0), (3.0, 4.0)],
            }],
        ),
        (
            json!({"action": "type", "text": "x"}),
            vec![Action::Type { text: "x".into() }],
        ),
    ] {
        let mut c = Conversation::default();
        let r = json!({"content": [{"type": "tool_use", "id": "t", "name": "computer", "input": input}]});
        assert_eq!(
            anthropic::absorb("p", &mut c, &first, &r).unwrap().actions,
            want
        );
    }
    let end = json!({"content": [{"type": "text", "text": "Done: 84"}], "stop_reason": "end_turn"});
    let t = anthropic::absorb("p", &mut conv, &next, &end).unwrap();
    assert!(t.done);
    assert_eq!(t.text, "Done: 84");
}

#[test]
fn generic_reads_sloppy_json_actions() {
    let m = model("ollama", Some("http://localhost:11434/v1"));
    let mut conv = Conversation::default();
    let first = generic::body(
        &m.model,
        m.max_tokens,
        &m.instructions,
        &m.followup,
        &conv,
        &input(&[]),
    );
    assert_eq!(
        first["messages"][0],
        json!({"role": "system", "content": "Act on a 800x600 screen."})
    );
    assert_eq!(first["messages"][1]["content"][1]["image_url"]["url"], SHOT);
    let reply = |text: &str| json!({"choices": [{"message": {"role": "assistant", "content": text}}], "usage": {"prompt_tokens": 5, "completion_tokens": 3}});
    let t = generic::absorb("p", &mut conv, &first, &reply("Sure! ```json\n{\"thought\": \"press 1\", \"action\": {\"type\": \"click\", \"x\": \"10\", \"y\": 20}, \"status\": \"CONTINUE\"}\n```")).unwrap();
    assert_eq!(
        t.actions,
        vec![Action::Click {
            x: 10.0,
            y: 20.0,
            button: "left".into()
        }]
    );
    assert!(!t.done);
    let next = generic::body(
        &m.model,
        m.max_tokens,
        &m.instructions,
        &m.followup,
        &conv,
        &input(&[]),
    );
    let msgs = next["messages"].as_array().unwrap();
    // The old screenshot is dropped; the new one comes with the follow-up text.
    assert_eq!(msgs.len(), 4);
    assert_eq!(msgs[1]["content"].as_array().unwrap().len(), 1);
    assert_eq!(msgs[3]["content"][0]["text"], "Here is the new screen.");
    let t = generic::absorb(
        "p",
        &mut conv,
        &next,
        &reply("{\"action\": \"type\", \"text\": \"hi\"}"),
    )
    .unwrap();
    assert_eq!(t.actions, vec![Action::Type { text: "hi".into() }]);
    let t = generic::absorb(
        "p",
        &mut conv,
        &next,
        &reply("{\"thought\": \"done\", \"status\": \"FINISH\", \"result\": \"84\"}"),
    )
    .unwrap();
    assert!(t.done && !t.failed && t.actions.is_empty());
    let t = generic::absorb("p", &mut conv, &next, &reply("{\"status\": \"FAIL\"}")).unwrap();
    assert!(t.failed);
    assert!(generic::absorb("p", &mut conv, &next, &reply("no json here")).is_err());
}
