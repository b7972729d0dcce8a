//! Word documents' formatting (OSWorld `docs.py`): fonts, subscripts,
//! strike-through, italics and sizes, colours of table words, tab stops,
//! page breaks, footers, centring, images, lines and references — read
//! from the XML as python-docx reads it (a run's own `w:rPr`, a
//! paragraph's own `w:pPr`; styles are not consulted, as python-docx's
//! `run.font` and `paragraph_format` do not) — and LibreOffice Writer's
//! default font in `registrymodifications.xcu`.
//!
//! As in OSWorld, a file python-docx cannot open scores 0 (its functions
//! catch that), while what they do not catch — a document without
//! paragraphs where one is indexed, an on/off value python-docx rejects —
//! is refused (`bad_checker_input`).

use std::path::Path;

use roxmltree::{Document, Node};
use serde_json::Value;

use super::docx::{
    W, docx_files, open_word, paragraph_text, path_of, squash, w_children, zip_part,
};
use super::similarity::indel_ratio;
use super::{CheckError, Cx, py_eq, py_space};

/// A Word document's main part.
pub(super) struct Word {
    /// The main part's XML.
    pub(super) xml: String,
    /// The footer parts' XML by relationship id.
    footers: Vec<(String, String)>,
    /// The main part's image relationships' parts, in the relationships'
    /// order (an error for a linked, external image: python-docx has no
    /// part for it).
    images: Vec<Result<Vec<u8>, String>>,
}

/// A zip member's bytes (`None`: absent or unreadable).
fn zip_bytes(zip: &mut zip::ZipArchive<std::fs::File>, name: &str) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut f = zip.by_name(name).ok()?;
    let mut out = Vec::new();
    f.read_to_end(&mut out).ok()?;
    Some(out)
}

/// Opens a `.docx` as python-docx's `Document` does (`None`: it raises).
pub(super) fn open(path: &str) -> Option<Word> {
    let (mut zip, name, xml) = open_word(Path::new(path)).ok()?;
    let (dir, file) = name.rsplit_once('/').unwrap_or(("", &name));
    let rels_name = if dir.is_empty() {
        format!("_rels/{file}.rels")
    } else {
        format!("{dir}/_rels/{file}.rels")
    };
    let mut footers = Vec::new();
    let mut images = Vec::new();
    if let Ok(Some(rels)) = zip_part(&mut zip, &rels_name)
        && let Ok(doc) = Document::parse(&rels)
    {
        for r in doc.root_element().children().filter(Node::is_element) {
            let (Some(id), Some(kind), Some(target)) = (
                r.attribute("Id"),
                r.attribute("Type"),
                r.attribute("Target"),
            ) else {
                continue;
            };
            let external = r.attribute("TargetMode") == Some("External");
            let part = match target.strip_prefix('/') {
                Some(abs) => abs.to_owned(),
                None if dir.is_empty() => target.to_owned(),
                None => format!("{dir}/{target}"),
            };
            if kind.contains("image") {
                if external {
                    images.push(Err(format!("image {id} is linked, not in the package")));
                } else {
                    // python-docx loads every related part: a missing one
                    // fails `Document()`.
                    images.push(Ok(zip_bytes(&mut zip, &part)?));
                }
            } else if kind.ends_with("/footer")
                && !external
                && let Ok(Some(x)) = zip_part(&mut zip, &part)
            {
                footers.push((id.to_owned(), x));
            }
        }
    }
    Some(Word {
        xml,
        footers,
        images,
    })
}

/// Parses a part (no DTD, as python-docx's parser).
fn parse(xml: &str) -> Result<Document<'_>, String> {
    Document::parse_with_options(
        xml,
        roxmltree::ParsingOptions {
            allow_dtd: false,
            ..Default::default()
        },
    )
    .map_err(|e| e.to_string())
}

