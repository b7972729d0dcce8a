//! VLC checkers (OSWorld `vlc.py`): settings in `vlcrc` (`check_qt_*`,
//! `check_global_key_play_pause`, `check_one_instance_when_started_from_file`,
//! `is_vlc_recordings_folder`), the web interface's `status.xml`
//! (`is_vlc_playing`) and the window's size against the screen's
//! (`is_vlc_fullscreen`).
//!
//! The `vlcrc` checks read the file as UTF-8 (a file that is not, or
//! cannot be read, is refused: OSWorld's function raises) and take the
//! value after the last `=` of the last line *containing* the key, which
//! may be a commented-out line (`#qt-bgcone=1`); without such a line,
//! VLC's default. An integer expected value is compared as its decimal
//! text (`True` and `False` for booleans, as Python's `str`); any other
//! non-string value never equals.

use roxmltree::Node;
use serde_json::Value;

use super::browser::urlparse;
use super::py_space;
use super::{CheckError, Cx, py_eq};

/// Python's `str.strip()`.
fn py_strip(s: &str) -> &str {
    s.trim_matches(py_space)
}

/// The result file's text, strictly UTF-8.
fn config_text(cx: &Cx<'_>) -> Result<String, CheckError> {
    let path = cx
        .result_path()
        .ok_or_else(|| cx.bad("the result must be a file"))?;
    let bytes = std::fs::read(&path)
        .map_err(|e| cx.bad_because(format!("cannot read {}", path.display()), e))?;
    String::from_utf8(bytes)
        .map_err(|e| cx.bad_because(format!("{} is not UTF-8", path.display()), e))
}

/// `rules[key]`; a missing key is refused (OSWorld's `rule[key]` raises).
fn rule<'a>(cx: &Cx<'_>, rules: &'a Value, key: &str) -> Result<&'a Value, CheckError> {
    rules
        .as_object()
        .ok_or_else(|| cx.bad("rules must be a JSON object"))?
        .get(key)
        .ok_or_else(|| cx.bad(format!("rules have no {key:?}")))
}

/// An expected value as OSWorld compares it with a setting's text: a
/// string as itself, an integer (or boolean) as Python's `str` of it;
/// `None` for other values, which equal no text.
fn expected_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(if *b { "True" } else { "False" }.to_owned()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        _ => None,
    }
}

/// The value (after the last `=`, stripped) of the last line containing
/// `key`, or `default`.
fn setting(text: &str, key: &str, default: &str) -> String {
    text.split('\n')
        .rfind(|line| line.contains(key))
        .map_or(default, |line| {
            py_strip(line.rsplit('=').next().unwrap_or(""))
        })
        .to_owned()
}

/// A `vlcrc` setting (`key`, VLC's `default`) equal to `rules[rule_key]`.
fn check_setting(cx: &Cx<'_>, rule_key: &str, key: &str, default: &str) -> Result<f64, CheckError> {
    let text = config_text(cx)?;
    let want = expected_text(rule(cx, cx.rules()?, rule_key)?);
    let got = setting(&text, key, default);
    Ok(f64::from(u8::from(want.is_some_and(|w| w == got))))
}

/// `check_qt_bgcone`: `qt-bgcone` (default `1`) equals
/// `rules.expected_qt_bgcone`.
pub(super) fn check_qt_bgcone(cx: &Cx<'_>) -> Result<f64, CheckError> {
    check_setting(cx, "expected_qt_bgcone", "qt-bgcone=", "1")
}

/// `check_qt_max_volume`: `qt-max-volume` (default `125`) equals
/// `rules.expected_qt_max_volume`.
pub(super) fn check_qt_max_volume(cx: &Cx<'_>) -> Result<f64, CheckError> {
    check_setting(cx, "expected_qt_max_volume", "qt-max-volume=", "125")
}

/// `check_qt_minimal_view`: `qt-minimal-view` (default `0`) equals
/// `rules.expected_qt_minimal_view`.
pub(super) fn check_qt_minimal_view(cx: &Cx<'_>) -> Result<f64, CheckError> {
    check_setting(cx, "expected_qt_minimal_view", "qt-minimal-view=", "0")
}

/// `check_one_instance_when_started_from_file`: that setting (default
/// `1`) equals `rules.expected_one_instance_when_started_from_file`.
pub(super) fn check_one_instance_when_started_from_file(cx: &Cx<'_>) -> Result<f64, CheckError> {
    check_setting(
        cx,
        "expected_one_instance_when_started_from_file",
        "one-instance-when-started-from-file=",
        "1",
    )
}

