//! # ufo-llm — every model behind one interface
//!
//! Messages, per-provider formatting strategies, provider clients, usage and cost,
//! extraction and validation of JSON replies, retries and fallback.
//!
//! ## Using a model
//!
//! Build a model from one agent section of `agents.yaml` and ask it a
//! [`ChatRequest`]; agents hold it as `Arc<dyn ChatModel>`:
//!
//! ```no_run
//! # async fn demo() -> Result<(), ufo_llm::LlmError> {
//! use std::sync::Arc;
//! use ufo_llm::{ChatModel, ChatRequest, LlmConfig, Part, PriceTable};
//!
//! let app: LlmConfig = LlmConfig::from_yaml("API_TYPE: openai\nAPI_KEY: sk-...\nAPI_MODEL: gpt-4o\n")?;
//! let backup: LlmConfig = LlmConfig::from_yaml("API_TYPE: ollama\nAPI_MODEL: llama3.2-vision\n")?;
//! let prices = Arc::new(PriceTable::ufo_defaults());
//! let model: Arc<dyn ChatModel> = ufo_llm::build_with_backup(&app, Some(&backup), Some(prices))?;
//!
//! let request = ChatRequest::agent(
//!     "You are an agent operating a desktop. Answer in JSON.",
//!     vec![Part::text("Click OK."), Part::image("/tmp/screenshot.png")],
//! );
//! let reply = model.chat(request).await?;
//! println!("{} ({} tokens, ${:?})", reply.text, reply.usage.total_tokens, reply.cost);
//! # Ok(()) }
//! ```
//!
//! Then [`extract::extract_json`] finds the JSON object in the reply and
//! [`validate::parse_reply`] checks it against the agent's response type,
//! naming the wrong field so the agent can re-ask.
//!
//! ## Formatting
//!
//! [`format`](mod@format) holds AgentScope's strategies (golden-tested against
//! AgentScope's prompt-formatting spec) and each provider's native shape; the
//! provider layer turns them into exact HTTP requests ([`WireRequest`]), one row
//! per `API_TYPE` in the provider table ([`ApiType::info`]).
//! [`cli::format_request`] prints one without sending it.
//!
//! ## Public surface
//! The modules a caller uses are public (`config`, `format`, `message`,
//! `extract`, `validate`, `replay`, `cli`); everything else (HTTP client,
//! providers, auth, retries, media, redaction, usage and cost) is internal and
//! only its types are re-exported here.
//!
//! ## Deterministic runs
//!
//! `API_TYPE: replay` answers from a cassette ([`replay`]); [`replay::RecordingModel`]
//! writes one while a real model answers.
//!
//! ## What this crate must not know
//! Agents and UI: it formats and sends whatever messages it is given.

mod api;
mod auth;
mod build;
pub mod cli;
mod client;
pub mod computer;
pub mod config;
mod cost;
pub mod embed;
mod error;
pub mod extract;
pub mod format;
mod media;
pub mod message;
mod model;
mod names;
pub mod net;
mod provider;
mod redact;
pub mod replay;
mod retry;
mod usage;
pub mod validate;

pub use api::{ApiInfo, Auth, Wire};
pub use build::{build_model, build_with_backup};
pub use client::{HttpModel, estimate_request_image_tokens};
pub use config::{ApiType, LlmConfig};
pub use cost::{Price, PriceTable, Pricing};
pub use error::{ApiError, LlmError};
pub use extract::{ExtractOptions, Extracted, extract_json};
pub use format::{Formatted, Strategy};
pub use message::{ChatOptions, ChatRequest, ChatResponse, Content, JsonMode, Msg, Part, Role};
pub use model::{ChatModel, FallbackModel};
pub use provider::{RedactedRequest, WireRequest};
pub use redact::Secret;
pub use retry::RetryPolicy;
pub use usage::{Usage, UsageTotals};
pub use validate::parse_reply;
