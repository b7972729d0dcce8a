//! OpenDocument text (`docs.py`): `check_highlighted_words` and
//! `compare_docx_files` on two `.odt` files, read by odfpy. The documents
//! are written by odfpy: paragraphs with spans in automatic styles (yellow
//! or another background), spaces as `text:s`, a footer in `styles.xml`.

use std::path::Path;

use serde_json::json;
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare, python};

/// The documents: `(name, file)`.
fn documents(d: &Path) -> Vec<(&'static str, Got)> {
    let script = r##"
import os, sys
from odf.opendocument import OpenDocumentText
from odf.style import Style, TextProperties, ParagraphProperties, MasterPage, PageLayout, Footer
from odf.text import P, Span, S
out = sys.argv[1]
def doc(name, paras, footer=None, extra_style=None):
    d = OpenDocumentText()
    yellow = Style(name="T1", family="text")
    yellow.addElement(TextProperties(backgroundcolor="#ffff00"))
    d.automaticstyles.addElement(yellow)
    green = Style(name="T2", family="text")
    green.addElement(TextProperties(backgroundcolor="#00ff00"))
    d.automaticstyles.addElement(green)
    bold = Style(name="T3", family="text")
    bold.addElement(TextProperties(fontweight="bold"))
    d.automaticstyles.addElement(bold)
    para = Style(name="P1", family="paragraph")
    para.addElement(ParagraphProperties(backgroundcolor="#ffff00"))
    d.automaticstyles.addElement(para)
    if extra_style is not None:
        d.automaticstyles.addElement(extra_style)
    if footer is not None:
        pl = PageLayout(name="pm1")
        d.automaticstyles.addElement(pl)
        mp = MasterPage(name="Standard", pagelayoutname=pl)
        f = Footer()
        f.addElement(P(text=footer))
        mp.addElement(f)
        d.masterstyles.addElement(mp)
    for parts in paras:
        p = P()
        for part in parts:
            if isinstance(part, str):
                p.addText(part)
            elif part[0] == "s":
                p.addElement(S(c=part[1]))
            else:
                p.addElement(Span(stylename=part[0], text=part[1]))
        d.text.addElement(p)
    d.save(os.path.join(out, name + ".odt"))
base = [["The quick ", ("T3", "brown"), " fox"], ["jumps over", ("s", 2), "the dog"]]
doc("plain", base)
doc("highlighted", [["The quick ", ("T1", "brown"), " fox"], ["jumps over", ("s", 2), "the dog"]])
doc("green", [["The quick ", ("T2", "brown"), " fox"], ["jumps over", ("s", 2), "the dog"]])
doc("yellow paragraph style on a span", [["The quick ", ("P1", "brown"), " fox"], ["jumps over", ("s", 2), "the dog"]])
doc("other text", [["The slow ", ("T3", "brown"), " fox"], ["jumps over", ("s", 2), "the dog"]])
doc("spaced", [["The  quick ", ("T3", "brown"), " fox"], ["jumps over", "the dog"]])
doc("split", [["The quick ", ("T3", "brown"), " fox", "jumps over"], ["the dog"]])
doc("with footer", base, footer="Page footer")
doc("highlighted with footer", [["The quick ", ("T1", "brown"), " fox"], ["jumps over", ("s", 2), "the dog"]], footer="Page footer")
doc("empty", [])
"##;
    ufo_testkit::deps::run(
        std::process::Command::new(python())
            .arg("-c")
            .arg(script)
            .arg(d),
        "writing OpenDocument texts with odfpy",
    );
    let names = [
        "plain",
        "highlighted",
        "green",
        "yellow paragraph style on a span",
        "other text",
        "spaced",
        "split",
        "with footer",
        "highlighted with footer",
        "empty",
    ];
    let mut out: Vec<(&str, Got)> = names
        .iter()
        .map(|n| (*n, Got::File(d.join(format!("{n}.odt")))))
        .collect();
    let broken = d.join("broken.odt");
    std::fs::write(&broken, "not a zip").unwrap();
    out.push(("not a zip", Got::File(broken)));
    let txt = d.join("plain.txt");
    std::fs::write(&txt, "The quick brown fox").unwrap();
    out.push(("not odt", Got::File(txt)));
    out
}

#[test]
fn check_highlighted_words() {
    let dir = tempfile::tempdir().unwrap();
    let docs = documents(dir.path());
    let mut cases = Vec::new();
    for (name, doc) in &docs {
        for (ename, expected) in &docs {
            if matches!(*ename, "plain" | "with footer" | "not a zip") || *name == "plain" {
                cases.push(Case::new(
                    format!("{name} against {ename}"),
                    doc.clone(),
                    expected.clone(),
                ));
            }
        }
    }
    compare("docs", "check_highlighted_words", &cases);
}

#[test]
fn compare_docx_files_odt() {
    let dir = tempfile::tempdir().unwrap();
    let docs = documents(dir.path());
    let options = [
        json!({}),
        json!({"ignore_blanks": false}),
        json!({"ignore_blanks": false, "fuzzy_match": true}),
        json!({"content_only": true}),
        json!({"ignore_order": true, "ignore_blanks": false}),
        json!({"delete_empty_lines": true, "ignore_blanks": false}),
    ];
    let (_, plain) = &docs[0];
    let mut cases = Vec::new();
    for (name, doc) in &docs {
        for o in &options {
            cases
                .push(Case::new(format!("{name} {o}"), doc.clone(), plain.clone()).with(o.clone()));
        }
    }
    compare("docs", "compare_docx_files", &cases);
}
