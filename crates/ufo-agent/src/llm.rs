//! Asking the model for a typed reply: parse, validate, re-ask with the exact
//! error, bounded by `JSON_PARSING_RETRY`.

use crate::error::AgentError;
use crate::prompter::render;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use ufo_core::Diagnostic;
use ufo_llm::message::Content;
use ufo_llm::{ChatModel, ChatRequest, ExtractOptions, Msg, Role, UsageTotals, parse_reply};

/// A usable reply and how it was obtained.
#[derive(Debug)]
pub struct Asked<T> {
    /// The validated reply.
    pub value: T,
    /// The reply as JSON (after repairs).
    pub json: Value,
}

/// A reply that passed its check, with the status parsed from it: past this
/// point statuses are enums, never strings. Serialises as the reply alone.
#[derive(Debug, serde::Serialize)]
pub struct Checked<R, S> {
    /// The (possibly repaired) reply.
    #[serde(flatten)]
    pub reply: R,
    /// Its status.
    #[serde(skip)]
    pub status: S,
}

/// Everything spent asking, usable or not.
#[derive(Debug, Default)]
pub struct AskLog {
    /// Replies asked for.
    pub attempts: u32,
    /// Raw reply texts.
    pub raw: Vec<String>,
    /// Errors that led to re-asking.
    pub errors: Vec<String>,
    /// Repairs made.
    pub repairs: Vec<String>,
    /// Usage and cost.
    pub usage: UsageTotals,
    /// The requests sent (one per attempt).
    pub requests: Vec<ChatRequest>,
}

/// Asks `model` until a reply parses as `T` and passes `check` (which may
/// repair it, report the repair and turn it into the validated `V`). A reply
/// that does not is re-asked with the `retry` template (`{error}` filled), at
/// most `retries` extra times.
pub async fn ask<T, V, F>(
    model: &dyn ChatModel,
    mut request: ChatRequest,
    retries: u32,
    retry_template: &str,
    log: &mut AskLog,
    mut check: F,
) -> Result<Asked<V>, AgentError>
where
    T: DeserializeOwned + JsonSchema + serde::Serialize,
    V: serde::Serialize,
    F: FnMut(T, &mut Vec<String>) -> Result<V, String>,
{
    let mut last_error = String::new();
    for _ in 0..=retries {
        log.attempts += 1;
        log.requests.push(request.clone());
        let reply = model
            .chat(request.clone())
            .await
            .map_err(|e| AgentError::Model(e.report()))?;
        log.usage.record(&reply);
        log.raw.push(reply.text.clone());
        let outcome = match parse_reply::<T>(&reply.text, ExtractOptions::lenient()) {
            Ok((value, extracted)) => {
                if extracted.repaired {
                    log.repairs.push("the reply's JSON was repaired".into());
                }
                check(value, &mut log.repairs)
            }
            Err(e) => Err(e.to_string()),
        };
        match outcome {
            Ok(value) => {
                let json = serde_json::to_value(&value).unwrap_or(Value::Null);
                return Ok(Asked { value, json });
            }
            Err(error) => {
                tracing::info!(%error, "unusable reply; asking again");
                log.errors.push(error.clone());
                last_error = error.clone();
                request.messages.push(Msg {
                    name: None,
                    role: Role::Assistant,
                    content: Content::Text(reply.text),
                    url: Vec::new(),
                });
                request.messages.push(Msg {
                    name: None,
                    role: Role::User,
                    content: Content::Text(render(retry_template, &[("error", &error)])),
                    url: Vec::new(),
                });
            }
        }
    }
    Err(AgentError::ParseRetryExhausted {
        attempts: log.attempts,
        last_error,
    })
}
