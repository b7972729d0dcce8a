//! Checkers over strings and text files (OSWorld `general.py`, `vscode.py`,
//! `basic_os.py`, `table.compare_csv`).

use regex::Regex;
use serde_json::Value;

use super::similarity::{indel_ratio, py_splitlines, sequence_ratio};
use super::{
    CheckError, Cx, Got, got_text, py_contains, py_eq, py_str, read_text, same_names, string_list,
};

/// `exact_match`: the result equals `rules.expected` (text compares as a
/// string; JSON by value).
pub(super) fn exact_match(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let expected = cx.rule_expected()?;
    Ok(cx.result_value().is_some_and(|r| py_eq(&r, expected)))
}

/// `compare_answer`: as `exact_match`, and an empty result never passes.
pub(super) fn compare_answer(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let expected = cx.rule_expected()?;
    Ok(cx
        .result_value()
        .is_some_and(|r| r != Value::String(String::new()) && py_eq(&r, expected)))
}

/// `compare_config`: the result file's text equals `rules.expected`.
pub(super) fn compare_config(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let expected = cx.rule_expected()?;
    Ok(cx
        .result_text()
        .is_some_and(|t| expected.as_str() == Some(t.as_str())))
}

/// `check_include_exclude`: every `rules.include` string is in the result and
/// no `rules.exclude` string is.
pub(super) fn check_include_exclude(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let include = cx.rule_strings("include")?;
    let exclude = cx.rule_strings("exclude")?;
    let Some(result) = cx.result_value() else {
        return Ok(false);
    };
    let has = |s: &String| py_contains(&result, &Value::String(s.clone()));
    Ok(include.iter().all(has) && !exclude.iter().any(has))
}

/// `is_in_list`: `rules.expected` is in the result (substring, or list member).
pub(super) fn is_in_list(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let expected = cx.rule_expected()?;
    Ok(cx.result_value().is_some_and(|r| py_contains(&r, expected)))
}

/// `fuzzy_match`: rapidfuzz `ratio(result, rules.expected) / 100`.
pub(super) fn fuzzy_match(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let expected = cx.rule_expected()?;
    let expected = expected
        .as_str()
        .ok_or_else(|| cx.bad("rules.expected must be a string"))?;
    Ok(match cx.result_value() {
        Some(Value::String(r)) => indel_ratio(&r, expected),
        _ => 0.0,
    })
}

/// `literal_match`: `str(result) == str(expected)` (option `type: "str"`,
/// the default) or element-wise for two equally long lists (`type: "list"`);
/// option `ignore_case`.
pub(super) fn literal_match(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let ignore_case = cx.opt_bool("ignore_case", false)?;
    let kind = match cx.options.get("type") {
        None | Some(Value::Null) => "str",
        Some(Value::String(s)) => s.as_str(),
        Some(other) => return Err(cx.bad(format!("option type must be a string, got {other}"))),
    };
    let norm = |v: &Value| {
        let s = py_str(v);
        if ignore_case { s.to_lowercase() } else { s }
    };
    let expected = cx
        .expected
        .and_then(super::got_value)
        .ok_or_else(|| cx.bad("expected is missing"))?;
    let result = cx.result_value();
    match kind {
        "str" => Ok(result.is_some_and(|r| norm(&r) == norm(&expected))),
        "list" => Ok(match (result, &expected) {
            (Some(Value::Array(r)), Value::Array(e)) => {
                r.len() == e.len() && r.iter().zip(e).all(|(x, y)| norm(x) == norm(y))
            }
            _ => false,
        }),
        other => Err(cx.bad(format!("type {other:?} is not supported (str, list)"))),
    }
}

/// `diff_text_file`: `difflib.SequenceMatcher` ratio between the two files'
/// lines.
pub(super) fn diff_text_file(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let expected = cx.expected_text()?;
    let Some(result) = cx.result_text() else {
        return Ok(0.0);
    };
    Ok(sequence_ratio(
        &py_splitlines(&result),
        &py_splitlines(&expected),
    ))
}

