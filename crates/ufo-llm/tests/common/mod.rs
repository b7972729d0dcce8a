//! A small scripted HTTP server on 127.0.0.1:0: it records every request
//! (method, path with query, headers, body) and answers with scripted responses in
//! order (500 "unscripted" when they run out).
#![allow(
    dead_code,
    unreachable_pub,
    missing_docs,
    clippy::unwrap_used,
    clippy::panic
)]

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: Value,
}

#[derive(Debug, Clone)]
pub struct Scripted {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Scripted {
    pub fn json(status: u16, body: Value) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string().into_bytes(),
        }
    }

    pub fn raw(status: u16, body: &str) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: body.as_bytes().to_vec(),
        }
    }

    pub fn bytes(content_type: &str, body: Vec<u8>) -> Self {
        Self {
            status: 200,
            headers: vec![("content-type".into(), content_type.into())],
            body,
        }
    }

    pub fn header(mut self, k: &str, v: &str) -> Self {
        self.headers.push((k.into(), v.into()));
        self
    }
}

#[derive(Clone, Default)]
struct Shared {
    requests: Arc<Mutex<Vec<Recorded>>>,
    script: Arc<Mutex<VecDeque<Scripted>>>,
}

pub struct TestServer {
    pub base: String,
    shared: Shared,
}

impl TestServer {
    pub async fn start(script: Vec<Scripted>) -> Self {
        let shared = Shared::default();
        shared.script.lock().unwrap().extend(script);
        let app = axum::Router::new()
            .fallback(handler)
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self {
            base: format!("http://{addr}"),
            shared,
        }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.requests.lock().unwrap().clone()
    }

    pub fn push(&self, s: Scripted) {
        self.shared.script.lock().unwrap().push_back(s);
    }
}

async fn handler(
    State(s): State<Shared>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let headers = headers
        .iter()
        .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
        .collect();
    s.requests.lock().unwrap().push(Recorded {
        method: method.to_string(),
        path: uri
            .path_and_query()
            .map(|p| p.to_string())
            .unwrap_or_default(),
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    });
    let next = s.script.lock().unwrap().pop_front();
    match next {
        Some(r) => {
            let mut resp = (StatusCode::from_u16(r.status).unwrap(), r.body).into_response();
            for (k, v) in r.headers {
                resp.headers_mut().insert(
                    axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                    v.parse().unwrap(),
                );
            }
            resp
        }
        None => (StatusCode::INTERNAL_SERVER_ERROR, "unscripted").into_response(),
    }
}

/// An agent section from `yaml` pointed at `base`, retrying `max_retry` times with
/// millisecond backoffs.
pub fn cfg(yaml: &str, base: &str, max_retry: u32) -> ufo_llm::LlmConfig {
    let mut c = ufo_llm::LlmConfig::from_yaml(yaml).unwrap();
    c.api_base = Some(base.to_owned());
    c.max_retry = Some(max_retry);
    c.retry_base_delay_ms = Some(1);
    c.retry_max_delay_ms = Some(5);
    c
}
