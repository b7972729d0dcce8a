//! Optional dense embeddings through the provider's endpoint
//! (OpenAI-compatible `POST <base>/embeddings` or Ollama `POST <base>/api/embed`),
//! fused with BM25 by reciprocal rank fusion. Nothing is downloaded: the
//! vectors come from the configured server and are kept in the records.

use crate::error::KnowledgeError;
use crate::store::Hit;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;

/// The `k` of reciprocal rank fusion (the usual 60).
pub const RRF_K: f32 = 60.0;

/// Which wire format the embeddings endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbeddingApi {
    /// OpenAI and compatible servers: `POST <base>/embeddings`.
    OpenAi,
    /// Ollama: `POST <base>/api/embed`.
    Ollama,
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
    pub key: Option<String>,
}

/// An embeddings client.
#[derive(Debug, Clone)]
pub struct Embedder {
    settings: EmbeddingSettings,
    http: reqwest::Client,
}

fn err(message: impl Into<String>) -> KnowledgeError {
    KnowledgeError::Embeddings {
        message: message.into(),
    }
}

impl Embedder {
    /// A client for `settings`.
    pub fn new(settings: EmbeddingSettings) -> Result<Self, KnowledgeError> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .map_err(|e| err(e.to_string()))?;
        Ok(Self { settings, http })
    }

    /// One vector per text, in order.
    pub async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, KnowledgeError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let base = self.settings.base.trim_end_matches('/');
        let (url, body) = match self.settings.api {
            EmbeddingApi::OpenAi => (
                format!("{base}/embeddings"),
                json!({"model": self.settings.model, "input": texts}),
            ),
            EmbeddingApi::Ollama => (
                format!("{base}/api/embed"),
                json!({"model": self.settings.model, "input": texts}),
            ),
        };
        let mut req = self.http.post(&url).json(&body);
        if let Some(k) = &self.settings.key {
            req = req.bearer_auth(k);
        }
        let resp = req.send().await.map_err(|e| err(format!("{url}: {e}")))?;
        let status = resp.status();
        let v: Value = resp
            .json()
            .await
            .map_err(|e| err(format!("{url}: not JSON: {e}")))?;
        if !status.is_success() {
            return Err(err(format!("{url}: HTTP {status}: {v}")));
        }
        let vectors: Vec<Vec<f32>> = match self.settings.api {
            EmbeddingApi::OpenAi => v
                .get("data")
                .and_then(Value::as_array)
                .map(|d| {
                    d.iter()
                        .filter_map(|e| e.get("embedding").and_then(vector))
                        .collect()
                })
                .unwrap_or_default(),
            EmbeddingApi::Ollama => v
                .get("embeddings")
                .and_then(Value::as_array)
                .map(|d| d.iter().filter_map(vector).collect())
                .unwrap_or_default(),
        };
        if vectors.len() != texts.len() {
            return Err(err(format!(
                "{url}: {} vectors for {} texts",
                vectors.len(),
                texts.len()
            )));
        }
        Ok(vectors)
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

/// Cosine similarity (0 when a vector is empty or the lengths differ).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f32, 0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    match na > 0.0 && nb > 0.0 {
        true => dot / (na.sqrt() * nb.sqrt()),
        false => 0.0,
    }
}

/// Reciprocal rank fusion of several rankings: each hit scores
/// `Σ 1 / (RRF_K + rank)`; the best `k`.
pub fn rrf(rankings: &[Vec<Hit>], k: usize) -> Vec<Hit> {
    let mut fused: HashMap<String, Hit> = HashMap::new();
    for ranking in rankings {
        for (rank, h) in ranking.iter().enumerate() {
            let add = 1.0 / (RRF_K + rank as f32 + 1.0);
            fused
                .entry(h.id.clone())
                .and_modify(|e| e.score += add)
                .or_insert_with(|| Hit {
                    score: add,
                    ..h.clone()
                });
        }
    }
    let mut all: Vec<Hit> = fused.into_values().collect();
    all.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    all.truncate(k);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str) -> Hit {
        Hit {
            id: id.into(),
            score: 0.0,
            body: Value::Null,
        }
    }

    #[test]
    fn fusion_rewards_agreement() {
        let a = vec![hit("x"), hit("y"), hit("z")];
        let b = vec![hit("y"), hit("w"), hit("x")];
        let f = rrf(&[a, b], 3);
        let ids: Vec<&str> = f.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["y", "x", "w"]);
        assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-6);
        assert_eq!(cosine(&[1.0], &[1.0, 2.0]), 0.0);
    }
}
