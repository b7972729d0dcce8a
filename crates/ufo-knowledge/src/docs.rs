//! Help documents: UFO's JSON (`{application, request, guidance[]}`), UFO's
//! legacy `.xml` + `.xml.meta` (`<title>`, `<Content-Summary>`), Markdown
//! and plain text, read from a folder into help-document records.
//!
//! A record's body is `{title, text, application, source}`; the prompt shows
//! it as UFO does (`[Similar Requests]: {title}` / `Step: {text}`). The id is
//! `<app>:<path relative to the folder>`, so indexing a folder again replaces
//! its documents instead of adding copies.

use crate::error::KnowledgeError;
use crate::store::{Record, app_key};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The largest help document read (bigger files are skipped with a warning).
pub const MAX_DOC_BYTES: u64 = 4 * 1024 * 1024;

/// What [`load_dir`] found.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The records.
    pub records: Vec<Record>,
    /// Files skipped, with why.
    pub skipped: Vec<String>,
}

/// Reads every help document under `dir` (recursively) for `app`. A UFO JSON
/// document names its own application; `app` is used when it does not.
pub fn load_dir(dir: &Path, app: &str) -> Result<Loaded, KnowledgeError> {
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    files.sort();
    let mut out = Loaded::default();
    for f in files {
        let rel = f.strip_prefix(dir).unwrap_or(&f).display().to_string();
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_lowercase();
        if name.ends_with(".xml.meta") {
            continue;
        }
        let size = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
        if size > MAX_DOC_BYTES {
            out.skipped
                .push(format!("{rel}: larger than {MAX_DOC_BYTES} bytes"));
            continue;
        }
        let read = || std::fs::read_to_string(&f).map_err(|e| KnowledgeError::io(&f, e));
        let id = |suffix: &str| format!("{}:{rel}{suffix}", app_key(app));
        let docs: Vec<(String, String, String, String)> = if name.ends_with(".json") {
            json_docs(&f, &read()?, app)?
                .into_iter()
                .enumerate()
                .map(|(i, (a, t, x))| (id(&format!("#{i}")), a, t, x))
                .collect()
        } else if name.ends_with(".xml") {
            let (t, x) = xml_doc(&f, &read()?);
            vec![(id(""), app.to_owned(), t, x)]
        } else if name.ends_with(".md") || name.ends_with(".markdown") {
            let text = read()?;
            let title = text
                .lines()
                .find_map(|l| {
                    l.trim()
                        .strip_prefix('#')
                        .map(|t| t.trim_start_matches('#').trim().to_owned())
                })
                .unwrap_or_else(|| stem(&f));
            vec![(id(""), app.to_owned(), title, text)]
        } else if name.ends_with(".txt") || name.ends_with(".text") {
            let text = read()?;
            let title = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or_default()
                .trim()
                .to_owned();
            vec![(id(""), app.to_owned(), title, text)]
        } else {
            out.skipped
                .push(format!("{rel}: not .json, .xml, .md or .txt"));
            continue;
        };
        for (id, application, title, text) in docs {
            out.records.push(Record {
                id,
                apps: vec![application.clone()],
                text: format!("{title}\n{text}"),
                body: json!({"title": title, "text": text.trim(), "application": application, "source": rel}),
                embedding: None,
            });
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), KnowledgeError> {
    let entries = std::fs::read_dir(dir).map_err(|e| KnowledgeError::io(dir, e))?;
    for e in entries.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => walk(&p, out)?,
            Ok(t) if t.is_file() => out.push(p),
            _ => {}
        }
    }
    Ok(())
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .replace(['_', '-'], " ")
}

