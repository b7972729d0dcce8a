//! One source's store: its records (`records.jsonl`, the source of truth)
//! and a tantivy BM25 index over them (`index/`), rebuilt from the records
//! when it is missing or corrupted.
//!
//! A record is indexed by its `text` (what a query is matched against: the
//! request of an experience or demonstration, the title and text of a help
//! document) and filtered by its applications. Writes open the index writer
//! for the time of one commit, so a session that searches and a `ufo
//! knowledge` command that adds may share the folder.

use crate::error::KnowledgeError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value as _,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

/// The index writer's memory budget (tantivy's minimum is 15 MB per thread).
const WRITER_BUDGET: usize = 32_000_000;

/// One stored item: an experience, a demonstration or a help document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Stable id (unique in its store).
    pub id: String,
    /// The applications it is about, as [`app_key`]s.
    pub apps: Vec<String>,
    /// The text matched against queries.
    pub text: String,
    /// The record itself (UFO's shape for its source).
    pub body: Value,
    /// Its dense embedding, when embeddings are on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding: Option<Vec<f32>>,
}

/// A search hit.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The record's id.
    pub id: String,
    /// BM25 score (or fused score).
    pub score: f32,
    /// The record's body.
    pub body: Value,
}

/// The key an application is stored and filtered under: lower case, the
/// last path component, without `.exe` (`/usr/bin/Mousepad` → `mousepad`).
pub fn app_key(app: &str) -> String {
    let last = app.trim().rsplit(['/', '\\']).next().unwrap_or_default();
    let lower = last.to_lowercase();
    lower
        .strip_suffix(".exe")
        .unwrap_or(&lower)
        .trim()
        .to_owned()
}

#[derive(Clone, Copy)]
struct Fields {
    id: Field,
    app: Field,
    text: Field,
    body: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let id = b.add_text_field("id", STRING | STORED);
    let app = b.add_text_field("app", STRING);
    let text_opts = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer("en_stem")
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let text = b.add_text_field("text", text_opts);
    let body = b.add_text_field("body", STORED);
    (
        b.build(),
        Fields {
            id,
            app,
            text,
            body,
        },
    )
}

/// A store of one source.
pub struct Store {
    name: String,
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("name", &self.name)
            .field("dir", &self.dir)
            .finish()
    }
}

impl Store {
    /// Opens (or creates) the store `name` under `dir`. A corrupted index is
    /// rebuilt from the records; the warning saying so is returned too.
    pub fn open(dir: &Path, name: &str) -> Result<(Self, Option<String>), KnowledgeError> {
        let dir = dir.join(name);
        let index_dir = dir.join("index");
        std::fs::create_dir_all(&index_dir).map_err(|e| KnowledgeError::io(&index_dir, e))?;
        let (schema, fields) = schema();
        let has_meta = index_dir.join("meta.json").exists();
        let opened = match has_meta {
            true => Index::open_in_dir(&index_dir)
                .and_then(|i| check_schema(i, &schema))
                .and_then(|i| reader_of(&i).map(|r| (i, r))),
            false => Index::create_in_dir(&index_dir, schema.clone())
                .and_then(|i| reader_of(&i).map(|r| (i, r))),
        };
        match opened {
            Ok((index, reader)) => {
                let store = Self {
                    name: name.to_owned(),
                    dir,
                    index,
                    reader,
                    fields,
                };
                // A fresh index over existing records (the index folder was
                // deleted): fill it.
                if !has_meta && store.records_path().exists() {
                    store.reindex()?;
                }
                Ok((store, None))
            }
            Err(e) => {
                let warning = format!(
                    "the {name} index in {} is corrupted ({e}); it was rebuilt from its records",
                    index_dir.display()
                );
                tracing::warn!("{warning}");
                std::fs::remove_dir_all(&index_dir)
                    .map_err(|e| KnowledgeError::io(&index_dir, e))?;
                std::fs::create_dir_all(&index_dir)
                    .map_err(|e| KnowledgeError::io(&index_dir, e))?;
                let index =
                    Index::create_in_dir(&index_dir, schema).map_err(|e| index_err(name, e))?;
                let reader = reader_of(&index).map_err(|e| index_err(name, e))?;
                let store = Self {
                    name: name.to_owned(),
                    dir,
                    index,
                    reader,
                    fields,
                };
                store.reindex()?;
                Ok((store, Some(warning)))
            }
        }
    }