/// Tabs and newlines to spaces, trimmed, whitespace runs collapsed.
fn squash_blanks(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `compare_text_file`: the two files' texts are equal; options
/// `ignore_blanks` (whitespace runs count as one space, ends trimmed) and
/// `ignore_case`.
pub(super) fn compare_text_file(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let ignore_blanks = cx.opt_bool("ignore_blanks", false)?;
    let ignore_case = cx.opt_bool("ignore_case", false)?;
    let expected = cx.expected_text()?;
    let Some(result) = cx.result_text() else {
        return Ok(false);
    };
    let norm = |s: &str| {
        let s = if ignore_blanks {
            squash_blanks(s)
        } else {
            s.to_owned()
        };
        if ignore_case { s.to_lowercase() } else { s }
    };
    Ok(norm(&result) == norm(&expected))
}

/// `compare_csv`: the two files' lines are equal (with a list of expected
/// files, any one's); options `strict` (default true; false trims each
/// line) and `ignore_case`.
pub(super) fn compare_csv(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let strict = cx.opt_bool("strict", true)?;
    let ignore_case = cx.opt_bool("ignore_case", false)?;
    // Several expected files (a list of paths): any may match; one that
    // cannot be read is skipped, as in OSWorld's.
    let expected: Vec<String> = match cx.expected {
        Some(Got::Json(Value::Array(paths))) => paths
            .iter()
            .map(|p| {
                p.as_str()
                    .ok_or_else(|| cx.bad("expected files must be paths"))
                    .map(|p| read_text(std::path::Path::new(p)))
            })
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .collect(),
        _ => vec![cx.expected_text()?],
    };
    let Some(result) = cx.result_text() else {
        return Ok(false);
    };
    let lines = |s: &str| -> Vec<String> {
        py_splitlines(s)
            .into_iter()
            .map(|l| {
                let l = if strict { l } else { l.trim() };
                if ignore_case {
                    l.to_lowercase()
                } else {
                    l.to_owned()
                }
            })
            .collect()
    };
    let got = lines(&result);
    Ok(expected.iter().any(|e| lines(e) == got))
}

/// `compare_python_pure_text`: the two files are equal once all whitespace
/// is removed.
pub(super) fn compare_python_pure_text(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let expected = cx.expected_text()?;
    let strip = |s: &str| s.split_whitespace().collect::<String>();
    Ok(cx
        .result_text()
        .is_some_and(|r| strip(&r) == strip(&expected)))
}

/// `compare_terminal_and_txt`: the result file's text equals the expected
/// command output exactly; an empty output never passes.
pub(super) fn compare_terminal_and_txt(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let expected = cx.expected_text()?;
    Ok(!expected.is_empty() && cx.result_text().is_some_and(|r| r == expected))
}

/// `file_contains`: every string of `rules.expected` occurs in the result file.
pub(super) fn file_contains(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let expected = cx.rule_expected()?;
    let needles =
        string_list(expected).ok_or_else(|| cx.bad("rules.expected must be a list of strings"))?;
    Ok(cx
        .result_text()
        .is_some_and(|t| needles.iter().all(|n| t.contains(n.as_str()))))
}

/// `check_line_number`: the number of lines holding a `HH:MM:SS` time equals
/// `rules.expected` (an integer or a string of one).
pub(super) fn check_line_number(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let expected = cx.rule_expected()?;
    let want = match expected {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    }
    .ok_or_else(|| cx.bad("rules.expected must be a non-negative integer"))?;
    let time = Regex::new(r"([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)")
        .map_err(|e| cx.bad_because("the time pattern", e))?;
    Ok(cx.result_text().is_some_and(|t| {
        t.split_inclusive('\n').filter(|l| time.is_match(l)).count() as u64 == want
    }))
}

/// Compiles a Python-style pattern for `re.search`; a pattern Rust's regex
/// engine cannot take (look-around, back-references) is a bad rule.
pub(super) fn compile(cx: &Cx<'_>, pattern: &str) -> Result<Pattern, CheckError> {
    match Regex::new(pattern) {
        Ok(re) => Ok(Pattern::Plain(re)),
        // Look-around and back-references, which Python's `re` has and the
        // `regex` crate does not.
        Err(e) => match fancy_regex::Regex::new(pattern) {
            Ok(re) => Ok(Pattern::Fancy(re)),
            Err(_) => Err(cx.bad_because(format!("regex {pattern:?} does not compile"), e)),
        },
    }
}

/// One of ufo's own patterns (never a task's): `regex` only.
pub(super) fn compile_plain(cx: &Cx<'_>, pattern: &str) -> Result<Regex, CheckError> {
    Regex::new(pattern)
        .map_err(|e| cx.bad_because(format!("regex {pattern:?} does not compile"), e))
}

/// A task's regular expression, as Python's `re` reads it: compiled by
/// `regex` (linear time) when it can be, else by `fancy-regex`, which
/// backtracks for look-around and back-references.
pub(super) enum Pattern {
    /// A pattern `regex` takes.
    Plain(Regex),
    /// One that needs backtracking.
    Fancy(fancy_regex::Regex),
}

impl Pattern {
    /// Whether the pattern matches anywhere in `text` (`re.search`). A
    /// backtracking match that runs past `fancy-regex`'s step limit counts
    /// as no match.
    pub(super) fn is_match(&self, text: &str) -> bool {
        match self {
            Pattern::Plain(re) => re.is_match(text),
            Pattern::Fancy(re) => re.is_match(text).unwrap_or_else(|e| {
                tracing::warn!("regex {:?} gave up on a text: {e}", re.as_str());
                false
            }),
        }
    }
}

/// `check_list`: over the result file's lines, every `rules.expect` regex
/// matches some line and no `rules.unexpect` regex matches any line.
///
/// Lines are searched without their terminator (Python keeps it, but its
/// `$` also matches before a final newline).
pub(super) fn check_list(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let expect = cx
        .rule_strings("expect")?
        .iter()
        .map(|p| compile(cx, p))
        .collect::<Result<Vec<_>, _>>()?;
    let unexpect = cx
        .rule_strings("unexpect")?
        .iter()
        .map(|p| compile(cx, p))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(text) = cx.result_text() else {
        return Ok(false);
    };
    let lines: Vec<&str> = text
        .split_inclusive('\n')
        .map(|l| l.strip_suffix('\n').unwrap_or(l))
        .collect();
    let found = expect.iter().all(|r| lines.iter().any(|l| r.is_match(l)));
    let clean = !unexpect.iter().any(|r| lines.iter().any(|l| r.is_match(l)));
    Ok(found && clean)
}

/// `is_utc_0`: the fourth line of `timedatectl` output (the time zone) ends
/// with `+0000)`.
pub(super) fn is_utc_0(cx: &Cx<'_>) -> Result<bool, CheckError> {
    Ok(cx
        .result_text()
        .is_some_and(|t| t.split('\n').nth(3).is_some_and(|l| l.ends_with("+0000)"))))
}

/// `check_text_enlarged`: the result (a scaling factor) parses as a number
/// above 1.0.
pub(super) fn check_text_enlarged(cx: &Cx<'_>) -> Result<bool, CheckError> {
    Ok(cx
        .result_text()
        .and_then(|t| t.trim().parse::<f64>().ok())
        .is_some_and(|f| f > 1.0))
}

/// Items of a Python/GVariant string list such as `['a.desktop', "b"]` or
/// `@as []`; `None` when it is not one.
fn parse_str_list(text: &str) -> Option<Vec<String>> {
    let t = text.trim();
    let t = t.strip_prefix("@as").map(str::trim_start).unwrap_or(t);
    let inner = t.strip_prefix('[')?.strip_suffix(']')?;
    let mut items = Vec::new();
    let mut chars = inner.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace() || *c == ',') {
            chars.next();
        }
        let Some(quote) = chars.next() else {
            return Some(items);
        };
        if quote != '\'' && quote != '"' {
            return None;
        }
        let mut item = String::new();
        loop {
            match chars.next()? {
                '\\' => item.push(chars.next()?),
                c if c == quote => break,
                c => item.push(c),
            }
        }
        items.push(item);
    }
}

