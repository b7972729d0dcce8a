//! LibreOffice Impress checks (OSWorld `slides.py`) that read neither text
//! nor shapes: the presenter console and autosave settings in
//! `registrymodifications.xcu`, the slide pane in the accessibility tree,
//! a slide's transition and the master's page-number colour in the
//! package's XML, the slide orientation, and slide backgrounds' distance
//! to a colour.

use std::io::Read;

use roxmltree::{Document, Node};
use serde_json::Value;

use super::pptx::{BgFill, backgrounds};
use super::vlc::py_int;
use super::{CheckError, Cx, got_text, py_eq, py_float_repr};

const OOR: &str = "http://openoffice.org/2001/registry";
const P: &str = "http://schemas.openxmlformats.org/presentationml/2006/main";
const A: &str = "http://schemas.openxmlformats.org/drawingml/2006/main";

/// A 0/1 score.
fn score(passed: bool) -> Result<f64, CheckError> {
    Ok(f64::from(u8::from(passed)))
}

/// An element named `name` without a namespace (ElementTree's plain tag).
fn is(n: &Node<'_, '_>, name: &str) -> bool {
    n.is_element() && n.tag_name().name() == name && n.tag_name().namespace().is_none()
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

/// The rules object's `key`; a missing key is refused (OSWorld's
/// `rules[key]` raises).
fn rules_get<'c>(cx: &'c Cx<'_>, key: &str) -> Result<&'c Value, CheckError> {
    cx.rules()?
        .as_object()
        .ok_or_else(|| cx.bad("rules must be a JSON object"))?
        .get(key)
        .ok_or_else(|| cx.bad(format!("rules have no {key:?}")))
}

/// The result file's path.
fn result_path(cx: &Cx<'_>) -> Result<std::path::PathBuf, CheckError> {
    cx.result_path()
        .ok_or_else(|| cx.bad("the result must be a file"))
}

/// `check_presenter_console_disable`: the first `EnablePresenterScreen`
/// prop under `/org.openoffice.Office.Impress/Misc/Start` has a `value`
/// child whose text is `false` in any case. Anything else, an unreadable
/// or malformed file included, scores 0.
pub(super) fn check_presenter_console_disable(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(text) = cx
        .result_path()
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|b| String::from_utf8(b).ok())
    else {
        return Ok(0.0);
    };
    let Ok(doc) = Document::parse(&text) else {
        return Ok(0.0);
    };
    let prop = doc
        .root_element()
        .descendants()
        .skip(1)
        .filter(|n| {
            is(n, "item")
                && n.attribute((OOR, "path")) == Some("/org.openoffice.Office.Impress/Misc/Start")
        })
        .flat_map(|item| item.children())
        .find(|p| is(p, "prop") && p.attribute((OOR, "name")) == Some("EnablePresenterScreen"));
    let value = prop
        .and_then(|p| p.children().find(|v| is(v, "value")))
        .and_then(et_text);
    score(value.is_some_and(|v| v.to_lowercase() == "false"))
}

/// `check_auto_saving_time`: the `AutoSaveTimeIntervall` prop under
/// `/org.openoffice.Office.Common/Save/Document` (the last such item's)
/// holds `rules.minutes`. A file that cannot be read or parsed scores 0
/// (OSWorld's function returns no score); a prop without a `value`, or a
/// value that is not an integer, is refused (it raises).
pub(super) fn check_auto_saving_time(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let minutes = rules_get(cx, "minutes")?;
    let Some(text) = cx
        .result_path()
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|b| String::from_utf8(b).ok())
    else {
        return Ok(0.0);
    };
    let Ok(doc) = Document::parse(&text) else {
        return Ok(0.0);
    };
    let mut time: Option<String> = None;
    let items = doc.root_element().descendants().skip(1).filter(|n| {
        is(n, "item")
            && n.attribute((OOR, "path")) == Some("/org.openoffice.Office.Common/Save/Document")
    });
    for item in items {
        let prop = item
            .descendants()
            .skip(1)
            .find(|p| is(p, "prop") && p.attribute((OOR, "name")) == Some("AutoSaveTimeIntervall"));
        if let Some(prop) = prop {
            let value = prop
                .descendants()
                .skip(1)
                .find(|v| is(v, "value"))
                .ok_or_else(|| cx.bad("AutoSaveTimeIntervall without a value (OSWorld raises)"))?;
            time = et_text(value);
        }
    }
    let Some(time) = time else {
        return Ok(0.0);
    };
    let n =
        py_int(&time).ok_or_else(|| cx.bad(format!("autosave time {time:?} is not an integer")))?;
    score(py_eq(&Value::from(n), minutes))
}

