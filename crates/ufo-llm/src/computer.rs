//! Computer-use models: a model that looks at a screenshot and answers with
//! coordinate actions (UFO's operator). Three wire formats:
//!
//! * OpenAI's Responses API with the `computer_use_preview` tool
//!   ([`ComputerApi::Responses`], `API_TYPE: operator` or `openai`):
//!   `computer_call` items with a `call_id` and `pending_safety_checks`,
//!   answered by a `computer_call_output` screenshot (with the checks the
//!   user acknowledged) chained by `previous_response_id`;
//! * Anthropic's `computer` tool ([`ComputerApi::Anthropic`], `API_TYPE:
//!   claude`): `tool_use` blocks answered by a `tool_result` with the
//!   screenshot, the whole conversation replayed each turn;
//! * any OpenAI-compatible vision model ([`ComputerApi::Generic`], `API_TYPE:
//!   ollama`, `custom`, `qwen`, ...) that answers with a JSON action, UI-TARS
//!   or Qwen-VL style, by Chat Completions.
//!
//! A [`ComputerModel`] keeps the conversation; [`ComputerModel::turn`] sends
//! the latest screenshot and returns the model's next [`Turn`]. Coordinates
//! are pixels of the screenshot as sent (its size is the `display`).

mod anthropic;
mod generic;
mod responses;

use crate::config::LlmConfig;
use crate::error::{ApiError, LlmError};
use crate::redact::Secret;
use crate::usage::Usage;
use serde_json::Value;
use std::time::Duration;
use tokio::sync::Mutex;

/// Which computer-use wire format a model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComputerApi {
    /// OpenAI Responses API, `computer_use_preview` tool.
    Responses,
    /// Anthropic Messages, `computer` tool.
    Anthropic,
    /// OpenAI-compatible Chat Completions, JSON actions.
    Generic,
}

/// `OPERATOR.API_TYPE`, read with the section: its error lists the accepted
/// values (the key is added by the reader).
impl<'de> serde::Deserialize<'de> for ComputerApi {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <String as serde::Deserialize>::deserialize(d)?;
        Self::from_api_type(&s).map_err(|e| {
            serde::de::Error::custom(match e {
                LlmError::Config { message, .. } => message,
                other => other.to_string(),
            })
        })
    }
}

impl ComputerApi {
    /// The format of an `OPERATOR.API_TYPE`.
    pub fn from_api_type(t: &str) -> Result<Self, LlmError> {
        match t.trim().to_ascii_lowercase().as_str() {
            "operator" | "openai" | "openai_responses" => Ok(Self::Responses),
            "claude" | "anthropic" => Ok(Self::Anthropic),
            "ollama" | "custom" | "qwen" | "vllm" | "openai_compatible" | "ui-tars" | "uitars" => {
                Ok(Self::Generic)
            }
            other => Err(LlmError::config(
                "OPERATOR.API_TYPE",
                format!(
                    "{other:?} has no computer-use format; use operator (OpenAI Responses), claude (Anthropic computer tool), or ollama/custom (a vision model answering JSON actions)"
                ),
            )),
        }
    }

    /// The largest screenshot the provider wants; larger ones are scaled down
    /// (keeping the aspect) and coordinates mapped back.
    pub fn max_display(self) -> Display {
        match self {
            // Anthropic recommends XGA; OpenAI and local models work well at 1280x800.
            Self::Anthropic => Display {
                width: 1024,
                height: 768,
            },
            Self::Responses | Self::Generic => Display {
                width: 1280,
                height: 800,
            },
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Responses => "openai-responses",
            Self::Anthropic => "anthropic-computer",
            Self::Generic => "generic-computer",
        }
    }
}

/// The size, in pixels, of the screenshots the model sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Display {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

impl Display {
    /// `w`×`h` scaled down (never up) to fit inside `max`, keeping the aspect.
    pub fn fit(w: u32, h: u32, max: Display) -> Display {
        let s = (f64::from(max.width) / f64::from(w.max(1)))
            .min(f64::from(max.height) / f64::from(h.max(1)))
            .min(1.0);
        Display {
            width: ((f64::from(w) * s).round() as u32).max(1),
            height: ((f64::from(h) * s).round() as u32).max(1),
        }
    }
}

/// One action, in screenshot pixels.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A click.
    Click {
        /// x.
        x: f64,
        /// y.
        y: f64,
        /// `left`, `right` or `middle`.
        button: String,
    },
    /// A double click.
    DoubleClick {
        /// x.
        x: f64,
        /// y.
        y: f64,
    },
    /// A drag through points.
    Drag {
        /// The path, first pressed, last released.
        path: Vec<(f64, f64)>,
    },
    /// Keys pressed together (`["ctrl", "a"]`, or `["ctrl+a"]`).
    Keypress {
        /// Key names.
        keys: Vec<String>,
    },
    /// A pointer move.
    Move {
        /// x.
        x: f64,
        /// y.
        y: f64,
    },
    /// Wheel notches at a point, positive down.
    Scroll {
        /// x.
        x: f64,
        /// y.
        y: f64,
        /// Notches, positive down.
        scroll_y: f64,
    },
    /// Text typed as it is.
    Type {
        /// The text.
        text: String,
    },
    /// A pause.
    Wait {
        /// Seconds.
        seconds: f64,
    },
    /// Just a new screenshot.
    Screenshot,
}

