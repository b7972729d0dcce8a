//! Messages in, replies out: [`Msg`], [`ChatRequest`], [`ChatOptions`] and
//! [`ChatResponse`].
//!
//! A [`Msg`] is AgentScope's `{name, role, content, url}`: `content` is a string or
//! a list of OpenAI-style parts (text and `image_url`), and `url` is none, one or
//! many image (or audio) URLs or local paths. UFO's agents send the shape built by
//! [`ChatRequest::agent`]: one system prompt and one user turn of text and image
//! parts.

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::usage::{Usage, UsageTotals};

/// Who speaks a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions.
    System,
    /// The user (or, in a multi-agent dialogue, any non-model speaker).
    User,
    /// The model (or another agent speaking as one).
    Assistant,
}

impl Role {
    /// The lower-case wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::User => "user",
            Self::Assistant => "assistant",
        }
    }
}

/// One piece of a message's content (OpenAI's part shape, as UFO builds prompts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image: an http(s) URL, a `data:` URI or a local path.
    ImageUrl {
        /// Where the image is.
        image_url: ImageUrl,
    },
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// An image part from a URL, `data:` URI or local path.
    pub fn image(url: impl Into<String>) -> Self {
        Self::ImageUrl {
            image_url: ImageUrl {
                url: url.into(),
                detail: None,
            },
        }
    }
}

/// The image reference of a [`Part::ImageUrl`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageUrl {
    /// http(s) URL, `data:` URI, `file://` URL or local path.
    pub url: String,
    /// OpenAI's `detail` (`low`, `high`, `auto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A message's content: plain text or a list of parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Text and image parts, in order.
    Parts(Vec<Part>),
}

impl Default for Content {
    fn default() -> Self {
        Self::Text(String::new())
    }
}

/// One message: `{name, role, content, url}` as in AgentScope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Msg {
    /// The speaker's name (agent name); defaults to the role when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The role.
    pub role: Role,
    /// The content (`null` reads as empty text).
    #[serde(default, deserialize_with = "content_or_null")]
    pub content: Content,
    /// Attached image or audio URLs / local paths (`null`, a string or a list).
    #[serde(
        default,
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub url: Vec<String>,
}

fn content_or_null<'de, D: Deserializer<'de>>(d: D) -> Result<Content, D::Error> {
    Ok(Option::<Content>::deserialize(d)?.unwrap_or_default())
}

fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Option::<OneOrMany>::deserialize(d)? {
        None => Vec::new(),
        Some(OneOrMany::One(s)) => vec![s],
        Some(OneOrMany::Many(v)) => v,
    })
}

impl Msg {
    /// A message `Msg(name, content, role)` as AgentScope writes it.
    pub fn new(name: impl Into<String>, content: impl Into<String>, role: Role) -> Self {
        Self {
            name: Some(name.into()),
            role,
            content: Content::Text(content.into()),
            url: Vec::new(),
        }
    }

    /// A system message without a name.
    pub fn system(text: impl Into<String>) -> Self {
        Self {
            name: None,
            role: Role::System,
            content: Content::Text(text.into()),
            url: Vec::new(),
        }
    }

    /// A user message made of parts, without a name.
    pub fn user_parts(parts: Vec<Part>) -> Self {
        Self {
            name: None,
            role: Role::User,
            content: Content::Parts(parts),
            url: Vec::new(),
        }
    }

    /// Adds attached URLs.
    #[must_use]
    pub fn with_urls<I: IntoIterator<Item = S>, S: Into<String>>(mut self, urls: I) -> Self {
        self.url.extend(urls.into_iter().map(Into::into));
        self
    }

    /// The speaker's name, or the role's name when there is none.
    pub fn speaker(&self) -> &str {
        self.name.as_deref().unwrap_or(self.role.as_str())
    }