/// `check_gnome_favorite_apps`: the `gsettings` list of favourite apps holds
/// exactly the apps of `rules.expected`, in any order.
pub(super) fn check_gnome_favorite_apps(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let expected = cx.rule_expected()?;
    let mut want =
        string_list(expected).ok_or_else(|| cx.bad("rules.expected must be a list of strings"))?;
    let Some(mut got) = cx.result_text().as_deref().and_then(parse_str_list) else {
        return Ok(false);
    };
    Ok(same_names(&mut got, &mut want))
}

/// `is_in_vm_clickboard`: here `result` is the rules and `expected` the
/// clipboard text (OSWorld's argument order); `rules.expected` (a string, or
/// a list of strings that must all occur) is in the clipboard text.
pub(super) fn is_in_vm_clickboard(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let super::Got::Json(rules) = cx.result else {
        return Err(cx.bad("result must be the rules JSON"));
    };
    let want = rules
        .get("expected")
        .ok_or_else(|| cx.bad("rules have no \"expected\" entry"))?;
    let Some(clip) = cx.expected.and_then(got_text) else {
        return Ok(false);
    };
    match want {
        Value::String(s) => Ok(clip.contains(s.as_str())),
        Value::Array(_) => {
            let all = string_list(want)
                .ok_or_else(|| cx.bad("rules.expected must be a string or list of strings"))?;
            Ok(all.iter().all(|s| clip.contains(s.as_str())))
        }
        _ => Err(cx.bad("rules.expected must be a string or list of strings")),
    }
}