/// UFO's JSON help document(s): `(application, request, guidance as steps)`.
fn json_docs(
    path: &Path,
    text: &str,
    app: &str,
) -> Result<Vec<(String, String, String)>, KnowledgeError> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| KnowledgeError::format_from(path, format!("not valid JSON: {e}"), e))?;
    let items = match v {
        Value::Array(a) => a,
        o @ Value::Object(_) => vec![o],
        _ => {
            return Err(KnowledgeError::format(
                path,
                "expected {application, request, guidance[]}",
            ));
        }
    };
    items
        .iter()
        .map(|o| {
            let request = o.get("request").and_then(Value::as_str).ok_or_else(|| {
                KnowledgeError::format(
                    path,
                    "a help document needs `request` (and `guidance`, a list of steps)",
                )
            })?;
            let guidance = match o.get("guidance") {
                Some(Value::Array(g)) => g
                    .iter()
                    .map(|s| {
                        s.as_str()
                            .map(str::to_owned)
                            .unwrap_or_else(|| s.to_string())
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                Some(Value::String(s)) => s.clone(),
                _ => {
                    return Err(KnowledgeError::format(
                        path,
                        "`guidance` must be a list of steps",
                    ));
                }
            };
            let application = o
                .get("application")
                .and_then(Value::as_str)
                .filter(|a| !a.trim().is_empty())
                .unwrap_or(app)
                .to_owned();
            Ok((application, request.to_owned(), guidance))
        })
        .collect()
}

/// A legacy `.xml` help page and its `.xml.meta`: the title (meta `<title>`,
/// else the file name), and the summary followed by the page's text.
fn xml_doc(path: &Path, xml: &str) -> (String, String) {
    let meta_path = PathBuf::from(format!("{}.meta", path.display()));
    let meta = read_meta(&meta_path);
    let title = element(&meta, "title").unwrap_or_else(|| stem(path));
    let summary = element(&meta, "Content-Summary").unwrap_or_default();
    let body = crate::text::markup_to_text(xml);
    let text = match summary.is_empty() {
        true => body,
        false => format!("{summary}\n{body}"),
    };
    (title, text)
}

/// A `.xml.meta` file's text, read as the documents are: only a regular
/// file (not a link, which could lead to `/dev/zero` or outside the
/// folder), at most [`MAX_DOC_BYTES`]; anything else reads as empty.
fn read_meta(path: &Path) -> String {
    use std::io::Read;
    let regular = std::fs::symlink_metadata(path)
        .is_ok_and(|m| m.file_type().is_file() && m.len() <= MAX_DOC_BYTES);
    if !regular {
        return String::new();
    }
    let mut bytes = Vec::new();
    let read =
        std::fs::File::open(path).and_then(|f| f.take(MAX_DOC_BYTES).read_to_end(&mut bytes));
    match read {
        Ok(_) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) => String::new(),
    }
}

fn element(xml: &str, name: &str) -> Option<String> {
    let open = format!("<{name}");
    let start = xml.find(&open)?;
    let after = &xml[start..];
    let gt = after.find('>')?;
    let inner = &after[gt + 1..];
    let end = inner.find(&format!("</{name}>"))?;
    let t = crate::text::markup_to_text(&inner[..end]);
    (!t.is_empty()).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_read() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        std::fs::write(
            p.join("font.json"),
            r#"{"application": "mousepad", "request": "How to change the font size?", "guidance": ["Open View", "Choose Font"]}"#,
        )
        .unwrap();
        std::fs::create_dir(p.join("legacy")).unwrap();
        std::fs::write(
            p.join("legacy/wrap.xml"),
            "<topic><p>Turn on <b>word wrap</b> in View.</p></topic>",
        )
        .unwrap();
        std::fs::write(p.join("legacy/wrap.xml.meta"), "<meta><title>Wrap long lines</title><Content-Summary>Word wrap</Content-Summary></meta>").unwrap();
        std::fs::write(p.join("save.md"), "# Save a file\n\nPress Ctrl+S.\n").unwrap();
        std::fs::write(p.join("print.txt"), "Print a document\nUse File > Print.\n").unwrap();
        std::fs::write(p.join("image.png"), [0u8, 1, 2]).unwrap();
        let l = load_dir(p, "Mousepad").unwrap();
        assert_eq!(l.records.len(), 4, "{:?}", l.records);
        assert_eq!(l.skipped.len(), 1);
        let by = |s: &str| {
            l.records
                .iter()
                .find(|r| r.body["source"].as_str().unwrap().contains(s))
                .unwrap()
        };
        assert_eq!(by("font").body["text"], "Open View\nChoose Font");
        assert_eq!(by("font").id, "mousepad:font.json#0");
        assert_eq!(by("wrap").body["title"], "Wrap long lines");
        assert!(
            by("wrap").body["text"]
                .as_str()
                .unwrap()
                .contains("Turn on word wrap in View.")
        );
        assert_eq!(by("save").body["title"], "Save a file");
        assert_eq!(by("print").body["title"], "Print a document");
    }

    #[test]
    fn a_meta_file_that_is_a_link_or_too_large_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::write(p.join("a.xml"), "<topic>Alpha</topic>").unwrap();
        // A link to an endless device: read, it would never end.
        std::os::unix::fs::symlink("/dev/zero", p.join("a.xml.meta")).unwrap();
        std::fs::write(p.join("b.xml"), "<topic>Beta</topic>").unwrap();
        std::os::unix::fs::symlink("/etc/hostname", p.join("b.xml.meta")).unwrap();
        std::fs::write(p.join("c.xml"), "<topic>Gamma</topic>").unwrap();
        let big = format!(
            "<meta><title>{}</title></meta>",
            "x".repeat(MAX_DOC_BYTES as usize)
        );
        std::fs::write(p.join("c.xml.meta"), big).unwrap();
        let l = load_dir(p, "App").unwrap();
        assert_eq!(l.records.len(), 3);
        for r in &l.records {
            let title = r.body["title"].as_str().unwrap();
            assert!(["a", "b", "c"].contains(&title), "{title}");
        }
    }
}
