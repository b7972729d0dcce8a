//! Secrets never reach logs (captured at TRACE across a retry and a fallback),
//! error messages, help lines, Debug output or `ufo llm format` output.
//!
//! Alone in its own test binary: it installs the process-wide log subscriber.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: failing loudly is the point

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use common::{Scripted, TestServer};
use serde_json::json;
use ufo_core::Diagnostic;
use ufo_llm::cli::format_request_with;
use ufo_llm::{ChatRequest, HttpModel, LlmConfig, Part, Strategy, build_with_backup};

const MESSAGES: &str = r#"[
  {"name": "system", "role": "system", "content": "You are a helpful assistant", "url": null},
  {"name": "Bob", "role": "assistant", "content": "Hi.", "url": null},
  {"name": "Alice", "role": "user", "content": "Nice to meet you!", "url": "https://example.com/image.jpg"}
]"#;

fn cfg(yaml: &str, base: &str) -> LlmConfig {
    common::cfg(yaml, base, 1)
}

fn request(screenshot: &str) -> ChatRequest {
    ChatRequest::agent(
        "SYS",
        vec![Part::text("What next?"), Part::image(screenshot)],
    )
}

#[derive(Clone)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn no_secret_in_logs_errors_or_format_output() {
    const KEY: &str = "sk-live-TOPSECRET-0123456789";
    let logs = Capture(Arc::new(Mutex::new(Vec::new())));
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    // This is the only test of this binary, so a global subscriber sees every
    // event from every runtime thread, with no other test racing it.
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let echo = json!({"error": {"message": format!("Incorrect API key provided: {KEY}"), "code": "invalid_api_key"}});
    let server = TestServer::start(vec![
        Scripted::json(503, echo.clone()),
        Scripted::json(401, echo.clone()),
        Scripted::json(401, echo),
    ])
    .await;
    let c = cfg(
        &format!("API_TYPE: openai\nAPI_KEY: {KEY}\nAPI_MODEL: gpt-4o\n"),
        &server.base,
    );
    let backup = cfg(
        &format!("API_TYPE: openai\nAPI_KEY: {KEY}\nAPI_MODEL: gpt-4o-mini\n"),
        &server.base,
    );
    let model = build_with_backup(&c, Some(&backup), None).unwrap();
    let err = model.chat(request("https://x/a.png")).await.unwrap_err();
    assert_eq!(
        server.requests()[0].headers["authorization"],
        format!("Bearer {KEY}")
    );

    let mut everything = format!(
        "{err}\n{err:?}\n{}\n{:?}\n{c:?}\n",
        err.help().unwrap_or_default(),
        err.report()
    );
    everything.push_str(&serde_json::to_string(&err.report()).unwrap());
    let printed =
        serde_json::to_string(&format_request_with(&c, Strategy::Native, MESSAGES).unwrap())
            .unwrap();
    assert!(printed.contains("Bearer ***"), "{printed}");
    everything.push_str(&printed);
    everything.push_str(&format!("{:?}", HttpModel::new(c.clone()).unwrap()));
    let log_text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(
        log_text.contains("retrying") && log_text.contains("BACKUP_AGENT"),
        "logs were captured: {log_text}"
    );
    everything.push_str(&log_text);
    assert!(!everything.contains(KEY), "a secret leaked:\n{everything}");
    assert!(!everything.contains("TOPSECRET"));
}
