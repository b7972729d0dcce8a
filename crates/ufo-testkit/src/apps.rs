//! The files the test and benchmark applications open: one tree,
//! `crates/ufo-testkit/fixtures/apps/`, laid out as the work folder the
//! applications see (`doc.txt`, `doc.pdf`, `form.html`, `files/`, `pick/`, a
//! Firefox and a LibreOffice profile without first-run pages). `ufo bench
//! apps`, the AT-SPI tests and `scripts/conformance/` all copy it from
//! here; the texts the checks look for are read from the files, not
//! repeated.
//!
//! The files are compiled in, so an installed `ufo` writes them without
//! the source tree.

use std::path::Path;

/// Every file of the tree: its path under the work folder and its bytes.
pub const FILES: &[(&str, &[u8])] = &[
    ("doc.txt", include_bytes!("../fixtures/apps/doc.txt")),
    ("doc.pdf", include_bytes!("../fixtures/apps/doc.pdf")),
    ("form.html", include_bytes!("../fixtures/apps/form.html")),
    ("login.html", include_bytes!("../fixtures/apps/login.html")),
    ("focus.txt", include_bytes!("../fixtures/apps/focus.txt")),
    (
        "files/notes.txt",
        include_bytes!("../fixtures/apps/files/notes.txt"),
    ),
    (
        "files/alpha-folder/inside-alpha.txt",
        include_bytes!("../fixtures/apps/files/alpha-folder/inside-alpha.txt"),
    ),
    (
        "files/beta-folder/inside-beta.txt",
        include_bytes!("../fixtures/apps/files/beta-folder/inside-beta.txt"),
    ),
    (
        "files/gamma-folder/inside-gamma.txt",
        include_bytes!("../fixtures/apps/files/gamma-folder/inside-gamma.txt"),
    ),
    ("pick/a.txt", include_bytes!("../fixtures/apps/pick/a.txt")),
    ("pick/b.txt", include_bytes!("../fixtures/apps/pick/b.txt")),
    ("pick/c.txt", include_bytes!("../fixtures/apps/pick/c.txt")),
    (
        "pick/.hidden-note.txt",
        include_bytes!("../fixtures/apps/pick/.hidden-note.txt"),
    ),
    (
        "ffprofile/user.js",
        include_bytes!("../fixtures/apps/ffprofile/user.js"),
    ),
    (
        "lo-profile/user/registrymodifications.xcu",
        include_bytes!("../fixtures/apps/lo-profile/user/registrymodifications.xcu"),
    ),
];

/// Writes the tree into `work` (folders made as needed; files there
/// already are replaced).
///
/// # Errors
/// The first file or folder that cannot be written.
pub fn write_fixtures(work: &Path) -> std::io::Result<()> {
    for (path, bytes) in FILES {
        let to = work.join(path);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&to, bytes)?;
    }
    Ok(())
}

/// The bytes of one file of the tree (`"ffprofile/user.js"`).
///
/// # Panics
/// When `path` is not in [`FILES`]: a test naming a fixture that does not
/// exist.
pub fn fixture(path: &str) -> &'static [u8] {
    FILES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, b)| *b)
        .unwrap_or_else(|| panic!("no fixture {path:?} in ufo_testkit::apps::FILES"))
}

/// The first line of `doc.txt`: what a text application shows first.
pub fn doc_line() -> &'static str {
    std::str::from_utf8(fixture("doc.txt"))
        .expect("doc.txt is UTF-8")
        .lines()
        .next()
        .unwrap_or_default()
}

/// The line of text `doc.pdf` shows (its one `(...) Tj`).
pub fn pdf_line() -> &'static str {
    let text = std::str::from_utf8(fixture("doc.pdf")).expect("doc.pdf is ASCII");
    let end = text.find(") Tj").expect("doc.pdf draws one text line");
    let start = text[..end].rfind('(').expect("doc.pdf's text opens with (");
    &text[start + 1..end]
}

/// The paragraph `form.html` shows above its form.
pub fn form_paragraph() -> &'static str {
    let html = std::str::from_utf8(fixture("form.html")).expect("form.html is UTF-8");
    let start = html.find("<p>").expect("form.html has a paragraph") + 3;
    let end = start + html[start..].find("</p>").expect("its paragraph ends");
    &html[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_of_the_tree_is_listed_once() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/apps");
        let mut on_disk = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                } else {
                    let rel = p.strip_prefix(&root).unwrap();
                    on_disk.push(rel.to_string_lossy().replace('\\', "/"));
                }
            }
        }
        on_disk.sort();
        let mut listed: Vec<String> = FILES.iter().map(|(p, _)| (*p).to_owned()).collect();
        listed.sort();
        assert_eq!(listed, on_disk, "FILES and fixtures/apps/ differ");
    }

    #[test]
    fn the_tree_is_written_and_its_texts_are_read_from_it() {
        let dir = tempfile::tempdir().unwrap();
        write_fixtures(dir.path()).unwrap();
        // Written twice: the second time replaces.
        write_fixtures(dir.path()).unwrap();
        let doc = std::fs::read_to_string(dir.path().join("doc.txt")).unwrap();
        assert!(doc.starts_with(doc_line()) && !doc_line().is_empty());
        assert!(dir.path().join("pick/.hidden-note.txt").is_file());
        assert_eq!(pdf_line(), "A PDF page of one line says hello");
        assert_eq!(form_paragraph(), "A web page paragraph to read.");
    }

    #[test]
    fn the_pdf_has_a_consistent_cross_reference_table() {
        let text = std::str::from_utf8(fixture("doc.pdf")).unwrap();
        let xref: usize = text
            .rsplit("startxref\n")
            .next()
            .and_then(|t| t.lines().next())
            .unwrap()
            .parse()
            .unwrap();
        assert!(text[xref..].starts_with("xref\n0 6\n"));
        let offsets: Vec<usize> = text[xref..]
            .lines()
            .skip(3)
            .take(5)
            .map(|l| l[..10].parse().unwrap())
            .collect();
        for (i, at) in offsets.iter().enumerate() {
            assert!(
                text[*at..].starts_with(&format!("{} 0 obj", i + 1)),
                "object {} is not at {at}",
                i + 1
            );
        }
        // The stream's length is the length given.
        let start = text.find(">>\nstream\n").unwrap() + ">>\nstream\n".len();
        let body = &text[start..start + text[start..].find("\nendstream").unwrap()];
        assert!(text.contains(&format!("<< /Length {} >>", body.len())));
    }
}