/// `check_global_key_play_pause`: whether a global play/pause key is set
/// (`1` when the last `global-key-play-pause=` line has a value, `0`
/// when it is empty or there is none) equals
/// `rules.expected_global_key_play_pause`.
pub(super) fn check_global_key_play_pause(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let text = config_text(cx)?;
    let want = expected_text(rule(cx, cx.rules()?, "expected_global_key_play_pause")?);
    let set = setting(&text, "global-key-play-pause=", "");
    let got = if set.is_empty() { "0" } else { "1" };
    Ok(f64::from(u8::from(want.is_some_and(|w| w == got))))
}

/// Python's `int()` of a string: surrounding whitespace, a sign, ASCII
/// digits with single underscores between them.
pub(super) fn py_int(s: &str) -> Option<i64> {
    let s = py_strip(s);
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    let ok = !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.chars().all(|c| c.is_ascii_digit() || c == '_');
    if !ok {
        return None;
    }
    let v: i64 = digits.replace('_', "").parse().ok()?;
    Some(if s.starts_with('-') { -v } else { v })
}

/// `check_qt_slider_colours`: the last line containing
/// `qt-slider-colours` (with or without `=`; default VLC's colours) with
/// `rules.type` `match` equals `rules.expected_qt_slider_colours`; with
/// `blackish`, every whole `r;g;b` triple of its `;`-separated integers
/// has all three below 100. A value that is not integers, a missing rule
/// key or another type scores 0 (OSWorld's function catches the error, or
/// returns no score).
pub(super) fn check_qt_slider_colours(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let text = config_text(cx)?;
    let rules = cx.rules()?;
    let colours = setting(
        &text,
        "qt-slider-colours",
        "153;210;153;20;210;20;255;199;15;245;39;29",
    );
    let passed = match rules.get("type").and_then(Value::as_str) {
        Some("match") => rules
            .get("expected_qt_slider_colours")
            .is_some_and(|v| v.as_str() == Some(colours.as_str())),
        Some("blackish") => {
            let Some(values) = colours.split(';').map(py_int).collect::<Option<Vec<_>>>() else {
                return Ok(0.0);
            };
            values
                .chunks_exact(3)
                .all(|rgb| rgb.iter().all(|&v| v < 100))
        }
        _ => false,
    };
    Ok(f64::from(u8::from(passed)))
}

/// `is_vlc_recordings_folder`: the first line (not a comment, not blank)
/// containing `input-record-path` has, after its last `=`, exactly
/// `rules.recording_file_path`; no such line scores 0.
pub(super) fn is_vlc_recordings_folder(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let text = config_text(cx)?;
    let want = rule(cx, cx.rules()?, "recording_file_path")?;
    let line = text
        .split('\n')
        .filter(|l| !l.starts_with('#') && !py_strip(l).is_empty())
        .find(|l| l.contains("input-record-path"));
    let passed = line.is_some_and(|l| {
        let current = py_strip(l.rsplit('=').next().unwrap_or(""));
        want.as_str() == Some(current)
    });
    Ok(f64::from(u8::from(passed)))
}

/// `is_vlc_fullscreen`: the window's `width` and `height` equal the
/// screen's (result and expected are both `{width, height}` objects; a
/// missing key is refused, as OSWorld's function raises).
pub(super) fn is_vlc_fullscreen(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let (Some(super::Got::Json(window)), Some(super::Got::Json(screen))) =
        (Some(cx.result), cx.expected)
    else {
        return Err(cx.bad("the window and screen sizes must be JSON objects"));
    };
    let get = |v: &Value, key: &str| {
        v.as_object()
            .and_then(|o| o.get(key))
            .cloned()
            .ok_or_else(|| cx.bad(format!("a size without {key:?}")))
    };
    let same = py_eq(&get(window, "width")?, &get(screen, "width")?)
        && py_eq(&get(window, "height")?, &get(screen, "height")?);
    Ok(f64::from(u8::from(same)))
}

/// An element's name is `name`, without a namespace (ElementTree's tag).
fn is(node: &Node<'_, '_>, name: &str) -> bool {
    node.is_element() && node.tag_name().name() == name && node.tag_name().namespace().is_none()
}

