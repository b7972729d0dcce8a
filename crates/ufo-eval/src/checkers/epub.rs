//! `compare_epub` (OSWorld `others.py`): both books unpacked the way
//! OSWorld's `process_epub` does, each file's lines compared
//! (`diff_text_file`'s `difflib` ratio) with the file at the same place in
//! the other book's sorted list, and the ratios averaged over the result's
//! files.
//!
//! What `process_epub` keeps of a book, reproduced:
//! - `toc.ncx` and `content.opf` at the top of the archive, without the
//!   lines that hold `navPoint` (resp. `dc:identifier`);
//! - every member whose name ends with `.html`, without `\r` and `\n`,
//!   re-serialised by lxml ([`super::lxmlhtml`]); one in a folder makes
//!   OSWorld's function raise (it writes it into a folder it never made);
//! - the files sorted by name and paired by position, not by name; a
//!   result without files scores 0; an archive that is not a zip counts as
//!   a book without files; text that is not UTF-8 makes OSWorld's raise.
//!
//! A chapter the HTML reader here does not reproduce is refused
//! (`unsupported`, with the reason) rather than scored by a guess.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::lxmlhtml;
use super::similarity::{py_splitlines, sequence_ratio};
use super::{CheckError, Cx, Got};

/// The lines of each file `process_epub` writes, by the name it sorts on.
type Book = Vec<(String, Vec<String>)>;

/// `compare_epub`.
pub(super) fn compare_epub(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let path = |g: &Got| match g {
        Got::File(p) => Some(p.clone()),
        Got::Text(t) if !t.is_empty() => Some(PathBuf::from(t)),
        _ => None,
    };
    let Some(result) = path(cx.result) else {
        return Ok(0.0);
    };
    let expected = cx
        .expected
        .and_then(path)
        .ok_or_else(|| cx.bad("the expected book is missing (OSWorld raises)"))?;
    let (mine, theirs) = (book(cx, &result)?, book(cx, &expected)?);
    if mine.is_empty() {
        return Ok(0.0);
    }
    let total: f64 = mine
        .iter()
        .zip(&theirs)
        .map(|((_, a), (_, b))| sequence_ratio(a, b))
        .sum();
    Ok(total / mine.len() as f64)
}

/// A member's bytes as text, or OSWorld's error when they are not UTF-8.
fn utf8<'a>(cx: &Cx<'_>, path: &Path, name: &str, bytes: &'a [u8]) -> Result<&'a str, CheckError> {
    std::str::from_utf8(bytes).map_err(|e| {
        cx.bad_because(
            format!("{name} in {} is not UTF-8 (OSWorld raises)", path.display()),
            e,
        )
    })
}

/// What `process_epub` makes of the archive at `path`.
fn book(cx: &Cx<'_>, path: &Path) -> Result<Book, CheckError> {
    let file = std::fs::File::open(path).map_err(|e| {
        cx.bad_because(
            format!("cannot open {} (OSWorld raises)", path.display()),
            e,
        )
    })?;
    // zipfile.BadZipFile, on opening or on reading a member, is caught:
    // the book has no files.
    let Some(members) = members(file) else {
        return Ok(Vec::new());
    };
    let mut names: Vec<&str> = members.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    if names.windows(2).any(|w| w[0] == w[1]) {
        return Err(refused("an archive with two members of one name"));
    }
    let mut files = Book::new();
    for (keep, dropped) in [("toc.ncx", "navPoint"), ("content.opf", "dc:identifier")] {
        if let Some((_, bytes)) = members.iter().find(|(n, _)| n == keep) {
            let lines = py_splitlines(utf8(cx, path, keep, bytes)?)
                .into_iter()
                .filter(|l| !l.contains(dropped))
                .map(str::to_owned)
                .collect();
            files.push((keep.to_owned(), lines));
        }
    }
    for (name, bytes) in &members {
        if !name.ends_with(".html") {
            continue;
        }
        if name.contains('/') {
            return Err(cx.bad(format!(
                "{name} in {}: OSWorld writes it into a folder it never made (OSWorld raises)",
                path.display()
            )));
        }
        let flat: String = utf8(cx, path, name, bytes)?
            .chars()
            .filter(|c| !matches!(c, '\n' | '\r'))
            .collect();
        let pretty =
            lxmlhtml::pretty(&flat).map_err(|why| refused(&format!("{name}: {}", why.0)))?;
        let lines = py_splitlines(&pretty)
            .into_iter()
            .map(str::to_owned)
            .collect();
        files.push((name.clone(), lines));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

/// Every member's name and bytes, in the archive's order; `None` when the
/// archive or a member cannot be read (Python's `BadZipFile`).
fn members(file: std::fs::File) -> Option<Vec<(String, Vec<u8>)>> {
    let mut zip = zip::ZipArchive::new(file).ok()?;
    let mut out = Vec::with_capacity(zip.len());
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).ok()?;
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes).ok()?;
        out.push((f.name().to_owned(), bytes));
    }
    Some(out)
}

/// A book this reader does not reproduce OSWorld's reading of.
fn refused(why: &str) -> CheckError {
    CheckError::Unsupported(format!("compare_epub on {why}"))
}
