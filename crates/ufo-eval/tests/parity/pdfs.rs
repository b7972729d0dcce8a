//! `compare_pdfs` and `compare_pdf_images` (`chrome.py`: PyMuPDF's text;
//! the embedded images' perceptual hashes) against ours (`mutool`).
//! The corpus comes from three producers: LibreOffice (`soffice`, text,
//! HTML and JPEG inputs), ReportLab and PyMuPDF (`make_pdfs.py`, in the
//! parity venv), plus a hand-written PDF and broken files.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare, python};

/// The text of the invoice documents (as `make_pdfs.py`'s `LINES`).
const LINES: [&str; 3] = [
    "Invoice 243729 issued to Example Office Supplies.",
    "Total due: 1,250.00 USD, payable within thirty days.",
    "Thank you for your business!",
];

/// Why Debian's MuPDF 1.21 reads LibreOffice's no-break spaces otherwise.
const ACTUAL_TEXT: &str = "MuPDF 1.21 (mutool) ignores /ActualText, which LibreOffice writes for each no-break space: PyMuPDF 1.26 extracts U+00A0, mutool a space";
/// Why a missing result differs.
const MISSING: &str = "a missing result scores 0 for every checker; OSWorld's fitz.open(None) opens an empty document, equal to a PDF without text";
/// Why a broken file differs.
const REPAIRED: &str = "PyMuPDF 1.26 repairs a cut PDF into an empty document; mutool 1.21 fails on it (the pair adds 0)";
/// Why a text file differs.
const TEXT_FILE: &str =
    "PyMuPDF 1.26 opens a .txt file as a text document; mutool 1.21 has no text-document reader";
/// Why a broken file's images differ.
const REPAIRED_IMAGES: &str = "PyMuPDF 1.26 repairs a cut PDF into an empty document (no images, like a text-only PDF: 1); lopdf cannot read it (0)";

/// A page whose no-break spaces LibreOffice writes with `/ActualText`
/// (their glyph is the space's).
const NBSP_HTML: &str = "<html><body><h1>Office finance</h1><p style=\"font-family:'DejaVu Serif'\">The official fluffy waffles   with    spaces. Efficient affine offloading.</p><p>Second   paragraph&nbsp;&nbsp;nbsp and a <b>bold</b> word, then \u{201c}quotes\u{201d} \u{2014} dash\u{2026}</p><table border=1><tr><td>cell A1</td><td>cell B1</td></tr><tr><td>A2</td><td>B2</td></tr></table></body></html>";

/// The corpus, in one folder: `make_pdfs.py`'s files, LibreOffice's,
/// and the hand-made ones.
pub(crate) fn corpus(d: &Path) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parity/make_pdfs.py");
    ufo_testkit::deps::run(Command::new(python()).arg(&script).arg(d), "make_pdfs.py");
    let word = LINES.map(|l| l.replace("thirty", "sixty"));
    let sources: [(&str, String); 6] = [
        ("lo.txt", LINES.join("\n")),
        ("lo_word.txt", word.join("\n")),
        (
            "lo_two.html",
            format!(
                "<html><body><p>{}</p><p>{}</p><p>{}</p><p style=\"page-break-before: always\">Page two: terms and conditions.</p></body></html>",
                LINES[0], LINES[1], LINES[2]
            ),
        ),
        ("lo_nbsp.html", NBSP_HTML.into()),
        ("lo_spaces.html", NBSP_HTML.replace("&nbsp;", " ")),
        ("notes.txt", LINES.join("\n")),
    ];
    for (name, text) in &sources {
        std::fs::write(d.join(name), text).unwrap();
    }
    let profile = d.join("lo-profile");
    let inputs = [
        "lo.txt",
        "lo_word.txt",
        "lo_two.html",
        "lo_nbsp.html",
        "lo_spaces.html",
        "red.jpg",
        "blue.jpg",
    ];
    ufo_testkit::deps::run(
        Command::new("soffice")
            .arg(format!(
                "-env:UserInstallation=file://{}",
                profile.display()
            ))
            .args(["--headless", "--convert-to", "pdf", "--outdir"])
            .arg(d)
            .args(inputs.map(|i| d.join(i))),
        "soffice --convert-to pdf (apt-get install libreoffice-writer libreoffice-draw)",
    );
    // Hand-written: base-14 Helvetica, words placed by TJ offsets wide
    // enough for MuPDF to put a space between them.
    std::fs::write(
        d.join("raw.pdf"),
        raw_pdf("[(Invoice)-900(243729)-900(paid)] TJ"),
    )
    .unwrap();
    // Broken files: text named .pdf, and a real PDF cut short.
    std::fs::write(d.join("corrupt.pdf"), "hello, not a PDF").unwrap();
    let lo = std::fs::read(d.join("lo.pdf")).unwrap();
    std::fs::write(d.join("cut.pdf"), &lo[..lo.len() / 3]).unwrap();
}