/// ElementTree's `.text`: the character data before the first child
/// element (comments and processing instructions dropped); `None` when
/// there is none.
fn et_text(node: &Node<'_, '_>) -> Option<String> {
    let mut text = String::new();
    for child in node.children() {
        if child.is_element() {
            break;
        }
        if let Some(t) = child.text()
            && child.is_text()
        {
            text.push_str(t);
        }
    }
    (!text.is_empty()).then_some(text)
}

/// ElementTree's `root.find("information/category[@name=C]/info[@name=I]")`
/// text, when the element exists and has text.
fn info(root: &Node<'_, '_>, category: &str, name: &str) -> Option<String> {
    let named = |n: &Node<'_, '_>, v: &str| n.attribute("name") == Some(v);
    root.children()
        .filter(|n| is(n, "information"))
        .flat_map(|i| i.children())
        .filter(|c| is(c, "category") && named(c, category))
        .flat_map(|c| c.children())
        .find(|n| is(n, "info") && named(n, name))
        .and_then(|n| et_text(&n))
}

/// The text of the first of `paths` (category, info name) whose first
/// element has text (ElementTree's `find`, then `.text`).
fn first_info(root: &Node<'_, '_>, paths: &[(&str, &str)]) -> Option<String> {
    paths.iter().find_map(|(c, n)| info(root, c, n))
}

/// `is_vlc_playing`: VLC's `status.xml` has `<state>playing</state>` and,
/// with `rules.type` `file_name`, the first of the meta `filename`,
/// `title`, `uri`, `location`, `name` with text has `rules.file_name` as
/// its last path component or ends with it; with `url`, the first of the
/// meta `url`, `URI`, `location`, `title`, `filename` or Stream 0's
/// `Codec`, `Type`, `Language` with text contains `rules.url`, or is the
/// last component of its path, or (being a URL itself) has its host and
/// contains its path. XML that does not parse, or without `<state>`, is
/// refused.
pub(super) fn is_vlc_playing(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let text = config_text(cx)?;
    let rules = cx.rules()?;
    let doc = roxmltree::Document::parse(&text)
        .map_err(|e| cx.bad_because("the status is not XML", e))?;
    let root = doc.root_element();
    let state = root
        .children()
        .find(|n| is(n, "state"))
        .ok_or_else(|| cx.bad("the status has no <state>"))?;
    if et_text(&state).as_deref() != Some("playing") {
        return Ok(0.0);
    }
    let kind = rule(cx, rules, "type")?;
    let passed = match kind.as_str() {
        Some("file_name") => {
            const PATHS: &[(&str, &str)] = &[
                ("meta", "filename"),
                ("meta", "title"),
                ("meta", "uri"),
                ("meta", "location"),
                ("meta", "name"),
            ];
            let Some(info) = first_info(&root, PATHS) else {
                return Ok(0.0);
            };
            let want = rule(cx, rules, "file_name")?;
            let base = info.rsplit('/').next().unwrap_or("");
            if want.as_str() == Some(base) {
                true
            } else {
                let want = want
                    .as_str()
                    .ok_or_else(|| cx.bad("rules.file_name must be a string"))?;
                info.ends_with(want)
            }
        }
        Some("url") => {
            const PATHS: &[(&str, &str)] = &[
                ("meta", "url"),
                ("meta", "URI"),
                ("meta", "location"),
                ("meta", "title"),
                ("meta", "filename"),
                ("Stream 0", "Codec"),
                ("Stream 0", "Type"),
                ("Stream 0", "Language"),
            ];
            let Some(info) = first_info(&root, PATHS) else {
                return Ok(0.0);
            };
            let want = rule(cx, rules, "url")?
                .as_str()
                .ok_or_else(|| cx.bad("rules.url must be a string"))?;
            info.contains(want) || url_matches(&info, want)
        }
        _ => false,
    };
    Ok(f64::from(u8::from(passed)))
}

/// `is_vlc_playing`'s URL fallbacks: `info` is the last component of the
/// expected URL's path, or a URL on the same host whose path contains the
/// expected path (an unparsable URL matches nothing).
fn url_matches(info: &str, want: &str) -> bool {
    let Ok(expected) = urlparse(want) else {
        return false;
    };
    if info == expected.path.rsplit('/').next().unwrap_or("") {
        return true;
    }
    if !info.contains("://") {
        return false;
    }
    urlparse(info).is_ok_and(|actual| {
        expected.netloc == actual.netloc && actual.path.contains(&expected.path)
    })
}
