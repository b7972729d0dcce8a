//! `compare_pdfs` (OSWorld's `chrome.py`): two PDFs' text as MuPDF
//! extracts it (PyMuPDF's `page.get_text()`), fuzzily compared. MuPDF is
//! reached through its command-line tool (`mutool`, see the `mutool`
//! module): no Rust PDF crate extracts text as it does.
//!
//! Where OSWorld's differs (docs/EVAL.md lists it): Debian's MuPDF 1.21
//! ignores `/ActualText` (LibreOffice writes one for each no-break space,
//! which PyMuPDF's MuPDF 1.26 then extracts as U+00A0 where 1.21 gives a
//! space), gives U+FFFD, not the CID, for a glyph without Unicode, fails
//! on a cut file that 1.26 repairs into an empty document, and has no
//! reader for plain-text files.

use std::path::PathBuf;

use serde_json::Value;

use super::mutool::{self, Failure};
use super::py_space;
use super::similarity::indel_ratio;
use super::{CheckError, Cx, Got};

/// One path as OSWorld's metric receives it.
enum PdfPath {
    /// A file to open.
    File(PathBuf),
    /// `None` or `""`: PyMuPDF's `fitz.open` makes a new, empty document.
    Empty,
    /// Anything else (a number, a list): `fitz.open` raises.
    Invalid,
}

impl PdfPath {
    /// An element of a list of paths.
    fn of_value(v: &Value) -> Self {
        match v {
            Value::Null => PdfPath::Empty,
            Value::String(s) if s.is_empty() => PdfPath::Empty,
            Value::String(s) => PdfPath::File(s.into()),
            _ => PdfPath::Invalid,
        }
    }

    /// A getter's output that is not a list.
    fn of_got(got: &Got) -> Self {
        match got {
            Got::File(p) => PdfPath::File(p.clone()),
            Got::Text(t) if t.is_empty() => PdfPath::Empty,
            Got::Text(t) => PdfPath::File(t.into()),
            Got::Json(v) => Self::of_value(v),
            Got::Missing => PdfPath::Empty,
        }
    }
}

/// `compare_pdfs`: for each pair of paths (two lists paired in order, the
/// shorter deciding; or one path each), rapidfuzz's `fuzz.ratio / 100` of
/// the documents' text, each page's PyMuPDF `get_text()` concatenated and
/// stripped; a pair where a document cannot be read adds 0; the sum is
/// divided by the number of expected paths. As in OSWorld's, a single
/// expected path against a result list, or a list against a single path,
/// scores 0, and an empty expected list is refused (OSWorld's divides by
/// zero).
pub(super) fn compare_pdfs(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(expected) = cx.expected else {
        return Err(cx.bad("compare_pdfs needs the expected PDF"));
    };
    let pairs: Vec<(PdfPath, PdfPath)> = match (cx.result, expected) {
        (Got::Json(Value::Array(results)), Got::Json(Value::Array(wanted))) => results
            .iter()
            .zip(wanted)
            .map(|(r, w)| (PdfPath::of_value(r), PdfPath::of_value(w)))
            .collect(),
        (_, Got::Json(Value::Array(wanted))) => {
            // OSWorld's zips the characters of the one result path with the
            // expected paths: no character names a PDF.
            wanted
                .iter()
                .map(|_| (PdfPath::Invalid, PdfPath::Invalid))
                .collect()
        }
        (Got::Json(Value::Array(_)), _) => vec![(PdfPath::Invalid, PdfPath::of_got(expected))],
        (result, _) => vec![(PdfPath::of_got(result), PdfPath::of_got(expected))],
    };
    let count = match expected {
        Got::Json(Value::Array(wanted)) => wanted.len(),
        _ => 1,
    };
    if count == 0 {
        return Err(cx.bad("the expected list of PDFs is empty (OSWorld's divides by zero)"));
    }
    let mut total = 0.0;
    for (result, wanted) in &pairs {
        total += pair_score(cx, result, wanted)?;
    }
    #[allow(clippy::cast_precision_loss)] // a list of paths is far below 2^53
    Ok(total / count as f64)
}

/// One pair's `fuzz.ratio / 100`, 0 when either document cannot be read.
fn pair_score(cx: &Cx<'_>, result: &PdfPath, wanted: &PdfPath) -> Result<f64, CheckError> {
    let Some(a) = text(cx, result)? else {
        return Ok(0.0);
    };
    let Some(b) = text(cx, wanted)? else {
        return Ok(0.0);
    };
    Ok(indel_ratio(&a, &b))
}

/// A document's text, stripped as Python's `str.strip()` does; `None` when
/// PyMuPDF could not open or read it.
fn text(cx: &Cx<'_>, path: &PdfPath) -> Result<Option<String>, CheckError> {
    match path {
        PdfPath::Empty => Ok(Some(String::new())),
        PdfPath::Invalid => Ok(None),
        PdfPath::File(p) => match mutool::document_text(p) {
            Ok(t) => Ok(Some(t.trim_matches(py_space).to_owned())),
            Err(Failure::Unreadable(why)) => {
                tracing::debug!(file = %p.display(), "compare_pdfs: {why}");
                Ok(None)
            }
            Err(Failure::NoTool(why)) => Err(no_tool(cx, &why)),
        },
    }
}

/// The error for a machine without `mutool`.
pub(super) fn no_tool(cx: &Cx<'_>, why: &str) -> CheckError {
    CheckError::MissingTool {
        func: cx.func.to_owned(),
        message: format!("{why}: this checker reads PDFs with it (Debian package mupdf-tools)"),
    }
}
