//! `compare_zip_files` (OSWorld `vscode.py`): two zip archives with the
//! same member names and the same bytes in each member.
//!
//! `compare_archive` (OSWorld `chrome.py`): both archives unpacked (the
//! format told by the file name, as `shutil.unpack_archive` tells it), the
//! sorted entries of the folder `file_path` in each equal, then each pair
//! scored by the checker of `file_type`, averaged.
//!
//! OSWorld compares members named `*.pdf` by the text PyPDF2 extracts
//! (a similarity of at least 0.95), which no Rust crate reproduces: equal
//! PDF bytes count as equal here (PyPDF2 extracts the same text from
//! them), different ones are refused (`bad_checker_input`) unless another
//! member already differs, which scores 0 whatever the PDFs hold.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::PathBuf;

use super::{CheckError, Cx, Got, check};
use serde_json::{Map, Value};

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

/// `compare_archive`.
pub(super) fn compare_archive(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(pred) = cx.result_path().filter(|p| !p.as_os_str().is_empty()) else {
        return Ok(0.0);
    };
    let gold = match cx.expected {
        Some(Got::File(p)) => p.clone(),
        Some(Got::Text(t)) => PathBuf::from(t),
        _ => return Err(cx.bad("the expected archive is missing")),
    };
    let text = |key: &str, default: &str| match cx.options.get(key) {
        None | Some(Value::Null) => Ok(default.to_owned()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(cx.bad(format!("`{key}` is not a string: {other}"))),
    };
    let (file_path, file_type) = (text("file_path", "")?, text("file_type", "text")?);
    let func = match file_type.as_str() {
        "text" => "compare_text_file",
        "pdf" => "compare_pdfs",
        "docx" => "compare_docx_files",
        "ppt" => "compare_pptx_files",
        "image" => "compare_images",
        "csv" => "compare_csv",
        "table" => "compare_table",
        "audio" => "compare_audios",
        "video" => "compare_videos",
        other => return Err(cx.bad(format!("not support file type: {other}"))),
    };
    let (pred_dir, gold_dir) = (unpacked(cx, &pred)?, unpacked(cx, &gold)?);
    let (pred_files, gold_files) = (
        entries(cx, &pred_dir.path().join(&file_path))?,
        entries(cx, &gold_dir.path().join(&file_path))?,
    );
    if pred_files != gold_files {
        return Ok(0.0);
    }
    if pred_files.is_empty() {
        return Err(cx.bad("both archives hold no files there (OSWorld's divides by zero)"));
    }
    // The other options go to the member checker, as OSWorld's **kwargs.
    let rest: Map<String, Value> = cx
        .options
        .iter()
        .filter(|(k, _)| *k != "file_path" && *k != "file_type")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut score = 0.0;
    for name in &pred_files {
        let (a, b) = (
            pred_dir.path().join(&file_path).join(name),
            gold_dir.path().join(&file_path).join(name),
        );
        score += check(func, &Got::File(a), Some(&Got::File(b)), &rest)?;
    }
    Ok(score / pred_files.len() as f64)
}

/// `path` unpacked into a new temporary folder: a zip (`.zip`) or a tar
/// (`.tar`, `.tar.gz`, `.tgz`) as `shutil.unpack_archive` tells them by
/// name. Nothing is written outside the folder: a tar's member that would
/// land there is skipped (as Python skips it), a zip holding one is refused.
fn unpacked(cx: &Cx<'_>, path: &PathBuf) -> Result<tempfile::TempDir, CheckError> {
    let dir = tempfile::tempdir().map_err(|e| cx.bad_because("no temporary folder", e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let file = std::fs::File::open(path)
        .map_err(|e| cx.bad_because(format!("cannot open {}", path.display()), e))?;
    let broken = |e: std::io::Error| cx.bad_because(format!("cannot unpack {}", path.display()), e);
    if name.ends_with(".zip") {
        let mut zip = zip::ZipArchive::new(file)
            .map_err(|e| cx.bad_because(format!("{} is not a zip file", path.display()), e))?;
        zip.extract(dir.path())
            .map_err(|e| cx.bad_because(format!("cannot unpack {}", path.display()), e))?;
    } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        tar::Archive::new(flate2::read::GzDecoder::new(file))
            .unpack(dir.path())
            .map_err(broken)?;
    } else if name.ends_with(".tar") {
        tar::Archive::new(file).unpack(dir.path()).map_err(broken)?;
    } else {
        return Err(cx.bad(format!(
            "{}: unknown archive format (zip, tar and tar.gz are unpacked; OSWorld's tasks use zip and tar.gz)",
            path.display()
        )));
    }
    Ok(dir)
}

/// The names in `dir`, sorted as Python sorts `os.listdir`.
fn entries(cx: &Cx<'_>, dir: &std::path::Path) -> Result<Vec<String>, CheckError> {
    let list = std::fs::read_dir(dir)
        .map_err(|e| cx.bad_because(format!("no folder {} in the archive", dir.display()), e))?;
    let mut names: Vec<String> = list
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(names)
}