/// A one-page PDF whose content shows `text_op` in Helvetica.
fn raw_pdf(text_op: &str) -> Vec<u8> {
    let content = format!("BT /F1 14 Tf 72 700 Td {text_op} ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".to_owned(),
        format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_owned(),
    ];
    let refs: Vec<&str> = objects.iter().map(String::as_str).collect();
    crate::formats::pdf(&refs)
}

fn file(d: &Path, name: &str) -> Got {
    Got::File(d.join(name))
}

fn paths(d: &Path, names: &[Option<&str>]) -> Got {
    Got::Json(Value::Array(
        names
            .iter()
            .map(|n| n.map_or(Value::Null, |n| json!(d.join(n).display().to_string())))
            .collect(),
    ))
}

#[test]
fn compare_pdfs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    corpus(d);
    let mut cases = single_cases(d);
    cases.extend(list_cases(d));
    compare("chrome", "compare_pdfs", &cases);
}

/// `compare_pdfs` cases of one path each.
fn single_cases(d: &Path) -> Vec<Case> {
    let f = |n: &str| file(d, n);
    let mut cases = Vec::new();
    // (result, expected): each producer against itself, one word changed,
    // one more page; producers against each other; layouts.
    let pairs = [
        ("lo.pdf", "lo.pdf"),
        ("lo_word.pdf", "lo.pdf"),
        ("lo_two.pdf", "lo.pdf"),
        ("lo_two.pdf", "lo_two.pdf"),
        ("rl.pdf", "rl.pdf"),
        ("rl_word.pdf", "rl.pdf"),
        ("rl_two.pdf", "rl.pdf"),
        ("rl_big.pdf", "rl.pdf"),
        ("mu.pdf", "mu.pdf"),
        ("mu_word.pdf", "mu.pdf"),
        ("mu_layout.pdf", "mu.pdf"),
        ("mu_three.pdf", "mu_two.pdf"),
        ("mu_offpage.pdf", "mu_offpage.pdf"),
        ("mu_offpage.pdf", "mu.pdf"),
        ("mu_rotated.pdf", "mu.pdf"),
        ("lo.pdf", "rl.pdf"),
        ("rl.pdf", "mu.pdf"),
        ("lo_two.pdf", "mu_two.pdf"),
        ("raw.pdf", "raw.pdf"),
        ("raw.pdf", "mu.pdf"),
        ("lo_nbsp.pdf", "lo_nbsp.pdf"),
        ("mu_blank.pdf", "mu_blank2.pdf"),
        ("mu_blank.pdf", "mu.pdf"),
        ("img_red.pdf", "lo.pdf"),
        ("img_red.pdf", "img_blue.pdf"),
        ("mu_img_red.pdf", "red.pdf"),
        ("absent.pdf", "lo.pdf"),
        ("corrupt.pdf", "lo.pdf"),
        ("lo.pdf", "corrupt.pdf"),
        ("cut.pdf", "lo.pdf"),
        ("lo.pdf", "cut.pdf"),
    ];
    for (r, e) in pairs {
        cases.push(Case::new(format!("{r} vs {e}"), f(r), f(e)));
    }
    cases.push(
        Case::new("nbsp vs spaces", f("lo_nbsp.pdf"), f("lo_spaces.pdf")).known(ACTUAL_TEXT, 0.1),
    );
    cases.push(Case::new("missing vs text", Got::Missing, f("lo.pdf")));
    cases.push(Case::new("missing vs blank", Got::Missing, f("mu_blank.pdf")).known(MISSING, 1.0));
    cases.push(Case::new(
        "empty path vs blank",
        Got::Text(String::new()),
        f("mu_blank.pdf"),
    ));
    cases.push(Case::new(
        "empty path vs text",
        Got::Text(String::new()),
        f("lo.pdf"),
    ));
    cases.push(Case::new(
        "path as text",
        Got::Text(d.join("lo.pdf").display().to_string()),
        f("lo_word.pdf"),
    ));
    cases.push(Case::new("cut vs blank", f("cut.pdf"), f("mu_blank.pdf")).known(REPAIRED, 1.0));
    cases.push(Case::new("text file vs pdf", f("notes.txt"), f("lo.pdf")).known(TEXT_FILE, 1.0));
    cases
}