/// The body's paragraphs (`document.paragraphs`).
pub(super) fn paragraphs<'a, 'i>(doc: &'a Document<'i>) -> Vec<Node<'a, 'i>> {
    w_children(doc.root_element(), "body")
        .next()
        .map(|b| w_children(b, "p").collect())
        .unwrap_or_default()
}

/// A paragraph's runs (`paragraph.runs`: its `w:r` children).
pub(super) fn runs<'a, 'i>(p: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    w_children(p, "r")
}

/// A child of a run's `w:rPr`.
pub(super) fn rpr<'a, 'i>(r: Node<'a, 'i>, name: &'static str) -> Option<Node<'a, 'i>> {
    w_children(r, "rPr")
        .next()
        .and_then(|pr| w_children(pr, name).next())
}

/// A `w:val` attribute.
pub(super) fn val<'a>(n: Node<'a, '_>) -> Option<&'a str> {
    n.attribute((W, "val"))
}

/// python-docx's on/off property: absent `None`, a bare element `true`,
/// else its `w:val` (`1`/`true`/`on` or `0`/`false`/`off`; anything else
/// raises).
fn on_off(cx: &Cx<'_>, n: Option<Node<'_, '_>>) -> Result<Option<bool>, CheckError> {
    let Some(n) = n else { return Ok(None) };
    match val(n) {
        None | Some("1" | "true" | "on") => Ok(Some(true)),
        Some("0" | "false" | "off") => Ok(Some(false)),
        Some(v) => Err(cx.bad(format!("an on/off value {v:?} python-docx rejects"))),
    }
}

/// Both files' paths, opened; `None` (score 0) when either is missing or
/// python-docx cannot open it.
pub(super) fn open_pair(cx: &Cx<'_>) -> Option<(Word, Word)> {
    let (a, b) = (path_of(Some(cx.result))?, path_of(cx.expected)?);
    Some((open(&a)?, open(&b)?))
}

/// A 0/1 score.
fn score(passed: bool) -> Result<f64, CheckError> {
    Ok(f64::from(u8::from(passed)))
}

/// Parses a part or refuses it.
pub(super) fn parsed<'i>(cx: &Cx<'_>, xml: &'i str) -> Result<Document<'i>, CheckError> {
    parse(xml).map_err(|m| cx.bad(m))
}

/// `compare_font_names`: every run of the body's paragraphs has the font
/// (`w:rFonts/@w:ascii`, None when unset) `rules.font_name`.
pub(super) fn compare_font_names(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(word) = path_of(Some(cx.result)).and_then(|p| open(&p)) else {
        return Ok(0.0);
    };
    let want = cx
        .rules()?
        .get("font_name")
        .ok_or_else(|| cx.bad("rules have no \"font_name\""))?;
    let doc = parsed(cx, &word.xml)?;
    for p in paragraphs(&doc) {
        for r in runs(p) {
            let name = rpr(r, "rFonts").and_then(|f| f.attribute((W, "ascii")));
            let got = name.map_or(Value::Null, |n| Value::String(n.to_owned()));
            if !py_eq(&got, want) {
                return Ok(0.0);
            }
        }
    }
    Ok(1.0)
}

/// python-docx's `font.subscript`: `w:vertAlign` is `subscript`.
fn subscript(r: Node<'_, '_>) -> bool {
    rpr(r, "vertAlign").and_then(val) == Some("subscript")
}

/// `compare_subscript_contains`: some pair of runs (paragraphs and runs
/// paired in order, the shorter deciding) is subscript in both.
pub(super) fn compare_subscript_contains(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((a, b)) = open_pair(cx) else {
        return Ok(0.0);
    };
    let (da, db) = (parsed(cx, &a.xml)?, parsed(cx, &b.xml)?);
    for (p, q) in paragraphs(&da).into_iter().zip(paragraphs(&db)) {
        if runs(p)
            .zip(runs(q))
            .any(|(r, s)| subscript(r) && subscript(s))
        {
            return Ok(1.0);
        }
    }
    Ok(0.0)
}