/// `check_left_panel`: the accessibility tree (XML) has a
/// `document-frame` named `Slides View`; XML that does not parse is
/// refused.
pub(super) fn check_left_panel(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let text = got_text(cx.result).ok_or_else(|| cx.bad("no accessibility tree"))?;
    let doc = Document::parse(&text).map_err(|e| cx.bad_because("the tree is not XML", e))?;
    score(
        doc.root_element()
            .descendants()
            .any(|n| is(&n, "document-frame") && n.attribute("name") == Some("Slides View")),
    )
}

/// A zip's member as text; `Ok(None)` when it is absent.
fn member(cx: &Cx<'_>, name: &str) -> Result<Option<String>, CheckError> {
    let path = result_path(cx)?;
    let file = std::fs::File::open(&path)
        .map_err(|e| cx.bad_because(format!("cannot open {}", path.display()), e))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| cx.bad_because("not a zip file", e))?;
    let mut f = match zip.by_name(name) {
        Ok(f) => f,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(cx.bad_because(format!("cannot read {name}"), e)),
    };
    let mut s = String::new();
    f.read_to_string(&mut s)
        .map_err(|e| cx.bad_because(format!("cannot read {name}"), e))?;
    Ok(Some(s))
}

/// `check_transition`: `ppt/slides/slide<slide_idx + 1>.xml` (by file
/// name) has a `p:transition` whose descendants include a
/// `p:<transition_type>`; no such slide file, or no transition, scores 0.
pub(super) fn check_transition(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let idx = rules_get(cx, "slide_idx")?;
    let kind = rules_get(cx, "transition_type")?
        .as_str()
        .ok_or_else(|| cx.bad("rules.transition_type must be a string"))?;
    let number = match idx {
        Value::Bool(b) => (i64::from(*b) + 1).to_string(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => (i + 1).to_string(),
            None => py_float_repr(n.as_f64().unwrap_or(f64::NAN) + 1.0),
        },
        _ => return Err(cx.bad("rules.slide_idx must be a number")),
    };
    let Some(xml) = member(cx, &format!("ppt/slides/slide{number}.xml"))? else {
        return Ok(0.0);
    };
    let doc = Document::parse(&xml).map_err(|e| cx.bad_because("the slide is not XML", e))?;
    let transition = doc
        .root_element()
        .descendants()
        .skip(1)
        .find(|n| n.has_tag_name((P, "transition")));
    score(transition.is_some_and(|t| t.descendants().skip(1).any(|n| n.has_tag_name((P, kind)))))
}

/// Python's `int(s, 16)` on a short slice: white space around, a sign,
/// hex digits.
fn py_hex(s: &str) -> Option<i64> {
    let t = s.trim_matches(super::py_space);
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let v = i64::from_str_radix(digits, 16).ok()?;
    Some(if neg { -v } else { v })
}

