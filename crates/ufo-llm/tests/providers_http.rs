//! Every provider against a local HTTP server: the exact request (path, headers,
//! body), a success reply, a 429 with Retry-After (retried), a 401 (not retried,
//! clear error) and malformed bodies (clear error).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: failing loudly is the point

mod common;

use common::{Scripted, TestServer};
use serde_json::{Value, json};
use ufo_core::Diagnostic;
use ufo_llm::{ChatModel, ChatOptions, ChatRequest, HttpModel, LlmConfig, LlmError, Part, Secret};

/// One provider's wire contract.
struct Case {
    name: &'static str,
    /// The agent section; `API_BASE` is the test server's address + `base_path`.
    yaml: &'static str,
    base_path: &'static str,
    /// Path (and query) the request must hit.
    path: &'static str,
    /// Headers that must be present with these values.
    headers: &'static [(&'static str, &'static str)],
    /// Headers that must be absent.
    absent: &'static [&'static str],
    body: Value,
    success: Value,
    usage: (u64, u64),
    unauthorized: Value,
    /// The secret that must never show up in errors.
    secret: &'static str,
}

fn agent_request() -> ChatRequest {
    ChatRequest::agent(
        "SYS",
        vec![
            Part::text("Click OK."),
            Part::image("data:image/png;base64,AAAA"),
        ],
    )
    .with_options(ChatOptions {
        temperature: Some(0.0),
        max_tokens: Some(100),
        ..ChatOptions::default()
    })
}

fn cfg(yaml: &str, base: &str) -> LlmConfig {
    common::cfg(yaml, base, 2)
}

fn openai_success() -> Value {
    json!({"id": "c1", "object": "chat.completion", "model": "m",
           "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"a\":1}"}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}})
}

/// The OpenAI-shaped body for `model` with the agent request's messages.
fn openai_body(model: &str, image_url: &str) -> Value {
    json!({"model": model, "messages": [
        {"role": "system", "content": "SYS"},
        {"role": "user", "content": [
            {"type": "text", "text": "Click OK."},
            {"type": "image_url", "image_url": {"url": image_url}}
        ]}
    ], "temperature": 0.0, "max_tokens": 100})
}

const DATA_URI: &str = "data:image/png;base64,AAAA";

/// The defaults of the table's rows: an OpenAI-shaped success with 11 + 7 tokens,
/// `API_BASE` the bare server address, no header that must be absent.
fn openai_shaped() -> Case {
    Case {
        name: "",
        yaml: "",
        base_path: "",
        path: "",
        headers: &[],
        absent: &[],
        body: Value::Null,
        success: openai_success(),
        usage: (11, 7),
        unauthorized: Value::Null,
        secret: "",
    }
}

