//! Model-level behaviour over real HTTP: BACKUP_AGENT fallback, cost arithmetic,
//! replay cassettes and the recorder, `ufo llm format` / `ping`, and secrets never
//! reaching logs, errors or printed requests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: failing loudly is the point

mod common;

use std::sync::Arc;

use common::{Scripted, TestServer};
use serde_json::{Value, json};
use ufo_core::Diagnostic;
use ufo_llm::cli::{format_request, ping};
use ufo_llm::replay::{RecordingModel, ReplayMatch, ReplayModel};
use ufo_llm::{
    ChatModel, ChatRequest, HttpModel, LlmConfig, LlmError, Part, PriceTable, UsageTotals,
    build_model, build_with_backup,
};

fn cfg(yaml: &str, base: &str) -> LlmConfig {
    common::cfg(yaml, base, 1)
}

fn success(text: &str, p: u64, c: u64) -> Value {
    json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}})
}

fn request(screenshot: &str) -> ChatRequest {
    ChatRequest::agent(
        "SYS",
        vec![Part::text("What next?"), Part::image(screenshot)],
    )
}

#[tokio::test]
async fn falls_back_to_the_backup_agent_model() {
    let primary = TestServer::start(vec![Scripted::json(
        401,
        json!({"error": {"message": "bad key", "code": "invalid_api_key"}}),
    )])
    .await;
    let backup = TestServer::start(vec![Scripted::json(200, success("from backup", 5, 2))]).await;
    let p = cfg(
        "API_TYPE: openai\nAPI_KEY: sk-primary\nAPI_MODEL: gpt-4o\n",
        &primary.base,
    );
    let b = cfg(
        "API_TYPE: custom\nAPI_MODEL: backup-model\n",
        &format!("{}/v1", backup.base),
    );
    let model = build_with_backup(&p, Some(&b), None).unwrap();
    let r = model
        .chat(request("data:image/png;base64,AAAA"))
        .await
        .unwrap();
    assert_eq!(r.text, "from backup");
    assert!(r.used_backup);
    assert_eq!(r.model, "backup-model");
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("ufo::llm::auth_failed")),
        "{:?}",
        r.warnings
    );
    assert_eq!(primary.requests().len(), 1);
    assert_eq!(backup.requests().len(), 1);
    assert_eq!(
        backup.requests()[0].body["messages"],
        primary.requests()[0].body["messages"]
    );
}

