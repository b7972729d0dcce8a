//! Dense embeddings from an OpenAI-compatible and an Ollama endpoint (local
//! servers), stored with the records and fused with BM25.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use axum::Json;
use axum::Router;
use axum::routing::post;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use ufo_knowledge::embed::{EmbeddingApi, EmbeddingSettings};
use ufo_knowledge::records::{record_of_summary, summary_record};
use ufo_knowledge::{KnowledgeBase, Settings, Source};
use ufo_llm::{RetryPolicy, Secret};

static BUSY_CALLS: AtomicUsize = AtomicUsize::new(0);

/// A toy embedding: [mentions a colour, mentions a number, 1].
fn vector(text: &str) -> Value {
    let t = text.to_lowercase();
    let colour = ["red", "blue", "colour", "color", "crimson"]
        .iter()
        .any(|w| t.contains(w));
    let number = ["add", "sum", "plus", "12"].iter().any(|w| t.contains(w));
    json!([colour as u8 as f32, number as u8 as f32, 0.1])
}

fn inputs(body: &Value) -> Vec<String> {
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

async fn serve() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let app = Router::new()
        .route(
            "/v1/embeddings",
            post(|Json(b): Json<Value>| async move {
                assert_eq!(b["model"], "toy-embed");
                let data: Vec<Value> = inputs(&b)
                    .iter()
                    .enumerate()
                    .map(|(i, t)| json!({"index": i, "embedding": vector(t)}))
                    .collect();
                Json(json!({"data": data}))
            }),
        )
        .route(
            // Busy once (503), then answers: the client must retry.
            "/busy/embeddings",
            post(|Json(b): Json<Value>| async move {
                if BUSY_CALLS.fetch_add(1, Ordering::SeqCst) == 0 {
                    return (
                        axum::http::StatusCode::SERVICE_UNAVAILABLE,
                        Json(json!({"error": {"message": "overloaded"}})),
                    );
                }
                let data: Vec<Value> = inputs(&b)
                    .iter()
                    .map(|t| json!({"embedding": vector(t)}))
                    .collect();
                (axum::http::StatusCode::OK, Json(json!({"data": data})))
            }),
        )
        .route(
            // Refuses, quoting the key back.
            "/refuse/embeddings",
            post(|headers: axum::http::HeaderMap| async move {
                let auth = headers["authorization"].to_str().unwrap().to_owned();
                (
                    axum::http::StatusCode::UNAUTHORIZED,
                    Json(json!({"error": {"message": format!("bad key in {auth}")}})),
                )
            }),
        )
        .route(
            "/api/embed",
            post(|Json(b): Json<Value>| async move {
                Json(
                    json!({"embeddings": inputs(&b).iter().map(|t| vector(t)).collect::<Vec<_>>()}),
                )
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

async fn kb(api: EmbeddingApi, base: String) -> (tempfile::TempDir, KnowledgeBase) {
    let d = tempfile::tempdir().unwrap();
    let mut s = Settings::off(d.path().to_path_buf());
    s.embeddings = Some(EmbeddingSettings {
        api,
        base,
        model: "toy-embed".into(),
        key: Some(Secret::new("k")),
        retry: RetryPolicy::immediate(0),
        timeout: Duration::from_secs(10),
    });
    let kb = KnowledgeBase::open(s).unwrap();
    let rec = |id: &str, req: &str| {
        record_of_summary(
            id,
            &summary_record(&json!({}), "", req, req, &["gimp".to_owned()]),
        )
    };
    kb.add(
        Source::Experience,
        vec![
            rec("paint", "fill the shape with crimson"),
            rec("sum", "sum the column"),
            rec("open", "open the image file"),
        ],
    )
    .await
    .unwrap();
    (d, kb)
}

#[tokio::test]
async fn dense_vectors_find_what_shares_no_word_and_are_fused_with_bm25() {
    let base = serve().await;
    for (api, base) in [
        (EmbeddingApi::OpenAi, format!("{base}/v1")),
        (EmbeddingApi::Ollama, base.clone()),
    ] {
        let (_d, kb) = kb(api, base).await;
        // Stored with the records.
        let recs = kb.store(Source::Experience).records().unwrap();
        assert_eq!(recs[0].embedding.as_deref(), Some(&[1.0, 0.0, 0.1][..]));
        // "make it red" shares no word with "fill the shape with crimson":
        // BM25 alone finds nothing, the fused ranking finds it first.
        assert!(
            kb.store(Source::Experience)
                .search("make it red", None, 3)
                .unwrap()
                .is_empty()
        );
        let hits = kb
            .search(Source::Experience, "make it red", Some("gimp"), 2)
            .await
            .unwrap();
        assert_eq!(hits[0].id, "paint", "{api:?}: {hits:?}");
        // A word match and a vector match agree: it stays first.
        let hits = kb
            .search(Source::Experience, "sum the numbers", Some("gimp"), 3)
            .await
            .unwrap();
        assert_eq!(hits[0].id, "sum");
        // The application filter holds for the dense ranking too.
        assert!(
            kb.search(Source::Experience, "make it red", Some("mousepad"), 3)
                .await
                .unwrap()
                .is_empty()
        );
    }
}

#[tokio::test]
async fn an_unreachable_endpoint_is_an_error_with_help() {
    let d = tempfile::tempdir().unwrap();
    let mut s = Settings::off(d.path().to_path_buf());
    s.embeddings = Some(EmbeddingSettings {
        api: EmbeddingApi::Ollama,
        base: "http://127.0.0.1:9".into(),
        model: "m".into(),
        key: None,
        retry: RetryPolicy::immediate(0),
        timeout: Duration::from_secs(10),
    });
    let kb = KnowledgeBase::open(s).unwrap();
    let e = kb
        .search(Source::Experience, "x", None, 1)
        .await
        .unwrap_err();
    assert_eq!(ufo_core::Diagnostic::code(&e), "ufo::knowledge::embeddings");
    assert!(
        ufo_core::Diagnostic::help(&e)
            .unwrap()
            .contains("RAG_EMBEDDINGS")
    );
}

#[tokio::test]
async fn a_busy_endpoint_is_retried_and_a_refusal_never_shows_the_key() {
    let base = serve().await;
    let settings = |path: &str, retries: u32| EmbeddingSettings {
        api: EmbeddingApi::OpenAi,
        base: format!("{base}/{path}"),
        model: "toy-embed".into(),
        key: Some(Secret::new("sk-secret-embedding-key")),
        retry: RetryPolicy::immediate(retries),
        timeout: Duration::from_secs(10),
    };
    let e = ufo_llm::embed::Embedder::new(settings("busy", 2)).unwrap();
    let v = e.embed(&["red".to_owned()]).await.unwrap();
    assert_eq!(v, vec![vec![1.0, 0.0, 0.1]]);
    assert_eq!(BUSY_CALLS.load(Ordering::SeqCst), 2, "one 503, one retry");

    let e = ufo_llm::embed::Embedder::new(settings("refuse", 2)).unwrap();
    let err = e.embed(&["red".to_owned()]).await.unwrap_err();
    let shown = format!("{err} {:?}", ufo_core::Diagnostic::report(&err));
    assert!(shown.contains("401"), "{shown}");
    assert!(!shown.contains("sk-secret-embedding-key"), "{shown}");
}
