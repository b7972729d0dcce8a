//! `compare_epub` (`others.py`): books written here (zip archives with a
//! `toc.ncx`, a `content.opf` and chapters at the top), scored by OSWorld's
//! function and ours: equal books, a changed paragraph, changed lines
//! OSWorld drops (`navPoint`, `dc:identifier`), a chapter missing or added
//! (files are paired by position), chapters without a declared encoding
//! (read as ISO-8859-1, where `Å` holds a line break), with an XML
//! declaration, a `<meta>` charset, indentation, lists, tables, comments,
//! links to escape, a chapter in a folder and text that is not UTF-8
//! (OSWorld raises), archives that are not zips, and a missing result.

use std::io::Write;
use std::path::{Path, PathBuf};

use ufo_eval::checkers::{CheckError, Got, check};

use crate::harness::{Case, compare};

const TOC: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">
<head><meta name="dtb:uid" content="urn:uuid:1234"/></head>
<docTitle><text>Pass Through</text></docTitle>
<navMap>
<navPoint id="ch1" playOrder="1"><navLabel><text>Chapter 1</text></navLabel><content src="chapter1.html"/></navPoint>
<navPoint id="ch2" playOrder="2"><navLabel><text>Chapter 2</text></navLabel><content src="chapter2.html"/></navPoint>
</navMap>
</ncx>
"#;

const OPF: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:title>Pass Through</dc:title>
<dc:identifier id="id">urn:uuid:1234</dc:identifier>
<dc:language>en</dc:language>
</metadata>
<manifest>
<item id="ch1" href="chapter1.html" media-type="application/xhtml+xml"/>
<item id="ch2" href="chapter2.html" media-type="application/xhtml+xml"/>
</manifest>
<spine toc="ncx"><itemref idref="ch1"/><itemref idref="ch2"/></spine>
</package>
"#;

/// A chapter as an XHTML writer makes it: XML declaration, doctype,
/// indentation (OSWorld removes the newlines, not the spaces).
fn chapter(title: &str, paragraphs: &[&str]) -> String {
    let mut s = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.1//EN\" \"http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd\">\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\n<head>\n  <meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\"/>\n  <title>{title}</title>\n  <link rel=\"stylesheet\" href=\"style.css\" type=\"text/css\"/>\n</head>\n<body>\n  <h1>{title}</h1>\n"
    );
    for p in paragraphs {
        s.push_str(&format!("  <p>{p}</p>\n"));
    }
    s.push_str("</body>\n</html>\n");
    s
}

/// A chapter without any declaration (libxml2 reads its bytes as
/// ISO-8859-1), with lists, a table, a comment and links.
fn plain_chapter(word: &str) -> String {
    format!(
        "<html><head><title>Notes</title></head><body>\r\n<div class=\"note\"><p>{word} \u{c5}ngstr\u{f6}m \u{2014} caf\u{e9}</p><p>second</p></div>\r\n<!-- a comment --><ul><li>one</li><li>two <a href=\"other file.html#x\">link</a></li><li></li></ul>\r\n<table><tr><td>1</td><td>2</td></tr></table><br/><img src=\"pic \u{e9}.png\" alt=\"a &amp; b\"/><pre>  kept  </pre>\r\n</body></html>"
    )
}

