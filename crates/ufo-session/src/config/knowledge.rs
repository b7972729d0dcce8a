//! The knowledge keys (UFO's `RAG_*` and `SAVE_EXPERIENCE`) and ours
//! (`KNOWLEDGE_DIR`, the search endpoint and its limits, embeddings).
//!
//! ```yaml
//! KNOWLEDGE_DIR: knowledge              # default: `knowledge/` beside the log folder
//! RAG_OFFLINE_DOCS: true                # help documents (`ufo knowledge index`)
//! RAG_OFFLINE_DOCS_RETRIEVED_TOPK: 1
//! RAG_EXPERIENCE: true                  # saved experiences as extra examples
//! RAG_EXPERIENCE_RETRIEVED_TOPK: 5
//! RAG_DEMONSTRATION: true               # demonstrations as extra examples
//! RAG_DEMONSTRATION_RETRIEVED_TOPK: 5
//! RAG_ONLINE_SEARCH: false
//! RAG_ONLINE_SEARCH_TOPK: 5             # results fetched
//! RAG_ONLINE_RETRIEVED_TOPK: 5          # results shown
//! RAG_ONLINE_SEARCH_PROVIDER: searxng  # searxng | brave | tavily
//! RAG_ONLINE_SEARCH_ENDPOINT: https://searx.example.org   # SearXNG, JSON format on (others: their API by default)
//! RAG_ONLINE_SEARCH_API_KEY: ${BRAVE_API_KEY}              # brave, tavily
//! RAG_ONLINE_ALLOW_PRIVATE: false       # fetch pages on private/loopback addresses
//! RAG_ONLINE_TIMEOUT: 10                # seconds per request
//! RAG_ONLINE_MAX_PAGE_BYTES: 1048576
//! SAVE_EXPERIENCE: auto                 # always | ask | auto | always_not
//! RAG_EMBEDDINGS:                       # optional: dense vectors fused with BM25
//!   API_TYPE: openai                    # openai (any compatible server) | ollama
//!   API_BASE: http://localhost:11434
//!   API_MODEL: nomic-embed-text
//! ```

use super::de::{self, Count, Flag, Text};
use crate::error::SessionError;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::path::{Path, PathBuf};
use ufo_core::de::Seconds;
use ufo_knowledge::embed::{EmbeddingApi, EmbeddingSettings};
use ufo_knowledge::search::{SearchProvider, SearchSettings};

/// `SAVE_EXPERIENCE`: when a finished session is summarised into the
/// experience store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SaveExperience {
    /// After every session that took a step.
    Always,
    /// The user is asked.
    Ask,
    /// When the session's evaluation says the request is complete.
    Auto,
    /// Never (the default).
    #[default]
    AlwaysNot,
}

impl<'de> Deserialize<'de> for SaveExperience {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de::one_of(d, &["always", "ask", "auto", "always_not"], |s| {
            match s.to_lowercase().as_str() {
                "always" => Some(Self::Always),
                "ask" => Some(Self::Ask),
                "auto" => Some(Self::Auto),
                "always_not" | "never" => Some(Self::AlwaysNot),
                _ => None,
            }
        })
    }
}

/// `RAG_ONLINE_SEARCH_PROVIDER`.
struct Provider(SearchProvider);

impl<'de> Deserialize<'de> for Provider {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de::one_of(d, &SearchProvider::NAMES, SearchProvider::parse).map(Provider)
    }
}

/// The knowledge configuration.
#[derive(Debug, Clone, Default)]
pub struct KnowledgeConfig {
    /// `KNOWLEDGE_DIR`, resolved against the config's folder; `None`: beside
    /// the log folder ([`Self::settings`]).
    pub dir: Option<PathBuf>,
    /// `SAVE_EXPERIENCE`.
    pub save_experience: SaveExperience,
    /// `RAG_OFFLINE_DOCS` (+ top-k).
    pub offline_docs: Option<usize>,
    /// `RAG_EXPERIENCE` (+ top-k).
    pub experience: Option<usize>,
    /// `RAG_DEMONSTRATION` (+ top-k).
    pub demonstration: Option<usize>,
    /// `RAG_ONLINE_SEARCH` (+ top-k).
    pub online_search: Option<usize>,
    /// The search endpoint and limits.
    pub search: SearchSettings,
    /// `RAG_EMBEDDINGS`.
    pub embeddings: Option<EmbeddingSettings>,
    /// `EXPERIENCE_PROMPT`: the experience summary template (default
    /// `prompts/experience/experience_summary.yaml`, built in).
    pub experience_prompt: Option<PathBuf>,
    /// `DEMONSTRATION_PROMPT`: the demonstration summary template.
    pub demonstration_prompt: Option<PathBuf>,
}

