//! Online search against a local SearXNG-shaped server: results fetched and
//! made text, loopback pages refused unless allowed, size limits kept.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use axum::Router;
use axum::extract::{Query, State};
use axum::response::{Html, IntoResponse, Redirect};
use axum::routing::get;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;
use ufo_knowledge::search::{OnlineSearch, SearchProvider, SearchSettings};
use ufo_knowledge::{KnowledgeBase, Retrieve, Settings};

async fn serve() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let app = Router::new()
        .route(
            "/search",
            get(|State(base): State<String>, Query(q): Query<HashMap<String, String>>| async move {
                assert_eq!(q.get("format").map(String::as_str), Some("json"));
                let query = q.get("q").cloned().unwrap_or_default();
                axum::Json(json!({"query": query, "results": [
                    {"url": format!("{base}/page"), "title": "Word wrap in Mousepad", "content": "snippet one"},
                    {"url": format!("{base}/big"), "title": "A big page", "content": "snippet two"},
                ]}))
            }),
        )
        .route(
            "/page",
            get(|| async { Html("<html><script>evil()</script><h1>Word wrap</h1><p>Open <b>View</b> &amp; tick Word Wrap.</p></html>") }),
        )
        .route(
            "/res/v1/web/search",
            get(|h: axum::http::HeaderMap, Query(q): Query<HashMap<String, String>>| async move {
                assert_eq!(h["x-subscription-token"], "brave-key");
                assert_eq!(q["count"], "1");
                axum::Json(json!({"web": {"results": [{"url": "http://127.0.0.1:9/x", "title": "Brave hit", "description": "brave snippet"}]}}))
            }),
        )
        .route(
            "/search",
            axum::routing::post(|h: axum::http::HeaderMap, axum::Json(b): axum::Json<Value>| async move {
                assert_eq!(h["authorization"], "Bearer tavily-key");
                axum::Json(json!({"query": b["query"], "results": [{"url": "http://127.0.0.1:9/y", "title": "Tavily hit", "content": "tavily snippet"}]}))
            }),
        )
        .route("/big", get(|| async { "x".repeat(3 * 1024 * 1024).into_response() }))
        .route("/hop", get(|| async { Redirect::temporary("file:///etc/passwd") }))
        .with_state(base.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

fn settings(endpoint: &str, allow_private: bool) -> SearchSettings {
    SearchSettings {
        endpoint: Some(endpoint.to_owned()),
        allow_private,
        provider: SearchProvider::SearXng,
        api_key: None,
        timeout: Duration::from_secs(10),
        max_page_bytes: 64 * 1024,
        max_text_chars: 4000,
    }
}

#[tokio::test]
async fn loopback_pages_are_refused_unless_allowed() {
    let base = serve().await;
    let s = OnlineSearch::new(settings(&base, false)).unwrap();
    let r = s.search("word wrap mousepad", 2).await.unwrap();
    assert_eq!(r.len(), 2);
    assert_eq!(r[0]["title"], "Word wrap in Mousepad");
    // The page is on a loopback address: not fetched, the snippet stands in.
    assert_eq!(r[0]["text"], "snippet one");
    let why = r[0]["fetch_error"].as_str().unwrap();
    assert!(why.contains("not a public address"), "{why}");
    // Other schemes are never fetched.
    let e = s
        .fetch_text("file:///etc/passwd")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("only http and https"), "{e}");
}

#[tokio::test]
async fn allowed_pages_are_made_text_within_limits() {
    let base = serve().await;
    let s = OnlineSearch::new(settings(&base, true)).unwrap();
    let r = s.search("word wrap", 3).await.unwrap();
    assert_eq!(r.len(), 2);
    assert_eq!(r[0]["text"], "Word wrap\nOpen View & tick Word Wrap.");
    assert!(r[0].get("fetch_error").is_none());
    // 3 MiB served, 64 KiB read, 4,000 characters kept.
    assert_eq!(r[1]["text"].as_str().unwrap().len(), 4000);

    // Through the knowledge base, as the agents ask.
    let dir = tempfile::tempdir().unwrap();
    let mut ks = Settings::off(dir.path().to_path_buf());
    ks.online_search = Some(1);
    ks.search = settings(&base, true);
    let kb = KnowledgeBase::open(ks).unwrap();
    let got = kb.retrieve("word wrap", Some("mousepad")).await;
    assert_eq!(got.online.len(), 1, "{got:?}");
    assert!(
        got.online[0]["text"]
            .as_str()
            .unwrap()
            .contains("tick Word Wrap")
    );
    assert!(got.warnings.is_empty());
    let _: &Value = &got.online[0];
}

#[tokio::test]
async fn every_redirect_target_is_checked_again() {
    let base = serve().await;
    // The first hop is allowed (loopback allowed here); its redirect to a
    // file: URL is checked like a first request and refused.
    let s = OnlineSearch::new(settings(&base, true)).unwrap();
    let e = s
        .fetch_text(&format!("{base}/hop"))
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("only http and https"), "{e}");
}

#[tokio::test]
async fn brave_and_tavily_are_spoken_too() {
    let base = serve().await;
    for (provider, key, title, snippet) in [
        (
            SearchProvider::Brave,
            "brave-key",
            "Brave hit",
            "brave snippet",
        ),
        (
            SearchProvider::Tavily,
            "tavily-key",
            "Tavily hit",
            "tavily snippet",
        ),
    ] {
        let mut st = settings(&base, false);
        st.provider = provider;
        st.api_key = Some(key.into());
        let r = OnlineSearch::new(st)
            .unwrap()
            .search("word wrap", 1)
            .await
            .unwrap();
        assert_eq!(r[0]["title"], title);
        // The page is on loopback: refused, the provider's snippet stands in.
        assert_eq!(r[0]["text"], snippet);
    }
    let mut st = settings(&base, false);
    st.provider = SearchProvider::Brave;
    assert!(
        OnlineSearch::new(st)
            .unwrap_err()
            .to_string()
            .contains("RAG_ONLINE_SEARCH_API_KEY")
    );
}

/// A stand-in proxy: answers every request with a page of its own and
/// counts them.
async fn proxy() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let hits = std::sync::Arc::new(AtomicUsize::new(0));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let counted = hits.clone();
    let app = Router::new().fallback(move || {
        let counted = counted.clone();
        async move {
            counted.fetch_add(1, Ordering::SeqCst);
            Html("<p>served by the proxy</p>")
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, hits)
}

/// The child half of the test below: fetches with the proxy variables set.
const CHILD: &str = "UFO_TEST_PROXY_CHILD";

#[tokio::test]
async fn pages_are_fetched_from_the_checked_address_even_with_a_proxy_set() {
    if let Ok(base) = std::env::var(CHILD) {
        let s = OnlineSearch::new(settings(&base, true)).unwrap();
        let text = s.fetch_text(&format!("{base}/page")).await.unwrap();
        println!("FETCHED: {text}");
        return;
    }
    // A proxy resolves the name itself, past the address the fetch
    // checked: the page must come from the page's own server. Proxy
    // variables are read when a client is built, so the fetch runs in a
    // child process of this test binary that has them set.
    let base = serve().await;
    let (proxy_url, hits) = proxy().await;
    let out = tokio::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "pages_are_fetched_from_the_checked_address_even_with_a_proxy_set",
            "--nocapture",
        ])
        .env(CHILD, &base)
        .env("HTTP_PROXY", &proxy_url)
        .env("http_proxy", &proxy_url)
        .env("ALL_PROXY", &proxy_url)
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("FETCHED: Word wrap"), "{stdout}");
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 0);
}
