//! `compare_archive` (`chrome.py`): archives of the PDF corpus (zip and
//! tar.gz, as OSWorld's three tasks make them), of text files, a folder
//! inside the archive (`file_path`), and broken ones, scored by OSWorld's
//! function and ours.

use std::path::Path;
use std::process::Command;

use serde_json::json;
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare, python};

/// Makes the archives in `sys.argv[1]` from its corpus files, with
/// Python's own `zipfile` and `tarfile`.
const MAKE: &str = r#"
import io, sys, tarfile, zipfile
from pathlib import Path
d = Path(sys.argv[1])
pdf = lambda n: (d / n).read_bytes()
def zip_of(name, members):
    with zipfile.ZipFile(d / name, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in members:
            if data is None:
                z.writestr(zipfile.ZipInfo(n), b"")
            else:
                z.writestr(n, data)
def tgz_of(name, members):
    with tarfile.open(d / name, "w:gz") as t:
        for n, data in members:
            info = tarfile.TarInfo(n)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
pair = [("a.pdf", pdf("lo.pdf")), ("b.pdf", pdf("lo_two.pdf"))]
zip_of("pair.zip", pair)
zip_of("pair_again.zip", pair)
tgz_of("pair.tar.gz", pair)
zip_of("word.zip", [("a.pdf", pdf("lo_word.pdf")), ("b.pdf", pdf("lo_two.pdf"))])
zip_of("renamed.zip", [("a.pdf", pdf("lo.pdf")), ("c.pdf", pdf("lo_two.pdf"))])
zip_of("one.zip", [("a.pdf", pdf("lo.pdf"))])
zip_of("sub.zip", [("slides/a.pdf", pdf("lo.pdf")), ("slides/b.pdf", pdf("lo_two.pdf"))])
zip_of("sub_word.zip", [("slides/a.pdf", pdf("lo_word.pdf")), ("slides/b.pdf", pdf("lo_two.pdf"))])
zip_of("with_dir.zip", [("a.pdf", pdf("lo.pdf")), ("inner/", None)])
zip_of("with_dir_again.zip", [("a.pdf", pdf("lo.pdf")), ("inner/", None)])
zip_of("notes.zip", [("n.txt", b"first line\nsecond line\n")])
zip_of("notes_other.zip", [("n.txt", b"first line\nanother line\n")])
zip_of("empty.zip", [])
zip_of("empty_again.zip", [])
(d / "corrupt.zip").write_bytes(b"PK\x03\x04 not really a zip")
"#;

#[test]
fn compare_archive() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    crate::pdfs::corpus(d);
    ufo_testkit::deps::run(
        Command::new(python()).arg("-c").arg(MAKE).arg(d),
        "making the archives",
    );
    compare("chrome", "compare_archive", &cases(d));
}

fn cases(d: &Path) -> Vec<Case> {
    let f = |n: &str| Got::File(d.join(n));
    let pdf = json!({"file_type": "pdf"});
    let mut cases: Vec<Case> = [
        ("pair.zip", "pair_again.zip"),
        ("pair.tar.gz", "pair.zip"),
        ("pair.zip", "pair.tar.gz"),
        ("word.zip", "pair.zip"),
        ("renamed.zip", "pair.zip"),
        ("one.zip", "pair.zip"),
        ("with_dir.zip", "with_dir_again.zip"),
    ]
    .iter()
    .map(|(r, e)| Case::new(format!("pdf: {r} vs {e}"), f(r), f(e)).with(pdf.clone()))
    .collect();
    let slides = json!({"file_path": "slides", "file_type": "pdf"});
    cases.extend([
        Case::new("file_path: equal", f("sub.zip"), f("sub.zip")).with(slides.clone()),
        Case::new("file_path: one word", f("sub_word.zip"), f("sub.zip")).with(slides.clone()),
        Case::new("file_path: not in it", f("pair.zip"), f("sub.zip")).with(slides),
        Case::new("text: equal", f("notes.zip"), f("notes.zip")),
        Case::new("text: a line differs", f("notes_other.zip"), f("notes.zip")),
        Case::new("empty archives", f("empty.zip"), f("empty_again.zip")).with(pdf.clone()),
        Case::new("corrupt result", f("corrupt.zip"), f("pair.zip")).with(pdf.clone()),
        Case::new("missing result", Got::Missing, f("pair.zip")).with(pdf.clone()),
        Case::new("unknown file type", f("pair.zip"), f("pair_again.zip"))
            .with(json!({"file_type": "spreadsheet"})),
    ]);
    cases
}
