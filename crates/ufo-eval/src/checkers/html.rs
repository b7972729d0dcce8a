//! `compare_htmls` (OSWorld's `chrome.py`): two HTML files whose parsed
//! nodes agree pairwise, in document order, as BeautifulSoup sees them.
//!
//! BeautifulSoup's `recursiveChildGenerator` lists every node under the
//! document (doctype, elements, text, comments) in document order; the two
//! lists are walked side by side up to the shorter one's end. Two strings
//! must be equal (a comment equals a text of the same content); a string
//! never equals an element; two elements must have the same name, the same
//! text once stripped (the text BeautifulSoup's `.text` gives: the text
//! nodes under the element, without comments, and without the strings
//! inside `script`, `style`, `template`, `rt` or `rp` unless the element
//! is of that kind) and the same attributes (`class` and the other
//! multi-valued attributes compared as lists of words); with the option
//! `ignore_sdnum`, attributes other than `sdnum` are compared instead.
//!
//! The files are parsed by html5ever, an HTML5 parser, where OSWorld's
//! uses lxml's (libxml2's): both close elements, imply `html` and `body`
//! and decode references the same way for the documents this compares
//! (LibreOffice's HTML exports).

use std::collections::BTreeMap;
use std::path::PathBuf;

use scraper::{Html, Node};

use super::py_space;
use super::{CheckError, Cx, Got, py_truthy};

/// The elements whose strings BeautifulSoup keeps apart (its string
/// containers).
const STRING_CONTAINERS: &[&str] = &["script", "style", "template", "rt", "rp"];

/// One node of a parsed document, as the comparison needs it.
#[derive(Debug)]
enum Item {
    /// A string: text, a comment, the doctype.
    Str(String),
    /// An element: its name, attributes and text.
    Tag {
        name: String,
        attrs: BTreeMap<String, String>,
        text: String,
    },
}

