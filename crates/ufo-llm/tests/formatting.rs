//! Golden formatting tests: every example of the AgentScope seed (copied into
//! tests/fixtures/golden), plus our own cases per strategy: images (URL, local
//! file, invalid path), no system message, system message not first, many
//! speakers; and native formatting that folds where an API forbids the turns.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: failing loudly is the point

use std::path::PathBuf;

use serde_json::{Value, json};
use ufo_llm::cli::format_request;
use ufo_llm::format::{Strategy, format_agentscope};
use ufo_llm::message::parse_messages;
use ufo_llm::{Msg, Role};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn local_png() -> String {
    fixtures().join("test.png").display().to_string()
}

fn strategy(name: &str) -> Strategy {
    Strategy::from_agentscope(name).unwrap().1
}

#[test]
fn seed_examples_are_reproduced_exactly() {
    let dir = fixtures().join("golden");
    let mut seen = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
    {
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("{FIXTURES}", &fixtures().display().to_string());
        let case: Value = serde_json::from_str(&text).unwrap();
        let msgs = parse_messages(&case["input"].to_string()).unwrap();
        let s = strategy(case["strategy"].as_str().unwrap());
        let f = format_agentscope(s, case["model"].as_str().unwrap(), &msgs).unwrap();
        let got = if s == Strategy::OllamaGenerate {
            f.value["prompt"].clone()
        } else {
            f.value.clone()
        };
        assert_eq!(
            got,
            case["expected"],
            "{}:\n{}",
            path.display(),
            serde_json::to_string_pretty(&got).unwrap()
        );
        seen += 1;
    }
    assert_eq!(seen, 8, "every seed example has a fixture");
}

#[test]
fn seed_vision_example_warns_about_the_mp3() {
    let msgs = vec![
        Msg::new("user", "And these images", Role::User)
            .with_urls([local_png(), "/Users/xxx/test.mp3".to_owned()]),
    ];
    let f = format_agentscope(Strategy::OpenAiChat, "gpt-4o", &msgs).unwrap();
    assert_eq!(f.warnings.len(), 1);
    assert!(f.warnings[0].contains("test.mp3"));
}

fn image_msgs() -> Vec<Msg> {
    vec![
        Msg::new("system", "Rules.", Role::System),
        Msg::new("Bob", "Look.", Role::User).with_urls([
            "https://h.example/a.png".to_owned(),
            local_png(),
            "/no/such/dir/missing.png".to_owned(),
            "/x/y.txt".to_owned(),
        ]),
    ]
}

#[test]
fn images_url_local_and_invalid_per_strategy() {
    let msgs = image_msgs();
    let data_uri = "data:image/png;base64,YWJjZGVm";

    let f = format_agentscope(Strategy::OpenAiChat, "gpt-4o", &msgs).unwrap();
    assert_eq!(
        f.value[1]["content"],
        json!([
            {"type": "text", "text": "Look."},
            {"type": "image_url", "image_url": {"url": "https://h.example/a.png"}},
            {"type": "image_url", "image_url": {"url": data_uri}}
        ])
    );
    assert_eq!(f.warnings.len(), 2, "{:?}", f.warnings);

    // A non-vision model ignores images with a warning.
    let f = format_agentscope(Strategy::OpenAiChat, "gpt-4", &msgs).unwrap();
    assert_eq!(f.value[1]["content"], json!("Look."));
    assert_eq!(f.warnings.len(), 1);

    let f = format_agentscope(Strategy::DashScopeMultimodal, "qwen-vl-plus", &msgs).unwrap();
    assert_eq!(
        f.value[1]["content"],
        json!([{"text": "## Dialogue History\nBob: Look."}, {"image": "https://h.example/a.png"}, {"image": data_uri}])
    );
    assert_eq!(f.warnings.len(), 2);

    let f = format_agentscope(Strategy::OllamaChat, "llava", &msgs).unwrap();
    assert_eq!(
        f.value[0]["images"],
        json!(["https://h.example/a.png", "YWJjZGVm"])
    );
    let f = format_agentscope(Strategy::OllamaGenerate, "llava", &msgs).unwrap();
    assert_eq!(
        f.value["images"],
        json!(["https://h.example/a.png", "YWJjZGVm"])
    );

    let f = format_agentscope(Strategy::GeminiChat, "gemini-pro", &msgs).unwrap();
    assert_eq!(
        f.value[0]["parts"],
        json!([
            "Rules.\n## Dialogue History\nBob: Look.",
            {"file_data": {"mime_type": "image/png", "file_uri": "https://h.example/a.png"}},
            {"inline_data": {"mime_type": "image/png", "data": "YWJjZGVm"}}
        ])
    );

    for s in [Strategy::DashScopeChat, Strategy::ZhipuAiChat] {
        let f = format_agentscope(s, "m", &msgs).unwrap();
        assert_eq!(
            f.value[1]["content"],
            json!("## Dialogue History\nBob: Look.")
        );
        assert!(f.warnings[0].contains("text-only"), "{:?}", f.warnings);
    }
}

fn dialogue() -> Vec<Msg> {
    vec![
        Msg::new("Bob Smith", "Hi!", Role::Assistant),
        Msg::new("Alice", "Hello.", Role::User),
        Msg::new("Carol", "Hey.", Role::Assistant),
    ]
}