impl KnowledgeConfig {
    /// The knowledge folder for sessions logging under `log_root`.
    pub fn dir_for(&self, log_root: &Path) -> PathBuf {
        self.dir.clone().unwrap_or_else(|| {
            let parent = log_root.parent().filter(|p| !p.as_os_str().is_empty());
            parent
                .map(Path::to_path_buf)
                .unwrap_or_default()
                .join("knowledge")
        })
    }

    /// The retrieval settings for sessions logging under `log_root`.
    pub fn settings(&self, log_root: &Path) -> ufo_knowledge::Settings {
        ufo_knowledge::Settings {
            dir: self.dir_for(log_root),
            offline_docs: self.offline_docs,
            experience: self.experience,
            demonstration: self.demonstration,
            online_search: self.online_search,
            search: self.search.clone(),
            embeddings: self.embeddings.clone(),
        }
    }
}

/// The knowledge keys as written.
#[derive(Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(super) struct Keys {
    knowledge_dir: Option<Text>,
    experience_prompt: Option<Text>,
    demonstration_prompt: Option<Text>,
    save_experience: Option<SaveExperience>,
    rag_offline_docs: Option<Flag>,
    rag_offline_docs_retrieved_topk: Option<Count<usize>>,
    rag_experience: Option<Flag>,
    rag_experience_retrieved_topk: Option<Count<usize>>,
    rag_demonstration: Option<Flag>,
    rag_demonstration_retrieved_topk: Option<Count<usize>>,
    rag_online_search: Option<Flag>,
    /// Results fetched.
    rag_online_search_topk: Option<Count<usize>>,
    /// Results shown.
    rag_online_retrieved_topk: Option<Count<usize>>,
    rag_online_search_provider: Option<Provider>,
    rag_online_search_api_key: Option<Text>,
    rag_online_search_endpoint: Option<Text>,
    rag_online_allow_private: Option<Flag>,
    rag_online_timeout: Option<Seconds<0, 600>>,
    rag_online_max_page_bytes: Option<Count<usize>>,
    rag_embeddings: Option<Value>,
}

/// `k` (default `n`) when `on` is set.
fn topk(on: Option<Flag>, k: Option<Count<usize>>, n: usize) -> Option<usize> {
    on.is_some_and(|f| f.0).then(|| k.map_or(n, |c| c.0))
}

impl Keys {
    /// The knowledge config; paths are relative to `base`.
    pub(super) fn config(self, base: &Path) -> Result<KnowledgeConfig, SessionError> {
        let d = SearchSettings::default();
        let search = SearchSettings {
            provider: self
                .rag_online_search_provider
                .map(|p| p.0)
                .unwrap_or_default(),
            api_key: self.rag_online_search_api_key.map(|t| t.0),
            endpoint: self.rag_online_search_endpoint.map(|t| t.0),
            allow_private: self.rag_online_allow_private.is_some_and(|f| f.0),
            timeout: self.rag_online_timeout.map_or(d.timeout, |s| {
                s.0.max(std::time::Duration::from_millis(100))
            }),
            max_page_bytes: self
                .rag_online_max_page_bytes
                .map_or(d.max_page_bytes, |c| c.0),
            max_text_chars: d.max_text_chars,
        };
        let fetched = topk(self.rag_online_search, self.rag_online_search_topk, 5);
        if fetched.is_some()
            && search.provider == SearchProvider::SearXng
            && search.endpoint.is_none()
        {
            return Err(SessionError::MissingKey {
                key: "RAG_ONLINE_SEARCH_ENDPOINT".into(),
                message: "RAG_ONLINE_SEARCH needs a SearXNG endpoint (its JSON format enabled), or RAG_ONLINE_SEARCH_PROVIDER: brave | tavily with RAG_ONLINE_SEARCH_API_KEY".into(),
            });
        }
        if fetched.is_some()
            && search.provider != SearchProvider::SearXng
            && search.api_key.is_none()
        {
            return Err(SessionError::MissingKey {
                key: "RAG_ONLINE_SEARCH_API_KEY".into(),
                message: "this search provider needs an API key".into(),
            });
        }
        let path = |t: Option<Text>| t.map(|t| base.join(t.0));
        let shown = self.rag_online_retrieved_topk.map_or(5, |c| c.0);
        Ok(KnowledgeConfig {
            dir: path(self.knowledge_dir),
            experience_prompt: path(self.experience_prompt),
            demonstration_prompt: path(self.demonstration_prompt),
            save_experience: self.save_experience.unwrap_or_default(),
            offline_docs: topk(
                self.rag_offline_docs,
                self.rag_offline_docs_retrieved_topk,
                1,
            ),
            experience: topk(self.rag_experience, self.rag_experience_retrieved_topk, 5),
            demonstration: topk(
                self.rag_demonstration,
                self.rag_demonstration_retrieved_topk,
                5,
            ),
            online_search: fetched.map(|n| n.min(shown)),
            search,
            embeddings: embeddings(self.rag_embeddings)?,
        })
    }
}