/// A list of paths (`None`: null).
type Names<'a> = &'a [Option<&'a str>];

/// `compare_pdfs` cases of lists: paired in order, the shorter deciding,
/// divided by the expected count; a null path is an empty document.
fn list_cases(d: &Path) -> Vec<Case> {
    let f = |n: &str| file(d, n);
    let mut cases = Vec::new();
    let lists: [(&str, Names, Names); 8] = [
        (
            "two equal",
            &[Some("lo.pdf"), Some("rl.pdf")],
            &[Some("lo.pdf"), Some("rl.pdf")],
        ),
        (
            "two, one changed",
            &[Some("lo.pdf"), Some("rl_word.pdf")],
            &[Some("lo.pdf"), Some("rl.pdf")],
        ),
        (
            "two, swapped",
            &[Some("rl.pdf"), Some("lo.pdf")],
            &[Some("lo.pdf"), Some("rl.pdf")],
        ),
        (
            "three against two",
            &[Some("lo.pdf"), Some("rl.pdf"), Some("mu.pdf")],
            &[Some("lo.pdf"), Some("rl.pdf")],
        ),
        (
            "one against two",
            &[Some("lo.pdf")],
            &[Some("lo.pdf"), Some("rl.pdf")],
        ),
        (
            "null against blank",
            &[Some("lo.pdf"), None],
            &[Some("lo.pdf"), Some("mu_blank.pdf")],
        ),
        (
            "absent in list",
            &[Some("absent.pdf"), Some("mu.pdf")],
            &[Some("lo.pdf"), Some("mu_word.pdf")],
        ),
        (
            "corrupt in list",
            &[Some("corrupt.pdf"), Some("lo.pdf")],
            &[Some("lo.pdf"), Some("lo.pdf")],
        ),
    ];
    for (name, r, e) in lists {
        cases.push(Case::new(format!("list: {name}"), paths(d, r), paths(d, e)));
    }
    cases.push(Case::new(
        "list vs one",
        paths(d, &[Some("lo.pdf")]),
        f("lo.pdf"),
    ));
    cases.push(Case::new(
        "one vs list",
        f("lo.pdf"),
        paths(d, &[Some("lo.pdf")]),
    ));
    cases.push(Case::new("empty lists", paths(d, &[]), paths(d, &[])));
    cases.push(Case::new(
        "number in list",
        Got::Json(json!([5, d.join("lo.pdf").display().to_string()])),
        paths(d, &[Some("lo.pdf"), Some("lo.pdf")]),
    ));
    cases
}

#[test]
fn compare_pdf_images() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let work = dir.path().join("work");
    for p in [&src, &work] {
        std::fs::create_dir(p).unwrap();
    }
    corpus(&src);
    // OSWorld's copies both files into one folder beside the result under
    // their names: each case has its own copies, named apart.
    let mut n = 0;
    let mut copy = |name: &str| -> Got {
        n += 1;
        let to = work.join(format!("{n}-{name}"));
        std::fs::copy(src.join(name), &to).unwrap();
        Got::File(to)
    };
    let pairs = [
        ("red.pdf", "red.pdf"),
        ("red.pdf", "blue.pdf"),
        ("red.pdf", "mu_img_red.pdf"),
        ("red.pdf", "img_red.pdf"),
        ("mu_img_red.pdf", "mu_img_red.pdf"),
        ("mu_img_red.pdf", "mu_img_blue.pdf"),
        ("img_red.pdf", "img_red.pdf"),
        ("img_red.pdf", "img_blue.pdf"),
        ("img_red.pdf", "lo.pdf"),
        ("mu_img_rb.pdf", "mu_img_rr.pdf"),
        ("mu_img_rb.pdf", "mu_img_rb.pdf"),
        ("mu_img_rb.pdf", "mu_img_red.pdf"),
        ("mu_img_twice.pdf", "mu_img_rr.pdf"),
        ("lo.pdf", "lo.pdf"),
        ("lo_word.pdf", "lo.pdf"),
        ("lo_two.pdf", "lo.pdf"),
        ("mu.pdf", "rl.pdf"),
        ("raw.pdf", "mu_blank.pdf"),
        ("corrupt.pdf", "lo.pdf"),
        ("lo.pdf", "corrupt.pdf"),
        ("corrupt.pdf", "red.pdf"),
        ("cut.pdf", "red.pdf"),
    ];
    let mut cases: Vec<Case> = pairs
        .iter()
        .map(|(r, e)| Case::new(format!("{r} vs {e}"), copy(r), copy(e)))
        .collect();
    cases.push(
        Case::new("cut vs text", copy("cut.pdf"), copy("lo.pdf")).known(REPAIRED_IMAGES, 1.0),
    );
    // Two files of one name in two folders: OSWorld's reads the expected
    // one twice.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::copy(src.join("blue.pdf"), other.join("same.pdf")).unwrap();
    std::fs::copy(src.join("red.pdf"), work.join("same.pdf")).unwrap();
    cases.push(Case::new(
        "same name",
        Got::File(work.join("same.pdf")),
        Got::File(other.join("same.pdf")),
    ));
    cases.push(Case::new(
        "absent vs red",
        Got::File(work.join("absent.pdf")),
        copy("red.pdf"),
    ));
    cases.push(Case::new(
        "red vs absent",
        copy("red.pdf"),
        Got::File(work.join("absent.pdf")),
    ));
    cases.push(Case::new(
        "empty path",
        Got::Text(String::new()),
        copy("red.pdf"),
    ));
    cases.push(Case::new("missing result", Got::Missing, copy("red.pdf")));
    compare("chrome", "compare_pdf_images", &cases);
}
