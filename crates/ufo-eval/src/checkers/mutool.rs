//! MuPDF, as OSWorld's PDF metrics use it through PyMuPDF, here through its
//! command-line tool `mutool` (Debian's `mupdf-tools`): a document's text
//! as PyMuPDF's `page.get_text()` gives it, and its images as
//! `doc.extract_image(xref)` gives them.
//!
//! `mutool` runs as a fixed program with arguments (no shell), at most
//! [`TIME_LIMIT`], with its output bounded; a file name starting with `-`
//! is passed as `./-…` so that it is never taken for an option.
//!
//! Text: `mutool convert -F stext -O preserve-ligatures,preserve-whitespace`
//! writes MuPDF's structured text as XML, one `<char>` per line with its
//! quad (mediabox clipping is on by default, as PyMuPDF's flags ask).
//! PyMuPDF's plain text is rebuilt from it: per line, the characters whose
//! box overlaps the page, then a newline unless the line's last one is a
//! newline (lines of one block are not separated by a blank line, unlike
//! `mutool draw -F txt`, and pages are not separated at all).
//!
//! Images: `mutool extract -r FILE XREF…` writes each image object as
//! `image-NNNN.jpg` (a JPEG stream as it is stored, as `extract_image`
//! returns it) or `image-NNNN.png` (decoded by MuPDF, converted to RGB
//! when it is in another colour space).

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub(super) use super::program::Failure;
use super::program::{Tool, discard, file_arg};

/// The program.
const MUTOOL: Tool = Tool {
    name: "mutool",
    what: "MuPDF's command-line tool",
    limit: Duration::from_secs(120),
};
/// The most structured-text XML read for one document.
const MAX_XML_BYTES: u64 = 1 << 30;
/// The most bytes of images extracted from one document.
const MAX_IMAGE_BYTES: u64 = 1 << 30;

/// Runs `mutool args`; a non-zero exit is [`Failure::Unreadable`] with
/// MuPDF's error lines.
fn run(args: &[OsString], cwd: Option<&Path>, watch: (&Path, u64)) -> Result<(), Failure> {
    let done = super::program::run(&MUTOOL, args, cwd, Some(watch), |_| {}, discard)?;
    if done.status.success() {
        return Ok(());
    }
    let said = done
        .messages
        .lines()
        .filter(|l| l.starts_with("error"))
        .collect::<Vec<_>>()
        .join("; ");
    Err(Failure::Unreadable(format!(
        "MuPDF cannot read it (mutool {}{}{said})",
        done.status,
        if said.is_empty() { "" } else { ": " }
    )))
}

/// The text PyMuPDF's `"".join(page.get_text() for page in doc)` gives
/// for the document at `path` (not stripped).
pub(super) fn document_text(path: &Path) -> Result<String, Failure> {
    let dir = tempfile::tempdir()
        .map_err(|e| Failure::Unreadable(format!("no temporary directory for mutool: {e}")))?;
    let xml = dir.path().join("text.xml");
    let mut args: Vec<OsString> = ["convert", "-F", "stext", "-O"]
        .iter()
        .map(OsString::from)
        .collect();
    args.push("preserve-ligatures,preserve-whitespace".into());
    args.push("-o".into());
    args.push(xml.clone().into());
    args.push(file_arg(path));
    let watch = xml.clone();
    run(&args, None, (&watch, MAX_XML_BYTES)).and_then(|()| {
        let file = std::fs::File::open(&xml)
            .map_err(|e| Failure::Unreadable(format!("mutool wrote no text: {e}")))?;
        stext_to_text(BufReader::new(file))
            .map_err(|e| Failure::Unreadable(format!("reading mutool's text: {e}")))
    })
}

/// The files `mutool extract -r` writes for the image objects `xrefs` of
/// the document at `path`, into `dir`: by object number, the ones it
/// could extract.
pub(super) fn extract_images(
    path: &Path,
    xrefs: &[u32],
    dir: &Path,
) -> Result<HashMap<u32, PathBuf>, Failure> {
    let mut args: Vec<OsString> = vec!["extract".into(), "-r".into(), file_arg(path)];
    args.extend(xrefs.iter().map(|x| OsString::from(x.to_string())));
    run(&args, Some(dir), (dir, MAX_IMAGE_BYTES))?;
    let mut found = HashMap::new();
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Failure::Unreadable(format!("reading mutool's images: {e}")))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let number = name
            .strip_prefix("image-")
            .and_then(|n| n.split('.').next())
            .and_then(|n| n.parse::<u32>().ok());
        if let Some(n) = number {
            found.insert(n, entry.path());
        }
    }
    Ok(found)
}

