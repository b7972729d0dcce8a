//! Optional dense embeddings fused with BM25 by reciprocal rank fusion. The
//! vectors come from the configured provider through `ufo-llm`'s
//! [`Embedder`] (nothing is downloaded) and are kept in the records.

use crate::store::Hit;
use std::collections::HashMap;
pub use ufo_llm::embed::{Embedder, EmbeddingApi, EmbeddingSettings};

/// The `k` of reciprocal rank fusion (the usual 60).
pub const RRF_K: f32 = 60.0;

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
    use serde_json::Value;

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
