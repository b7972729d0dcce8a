//! `compare_pdfs` and `compare_pdf_images` (OSWorld's `chrome.py`): two
//! PDFs' text as MuPDF extracts it, fuzzily compared, and their pages as
//! MuPDF renders them, compared byte for byte. MuPDF is reached through
//! its command-line tool (`mutool`, see the `mutool` module): no Rust PDF
//! crate extracts text or renders pages as it does.
//!
//! Where OSWorld's differ (docs/EVAL.md lists them): Debian's MuPDF 1.21
//! ignores `/ActualText` (LibreOffice writes one for each no-break space,
//! which MuPDF 1.26 then extracts as U+00A0 where 1.21 gives a space) and
//! gives U+FFFD, not the CID, for a glyph without Unicode; and
//! `compare_pdf_images` first re-saves both files with borb, which
//! re-encodes images and loses some producers' pages (ReportLab's, FPDF's
//! render blank after it), which is not reproduced: pages are rendered
//! as they are.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::browser::py_space;
use super::mutool::{self, Failure};
use super::similarity::indel_ratio;
use super::{CheckError, Cx, Got, py_truthy};

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

/// `compare_pdf_images`: 1 when both PDFs have as many pages and each
/// page renders (PyMuPDF's `get_pixmap()`, 72 dpi RGB) to the same
/// samples, else 0; an empty path scores 0. A file that cannot be read is
/// refused: OSWorld's raises (borb cannot load it).
pub(super) fn compare_pdf_images(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(expected) = cx.expected else {
        return Err(cx.bad("compare_pdf_images needs the expected PDF"));
    };
    let (Some(result), Some(expected)) = (single_path(cx, cx.result)?, single_path(cx, expected)?)
    else {
        return Ok(0.0);
    };
    let pages = |p: &Path| {
        mutool::page_digests(p).map_err(|e| match e {
            Failure::NoTool(why) => no_tool(cx, &why),
            Failure::Unreadable(why) => cx.bad(format!("{}: {why}", p.display())),
        })
    };
    let (a, b) = (pages(&result)?, pages(&expected)?);
    Ok(if a == b { 1.0 } else { 0.0 })
}

/// A `compare_pdf_images` path: `None` for an empty one (scores 0), an
/// error for a value that is not a path (OSWorld's raises on it).
fn single_path(cx: &Cx<'_>, got: &Got) -> Result<Option<PathBuf>, CheckError> {
    match got {
        Got::File(p) => Ok(Some(p.clone())),
        Got::Text(t) | Got::Json(Value::String(t)) if t.is_empty() => Ok(None),
        Got::Text(t) | Got::Json(Value::String(t)) => Ok(Some(t.into())),
        Got::Json(v) if !py_truthy(v) => Ok(None),
        Got::Json(other) => Err(cx.bad(format!("a PDF path is expected, got {other}"))),
        Got::Missing => Ok(None),
    }
}

/// The error for a machine without `mutool`.
fn no_tool(cx: &Cx<'_>, why: &str) -> CheckError {
    CheckError::MissingTool {
        func: cx.func.to_owned(),
        message: format!("{why}; it needs MuPDF's `mutool` (Debian package mupdf-tools)"),
    }
}
