//! Word documents (`docs.py`): documents written here as minimal OOXML
//! packages, varied paragraph by paragraph and cell by cell.

use std::io::Write;
use std::path::Path;

use serde_json::json;
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};

const MAIN: &str =
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml";

/// A `.docx` whose body is `body` (WordprocessingML, `w:` prefix).
fn docx(dir: &Path, name: &str, body: &str, content_type: &str) -> Got {
    let path = dir.join(name);
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    let types = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="{content_type}"/></Types>"#
    );
    let rels = r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>"#;
    let doc = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>{body}<w:sectPr/></w:body></w:document>"#
    );
    for (n, c) in [
        ("[Content_Types].xml", types.as_str()),
        ("_rels/.rels", rels),
        ("word/document.xml", doc.as_str()),
    ] {
        zip.start_file(n, opts).unwrap();
        zip.write_all(c.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
    Got::File(path)
}

/// A paragraph of one run holding `text`.
fn p(text: &str) -> String {
    format!(r#"<w:p><w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>"#)
}

fn base() -> Vec<String> {
    vec![
        p("Hello World"),
        p("Second  paragraph"),
        p(""),
        r#"<w:p><w:r><w:t>Third</w:t><w:tab/><w:t>line</w:t></w:r></w:p>"#.into(),
    ]
}

/// The base document and its variants, each as body XML.
fn variants() -> Vec<(&'static str, String)> {
    let b = base();
    let with = |i: usize, x: String| {
        let mut v = base();
        v[i] = x;
        v.concat()
    };
    let mut reordered = base();
    reordered.swap(0, 1);
    let mut shorter = base();
    shorter.remove(2);
    let mut longer = base();
    longer.push(p(""));
    vec![
        ("same", b.concat()),
        ("case", with(0, p("hello world"))),
        ("spaces", with(1, p("Second paragraph "))),
        ("word", with(1, p("Second chapter"))),
        ("reordered", reordered.concat()),
        ("without the empty paragraph", shorter.concat()),
        ("an extra empty paragraph", longer.concat()),
        (
            "two paragraphs as one with a break",
            [
                r#"<w:p><w:r><w:t>Hello World</w:t><w:br/><w:t>Second  paragraph</w:t></w:r></w:p>"#
                    .to_owned(),
                p(""),
                b[3].clone(),
            ]
            .concat(),
        ),
        ("tab as space", with(3, p("Third line"))),
        (
            "split runs and a hyperlink",
            with(
                0,
                r#"<w:p><w:r><w:t>Hel</w:t></w:r><w:hyperlink r:id="rId9"><w:r><w:t>lo W</w:t></w:r></w:hyperlink><w:r><w:t>orld</w:t></w:r></w:p>"#
                    .into(),
            ),
        ),
        (
            "an insertion (not read)",
            with(
                0,
                r#"<w:p><w:r><w:t>Hello World</w:t></w:r><w:ins w:id="1"><w:r><w:t> more</w:t></w:r></w:ins></w:p>"#
                    .into(),
            ),
        ),
        (
            "page break, carriage return, hyphen",
            with(
                2,
                r#"<w:p><w:r><w:br w:type="page"/><w:cr/><w:noBreakHyphen/><w:ptab/></w:r></w:p>"#
                    .into(),
            ),
        ),
        ("accents", with(0, p("HÉLLO WÖRLD ß"))),
        (
            "a table between",
            [
                b[0].clone(),
                r#"<w:tbl><w:tblGrid><w:gridCol/></w:tblGrid><w:tr><w:tc><w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"#.into(),
                b[1..].concat(),
            ]
            .concat(),
        ),
        ("empty", String::new()),
    ]
}

#[test]
fn compare_docx_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let gold = docx(d, "gold.docx", &base().concat(), MAIN);
    let options = [
        json!({}),
        json!({"ignore_blanks": false}),
        json!({"ignore_blanks": true}),
        json!({"content_only": true}),
        json!({"ignore_blanks": true, "ignore_case": true}),
        json!({"ignore_blanks": true, "ignore_case": true, "ignore_order": true}),
        json!({"fuzzy_match": true}),
        json!({"ignore_blanks": false, "fuzzy_match": true}),
        json!({"ignore_blanks": false, "delete_empty_lines": true}),
        json!({"ignore_blanks": false, "ignore_order": true}),
        json!({"ignore_blanks": false, "ignore_case": true}),
        json!({"ignore_blanks": 0, "fuzzy_match": "yes", "ignore_case": 1}),
    ];
    let mut cases = Vec::new();
    for (i, (name, body)) in variants().iter().enumerate() {
        let f = docx(d, &format!("v{i}.docx"), body, MAIN);
        for o in &options {
            cases.push(Case::new(format!("{name} {o}"), f.clone(), gold.clone()).with(o.clone()));
        }
    }
    let empty = docx(d, "empty.docx", "", MAIN);
    cases.push(
        Case::new("both empty, fuzzy", empty.clone(), empty.clone())
            .with(json!({"ignore_blanks": false, "fuzzy_match": true})),
    );
    let broken = d.join("broken.docx");
    std::fs::write(&broken, "not a zip").unwrap();
    let template = docx(
        d,
        "template.docx",
        &base().concat(),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
    );
    let other_ext = docx(d, "same.doc", &base().concat(), MAIN);
    for (name, result) in [
        ("not a zip", Got::File(broken)),
        ("a template's content type", template),
        ("not .docx", other_ext),
        ("absent", Got::File(d.join("absent.docx"))),
        ("missing", Got::Missing),
    ] {
        cases.push(Case::new(name, result, gold.clone()));
    }
    compare("docs", "compare_docx_files", &cases);
}

/// A cell holding paragraphs, with optional `w:tcPr` content.
fn tc(pr: &str, paras: &[&str]) -> String {
    let ps: String = paras.iter().map(|t| p(t)).collect();
    let pr = if pr.is_empty() {
        String::new()
    } else {
        format!("<w:tcPr>{pr}</w:tcPr>")
    };
    format!("<w:tc>{pr}{ps}</w:tc>")
}

/// A table with `cols` grid columns and rows of cells.
fn tbl(cols: usize, rows: &[Vec<String>]) -> String {
    let grid = "<w:gridCol/>".repeat(cols);
    let rows: String = rows
        .iter()
        .map(|r| format!("<w:tr>{}</w:tr>", r.concat()))
        .collect();
    format!("<w:tbl><w:tblGrid>{grid}</w:tblGrid>{rows}</w:tbl>")
}

fn table_variants() -> Vec<(&'static str, String)> {
    let c = |t: &str| tc("", &[t]);
    let first = |a: &str| {
        tbl(
            2,
            &[
                vec![c("Name"), c("Score")],
                vec![c(a), c("90")],
                vec![c("Bob"), c("85")],
            ],
        )
    };
    let second = tbl(1, &[vec![tc("", &["line one", "line two"])]]);
    let both = |t1: String| format!("{}{t1}{}{second}", p("intro"), p("between"));
    vec![
        ("same", both(first("Alice"))),
        ("cell differs", both(first("Alicia"))),
        ("cell padded", both(first("  Alice\t"))),
        (
            "an extra row",
            both(tbl(
                2,
                &[
                    vec![c("Name"), c("Score")],
                    vec![c("Alice"), c("90")],
                    vec![c("Bob"), c("85")],
                    vec![c(""), c("")],
                ],
            )),
        ),
        (
            "an extra grid column",
            both(tbl(
                3,
                &[
                    vec![c("Name"), c("Score"), c("")],
                    vec![c("Alice"), c("90"), c("")],
                    vec![c("Bob"), c("85"), c("")],
                ],
            )),
        ),
        (
            "a spanned header",
            both(tbl(
                2,
                &[
                    vec![tc(r#"<w:gridSpan w:val="2"/>"#, &["Name"])],
                    vec![c("Alice"), c("90")],
                    vec![c("Bob"), c("85")],
                ],
            )),
        ),
        (
            "a vertical merge",
            both(tbl(
                2,
                &[
                    vec![c("Name"), c("Score")],
                    vec![tc(r#"<w:vMerge w:val="restart"/>"#, &["Alice"]), c("90")],
                    vec![tc("<w:vMerge/>", &[]), c("85")],
                ],
            )),
        ),
        (
            "a short row",
            both(tbl(
                2,
                &[
                    vec![c("Name"), c("Score")],
                    vec![c("Alice"), c("90")],
                    vec![c("Bob")],
                ],
            )),
        ),
        (
            "a nested table (not read)",
            both(tbl(
                2,
                &[
                    vec![c("Name"), c("Score")],
                    vec![
                        format!("<w:tc>{}{}</w:tc>", p("Alice"), tbl(1, &[vec![c("inner")]])),
                        c("90"),
                    ],
                    vec![c("Bob"), c("85")],
                ],
            )),
        ),
        (
            "no grid",
            both("<w:tbl><w:tr><w:tc><w:p/></w:tc></w:tr></w:tbl>".into()),
        ),
        ("one table", format!("{}{}", p("intro"), first("Alice"))),
        ("no tables", p("intro")),
    ]
}

#[test]
fn compare_docx_tables() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let vs = table_variants();
    let files: Vec<Got> = vs
        .iter()
        .enumerate()
        .map(|(i, (_, body))| docx(d, &format!("t{i}.docx"), body, MAIN))
        .collect();
    let mut cases = Vec::new();
    for (i, (a, fa)) in vs.iter().zip(&files).enumerate() {
        for (j, (b, fb)) in vs.iter().zip(&files).enumerate() {
            if i == j || i == 0 || j == 0 || (i + j) % 4 == 0 {
                cases.push(Case::new(
                    format!("{} vs {}", a.0, b.0),
                    fa.clone(),
                    fb.clone(),
                ));
            }
        }
    }
    let broken = d.join("broken.docx");
    std::fs::write(&broken, "not a zip").unwrap();
    cases.push(Case::new("not a zip", Got::File(broken), files[0].clone()));
    cases.push(Case::new("missing", Got::Missing, files[0].clone()));
    compare("docs", "compare_docx_tables", &cases);
}

#[test]
fn compare_line_spacing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let para = |spacing: &str, text: &str| {
        let pr = if spacing.is_empty() {
            String::new()
        } else {
            format!("<w:pPr><w:spacing {spacing}/></w:pPr>")
        };
        format!(r#"<w:p>{pr}<w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>"#)
    };
    let doc = |spacings: &[&str]| -> String {
        spacings
            .iter()
            .enumerate()
            .map(|(i, s)| para(s, &format!("Paragraph {i}")))
            .collect()
    };
    let gold_spacing = [
        r#"w:line="360" w:lineRule="auto""#,
        r#"w:line="360" w:lineRule="auto""#,
        "",
    ];
    let gold = docx(d, "gold.docx", &doc(&gold_spacing), MAIN);
    let variants: Vec<(&str, String)> = vec![
        ("same", doc(&gold_spacing)),
        (
            "single",
            doc(&[
                r#"w:line="240" w:lineRule="auto""#,
                r#"w:line="360" w:lineRule="auto""#,
                "",
            ]),
        ),
        (
            "exact 18pt",
            doc(&[
                r#"w:line="360" w:lineRule="exact""#,
                r#"w:line="360" w:lineRule="auto""#,
                "",
            ]),
        ),
        (
            "no rule",
            doc(&[r#"w:line="360""#, r#"w:line="360" w:lineRule="auto""#, ""]),
        ),
        ("unset", doc(&["", "", ""])),
        (
            "spacing without line",
            doc(&[r#"w:after="200""#, r#"w:line="360" w:lineRule="auto""#, ""]),
        ),
        (
            "an extra paragraph",
            doc(&[
                r#"w:line="360" w:lineRule="auto""#,
                r#"w:line="360" w:lineRule="auto""#,
                "",
                "",
            ]),
        ),
        (
            "other text",
            doc(&gold_spacing).replace("Paragraph 1", "Paragraph one"),
        ),
        (
            "odd rule",
            doc(&[
                r#"w:line="360" w:lineRule="sometimes""#,
                r#"w:line="360" w:lineRule="auto""#,
                "",
            ]),
        ),
    ];
    let mut cases = Vec::new();
    for (i, (name, body)) in variants.iter().enumerate() {
        let f = docx(d, &format!("ls{i}.docx"), body, MAIN);
        cases.push(Case::new(*name, f.clone(), gold.clone()));
        cases.push(Case::new(format!("gold vs {name}"), gold.clone(), f));
    }
    compare("docs", "compare_line_spacing", &cases);
}