/// PyMuPDF's plain text from `mutool`'s structured-text XML: per line, the
/// characters whose box overlaps the page (`JM_rects_overlap` with the
/// page's mediabox), then `\n` unless the last one kept is `\n` or NUL or
/// none was kept.
fn stext_to_text(mut xml: impl BufRead) -> std::io::Result<String> {
    let mut text = String::new();
    let (mut width, mut height) = (0.0_f64, 0.0_f64);
    let mut last: Option<char> = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        if xml.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let tag = String::from_utf8_lossy(&line);
        let tag = tag.trim_start();
        if tag.starts_with("<page ") {
            width = attr(tag, "width")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.0);
            height = attr(tag, "height")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.0);
        } else if tag.starts_with("<line ") {
            last = None;
        } else if tag.starts_with("</line>") {
            if last.is_some_and(|c| c != '\n' && c != '\0') {
                text.push('\n');
            }
        } else if tag.starts_with("<char ") {
            let (Some(quad), Some(c)) = (attr(tag, "quad"), attr(tag, "c")) else {
                continue;
            };
            if overlaps_page(quad, width, height) {
                for c in unescape(c) {
                    text.push(c);
                    last = Some(c);
                }
            }
        }
    }
    Ok(text)
}

/// Whether a character's quad (`x0 y0 … x3 y3`) overlaps the page
/// `0 0 width height`: its bounding box reaches strictly inside.
fn overlaps_page(quad: &str, width: f64, height: f64) -> bool {
    let v: Vec<f64> = quad.split(' ').filter_map(|n| n.parse().ok()).collect();
    if v.len() != 8 {
        return true;
    }
    let xs = [v[0], v[2], v[4], v[6]];
    let ys = [v[1], v[3], v[5], v[7]];
    let min = |a: [f64; 4]| a.into_iter().fold(f64::INFINITY, f64::min);
    let max = |a: [f64; 4]| a.into_iter().fold(f64::NEG_INFINITY, f64::max);
    !(0.0 >= max(xs) || 0.0 >= max(ys) || width <= min(xs) || height <= min(ys))
}

/// The value of attribute `name` in a start tag (as written, escaped).
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(&tag[start..start + len])
}

/// An attribute value with MuPDF's XML escapes (`&lt;` `&gt;` `&amp;`
/// `&quot;` `&apos;` `&#xHEX;`) resolved; a code point that is no
/// character becomes U+FFFD.
fn unescape(value: &str) -> Vec<char> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(c) = rest.chars().next() {
        if c == '&'
            && let Some(end) = rest.find(';')
        {
            let entity = &rest[1..end];
            let resolved = match entity {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => entity
                    .strip_prefix("#x")
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .map(|n| char::from_u32(n).unwrap_or('\u{fffd}')),
            };
            if let Some(r) = resolved {
                out.push(r);
                rest = &rest[end + 1..];
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn stext_lines_become_pymupdf_text() {
        let xml = r##"<?xml version="1.0"?>
<document name="x.pdf">
<page id="page1" width="100" height="50">
<block bbox="0 0 10 10">
<line bbox="0 0 10 10" wmode="0" dir="1 0">
<font name="F" size="10">
<char quad="1 1 5 1 1 9 5 9" x="1" y="8" color="#000000" c="&lt;"/>
<char quad="5 1 9 1 5 9 9 9" x="5" y="8" color="#000000" c="&#xfb01;"/>
<char quad="200 1 209 1 200 9 209 9" x="200" y="8" color="#000000" c="X"/>
</font>
</line>
<line bbox="0 0 10 10" wmode="0" dir="1 0">
<font name="F" size="10">
<char quad="-20 1 -10 1 -20 9 -10 9" x="-20" y="8" color="#000000" c="Y"/>
</font>
</line>
<line bbox="0 0 10 10" wmode="0" dir="1 0">
<font name="F" size="10">
<char quad="1 20 5 20 1 29 5 29" x="1" y="28" color="#000000" c="a"/>
<char quad="5 20 9 20 5 29 9 29" x="5" y="28" color="#000000" c="&#xa0;"/>
</font>
</line>
</block>
</page>
</document>
"##;
        let text = stext_to_text(xml.as_bytes()).unwrap();
        // The character off the page is dropped, and so is the newline of
        // a line with none kept.
        assert_eq!(text, "<\u{fb01}\na\u{a0}\n");
    }

    #[test]
    fn an_unreadable_file_is_unreadable() {
        if !crate::command::installed(MUTOOL.name) {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.pdf");
        std::fs::write(&bad, "not a PDF").unwrap();
        assert!(matches!(document_text(&bad), Err(Failure::Unreadable(_))));
        assert!(matches!(
            document_text(&dir.path().join("absent.pdf")),
            Err(Failure::Unreadable(_))
        ));
    }
}
