//! Provider error bodies, normalised into [`ApiError`].
//!
//! Shapes understood: `{"error": {"message", "code"|"type"|"status"}}` (OpenAI,
//! Azure, Gemini, Zhipu, vLLM, Anthropic's `{"type":"error","error":{…}}`),
//! `{"error": "…"}` (Ollama), `{"code", "message", "request_id"}` (DashScope),
//! `{"object":"error","message","type","code"}` (old vLLM); anything else keeps the
//! start of the body as the message.

use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::error::ApiError;
use crate::redact::{Secret, scrub};
use crate::retry::parse_retry_after;

fn as_code(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Normalises an error reply. Secrets are scrubbed from the message.
pub(crate) fn parse_error(
    provider: &str,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
    secrets: &[&Secret],
) -> ApiError {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let retry_after = header("retry-after")
        .and_then(|v| parse_retry_after(&v))
        .or_else(|| {
            header("retry-after-ms")
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(std::time::Duration::from_millis)
        });
    let mut request_id = header("x-request-id")
        .or_else(|| header("request-id"))
        .or_else(|| header("apim-request-id"));
    let v: Option<Value> = serde_json::from_slice(body).ok();
    let (code, message) = match &v {
        Some(v) => match v.get("error") {
            Some(Value::Object(e)) => {
                let code = match e.get("code") {
                    Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
                    _ => as_code(e.get("status"))
                        .or_else(|| as_code(e.get("type")))
                        .or_else(|| as_code(e.get("code"))),
                };
                let msg = e.get("message").and_then(Value::as_str).map(str::to_owned);
                (code, msg)
            }
            Some(Value::String(s)) => (None, Some(s.clone())),
            _ => (
                as_code(v.get("code")).or_else(|| as_code(v.get("type"))),
                v.get("message").and_then(Value::as_str).map(str::to_owned),
            ),
        },
        None => (None, None),
    };
    if let Some(rid) = v
        .as_ref()
        .and_then(|v| v.get("request_id"))
        .and_then(Value::as_str)
    {
        request_id = Some(rid.to_owned());
    }
    let message = message.unwrap_or_else(|| {
        let text: String = String::from_utf8_lossy(body).chars().take(300).collect();
        if text.trim().is_empty() {
            format!("HTTP {status} with an empty body")
        } else {
            text
        }
    });
    ApiError {
        provider: provider.to_owned(),
        status,
        code,
        message: scrub(&message, secrets),
        request_id,
        retry_after,
    }
}