/// The document's sections' `w:sectPr`s, in order (python-docx's
/// `document.sections`).
pub(super) fn sections<'a, 'i>(doc: &'a Document<'i>) -> Vec<Node<'a, 'i>> {
    let Some(body) = w_children(doc.root_element(), "body").next() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in body.children().filter(Node::is_element) {
        if c.has_tag_name((W, "p")) {
            out.extend(
                w_children(c, "pPr")
                    .next()
                    .and_then(|pr| w_children(pr, "sectPr").next()),
            );
        } else if c.has_tag_name((W, "sectPr")) {
            out.push(c);
        }
    }
    out
}

/// `has_page_numbers_in_footers`: every section's default footer (its
/// own, or the nearest earlier section's) has a digit (0-9; Python's
/// `isdigit` would take other scripts' digits too) in its first
/// paragraph's text. A section with no footer to inherit (python-docx
/// then adds an empty one) scores 0.
pub(super) fn has_page_numbers_in_footers(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(word) = path_of(Some(cx.result)).and_then(|p| open(&p)) else {
        return Ok(0.0);
    };
    let doc = parsed(cx, &word.xml)?;
    let secs = sections(&doc);
    let reference = |s: Node<'_, '_>| {
        w_children(s, "footerReference")
            .find(|f| f.attribute((W, "type")) == Some("default"))
            .and_then(|f| {
                f.attribute((
                    "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
                    "id",
                ))
            })
            .map(str::to_owned)
    };
    for i in 0..secs.len() {
        let Some(id) = secs[..=i].iter().rev().find_map(|s| reference(*s)) else {
            return Ok(0.0);
        };
        let xml = word
            .footers
            .iter()
            .find(|(r, _)| *r == id)
            .map(|(_, x)| x.as_str())
            .ok_or_else(|| cx.bad(format!("footer {id} is not in the package")))?;
        let footer = parsed(cx, xml)?;
        let text = w_children(footer.root_element(), "p")
            .next()
            .map(paragraph_text)
            .unwrap_or_default();
        if !text.chars().any(|c| c.is_ascii_digit()) {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}

/// `is_first_line_centered`: the first body paragraph's own alignment
/// (`w:jc`) is `center`; a document without paragraphs is refused.
pub(super) fn is_first_line_centered(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(word) = path_of(Some(cx.result)).and_then(|p| open(&p)) else {
        return Ok(0.0);
    };
    let doc = parsed(cx, &word.xml)?;
    let first = *paragraphs(&doc)
        .first()
        .ok_or_else(|| cx.bad("a document without paragraphs"))?;
    let jc = w_children(first, "pPr")
        .next()
        .and_then(|pr| w_children(pr, "jc").next())
        .and_then(val);
    score(jc == Some("center"))
}

/// `contains_page_break`: the body's runs hold page breaks (`w:br` with
/// `w:type="page"`, at any depth of a run), `rules.page_break_count` of
/// them when given.
pub(super) fn contains_page_break(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(word) = path_of(Some(cx.result)).and_then(|p| open(&p)) else {
        return Ok(0.0);
    };
    let want = match cx.expected {
        Some(super::Got::Json(Value::Object(m))) => m.get("page_break_count").cloned(),
        _ => None,
    }
    .filter(|v| !v.is_null());
    let doc = parsed(cx, &word.xml)?;
    let mut count = 0u64;
    for p in paragraphs(&doc) {
        for r in runs(p) {
            count += r
                .descendants()
                .filter(|b| b.has_tag_name((W, "br")) && b.attribute((W, "type")) == Some("page"))
                .count() as u64;
        }
    }
    if let Some(want) = want
        && !py_eq(&Value::from(count), &want)
    {
        return Ok(0.0);
    }
    score(count > 0)
}

/// Whether a run's serialised XML would contain `graphicData` (an element
/// or attribute name, a value, or text).
fn has_graphic(r: Node<'_, '_>) -> bool {
    const G: &str = "graphicData";
    r.descendants().any(|n| {
        (n.is_element()
            && (n.tag_name().name().contains(G)
                || n.attributes()
                    .any(|a| a.name().contains(G) || a.value().contains(G))))
            || (n.is_text() && n.text().is_some_and(|t| t.contains(G)))
    })
}

/// `compare_contains_image`: no pair of runs (paired in order, the shorter
/// deciding) has an image (`graphicData`) in one and not the other.
pub(super) fn compare_contains_image(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((a, b)) = open_pair(cx) else {
        return Ok(0.0);
    };
    let (da, db) = (parsed(cx, &a.xml)?, parsed(cx, &b.xml)?);
    for (p, q) in paragraphs(&da).into_iter().zip(paragraphs(&db)) {
        if runs(p)
            .zip(runs(q))
            .any(|(r, s)| has_graphic(r) != has_graphic(s))
        {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}

/// `compare_docx_files` with its defaults, as the `evaluate_*` checks
/// call it first (a pair of `.odt` files, which python-docx then cannot
/// open, scores 0).
pub(super) fn same_text(cx: &Cx<'_>) -> bool {
    docx_files(cx, |_, default| default).is_ok_and(|s| s != 0.0)
}

/// `evaluate_strike_through_last_paragraph`: the documents' texts are the
/// same and every run of the result's last paragraph is struck through.
pub(super) fn evaluate_strike_through_last_paragraph(cx: &Cx<'_>) -> Result<f64, CheckError> {
    if !same_text(cx) {
        return Ok(0.0);
    }
    let Some(word) = path_of(Some(cx.result)).and_then(|p| open(&p)) else {
        return Ok(0.0);
    };
    let doc = parsed(cx, &word.xml)?;
    let last = *paragraphs(&doc)
        .last()
        .ok_or_else(|| cx.bad("a document without paragraphs"))?;
    for r in runs(last) {
        if on_off(cx, rpr(r, "strike"))? != Some(true) {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}

/// `check_italic_font_size_14`: the documents' texts are the same and
/// every italic run of the result's body paragraphs is 14 pt (`w:sz` 28).
pub(super) fn check_italic_font_size_14(cx: &Cx<'_>) -> Result<f64, CheckError> {
    if !same_text(cx) {
        return Ok(0.0);
    }
    let Some(word) = path_of(Some(cx.result)).and_then(|p| open(&p)) else {
        return Ok(0.0);
    };
    let doc = parsed(cx, &word.xml)?;
    for p in paragraphs(&doc) {
        for r in runs(p) {
            if on_off(cx, rpr(r, "i"))? != Some(true) {
                continue;
            }
            let size = match rpr(r, "sz").and_then(val) {
                None => return Ok(0.0),
                Some(v) => half_points(v).ok_or_else(|| cx.bad(format!("font size {v:?}")))?,
            };
            if size != 14.0 {
                return Ok(0.0);
            }
        }
    }
    Ok(1.0)
}

/// A `w:sz` value as python-docx's `size.pt`: `Pt(int(v) / 2)` in whole
/// EMU, back in points.
fn half_points(v: &str) -> Option<f64> {
    let n: i64 = v.trim_matches(py_space).parse().ok()?;
    let emu = (n as f64 / 2.0 * 12700.0) as i64;
    Some(emu as f64 / 12700.0)
}

/// The stripped, non-blank texts of the body's paragraphs.
fn lines(cx: &Cx<'_>, word: &Word) -> Result<Vec<String>, CheckError> {
    let doc = parsed(cx, &word.xml)?;
    Ok(paragraphs(&doc)
        .into_iter()
        .map(|p| paragraph_text(p).trim_matches(py_space).to_owned())
        .filter(|t| !t.is_empty())
        .collect())
}

/// `compare_docx_lines`: the sets of stripped non-blank paragraph texts
/// are equal.
pub(super) fn compare_docx_lines(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((a, b)) = open_pair(cx) else {
        return Ok(0.0);
    };
    let set = |v: Vec<String>| v.into_iter().collect::<std::collections::BTreeSet<_>>();
    score(set(lines(cx, &a)?) == set(lines(cx, &b)?))
}

/// Both paths end in `.docx` and open (else `None`, a score of 0).
fn docx_pair(cx: &Cx<'_>) -> Option<(Word, Word)> {
    let (a, b) = (path_of(Some(cx.result))?, path_of(cx.expected)?);
    if !(a.ends_with(".docx") && b.ends_with(".docx")) {
        return None;
    }
    Some((open(&a)?, open(&b)?))
}

/// The body's paragraph texts.
fn texts(cx: &Cx<'_>, word: &Word) -> Result<Vec<String>, CheckError> {
    let doc = parsed(cx, &word.xml)?;
    Ok(paragraphs(&doc).into_iter().map(paragraph_text).collect())
}

/// `compare_docx_files_and_ignore_new_lines`: two `.docx` files' non-empty
/// paragraphs, with `ignore_blanks` (default on) joined and white space
/// squashed, else paragraph by paragraph, are equal.
pub(super) fn compare_docx_files_and_ignore_new_lines(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let ignore_blanks = cx.options.get("ignore_blanks").is_none_or(super::py_truthy);
    let Some((a, b)) = docx_pair(cx) else {
        return Ok(0.0);
    };
    let keep = |v: Vec<String>| v.into_iter().filter(|t| !t.is_empty()).collect::<Vec<_>>();
    let (pa, pb) = (keep(texts(cx, &a)?), keep(texts(cx, &b)?));
    if ignore_blanks {
        return score(squash(&pa.join("\n")) == squash(&pb.join("\n")));
    }
    score(pa == pb)
}

/// A number option (absent: `default`).
pub(super) fn num_opt(cx: &Cx<'_>, key: &str, default: f64) -> Result<f64, CheckError> {
    match cx.options.get(key) {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(f64::from(u8::from(*b))),
        Some(v) => v
            .as_f64()
            .ok_or_else(|| cx.bad(format!("option {key} must be a number"))),
    }
}

/// `compare_references`: the paragraphs after the first one equal to
/// `reference_indicator` (default `References`) in each `.docx`, blank
/// ones dropped, paired; their mean rapidfuzz ratio `r` scores
/// `(r − b) / (1 − b)` when `r ≥ b + 0.01` (`b` = `reference_base_result`,
/// default 0.5), else 0. Neither document with the heading scores 1; one
/// of them, or lists of different lengths, 0.
pub(super) fn compare_references(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let indicator = match cx.options.get("reference_indicator") {
        None => "References".to_owned(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(cx.bad("option reference_indicator must be a string")),
    };
    let base = num_opt(cx, "reference_base_result", 0.5)?;
    let Some((a, b)) = docx_pair(cx) else {
        return Ok(0.0);
    };
    let (pa, pb) = (texts(cx, &a)?, texts(cx, &b)?);
    let (ia, ib) = (
        pa.iter().position(|t| *t == indicator),
        pb.iter().position(|t| *t == indicator),
    );
    let (ia, ib) = match (ia, ib) {
        (None, None) => return Ok(1.0),
        (Some(x), Some(y)) => (x, y),
        _ => return Ok(0.0),
    };
    let refs = |v: &[String]| -> Vec<String> {
        v.iter()
            .filter(|t| !t.trim_matches(py_space).is_empty())
            .cloned()
            .collect()
    };
    let (ra, rb) = (refs(&pa[ia + 1..]), refs(&pb[ib + 1..]));
    if ra.len() != rb.len() {
        return Ok(0.0);
    }
    if ra.is_empty() {
        return Err(cx.bad("no references after the heading (OSWorld divides by zero)"));
    }
    let total: f64 = ra.iter().zip(&rb).map(|(x, y)| indel_ratio(x, y)).sum();
    let result = total / ra.len() as f64;
    Ok(if result >= base + 0.01 {
        (result - base) / (1.0 - base)
    } else {
        0.0
    })
}

/// `find_default_font`: the last `value` of a `prop oor:name="Standard"`
/// under an `item oor:path="/org.openoffice.Office.Writer/DefaultFont"`
/// of LibreOffice's `registrymodifications.xcu` equals `rules.font_name`
/// (a file that cannot be read or parsed has no font, None).
pub(super) fn find_default_font(cx: &Cx<'_>) -> Result<f64, CheckError> {
    const OOR: &str = "http://openoffice.org/2001/registry";
    let want = cx
        .rules()?
        .get("font_name")
        .ok_or_else(|| cx.bad("rules have no \"font_name\""))?
        .clone();
    let Some(path) = path_of(Some(cx.result)) else {
        return Ok(0.0);
    };
    let text = std::fs::read(&path)
        .ok()
        .and_then(|b| String::from_utf8(b).ok());
    let mut font: Option<String> = None;
    if let Some(text) = text
        && let Ok(doc) = Document::parse(&text)
    {
        let items = doc.root_element().descendants().skip(1).filter(|n| {
            n.has_tag_name("item")
                && n.attribute((OOR, "path")) == Some("/org.openoffice.Office.Writer/DefaultFont")
        });
        for item in items {
            let props = item.descendants().skip(1).filter(|n| {
                n.has_tag_name("prop") && n.attribute((OOR, "name")) == Some("Standard")
            });
            for prop in props {
                for v in prop.children().filter(|n| n.has_tag_name("value")) {
                    font = et_text(v);
                }
            }
        }
    }
    let got = font.map_or(Value::Null, Value::String);
    score(py_eq(&got, &want))
}

/// ElementTree's `.text`: the character data before the first child
/// element; `None` when there is none.
fn et_text(node: Node<'_, '_>) -> Option<String> {
    let mut text = String::new();
    for child in node.children() {
        if child.is_element() {
            break;
        }
        if child.is_text() {
            text.push_str(child.text().unwrap_or(""));
        }
    }
    (!text.is_empty()).then_some(text)
}

/// `fuzzy_place_math`: the body's paragraphs split into words must be
/// three words; each scores its best rapidfuzz ratio against the answers
/// `rules.expected`, and the score is their mean. A file python-docx
/// cannot open is refused (OSWorld's function does not catch it).
pub(super) fn fuzzy_place_math(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(path) = path_of(Some(cx.result)) else {
        return Ok(0.0);
    };
    let answers: Vec<String> = match cx.rules()?.get("expected") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or_else(|| cx.bad("rules.expected must be strings"))?,
        Some(Value::String(s)) => s.chars().map(String::from).collect(),
        _ => return Err(cx.bad("rules.expected must be a list of answers")),
    };
    let word = open(&path).ok_or_else(|| cx.bad(format!("{path} is not a Word document")))?;
    let doc = parsed(cx, &word.xml)?;
    let mut scores = Vec::new();
    for p in paragraphs(&doc) {
        for w in paragraph_text(p).split(py_space).filter(|w| !w.is_empty()) {
            let best = answers
                .iter()
                .map(|a| indel_ratio(w, a))
                .fold(0.0, f64::max);
            scores.push(best);
        }
    }
    if scores.len() != 3 {
        return Ok(0.0);
    }
    Ok(scores.iter().sum::<f64>() / 3.0)
}

/// `compare_docx_images`: the documents' image parts (the main part's
/// image relationships, in order) are as many and decode (Pillow's
/// `tobytes()`) to the same bytes, pair by pair.
pub(super) fn compare_docx_images(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((a, b)) = open_pair(cx) else {
        return Ok(0.0);
    };
    if a.images.len() != b.images.len() {
        return Ok(0.0);
    }
    let decode = |blob: &Result<Vec<u8>, String>| {
        let blob = blob.as_ref().map_err(|m| cx.bad(m.clone()))?;
        super::pil::Pil::decode(blob)
            .map_err(|m| cx.bad(format!("an image that does not decode: {m}")))
    };
    for (x, y) in a.images.iter().zip(&b.images) {
        if decode(x)?.px != decode(y)?.px {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}
