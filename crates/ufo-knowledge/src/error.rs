//! What can go wrong with the knowledge stores, each with a stable code and a
//! help line.

use ufo_core::{BoxError, Diagnostic};

/// Errors of the knowledge substrate.
#[derive(Debug, thiserror::Error)]
pub enum KnowledgeError {
    /// A file or folder of the knowledge directory cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The search engine failed (not a corrupted index: that is rebuilt).
    #[error("the {source_name} index failed: {source}")]
    Index {
        /// `experience`, `demonstration` or `help_docs`.
        source_name: String,
        /// What tantivy said.
        #[source]
        source: BoxError,
    },
    /// A document, record or demonstration file is not in a known format.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
        /// The parser's error, when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// No record has this id.
    #[error("no record {id:?} in the {source_name} store")]
    NotFound {
        /// The store.
        source_name: String,
        /// The id asked for.
        id: String,
    },
    /// A web search or page fetch failed or was refused.
    #[error("online search: {message}")]
    Search {
        /// What happened.
        message: String,
        /// The underlying error (HTTP, URL), when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// The model could not summarise an experience or a demonstration.
    #[error("summary: {message}")]
    Summary {
        /// What happened.
        message: String,
        /// The underlying error (model, template), when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// The embeddings endpoint failed.
    #[error("embeddings: {0}")]
    Embeddings(#[from] ufo_llm::LlmError),
}

impl KnowledgeError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.display().to_string(),
            source,
        }
    }

    pub(crate) fn format(path: &std::path::Path, message: impl Into<String>) -> Self {
        Self::Format {
            path: path.display().to_string(),
            message: message.into(),
            source: None,
        }
    }

    /// A [`Self::Format`] error caused by a parser's `source`, whose text
    /// `message` includes.
    pub(crate) fn format_from(
        path: &std::path::Path,
        message: impl Into<String>,
        source: impl Into<BoxError>,
    ) -> Self {
        Self::Format {
            path: path.display().to_string(),
            message: message.into(),
            source: Some(source.into()),
        }
    }
}

impl Diagnostic for KnowledgeError {
    fn code(&self) -> &'static str {
        match self {
            Self::Io { .. } => "ufo::knowledge::io",
            Self::Index { .. } => "ufo::knowledge::index",
            Self::Format { .. } => "ufo::knowledge::format",
            Self::NotFound { .. } => "ufo::knowledge::not_found",
            Self::Search { .. } => "ufo::knowledge::search",
            Self::Embeddings(_) => "ufo::knowledge::embeddings",
            Self::Summary { .. } => "ufo::knowledge::summary",
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            Self::Io { .. } => "check that KNOWLEDGE_DIR exists and is writable by this user".into(),
            Self::Index { .. } => "run `ufo knowledge list` to check the store; delete the source's `index` folder to have it rebuilt from its records".into(),
            Self::Format { .. } => "help documents are UFO's JSON {application, request, guidance[]}, .xml + .xml.meta, Markdown or plain text; demonstrations are `ufo record` files or UFO's demonstration YAML".into(),
            Self::NotFound { .. } => "`ufo knowledge list` shows the ids".into(),
            Self::Search { .. } => "check RAG_ONLINE_SEARCH_PROVIDER (searxng, brave, tavily), RAG_ONLINE_SEARCH_ENDPOINT (a SearXNG instance with the JSON format enabled) and RAG_ONLINE_SEARCH_API_KEY; private and loopback addresses need RAG_ONLINE_ALLOW_PRIVATE: true".into(),
            Self::Summary { .. } => "check the APP_AGENT model (it writes the summaries) and the template under prompts/experience or prompts/demonstration".into(),
            Self::Embeddings(_) => "check RAG_EMBEDDINGS (API_TYPE, API_BASE, API_MODEL) or set RAG_EMBEDDINGS: false to use BM25 alone".into(),
        })
    }
}
