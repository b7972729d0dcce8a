//! Extraction (llm-formats.md §5, cases J1–J13) and schema validation of replies.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: failing loudly is the point

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use ufo_core::Diagnostic;
use ufo_llm::LlmError;
use ufo_llm::extract::{ExtractOptions, extract_json};
use ufo_llm::validate::{parse_reply, validate_value};

const STRICT: ExtractOptions = ExtractOptions {
    repair: false,
    allow_array: false,
};
const REPAIR: ExtractOptions = ExtractOptions {
    repair: true,
    allow_array: false,
};

fn ok(input: &str, opts: ExtractOptions) -> Value {
    extract_json(input, opts)
        .unwrap_or_else(|e| panic!("{input:?}: {e}"))
        .value
}

#[test]
fn j1_to_j8_parse_without_repair() {
    let cases: &[(&str, Value)] = &[
        ("{\"a\":1}", json!({"a": 1})),                   // J1
        ("```json\n{\"a\":1}\n```", json!({"a": 1})),     // J2
        ("  ```json\n{\"a\":1}\n```\n", json!({"a": 1})), // J3
        (
            "Sure! Here it is:\n```json\n{\"a\":1}\n```\nHope this helps.",
            json!({"a": 1}),
        ), // J4
        ("```\n{\"a\":1}\n```", json!({"a": 1})),         // J5
        ("```JSON\n{\"a\":\"x\"}\n```", json!({"a": "x"})), // J6
        (
            "Result: {\"a\":{\"b\":\"}\"}} trailing",
            json!({"a": {"b": "}"}}),
        ), // J7
        (
            "{\"answer\":\"use ```python\\nprint(1)\\n```\"}",
            json!({"answer": "use ```python\nprint(1)\n```"}),
        ), // J8
    ];
    for (input, expected) in cases {
        let x = extract_json(input, STRICT).unwrap();
        assert_eq!(&x.value, expected, "{input:?}");
        assert!(!x.repaired && !x.truncated);
    }
}

#[test]
fn j8_with_prose_around_a_fenced_string() {
    let input = "Answer:\n{\"answer\":\"use ```python\\nprint(1)\\n```\"}\nDone.";
    assert_eq!(
        ok(input, STRICT),
        json!({"answer": "use ```python\nprint(1)\n```"})
    );
}

#[test]
fn j9_first_object_and_extra_data() {
    let x = extract_json("{\"a\":1}{\"b\":2}", STRICT).unwrap();
    assert_eq!(x.value, json!({"a": 1}));
    assert!(x.extra_data);
}

#[test]
fn j10b_a_broken_reply_is_repaired_before_an_object_inside_it_is_taken() {
    // UFO's reply shape in a fence after prose, with a trailing comma: the
    // reply is the outer object, not its `Args`.
    let input = "Sure!\n```json\n{\n \"Function\": \"click_input\",\n \"Args\": {\"button\": \"left\"},\n \"Status\": \"CONTINUE\",\n}\n```";
    let x = extract_json(input, REPAIR).unwrap();
    assert_eq!(
        x.value,
        json!({"Function": "click_input", "Args": {"button": "left"}, "Status": "CONTINUE"})
    );
    assert!(x.repaired);
}

#[test]
fn j10_trailing_comma_needs_repair() {
    let err = extract_json("{\"a\":1,}", STRICT).unwrap_err();
    assert_eq!(err.code(), "ufo::llm::no_json");
    let x = extract_json("{\"a\":1,}", REPAIR).unwrap();
    assert_eq!(x.value, json!({"a": 1}));
    assert!(x.repaired && !x.truncated);
}

#[test]
fn j11_python_literals_need_repair() {
    assert!(extract_json("{'a': True}", STRICT).is_err());
    let x = extract_json("{'a': True}", REPAIR).unwrap();
    assert_eq!(x.value, json!({"a": true}));
    assert!(x.repaired);
    assert_eq!(
        ok("{'a': None, 'b': False, 'c': 'it\\'s \"x\"'}", REPAIR),
        json!({"a": null, "b": false, "c": "it's \"x\""})
    );
}

#[test]
fn j12_truncation_is_detected() {
    let err = extract_json("{\"a\": \"trunc", STRICT).unwrap_err();
    assert!(matches!(err, LlmError::TruncatedJson { .. }), "{err:?}");
    assert_eq!(err.code(), "ufo::llm::truncated_json");
    let x = extract_json("{\"a\": \"trunc", REPAIR).unwrap();
    assert_eq!(x.value, json!({"a": "trunc"}));
    assert!(x.repaired && x.truncated);
    assert_eq!(
        ok("{\"a\": [1, 2, {\"b\":", REPAIR),
        json!({"a": [1, 2, {"b": null}]})
    );
}

#[test]
fn j13_empty_is_its_own_error() {
    for input in ["", "   \n\t", "\u{feff}"] {
        let err = extract_json(input, REPAIR).unwrap_err();
        assert!(matches!(err, LlmError::EmptyReply), "{input:?}: {err:?}");
        assert_eq!(err.code(), "ufo::llm::empty_reply");
    }
    let err = extract_json("I cannot help with that.", REPAIR).unwrap_err();
    assert_eq!(err.code(), "ufo::llm::no_json");
}