#[tokio::test]
async fn both_models_failing_reports_both_errors() {
    let primary = TestServer::start(vec![Scripted::json(
        404,
        json!({"error": {"message": "no model"}}),
    )])
    .await;
    let backup = TestServer::start(vec![Scripted::json(
        400,
        json!({"error": {"message": "bad request"}}),
    )])
    .await;
    let p = cfg(
        "API_TYPE: openai\nAPI_KEY: sk-primary\nAPI_MODEL: gpt-4o\n",
        &primary.base,
    );
    let b = cfg(
        "API_TYPE: openai\nAPI_KEY: sk-backup\nAPI_MODEL: gpt-4o-mini\n",
        &backup.base,
    );
    let err = build_with_backup(&p, Some(&b), None)
        .unwrap()
        .chat(request("https://x/a.png"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "ufo::llm::fallback_failed");
    let s = err.to_string();
    assert!(s.contains("no model") && s.contains("bad request"), "{s}");
}

#[tokio::test]
async fn cost_is_the_price_table_arithmetic() {
    let server = TestServer::start(vec![Scripted::json(200, success("ok", 1234, 567))]).await;
    let prices = PriceTable::from_yaml(
        "PRICES:\n  \"openai/gpt-4o\": {input: 0.005, output: 0.015}\n  \"azure/gpt-4o-20240806\": {input: 0.0025, output: 0.01}\n",
        "test",
    )
    .unwrap();
    let model = HttpModel::new(cfg(
        "API_TYPE: openai\nAPI_KEY: sk-k\nAPI_MODEL: gpt-4o\n",
        &server.base,
    ))
    .unwrap()
    .with_prices(Arc::new(prices.clone()));
    let r = model.chat(request("https://x/a.png")).await.unwrap();
    assert_eq!(
        r.cost,
        Some(1234.0 * 0.005 / 1000.0 + 567.0 * 0.015 / 1000.0)
    );

    // Azure prices by deployment name (UFO's "azure/<deployment>" key).
    let server = TestServer::start(vec![Scripted::json(200, success("ok", 1000, 1000))]).await;
    let model = HttpModel::new(cfg(
        "API_TYPE: aoai\nAPI_KEY: k\nAPI_DEPLOYMENT_ID: gpt-4o-20240806\nAPI_VERSION: 2024-10-21\n",
        &server.base,
    ))
    .unwrap()
    .with_prices(Arc::new(prices));
    let r2 = model.chat(request("https://x/a.png")).await.unwrap();
    assert_eq!(
        r2.cost,
        Some(1000.0 * 0.0025 / 1000.0 + 1000.0 * 0.01 / 1000.0)
    );

    // Summed per step, then per session.
    let mut step = UsageTotals::default();
    step.record(&r);
    step.record(&r2);
    let mut session = UsageTotals::default();
    session.merge(&step);
    assert_eq!(session.usage.prompt_tokens, 2234);
    assert_eq!(session.usage.completion_tokens, 1567);
    assert_eq!(session.cost, r.cost.unwrap() + r2.cost.unwrap());
}

#[tokio::test]
async fn recorder_then_replay_answers_without_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("run.jsonl");
    let server = TestServer::start(vec![
        Scripted::json(200, success("{\"step\":1}", 10, 3)),
        Scripted::json(200, success("{\"step\":2}", 11, 4)),
    ])
    .await;
    let real: Arc<dyn ChatModel> = Arc::new(
        HttpModel::new(cfg(
            "API_TYPE: openai\nAPI_KEY: sk-rec-secret\nAPI_MODEL: gpt-4o\n",
            &server.base,
        ))
        .unwrap(),
    );
    let recorder = RecordingModel::new(real, &cassette);
    recorder
        .chat(request("data:image/png;base64,AAAA"))
        .await
        .unwrap();
    recorder
        .chat(request("data:image/png;base64,BBBB"))
        .await
        .unwrap();
    let text = std::fs::read_to_string(&cassette).unwrap();
    assert_eq!(text.lines().count(), 2);
    assert!(
        !text.contains("AAAA") && text.contains("<image>"),
        "screenshots are normalised away"
    );
    assert!(!text.contains("sk-rec-secret"));

    // Replay: the same prompt (another screenshot) gets the recorded answers in order.
    let mut rc = LlmConfig::new(ufo_llm::ApiType::Replay, "x");
    rc.cassette = Some(cassette.display().to_string());
    let replay = build_model(&rc, None).unwrap();
    assert_eq!(
        replay.chat(request("/tmp/other.png")).await.unwrap().text,
        "{\"step\":1}"
    );
    let second = replay.chat(request("https://x/y.png")).await.unwrap();
    assert_eq!(second.text, "{\"step\":2}");
    assert_eq!(second.usage.prompt_tokens, 11);
    // Exhausted: the last answer repeats.
    assert_eq!(
        replay.chat(request("x.png")).await.unwrap().text,
        "{\"step\":2}"
    );

    // A request never recorded fails clearly, naming the cassette.
    let other = ChatRequest::agent("SYS", vec![Part::text("Something else")]);
    let err = replay.chat(other.clone()).await.unwrap_err();
    assert_eq!(err.code(), "ufo::llm::replay_miss");
    assert!(
        err.help()
            .unwrap()
            .contains(&cassette.display().to_string())
    );
    assert!(err.to_string().contains("Something else"));

    // Sequential mode ignores the request.
    let seq = ReplayModel::open(&cassette, ReplayMatch::Sequential).unwrap();
    assert_eq!(seq.chat(other.clone()).await.unwrap().text, "{\"step\":1}");
    assert_eq!(seq.chat(other.clone()).await.unwrap().text, "{\"step\":2}");
    assert_eq!(
        seq.chat(other).await.unwrap_err().code(),
        "ufo::llm::replay_miss"
    );
}