/// Every provider: its request, its success reply and its 401 body.
#[allow(clippy::too_many_lines)]
fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "openai",
            yaml: "API_TYPE: openai\nAPI_KEY: sk-openai-secret\nAPI_MODEL: gpt-4o\n",
            path: "/v1/chat/completions",
            headers: &[("authorization", "Bearer sk-openai-secret")],
            body: openai_body("gpt-4o", DATA_URI),
            unauthorized: json!({"error": {"message": "Incorrect API key provided: sk-openai-secret.", "type": "invalid_request_error", "code": "invalid_api_key"}}),
            secret: "sk-openai-secret",
            ..openai_shaped()
        },
        Case {
            name: "aoai",
            yaml: "API_TYPE: aoai\nAPI_KEY: aoai-key-secret\nAPI_MODEL: gpt-4o\nAPI_DEPLOYMENT_ID: dep1\nAPI_VERSION: 2024-10-21\n",
            path: "/openai/deployments/dep1/chat/completions?api-version=2024-10-21",
            headers: &[("api-key", "aoai-key-secret")],
            absent: &["authorization"],
            body: openai_body("dep1", DATA_URI),
            unauthorized: json!({"error": {"code": "401", "message": "Access denied due to invalid subscription key aoai-key-secret."}}),
            secret: "aoai-key-secret",
            ..openai_shaped()
        },
        Case {
            name: "azure_ad",
            yaml: "API_TYPE: azure_ad\nAPI_MODEL: gpt-4o\nAPI_DEPLOYMENT_ID: dep1\nAPI_VERSION: 2024-02-15-preview\nAAD_TOKEN_COMMAND: printf aad-token-secret\n",
            path: "/openai/deployments/dep1/chat/completions?api-version=2024-02-15-preview",
            headers: &[("authorization", "Bearer aad-token-secret")],
            absent: &["api-key"],
            body: openai_body("dep1", DATA_URI),
            unauthorized: json!({"error": {"code": "PermissionDenied", "message": "token aad-token-secret lacks access"}}),
            secret: "aad-token-secret",
            ..openai_shaped()
        },
        Case {
            name: "qwen (OpenAI-compatible)",
            yaml: "API_TYPE: qwen\nAPI_KEY: dashscope-secret\nAPI_MODEL: qwen-vl-max\n",
            base_path: "/compatible-mode/v1",
            path: "/compatible-mode/v1/chat/completions",
            headers: &[("authorization", "Bearer dashscope-secret")],
            body: openai_body("qwen-vl-max", DATA_URI),
            unauthorized: json!({"error": {"code": "invalid_api_key", "message": "Incorrect API key provided."}}),
            secret: "dashscope-secret",
            ..openai_shaped()
        },
        Case {
            name: "qwen (DashScope native)",
            yaml: "API_TYPE: qwen\nAPI_KEY: dashscope-secret\nAPI_MODEL: qwen-vl-max\n",
            base_path: "/api/v1",
            path: "/api/v1/services/aigc/multimodal-generation/generation",
            headers: &[("authorization", "Bearer dashscope-secret")],
            body: json!({
                "model": "qwen-vl-max",
                "input": {"messages": [
                    {"role": "system", "content": [{"text": "SYS"}]},
                    {"role": "user", "content": [{"text": "Click OK."}, {"image": "data:image/png;base64,AAAA"}]}
                ]},
                "parameters": {"result_format": "message", "temperature": 0.0, "max_tokens": 100}
            }),
            success: json!({"output": {"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": [{"text": "{\"a\":1}"}]}}]},
                            "usage": {"input_tokens": 11, "output_tokens": 7}, "request_id": "r1"}),
            unauthorized: json!({"code": "InvalidApiKey", "message": "Invalid API-key provided.", "request_id": "r2"}),
            secret: "dashscope-secret",
            ..openai_shaped()
        },
        Case {
            name: "deepseek (text only)",
            yaml: "API_TYPE: deepseek\nAPI_KEY: ds-secret-key\nAPI_MODEL: deepseek-chat\n",
            path: "/v1/chat/completions",
            headers: &[("authorization", "Bearer ds-secret-key")],
            body: json!({"model": "deepseek-chat", "messages": [
                {"role": "system", "content": "SYS"}, {"role": "user", "content": "Click OK."}
            ], "temperature": 0.0, "max_tokens": 100}),
            unauthorized: json!({"error": {"message": "Authentication Fails (no such user)", "type": "authentication_error", "code": "invalid_request_error"}}),
            secret: "ds-secret-key",
            ..openai_shaped()
        },
        Case {
            name: "ollama (native chat)",
            yaml: "API_TYPE: ollama\nAPI_MODEL: llama3.2-vision\n",
            path: "/api/chat",
            headers: &[],
            absent: &["authorization"],
            body: json!({"model": "llama3.2-vision", "messages": [
                {"role": "system", "content": "SYS"},
                {"role": "user", "content": "Click OK.", "images": ["AAAA"]}
            ], "stream": false, "options": {"temperature": 0.0, "num_predict": 100}}),
            success: json!({"model": "llama3.2-vision", "created_at": "2024-01-01T00:00:00Z",
                            "message": {"role": "assistant", "content": "{\"a\":1}"}, "done": true, "done_reason": "stop",
                            "prompt_eval_count": 11, "eval_count": 7}),
            unauthorized: json!({"error": "unauthorized"}),
            secret: "never-configured",
            ..openai_shaped()
        },
        Case {
            name: "gemini",
            yaml: "API_TYPE: gemini\nAPI_KEY: gemini-secret-key\nAPI_MODEL: gemini-2.0-flash\n",
            path: "/v1beta/models/gemini-2.0-flash:generateContent",
            headers: &[("x-goog-api-key", "gemini-secret-key")],
            absent: &["authorization"],
            body: json!({
                "systemInstruction": {"parts": [{"text": "SYS"}]},
                "contents": [{"role": "user", "parts": [{"text": "Click OK."}, {"inline_data": {"mime_type": "image/png", "data": "AAAA"}}]}],
                "generationConfig": {"temperature": 0.0, "maxOutputTokens": 100}
            }),
            success: json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "pondering", "thought": true}, {"text": "{\"a\":1}"}]}, "finishReason": "STOP"}],
                            "usageMetadata": {"promptTokenCount": 11, "candidatesTokenCount": 7, "totalTokenCount": 18}}),
            unauthorized: json!({"error": {"code": 401, "message": "API key not valid: gemini-secret-key", "status": "UNAUTHENTICATED"}}),
            secret: "gemini-secret-key",
            ..openai_shaped()
        },
        Case {
            name: "claude",
            yaml: "API_TYPE: claude\nAPI_KEY: sk-ant-secret\nAPI_MODEL: claude-3-5-sonnet-latest\n",
            path: "/v1/messages",
            headers: &[
                ("x-api-key", "sk-ant-secret"),
                ("anthropic-version", "2023-06-01"),
            ],
            absent: &["authorization"],
            body: json!({
                "model": "claude-3-5-sonnet-latest", "max_tokens": 100, "system": "SYS",
                "messages": [{"role": "user", "content": [
                    {"type": "text", "text": "Click OK."},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
                ]}],
                "temperature": 0.0
            }),
            success: json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
                            "content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "{\"a\":1}"}],
                            "stop_reason": "end_turn", "usage": {"input_tokens": 11, "output_tokens": 7}}),
            unauthorized: json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
            secret: "sk-ant-secret",
            ..openai_shaped()
        },
        Case {
            name: "zhipu",
            yaml: "API_TYPE: zhipu\nAPI_KEY: zhipu-secret.key\nAPI_MODEL: glm-4v\n",
            base_path: "/api/paas/v4",
            path: "/api/paas/v4/chat/completions",
            headers: &[("authorization", "Bearer zhipu-secret.key")],
            // GLM-4V takes raw base64 without the data: prefix.
            body: openai_body("glm-4v", "AAAA"),
            unauthorized: json!({"error": {"code": "1000", "message": "身份验证失败。"}}),
            secret: "zhipu-secret.key",
            ..openai_shaped()
        },
        Case {
            name: "custom (OpenAI-compatible server)",
            yaml: "API_TYPE: custom\nAPI_MODEL: local\n",
            base_path: "/v1",
            path: "/v1/chat/completions",
            headers: &[],
            absent: &["authorization"],
            body: openai_body("local", DATA_URI),
            unauthorized: json!({"object": "error", "message": "Unauthorized", "type": "Unauthorized", "code": 401}),
            secret: "never-configured",
            ..openai_shaped()
        },
    ]
}

