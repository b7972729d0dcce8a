//! Asking the model for a typed reply: parse, validate, re-ask with the exact
//! error, bounded by `JSON_PARSING_RETRY`.

use crate::error::AgentError;
use crate::normalize::Normalize;
use crate::prompter::{Template, render};
use crate::response::AgentReply;
use crate::step::{Phase, RequestLog, StepRecord, request_for_log};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::time::Instant;
use ufo_core::Diagnostic;
use ufo_llm::message::Content;
use ufo_llm::validate::validate_value;
use ufo_llm::{ChatModel, ChatRequest, ExtractOptions, Msg, Role, UsageTotals, extract_json};

/// A usable reply and how it was obtained.
#[derive(Debug)]
pub struct Asked<T> {
    /// The validated reply.
    pub value: T,
    /// The reply as JSON (after repairs).
    pub json: Value,
}

/// A reply that passed its check, with what was parsed from it (its status,
/// and for an AppAgent-style reply its calls): past this point statuses are
/// enums and tool names [`ToolName`](ufo_desktop::tools::ToolName)s, never
/// strings. Serialises as the reply alone.
#[derive(Debug, serde::Serialize)]
pub struct Checked<R, S> {
    /// The (possibly repaired) reply.
    #[serde(flatten)]
    pub reply: R,
    /// What was parsed from it.
    #[serde(skip)]
    pub parsed: S,
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
    T: DeserializeOwned + JsonSchema + serde::Serialize + Normalize,
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
        let outcome = match extract_json(&reply.text, ExtractOptions::lenient()) {
            Ok(mut extracted) => {
                if extracted.repaired {
                    log.repairs.push("the reply's JSON was repaired".into());
                }
                T::normalize(&mut extracted.value, &mut log.repairs);
                match validate_value::<T>(&extracted.value) {
                    Ok(value) => check(value, &mut log.repairs),
                    Err(e) => Err(e.to_string()),
                }
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
                    content: Content::Text(echo_of(reply.text)),
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

/// The LLM-interaction phase of a Host or App step: asks `model` (re-asking
/// with the template's `retry` text), then fills `rec`: attempts, errors,
/// repairs, raw replies, usage and cost, the `request.log` entry (images
/// named by `image_names`, in order) and, for a usable reply, its common
/// fields. An unusable reply is the error; `rec` is filled either way.
pub(crate) async fn interact<T, S, F>(
    rec: &mut StepRecord,
    model: &dyn ChatModel,
    template: &Template,
    retries: u32,
    request: ChatRequest,
    image_names: Vec<String>,
    check: F,
) -> Result<Checked<T, S>, AgentError>
where
    T: DeserializeOwned + JsonSchema + serde::Serialize + AgentReply + Normalize,
    F: FnMut(T, &mut Vec<String>) -> Result<Checked<T, S>, String>,
{
    let t = Instant::now();
    let retry = template.opt("retry").unwrap_or("{error}");
    let mut log = AskLog::default();
    let asked = ask(model, request, retries, retry, &mut log, check).await;
    rec.time(Phase::LlmInteraction, t);
    rec.llm_attempts = log.attempts;
    rec.parse_errors = log.errors;
    rec.repairs = log.repairs;
    rec.raw_replies = log.raw;
    rec.usage = log.usage;
    rec.cost = log.usage.cost;
    rec.request_log = Some(RequestLog {
        step: rec.session_step,
        agent: rec.agent_name.clone(),
        prompts: log
            .requests
            .iter()
            .map(|r| request_for_log(r, &image_names))
            .collect(),
        image_list: image_names,
    });
    let asked = asked?;
    let r = &asked.value.reply;
    rec.parsed_response = asked.json;
    rec.observation = r.observation().to_owned();
    rec.thought = r.thought().to_owned();
    rec.plan = r.plan();
    rec.comment = r.comment();
    Ok(asked.value)
}

/// The most of an unusable reply sent back to the model when re-asking: enough
/// to see what went wrong, not a runaway output echoed into every re-ask.
const MAX_ECHOED_REPLY: usize = 8 * 1024;

fn echo_of(mut text: String) -> String {
    if text.len() <= MAX_ECHOED_REPLY {
        return text;
    }
    let total = text.len();
    let mut end = MAX_ECHOED_REPLY;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(&format!("… [your reply was {total} bytes; cut here]"));
    text
}
