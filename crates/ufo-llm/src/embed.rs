//! Dense embeddings through the provider's endpoint (OpenAI-compatible
//! `POST <base>/embeddings` or Ollama `POST <base>/api/embed`), sent like
//! every other model request: the same HTTP client limits, retries of 429,
//! 5xx and transport errors with backoff, and no key in any error.

use crate::client::{exchange, http_client};
use crate::error::LlmError;
use crate::provider::parse_error;
use crate::redact::Secret;
use crate::retry::RetryPolicy;
use serde_json::{Value, json};
use std::time::Duration;

/// Which wire format the embeddings endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbeddingApi {
    /// OpenAI and compatible servers: `POST <base>/embeddings`.
    OpenAi,
    /// Ollama: `POST <base>/api/embed`.
    Ollama,
}

impl EmbeddingApi {
    fn name(self) -> &'static str {
        match self {
            EmbeddingApi::OpenAi => "openai",
            EmbeddingApi::Ollama => "ollama",
        }
    }
}

/// `RAG_EMBEDDINGS`: where embeddings come from.
#[derive(Debug, Clone)]
pub struct EmbeddingSettings {
    /// `API_TYPE`: `openai` (any compatible server) or `ollama`.
    pub api: EmbeddingApi,
    /// `API_BASE`, e.g. `https://api.openai.com/v1` or `http://localhost:11434`.
    pub base: String,
    /// `API_MODEL`, e.g. `text-embedding-3-small` or `nomic-embed-text`.
    pub model: String,
    /// `API_KEY` (OpenAI-compatible only).
    pub key: Option<Secret>,
    /// `MAX_RETRY` and its delays.
    pub retry: RetryPolicy,
    /// `TIMEOUT` of one request.
    pub timeout: Duration,
}

/// An embeddings client.
#[derive(Debug, Clone)]
pub struct Embedder {
    settings: EmbeddingSettings,
    http: reqwest::Client,
}

fn bad_reply(
    api: EmbeddingApi,
    url: &str,
    message: impl std::fmt::Display,
    body: &[u8],
) -> LlmError {
    LlmError::MalformedResponse {
        provider: api.name().to_owned(),
        message: format!("{url}: {message}"),
        excerpt: String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned(),
    }
}

impl Embedder {
    /// A client for `settings`.
    pub fn new(settings: EmbeddingSettings) -> Result<Self, LlmError> {
        let http = http_client(settings.api.name(), settings.timeout)?;
        Ok(Self { settings, http })
    }

    /// One vector per text, in order.
    pub async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let s = &self.settings;
        let base = s.base.trim_end_matches('/');
        let url = match s.api {
            EmbeddingApi::OpenAi => format!("{base}/embeddings"),
            EmbeddingApi::Ollama => format!("{base}/api/embed"),
        };
        let body = json!({"model": s.model, "input": texts});
        let mut retries = 0;
        let v = loop {
            match self.send_once(&url, &body).await {
                Ok(v) => break v,
                Err(e) if e.is_retryable() && retries < s.retry.max_retries => {
                    let delay = s.retry.delay(retries, e.retry_after());
                    retries += 1;
                    tracing::warn!(target: "ufo_llm", provider = s.api.name(), retry = retries, "retrying embeddings after: {e}");
                    tokio::time::sleep(delay).await;
                }
                Err(e) => return Err(e),
            }
        };
        let data = match s.api {
            EmbeddingApi::OpenAi => v.get("data").and_then(Value::as_array).map(|d| {
                d.iter()
                    .filter_map(|e| e.get("embedding").and_then(vector))
                    .collect::<Vec<_>>()
            }),
            EmbeddingApi::Ollama => v
                .get("embeddings")
                .and_then(Value::as_array)
                .map(|d| d.iter().filter_map(vector).collect()),
        };
        let vectors = data.unwrap_or_default();
        if vectors.len() != texts.len() {
            return Err(bad_reply(
                s.api,
                &url,
                format!("{} vectors for {} texts", vectors.len(), texts.len()),
                &[],
            ));
        }
        Ok(vectors)
    }

    async fn send_once(&self, url: &str, body: &Value) -> Result<Value, LlmError> {
        let s = &self.settings;
        let mut req = self.http.post(url).json(body);
        if let Some(k) = &s.key {
            req = req.bearer_auth(k.expose());
        }
        let secrets: Vec<&Secret> = s.key.iter().collect();
        let (status, headers, bytes) = exchange(req, s.api.name(), s.timeout, &secrets).await?;
        if !status.is_success() {
            return Err(LlmError::Api(parse_error(
                s.api.name(),
                status.as_u16(),
                &headers,
                &bytes,
                &secrets,
            )));
        }
        serde_json::from_slice(&bytes)
            .map_err(|e| bad_reply(s.api, url, format!("not JSON: {e}"), &bytes))
    }
}

fn vector(v: &Value) -> Option<Vec<f32>> {
    v.as_array().map(|a| {
        a.iter()
            .filter_map(Value::as_f64)
            .map(|x| x as f32)
            .collect()
    })
}
