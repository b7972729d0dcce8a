//! The knowledge base: the three stores under the knowledge directory, the
//! retrieval settings (UFO's `RAG_*` keys) and retrieval for the agents.

use crate::embed::{Embedder, rrf};
use crate::error::KnowledgeError;
use crate::records::example_of_summary;
use crate::search::{OnlineSearch, SearchSettings};
use crate::store::{Hit, Record, Store, app_key};
use std::path::PathBuf;
use ufo_agent::retrieve::{Retrieve, Retrieved};

/// A knowledge source (one store each, except online search).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Summaries of successful runs.
    Experience,
    /// Summaries of a person's demonstrations.
    Demonstration,
    /// Help documents.
    HelpDocs,
}

impl Source {
    /// Every stored source.
    pub const ALL: [Source; 3] = [Source::Experience, Source::Demonstration, Source::HelpDocs];

    /// Its folder and CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Source::Experience => "experience",
            Source::Demonstration => "demonstration",
            Source::HelpDocs => "help_docs",
        }
    }

    /// Parses a CLI name (`experience`, `demonstration`/`demo`, `help_docs`/`docs`).
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_lowercase().replace('-', "_").as_str() {
            "experience" | "experiences" => Some(Source::Experience),
            "demonstration" | "demonstrations" | "demo" | "demos" => Some(Source::Demonstration),
            "help_docs" | "docs" | "help" | "offline_docs" => Some(Source::HelpDocs),
            _ => None,
        }
    }
}

/// Retrieval settings: UFO's `RAG_*` keys and the knowledge directory.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `KNOWLEDGE_DIR`: where the stores live.
    pub dir: PathBuf,
    /// `RAG_OFFLINE_DOCS` and `RAG_OFFLINE_DOCS_RETRIEVED_TOPK` (UFO: 1).
    pub offline_docs: Option<usize>,
    /// `RAG_EXPERIENCE` and `RAG_EXPERIENCE_RETRIEVED_TOPK` (UFO: 5).
    pub experience: Option<usize>,
    /// `RAG_DEMONSTRATION` and `RAG_DEMONSTRATION_RETRIEVED_TOPK` (UFO: 5).
    pub demonstration: Option<usize>,
    /// `RAG_ONLINE_SEARCH` and `RAG_ONLINE_RETRIEVED_TOPK` (UFO: 5).
    pub online_search: Option<usize>,
    /// The search endpoint and its limits (`RAG_ONLINE_SEARCH_*`).
    pub search: SearchSettings,
    /// `RAG_EMBEDDINGS`: dense embeddings fused with BM25, when set.
    pub embeddings: Option<crate::embed::EmbeddingSettings>,
}

impl Settings {
    /// Nothing retrieved, stores under `dir`.
    pub fn off(dir: PathBuf) -> Self {
        Self {
            dir,
            offline_docs: None,
            experience: None,
            demonstration: None,
            online_search: None,
            search: SearchSettings::default(),
            embeddings: None,
        }
    }

    /// Whether any source is retrieved into prompts.
    pub fn any(&self) -> bool {
        self.offline_docs.is_some()
            || self.experience.is_some()
            || self.demonstration.is_some()
            || self.online_search.is_some()
    }
}

/// The stores under the knowledge directory.
#[derive(Debug)]
pub struct KnowledgeBase {
    settings: Settings,
    experience: Store,
    demonstration: Store,
    help_docs: Store,
    warnings: Vec<String>,
    embedder: Option<Embedder>,
}