    /// The text of the content: the string, or the text parts joined by newlines.
    pub fn text(&self) -> String {
        match &self.content {
            Content::Text(t) => t.clone(),
            Content::Parts(parts) => parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text { text } => Some(text.as_str()),
                    Part::ImageUrl { .. } => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    /// Every image/audio reference: image parts in content order, then `url`.
    pub fn media(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Content::Parts(parts) = &self.content {
            for p in parts {
                if let Part::ImageUrl { image_url } = p {
                    out.push(image_url.url.clone());
                }
            }
        }
        out.extend(self.url.iter().cloned());
        out
    }

    /// The content as parts, with `url` attachments appended as image parts.
    pub fn parts(&self) -> Vec<Part> {
        let mut out = match &self.content {
            Content::Text(t) => vec![Part::text(t.clone())],
            Content::Parts(p) => p.clone(),
        };
        out.extend(self.url.iter().map(|u| Part::image(u.clone())));
        out
    }
}

/// Whether and how the model is asked for JSON output.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum JsonMode {
    /// Free text (the prompt may still ask for JSON).
    #[default]
    Off,
    /// The provider's JSON-object mode, where it has one.
    Object,
    /// A JSON schema the reply must follow, where the provider supports it.
    Schema {
        /// Schema name (OpenAI requires one).
        name: String,
        /// The JSON schema.
        schema: serde_json::Value,
    },
}

/// Per-request options; `None` means "not sent" (the provider's default applies).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatOptions {
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Maximum output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// JSON output mode.
    #[serde(default, skip_serializing_if = "is_off")]
    pub json: JsonMode,
}

fn is_off(j: &JsonMode) -> bool {
    *j == JsonMode::Off
}

/// What an agent asks a model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The messages, in order.
    pub messages: Vec<Msg>,
    /// Options; unset fields fall back to the model's configuration.
    #[serde(default)]
    pub options: ChatOptions,
}

impl ChatRequest {
    /// UFO's prompt shape: a system prompt and one user turn of text and image parts
    /// (`prompt_construction`).
    pub fn agent(system: impl Into<String>, user: Vec<Part>) -> Self {
        Self {
            messages: vec![Msg::system(system), Msg::user_parts(user)],
            options: ChatOptions::default(),
        }
    }

    /// A request of arbitrary messages.
    pub fn from_messages(messages: Vec<Msg>) -> Self {
        Self {
            messages,
            options: ChatOptions::default(),
        }
    }

    /// Sets the options.
    #[must_use]
    pub fn with_options(mut self, options: ChatOptions) -> Self {
        self.options = options;
        self
    }
}

/// A model's answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The reply text (non-thought text parts, concatenated).
    pub text: String,
    /// Token usage as reported by the provider.
    pub usage: Usage,
    /// Cost in USD from the price table; `None` when the model has no price.
    #[serde(default)]
    pub cost: Option<f64>,
    /// The model costs nothing: a local provider, or a price of 0 (its
    /// `cost` is `Some(0)`, said as "local model: $0").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub local: bool,
    /// The model that answered (the backup's name after a fallback).
    pub model: String,
    /// The provider (`openai`, `gemini`, …).
    pub provider: String,
    /// Wall time of the call, retries included.
    #[serde(default, with = "duration_ms", rename = "latency_ms")]
    pub latency: Duration,
    /// The provider's finish reason (`stop`, `length`, `MAX_TOKENS`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// HTTP attempts made (1 when the first one succeeded).
    #[serde(default)]
    pub attempts: u32,
    /// Whether the `BACKUP_AGENT` model answered because the primary failed.
    #[serde(default)]
    pub used_backup: bool,
    /// Things that did not stop the call (ignored images, downgraded parameters).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Estimated input tokens of the request's images
    /// ([`crate::client::estimate_request_image_tokens`]), when the provider reported
    /// no prompt tokens and the request had images whose size could be read;
    /// `None` otherwise (the reported usage already counts them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_image_tokens: Option<u64>,
}

mod duration_ms {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub(super) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_millis(u64::deserialize(d)?))
    }
}