impl Case {
    /// A fresh server answering with `script`, and a model pointed at it.
    async fn serve(&self, script: Vec<Scripted>) -> (TestServer, HttpModel) {
        let server = TestServer::start(script).await;
        let c = cfg(self.yaml, &format!("{}{}", server.base, self.base_path));
        let model = HttpModel::new(c).unwrap();
        (server, model)
    }

    /// The exact request, a parsed success, 429 + Retry-After retried, 401 not
    /// retried (clear error, no secret), malformed bodies a clear error.
    async fn check(&self) {
        let name = self.name;

        // 1. success: exact request, parsed reply
        let (server, model) = self
            .serve(vec![Scripted::json(200, self.success.clone())])
            .await;
        let r = model.chat(agent_request()).await.unwrap();
        assert_eq!(r.text, "{\"a\":1}", "{name}");
        assert_eq!(
            (r.usage.prompt_tokens, r.usage.completion_tokens),
            self.usage,
            "{name}"
        );
        assert_eq!(r.usage.total_tokens, self.usage.0 + self.usage.1, "{name}");
        assert_eq!(r.attempts, 1, "{name}");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 1, "{name}");
        let req = &reqs[0];
        assert_eq!(req.method, "POST", "{name}");
        assert_eq!(req.path, self.path, "{name}");
        assert_eq!(
            req.body,
            self.body,
            "{name} body:\n{}",
            serde_json::to_string_pretty(&req.body).unwrap()
        );
        assert_eq!(
            req.headers.get("content-type").map(String::as_str),
            Some("application/json"),
            "{name}"
        );
        for (k, v) in self.headers {
            assert_eq!(
                req.headers.get(*k).map(String::as_str),
                Some(*v),
                "{name}: header {k}"
            );
        }
        for k in self.absent {
            assert!(
                !req.headers.contains_key(*k),
                "{name}: header {k} must be absent"
            );
        }

