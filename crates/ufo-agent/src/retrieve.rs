//! Knowledge as the agents see it: what a prompt may be given besides the
//! observation (help documents, search results, past experiences and
//! demonstrations as examples). Agents ask through [`Retrieve`]; the
//! knowledge base (`ufo-knowledge`) implements it, so agents link no search
//! index.

use serde_json::Value;

/// What was retrieved for one prompt.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Retrieved {
    /// Help documents `{title, text, application, source}`, best first.
    pub help_docs: Vec<Value>,
    /// Online search results `{title, url, text}`.
    pub online: Vec<Value>,
    /// Experiences then demonstrations as prompt examples
    /// `{Request, Sub-task, Tips, Response}`.
    pub examples: Vec<Value>,
    /// What failed (retrieval never fails a step).
    pub warnings: Vec<String>,
}

/// Retrieval as the agents see it.
#[async_trait::async_trait]
pub trait Retrieve: Send + Sync + std::fmt::Debug {
    /// What the enabled sources hold for `query`; only knowledge about `app`
    /// when given (the AppAgent), any application's otherwise (the HostAgent).
    async fn retrieve(&self, query: &str, app: Option<&str>) -> Retrieved;
}
