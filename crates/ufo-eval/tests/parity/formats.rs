//! Checkers of single file formats: `check_pdf_pages` (`pdf.py`, pypdf's
//! page count), `check_mp3_meta` (`others.py`, mutagen's EasyID3),
//! `run_sqlite3` (`general.py`) and `compare_htmls` (`chrome.py`,
//! BeautifulSoup on lxml).

use std::path::Path;

use serde_json::{Value, json};
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare, python};

fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> Got {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    Got::File(p)
}

/// A PDF of `objects` (numbered from 1; object 1 must be the catalog),
/// with a correct cross-reference table.
pub(crate) fn pdf(objects: &[&str]) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

const CATALOG: &str = "<< /Type /Catalog /Pages 2 0 R >>";
const PAGE: &str = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>";

#[test]
fn check_pdf_pages() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files = [
        (
            "one page",
            write(
                d,
                "one.pdf",
                pdf(&[CATALOG, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", PAGE]),
            ),
        ),
        (
            "three pages",
            write(
                d,
                "three.pdf",
                pdf(&[
                    CATALOG,
                    "<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>",
                    PAGE,
                    PAGE,
                    PAGE,
                ]),
            ),
        ),
        (
            "nested tree, untyped nodes, a wrong /Count",
            write(
                d,
                "nested.pdf",
                pdf(&[
                    CATALOG,
                    "<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 7 >>",
                    "<< /Kids [4 0 R 5 0 R] /Parent 2 0 R >>",
                    PAGE,
                    "<< /Parent 3 0 R /MediaBox [0 0 10 10] >>",
                    PAGE,
                ]),
            ),
        ),
        (
            "a kid of another type",
            write(
                d,
                "template.pdf",
                pdf(&[
                    CATALOG,
                    "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
                    PAGE,
                    "<< /Type /Template /Parent 2 0 R >>",
                ]),
            ),
        ),
        (
            "no pages",
            write(
                d,
                "empty.pdf",
                pdf(&[CATALOG, "<< /Type /Pages /Kids [] /Count 0 >>"]),
            ),
        ),
        ("not a PDF", write(d, "text.pdf", "hello")),
        ("missing", Got::File(d.join("absent.pdf"))),
    ];
    let mut rules = Vec::new();
    for relation in ["eq", "ne", "lt", "le", "gt", "ge"] {
        for r in [json!(1), json!(2), json!(3.0)] {
            rules.push(json!({"relation": relation, "ref_value": r}));
        }
    }
    rules.extend([
        json!({"relation": "eq", "ref_value": "1"}),
        json!({"relation": "ne", "ref_value": "1"}),
        json!({"relation": "lt", "ref_value": "1"}),
        json!({"relation": "eq", "ref_value": true}),
        json!({"relation": "eq", "ref_value": null}),
        json!({"relation": "between", "ref_value": 1}),
        json!({"relation": "eq"}),
        json!({"ref_value": 1}),
    ]);
    let mut cases = Vec::new();
    for (name, file) in &files {
        for r in &rules {
            cases.push(Case::new(
                format!("{name} {r}"),
                file.clone(),
                Got::Json(r.clone()),
            ));
        }
    }
    compare("pdf", "check_pdf_pages", &cases);
}

/// MP3 files tagged by mutagen: `(name, file)`.
fn mp3s(d: &Path) -> Vec<(&'static str, Got)> {
    let script = r#"
import os, sys
from mutagen.easyid3 import EasyID3
from mutagen.id3 import ID3, TIT2, TPE1, TYER, TDAT, TIME
out = sys.argv[1]
frame = b"\xff\xfb\x90\x64" + b"\x00" * 413
def mp3(name, tags, v2=4):
    p = os.path.join(out, name)
    with open(p, "wb") as f:
        f.write(frame * 4)
    if tags is None:
        return
    t = EasyID3()
    for k, v in tags.items():
        t[k] = v
    t.save(p, v2_version=v2)
mp3("full.mp3", {"title": "Bohemian Rhapsody", "artist": "Queen", "album": "A Night at the Opera",
                 "date": "1975-10-31", "tracknumber": "11/12", "albumartistsort": "Queen",
                 "barcode": "0123", "composer": "Freddie Mercury"})
mp3("two artists.mp3", {"title": "Under Pressure", "artist": ["Queen", "David Bowie"]})
mp3("v23.mp3", {"title": "Old tag", "artist": "Ünïcödé", "date": "2001-02-03"}, v2=3)
mp3("year only.mp3", {"title": "Year", "date": "1999"})
mp3("empty title.mp3", {"title": "", "artist": "Someone"})
mp3("untagged.mp3", None)
# ID3v2.3 date frames written by hand, as other taggers write them
p = os.path.join(out, "tyer.mp3")
with open(p, "wb") as f:
    f.write(frame * 4)
t = ID3()
t.add(TIT2(encoding=0, text="Dated"))
t.add(TYER(encoding=0, text="2010"))
t.add(TDAT(encoding=0, text="0503"))
t.add(TIME(encoding=0, text="1745"))
t.save(p, v2_version=3)
# ID3v1 only
p = os.path.join(out, "v1.mp3")
def field(s, n):
    return s.encode("latin-1")[:n].ljust(n, b"\x00")
with open(p, "wb") as f:
    f.write(frame * 4)
    f.write(b"TAG" + field("V1 Title", 30) + field("V1 Artist", 30) + field("V1 Album", 30)
            + b"1988" + field("comment", 28) + b"\x00\x05" + bytes([17]))
"#;
    ufo_testkit::deps::run(
        std::process::Command::new(python())
            .arg("-c")
            .arg(script)
            .arg(d),
        "writing MP3 files with mutagen",
    );
    let names = [
        "full",
        "two artists",
        "v23",
        "year only",
        "empty title",
        "untagged",
        "tyer",
        "v1",
    ];
    let mut out: Vec<(&str, Got)> = names
        .iter()
        .map(|n| (*n, Got::File(d.join(format!("{n}.mp3")))))
        .collect();
    out.push(("missing", Got::File(d.join("absent.mp3"))));
    out
}

#[test]
fn check_mp3_meta() {
    let dir = tempfile::tempdir().unwrap();
    let files = mp3s(dir.path());
    let eq = |r: &str| json!({"method": "eq", "ref": r});
    let metas: Vec<Value> = vec![
        json!({"title": eq("Bohemian Rhapsody"), "artist": eq("Queen")}),
        json!({"title": eq("Bohemian Rhapsody"), "artist": eq("Queen"), "album": eq("A Night at the Opera")}),
        json!({"Title": eq("Bohemian Rhapsody")}),
        json!({"artist": eq("Queen,David Bowie")}),
        json!({"artist": {"method": "re", "ref": "bowie"}}),
        json!({"artist": {"method": "re.I", "ref": "bowie"}}),
        json!({"title": {"method": "ne", "ref": ""}}),
        json!({"title": eq("")}),
        json!({"composer": eq("Freddie Mercury")}),
        json!({"albumartistsort": eq("Queen"), "barcode": eq("0123")}),
        json!({"tracknumber": eq("11/12")}),
        json!({"date": eq("1975-10-31")}),
        json!({"date": eq("2001-02-03")}),
        json!({"date": eq("1999")}),
        json!({"date": eq("2010-03-05 17:45:00")}),
        json!({"date": {"method": "re", "ref": "^2010"}}),
        json!({"date": eq("1988")}),
        json!({"title": eq("V1 Title"), "artist": eq("V1 Artist"), "album": eq("V1 Album")}),
        json!({"tracknumber": eq("5")}),
        json!({"artist": eq("Ünïcödé"), "title": eq("Old tag")}),
        json!({"nonsense": eq("")}),
        json!({"nonsense": eq("x")}),
        json!({"title": eq("nope"), "artist": {"method": "nonsense"}}),
        json!({}),
        json!({"title": {"method": "approx:0.5", "ref": 3}}),
    ];
    let mut cases = Vec::new();
    for (name, file) in &files {
        for m in &metas {
            cases.push(Case::new(
                format!("{name} {m}"),
                file.clone(),
                Got::Json(m.clone()),
            ));
        }
    }
    compare("others", "check_mp3_meta", &cases);
}

#[test]
fn run_sqlite3() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = d.join("data.db");
    let script = r#"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript('''
CREATE TABLE t (name TEXT, n INTEGER, x REAL, s TEXT, b BLOB);
INSERT INTO t VALUES ('a', 3, 0.25, ' 7 ', x'312e35');
INSERT INTO t VALUES ('b', 0, 0.0, 'abc', x'');
INSERT INTO t VALUES ('c', NULL, -2.5, '', x'ff');
INSERT INTO t VALUES ('d', 9007199254740993, 1e300, '1_000', NULL);
''')
c.commit()
"#;
    ufo_testkit::deps::run(
        std::process::Command::new(python())
            .arg("-c")
            .arg(script)
            .arg(&db),
        "writing an SQLite database",
    );
    let file = Got::File(db);
    let queries = [
        "SELECT COUNT(*) FROM t",
        "SELECT COUNT(*) FROM t WHERE name = 'zzz'",
        "SELECT n FROM t WHERE name = 'a'",
        "SELECT n FROM t WHERE name = 'b'",
        "SELECT n FROM t WHERE name = 'c'",
        "SELECT n FROM t WHERE name = 'd'",
        "SELECT x FROM t WHERE name = 'a'",
        "SELECT x FROM t WHERE name = 'c'",
        "SELECT x FROM t WHERE name = 'd'",
        "SELECT s FROM t WHERE name = 'a'",
        "SELECT s FROM t WHERE name = 'b'",
        "SELECT s FROM t WHERE name = 'c'",
        "SELECT s FROM t WHERE name = 'd'",
        "SELECT b FROM t WHERE name = 'a'",
        "SELECT b FROM t WHERE name = 'b'",
        "SELECT b FROM t WHERE name = 'c'",
        "SELECT '2.5e1'",
        "SELECT '-.5'",
        "SELECT name = 'a' FROM t ORDER BY name",
        "SELECT n FROM t WHERE name = 'none'",
        "SELECT 1; SELECT 2",
        "SELECT 1;",
        "SELECT * FROM missing_table",
        "SELEC 1",
        "",
    ];
    let mut cases: Vec<Case> = queries
        .iter()
        .map(|q| Case::new(format!("{q:?}"), file.clone(), Got::Json(json!({"sql": q}))))
        .collect();
    // Python's connect creates the missing file, which then exists for ours.
    cases.push(Case::new(
        "missing file, SELECT 1",
        Got::File(d.join("absent.db")),
        Got::Json(json!({"sql": "SELECT 1"})),
    ));
    cases.push(Case::new(
        "not a database",
        write(
            d,
            "text.db",
            "this is not a database at all, it is longer than a header",
        ),
        Got::Json(json!({"sql": "SELECT 1"})),
    ));
    cases.push(Case::new("no sql", file.clone(), Got::Json(json!({}))));
    compare("general", "run_sqlite3", &cases);
}

/// The base page, as LibreOffice exports a sheet.
const PAGE_HTML: &str = r#"<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.0 Transitional//EN">
<html>
<head>
	<meta http-equiv="content-type" content="text/html; charset=utf-8"/>
	<title></title>
	<style type="text/css">
		body,div,table { font-family:"Liberation Sans"; font-size:x-small }
	</style>
</head>

<body>
<!-- ************************************************************************** -->
<table cellspacing="0" border="0">
	<colgroup width="85"></colgroup>
	<tr>
		<td height="17" align="left">Name</td>
		<td align="right" sdval="3" sdnum="1033;">3</td>
	</tr>
	<tr>
		<td height="17" align="left" class="a  b">Total &amp; more</td>
		<td align="right" sdval="0.5" sdnum="1033;0;0.00%">50.00%</td>
	</tr>
</table>
<p>Some <b>bold</b> and <i>italic</i> text.</p>
<script>var x = 1;</script>
</body>

</html>
"#;

/// The pages compared with the base page: one change each, and pages
/// that are not the base's at all.
fn html_files(d: &Path) -> Vec<(String, Got)> {
    let variant = |name: &str, from: &str, to: &str| {
        assert!(PAGE_HTML.contains(from), "{name}");
        (
            name.to_owned(),
            write(d, &format!("{name}.html"), PAGE_HTML.replacen(from, to, 1)),
        )
    };
    let mut files = vec![
        ("same".to_owned(), write(d, "same.html", PAGE_HTML)),
        variant("text", ">Name<", ">Nome<"),
        variant("text spacing", ">Name<", ">  Name <"),
        variant("attribute", "align=\"left\">Name", "align=\"center\">Name"),
        variant("sdnum", "sdnum=\"1033;\"", "sdnum=\"1031;\""),
        variant("sdnum removed", " sdnum=\"1033;\"", ""),
        variant("class words", "class=\"a  b\"", "class=\"a b\""),
        variant("class order", "class=\"a  b\"", "class=\"b a\""),
        variant(
            "attribute order",
            "height=\"17\" align=\"left\">Name",
            "align=\"left\" height=\"17\">Name",
        ),
        variant("entity", "&amp;", "&#38;"),
        variant("comment", "<!-- *", "<!-- x"),
        variant("script", "var x = 1;", "var x = 2;"),
        variant("style", "x-small", "small"),
        variant(
            "doctype",
            "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.0 Transitional//EN\">",
            "<!DOCTYPE html>",
        ),
        variant(
            "no doctype",
            "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.0 Transitional//EN\">\n",
            "",
        ),
        variant("title", "<title></title>", "<title>Sheet</title>"),
        variant("blank line", "</table>\n<p>", "</table>\n\n<p>"),
        variant("no newline between blocks", "</table>\n<p>", "</table><p>"),
        variant("tag case", "<b>bold</b>", "<B>bold</B>"),
        variant("bold to strong", "<b>bold</b>", "<strong>bold</strong>"),
        variant(
            "appended paragraph",
            "</script>\n",
            "</script>\n<p>more</p>\n",
        ),
        variant("unclosed p", "text.</p>", "text."),
        variant(
            "new attribute",
            "<table cellspacing",
            "<table id=\"t\" cellspacing",
        ),
        variant("empty cell", ">3</td>", "></td>"),
        variant("nbsp", ">3</td>", ">&nbsp;3</td>"),
        variant("non-ASCII", ">Name<", ">Größe €<"),
        variant("line break", "<b>bold</b>", "<b>bold</b><br>"),
        variant(
            "attribute without value",
            "<td height=\"17\" align=\"left\">Name",
            "<td nowrap height=\"17\" align=\"left\">Name",
        ),
        variant(
            "uppercase attribute",
            "cellspacing=\"0\"",
            "CELLSPACING='0'",
        ),
        variant("font", ">Name<", "><font color=\"#000000\">Name</font><"),
        variant("div after open p", "text.</p>", "text.<div>d</div>"),
        variant(
            "nested table",
            "<td align=\"right\" sdval=\"3\" sdnum=\"1033;\">3</td>",
            "<td><table><tr><td>3</td></tr></table></td>",
        ),
        (
            "short".to_owned(),
            write(d, "short.html", "<html><body><table></table></body></html>"),
        ),
        ("empty".to_owned(), write(d, "empty.html", "")),
        (
            "latin-1".to_owned(),
            write(d, "latin1.html", b"<p>caf\xe9</p>"),
        ),
        ("missing".to_owned(), Got::File(d.join("absent.html"))),
    ];
    files.push((
        "fragment".to_owned(),
        write(d, "fragment.html", "<p>Some <b>bold</b></p>"),
    ));
    files
}

#[test]
fn compare_htmls() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = write(d, "base.html", PAGE_HTML);
    let files = html_files(d);
    let trailing = (
        "trailing text".to_owned(),
        write(
            d,
            "trailing text.html",
            PAGE_HTML.replacen("</html>\n", "</html>\nafter", 1),
        ),
    );
    let mut cases = Vec::new();
    // libxml2 puts text after `</html>` in a second `html` element at the
    // end, which the comparison's zip never reaches; html5ever appends it
    // to the body, whose text then differs (docs/EVAL.md).
    let why = "text after </html>: a second html element in libxml2, the body's in html5ever";
    for o in [json!({}), json!({"ignore_sdnum": true})] {
        cases.push(
            Case::new(
                format!("trailing text {o}"),
                trailing.1.clone(),
                base.clone(),
            )
            .with(o)
            .known(why, 1.0),
        );
    }
    cases
        .push(Case::new("base vs trailing text", base.clone(), trailing.1.clone()).known(why, 1.0));
    for (name, file) in &files {
        for o in [json!({}), json!({"ignore_sdnum": true})] {
            cases
                .push(Case::new(format!("{name} {o}"), file.clone(), base.clone()).with(o.clone()));
        }
        cases.push(Case::new(
            format!("base vs {name}"),
            base.clone(),
            file.clone(),
        ));
    }
    compare("chrome", "compare_htmls", &cases);
}