        // 2. 429 with Retry-After: retried, then success
        let rate_limited = Scripted::json(
            429,
            json!({"error": {"message": "rate limited", "type": "rate_limit_error"}}),
        )
        .header("retry-after", "0");
        let (server, model) = self
            .serve(vec![
                rate_limited,
                Scripted::json(200, self.success.clone()),
            ])
            .await;
        let r = model.chat(agent_request()).await.unwrap();
        assert_eq!(r.attempts, 2, "{name}");
        assert_eq!(server.requests().len(), 2, "{name}");
        assert_eq!(server.requests()[1].body, self.body, "{name}");

        // 3. 401: not retried, clear error, no secret
        let (server, model) = self
            .serve(vec![
                Scripted::json(401, self.unauthorized.clone()),
                Scripted::json(200, self.success.clone()),
            ])
            .await;
        let err = model.chat(agent_request()).await.unwrap_err();
        assert_eq!(
            server.requests().len(),
            1,
            "{name}: a 401 must not be retried"
        );
        assert!(
            matches!(&err, LlmError::Api(e) if e.status == 401),
            "{name}: {err:?}"
        );
        assert_eq!(err.code(), "ufo::llm::auth_failed", "{name}");
        let help = err.help().unwrap();
        assert!(help.contains("API_KEY"), "{name}: {help}");
        let all = format!("{err} | {help} | {err:?}");
        assert!(!all.contains(self.secret), "{name}: secret leaked: {all}");

        // 4. malformed bodies: not JSON, and JSON of the wrong shape
        for bad in [
            Scripted::raw(200, "<html>oops</html>"),
            Scripted::json(200, json!({"unexpected": true})),
        ] {
            let (_server, model) = self.serve(vec![bad]).await;
            let err = model.chat(agent_request()).await.unwrap_err();
            assert_eq!(
                err.code(),
                "ufo::llm::malformed_response",
                "{name}: {err:?}"
            );
            assert!(err.to_string().contains("malformed"), "{name}: {err}");
        }
    }
}

#[tokio::test]
async fn every_provider_request_reply_and_error() {
    let cases = cases();
    assert_eq!(cases.len(), 11);
    for case in &cases {
        case.check().await;
    }
}