/// A provider's safety check on an action (OpenAI's `pending_safety_checks`).
#[derive(Debug, Clone, PartialEq)]
pub struct SafetyCheck {
    /// Its id (sent back when acknowledged).
    pub id: String,
    /// Its kind, e.g. `malicious_instructions`.
    pub code: String,
    /// What the provider says.
    pub message: String,
}

/// The model's answer to one screenshot.
#[derive(Debug, Clone)]
pub struct Turn {
    /// Actions to run, in order (empty when done).
    pub actions: Vec<Action>,
    /// Checks the user must acknowledge before the actions run.
    pub safety_checks: Vec<SafetyCheck>,
    /// What the model said (reasoning summary, message, thought).
    pub text: String,
    /// The model considers the task finished (no action asked for).
    pub done: bool,
    /// The model gave up (generic format's `FAIL`).
    pub failed: bool,
    /// Tokens.
    pub usage: Usage,
}

impl Turn {
    /// A finished turn with no action yet, with the tokens of `usage` (the
    /// reply's usage object) read at `input` and `output`.
    pub(crate) fn finished(usage: Option<&Value>, input: &str, output: &str) -> Self {
        let usage = usage.unwrap_or(&Value::Null);
        let n = |k: &str| num(usage, k).unwrap_or(0.0) as u64;
        Turn {
            actions: Vec::new(),
            safety_checks: Vec::new(),
            text: String::new(),
            done: true,
            failed: false,
            usage: Usage::new(n(input), n(output)),
        }
    }
}

/// The conversation so far, per format.
#[derive(Debug, Default)]
pub(crate) struct Conversation {
    /// Responses: the last response's id.
    pub(crate) previous_id: Option<String>,
    /// Responses: the `call_id` / Anthropic: the `tool_use` id awaiting a screenshot.
    pub(crate) pending_call: Option<String>,
    /// Anthropic and generic: the messages so far.
    pub(crate) messages: Vec<Value>,
    /// Safety checks of the pending call (acknowledged ones are sent back).
    pub(crate) pending_checks: Vec<SafetyCheck>,
}

/// What a turn sends.
pub(crate) struct Input<'a> {
    pub(crate) task: &'a str,
    pub(crate) screenshot: &'a str,
    pub(crate) display: Display,
    pub(crate) acknowledged: &'a [SafetyCheck],
}

/// A computer-use model with its conversation.
pub struct ComputerModel {
    api: ComputerApi,
    base: String,
    key: Secret,
    model: String,
    max_tokens: u32,
    instructions: String,
    followup: String,
    http: reqwest::Client,
    conversation: Mutex<Conversation>,
}

