//! ufo-knowledge: what the agents know besides the screen — experience from
//! their own successful runs, a person's demonstrations, help documents and
//! online search — stored and retrieved with one library.
//!
//! * Each stored source ([`Source`]) is a folder under the knowledge
//!   directory (`KNOWLEDGE_DIR`, by default `knowledge/` beside the logs):
//!   `records.jsonl` (the records, the source of truth) and `index/`, a
//!   tantivy BM25 index over them, incremental and on disk. A corrupted index
//!   is rebuilt from the records with a warning ([`KnowledgeBase::warnings`]).
//! * Retrieval ([`Retrieve`]) follows UFO's keys: `RAG_OFFLINE_DOCS`,
//!   `RAG_EXPERIENCE`, `RAG_DEMONSTRATION`, `RAG_ONLINE_SEARCH` with their
//!   top-k, filtered by application ([`app_key`]).
//! * Dense embeddings ([`embed`]) are optional, from the provider's endpoint,
//!   fused with BM25 by reciprocal rank fusion. Nothing is downloaded.
//!
//! ```no_run
//! # async fn f() -> Result<(), ufo_knowledge::KnowledgeError> {
//! use ufo_knowledge::{KnowledgeBase, Retrieve, Settings, Source};
//! let mut s = Settings::off("knowledge".into());
//! s.offline_docs = Some(1);
//! let kb = KnowledgeBase::open(s)?;
//! let docs = ufo_knowledge::docs::load_dir("help/mousepad".as_ref(), "mousepad")?;
//! kb.add(Source::HelpDocs, docs.records).await?;
//! let got = kb.retrieve("change the font size", Some("mousepad")).await;
//! println!("{:?}", got.help_docs);
//! # Ok(()) }
//! ```

mod base;
pub mod docs;
pub mod embed;
mod error;
pub mod records;
pub mod search;
mod store;
pub mod text;

pub use base::{KnowledgeBase, Settings, Source};
pub use error::KnowledgeError;
pub use store::{Hit, Record, Store, app_key};
pub use ufo_agent::retrieve::{Retrieve, Retrieved};