/// Parses `messages.json` as AgentScope's `format` takes its arguments: one
/// message `{"name","role","content","url"}`, or an array whose items are
/// messages or arrays of messages (flattened in order; `null` items are
/// skipped, as `format` skips `None`). Deeper nesting is refused, as
/// AgentScope refuses it.
pub fn parse_messages(json: &str) -> Result<Vec<Msg>, crate::LlmError> {
    let bad = |message: String, e: Option<serde_json::Error>| crate::LlmError::InvalidMessages {
        message,
        source: e.map(Into::into),
    };
    let one = |v: Value, at: &str| {
        serde_json::from_value::<Msg>(v).map_err(|e| bad(format!("{at}: {e}"), Some(e)))
    };
    let value: Value = serde_json::from_str(json).map_err(|e| bad(e.to_string(), Some(e)))?;
    let items = match value {
        Value::Array(items) => items,
        msg @ Value::Object(_) => return Ok(vec![one(msg, "the message")?]),
        other => {
            return Err(bad(
                format!("expected a message or an array of messages, got {other}"),
                None,
            ));
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        match item {
            Value::Null => {}
            Value::Array(inner) => {
                for (j, m) in inner.into_iter().enumerate() {
                    if !m.is_object() {
                        return Err(bad(
                            format!(
                                "item {i}.{j} is not a message: an item is a message or a list of messages, not deeper"
                            ),
                            None,
                        ));
                    }
                    out.push(one(m, &format!("item {i}.{j}"))?);
                }
            }
            m => out.push(one(m, &format!("item {i}"))?),
        }
    }
    Ok(out)
}

impl UsageTotals {
    /// Adds one call.
    pub fn record(&mut self, response: &ChatResponse) {
        self.calls += 1;
        self.usage += response.usage;
        match response.cost {
            Some(c) => self.cost += c,
            None => self.unpriced_calls += 1,
        }
        if response.local {
            self.local_calls += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_message_or_a_mix_of_messages_and_lists_as_agentscope_format_takes() {
        let names = |j: &str| -> Vec<String> {
            parse_messages(j)
                .unwrap()
                .into_iter()
                .map(|m| m.name.unwrap_or_default())
                .collect()
        };
        // The seed's example: a system message, then a list of two.
        assert_eq!(
            names(
                r#"[{"name":"system","role":"system","content":"You're a helpful assistant"},
                    [{"name":"Bob","role":"assistant","content":"Hi."},
                     {"name":"Alice","role":"assistant","content":"Nice to meet you!"}],
                    null]"#
            ),
            ["system", "Bob", "Alice"]
        );
        assert_eq!(
            names(r#"{"name":"Bob","role":"user","content":"Hi."}"#),
            ["Bob"]
        );
        for bad in [
            r#"[[[{"role":"user","content":"x"}]]]"#,
            "3",
            r#"[{"role":5}]"#,
        ] {
            let e = parse_messages(bad).unwrap_err().to_string();
            assert!(!e.is_empty(), "{bad}");
        }
        let deep = parse_messages(r#"[[[{"role":"user","content":"x"}]]]"#).unwrap_err();
        assert!(deep.to_string().contains("not deeper"), "{deep}");
    }

    #[test]
    fn url_is_none_one_or_many() {
        let m: Vec<Msg> = serde_json::from_str(
            r#"[{"name":"a","role":"user","content":"x","url":null},
                {"name":"b","role":"assistant","content":"y","url":"u1"},
                {"role":"user","content":[{"type":"text","text":"t"},{"type":"image_url","image_url":{"url":"p"}}],"url":["u2","u3"]}]"#,
        )
        .unwrap();
        assert!(m[0].url.is_empty());
        assert_eq!(m[1].url, vec!["u1"]);
        assert_eq!(m[2].media(), vec!["p", "u2", "u3"]);
        assert_eq!(m[2].text(), "t");
        assert_eq!(m[2].speaker(), "user");
    }
}