#[test]
fn prose_inside_a_fence_and_smart_quotes() {
    let input = "```json\nAs Player1, I think: {\"vote\": \"Bob\"}\n```";
    assert_eq!(ok(input, STRICT), json!({"vote": "Bob"}));
    assert_eq!(
        ok("{\u{201c}a\u{201d}: \u{201c}b\u{201d}}", REPAIR),
        json!({"a": "b"})
    );
    assert_eq!(ok("\u{200b}{\"a\":1}", STRICT), json!({"a": 1}));
}

#[test]
fn arrays_only_when_allowed() {
    assert!(extract_json("[1,2]", STRICT).is_err());
    let opts = ExtractOptions {
        repair: false,
        allow_array: true,
    };
    assert_eq!(ok("Here: [1, 2]", opts), json!([1, 2]));
}

// --- validation -----------------------------------------------------------------

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Action {
    function: String,
    arguments: serde_json::Map<String, Value>,
    status: Status,
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[allow(dead_code)]
enum Status {
    #[serde(rename = "CONTINUE")]
    Continue,
    #[serde(rename = "FINISH")]
    Finish,
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
struct AppResponse {
    observation: String,
    thought: String,
    #[serde(default)]
    plan: Vec<String>,
    #[serde(default)]
    action: Option<Vec<Action>>,
}

fn mismatch(v: Value) -> (String, String) {
    match validate_value::<AppResponse>(&v).unwrap_err() {
        LlmError::SchemaMismatch { path, message, .. } => (path, message),
        other => panic!("{other:?}"),
    }
}

#[test]
fn valid_reply_deserialises() {
    let reply = "```json\n{\"observation\":\"o\",\"thought\":\"t\",\"action\":[{\"function\":\"click_input\",\"arguments\":{\"id\":\"3\"},\"status\":\"CONTINUE\"}]}\n```";
    let (r, x) = parse_reply::<AppResponse>(reply, REPAIR).unwrap();
    assert_eq!(r.action.unwrap()[0].status, Status::Continue);
    assert!(!x.repaired);
}

#[test]
fn validation_names_the_wrong_field() {
    let (path, msg) = mismatch(json!({"observation": "o"}));
    assert_eq!(path, "$.thought");
    assert!(msg.contains("missing"), "{msg}");

    let (path, msg) = mismatch(
        json!({"observation": "o", "thought": "t", "action": [{"function": 3, "arguments": {}, "status": "CONTINUE"}]}),
    );
    assert_eq!(path, "$.action[0].function");
    assert!(
        msg.contains("expected string") && msg.contains("3"),
        "{msg}"
    );

    let (path, msg) = mismatch(
        json!({"observation": "o", "thought": "t", "action": [{"function": "f", "arguments": {}, "status": "DONE"}]}),
    );
    assert_eq!(path, "$.action[0].status");
    assert!(msg.contains("DONE"), "{msg}");

    let (path, _) = mismatch(
        json!({"observation": "o", "thought": "t", "action": [{"function": "f", "arguments": {}, "status": "FINISH", "extra": 1}]}),
    );
    assert_eq!(path, "$.action[0].extra");

    let (path, msg) = mismatch(json!({"observation": "o", "thought": "t", "plan": "one step"}));
    assert_eq!(path, "$.plan");
    assert!(msg.contains("expected array"), "{msg}");

    // The wrong-keys case of microsoft/UFO#140.
    let err =
        validate_value::<AppResponse>(&json!({"id": 1, "title": "x", "steps": []})).unwrap_err();
    assert_eq!(err.code(), "ufo::llm::schema_mismatch");
    assert!(err.to_string().contains("$.observation"), "{err}");
    assert!(err.help().unwrap().contains("re-ask"));
}

#[test]
fn hostile_replies_end_with_a_clear_error_not_a_spin() {
    // 160k opening braces: once 39 s of quadratic scanning; now bounded.
    let braces = "{".repeat(160_000);
    for opts in [STRICT, REPAIR] {
        let e = extract_json(&braces, opts).unwrap_err();
        assert!(
            matches!(e, LlmError::TruncatedJson { .. } | LlmError::NoJson { .. }),
            "{e}"
        );
    }
    // Nested objects that never parse, then the real one far behind: found
    // when it is among the first starts, a clear error otherwise.
    let noise = "{x} ".repeat(100);
    assert_eq!(ok(&format!("{noise}{{\"a\":1}}"), STRICT), json!({"a": 1}));
    let flood = "{x} ".repeat(10_000);
    let e = extract_json(&format!("{flood}{{\"a\":1}}"), STRICT).unwrap_err();
    assert!(e.to_string().contains("opening brackets"), "{e}");

    // Over the size cap: refused before any scanning, with the sizes named.
    let big = format!(
        "{{\"a\":\"{}\"}}",
        "x".repeat(ufo_llm::extract::MAX_REPLY_BYTES)
    );
    let e = extract_json(&big, REPAIR).unwrap_err();
    assert_eq!(e.code(), "ufo::llm::reply_too_large");
    assert!(e.to_string().contains("bytes"), "{e}");
    assert!(e.help().is_some());
}