impl std::fmt::Debug for ComputerModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ComputerModel")
            .field("api", &self.api)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl ComputerModel {
    /// A model for the `OPERATOR` section `cfg`. `instructions` (the system
    /// prompt) and `followup` (the text sent with each new screenshot) are
    /// used where the format has no tool of its own (generic).
    pub fn new(
        cfg: &LlmConfig<ComputerApi>,
        instructions: &str,
        followup: &str,
    ) -> Result<Self, LlmError> {
        let api = cfg.api_type;
        let base = match (cfg.base(), api) {
            (Some(b), _) => b.trim_end_matches('/').to_owned(),
            (None, ComputerApi::Responses) => "https://api.openai.com/v1".to_owned(),
            (None, ComputerApi::Anthropic) => "https://api.anthropic.com/v1".to_owned(),
            (None, ComputerApi::Generic) => {
                return Err(LlmError::config(
                    "OPERATOR.API_BASE",
                    "a generic computer-use model needs its server, e.g. http://localhost:11434/v1",
                ));
            }
        };
        let model = cfg
            .api_model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_owned)
            .unwrap_or_else(|| match api {
                ComputerApi::Responses => "computer-use-preview".to_owned(),
                ComputerApi::Anthropic => "claude-sonnet-4-5".to_owned(),
                ComputerApi::Generic => "ui-tars".to_owned(),
            });
        let timeout = cfg
            .timeout
            .unwrap_or(Duration::from_secs(120))
            .clamp(Duration::from_secs(1), Duration::from_secs(3600));
        let http = crate::client::http_client(api.name(), timeout)?;
        Ok(Self {
            api,
            base,
            key: cfg.api_key.clone(),
            model,
            max_tokens: cfg.max_tokens.unwrap_or(4096),
            instructions: instructions.to_owned(),
            followup: followup.to_owned(),
            http,
            conversation: Mutex::new(Conversation::default()),
        })
    }

    /// The wire format.
    pub fn api(&self) -> ComputerApi {
        self.api
    }

    /// `api/model`, for logs.
    pub fn describe(&self) -> String {
        format!("{}/{}", self.api.name(), self.model)
    }

    /// The request body of the next turn (for tests and `--dry-run`), without
    /// sending it.
    pub async fn next_body(
        &self,
        task: &str,
        screenshot: &str,
        display: Display,
        acknowledged: &[SafetyCheck],
    ) -> Value {
        let conv = self.conversation.lock().await;
        self.body(
            &conv,
            &Input {
                task,
                screenshot,
                display,
                acknowledged,
            },
        )
    }

    fn body(&self, conv: &Conversation, input: &Input<'_>) -> Value {
        match self.api {
            ComputerApi::Responses => responses::body(&self.model, conv, input),
            ComputerApi::Anthropic => anthropic::body(&self.model, self.max_tokens, conv, input),
            ComputerApi::Generic => generic::body(
                &self.model,
                self.max_tokens,
                &self.instructions,
                &self.followup,
                conv,
                input,
            ),
        }
    }

    /// Sends the screenshot (a `data:image/png;base64,` URL of `display`
    /// size) and returns the model's next turn. The first turn carries
    /// `task`; later ones answer the previous turn's call. Checks in
    /// `acknowledged` are the previous turn's that the user accepted.
    pub async fn turn(
        &self,
        task: &str,
        screenshot: &str,
        display: Display,
        acknowledged: &[SafetyCheck],
    ) -> Result<Turn, LlmError> {
        let mut conv = self.conversation.lock().await;
        let input = Input {
            task,
            screenshot,
            display,
            acknowledged,
        };
        let body = self.body(&conv, &input);
        let reply = self.post(&body).await?;
        let provider = self.api.name();
        match self.api {
            ComputerApi::Responses => responses::absorb(provider, &mut conv, &reply),
            ComputerApi::Anthropic => anthropic::absorb(provider, &mut conv, &body, &reply),
            ComputerApi::Generic => generic::absorb(provider, &mut conv, &body, &reply),
        }
    }

    async fn post(&self, body: &Value) -> Result<Value, LlmError> {
        let provider = self.api.name();
        let (url, mut req) = match self.api {
            ComputerApi::Responses => {
                let url = format!("{}/responses", self.base);
                (
                    url.clone(),
                    self.http.post(url).bearer_auth(self.key.expose()),
                )
            }
            ComputerApi::Anthropic => {
                let url = format!("{}/messages", self.base);
                (
                    url.clone(),
                    self.http
                        .post(url)
                        .header("x-api-key", self.key.expose())
                        .header("anthropic-version", "2023-06-01")
                        .header("anthropic-beta", anthropic::BETA),
                )
            }
            ComputerApi::Generic => {
                let url = format!("{}/chat/completions", self.base);
                let mut r = self.http.post(url.clone());
                if !self.key.expose().is_empty() {
                    r = r.bearer_auth(self.key.expose());
                }
                (url, r)
            }
        };
        req = req.json(body);
        let resp = req.send().await.map_err(|e| LlmError::Transport {
            provider: provider.to_owned(),
            message: format!(
                "POST {url}: {}",
                crate::redact::scrub(&e.to_string(), &[&self.key])
            ),
            timeout: e.is_timeout(),
        })?;
        let status = resp.status().as_u16();
        let bytes = resp.bytes().await.map_err(|e| LlmError::Transport {
            provider: provider.to_owned(),
            message: format!("reading the reply: {e}"),
            timeout: e.is_timeout(),
        })?;
        if !(200..300).contains(&status) {
            let text = String::from_utf8_lossy(&bytes);
            return Err(LlmError::Api(ApiError {
                provider: provider.to_owned(),
                status,
                code: None,
                message: crate::redact::scrub(
                    &text.chars().take(500).collect::<String>(),
                    &[&self.key],
                ),
                request_id: None,
                retry_after: None,
            }));
        }
        serde_json::from_slice(&bytes).map_err(|e| LlmError::MalformedResponse {
            provider: provider.to_owned(),
            message: format!("the reply is not JSON: {e}"),
            excerpt: String::from_utf8_lossy(&bytes).chars().take(200).collect(),
        })
    }
}

impl Conversation {
    /// The conversation after a turn whose request was `sent`: its messages,
    /// then the assistant's `content` (formats that replay the whole history).
    pub(crate) fn replay(&mut self, sent: &Value, content: Value) {
        self.messages = sent
            .get("messages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        self.messages
            .push(serde_json::json!({"role": "assistant", "content": content}));
    }
}

/// A malformed-reply error.
pub(crate) fn malformed(provider: &str, message: impl Into<String>, v: &Value) -> LlmError {
    LlmError::MalformedResponse {
        provider: provider.to_owned(),
        message: message.into(),
        excerpt: v.to_string().chars().take(200).collect(),
    }
}

/// A number field of `v`.
pub(crate) fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(|n| {
        n.as_f64()
            .or_else(|| n.as_str().and_then(|s| s.trim().parse().ok()))
    })
}

#[cfg(test)]
mod tests;
