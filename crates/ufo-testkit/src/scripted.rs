//! A scripted model served over real HTTP: an OpenAI-compatible
//! `POST /v1/chat/completions` on `127.0.0.1:0` that answers from a queue of
//! scripted replies and records every request.
//!
//! Replies are functions of the request, because control ids are only known
//! at run time:
//!
//! ```no_run
//! # async fn t() {
//! use ufo_testkit::scripted::{ScriptedModel, reply};
//! let model = ScriptedModel::start(vec![
//!     reply(|r| format!(r#"{{"observation":"","thought":"","action":{{"function":"click_input","arguments":{{"id":"{}","name":"7"}},"status":"CONTINUE"}}}}"#,
//!         r.control_id("7").unwrap_or_default())),
//! ]).await;
//! let yaml = model.agent_yaml(); // API_TYPE: custom + API_BASE
//! # let _ = yaml; }
//! ```

use axum::Json;
use axum::extract::State;
use axum::routing::post;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A recorded request.
#[derive(Debug, Clone)]
pub struct ScriptedRequest {
    /// The JSON body as received.
    pub body: Value,
}

impl ScriptedRequest {
    /// Every text part of every message, joined with newlines.
    pub fn text(&self) -> String {
        let mut out = Vec::new();
        // Ollama's /api/generate: one prompt string (and a system string).
        for k in ["system", "prompt"] {
            if let Some(t) = self.body[k].as_str() {
                out.push(t.to_owned());
            }
        }
        for m in self.body["messages"].as_array().into_iter().flatten() {
            match &m["content"] {
                Value::String(s) => out.push(s.clone()),
                Value::Array(parts) => {
                    for p in parts {
                        if let Some(t) = p["text"].as_str() {
                            out.push(t.to_owned());
                        }
                    }
                }
                _ => {}
            }
        }
        out.join("\n")
    }