#[test]
fn no_system_message() {
    let msgs = dialogue();
    let history = "## Dialogue History\nBob Smith: Hi!\nAlice: Hello.\nCarol: Hey.";
    for s in [Strategy::DashScopeChat, Strategy::ZhipuAiChat] {
        let f = format_agentscope(s, "m", &msgs).unwrap();
        assert_eq!(f.value, json!([{"role": "user", "content": history}]));
    }
    let f = format_agentscope(Strategy::DashScopeMultimodal, "m", &msgs).unwrap();
    assert_eq!(
        f.value,
        json!([{"role": "user", "content": [{"text": history}]}])
    );
    let f = format_agentscope(Strategy::OllamaChat, "m", &msgs).unwrap();
    assert_eq!(f.value, json!([{"role": "system", "content": history}]));
    let f = format_agentscope(Strategy::OllamaGenerate, "m", &msgs).unwrap();
    assert_eq!(f.value["prompt"], json!(history));
    let f = format_agentscope(Strategy::GeminiChat, "m", &msgs).unwrap();
    assert_eq!(f.value, json!([{"role": "user", "parts": [history]}]));
}

#[test]
fn system_message_not_first_is_a_dialogue_line() {
    let msgs = vec![
        Msg::new("Alice", "Hello.", Role::User),
        Msg::new("system", "Be brief.", Role::System),
    ];
    let history = "## Dialogue History\nAlice: Hello.\nsystem: Be brief.";
    let f = format_agentscope(Strategy::DashScopeChat, "m", &msgs).unwrap();
    assert_eq!(f.value, json!([{"role": "user", "content": history}]));
    let f = format_agentscope(Strategy::GeminiChat, "m", &msgs).unwrap();
    assert_eq!(f.value[0]["parts"][0], json!(history));
    let f = format_agentscope(Strategy::OllamaGenerate, "m", &msgs).unwrap();
    assert_eq!(f.value["prompt"], json!(history));
    // OpenAI keeps every message where it is.
    let f = format_agentscope(Strategy::OpenAiChat, "gpt-4o", &msgs).unwrap();
    assert_eq!(
        f.value[1],
        json!({"role": "system", "name": "system", "content": "Be brief."})
    );
}

#[test]
fn many_speakers() {
    let mut msgs = vec![Msg::new("system", "Moderate.", Role::System)];
    msgs.extend(dialogue());
    msgs.push(Msg::new("小明", "你好", Role::User));
    let f = format_agentscope(Strategy::OpenAiChat, "gpt-4o", &msgs).unwrap();
    let names: Vec<Value> = f
        .value
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.get("name").cloned().unwrap_or(Value::Null))
        .collect();
    // Names are sanitised to ^[A-Za-z0-9_-]{1,64}$; an unusable name is left out.
    assert_eq!(
        names,
        vec![
            json!("system"),
            json!("Bob_Smith"),
            json!("Alice"),
            json!("Carol"),
            Value::Null
        ]
    );
    let f = format_agentscope(Strategy::DashScopeChat, "m", &msgs).unwrap();
    assert_eq!(
        f.value[1]["content"],
        json!("## Dialogue History\nBob Smith: Hi!\nAlice: Hello.\nCarol: Hey.\n小明: 你好")
    );
}

// --- native formatting (UFO API types) through the dry-run request -------------

fn body(api: &str, msgs: &[Msg]) -> Value {
    let json = serde_json::to_string(msgs).unwrap();
    format_request(api, None, &json).unwrap().body
}

#[test]
fn native_alternating_turns_stay_native() {
    let msgs = vec![
        Msg::system("Rules."),
        Msg::new("u", "Q1", Role::User),
        Msg::new("a", "A1", Role::Assistant),
        Msg::new("u", "Q2", Role::User),
    ];
    let b = body("claude", &msgs);
    assert_eq!(b["system"], json!("Rules."));
    assert_eq!(
        b["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "Q1"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "A1"}]},
            {"role": "user", "content": [{"type": "text", "text": "Q2"}]}
        ])
    );
    let b = body("gemini", &msgs);
    assert_eq!(
        b["systemInstruction"],
        json!({"parts": [{"text": "Rules."}]})
    );
    assert_eq!(
        b["contents"][1],
        json!({"role": "model", "parts": [{"text": "A1"}]})
    );
    let b = format_request("qwen", None, &serde_json::to_string(&msgs).unwrap()).unwrap();
    // Qwen defaults to the OpenAI-compatible mode, as UFO does.
    assert!(b.url.ends_with("/compatible-mode/v1/chat/completions"));
}

#[test]
fn native_folds_where_the_api_forbids_the_turns() {
    let mut msgs = vec![Msg::system("Moderate.")];
    msgs.extend(dialogue());
    let history = "## Dialogue History\nBob Smith: Hi!\nAlice: Hello.\nCarol: Hey.";
    let b = body("claude", &msgs);
    assert_eq!(b["system"], json!("Moderate."));
    assert_eq!(
        b["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": history}]}])
    );
    let b = body("gemini", &msgs);
    assert_eq!(
        b["contents"],
        json!([{"role": "user", "parts": [{"text": history}]}])
    );
    // OpenAI-shaped APIs take any order: native, with names.
    let b = body("openai", &msgs);
    assert_eq!(
        b["messages"][1],
        json!({"role": "assistant", "name": "Bob_Smith", "content": "Hi!"})
    );
    // Ollama's native chat takes any order too.
    let b = body("ollama", &msgs);
    assert_eq!(b["messages"].as_array().unwrap().len(), 4);
}
