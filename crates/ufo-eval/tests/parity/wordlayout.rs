//! Word layout checks (`docs.py`): references after a heading, tab
//! stops, the colours of table words, and LibreOffice's default font, on
//! documents written by `wordfmt`'s helpers.

use serde_json::json;
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};
use crate::wordfmt::{SECT, all_pairs, bodies, broken, p, r, singles, t, word_with};

#[test]
fn compare_references() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let refs = |items: &[&str]| -> String {
        let mut v = vec![t("Intro"), t("References")];
        v.extend(items.iter().map(|i| t(i)));
        v.push(SECT.into());
        v.concat()
    };
    let mut docs = bodies(
        d,
        &[
            (
                "two refs",
                refs(&["Smith, J. (2020). A study.", "Doe, A. (2019). Another."]),
            ),
            (
                "two refs, one changed",
                refs(&["Smith, J. (2020). A study.", "Roe, B. (2018). Other work."]),
            ),
            (
                "two refs with a blank",
                refs(&["Smith, J. (2020). A study.", "", "Doe, A. (2019). Another."]),
            ),
            ("one ref", refs(&["Smith, J. (2020). A study."])),
            ("no refs after the heading", refs(&[])),
            ("no heading", [t("Intro"), t("Smith"), SECT.into()].concat()),
            (
                "other heading",
                [
                    t("Bibliography"),
                    t("Smith, J. (2020). A study."),
                    SECT.into(),
                ]
                .concat(),
            ),
        ],
    );
    docs.extend(broken(d));
    let mut cases = all_pairs(&docs);
    for c in all_pairs(&docs[..7]) {
        cases.push(
            c.with(json!({"reference_indicator": "Bibliography", "reference_base_result": 0.2})),
        );
    }
    for c in all_pairs(&docs[..3]) {
        cases.push(c.with(json!({"reference_base_result": 0.9})));
    }
    compare("docs", "compare_references", &cases);
}

#[test]
fn evaluate_colored_words_in_tables() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let c = |hex: &str| format!(r#"<w:color w:val="{hex}"/>"#);
    let table = |cells: &[String]| -> String {
        let tcs: String = cells.iter().map(|x| format!("<w:tc>{x}</w:tc>")).collect();
        format!(
            "<w:tbl><w:tblGrid>{}</w:tblGrid><w:tr>{tcs}</w:tr></w:tbl>",
            "<w:gridCol/>".repeat(cells.len())
        )
    };
    let doc = |cells: &[String]| [t("Words"), table(cells), SECT.into()].concat();
    let mut docs = bodies(
        d,
        &[
            (
                "right colours",
                doc(&[
                    p("", &[r(&c("FF0000"), "apple")]),
                    p("", &[r(&c("0000FF"), "banana")]),
                ]),
            ),
            (
                "near colours",
                doc(&[
                    p("", &[r(&c("FE0101"), "Apple")]),
                    p("", &[r(&c("0202FD"), "Banana")]),
                ]),
            ),
            (
                "wrong colour",
                doc(&[
                    p("", &[r(&c("0000FF"), "apple")]),
                    p("", &[r(&c("0000FF"), "banana")]),
                ]),
            ),
            ("far colour", doc(&[p("", &[r(&c("C04040"), "egg")])])),
            ("no colour", doc(&[p("", &[r("", "egg")])])),
            ("auto colour", doc(&[p("", &[r(&c("auto"), "egg")])])),
            (
                "empty run",
                doc(&[p("", &[r("", ""), r(&c("0000FF"), "kiwi")])]),
            ),
            (
                "a tab first",
                doc(&[p(
                    "",
                    &[format!(
                        r#"<w:r><w:rPr>{}</w:rPr><w:tab/><w:t>x</w:t></w:r>"#,
                        c("0000FF")
                    )],
                )]),
            ),
            ("no tables", [t("Words"), SECT.into()].concat()),
        ],
    );
    docs.extend(broken(d));
    let mut cases = Vec::new();
    for (name, x) in &docs {
        cases.push(Case::new(format!("{name} vs itself"), x.clone(), x.clone()));
        cases.push(
            Case::new(
                format!("{name} vs itself, threshold 20"),
                x.clone(),
                x.clone(),
            )
            .with(json!({"threshold": 20})),
        );
        cases.push(Case::new(
            format!("{name} vs right colours"),
            x.clone(),
            docs[0].1.clone(),
        ));
    }
    compare("docs", "evaluate_colored_words_in_tables", &cases);
}

