//! Checkers over text files: line diffs, whole-file comparisons, line
//! regexes, substrings.

use serde_json::{Value, json};

use super::{assert_bad, close, file, rules, run, score, text};
use crate::checkers::Got;

#[test]
fn diff_text_file() {
    let dir = tempfile::tempdir().unwrap();
    let gold = file(dir.path(), "gold.js", "a\nb\nc\nd\n");
    assert_eq!(
        score(
            "diff_text_file",
            &file(dir.path(), "r1.js", "a\r\nb\nc\nd"),
            Some(&gold),
            Value::Null
        ),
        1.0
    );
    let s = score(
        "diff_text_file",
        &file(dir.path(), "r2.js", "a\nb\nx\nd\n"),
        Some(&gold),
        Value::Null,
    );
    assert!(close(s, 0.75), "{s}");
    assert_eq!(
        score(
            "diff_text_file",
            &file(dir.path(), "r3.js", "q\n"),
            Some(&gold),
            Value::Null
        ),
        0.0
    );
    assert_bad(
        "diff_text_file",
        &text("a"),
        Some(&Got::File(dir.path().join("absent"))),
        Value::Null,
    );
    assert_bad(
        "diff_text_file",
        &text("a"),
        Some(&rules(json!({}))),
        Value::Null,
    );
}

#[test]
fn compare_text_file() {
    let dir = tempfile::tempdir().unwrap();
    let gold = file(dir.path(), "gold.txt", "Hello  World\n");
    let r = file(dir.path(), "r.txt", "Hello  World\n");
    assert_eq!(
        score("compare_text_file", &r, Some(&gold), Value::Null),
        1.0
    );
    let spaced = file(dir.path(), "s.txt", "\thello\nworld  ");
    assert_eq!(
        score("compare_text_file", &spaced, Some(&gold), Value::Null),
        0.0
    );
    assert_eq!(
        score(
            "compare_text_file",
            &spaced,
            Some(&gold),
            json!({"ignore_blanks": true})
        ),
        0.0
    );
    let both = json!({"ignore_blanks": true, "ignore_case": true});
    assert_eq!(score("compare_text_file", &spaced, Some(&gold), both), 1.0);
    assert_eq!(
        score(
            "compare_text_file",
            &Got::File(dir.path().join("nope")),
            Some(&gold),
            Value::Null
        ),
        0.0
    );
    assert_bad(
        "compare_text_file",
        &r,
        Some(&gold),
        json!({"ignore_case": 1}),
    );
}

#[test]
fn compare_csv_and_pure_text() {
    let dir = tempfile::tempdir().unwrap();
    let gold = file(dir.path(), "gold.csv", "a,b\n1,2\n");
    assert_eq!(
        score(
            "compare_csv",
            &file(dir.path(), "r.csv", "a,b\r\n1,2"),
            Some(&gold),
            Value::Null
        ),
        1.0
    );
    let loose = file(dir.path(), "l.csv", " A,B \n1,2\n");
    assert_eq!(score("compare_csv", &loose, Some(&gold), Value::Null), 0.0);
    assert_eq!(
        score(
            "compare_csv",
            &loose,
            Some(&gold),
            json!({"strict": false, "ignore_case": true})
        ),
        1.0
    );
    assert_bad("compare_csv", &loose, Some(&gold), json!({"strict": "no"}));

    let py = file(dir.path(), "gold.py", "def f():\n    return 1\n");
    let r = file(dir.path(), "r.py", "def f():\n\treturn 1");
    assert_eq!(
        score("compare_python_pure_text", &r, Some(&py), Value::Null),
        1.0
    );
    let r2 = file(dir.path(), "r2.py", "def f(): return 2");
    assert_eq!(
        score("compare_python_pure_text", &r2, Some(&py), Value::Null),
        0.0
    );
    assert_bad(
        "compare_python_pure_text",
        &r2,
        Some(&rules(json!({"x": 1}))),
        Value::Null,
    );
}

#[test]
fn compare_terminal_and_txt() {
    let dir = tempfile::tempdir().unwrap();
    let f = file(dir.path(), "out.txt", "total 0\n");
    assert_eq!(
        score(
            "compare_terminal_and_txt",
            &f,
            Some(&text("total 0\n")),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(
            "compare_terminal_and_txt",
            &f,
            Some(&text("total 0")),
            Value::Null
        ),
        0.0
    );
    assert_eq!(
        score("compare_terminal_and_txt", &f, Some(&text("")), Value::Null),
        0.0
    );
    assert_bad(
        "compare_terminal_and_txt",
        &f,
        Some(&rules(json!([]))),
        Value::Null,
    );
}

#[test]
fn file_contains_and_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let report = "Linux\n12:00:01 CPU %user\n12:00:02 all 1.0\nAverage\n";
    let f = file(dir.path(), "r.txt", report);
    let e = rules(json!({"expected": ["CPU", "%user"]}));
    assert_eq!(score("file_contains", &f, Some(&e), Value::Null), 1.0);
    assert_eq!(
        score(
            "file_contains",
            &f,
            Some(&rules(json!({"expected": ["%steal"]}))),
            Value::Null
        ),
        0.0
    );
    assert_bad(
        "file_contains",
        &f,
        Some(&rules(json!({"expected": "CPU"}))),
        Value::Null,
    );

    assert_eq!(
        score(
            "check_line_number",
            &f,
            Some(&rules(json!({"expected": "2"}))),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(
            "check_line_number",
            &f,
            Some(&rules(json!({"expected": 2}))),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(
            "check_line_number",
            &f,
            Some(&rules(json!({"expected": "3"}))),
            Value::Null
        ),
        0.0
    );
    assert_bad(
        "check_line_number",
        &f,
        Some(&rules(json!({"expected": "many"}))),
        Value::Null,
    );
}

#[test]
fn check_list() {
    let dir = tempfile::tempdir().unwrap();
    let f = file(dir.path(), "gsettings.out", "'Orchis'\n'Adwaita-dark'\n");
    let e = rules(json!({"expect": ["Orchis", "^'Adwaita-dark'$"], "unexpect": ["Yaru"]}));
    assert_eq!(score("check_list", &f, Some(&e), Value::Null), 1.0);
    assert_eq!(
        score(
            "check_list",
            &text("'Yaru'\n'Orchis'\n'Adwaita-dark'"),
            Some(&e),
            Value::Null
        ),
        0.0
    );
    assert_eq!(
        score("check_list", &text("'Adwaita-dark'"), Some(&e), Value::Null),
        0.0
    );
    assert_bad(
        "check_list",
        &f,
        Some(&rules(json!({"expect": ["(unclosed"]}))),
        Value::Null,
    );
    assert_bad(
        "check_list",
        &f,
        Some(&rules(json!({"expect": "Orchis"}))),
        Value::Null,
    );
    // A pattern that does not compile: the regex engine's error is the cause.
    let e = run(
        "check_list",
        &f,
        Some(&rules(json!({"expect": ["(unclosed"]}))),
        Value::Null,
    )
    .unwrap_err();
    let pattern = String::from("(unclosed");
    let cause = regex::Regex::new(&pattern).unwrap_err();
    assert_eq!(
        ufo_core::render(&e),
        format!(
            "error[ufo::eval::bad_checker_input]: check_list: regex \"(unclosed\" does not compile\n  \
             caused by: {cause}\n  \
             help: fix the task's evaluator (`expected`, `options`, the rules) so that the checker gets what it takes"
        )
    );
}
