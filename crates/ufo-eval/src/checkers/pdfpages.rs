//! `check_pdf_pages` (OSWorld's `pdf.py`): a PDF's page count, as pypdf
//! counts it, against `rules.ref_value` by the `operator` function named
//! `rules.relation`.
//!
//! pypdf counts the leaves of the page tree: from the catalog's `/Pages`,
//! a node typed `/Pages` (or untyped with `/Kids`) is walked through its
//! kids, a node typed `/Page` (or untyped without `/Kids`) is a page, any
//! other type is skipped. An encrypted file's count is the root node's
//! `/Count` instead.

use lopdf::{Dictionary, Document, Object};
use serde_json::Value;

use super::{CheckError, Cx};

/// How deep a page tree may nest before it is taken for a cycle (pypdf
/// stops at Python's recursion limit).
const MAX_DEPTH: usize = 256;

/// `check_pdf_pages`: 1 when `pages <relation> ref_value` holds, for
/// `relation` one of `eq`, `ne`, `lt`, `le`, `gt`, `ge`. A result that is
/// not a readable PDF, a missing rule, another relation, or an ordering
/// against a value that is not a number are refused (OSWorld's raises).
pub(super) fn check_pdf_pages(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let rules = cx.rules()?;
    let relation = rules
        .get("relation")
        .and_then(Value::as_str)
        .ok_or_else(|| cx.bad("rules need a string \"relation\""))?;
    let reference = rules
        .get("ref_value")
        .ok_or_else(|| cx.bad("rules need a \"ref_value\""))?;
    let Some(path) = cx.result_path() else {
        return Err(cx.bad("the result is not a file"));
    };
    let doc = Document::load(&path)
        .map_err(|e| cx.bad_because(format!("{} is not a readable PDF", path.display()), e))?;
    let pages = page_count(&doc).map_err(|m| cx.bad(format!("{}: {m}", path.display())))?;
    let reference = match reference {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    };
    #[allow(clippy::cast_precision_loss)] // a page count is far below 2^53
    let pages = pages as f64;
    let holds = match (relation, reference) {
        ("eq", r) => r == Some(pages),
        ("ne", r) => r != Some(pages),
        ("lt", Some(r)) => pages < r,
        ("le", Some(r)) => pages <= r,
        ("gt", Some(r)) => pages > r,
        ("ge", Some(r)) => pages >= r,
        ("lt" | "le" | "gt" | "ge", None) => {
            return Err(cx.bad(format!("relation {relation}: ref_value must be a number")));
        }
        (other, _) => return Err(cx.bad(format!("relation {other:?} is not supported"))),
    };
    Ok(if holds { 1.0 } else { 0.0 })
}

/// The number of pages pypdf's `len(reader.pages)` gives.
fn page_count(doc: &Document) -> Result<usize, String> {
    let catalog = doc.catalog().map_err(|e| format!("no catalog: {e}"))?;
    let root = dict(doc, catalog.get(b"Pages").map_err(|_| "no /Pages")?)
        .ok_or("invalid object in /Pages")?;
    if doc.trailer.has(b"Encrypt") {
        return match root.get(b"Count") {
            Ok(Object::Integer(n)) => usize::try_from(*n).map_err(|_| "negative /Count".into()),
            _ => Err("encrypted, without an integer /Count".into()),
        };
    }
    let mut count = 0;
    walk(doc, root, 0, &mut count)?;
    Ok(count)
}

/// The dictionary `obj` is or refers to (a stream's dictionary too).
fn dict<'a>(doc: &'a Document, obj: &'a Object) -> Option<&'a Dictionary> {
    match doc.dereference(obj).ok()?.1 {
        Object::Dictionary(d) => Some(d),
        Object::Stream(s) => Some(&s.dict),
        _ => None,
    }
}

/// Counts the pages under `node` into `count`.
fn walk(doc: &Document, node: &Dictionary, depth: usize, count: &mut usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err("the page tree nests too deep".into());
    }
    let kind: &[u8] = match node.get(b"Type") {
        Ok(Object::Name(n)) => n,
        Ok(_) => return Ok(()),
        Err(_) if node.has(b"Kids") => b"Pages",
        Err(_) => b"Page",
    };
    match kind {
        b"Pages" => {
            let kids = node
                .get(b"Kids")
                .map_err(|_| "a /Pages node without /Kids")?;
            let Ok((_, Object::Array(kids))) = doc.dereference(kids) else {
                return Err("/Kids is not an array".into());
            };
            for kid in kids {
                // pypdf skips a kid that resolves to nothing (null, a
                // missing object); other non-dictionaries fail.
                match doc.dereference(kid) {
                    Ok((_, Object::Null)) | Err(_) => {}
                    Ok((_, obj)) => {
                        let d = dict(doc, obj).ok_or("a page tree kid is not a dictionary")?;
                        walk(doc, d, depth + 1, count)?;
                    }
                }
            }
        }
        b"Page" => *count += 1,
        _ => {}
    }
    Ok(())
}