/// `RAG_EMBEDDINGS`' keys.
#[derive(Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
struct EmbeddingKeys {
    api_type: EmbedApi,
    api_base: Text,
    api_model: Text,
    api_key: Option<Text>,
}

/// openai (any OpenAI-compatible server) or ollama.
struct EmbedApi(EmbeddingApi);

impl<'de> Deserialize<'de> for EmbedApi {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de::one_of(d, &["openai", "ollama"], |s| {
            match s.to_lowercase().as_str() {
                "ollama" => Some(EmbedApi(EmbeddingApi::Ollama)),
                "openai" | "azure" | "aoai" | "qwen" | "deepseek" | "openai_compatible" => {
                    Some(EmbedApi(EmbeddingApi::OpenAi))
                }
                _ => None,
            }
        })
    }
}

fn embeddings(v: Option<Value>) -> Result<Option<EmbeddingSettings>, SessionError> {
    const K: &str = "RAG_EMBEDDINGS";
    let v = match v {
        None | Some(Value::Bool(false)) => return Ok(None),
        Some(v @ Value::Object(_)) => v,
        Some(other) => {
            return Err(SessionError::BadKey {
                key: K.into(),
                message: format!(
                    "expected a map {{API_TYPE, API_BASE, API_MODEL, API_KEY}} or false, got {other}"
                ),
            });
        }
    };
    let k: EmbeddingKeys = de::read_all(&v, K, |_| (de::keys_of::<EmbeddingKeys>(), ""))?;
    Ok(Some(EmbeddingSettings {
        api: k.api_type.0,
        base: k.api_base.0,
        model: k.api_model.0,
        key: k.api_key.map(|t| ufo_llm::Secret::new(t.0)),
        retry: ufo_llm::RetryPolicy::default(),
        timeout: std::time::Duration::from_secs(60),
    }))
}

#[cfg(test)]
mod tests {
    use crate::config::UfoConfig;
    use std::path::Path;

    fn parse(y: &str) -> Result<UfoConfig, crate::error::SessionError> {
        UfoConfig::parse(y, Path::new("/cfg"), &|_| None)
    }

    #[test]
    fn ufo_keys_are_read_with_their_defaults() {
        let c = parse("RAG_OFFLINE_DOCS: true\nRAG_EXPERIENCE: true\nRAG_EXPERIENCE_RETRIEVED_TOPK: 2\nSAVE_EXPERIENCE: auto\nKNOWLEDGE_DIR: kb\n").unwrap();
        let k = &c.system.knowledge;
        assert_eq!(k.offline_docs, Some(1));
        assert_eq!(k.experience, Some(2));
        assert_eq!(k.demonstration, None);
        assert_eq!(k.save_experience, super::SaveExperience::Auto);
        assert_eq!(k.dir_for(Path::new("logs")), Path::new("/cfg/kb"));
        let d = parse("").unwrap().system.knowledge;
        assert_eq!(
            d.dir_for(Path::new("/tmp/x/logs")),
            Path::new("/tmp/x/knowledge")
        );
        assert_eq!(d.dir_for(Path::new("logs")), Path::new("knowledge"));
        assert!(!d.settings(Path::new("logs")).any());
    }

    #[test]
    fn bad_values_name_the_key() {
        let e = parse("SAVE_EXPERIENCE: alway\n").unwrap_err().to_string();
        assert!(
            e.contains("SAVE_EXPERIENCE") && e.contains("did you mean always"),
            "{e}"
        );
        let e = parse("RAG_ONLINE_SEARCH: true\n").unwrap_err().to_string();
        assert!(e.contains("RAG_ONLINE_SEARCH_ENDPOINT"), "{e}");
        let e = parse("RAG_ONLINE_SEARCH: true\nRAG_ONLINE_SEARCH_PROVIDER: brave\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("RAG_ONLINE_SEARCH_API_KEY"), "{e}");
        let e = parse("RAG_ONLINE_SEARCH_PROVIDER: bravo\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("did you mean brave"), "{e}");
        let c = parse("RAG_ONLINE_SEARCH: true\nRAG_ONLINE_SEARCH_PROVIDER: tavily\nRAG_ONLINE_SEARCH_API_KEY: k\n").unwrap();
        assert_eq!(c.system.knowledge.online_search, Some(5));
        let e = parse("RAG_EMBEDDINGS: {API_TYPE: ollama, API_BASE: http://x, API_MODLE: m}\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("did you mean API_MODEL"), "{e}");
        let c = parse("RAG_EMBEDDINGS: {API_TYPE: ollama, API_BASE: 'http://x', API_MODEL: m}\n")
            .unwrap();
        assert_eq!(c.system.knowledge.embeddings.unwrap().model, "m");
        let e = parse("RAG_EXPERIENCE_RETRIEVED_TOPKK: 3\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("RAG_EXPERIENCE_RETRIEVED_TOPK"), "{e}");
    }
}