#[tokio::test]
async fn unsupported_parameter_downgrades_once() {
    let server = TestServer::start(vec![
        Scripted::json(
            400,
            json!({"error": {"message": "Unsupported parameter: 'temperature' is not supported with this model.", "type": "invalid_request_error", "param": "temperature", "code": "unsupported_parameter"}}),
        ),
        Scripted::json(200, openai_success()),
    ])
    .await;
    let c = cfg(
        "API_TYPE: openai\nAPI_KEY: sk-x-secret\nAPI_MODEL: o3-mini\n",
        &server.base,
    );
    let r = HttpModel::new(c)
        .unwrap()
        .chat(agent_request())
        .await
        .unwrap();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].body["temperature"], json!(0.0));
    assert!(
        reqs[1].body.get("temperature").is_none(),
        "{}",
        reqs[1].body
    );
    assert_eq!(reqs[1].body["max_tokens"], json!(100));
    assert!(
        r.warnings.iter().any(|w| w.contains("downgraded")),
        "{:?}",
        r.warnings
    );

    // A second unsupported-parameter error is not downgraded again.
    let bad = json!({"error": {"message": "Unsupported parameter: 'top_p' is not supported with this model.", "code": "unsupported_parameter"}});
    let server = TestServer::start(vec![
        Scripted::json(400, bad.clone()),
        Scripted::json(400, bad),
    ])
    .await;
    let c = cfg(
        "API_TYPE: openai\nAPI_KEY: sk-x-secret\nAPI_MODEL: o3-mini\nTOP_P: 0.5\n",
        &server.base,
    );
    let err = HttpModel::new(c)
        .unwrap()
        .chat(agent_request())
        .await
        .unwrap_err();
    assert_eq!(err.code(), "ufo::llm::unsupported_parameter");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn reasoning_model_omits_sampling_and_uses_max_completion_tokens() {
    let server = TestServer::start(vec![Scripted::json(200, openai_success())]).await;
    let c = cfg(
        "API_TYPE: openai\nAPI_KEY: sk-x-secret\nAPI_MODEL: o3-mini\nREASONING_MODEL: True\nTOP_P: 0.1\n",
        &server.base,
    );
    HttpModel::new(c)
        .unwrap()
        .chat(agent_request())
        .await
        .unwrap();
    let body = &server.requests()[0].body;
    assert!(
        body.get("temperature").is_none() && body.get("top_p").is_none(),
        "{body}"
    );
    assert_eq!(body["max_completion_tokens"], json!(100));
}

#[tokio::test]
async fn server_errors_are_retried_until_max_retry() {
    let e = || {
        Scripted::json(
            503,
            json!({"error": {"message": "overloaded", "type": "server_error"}}),
        )
    };
    let server = TestServer::start(vec![e(), e(), e(), e()]).await;
    let c = cfg(
        "API_TYPE: openai\nAPI_KEY: sk-x-secret\nAPI_MODEL: gpt-4o\n",
        &server.base,
    );
    let err = HttpModel::new(c)
        .unwrap()
        .chat(agent_request())
        .await
        .unwrap_err();
    assert_eq!(err.code(), "ufo::llm::server_error");
    assert_eq!(
        server.requests().len(),
        3,
        "1 attempt + MAX_RETRY (2) retries"
    );
}

