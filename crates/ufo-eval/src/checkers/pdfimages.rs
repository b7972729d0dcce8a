//! `compare_pdf_images` (OSWorld's `chrome.py`, desktop-env 1.0.2): the
//! images embedded in two PDFs, in page order, compared by perceptual hash.
//!
//! OSWorld's lists each page's images with PyMuPDF's
//! `page.get_images(full=True)`, takes each with `doc.extract_image(xref)`
//! and opens it with Pillow; an image Pillow cannot open is left out. Here
//! the page tree and resources are read with `lopdf` (the list is PyMuPDF's
//! `JM_scan_resources` walk: the `/XObject` images of the page's
//! inheritable `/Resources`, then those of each XObject's own resources,
//! an XObject met twice ending that level), the images are written by
//! `mutool extract` and decoded as Pillow holds them (`pil`). The hash is
//! ImageHash's `phash`: `convert("L")`, a Lanczos resize to 32×32, the 2-D
//! DCT-II (scipy's, unnormalised), the top-left 8×8 against their median.
//!
//! Where OSWorld's differs: a file `lopdf` cannot read (MuPDF repairs some)
//! scores 0; a JPEG is decoded by `image` (zune-jpeg) where Pillow uses
//! libjpeg-turbo, which moves a few pixel values by one (the hash, on a
//! 32×32 thumbnail, with 5 bits of slack, hardly ever notices); JPEG 2000
//! and CMYK JPEG images are left out (Pillow opens them).

use std::path::{Path, PathBuf};

use lopdf::{Dictionary, Document, Object};
use serde_json::Value;

use super::mutool::{self, Failure};
use super::pdftext::no_tool;
use super::pil::{Filter, Gray, Pil, resample};
use super::{CheckError, Cx, Got, py_truthy};

/// Hashes at most this many bits apart are the same image (OSWorld's
/// `hash_threshold`).
const THRESHOLD: u32 = 5;
/// How deep XObject resources may nest before the walk stops.
const MAX_DEPTH: usize = 64;

/// `compare_pdf_images`: 0 for an empty path or a file that does not
/// exist; both files' images (a file that cannot be read has none to give:
/// 0); 0 when the counts differ, 1 when neither has any, else the share of
/// image pairs whose perceptual hashes are at most 5 bits apart. Two files
/// of the same name are both read from the expected one, as OSWorld's
/// copies both into one folder under their names.
pub(super) fn compare_pdf_images(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(expected) = cx.expected else {
        return Err(cx.bad("compare_pdf_images needs the expected PDF"));
    };
    let (Some(mut result), Some(expected)) =
        (single_path(cx, cx.result)?, single_path(cx, expected)?)
    else {
        return Ok(0.0);
    };
    if !result.exists() || !expected.exists() {
        return Ok(0.0);
    }
    if result.file_name() == expected.file_name() {
        result = expected.clone();
    }
    let (Some(a), Some(b)) = (hashes(cx, &result)?, hashes(cx, &expected)?) else {
        return Ok(0.0);
    };
    if a.len() != b.len() {
        return Ok(0.0);
    }
    if a.is_empty() {
        return Ok(1.0);
    }
    let close = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| (*x ^ *y).count_ones() <= THRESHOLD)
        .count();
    #[allow(clippy::cast_precision_loss)] // image counts are far below 2^53
    Ok(close as f64 / a.len() as f64)
}

/// A path argument: `None` for a false one (scores 0), an error for a
/// value that is not a path (OSWorld's raises on it).
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

/// The perceptual hashes of the file's images that decode, in order;
/// `None` when the file or one of its images cannot be read (OSWorld's
/// catches that and scores 0).
fn hashes(cx: &Cx<'_>, path: &Path) -> Result<Option<Vec<u64>>, CheckError> {
    let Ok(doc) = Document::load(path) else {
        return Ok(None);
    };
    let xrefs = image_xrefs(&doc);
    if xrefs.is_empty() {
        return Ok(Some(Vec::new()));
    }
    // `extract_image(0)` (an image written inline in the resources) raises.
    if xrefs.contains(&0) {
        return Ok(None);
    }
    let dir =
        tempfile::tempdir().map_err(|e| cx.bad_because("no temporary directory for mutool", e))?;
    let mut wanted = xrefs.clone();
    wanted.sort_unstable();
    wanted.dedup();
    let files = match mutool::extract_images(path, &wanted, dir.path()) {
        Ok(f) => f,
        Err(Failure::NoTool(why)) => return Err(no_tool(cx, &why)),
        Err(Failure::Unreadable(_)) => return Ok(None),
    };
    let mut out = Vec::new();
    for x in xrefs {
        let Some(file) = files.get(&x) else {
            return Ok(None);
        };
        if let Ok(img) = Pil::open(file) {
            out.push(phash(&img));
        }
    }
    Ok(Some(out))
}