    /// The store's name (`experience`, `demonstration`, `help_docs`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The store's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn records_path(&self) -> PathBuf {
        self.dir.join("records.jsonl")
    }

    /// Every record, in the order added.
    pub fn records(&self) -> Result<Vec<Record>, KnowledgeError> {
        let p = self.records_path();
        let text = match std::fs::read_to_string(&p) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(KnowledgeError::io(&p, e)),
        };
        let mut out = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Record>(line) {
                Ok(r) => out.push(r),
                Err(e) => tracing::warn!("{}:{}: skipped: {e}", p.display(), i + 1),
            }
        }
        Ok(out)
    }

    /// The record `id`.
    pub fn get(&self, id: &str) -> Result<Record, KnowledgeError> {
        self.records()?
            .into_iter()
            .find(|r| r.id == id)
            .ok_or_else(|| KnowledgeError::NotFound {
                source_name: self.name.clone(),
                id: id.to_owned(),
            })
    }

    /// Adds records (a record whose id exists replaces it), in one commit.
    pub fn add(&self, records: &[Record]) -> Result<(), KnowledgeError> {
        if records.is_empty() {
            return Ok(());
        }
        let existing = self.records()?;
        let replaced = records
            .iter()
            .any(|r| existing.iter().any(|e| e.id == r.id));
        if replaced {
            let mut all: Vec<Record> = existing
                .into_iter()
                .filter(|e| !records.iter().any(|r| r.id == e.id))
                .collect();
            all.extend(records.iter().cloned());
            self.write_records(&all)?;
        } else {
            let p = self.records_path();
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&p)
                .map_err(|e| KnowledgeError::io(&p, e))?;
            let mut buf = String::new();
            for r in records {
                buf.push_str(&serde_json::to_string(r).unwrap_or_default());
                buf.push('\n');
            }
            f.write_all(buf.as_bytes())
                .map_err(|e| KnowledgeError::io(&p, e))?;
        }
        let w = self.writer()?;
        for r in records {
            w.delete_term(Term::from_field_text(self.fields.id, &r.id));
            w.add_document(self.document(r))
                .map_err(|e| index_err(&self.name, e))?;
        }
        self.commit(w)
    }

    /// Removes the record `id`; false when there was none.
    pub fn remove(&self, id: &str) -> Result<bool, KnowledgeError> {
        let all = self.records()?;
        let before = all.len();
        let kept: Vec<Record> = all.into_iter().filter(|r| r.id != id).collect();
        if kept.len() == before {
            return Ok(false);
        }
        self.write_records(&kept)?;
        let w = self.writer()?;
        w.delete_term(Term::from_field_text(self.fields.id, id));
        self.commit(w)?;
        Ok(true)
    }

    /// The `k` best records for `query`, only those about `app` when given.
    pub fn search(
        &self,
        query: &str,
        app: Option<&str>,
        k: usize,
    ) -> Result<Vec<Hit>, KnowledgeError> {
        if k == 0 {
            return Ok(Vec::new());
        }
        let mut analyzer = self
            .index
            .tokenizer_for_field(self.fields.text)
            .map_err(|e| index_err(&self.name, e))?;
        let mut terms = Vec::new();
        let mut stream = analyzer.token_stream(query);
        stream.process(&mut |t| terms.push(t.text.clone()));
        terms.sort();
        terms.dedup();
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let text_q: Vec<(Occur, Box<dyn Query>)> = terms
            .iter()
            .map(|t| {
                let q: Box<dyn Query> = Box::new(TermQuery::new(
                    Term::from_field_text(self.fields.text, t),
                    IndexRecordOption::WithFreqs,
                ));
                (Occur::Should, q)
            })
            .collect();
        let mut clauses: Vec<(Occur, Box<dyn Query>)> =
            vec![(Occur::Must, Box::new(BooleanQuery::new(text_q)))];
        if let Some(app) = app {
            clauses.push((
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_text(self.fields.app, &app_key(app)),
                    IndexRecordOption::Basic,
                )),
            ));
        }
        let q = BooleanQuery::new(clauses);
        let searcher = self.reader.searcher();
        let top = searcher
            .search(&q, &TopDocs::with_limit(k))
            .map_err(|e| index_err(&self.name, e))?;
        let mut out = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let doc: TantivyDocument = searcher.doc(addr).map_err(|e| index_err(&self.name, e))?;
            let id = doc
                .get_first(self.fields.id)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_owned();
            let body = doc
                .get_first(self.fields.body)
                .and_then(|v| v.as_str())
                .and_then(|s| serde_json::from_str(s).ok())
                .unwrap_or(Value::Null);
            out.push(Hit { id, score, body });
        }
        Ok(out)
    }

    /// Rebuilds the index from the records.
    pub fn reindex(&self) -> Result<(), KnowledgeError> {
        let records = self.records()?;
        let w = self.writer()?;
        w.delete_all_documents()
            .map_err(|e| index_err(&self.name, e))?;
        for r in &records {
            w.add_document(self.document(r))
                .map_err(|e| index_err(&self.name, e))?;
        }
        self.commit(w)
    }

    fn document(&self, r: &Record) -> TantivyDocument {
        let mut d = TantivyDocument::default();
        d.add_text(self.fields.id, &r.id);
        for a in &r.apps {
            d.add_text(self.fields.app, app_key(a));
        }
        d.add_text(self.fields.text, &r.text);
        d.add_text(
            self.fields.body,
            serde_json::to_string(&r.body).unwrap_or_default(),
        );
        d
    }

    fn writer(&self) -> Result<IndexWriter<TantivyDocument>, KnowledgeError> {
        self.index
            .writer_with_num_threads(1, WRITER_BUDGET)
            .map_err(|e| index_err(&self.name, e))
    }

    fn commit(&self, mut w: IndexWriter<TantivyDocument>) -> Result<(), KnowledgeError> {
        w.commit().map_err(|e| index_err(&self.name, e))?;
        w.wait_merging_threads()
            .map_err(|e| index_err(&self.name, e))?;
        self.reader.reload().map_err(|e| index_err(&self.name, e))
    }

    fn write_records(&self, all: &[Record]) -> Result<(), KnowledgeError> {
        let p = self.records_path();
        let tmp = self.dir.join("records.jsonl.tmp");
        let mut buf = String::new();
        for r in all {
            buf.push_str(&serde_json::to_string(r).unwrap_or_default());
            buf.push('\n');
        }
        std::fs::write(&tmp, buf).map_err(|e| KnowledgeError::io(&tmp, e))?;
        std::fs::rename(&tmp, &p).map_err(|e| KnowledgeError::io(&p, e))
    }
}