#[test]
fn broken_cassette_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, "{\"request\": {}}\nnot json\n").unwrap();
    let err = ReplayModel::open(&path, ReplayMatch::Exact).unwrap_err();
    assert_eq!(err.code(), "ufo::llm::cassette");
    assert!(err.to_string().contains("line 1"), "{err}");
    let err = ReplayModel::open(dir.path().join("missing.jsonl"), ReplayMatch::Exact).unwrap_err();
    assert_eq!(err.code(), "ufo::llm::cassette");
}

// --- ufo llm format / ping ---------------------------------------------------------

const MESSAGES: &str = r#"[
  {"name": "system", "role": "system", "content": "You are a helpful assistant", "url": null},
  {"name": "Bob", "role": "assistant", "content": "Hi.", "url": null},
  {"name": "Alice", "role": "user", "content": "Nice to meet you!", "url": "https://example.com/image.jpg"}
]"#;

#[test]
fn format_prints_the_exact_request_for_every_api_type() {
    for api in [
        "openai",
        "aoai",
        "azure_ad",
        "qwen",
        "deepseek",
        "ollama",
        "gemini",
        "claude",
        "zhipu",
        "custom",
        "openai_chat",
        "dashscope_chat",
        "dashscope_multimodal",
        "ollama_chat",
        "ollama_generate",
        "gemini_chat",
        "zhipuai_chat",
    ] {
        let out = format_request(api, None, MESSAGES).unwrap_or_else(|e| panic!("{api}: {e}"));
        assert_eq!(out.method, "POST", "{api}");
        assert!(out.url.starts_with("http"), "{api}");
        assert!(out.body.is_object(), "{api}: {out:?}");
        let printed = serde_json::to_string(&out).unwrap();
        let at = |k: &str| printed.find(&format!("\"{k}\":")).unwrap();
        assert!(
            printed.starts_with("{\"method\":")
                && at("method") < at("url")
                && at("url") < at("headers")
                && at("headers") < at("body"),
            "{api}: keys in the order method, url, headers, body: {printed}"
        );
        assert!(
            !printed.contains("<API_KEY>"),
            "{api}: the key placeholder must be redacted: {printed}"
        );
    }
}

#[test]
fn format_uses_the_real_wire_body() {
    let out = format_request("gemini_chat", None, MESSAGES).unwrap();
    assert!(
        out.url
            .ends_with("/v1beta/models/gemini-pro:generateContent")
    );
    assert_eq!(
        out.body["contents"][0]["parts"][0],
        json!({"text": "You are a helpful assistant\n## Dialogue History\nBob: Hi.\nAlice: Nice to meet you!"})
    );
    assert_eq!(out.headers["x-goog-api-key"], "***");
    // Gemini cannot take a web URL: the image is noted, not fetched.
    assert!(
        out.notes[0].contains("https://example.com/image.jpg"),
        "{out:?}"
    );

    let out = format_request("ollama_generate", Some("llama3"), MESSAGES).unwrap();
    assert_eq!(out.url, "http://localhost:11434/api/generate");
    assert_eq!(
        out.body["prompt"],
        "You are a helpful assistant\n\n## Dialogue History\nBob: Hi.\nAlice: Nice to meet you!"
    );
    assert_eq!(out.body["model"], "llama3");
    assert_eq!(out.body["stream"], false);
    assert!(!out.notes.is_empty());

    let out = format_request("dashscope_chat", None, MESSAGES).unwrap();
    assert!(
        out.url
            .ends_with("/api/v1/services/aigc/text-generation/generation")
    );
    assert_eq!(
        out.body["input"]["messages"][1]["content"],
        "## Dialogue History\nBob: Hi.\nAlice: Nice to meet you!"
    );
    assert_eq!(out.headers["authorization"], "Bearer ***");

    let out = format_request("aoai", Some("my-deployment"), MESSAGES).unwrap();
    assert_eq!(
        out.url,
        "https://YOUR-RESOURCE.openai.azure.com/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21"
    );
    assert_eq!(out.headers["api-key"], "***");

    // Errors: unknown type, bad messages.
    let err = format_request("martian", None, MESSAGES).unwrap_err();
    assert_eq!(err.code(), "ufo::llm::unknown_api_type");
    assert!(err.help().unwrap().contains("ollama_generate"));
    let err = format_request("openai", None, "{\"not\": \"a list\"}").unwrap_err();
    assert_eq!(err.code(), "ufo::llm::invalid_messages");
}