/// `compare_htmls`: 1 when the nodes agree pairwise, else 0. A file that
/// cannot be read as UTF-8 is refused, as OSWorld's raises.
pub(super) fn compare_htmls(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let path = |g: Option<&Got>| match g {
        Some(Got::File(p)) => Some(p.clone()),
        Some(Got::Text(t)) => Some(PathBuf::from(t)),
        _ => None,
    };
    let (Some(a), Some(b)) = (path(Some(cx.result)), path(cx.expected)) else {
        return Err(cx.bad("both result and expected must be HTML files"));
    };
    let read = |p: &PathBuf| -> Result<Vec<Item>, CheckError> {
        let bytes = std::fs::read(p)
            .map_err(|e| cx.bad_because(format!("cannot read {}", p.display()), e))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| cx.bad_because(format!("{} is not UTF-8", p.display()), e))?;
        Ok(items(&text))
    };
    let (a, b) = (read(&a)?, read(&b)?);
    let ignore_sdnum = cx.options.get("ignore_sdnum").is_some_and(py_truthy);
    for (x, y) in a.iter().zip(&b) {
        if !same(x, y, ignore_sdnum) {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}

/// OSWorld's `compare_elements`.
fn same(x: &Item, y: &Item, ignore_sdnum: bool) -> bool {
    match (x, y) {
        (Item::Str(s), Item::Str(t)) => s == t,
        (
            Item::Tag {
                name: n1,
                attrs: a1,
                text: t1,
            },
            Item::Tag {
                name: n2,
                attrs: a2,
                text: t2,
            },
        ) => {
            if n1 != n2 || t1.trim_matches(py_space) != t2.trim_matches(py_space) {
                return false;
            }
            if a1 == a2 {
                return true;
            }
            ignore_sdnum && {
                let strip = |a: &BTreeMap<String, String>| {
                    a.iter()
                        .filter(|(k, _)| *k != "sdnum")
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect::<BTreeMap<_, _>>()
                };
                strip(a1) == strip(a2)
            }
        }
        _ => false,
    }
}

/// Whether BeautifulSoup's HTML builder splits `attr` of `tag` into words.
fn multi_valued(tag: &str, attr: &str) -> bool {
    matches!(attr, "class" | "accesskey" | "dropzone")
        || matches!(
            (tag, attr),
            ("a" | "link", "rel" | "rev")
                | ("td" | "th", "headers")
                | ("form", "accept-charset")
                | ("object", "archive")
                | ("area", "rel")
                | ("icon", "sizes")
                | ("iframe", "sandbox")
                | ("output", "for")
        )
}

/// The nodes under the document, in document order.
fn items(source: &str) -> Vec<Item> {
    let html = Html::parse_document(source);
    let lower_source = source.to_ascii_lowercase();
    // Per node: its depth, the innermost string container around it, and
    // what it is (texts kept apart so that elements can gather them).
    enum Raw {
        Text(String),
        Other(String),
        Tag(String, BTreeMap<String, String>),
    }
    let mut raw: Vec<(usize, Option<String>, Raw)> = Vec::new();
    for node in html.tree.root().descendants().skip(1) {
        let depth = node.ancestors().count();
        let container = node.ancestors().find_map(|a| match a.value() {
            Node::Element(e) => {
                let n = e.name().to_ascii_lowercase();
                STRING_CONTAINERS.contains(&n.as_str()).then_some(n)
            }
            _ => None,
        });
        let r = match node.value() {
            Node::Text(t) => {
                let keep = node.ancestors().any(|a| {
                    matches!(a.value(), Node::Element(e) if matches!(e.name(), "pre" | "textarea"))
                });
                Raw::Text(bs4_whitespace(&t.text, keep))
            }
            Node::Comment(c) => Raw::Other(c.comment.to_string()),
            Node::Doctype(d) => Raw::Other(doctype(d.name(), d.public_id(), d.system_id())),
            Node::ProcessingInstruction(p) => Raw::Other(p.data.to_string()),
            Node::Element(e) => {
                let name = e.name().to_ascii_lowercase();
                if implied(&name, node.children().next().is_none(), &lower_source) {
                    continue;
                }
                let mut attrs = BTreeMap::new();
                for (k, v) in e.attrs() {
                    let k = k.to_ascii_lowercase();
                    let v = if multi_valued(&name, &k) {
                        v.split_whitespace().collect::<Vec<_>>().join(" ")
                    } else {
                        v.to_owned()
                    };
                    attrs.entry(k).or_insert(v);
                }
                Raw::Tag(name, attrs)
            }
            Node::Document | Node::Fragment => continue,
        };
        raw.push((depth, container, r));
    }
    let mut out = Vec::with_capacity(raw.len());
    for (i, (depth, _, r)) in raw.iter().enumerate() {
        out.push(match r {
            Raw::Text(t) | Raw::Other(t) => Item::Str(t.clone()),
            Raw::Tag(name, attrs) => {
                let own = STRING_CONTAINERS
                    .contains(&name.as_str())
                    .then(|| name.clone());
                let mut text = String::new();
                for (d, container, r) in &raw[i + 1..] {
                    if d <= depth {
                        break;
                    }
                    if let Raw::Text(t) = r
                        && *container == own
                    {
                        text.push_str(t);
                    }
                }
                Item::Tag {
                    name: name.clone(),
                    attrs: attrs.clone(),
                    text,
                }
            }
        });
    }
    out
}

/// Whether an element is one html5ever implied where libxml2 makes none:
/// an empty `html`, `head` or `body` whose tag the source never writes
/// (libxml2 implies `html` and `body` only around content, never `head`
/// without head content). Its children, if any, are kept in place.
fn implied(name: &str, empty: bool, lower_source: &str) -> bool {
    match name {
        "head" => empty && !lower_source.contains("<head"),
        "body" => empty && !lower_source.contains("<body"),
        "html" => {
            empty && !lower_source.contains("<html")
                || !lower_source.contains("<html") && implied_only(lower_source)
        }
        _ => false,
    }
}

/// Whether a source without an `html` tag has no content libxml2 would
/// put in one: nothing but white space, comments and a doctype.
fn implied_only(lower_source: &str) -> bool {
    let mut rest = lower_source.trim_start();
    loop {
        if let Some(r) = rest.strip_prefix("<!--") {
            match r.find("-->") {
                Some(end) => rest = r[end + 3..].trim_start(),
                None => return true,
            }
        } else if let Some(r) = rest.strip_prefix("<!doctype") {
            match r.find('>') {
                Some(end) => rest = r[end + 1..].trim_start(),
                None => return true,
            }
        } else {
            return rest.is_empty();
        }
    }
}

/// BeautifulSoup's treatment of a string of ASCII white space only
/// (space, tab, newline, form feed, carriage return) outside `pre` and
/// `textarea`: `"\n"` if it holds a newline, else `" "`.
fn bs4_whitespace(text: &str, keep: bool) -> String {
    let blank = text
        .chars()
        .all(|c| matches!(c, ' ' | '\n' | '\t' | '\x0c' | '\r'));
    if keep || !blank || text.is_empty() {
        text.to_owned()
    } else if text.contains('\n') {
        "\n".to_owned()
    } else {
        " ".to_owned()
    }
}

/// BeautifulSoup's doctype string: the name, then `PUBLIC "id"` and the
/// system id, or `SYSTEM "id"`.
fn doctype(name: &str, public: &str, system: &str) -> String {
    let mut v = name.to_owned();
    if !public.is_empty() {
        v.push_str(&format!(" PUBLIC \"{public}\""));
        if !system.is_empty() {
            v.push_str(&format!(" \"{system}\""));
        }
    } else if !system.is_empty() {
        v.push_str(&format!(" SYSTEM \"{system}\""));
    }
    v
}
