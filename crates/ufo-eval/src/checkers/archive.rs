//! `compare_zip_files` (OSWorld `vscode.py`): two zip archives with the
//! same member names and the same bytes in each member.
//!
//! OSWorld compares members named `*.pdf` by the text PyPDF2 extracts
//! (a similarity of at least 0.95), which no Rust crate reproduces: equal
//! PDF bytes count as equal here (PyPDF2 extracts the same text from
//! them), different ones are refused (`bad_checker_input`) unless another
//! member already differs, which scores 0 whatever the PDFs hold.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::PathBuf;

use super::{CheckError, Cx, Got};

/// A zip's members by name (duplicates keep the last), read fully.
fn members(cx: &Cx<'_>, path: &PathBuf) -> Result<Vec<(String, Vec<u8>)>, CheckError> {
    let file = std::fs::File::open(path)
        .map_err(|e| cx.bad_because(format!("cannot open {}", path.display()), e))?;
    let mut zip = zip::ZipArchive::new(file)
        .map_err(|e| cx.bad_because(format!("{} is not a zip file", path.display()), e))?;
    let mut out = Vec::new();
    for i in 0..zip.len() {
        let mut f = zip
            .by_index(i)
            .map_err(|e| cx.bad_because("cannot read a member", e))?;
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes)
            .map_err(|e| cx.bad_because(format!("cannot read {}", f.name()), e))?;
        out.push((f.name().to_owned(), bytes));
    }
    Ok(out)
}

/// `compare_zip_files`.
pub(super) fn compare_zip_files(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let path = |g: Option<&Got>| match g {
        Some(Got::File(p)) => Some(p.clone()),
        Some(Got::Text(t)) if !t.is_empty() => Some(PathBuf::from(t)),
        _ => None,
    };
    let Some(actual) = path(Some(cx.result)) else {
        return Ok(0.0);
    };
    let expected = path(cx.expected).ok_or_else(|| cx.bad("the expected archive is missing"))?;
    let (a, b) = (members(cx, &actual)?, members(cx, &expected)?);
    let names = |m: &[(String, Vec<u8>)]| m.iter().map(|(n, _)| n.clone()).collect::<BTreeSet<_>>();
    if names(&a) != names(&b) {
        return Ok(0.0);
    }
    let get = |m: &[(String, Vec<u8>)], name: &str| {
        m.iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
            .unwrap_or_default()
    };
    let mut undecided_pdf = None;
    for name in names(&a) {
        let (x, y) = (get(&a, &name), get(&b, &name));
        if x == y {
            continue;
        }
        if name.to_lowercase().ends_with(".pdf") {
            undecided_pdf = Some(name);
        } else {
            return Ok(0.0);
        }
    }
    match undecided_pdf {
        None => Ok(1.0),
        Some(name) => Err(cx.bad(format!(
            "{name}: PDFs that differ are compared by the text PyPDF2 extracts, which is not reproduced"
        ))),
    }
}