#[tokio::test]
async fn ping_reports_latency_usage_and_cost() {
    let server = TestServer::start(vec![Scripted::json(200, success("pong", 12, 1))]).await;
    let c = cfg(
        "API_TYPE: openai\nAPI_KEY: sk-ping\nAPI_MODEL: gpt-4o\n",
        &server.base,
    );
    let report = ping(&c, Some(Arc::new(PriceTable::ufo_defaults())))
        .await
        .unwrap();
    assert_eq!(report.reply, "pong");
    assert_eq!(report.usage.prompt_tokens, 12);
    assert_eq!(report.cost, Some(12.0 * 0.005 / 1000.0 + 0.015 / 1000.0));
    assert_eq!(report.model, "openai/gpt-4o");
    assert!(report.to_string().contains("pong"));
    assert_eq!(server.requests()[0].body["max_tokens"], 16);
}

#[tokio::test]
async fn azure_ad_token_command_failure_is_clear() {
    let server = TestServer::start(vec![]).await;
    let c = cfg(
        "API_TYPE: azure_ad\nAPI_DEPLOYMENT_ID: d\nAPI_VERSION: 2024-10-21\nAAD_TOKEN_COMMAND: echo nope >&2; exit 3\n",
        &server.base,
    );
    let err = HttpModel::new(c)
        .unwrap()
        .chat(request("x.png"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "ufo::llm::aad_token");
    assert!(err.to_string().contains("nope"), "{err}");
    assert!(server.requests().is_empty());
    assert!(matches!(err, LlmError::Token { .. }));
}

/// The error of one chat with the server at `addr`, no retries.
async fn chat_error(addr: std::net::SocketAddr, timeout_secs: u32) -> LlmError {
    let c = LlmConfig::from_yaml(&format!(
        "API_TYPE: openai\nAPI_KEY: sk-x\nAPI_MODEL: m\nAPI_BASE: http://{addr}/v1\nTIMEOUT: {timeout_secs}\nMAX_RETRY: 0\n"
    ))
    .unwrap();
    HttpModel::new(c)
        .unwrap()
        .chat(request("https://x/a.png"))
        .await
        .unwrap_err()
}

#[tokio::test]
async fn a_silent_server_and_a_closed_port_are_told_apart() {
    // Accepts connections and never answers.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent_addr = silent.local_addr().unwrap();
    let hold = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((s, _)) = silent.accept().await {
            held.push(s);
        }
    });
    let e = chat_error(silent_addr, 1).await;
    assert_eq!(e.code(), "ufo::llm::timeout", "{e}");
    assert!(
        e.to_string().contains("no answer within 1 s (TIMEOUT)"),
        "{e}"
    );
    hold.abort();

    // Nobody listens on this port any more.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_addr = closed.local_addr().unwrap();
    drop(closed);
    let e = chat_error(closed_addr, 5).await;
    assert_eq!(e.code(), "ufo::llm::transport", "{e}");
    let s = e.to_string();
    assert!(
        s.contains("cannot connect") && s.to_lowercase().contains("refused"),
        "{s}"
    );
}