/// `check_page_number_colors`: the second-to-last `a:srgbClr` inside an
/// `a:solidFill` of `ppt/slideMasters/slideMaster1.xml` is of
/// `rules.color` (`red`, `blue`, `green`: that channel above the others by
/// more than 50; `black`: all three below 50; another colour name passes).
/// OSWorld reads the channels from characters 1–2, 3–4 and 5–6 of the
/// six-digit value (one place off: `FF0000` is read as F0, 00, 0); we do
/// the same. Fewer than two such colours, or a missing master, are
/// refused (it raises).
pub(super) fn check_page_number_colors(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let color = rules_get(cx, "color")?;
    let xml = member(cx, "ppt/slideMasters/slideMaster1.xml")?
        .ok_or_else(|| cx.bad("no ppt/slideMasters/slideMaster1.xml (OSWorld raises)"))?;
    let doc = Document::parse(&xml).map_err(|e| cx.bad_because("the master is not XML", e))?;
    let fills = doc
        .root_element()
        .descendants()
        .skip(1)
        .filter(|n| n.has_tag_name((A, "solidFill")));
    let colours: Vec<Node<'_, '_>> = fills
        .flat_map(|f| {
            f.descendants()
                .skip(1)
                .filter(|n| n.has_tag_name((A, "srgbClr")))
        })
        .collect();
    let elem = colours
        .len()
        .checked_sub(2)
        .map(|i| colours[i])
        .ok_or_else(|| cx.bad("fewer than two colours in the master (OSWorld raises)"))?;
    let Some(val) = elem.attribute("val") else {
        return Ok(0.0);
    };
    let chars: Vec<char> = val.chars().collect();
    let slice = |a: usize, b: usize| -> String { chars.iter().skip(a).take(b - a).collect() };
    let channels = || -> Result<(i64, i64, i64), CheckError> {
        let c = |a, b| {
            py_hex(&slice(a, b)).ok_or_else(|| cx.bad(format!("colour {val:?} (OSWorld raises)")))
        };
        Ok((c(1, 3)?, c(3, 5)?, c(5, 7)?))
    };
    let passed = match color.as_str() {
        Some("red") => {
            let (r, g, b) = channels()?;
            r > g + 50 && r > b + 50
        }
        Some("blue") => {
            let (r, g, b) = channels()?;
            b > g + 50 && b > r + 50
        }
        Some("green") => {
            let (r, g, b) = channels()?;
            g > r + 50 && g > b + 50
        }
        Some("black") => {
            let (r, g, b) = channels()?;
            r < 50 && g < 50 && b < 50
        }
        _ => true,
    };
    score(passed)
}

/// `check_slide_orientation_Portrait`: the slide width is below its
/// height; a deck python-pptx cannot open, or without a slide size, is
/// refused.
pub(super) fn check_slide_orientation_portrait(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let deck = backgrounds(&result_path(cx)?).map_err(|m| cx.bad(m))?;
    let (Some(w), Some(h)) = (deck.width, deck.height) else {
        return Err(cx.bad("a deck without a slide size (OSWorld raises)"));
    };
    score(w < h)
}

/// Three numbers from a rules value (OSWorld unpacks `r, g, b = value`).
fn triple(cx: &Cx<'_>, v: &Value) -> Result<[f64; 3], CheckError> {
    let bad = || cx.bad(format!("{v} is not three numbers"));
    let items = v.as_array().filter(|a| a.len() == 3).ok_or_else(bad)?;
    let mut out = [0.0; 3];
    for (o, x) in out.iter_mut().zip(items) {
        *o = match x {
            Value::Bool(b) => f64::from(u8::from(*b)),
            other => other.as_f64().ok_or_else(bad)?,
        };
    }
    Ok(out)
}

/// `evaluate_presentation_fill_to_rgb_distance`: 1 minus the mean over
/// the slides of each background's distance to `rules.rgb` (Euclidean
/// over RGB, divided by that of black to white). A solid slide background
/// counts; "no fill" or none falls back to the master's solid background;
/// anything else (a gradient, a picture, a colour that is not RGB, a
/// colour equal to `rules.original_rgb`) is at distance 1.
pub(super) fn evaluate_presentation_fill_to_rgb_distance(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let rgb = rules_get(cx, "rgb")?;
    let original = cx.rules()?.get("original_rgb").filter(|v| !v.is_null());
    let deck = backgrounds(&result_path(cx)?).map_err(|m| cx.bad(m))?;
    if deck.slides.is_empty() {
        return Err(cx.bad("a deck without slides (OSWorld divides by zero)"));
    }
    let mut total = 0.0;
    for (slide, master) in &deck.slides {
        let colour = match (slide, master) {
            (BgFill::Solid(c), _) | (BgFill::NoFill, BgFill::Solid(c)) => *c,
            _ => None,
        };
        let Some(c) = colour else {
            total += 1.0;
            continue;
        };
        let c = c.map(f64::from);
        let want = triple(cx, rgb)?;
        if let Some(o) = original {
            let o = triple(cx, o)?;
            if c == o {
                total += 1.0;
                continue;
            }
        }
        let d =
            ((c[0] - want[0]).powi(2) + (c[1] - want[1]).powi(2) + (c[2] - want[2]).powi(2)).sqrt();
        total += d / (3.0f64 * 255.0 * 255.0).sqrt();
    }
    Ok(1.0 - total / deck.slides.len() as f64)
}
