//! Tests of [`check`] for every supported checker: a passing case, a failing
//! case, a missing result and a badly shaped rule. The spreadsheet and
//! accessibility-tree checkers are tested in `tests/table.rs` and
//! `tests/a11y.rs`, the record and value checkers in `tests/structured.rs`, the text-file
//! checkers in `tests/text_files.rs`, settings in `tests/settings.rs`, documents in `tests/formats.rs`.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::*;

mod a11y;
mod formats;
mod settings;
mod structured;
mod table;
mod text_files;

pub(super) fn run(
    func: &str,
    result: &Got,
    expected: Option<&Got>,
    options: Value,
) -> Result<f64, CheckError> {
    let options: Map<String, Value> = match options {
        Value::Object(m) => m,
        Value::Null => Map::new(),
        other => panic!("options must be an object, got {other}"),
    };
    check(func, result, expected, &options)
}

pub(super) fn score(func: &str, result: &Got, expected: Option<&Got>, options: Value) -> f64 {
    run(func, result, expected, options).unwrap_or_else(|e| panic!("{func}: {e}"))
}

pub(super) fn assert_bad(func: &str, result: &Got, expected: Option<&Got>, options: Value) {
    match run(func, result, expected, options) {
        Err(CheckError::Bad { func: f, .. }) => assert_eq!(f, func),
        other => panic!("{func}: expected Bad, got {other:?}"),
    }
}

pub(super) fn text(s: &str) -> Got {
    Got::Text(s.to_owned())
}

pub(super) fn rules(v: Value) -> Got {
    Got::Json(v)
}

pub(super) fn file(dir: &Path, name: &str, content: &str) -> Got {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    Got::File(p)
}

pub(super) fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn unknown_checker_is_unsupported() {
    let err = run("no_such_metric", &text("x"), None, Value::Null).unwrap_err();
    assert!(matches!(err, CheckError::Unsupported(ref n) if n == "no_such_metric"));
    assert_eq!(
        err.to_string(),
        "checker \"no_such_metric\" is not supported"
    );
    // A function left out on purpose says why.
    let why = run("compare_audios", &text("x"), None, Value::Null).unwrap_err();
    assert!(why.to_string().contains("librosa"), "{why}");
    // Unsupported wins over a missing result.
    assert!(matches!(
        run("compare_audios", &Got::Missing, None, Value::Null),
        Err(CheckError::Unsupported(_))
    ));
}

#[test]
fn missing_result_or_expected_scores_zero_for_every_checker() {
    for func in SUPPORTED {
        let r = run(
            func,
            &Got::Missing,
            Some(&rules(json!({"expected": "x"}))),
            Value::Null,
        );
        assert_eq!(r.unwrap(), 0.0, "{func} with a missing result");
        let r = run(func, &text("x"), Some(&Got::Missing), Value::Null);
        assert_eq!(r.unwrap(), 0.0, "{func} with a missing expected");
    }
    assert!(
        SUPPORTED.windows(2).all(|w| w[0] < w[1]),
        "SUPPORTED is sorted and unique"
    );
}

#[test]
fn exact_match() {
    let e = rules(json!({"expected": "true"}));
    assert_eq!(
        score("exact_match", &text("true"), Some(&e), Value::Null),
        1.0
    );
    assert_eq!(
        score("exact_match", &text("true\n"), Some(&e), Value::Null),
        0.0
    );
    assert_eq!(
        score(
            "exact_match",
            &Got::Json(json!(3)),
            Some(&rules(json!({"expected": 3.0}))),
            Value::Null
        ),
        1.0
    );
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        score(
            "exact_match",
            &file(dir.path(), "a.txt", "true"),
            Some(&e),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(
            "exact_match",
            &Got::File(dir.path().join("none")),
            Some(&e),
            Value::Null
        ),
        0.0
    );
    assert_bad(
        "exact_match",
        &text("true"),
        Some(&rules(json!({"expect": "true"}))),
        Value::Null,
    );
    assert_bad(
        "exact_match",
        &text("true"),
        Some(&text("true")),
        Value::Null,
    );
    assert_bad("exact_match", &text("true"), None, Value::Null);
}

