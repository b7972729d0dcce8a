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

use super::{Keys, bad, unknown::nearest};
use crate::error::SessionError;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;
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

impl SaveExperience {
    const NAMES: [&'static str; 4] = ["always", "ask", "auto", "always_not"];

    fn parse(s: &str) -> Option<Self> {
        match s.trim().to_lowercase().as_str() {
            "always" => Some(Self::Always),
            "ask" => Some(Self::Ask),
            "auto" => Some(Self::Auto),
            "always_not" | "never" => Some(Self::AlwaysNot),
            _ => None,
        }
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

/// Reads the knowledge keys.
pub(super) fn read(keys: &Keys<'_>, base: &Path) -> Result<KnowledgeConfig, SessionError> {
    let topk = |on: &str, k: &str, default: u64| -> Result<Option<usize>, SessionError> {
        let n = usize::try_from(keys.uint(k, default)?).unwrap_or(usize::MAX);
        Ok(keys.bool(on, false)?.then_some(n))
    };
    let string = |k: &str| -> Result<Option<String>, SessionError> {
        match keys.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_owned())),
            Some(other) => Err(bad(k, "a non-empty string", other)),
        }
    };
    let save_experience = match string("SAVE_EXPERIENCE")? {
        None => SaveExperience::default(),
        Some(s) => SaveExperience::parse(&s).ok_or_else(|| {
            let hint = nearest(&s, SaveExperience::NAMES.iter().copied())
                .map(|n| format!(" (did you mean {n}?)"))
                .unwrap_or_default();
            SessionError::BadKey {
                key: "SAVE_EXPERIENCE".into(),
                message: format!("is {s:?}{hint}; it must be always, ask, auto or always_not"),
            }
        })?,
    };
    let online_fetched = topk("RAG_ONLINE_SEARCH", "RAG_ONLINE_SEARCH_TOPK", 5)?;
    let online_shown = usize::try_from(keys.uint("RAG_ONLINE_RETRIEVED_TOPK", 5)?).unwrap_or(5);
    let d = SearchSettings::default();
    let provider = match string("RAG_ONLINE_SEARCH_PROVIDER")? {
        None => SearchProvider::default(),
        Some(p) => SearchProvider::parse(&p).ok_or_else(|| {
            let hint = nearest(&p, SearchProvider::NAMES.iter().copied())
                .map(|n| format!(" (did you mean {n}?)"))
                .unwrap_or_default();
            SessionError::BadKey {
                key: "RAG_ONLINE_SEARCH_PROVIDER".into(),
                message: format!("is {p:?}{hint}; it must be searxng, brave or tavily"),
            }
        })?,
    };
    let search = SearchSettings {
        provider,
        api_key: string("RAG_ONLINE_SEARCH_API_KEY")?,
        endpoint: string("RAG_ONLINE_SEARCH_ENDPOINT")?,
        allow_private: keys.bool("RAG_ONLINE_ALLOW_PRIVATE", false)?,
        timeout: Duration::from_secs_f64(
            keys.seconds("RAG_ONLINE_TIMEOUT", d.timeout.as_secs_f64(), 600.0)?
                .max(0.1),
        ),
        max_page_bytes: usize::try_from(
            keys.uint("RAG_ONLINE_MAX_PAGE_BYTES", d.max_page_bytes as u64)?,
        )
        .unwrap_or(d.max_page_bytes),
        max_text_chars: d.max_text_chars,
    };
    if online_fetched.is_some()
        && search.endpoint.is_none()
        && search.provider == SearchProvider::SearXng
    {
        return Err(SessionError::MissingKey {
            key: "RAG_ONLINE_SEARCH_ENDPOINT".into(),
            message: "RAG_ONLINE_SEARCH needs a SearXNG endpoint (its JSON format enabled), or RAG_ONLINE_SEARCH_PROVIDER: brave | tavily with RAG_ONLINE_SEARCH_API_KEY".into(),
        });
    }
    if online_fetched.is_some()
        && search.provider != SearchProvider::SearXng
        && search.api_key.is_none()
    {
        return Err(SessionError::MissingKey {
            key: "RAG_ONLINE_SEARCH_API_KEY".into(),
            message: "this search provider needs an API key".into(),
        });
    }
    let path = |k: &str| -> Result<Option<PathBuf>, SessionError> {
        Ok(string(k)?.map(|p| {
            let p = PathBuf::from(p);
            match p.is_relative() {
                true => base.join(p),
                false => p,
            }
        }))
    };
    Ok(KnowledgeConfig {
        dir: path("KNOWLEDGE_DIR")?,
        experience_prompt: path("EXPERIENCE_PROMPT")?,
        demonstration_prompt: path("DEMONSTRATION_PROMPT")?,
        save_experience,
        offline_docs: topk("RAG_OFFLINE_DOCS", "RAG_OFFLINE_DOCS_RETRIEVED_TOPK", 1)?,
        experience: topk("RAG_EXPERIENCE", "RAG_EXPERIENCE_RETRIEVED_TOPK", 5)?,
        demonstration: topk("RAG_DEMONSTRATION", "RAG_DEMONSTRATION_RETRIEVED_TOPK", 5)?,
        online_search: online_fetched.map(|n| n.min(online_shown)),
        search,
        embeddings: embeddings(keys)?,
    })
}

const EMBEDDING_KEYS: &[&str] = &["API_TYPE", "API_BASE", "API_MODEL", "API_KEY"];

fn embeddings(keys: &Keys<'_>) -> Result<Option<EmbeddingSettings>, SessionError> {
    const K: &str = "RAG_EMBEDDINGS";
    let m = match keys.get(K) {
        None | Some(Value::Null) | Some(Value::Bool(false)) => return Ok(None),
        Some(Value::Object(m)) => m.clone(),
        Some(other) => {
            return Err(bad(
                K,
                "a map {API_TYPE, API_BASE, API_MODEL, API_KEY} or false",
                other,
            ));
        }
    };
    for k in m.keys() {
        if !EMBEDDING_KEYS.contains(&k.as_str()) {
            let hint = nearest(k, EMBEDDING_KEYS.iter().copied())
                .map(|n| format!(" (did you mean {n}?)"))
                .unwrap_or_default();
            return Err(SessionError::BadKey {
                key: format!("{K}.{k}"),
                message: format!("is not a key of {K}{hint}"),
            });
        }
    }
    let s = |k: &str| {
        m.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let need = |k: &str| {
        s(k).map(str::to_owned)
            .ok_or_else(|| SessionError::MissingKey {
                key: format!("{K}.{k}"),
                message: "embeddings need API_TYPE, API_BASE and API_MODEL".into(),
            })
    };
    let api = match need("API_TYPE")?.to_lowercase().as_str() {
        "ollama" => EmbeddingApi::Ollama,
        "openai" | "azure" | "aoai" | "qwen" | "deepseek" | "openai_compatible" => {
            EmbeddingApi::OpenAi
        }
        other => {
            return Err(SessionError::BadKey {
                key: format!("{K}.API_TYPE"),
                message: format!(
                    "is {other:?}; it must be openai (any OpenAI-compatible server) or ollama"
                ),
            });
        }
    };
    Ok(Some(EmbeddingSettings {
        api,
        base: need("API_BASE")?,
        model: need("API_MODEL")?,
        key: s("API_KEY").map(ufo_llm::Secret::new),
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