fn check_schema(i: Index, expected: &Schema) -> tantivy::Result<Index> {
    match &i.schema() == expected {
        true => Ok(i),
        false => Err(tantivy::TantivyError::SchemaError(
            "the index was written with another schema".into(),
        )),
    }
}

fn reader_of(i: &Index) -> tantivy::Result<IndexReader> {
    let r: IndexReader = i
        .reader_builder()
        .reload_policy(ReloadPolicy::Manual)
        .try_into()?;
    // Reading every segment's files now finds a corrupted index at open
    // time, not at the first search.
    let s = r.searcher();
    for seg in s.segment_readers() {
        seg.get_store_reader(0)?;
        for (field, entry) in i.schema().fields() {
            if entry.is_indexed() {
                let _ = seg.inverted_index(field)?;
            }
        }
    }
    Ok(r)
}

fn index_err(name: &str, e: impl Into<ufo_core::BoxError>) -> KnowledgeError {
    KnowledgeError::Index {
        source_name: name.to_owned(),
        source: e.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rec(id: &str, app: &str, text: &str) -> Record {
        Record {
            id: id.into(),
            apps: vec![app.into()],
            text: text.into(),
            body: json!({"request": text}),
            embedding: None,
        }
    }

    #[test]
    fn app_keys_are_normalised() {
        assert_eq!(app_key("/usr/bin/Mousepad"), "mousepad");
        assert_eq!(app_key("WINWORD.EXE"), "winword");
        assert_eq!(app_key(" gnome-calculator "), "gnome-calculator");
    }

    #[test]
    fn search_filters_by_app_and_survives_reopen() {
        let d = tempfile::tempdir().unwrap();
        {
            let (s, w) = Store::open(d.path(), "experience").unwrap();
            assert!(w.is_none());
            s.add(&[
                rec("a", "mousepad", "type hello world into the editor"),
                rec("b", "gnome-calculator", "add 12 and 30"),
                rec("c", "mousepad", "save the file as notes.txt"),
            ])
            .unwrap();
            let hits = s
                .search("typing words in the editor", Some("Mousepad"), 5)
                .unwrap();
            assert_eq!(hits[0].id, "a");
            assert!(hits.iter().all(|h| h.id != "b"));
            assert!(
                s.search("add 12 and 30", Some("mousepad"), 5)
                    .unwrap()
                    .iter()
                    .all(|h| h.id != "b")
            );
        }
        let (s, w) = Store::open(d.path(), "experience").unwrap();
        assert!(w.is_none());
        assert_eq!(s.search("add 12", None, 5).unwrap()[0].id, "b");
        assert!(s.remove("b").unwrap());
        assert!(!s.remove("b").unwrap());
        assert!(s.search("add 12", None, 5).unwrap().is_empty());
        assert_eq!(s.records().unwrap().len(), 2);
        // Replacing by id keeps one copy.
        s.add(&[rec("a", "mousepad", "write a poem")]).unwrap();
        assert_eq!(s.records().unwrap().len(), 2);
        assert_eq!(s.search("poem", None, 5).unwrap()[0].id, "a");
        assert!(s.search("hello world", None, 5).unwrap().is_empty());
    }

    #[test]
    fn a_corrupted_index_is_rebuilt_with_a_warning() {
        let d = tempfile::tempdir().unwrap();
        {
            let (s, _) = Store::open(d.path(), "help_docs").unwrap();
            s.add(&[rec("x", "mousepad", "change the font size")])
                .unwrap();
        }
        let idx = d.path().join("help_docs/index");
        for e in std::fs::read_dir(&idx).unwrap() {
            let p = e.unwrap().path();
            std::fs::write(&p, b"\x00garbage{").unwrap();
        }
        let (s, w) = Store::open(d.path(), "help_docs").unwrap();
        assert!(w.unwrap().contains("corrupted"));
        assert_eq!(s.search("font", Some("mousepad"), 3).unwrap()[0].id, "x");
        // A deleted index folder is refilled from the records too.
        drop(s);
        std::fs::remove_dir_all(&idx).unwrap();
        let (s, w) = Store::open(d.path(), "help_docs").unwrap();
        assert!(w.is_none());
        assert_eq!(s.search("font size", None, 3).unwrap().len(), 1);
    }
}