#[test]
fn compare_answer_and_config() {
    let e = rules(json!({"expected": "project"}));
    assert_eq!(
        score("compare_answer", &text("project"), Some(&e), Value::Null),
        1.0
    );
    assert_eq!(
        score("compare_answer", &text("Project"), Some(&e), Value::Null),
        0.0
    );
    assert_eq!(
        score(
            "compare_answer",
            &text(""),
            Some(&rules(json!({"expected": ""}))),
            Value::Null
        ),
        0.0
    );
    assert_bad(
        "compare_answer",
        &text("x"),
        Some(&rules(json!({}))),
        Value::Null,
    );
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        score(
            "compare_config",
            &file(dir.path(), "c", "project"),
            Some(&e),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(
            "compare_config",
            &file(dir.path(), "d", "project\n"),
            Some(&e),
            Value::Null
        ),
        0.0
    );
    assert_bad(
        "compare_config",
        &text("x"),
        Some(&rules(json!([]))),
        Value::Null,
    );
}

#[test]
fn check_include_exclude() {
    let e = rules(json!({"include": ["use terminal"], "exclude": ["error"]}));
    assert_eq!(
        score(
            "check_include_exclude",
            &text("I use terminal\n"),
            Some(&e),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(
            "check_include_exclude",
            &text("use no terminal"),
            Some(&e),
            Value::Null
        ),
        0.0
    );
    assert_eq!(
        score(
            "check_include_exclude",
            &text("use terminal; error"),
            Some(&e),
            Value::Null
        ),
        0.0
    );
    let list = Got::Json(json!(["use terminal", "other"]));
    assert_eq!(
        score("check_include_exclude", &list, Some(&e), Value::Null),
        1.0
    );
    // No rules at all: vacuously true, as in OSWorld.
    assert_eq!(
        score(
            "check_include_exclude",
            &text("x"),
            Some(&rules(json!({}))),
            Value::Null
        ),
        1.0
    );
    assert_bad(
        "check_include_exclude",
        &text("x"),
        Some(&rules(json!({"include": "x"}))),
        Value::Null,
    );
    assert_bad(
        "check_include_exclude",
        &text("x"),
        Some(&rules(json!(["x"]))),
        Value::Null,
    );
}

#[test]
fn is_in_list() {
    let e = rules(json!({"expected": "/home/user/ext"}));
    assert_eq!(
        score(
            "is_in_list",
            &Got::Json(json!(["/a", "/home/user/ext"])),
            Some(&e),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(
            "is_in_list",
            &text("paths: /home/user/ext, /b"),
            Some(&e),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(
            "is_in_list",
            &Got::Json(json!(["/a"])),
            Some(&e),
            Value::Null
        ),
        0.0
    );
    assert_bad(
        "is_in_list",
        &text("x"),
        Some(&rules(json!({"expect": "x"}))),
        Value::Null,
    );
}

#[test]
fn fuzzy_match() {
    let e = rules(json!({"expected": "this is a test"}));
    assert_eq!(
        score(
            "fuzzy_match",
            &text("this is a test"),
            Some(&e),
            Value::Null
        ),
        1.0
    );
    let s = score(
        "fuzzy_match",
        &text("this is a test!"),
        Some(&e),
        Value::Null,
    );
    assert!(close(s, 28.0 / 29.0), "{s}");
    assert_eq!(
        score("fuzzy_match", &text("zzz"), Some(&e), Value::Null),
        0.0
    );
    assert_bad(
        "fuzzy_match",
        &text("x"),
        Some(&rules(json!({"expected": 1}))),
        Value::Null,
    );
}

#[test]
fn literal_match() {
    let opts = json!({"type": "list", "ignore_case": true});
    let e = Got::Json(json!(["Alice", 12]));
    assert_eq!(
        score(
            "literal_match",
            &Got::Json(json!(["alice", "12"])),
            Some(&e),
            opts.clone()
        ),
        1.0
    );
    assert_eq!(
        score(
            "literal_match",
            &Got::Json(json!(["alice"])),
            Some(&e),
            opts.clone()
        ),
        0.0
    );
    assert_eq!(score("literal_match", &text("alice"), Some(&e), opts), 0.0);
    assert_eq!(
        score("literal_match", &text("Hi"), Some(&text("Hi")), Value::Null),
        1.0
    );
    assert_eq!(
        score("literal_match", &text("hi"), Some(&text("Hi")), Value::Null),
        0.0
    );
    assert_eq!(
        score(
            "literal_match",
            &text("hi"),
            Some(&text("Hi")),
            json!({"ignore_case": true})
        ),
        1.0
    );
    assert_bad(
        "literal_match",
        &text("x"),
        Some(&text("x")),
        json!({"type": "set"}),
    );
    assert_bad(
        "literal_match",
        &text("x"),
        Some(&text("x")),
        json!({"ignore_case": "yes"}),
    );
}

#[test]
fn is_utc_0_and_text_enlarged() {
    let utc = "      Local time: Thu 2024-01-25 12:56:06 WET\n  Universal time: Thu 2024-01-25 12:56:06 UTC\n        RTC time: Thu 2024-01-25 12:56:05\n       Time zone: Atlantic/Faroe (WET, +0000)\nNTP service: inactive\n";
    assert_eq!(score("is_utc_0", &text(utc), None, Value::Null), 1.0);
    assert_eq!(
        score(
            "is_utc_0",
            &text(&utc.replace("+0000", "+0100")),
            None,
            Value::Null
        ),
        0.0
    );
    assert_eq!(score("is_utc_0", &text("short"), None, Value::Null), 0.0);

    assert_eq!(
        score("check_text_enlarged", &text("1.25\n"), None, Value::Null),
        1.0
    );
    assert_eq!(
        score("check_text_enlarged", &text("1.0"), None, Value::Null),
        0.0
    );
    assert_eq!(
        score("check_text_enlarged", &text("oops"), None, Value::Null),
        0.0
    );
    // These two take no rules; an odd `expected` is ignored, not an error.
    assert_eq!(
        score(
            "check_text_enlarged",
            &text("2"),
            Some(&rules(json!(1))),
            Value::Null
        ),
        1.0
    );
}

#[test]
fn python_value_helpers() {
    assert_eq!(py_float_repr(3.0), "3.0");
    assert_eq!(py_float_repr(0.1), "0.1");
    assert_eq!(py_float_repr(1e16), "1e+16");
    assert_eq!(py_float_repr(1.5e-5), "1.5e-05");
    assert_eq!(py_float_repr(123456789012345.6), "123456789012345.6");
    assert_eq!(py_float_repr(-0.0001), "-0.0001");
    assert!(py_eq(&json!(1), &json!(1.0)));
    assert!(py_eq(&json!({"a": [1, "x"]}), &json!({"a": [1.0, "x"]})));
    assert!(!py_eq(&json!("1"), &json!(1)));
    assert_eq!(py_str(&json!(true)), "True");
    assert_eq!(py_str(&json!(null)), "None");
    assert_eq!(py_str(&json!(2.5)), "2.5");
}

#[test]
fn odt_pairs_odfpy_cannot_load_score_0() {
    let dir = tempfile::tempdir().unwrap();
    let a = file(dir.path(), "a.odt", "x");
    let b = file(dir.path(), "b.odt", "x");
    assert_eq!(score("compare_docx_files", &a, Some(&b), Value::Null), 0.0);
    assert_eq!(
        score("check_highlighted_words", &a, Some(&b), Value::Null),
        0.0
    );
}