#[test]
fn check_tabstops() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tabs = |stops: &[(&str, &str)]| -> String {
        let t: String = stops
            .iter()
            .map(|(v, pos)| format!(r#"<w:tab w:val="{v}" w:pos="{pos}"/>"#))
            .collect();
        format!("<w:tabs>{t}</w:tabs>")
    };
    let line = |stops: &[(&str, &str)], text: &str| {
        let runs: Vec<String> = text
            .split('\t')
            .enumerate()
            .map(|(i, part)| {
                let tab = if i > 0 { "<w:tab/>" } else { "" };
                format!(r#"<w:r>{tab}<w:t xml:space="preserve">{part}</w:t></w:r>"#)
            })
            .collect();
        p(&tabs(stops), &runs)
    };
    let right = [("right", "9360")];
    let mut docs = bodies(
        d,
        &[
            (
                "right stops",
                [
                    line(&right, "Name one\tValue"),
                    line(&right, "Two words\tX"),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "right stops moved",
                [
                    line(&[("right", "9000")], "Name one\tValue"),
                    line(&right, "Two words\tX"),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "centre stops",
                [
                    line(&[("center", "9360")], "Name one\tValue"),
                    line(&right, "Two words\tX"),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "with clear and left 0",
                [
                    line(
                        &[("clear", "720"), ("left", "0"), ("right", "9360")],
                        "Name one\tValue",
                    ),
                    line(&right, "Two words\tX"),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "no stops",
                [
                    line(&[], "Name one\tValue"),
                    line(&[], "Two words\tX"),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "two stops",
                [
                    line(&[("left", "720"), ("right", "9360")], "Name one\tValue"),
                    line(&right, "Two words\tX"),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "three words",
                [
                    line(&right, "Name one two\tValue"),
                    line(&right, "Two words\tX"),
                    SECT.into(),
                ]
                .concat(),
            ),
            (
                "one paragraph",
                [line(&right, "Name one\tValue"), SECT.into()].concat(),
            ),
            ("blank paragraphs only", [t(" "), SECT.into()].concat()),
            (
                "no page size",
                [
                    line(&right, "Name one\tValue"),
                    line(&right, "Two words\tX"),
                    "<w:sectPr/>".into(),
                ]
                .concat(),
            ),
        ],
    );
    docs.extend(broken(d));
    let mut cases = all_pairs(&docs);
    for o in [
        json!({"word_number_split_by_tabstop": 2}),
        json!({"word_number_split_by_tabstop": 1, "index": 1}),
        json!({"word_number_split_by_tabstop": 2, "index": -2}),
        json!({"word_number_split_by_tabstop": 2, "index": 3}),
    ] {
        for c in all_pairs(&docs[..7]) {
            cases.push(c.with(o.clone()));
        }
    }
    compare("docs", "check_tabstops", &cases);
}

#[test]
fn find_default_font() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let xcu = |items: &str| {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?><oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">{items}</oor:items>"#
        )
    };
    let font = |name: &str| {
        format!(
            r#"<item oor:path="/org.openoffice.Office.Writer/DefaultFont"><prop oor:name="Standard" oor:op="fuse"><value>{name}</value></prop></item>"#
        )
    };
    let write = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        Got::File(p)
    };
    let files = [
        (
            "Times New Roman",
            write("a.xcu", &xcu(&font("Times New Roman"))),
        ),
        (
            "Arial then Liberation",
            write(
                "b.xcu",
                &xcu(&[font("Arial"), font("Liberation Serif")].concat()),
            ),
        ),
        (
            "other settings",
            write(
                "c.xcu",
                &xcu(
                    r#"<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="Standard"><value>Arial</value></prop></item>"#,
                ),
            ),
        ),
        (
            "heading font",
            write(
                "d.xcu",
                &xcu(
                    r#"<item oor:path="/org.openoffice.Office.Writer/DefaultFont"><prop oor:name="Heading"><value>Arial</value></prop></item>"#,
                ),
            ),
        ),
        ("empty value", write("e.xcu", &xcu(&font("")))),
        ("not XML", write("f.xcu", "<oor:items")),
        ("missing", Got::File(d.join("absent.xcu"))),
    ];
    let rules = [
        json!({"font_name": "Times New Roman"}),
        json!({"font_name": "Liberation Serif"}),
        json!({"font_name": null}),
        json!({}),
    ];
    compare("docs", "find_default_font", &singles(&files, &rules));
}

#[test]
fn fuzzy_place_math() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut docs = bodies(
        d,
        &[
            (
                "three places",
                [t("Paris"), t("Berlin Rome"), SECT.into()].concat(),
            ),
            (
                "three, misspelt",
                [t("Pariss Berln Roma"), SECT.into()].concat(),
            ),
            ("two", [t("Paris Berlin"), SECT.into()].concat()),
            (
                "four",
                [t("Paris Berlin Rome Madrid"), SECT.into()].concat(),
            ),
            (
                "three with blanks",
                [t("  Paris  "), t(""), t("Berlin\tRome"), SECT.into()].concat(),
            ),
        ],
    );
    docs.extend(broken(d));
    let rules = [
        json!({"expected": ["Paris", "Berlin", "Rome"]}),
        json!({"expected": ["Madrid"]}),
        json!({"expected": []}),
        json!({"expected": "Paris"}),
        json!({}),
    ];
    compare("general", "fuzzy_place_math", &singles(&docs, &rules));
}

#[test]
fn compare_docx_images() {
    use image::{ImageBuffer, Rgb, RgbImage};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let png = |img: &RgbImage| {
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    };
    let grad = |k: u32| -> RgbImage {
        ImageBuffer::from_fn(12, 8, |x, y| Rgb([(x * 20) as u8, (y * 30) as u8, k as u8]))
    };
    let a = png(&grad(0));
    let b = png(&grad(1));
    // The same pixels written with another compression: other bytes,
    // equal pixels.
    let a2 = {
        let mut out = Vec::new();
        let enc = image::codecs::png::PngEncoder::new_with_quality(
            &mut out,
            image::codecs::png::CompressionType::Best,
            image::codecs::png::FilterType::Paeth,
        );
        image::ImageEncoder::write_image(
            enc,
            grad(0).as_raw(),
            12,
            8,
            image::ExtendedColorType::Rgb8,
        )
        .unwrap();
        out
    };
    let body = [t("Figure"), SECT.into()].concat();
    let docs = vec![
        (
            "image a",
            word_with(d, "a.docx", &body, &[("media/a.png", a.clone())], &[]),
        ),
        (
            "image a recompressed",
            word_with(d, "a2.docx", &body, &[("media/a.png", a2)], &[]),
        ),
        (
            "image b",
            word_with(d, "b.docx", &body, &[("media/b.png", b.clone())], &[]),
        ),
        (
            "images a, b",
            word_with(
                d,
                "ab.docx",
                &body,
                &[("media/a.png", a.clone()), ("media/b.png", b.clone())],
                &[],
            ),
        ),
        (
            "images b, a",
            word_with(
                d,
                "ba.docx",
                &body,
                &[("media/b.png", b), ("media/a.png", a.clone())],
                &[],
            ),
        ),
        ("no images", word_with(d, "n.docx", &body, &[], &[])),
        (
            "not an image",
            word_with(
                d,
                "x.docx",
                &body,
                &[("media/x.png", b"not a png".to_vec())],
                &[],
            ),
        ),
        (
            "a linked image",
            word_with(d, "l.docx", &body, &[], &["https://example.org/a.png"]),
        ),
        (
            "a missing image part",
            word_with(d, "m.docx", &body, &[("media/a.png", a)], &["MISSING"]),
        ),
    ];
    let mut docs = docs;
    docs.extend(broken(d));
    compare("docs", "compare_docx_images", &all_pairs(&docs));
}