/// Writes an archive of `members` (name, bytes) to `dir/name`.
fn book(dir: &Path, name: &str, members: &[(&str, Vec<u8>)]) -> PathBuf {
    let path = dir.join(name);
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    zip.start_file("mimetype", opts).unwrap();
    zip.write_all(b"application/epub+zip").unwrap();
    for (n, bytes) in members {
        zip.start_file(*n, opts).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
    path
}

fn b(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

/// The books of the corpus, by name.
fn corpus(d: &Path) -> Vec<(&'static str, PathBuf)> {
    let ch1 = chapter(
        "Chapter 1",
        &["It was late.", "The train &amp; the bus &lt;left&gt;."],
    );
    let ch2 = chapter("Chapter 2", &["Morning came.", "Caf\u{e9} \u{2014} naïve."]);
    let full = |extra: &[(&'static str, Vec<u8>)]| {
        let mut m = vec![
            ("toc.ncx", b(TOC)),
            ("content.opf", b(OPF)),
            ("chapter1.html", b(&ch1)),
            ("chapter2.html", b(&ch2)),
        ];
        m.extend(extra.iter().cloned());
        m
    };
    let mut out =
        vec![
            ("gold", book(d, "gold.epub", &full(&[]))),
            ("same", book(d, "same.epub", &full(&[]))),
            (
                "new-ids",
                book(
                    d,
                    "new-ids.epub",
                    &[
                        (
                            "toc.ncx",
                            b(&TOC.replace("playOrder=\"2\"", "playOrder=\"9\"")),
                        ),
                        (
                            "content.opf",
                            b(&OPF.replace("urn:uuid:1234</dc", "urn:uuid:99</dc")),
                        ),
                        ("chapter1.html", b(&ch1)),
                        ("chapter2.html", b(&ch2)),
                    ],
                ),
            ),
            (
                "edited",
                book(
                    d,
                    "edited.epub",
                    &[
                        ("toc.ncx", b(TOC)),
                        ("content.opf", b(&OPF.replace("Pass Through", "Passing"))),
                        (
                            "chapter1.html",
                            b(&chapter(
                                "Chapter 1",
                                &["It was early.", "The train &amp; the bus &lt;left&gt;."],
                            )),
                        ),
                        ("chapter2.html", b(&ch2)),
                    ],
                ),
            ),
            (
                "one-chapter",
                book(
                    d,
                    "one-chapter.epub",
                    &[
                        ("toc.ncx", b(TOC)),
                        ("content.opf", b(OPF)),
                        ("chapter2.html", b(&ch2)),
                    ],
                ),
            ),
            (
                "extra-chapter",
                book(d, "extra.epub", &full(&[("chapter10.html", b(&ch2))])),
            ),
            (
                "plain",
                book(
                    d,
                    "plain.epub",
                    &full(&[("notes.html", b(&plain_chapter("Alpha")))]),
                ),
            ),
            (
                "plain-edited",
                book(
                    d,
                    "plain2.epub",
                    &full(&[("notes.html", b(&plain_chapter("Beta")))]),
                ),
            ),
            (
                "meta-charset",
                book(
                    d,
                    "meta.epub",
                    &full(&[(
                        "notes.html",
                        b(&plain_chapter("Alpha")
                            .replace("<head>", "<head><meta charset=\"utf-8\"/>")),
                    )]),
                ),
            ),
            ("no-html", book(d, "no-html.epub", &[("toc.ncx", b(TOC))])),
            ("empty", book(d, "empty.epub", &[])),
            (
                "in-a-folder",
                book(d, "folder.epub", &[("OEBPS/chapter1.html", b(&ch1))]),
            ),
            (
                "not-utf8",
                book(
                    d,
                    "latin.epub",
                    &[("chapter1.html", b"<html>\xe9</html>".to_vec())],
                ),
            ),
        ];
    let not_zip = d.join("not-a-zip.epub");
    std::fs::write(&not_zip, "just text").unwrap();
    out.push(("not-a-zip", not_zip));
    out
}

#[test]
fn compare_epub_books() {
    let dir = tempfile::tempdir().unwrap();
    let books = corpus(dir.path());
    let get = |n: &str| {
        Got::File(
            books
                .iter()
                .find(|(k, _)| *k == n)
                .map(|(_, p)| p.clone())
                .unwrap(),
        )
    };
    let mut cases = Vec::new();
    for (name, _) in &books {
        cases.push(Case::new(format!("{name} vs gold"), get(name), get("gold")));
    }
    for (r, e) in [
        ("gold", "plain"),
        ("plain", "plain-edited"),
        ("plain", "meta-charset"),
        ("meta-charset", "plain"),
        ("gold", "one-chapter"),
        ("gold", "no-html"),
        ("gold", "not-a-zip"),
        ("gold", "empty"),
        ("no-html", "no-html"),
    ] {
        cases.push(Case::new(format!("{r} vs {e}"), get(r), get(e)));
    }
    cases.push(Case::new("missing result", Got::Missing, get("gold")));
    compare("others", "compare_epub", &cases);
}

#[test]
fn a_chapter_libxml2_would_repair_is_refused_not_guessed() {
    let dir = tempfile::tempdir().unwrap();
    let repaired = book(
        dir.path(),
        "repaired.epub",
        &[(
            "c.html",
            b("<html><head><title>T</title></head><body><p>x<div>y</div></p></body></html>"),
        )],
    );
    let gold = book(
        dir.path(),
        "gold.epub",
        &[("c.html", b(&chapter("T", &["x"])))],
    );
    let got = check(
        "compare_epub",
        &Got::File(repaired),
        Some(&Got::File(gold)),
        &Default::default(),
    );
    match got {
        Err(e @ CheckError::Unsupported(_)) => {
            let shown = e.to_string();
            assert!(
                shown.contains("c.html") && shown.contains("<div>"),
                "{shown}"
            );
        }
        other => panic!("{other:?}"),
    }
}

/// A small deterministic generator (xorshift), so the corpus is the same
/// on every run without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const WORDS: &[&str] = &[
    "alpha",
    "beta",
    "gamma",
    "caf\u{e9}",
    "\u{c5}sa",
    "na\u{ef}ve",
    "dash \u{2014} here",
    "dots\u{2026}",
    "&amp;",
    "&lt;tag&gt;",
    "&quot;q&quot;",
    "&nbsp;",
    "&mdash;",
    "&#233;",
    "&#x2019;",
    "a > b",
];
const GAPS: &[&str] = &["", "", " ", "\n", "\n  ", "\n\t"];

/// Inline content: text, `span`, `b`, `i`, `em`, `a`, `br`, `img`.
fn inline(r: &mut Rng, depth: usize, in_a: bool, out: &mut String) {
    for _ in 0..=r.below(3) {
        match r.below(if depth > 2 { 2 } else { 9 }) {
            0 | 1 => {
                out.push_str(r.pick(WORDS));
                out.push(' ');
            }
            2 => out.push_str("<br/>"),
            3 => out.push_str("<img src=\"pic \u{e9}.png\" alt=\"a &amp; b\"/>"),
            4 if !in_a => {
                out.push_str("<a href=\"other page.html#p\" title='say \"hi\"'>");
                inline(r, depth + 1, true, out);
                out.push_str("</a>");
            }
            n => {
                let tag = ["span", "b", "i", "em", "strong"][n % 5];
                out.push_str(&format!("<{tag} class=\"c{n}\">"));
                inline(r, depth + 1, in_a, out);
                out.push_str(&format!("</{tag}>"));
            }
        }
    }
}

/// Block content: paragraphs, headings, lists, tables, `div`,
/// `blockquote`, `section`, `pre`, `hr`, comments, with gaps between.
fn block(r: &mut Rng, depth: usize, out: &mut String) {
    for _ in 0..=r.below(4) {
        out.push_str(r.pick(GAPS));
        match r.below(if depth > 2 { 4 } else { 11 }) {
            0 | 1 => {
                out.push_str("<p>");
                inline(r, 0, false, out);
                out.push_str("</p>");
            }
            2 => {
                let h = r.pick(&["h1", "h2", "h3"]);
                out.push_str(&format!("<{h}>"));
                inline(r, 1, false, out);
                out.push_str(&format!("</{h}>"));
            }
            3 => out.push_str(r.pick(&["<hr/>", "<!-- note -->", "<pre>  kept  </pre>"])),
            4 | 5 => {
                let list = r.pick(&["ul", "ol"]);
                out.push_str(&format!("<{list}>"));
                for _ in 0..=r.below(3) {
                    out.push_str(r.pick(GAPS));
                    match r.below(4) {
                        0 => out.push_str("<li></li>"),
                        1 => {
                            out.push_str("<li>");
                            block(r, depth + 1, out);
                            out.push_str("</li>");
                        }
                        _ => {
                            out.push_str("<li>");
                            inline(r, 1, false, out);
                            out.push_str("</li>");
                        }
                    }
                }
                out.push_str(&format!("</{list}>"));
            }
            6 => {
                out.push_str("<table>");
                for _ in 0..=r.below(2) {
                    out.push_str(r.pick(GAPS));
                    out.push_str("<tr>");
                    for _ in 0..=r.below(2) {
                        out.push_str("<td>");
                        inline(r, 1, false, out);
                        out.push_str("</td>");
                    }
                    out.push_str("</tr>");
                }
                out.push_str("</table>");
            }
            n => {
                let tag = ["div", "blockquote", "section", "div"][n % 4];
                out.push_str(&format!("<{tag} id=\"d{n}\">"));
                block(r, depth + 1, out);
                out.push_str(r.pick(GAPS));
                out.push_str(&format!("</{tag}>"));
            }
        }
    }
}

/// A generated chapter: with or without an XML declaration (UTF-8) or a
/// `<meta>` charset, or neither (ISO-8859-1).
fn generated(seed: u64) -> String {
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut s = String::new();
    let declared = r.below(3);
    if declared == 0 {
        s.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    }
    s.push_str("<html>");
    s.push_str(r.pick(GAPS));
    s.push_str("<head>");
    if declared == 1 {
        s.push_str("<meta charset=\"utf-8\"/>");
    }
    s.push_str(r.pick(GAPS));
    s.push_str("<title>Chapter &amp; verse</title>");
    s.push_str(r.pick(GAPS));
    s.push_str("</head>");
    s.push_str(r.pick(GAPS));
    s.push_str("<body>");
    block(&mut r, 0, &mut s);
    s.push_str(r.pick(GAPS));
    s.push_str("</body>");
    s.push_str(r.pick(GAPS));
    s.push_str("</html>\n");
    s
}

/// `chapter` with its `n`-th word of `WORDS` replaced (when it has one).
fn edited(chapter: &str, n: usize) -> String {
    let hits: Vec<(usize, &str)> = WORDS
        .iter()
        .flat_map(|w| {
            chapter
                .match_indices(*w)
                .map(|(i, _)| (i, *w))
                .collect::<Vec<_>>()
        })
        .collect();
    match hits.get(n % hits.len().max(1)) {
        Some((at, w)) => format!("{}omega{}", &chapter[..*at], &chapter[at + w.len()..]),
        None => chapter.to_owned(),
    }
}

/// Generated books: each chapter of the corpus against an edited copy
/// (a word changed), against itself re-indented, and against another
/// generated chapter, so that the pretty printer's line breaks decide the
/// ratios.
#[test]
fn compare_epub_generated_chapters() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut cases = Vec::new();
    for seed in 1..=60u64 {
        let ch = generated(seed);
        let other = generated(seed + 1000);
        let mk = |name: &str, text: &str| {
            Got::File(book(
                d,
                &format!("{name}-{seed}.epub"),
                &[("toc.ncx", b(TOC)), ("text.html", b(text))],
            ))
        };
        let gold = mk("gold", &ch);
        cases.push(Case::new(
            format!("generated {seed}: a word edited"),
            mk("edited", &edited(&ch, seed as usize)),
            gold.clone(),
        ));
        cases.push(Case::new(
            format!("generated {seed}: re-indented"),
            mk("indented", &ch.replace("><", ">\n <")),
            gold.clone(),
        ));
        cases.push(Case::new(
            format!("generated {seed}: another chapter"),
            mk("other", &other),
            gold,
        ));
    }
    compare("others", "compare_epub", &cases);
}