impl KnowledgeBase {
    /// Opens (or creates) the stores; corrupted indexes are rebuilt and
    /// listed in [`Self::warnings`].
    pub fn open(settings: Settings) -> Result<Self, KnowledgeError> {
        let mut warnings = Vec::new();
        let mut open = |s: Source| -> Result<Store, KnowledgeError> {
            let (store, w) = Store::open(&settings.dir, s.name())?;
            warnings.extend(w);
            Ok(store)
        };
        let experience = open(Source::Experience)?;
        let demonstration = open(Source::Demonstration)?;
        let help_docs = open(Source::HelpDocs)?;
        let embedder = settings.embeddings.clone().map(Embedder::new).transpose()?;
        Ok(Self {
            settings,
            experience,
            demonstration,
            help_docs,
            warnings,
            embedder,
        })
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Indexes that were corrupted and rebuilt when opening.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The store of `source`.
    pub fn store(&self, source: Source) -> &Store {
        match source {
            Source::Experience => &self.experience,
            Source::Demonstration => &self.demonstration,
            Source::HelpDocs => &self.help_docs,
        }
    }

    /// Adds records to `source`, with their embeddings when those are on.
    pub async fn add(
        &self,
        source: Source,
        mut records: Vec<Record>,
    ) -> Result<(), KnowledgeError> {
        if let Some(e) = &self.embedder {
            let texts: Vec<String> = records.iter().map(|r| r.text.clone()).collect();
            let vectors = e.embed(&texts).await?;
            for (r, v) in records.iter_mut().zip(vectors) {
                r.embedding = Some(v);
            }
        }
        self.store(source).add(&records)
    }

    /// The `k` best records of `source` for `query` (BM25, fused with the
    /// dense ranking by reciprocal rank fusion when embeddings are on).
    pub async fn search(
        &self,
        source: Source,
        query: &str,
        app: Option<&str>,
        k: usize,
    ) -> Result<Vec<Hit>, KnowledgeError> {
        let store = self.store(source);
        let Some(e) = &self.embedder else {
            return store.search(query, app, k);
        };
        let bm25 = store.search(query, app, k.saturating_mul(4).max(20))?;
        let q = e.embed(&[query.to_owned()]).await?;
        let Some(q) = q.first() else {
            return Ok(bm25.into_iter().take(k).collect());
        };
        let key = app.map(app_key);
        let mut dense: Vec<(f32, Record)> = store
            .records()?
            .into_iter()
            .filter(|r| {
                key.as_ref()
                    .is_none_or(|k| r.apps.iter().any(|a| app_key(a) == *k))
            })
            .filter_map(|r| {
                let s = crate::embed::cosine(q, r.embedding.as_deref()?);
                Some((s, r))
            })
            .collect();
        dense.sort_by(|a, b| b.0.total_cmp(&a.0));
        dense.truncate(k.saturating_mul(4).max(20));
        let dense_hits: Vec<Hit> = dense
            .into_iter()
            .map(|(score, r)| Hit {
                id: r.id,
                score,
                body: r.body,
            })
            .collect();
        Ok(rrf(&[bm25, dense_hits], k))
    }
}

#[async_trait::async_trait]
impl Retrieve for KnowledgeBase {
    async fn retrieve(&self, query: &str, app: Option<&str>) -> Retrieved {
        let mut out = Retrieved::default();
        let s = &self.settings;
        let mut warn = |what: &str, e: KnowledgeError| {
            let w = format!("{what}: {e}");
            tracing::warn!("{w}");
            out.warnings.push(w);
        };
        // Help documents are about one application: the AppAgent's.
        if let (Some(k), Some(app)) = (s.offline_docs, app) {
            match self.search(Source::HelpDocs, query, Some(app), k).await {
                Ok(h) => out.help_docs = h.into_iter().map(|h| h.body).collect(),
                Err(e) => warn("help documents", e),
            }
        }
        for (source, k) in [
            (Source::Experience, s.experience),
            (Source::Demonstration, s.demonstration),
        ] {
            let Some(k) = k else { continue };
            match self.search(source, query, app, k).await {
                Ok(h) => out
                    .examples
                    .extend(h.iter().map(|h| example_of_summary(&h.body))),
                Err(e) => warn(source.name(), e),
            }
        }
        if let Some(k) = s.online_search {
            match OnlineSearch::new(s.search.clone()) {
                Ok(search) => match search.search(query, k).await {
                    Ok(r) => out.online = r,
                    Err(e) => warn("online search", e),
                },
                Err(e) => warn("online search", e),
            }
        }
        out
    }
}