/// The object numbers of the images PyMuPDF's `get_images` lists, page by
/// page (0 for an image that is not an indirect object).
fn image_xrefs(doc: &Document) -> Vec<u32> {
    let mut out = Vec::new();
    for page in doc.get_pages().into_values() {
        let Some(resources) = page_resources(doc, page) else {
            continue;
        };
        let mut tracer = Vec::new();
        scan(doc, resources, &mut out, &mut tracer, 0);
    }
    out
}

/// The page's `/Resources`, inherited from its ancestors when it has none.
fn page_resources(doc: &Document, page: lopdf::ObjectId) -> Option<&Dictionary> {
    let mut node = doc.get_dictionary(page).ok()?;
    for _ in 0..MAX_DEPTH {
        if let Ok(r) = node.get(b"Resources") {
            return dict(doc, r);
        }
        node = dict(doc, node.get(b"Parent").ok()?)?;
    }
    None
}

/// The dictionary `obj` is or refers to (a stream's dictionary too).
fn dict<'a>(doc: &'a Document, obj: &'a Object) -> Option<&'a Dictionary> {
    match doc.dereference(obj).ok()?.1 {
        Object::Dictionary(d) => Some(d),
        Object::Stream(s) => Some(&s.dict),
        _ => None,
    }
}

/// PyMuPDF's `JM_scan_resources` for images: the images of `resources`'
/// `/XObject`, then, for each XObject with resources of its own, those;
/// an XObject already scanned ends this level (`tracer`).
fn scan(
    doc: &Document,
    resources: &Dictionary,
    out: &mut Vec<u32>,
    tracer: &mut Vec<u32>,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let Some(xobjects) = resources.get(b"XObject").ok().and_then(|x| dict(doc, x)) else {
        return true;
    };
    let entries: Vec<(u32, &Dictionary, bool)> = xobjects
        .iter()
        .filter_map(|(_, v)| {
            let number = match v {
                Object::Reference(id) => id.0,
                _ => 0,
            };
            let is_stream = matches!(doc.dereference(v), Ok((_, Object::Stream(_))));
            dict(doc, v).map(|d| (number, d, is_stream))
        })
        .collect();
    for (number, d, _) in &entries {
        if matches!(d.get(b"Subtype"), Ok(Object::Name(n)) if n == b"Image") {
            out.push(*number);
        }
    }
    for (number, d, is_stream) in entries {
        let Some(sub) = d.get(b"Resources").ok().and_then(|r| dict(doc, r)) else {
            continue;
        };
        let sxref = if is_stream { number } else { 0 };
        if tracer.contains(&sxref) {
            return true;
        }
        tracer.push(sxref);
        if !scan(doc, sub, out, tracer, depth + 1) {
            return false;
        }
    }
    true
}

/// ImageHash's `phash(image)` (hash size 8, high-frequency factor 4) as 64
/// bits, row-major from the top-left coefficient.
pub(super) fn phash(img: &Pil) -> u64 {
    const N: usize = 32;
    let gray = Gray {
        w: img.w,
        h: img.h,
        px: img.to_l(),
    };
    let small = resample(&gray, N, N, Filter::Lanczos);
    let cos: Vec<f64> = (0..N * N)
        .map(|i| {
            let (k, n) = (i / N, i % N);
            #[allow(clippy::cast_precision_loss)] // small integers
            let angle = std::f64::consts::PI * (k * (2 * n + 1)) as f64 / (2 * N) as f64;
            angle.cos()
        })
        .collect();
    // scipy.fftpack.dct (type II, unnormalised: 2·Σ x·cos) down the
    // columns, then along the rows; only the first 8 of each are needed.
    let mut cols = [[0.0_f64; N]; 8];
    for (k, row) in cols.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = 2.0
                * (0..N)
                    .map(|r| f64::from(small.px[r * N + c]) * cos[k * N + r])
                    .sum::<f64>();
        }
    }
    let mut low = [0.0_f64; 64];
    for r in 0..8 {
        for k in 0..8 {
            low[r * 8 + k] = 2.0 * (0..N).map(|c| cols[r][c] * cos[k * N + c]).sum::<f64>();
        }
    }
    let mut sorted = low;
    sorted.sort_by(f64::total_cmp);
    let median = (sorted[31] + sorted[32]) / 2.0;
    low.iter()
        .enumerate()
        .filter(|(_, v)| **v > median)
        .fold(0, |bits, (i, _)| bits | (1 << (63 - i)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::checkers::pil::Mode;

    fn image(w: usize, h: usize, f: impl Fn(usize, usize) -> u8) -> Pil {
        Pil {
            mode: Mode::L,
            w,
            h,
            px: (0..w * h).map(|i| f(i % w, i / w)).collect(),
            palette: Vec::new(),
            key: None,
        }
    }

    #[test]
    fn phash_sees_structure_not_scale() {
        let a = image(64, 64, |x, _| if x < 32 { 0 } else { 255 });
        let b = image(128, 128, |x, _| if x < 64 { 0 } else { 255 });
        let c = image(64, 64, |_, y| if y < 32 { 0 } else { 255 });
        assert!((phash(&a) ^ phash(&b)).count_ones() <= THRESHOLD);
        assert!((phash(&a) ^ phash(&c)).count_ones() > THRESHOLD);
    }
}