#[tokio::test]
async fn not_found_names_the_deployment_keys() {
    let server = TestServer::start(vec![Scripted::json(
        404,
        json!({"error": {"code": "DeploymentNotFound", "message": "The API deployment for this resource does not exist."}}),
    )])
    .await;
    let c = cfg(
        "API_TYPE: aoai\nAPI_KEY: k-secret\nAPI_DEPLOYMENT_ID: nope\nAPI_VERSION: 2024-10-21\n",
        &server.base,
    );
    let err = HttpModel::new(c)
        .unwrap()
        .chat(agent_request())
        .await
        .unwrap_err();
    assert_eq!(err.code(), "ufo::llm::not_found");
    match &err {
        LlmError::Api(e) => assert_eq!(e.code.as_deref(), Some("DeploymentNotFound")),
        other => panic!("{other:?}"),
    }
    assert!(err.help().unwrap().contains("API_DEPLOYMENT_ID"));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn missing_key_is_a_config_error_before_any_request() {
    let server = TestServer::start(vec![]).await;
    let c = cfg("API_TYPE: openai\nAPI_MODEL: gpt-4o\n", &server.base);
    let err = HttpModel::new(c)
        .unwrap()
        .chat(agent_request())
        .await
        .unwrap_err();
    assert_eq!(err.code(), "ufo::llm::config");
    assert!(err.help().unwrap().contains("API_KEY"));
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn web_images_are_downloaded_for_ollama_and_gemini() {
    let png: Vec<u8> = vec![0x89, b'P', b'N', b'G', 13, 10, 26, 10];
    // The test's image server is on loopback: allowed by the key.
    for (yaml, img_at) in [
        (
            "API_TYPE: ollama\nAPI_MODEL: llava\nPRIVATE_IMAGE_URLS: true\n",
            "/messages/1/images/0",
        ),
        (
            "API_TYPE: gemini\nAPI_KEY: g-secret\nAPI_MODEL: gemini-2.0-flash\nPRIVATE_IMAGE_URLS: true\n",
            "/contents/0/parts/1/inline_data/data",
        ),
    ] {
        let server = TestServer::start(vec![Scripted::bytes("image/png", png.clone())]).await;
        let success = if yaml.contains("ollama") {
            json!({"message": {"role": "assistant", "content": "ok"}, "done": true})
        } else {
            json!({"candidates": [{"content": {"parts": [{"text": "ok"}]}}]})
        };
        server.push(Scripted::json(200, success));
        let c = cfg(yaml, &server.base);
        let req = ChatRequest::agent(
            "SYS",
            vec![
                Part::text("look"),
                Part::image(format!("{}/shot.png", server.base)),
            ],
        );
        let r = HttpModel::new(c).unwrap().chat(req).await.unwrap();
        assert_eq!(r.text, "ok");
        let reqs = server.requests();
        assert_eq!(reqs[0].method, "GET");
        assert_eq!(reqs[0].path, "/shot.png");
        assert_eq!(
            reqs[1].body.pointer(img_at),
            Some(&json!("iVBORw0KGgo=")),
            "{}",
            reqs[1].body
        );
    }
}

#[tokio::test]
async fn a_linked_image_on_a_private_address_is_never_fetched() {
    // By default a linked image is fetched only from a public address: the
    // loopback server is asked for the chat and never for the image, which
    // is left out with a warning saying why.
    let server = TestServer::start(vec![Scripted::json(
        200,
        json!({"message": {"role": "assistant", "content": "ok"}, "done": true}),
    )])
    .await;
    let c = cfg("API_TYPE: ollama\nAPI_MODEL: llava\n", &server.base);
    let req = ChatRequest::agent(
        "SYS",
        vec![
            Part::text("look"),
            Part::image(format!("{}/secret.png", server.base)),
        ],
    );
    let r = HttpModel::new(c).unwrap().chat(req).await.unwrap();
    assert_eq!(r.text, "ok");
    let reqs = server.requests();
    assert_eq!(
        reqs.len(),
        1,
        "{:?}",
        reqs.iter().map(|r| &r.path).collect::<Vec<_>>()
    );
    assert_ne!(reqs[0].method, "GET");
    let images = reqs[0].body.pointer("/messages/1/images");
    assert!(
        images.is_none_or(|i| i.as_array().is_some_and(Vec::is_empty)),
        "{}",
        reqs[0].body
    );
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("not a public address")),
        "{:?}",
        r.warnings
    );
}

#[tokio::test]
async fn image_tokens_are_estimated_only_when_the_provider_reports_no_usage() {
    use base64::Engine as _;
    let mut png = Vec::new();
    image::RgbImage::new(600, 400)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let uri = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&png)
    );
    let with_image = || ChatRequest::agent("SYS", vec![Part::text("look"), Part::image(&uri)]);
    let text_only = || ChatRequest::agent("SYS", vec![Part::text("look")]);
    let expected = ufo_llm::estimate_request_image_tokens("llava", &with_image());
    assert!(expected > 0);

    let no_usage = json!({"message": {"role": "assistant", "content": "ok"}, "done": true});
    let usage = json!({"message": {"role": "assistant", "content": "ok"}, "done": true,
                       "prompt_eval_count": 900, "eval_count": 3});
    for (reply, request, want) in [
        (no_usage.clone(), with_image(), Some(expected)),
        (no_usage, text_only(), None),
        (usage, with_image(), None),
    ] {
        let server = TestServer::start(vec![Scripted::json(200, reply)]).await;
        let c = cfg("API_TYPE: ollama\nAPI_MODEL: llava\n", &server.base);
        let r = HttpModel::new(c).unwrap().chat(request).await.unwrap();
        assert_eq!(r.estimated_image_tokens, want, "{r:?}");
    }
}

#[test]
fn secret_type_is_redacted() {
    assert_eq!(format!("{:?}", Secret::new("abc-secret")), "Secret(***)");
}