    /// The system prompt.
    pub fn system(&self) -> String {
        self.body["messages"]
            .as_array()
            .and_then(|a| a.iter().find(|m| m["role"] == "system"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_owned()
    }

    /// The text of the last user message.
    pub fn last_user_text(&self) -> String {
        let Some(m) = self.body["messages"]
            .as_array()
            .and_then(|a| a.iter().rev().find(|m| m["role"] == "user"))
        else {
            return String::new();
        };
        match &m["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }

    /// Number of image parts.
    pub fn image_count(&self) -> usize {
        self.image_urls().len()
    }

    /// The URLs of the image parts, in order.
    pub fn image_urls(&self) -> Vec<String> {
        self.body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .filter(|p| p["type"] == "image_url")
            .filter_map(|p| p["image_url"]["url"].as_str().map(str::to_owned))
            .collect()
    }

    /// Whether the text contains `s`.
    pub fn contains(&self, s: &str) -> bool {
        self.text().contains(s)
    }

    /// The JSON array that follows `marker` in the text (e.g.
    /// `<Available Control Item:>`), if any.
    pub fn list_after(&self, marker: &str) -> Vec<Value> {
        let text = self.text();
        let found: Vec<usize> = text.match_indices(marker).map(|(i, _)| i).collect();
        for i in found.into_iter().rev() {
            let rest = text[i + marker.len()..].trim_start();
            let list = serde_json::Deserializer::from_str(rest)
                .into_iter::<Value>()
                .next()
                .and_then(Result::ok)
                .and_then(|v| v.as_array().cloned());
            if let Some(l) = list {
                return l;
            }
        }
        Vec::new()
    }

    /// The id of the first listed control named `name` (the AppAgent's
    /// `<Available Control Item:>`), preferring buttons.
    pub fn control_id(&self, name: &str) -> Option<String> {
        let list = self.list_after("<Available Control Item:>");
        let named: Vec<&Value> = list
            .iter()
            .filter(|c| c["name"].as_str().is_some_and(|n| n.trim() == name))
            .collect();
        named
            .iter()
            .find(|c| c["type"] == "Button")
            .or(named.first())
            .and_then(|c| c["id"].as_str().map(str::to_owned))
    }

    /// The id of the first listed control of type `control_type`.
    pub fn control_id_of_type(&self, control_type: &str) -> Option<String> {
        self.list_after("<Available Control Item:>")
            .iter()
            .find(|c| c["type"] == control_type)
            .and_then(|c| c["id"].as_str().map(str::to_owned))
    }

    /// `(id, name)` of the window of `application` in the HostAgent's
    /// `<Available Applications/Agents:>`.
    pub fn window(&self, application: &str) -> Option<(String, String)> {
        self.list_after("<Available Applications/Agents:>")
            .iter()
            .find(|w| w["application"] == application)
            .map(|w| {
                (
                    w["id"].as_str().unwrap_or_default().to_owned(),
                    w["name"].as_str().unwrap_or_default().to_owned(),
                )
            })
    }
}

/// A scripted reply: a function of the request.
pub type Reply = Box<dyn Fn(&ScriptedRequest) -> String + Send + Sync>;

/// Wraps a closure as a [`Reply`].
pub fn reply(f: impl Fn(&ScriptedRequest) -> String + Send + Sync + 'static) -> Reply {
    Box::new(f)
}

/// A fixed reply.
pub fn fixed(text: impl Into<String>) -> Reply {
    let t = text.into();
    Box::new(move |_| t.clone())
}

/// What an exhausted script answers.
pub const EXHAUSTED: &str = "(the scripted model has no more replies)";

#[derive(Default)]
struct Inner {
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<ScriptedRequest>>,
    /// Answer the script again from its start once it is used up.
    cycle: bool,
}

/// The lock, whether or not a reply panicked while holding it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running scripted model server; stops when dropped (with the runtime).
pub struct ScriptedModel {
    base: String,
    inner: Arc<Inner>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Answers `body` from the script: the reply text and the token counts.
fn answer(inner: &Inner, body: Value) -> (String, u64, u64) {
    let req = ScriptedRequest { body };
    let next = lock(&inner.replies).pop_front();
    let text = match next {
        Some(f) => {
            let text = f(&req);
            if inner.cycle {
                lock(&inner.replies).push_back(f);
            }
            text
        }
        None => EXHAUSTED.to_owned(),
    };
    let prompt_tokens = (req.text().len() / 4) as u64;
    let completion_tokens = (text.len() / 4) as u64;
    if !inner.cycle {
        lock(&inner.requests).push(req);
    }
    (text, prompt_tokens, completion_tokens)
}

/// Ollama's native `/api/generate` and `/api/chat`, non-streaming.
async fn ollama(State(inner): State<Arc<Inner>>, Json(body): Json<Value>) -> Json<Value> {
    let generate = body.get("prompt").is_some();
    let (text, prompt_tokens, completion_tokens) = answer(&inner, body);
    let mut out = json!({
        "model": "scripted", "created_at": "2026-01-01T00:00:00Z", "done": true, "done_reason": "stop",
        "prompt_eval_count": prompt_tokens, "eval_count": completion_tokens
    });
    match generate {
        true => out["response"] = json!(text),
        false => out["message"] = json!({"role": "assistant", "content": text}),
    }
    Json(out)
}

async fn chat(State(inner): State<Arc<Inner>>, Json(body): Json<Value>) -> Json<Value> {
    let (text, prompt_tokens, completion_tokens) = answer(&inner, body);
    Json(json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens}
    }))
}

/// Computer-use APIs (OpenAI's `/responses`, Anthropic's `/messages`): the
/// script's reply is the whole response body, as JSON text.
async fn whole_body(State(inner): State<Arc<Inner>>, Json(body): Json<Value>) -> Json<Value> {
    let (text, _, _) = answer(&inner, body);
    Json(serde_json::from_str(&text).unwrap_or_else(|_| json!({"error": {"message": text}})))
}

impl ScriptedModel {
    /// Starts the server with `replies`, answered in order across all
    /// callers. Panics when no loopback port can be had (a test fixture).
    pub async fn start(replies: Vec<Reply>) -> Self {
        Self::try_start(replies, false)
            .await
            .expect("bind 127.0.0.1:0 for the scripted model")
    }

    /// Starts the server with `replies`; with `cycle`, the script starts
    /// over after its last reply (a benchmark's session run many times) and
    /// requests are not kept.
    pub async fn try_start(replies: Vec<Reply>, cycle: bool) -> std::io::Result<Self> {
        let inner = Arc::new(Inner {
            replies: Mutex::new(replies.into_iter().collect()),
            requests: Mutex::new(Vec::new()),
            cycle,
        });
        let app = axum::Router::new()
            .route("/v1/chat/completions", post(chat))
            .route("/chat/completions", post(chat))
            .route("/api/generate", post(ollama))
            .route("/api/chat", post(ollama))
            .route("/v1/responses", post(whole_body))
            .route("/v1/messages", post(whole_body))
            .with_state(inner.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Self {
            base: format!("http://{addr}/v1"),
            inner,
            task,
        })
    }

    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.base
            .trim_end_matches("/v1")
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or(0)
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// An agent section body for the config: `API_TYPE: custom`, this server.
    pub fn agent_yaml(&self) -> String {
        format!(
            "  API_TYPE: custom\n  API_BASE: {}\n  API_MODEL: scripted\n  MAX_RETRY: 0\n",
            self.base
        )
    }

    /// An agent section body speaking Ollama's native API to this server with
    /// an AgentScope formatting strategy (`ollama_chat`, `ollama_generate`).
    pub fn ollama_yaml(&self, strategy: &str) -> String {
        format!(
            "  API_TYPE: ollama\n  API_BASE: {}\n  API_MODEL: scripted\n  MAX_RETRY: 0\n  FORMAT_STRATEGY: {strategy}\n",
            self.base.trim_end_matches("/v1")
        )
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<ScriptedRequest> {
        lock(&self.inner.requests).clone()
    }

    /// Replies not yet used.
    pub fn remaining(&self) -> usize {
        lock(&self.inner.replies).len()
    }
}
