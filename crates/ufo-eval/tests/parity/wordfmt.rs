//! Word formatting checks (`docs.py`): documents written here as minimal
//! OOXML packages with run properties (fonts, sizes, italics, strike,
//! subscript, colours), paragraph properties (alignment, tab stops),
//! sections with footers, page breaks, images, references; and
//! LibreOffice's `registrymodifications.xcu` for the default font.

use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};

const NS: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing""#;

/// A `.docx` of `body` (ending with its own `w:sectPr`s) and footer parts
/// (relationship id, paragraphs XML).
pub(crate) fn word(dir: &Path, name: &str, body: &str, footers: &[(&str, &str)]) -> Got {
    let path = dir.join(name);
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    let mut types = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>"#,
    );
    let mut doc_rels = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#,
    );
    let mut parts = Vec::new();
    for (id, xml) in footers {
        let part = format!("footer_{id}.xml");
        types.push_str(&format!(
            r#"<Override PartName="/word/{part}" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml"/>"#
        ));
        doc_rels.push_str(&format!(
            r#"<Relationship Id="{id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer" Target="{part}"/>"#
        ));
        parts.push((
            format!("word/{part}"),
            format!(r#"<?xml version="1.0" encoding="UTF-8"?><w:ftr {NS}>{xml}</w:ftr>"#),
        ));
    }
    types.push_str("</Types>");
    doc_rels.push_str("</Relationships>");
    let rels = r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>"#;
    let doc = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><w:document {NS}><w:body>{body}</w:body></w:document>"#
    );
    parts.push(("[Content_Types].xml".into(), types));
    parts.push(("_rels/.rels".into(), rels.into()));
    parts.push(("word/_rels/document.xml.rels".into(), doc_rels));
    parts.push(("word/document.xml".into(), doc));
    for (n, c) in parts {
        zip.start_file(n, opts).unwrap();
        zip.write_all(c.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
    Got::File(path)
}

/// A run with properties `rpr` and text.
pub(crate) fn r(rpr: &str, text: &str) -> String {
    format!(r#"<w:r><w:rPr>{rpr}</w:rPr><w:t xml:space="preserve">{text}</w:t></w:r>"#)
}

/// A paragraph with properties `ppr` and runs.
pub(crate) fn p(ppr: &str, runs: &[String]) -> String {
    format!("<w:p><w:pPr>{ppr}</w:pPr>{}</w:p>", runs.concat())
}

/// A paragraph of plain text.
pub(crate) fn t(text: &str) -> String {
    p("", &[r("", text)])
}

/// A letter-size section with one-inch margins.
pub(crate) const SECT: &str = r#"<w:sectPr><w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440"/></w:sectPr>"#;

pub(crate) fn bodies(dir: &Path, items: &[(&'static str, String)]) -> Vec<(&'static str, Got)> {
    items
        .iter()
        .enumerate()
        .map(|(i, (name, body))| (*name, word(dir, &format!("d{i}.docx"), body, &[])))
        .collect()
}

/// Malformed inputs every function gets.
pub(crate) fn broken(dir: &Path) -> Vec<(&'static str, Got)> {
    let not_zip = dir.join("broken.docx");
    std::fs::write(&not_zip, "not a zip").unwrap();
    vec![
        ("not a zip", Got::File(not_zip)),
        ("missing", Got::File(dir.join("absent.docx"))),
    ]
}

/// Every ordered pair of `docs`.
pub(crate) fn all_pairs(docs: &[(&'static str, Got)]) -> Vec<Case> {
    let mut cases = Vec::new();
    for (a, x) in docs {
        for (b, y) in docs {
            cases.push(Case::new(format!("{a} vs {b}"), x.clone(), y.clone()));
        }
    }
    cases
}

/// Each of `docs` alone (no `expected`), with `expected` rules if given.
pub(crate) fn singles(docs: &[(&'static str, Got)], rules: &[Value]) -> Vec<Case> {
    let mut cases = Vec::new();
    for (name, d) in docs {
        if rules.is_empty() {
            cases.push(Case {
                name: (*name).to_owned(),
                result: d.clone(),
                expected: None,
                options: json!({}),
                known: None,
            });
        }
        for rule in rules {
            cases.push(Case::new(
                format!("{name} {rule}"),
                d.clone(),
                Got::Json(rule.clone()),
            ));
        }
    }
    cases
}

#[test]
fn compare_font_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let arial = r#"<w:rFonts w:ascii="Arial" w:hAnsi="Arial"/>"#;
    let mut docs = bodies(
        d,
        &[
            (
                "all Arial",
                [
                    p("", &[r(arial, "One"), r(arial, " two")]),
                    p("", &[r(arial, "Three")]),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "one run unset",
                [p("", &[r(arial, "One"), r("", " two")]), SECT.into()].concat(),
            ),
            (
                "one run Times",
                [
                    p(
                        "",
                        &[
                            r(arial, "One"),
                            r(r#"<w:rFonts w:ascii="Times New Roman"/>"#, "x"),
                        ],
                    ),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "hAnsi only",
                [
                    p("", &[r(r#"<w:rFonts w:hAnsi="Arial"/>"#, "One")]),
                    SECT.into(),
                ]
                .concat(),
            ),
            ("no runs", [p("", &[]), SECT.into()].concat()),
            (
                "table runs not read",
                [t_arial_table(), p("", &[r(arial, "x")]), SECT.into()].concat(),
            ),
        ],
    );
    docs.extend(broken(d));
    let rules = [
        json!({"font_name": "Arial"}),
        json!({"font_name": "Times New Roman"}),
        json!({"font_name": null}),
        json!({}),
    ];
    compare("docs", "compare_font_names", &singles(&docs, &rules));
}

/// A table whose run is in Times (python-docx's `paragraphs` skip it).
fn t_arial_table() -> String {
    format!(
        "<w:tbl><w:tblGrid><w:gridCol/></w:tblGrid><w:tr><w:tc>{}</w:tc></w:tr></w:tbl>",
        p("", &[r(r#"<w:rFonts w:ascii="Times"/>"#, "cell")])
    )
}

#[test]
fn compare_subscript_contains() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sub = r#"<w:vertAlign w:val="subscript"/>"#;
    let sup = r#"<w:vertAlign w:val="superscript"/>"#;
    let mut docs = bodies(
        d,
        &[
            (
                "H2O subscript",
                [p("", &[r("", "H"), r(sub, "2"), r("", "O")]), SECT.into()].concat(),
            ),
            (
                "H2O superscript",
                [p("", &[r("", "H"), r(sup, "2"), r("", "O")]), SECT.into()].concat(),
            ),
            ("H2O plain", [p("", &[r("", "H2O")]), SECT.into()].concat()),
            (
                "subscript first run",
                [p("", &[r(sub, "2"), r("", "H")]), SECT.into()].concat(),
            ),
            (
                "subscript second paragraph",
                [t("x"), p("", &[r("", "H"), r(sub, "2")]), SECT.into()].concat(),
            ),
        ],
    );
    docs.extend(broken(d));
    compare("docs", "compare_subscript_contains", &all_pairs(&docs));
}

#[test]
fn has_page_numbers_in_footers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fref = |id: &str| format!(r#"<w:footerReference w:type="default" r:id="{id}"/>"#);
    let sect =
        |refs: &str| format!(r#"<w:sectPr>{refs}<w:pgSz w:w="12240" w:h="15840"/></w:sectPr>"#);
    let page_field = r#"<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>PAGE</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>3</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>"#;
    let simple_field =
        r#"<w:p><w:fldSimple w:instr="PAGE"><w:r><w:t>3</w:t></w:r></w:fldSimple></w:p>"#;
    let docs: Vec<(&str, Got)> = vec![
        (
            "a page field",
            word(
                d,
                "a.docx",
                &[t("x"), sect(&fref("rId5"))].concat(),
                &[("rId5", page_field)],
            ),
        ),
        (
            "a simple field (not text)",
            word(
                d,
                "b.docx",
                &[t("x"), sect(&fref("rId5"))].concat(),
                &[("rId5", simple_field)],
            ),
        ),
        (
            "no footer",
            word(d, "c.docx", &[t("x"), sect("")].concat(), &[]),
        ),
        (
            "text footer",
            word(
                d,
                "d.docx",
                &[t("x"), sect(&fref("rId5"))].concat(),
                &[("rId5", "<w:p><w:r><w:t>Page</w:t></w:r></w:p>")],
            ),
        ),
        (
            "digit in the second paragraph",
            word(
                d,
                "e.docx",
                &[t("x"), sect(&fref("rId5"))].concat(),
                &[("rId5", "<w:p/><w:p><w:r><w:t>4</w:t></w:r></w:p>")],
            ),
        ),
        (
            "two sections, the second inherits",
            word(
                d,
                "f.docx",
                &[p(&sect(&fref("rId5")), &[r("", "x")]), t("y"), sect("")].concat(),
                &[("rId5", page_field)],
            ),
        ),
        (
            "two sections, the first without",
            word(
                d,
                "g.docx",
                &[p(&sect(""), &[r("", "x")]), t("y"), sect(&fref("rId5"))].concat(),
                &[("rId5", page_field)],
            ),
        ),
        (
            "two sections, the second with text",
            word(
                d,
                "h.docx",
                &[
                    p(&sect(&fref("rId5")), &[r("", "x")]),
                    t("y"),
                    sect(&fref("rId6")),
                ]
                .concat(),
                &[
                    ("rId5", page_field),
                    ("rId6", "<w:p><w:r><w:t>End</w:t></w:r></w:p>"),
                ],
            ),
        ),
        (
            "an even-page footer only",
            word(
                d,
                "i.docx",
                &[
                    t("x"),
                    sect(r#"<w:footerReference w:type="even" r:id="rId5"/>"#),
                ]
                .concat(),
                &[("rId5", page_field)],
            ),
        ),
        ("no sections", word(d, "j.docx", &t("x"), &[])),
        (
            "an empty footer",
            word(
                d,
                "k.docx",
                &[t("x"), sect(&fref("rId5"))].concat(),
                &[("rId5", "")],
            ),
        ),
    ];
    let mut docs = docs;
    docs.extend(broken(d));
    compare("docs", "has_page_numbers_in_footers", &singles(&docs, &[]));
}

#[test]
fn is_first_line_centered() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let jc = |v: &str| format!(r#"<w:jc w:val="{v}"/>"#);
    let mut docs = bodies(
        d,
        &[
            (
                "centred",
                [p(&jc("center"), &[r("", "Title")]), t("body"), SECT.into()].concat(),
            ),
            (
                "right",
                [p(&jc("right"), &[r("", "Title")]), SECT.into()].concat(),
            ),
            (
                "unset",
                [t("Title"), p(&jc("center"), &[r("", "x")]), SECT.into()].concat(),
            ),
            (
                "empty first paragraph, centred",
                [p(&jc("center"), &[]), SECT.into()].concat(),
            ),
            (
                "both",
                [p(&jc("both"), &[r("", "Title")]), SECT.into()].concat(),
            ),
            ("no paragraphs", SECT.into()),
        ],
    );
    docs.extend(broken(d));
    compare("docs", "is_first_line_centered", &singles(&docs, &[]));
}

#[test]
fn contains_page_break() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let page = r#"<w:r><w:t>a</w:t><w:br w:type="page"/></w:r>"#;
    let mut docs = bodies(
        d,
        &[
            (
                "one page break",
                [format!("<w:p>{page}</w:p>"), t("b"), SECT.into()].concat(),
            ),
            (
                "two page breaks",
                [format!("<w:p>{page}{page}</w:p>"), SECT.into()].concat(),
            ),
            (
                "a line break",
                [r#"<w:p><w:r><w:br/></w:r></w:p>"#.to_owned(), SECT.into()].concat(),
            ),
            (
                "a column break",
                [
                    r#"<w:p><w:r><w:br w:type="column"/></w:r></w:p>"#.to_owned(),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "page break before (not counted)",
                [p("<w:pageBreakBefore/>", &[r("", "x")]), SECT.into()].concat(),
            ),
            ("none", [t("x"), SECT.into()].concat()),
        ],
    );
    docs.extend(broken(d));
    let rules = [
        json!({}),
        json!({"page_break_count": 1}),
        json!({"page_break_count": 2}),
        json!({"page_break_count": 1.0}),
        json!({"page_break_count": 0}),
        json!({"page_break_count": null}),
        json!(["page_break_count"]),
    ];
    compare("docs", "contains_page_break", &singles(&docs, &rules));
}

#[test]
fn compare_contains_image() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pic = r#"<w:r><w:drawing><wp:inline><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"/></a:graphic></wp:inline></w:drawing></w:r>"#;
    let mut docs = bodies(
        d,
        &[
            (
                "image in the first run",
                [
                    format!("<w:p>{pic}<w:r><w:t>x</w:t></w:r></w:p>"),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "image in the second run",
                [
                    format!("<w:p><w:r><w:t>x</w:t></w:r>{pic}</w:p>"),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "no image",
                [p("", &[r("", "x"), r("", "y")]), SECT.into()].concat(),
            ),
            (
                "the word graphicData",
                [p("", &[r("", "graphicData"), r("", "y")]), SECT.into()].concat(),
            ),
            ("one run", [t("x"), SECT.into()].concat()),
        ],
    );
    docs.extend(broken(d));
    compare("docs", "compare_contains_image", &all_pairs(&docs));
}

#[test]
fn evaluate_strike_through_last_paragraph() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = "<w:strike/>";
    let mut docs = bodies(
        d,
        &[
            (
                "plain",
                [
                    t("First"),
                    p("", &[r("", "Last "), r("", "words")]),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "struck",
                [
                    t("First"),
                    p("", &[r(s, "Last "), r(s, "words")]),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "half struck",
                [
                    t("First"),
                    p("", &[r(s, "Last "), r("", "words")]),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "struck, val on",
                [
                    t("First"),
                    p("", &[r(r#"<w:strike w:val="on"/>"#, "Last words")]),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "strike off",
                [
                    t("First"),
                    p("", &[r(r#"<w:strike w:val="false"/>"#, "Last words")]),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "double strike",
                [
                    t("First"),
                    p("", &[r("<w:dstrike/>", "Last words")]),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "struck, other text",
                [t("First"), p("", &[r(s, "Other words")]), SECT.into()].concat(),
            ),
            (
                "struck, an empty last paragraph",
                [
                    t("First"),
                    p("", &[r(s, "Last words")]),
                    p("", &[]),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "a bad on/off value",
                [
                    t("First"),
                    p("", &[r(r#"<w:strike w:val="maybe"/>"#, "Last words")]),
                    SECT.into(),
                ]
                .concat(),
            ),
        ],
    );
    docs.extend(broken(d));
    compare(
        "docs",
        "evaluate_strike_through_last_paragraph",
        &all_pairs(&docs),
    );
}

#[test]
fn check_italic_font_size_14() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let i14 = r#"<w:i/><w:sz w:val="28"/>"#;
    let mut docs = bodies(
        d,
        &[
            (
                "plain",
                [p("", &[r("", "Some "), r("", "text")]), SECT.into()].concat(),
            ),
            (
                "italic 14",
                [p("", &[r(i14, "Some "), r("", "text")]), SECT.into()].concat(),
            ),
            (
                "italic 12",
                [
                    p(
                        "",
                        &[r(r#"<w:i/><w:sz w:val="24"/>"#, "Some "), r("", "text")],
                    ),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "italic, no size",
                [p("", &[r("<w:i/>", "Some "), r("", "text")]), SECT.into()].concat(),
            ),
            (
                "italic off, 12",
                [
                    p(
                        "",
                        &[
                            r(r#"<w:i w:val="0"/><w:sz w:val="24"/>"#, "Some "),
                            r("", "text"),
                        ],
                    ),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "italic 14, other text",
                [p("", &[r(i14, "Other "), r("", "text")]), SECT.into()].concat(),
            ),
            (
                "italic 14.5",
                [
                    p(
                        "",
                        &[r(r#"<w:i/><w:sz w:val="29"/>"#, "Some "), r("", "text")],
                    ),
                    SECT.into(),
                ]
                .concat(),
            ),
        ],
    );
    docs.extend(broken(d));
    compare("docs", "check_italic_font_size_14", &all_pairs(&docs));
}

#[test]
fn compare_docx_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut docs = bodies(
        d,
        &[
            ("a b c", [t("a"), t("b"), t("c"), SECT.into()].concat()),
            ("c b a", [t("c"), t("b"), t("a"), SECT.into()].concat()),
            (
                "a b c with blanks",
                [t(" a "), t(""), t("b"), t("  "), t("c"), SECT.into()].concat(),
            ),
            ("a b", [t("a"), t("b"), SECT.into()].concat()),
            (
                "a a b c",
                [t("a"), t("a"), t("b"), t("c"), SECT.into()].concat(),
            ),
            ("a b C", [t("a"), t("b"), t("C"), SECT.into()].concat()),
        ],
    );
    docs.extend(broken(d));
    compare("docs", "compare_docx_lines", &all_pairs(&docs));
}

#[test]
fn compare_docx_files_and_ignore_new_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut docs = bodies(
        d,
        &[
            (
                "two lines",
                [t("Hello  world"), t("again"), SECT.into()].concat(),
            ),
            (
                "with empty paragraphs",
                [t("Hello  world"), t(""), t(""), t("again"), SECT.into()].concat(),
            ),
            ("one line", [t("Hello world again"), SECT.into()].concat()),
            (
                "a blank paragraph",
                [t("Hello  world"), t(" "), t("again"), SECT.into()].concat(),
            ),
            (
                "other text",
                [t("Hello world"), t("once"), SECT.into()].concat(),
            ),
        ],
    );
    docs.extend(broken(d));
    let odt = dir.path().join("x.odt");
    std::fs::write(&odt, "x").unwrap();
    docs.push(("an .odt", Got::File(odt)));
    let mut cases = all_pairs(&docs);
    for c in all_pairs(&docs[..5]) {
        cases.push(c.with(json!({"ignore_blanks": false})));
    }
    compare("docs", "compare_docx_files_and_ignore_new_lines", &cases);
}

/// A `.docx` of `body` with image parts (name under `word/`, bytes) related
/// from the main part, and linked images (external targets; `MISSING`
/// relates to a part the package lacks).
pub(crate) fn word_with(
    dir: &Path,
    name: &str,
    body: &str,
    images: &[(&str, Vec<u8>)],
    links: &[&str],
) -> Got {
    const IMAGE: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image";
    let path = dir.join(name);
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    let types = r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#;
    let mut rels = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#,
    );
    for (i, (part, _)) in images.iter().enumerate() {
        rels.push_str(&format!(
            r#"<Relationship Id="rId{}" Type="{IMAGE}" Target="{part}"/>"#,
            i + 10
        ));
    }
    for (i, link) in links.iter().enumerate() {
        if *link == "MISSING" {
            rels.push_str(&format!(
                r#"<Relationship Id="rId{}" Type="{IMAGE}" Target="media/missing.png"/>"#,
                i + 50
            ));
        } else {
            rels.push_str(&format!(
                r#"<Relationship Id="rId{}" Type="{IMAGE}" Target="{link}" TargetMode="External"/>"#,
                i + 50
            ));
        }
    }
    rels.push_str("</Relationships>");
    let root = r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>"#;
    let doc = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><w:document {NS}><w:body>{body}</w:body></w:document>"#
    );
    let mut parts: Vec<(String, Vec<u8>)> = vec![
        ("[Content_Types].xml".into(), types.as_bytes().to_vec()),
        ("_rels/.rels".into(), root.as_bytes().to_vec()),
        ("word/_rels/document.xml.rels".into(), rels.into_bytes()),
        ("word/document.xml".into(), doc.into_bytes()),
    ];
    for (part, bytes) in images {
        parts.push((format!("word/{part}"), bytes.clone()));
    }
    for (n, c) in parts {
        zip.start_file(n, opts).unwrap();
        zip.write_all(&c).unwrap();
    }
    zip.finish().unwrap();
    Got::File(path)
}