/// Python's `float()` of a string: white space around, underscores only
/// between digits, then Rust's parse (which, like Python, takes `inf`,
/// `nan`, exponents and a sign).
fn py_float(s: &str) -> Option<f64> {
    let t = s.trim_matches(super::py_space);
    let b = t.as_bytes();
    for (i, c) in b.iter().enumerate() {
        if *c == b'_' {
            let digit = |j: Option<usize>| j.and_then(|j| b.get(j)).is_some_and(u8::is_ascii_digit);
            if !digit(i.checked_sub(1)) || !digit(Some(i + 1)) {
                return None;
            }
        }
    }
    t.replace('_', "").parse().ok()
}

/// `compare_result_files`: the two files' stripped texts; when the
/// expected one is a number, the result scores 1 if it contains the
/// expected text or is a number within 1e-4 of it; otherwise they must be
/// equal. Files that cannot be read as UTF-8 are refused.
pub(super) fn compare_result_files(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let read = |g: Option<&Got>| -> Result<Option<String>, CheckError> {
        let path: std::path::PathBuf = match g {
            Some(Got::File(p)) => p.clone(),
            Some(Got::Text(t)) if !t.is_empty() => t.into(),
            _ => return Ok(None),
        };
        let bytes = std::fs::read(&path)
            .map_err(|e| cx.bad_because(format!("cannot read {}", path.display()), e))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| cx.bad_because(format!("{} is not UTF-8", path.display()), e))?;
        // Text mode: universal newlines.
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        Ok(Some(text.trim_matches(super::py_space).to_owned()))
    };
    let (Some(src), Some(tgt)) = (read(Some(cx.result))?, read(cx.expected)?) else {
        return Ok(0.0);
    };
    let Some(want) = py_float(&tgt) else {
        return Ok(f64::from(u8::from(src == tgt)));
    };
    if src.contains(&tgt) {
        return Ok(1.0);
    }
    let Some(got) = py_float(&src) else {
        return Ok(f64::from(u8::from(src == tgt)));
    };
    Ok(f64::from(u8::from((got - want).abs() < 1e-4)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn str_list_parsing() {
        assert_eq!(
            parse_str_list("['a.desktop', \"b\"]\n"),
            Some(vec!["a.desktop".to_owned(), "b".to_owned()])
        );
        assert_eq!(parse_str_list("@as []"), Some(vec![]));
        assert_eq!(parse_str_list("[a]"), None);
        assert_eq!(parse_str_list("['unterminated]"), None);
        assert_eq!(parse_str_list("nothing"), None);
    }

    #[test]
    fn blanks_squash_like_osworld() {
        assert_eq!(squash_blanks("  a\t\tb\n\nc  "), "a b c");
    }
}
