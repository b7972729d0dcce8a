//! Record and value checkers: CSV rows, JSON/YAML rules, JSON objects,
//! directory listings, string lists.

use serde_json::{Value, json};

use super::{assert_bad, file, rules, score, text};
use crate::checkers::Got;

#[test]
fn check_gnome_favorite_apps() {
    let e = rules(json!({"expected": ["google-chrome.desktop", "thunderbird.desktop"]}));
    let out = text("['thunderbird.desktop', 'google-chrome.desktop']\n");
    assert_eq!(
        score("check_gnome_favorite_apps", &out, Some(&e), Value::Null),
        1.0
    );
    let more = text("['thunderbird.desktop', 'google-chrome.desktop', 'vim.desktop']");
    assert_eq!(
        score("check_gnome_favorite_apps", &more, Some(&e), Value::Null),
        0.0
    );
    assert_eq!(
        score(
            "check_gnome_favorite_apps",
            &text("garbage"),
            Some(&e),
            Value::Null
        ),
        0.0
    );
    assert_bad(
        "check_gnome_favorite_apps",
        &out,
        Some(&rules(json!({"expected": "x"}))),
        Value::Null,
    );
}

#[test]
fn is_in_vm_clickboard() {
    let r = rules(json!({"expected": ["alpha", "beta"]}));
    assert_eq!(
        score(
            "is_in_vm_clickboard",
            &r,
            Some(&text("alpha beta gamma")),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score("is_in_vm_clickboard", &r, Some(&text("alpha")), Value::Null),
        0.0
    );
    let one = rules(json!({"expected": "gamma"}));
    assert_eq!(
        score(
            "is_in_vm_clickboard",
            &one,
            Some(&text("alpha beta gamma")),
            Value::Null
        ),
        1.0
    );
    assert_bad(
        "is_in_vm_clickboard",
        &rules(json!({"expected": 5})),
        Some(&text("5")),
        Value::Null,
    );
    assert_bad(
        "is_in_vm_clickboard",
        &text("alpha"),
        Some(&text("alpha")),
        Value::Null,
    );
}

#[test]
fn check_moved_jpgs() {
    let e = rules(json!({"expected": ["a.jpg", "b.jpg"]}));
    let listing =
        Got::Json(json!({"name": "dir", "children": [{"name": "b.jpg"}, {"name": "a.jpg"}]}));
    assert_eq!(
        score("check_moved_jpgs", &listing, Some(&e), Value::Null),
        1.0
    );
    let fewer = Got::Json(json!({"children": [{"name": "a.jpg"}]}));
    assert_eq!(
        score("check_moved_jpgs", &fewer, Some(&e), Value::Null),
        0.0
    );
    assert_eq!(
        score(
            "check_moved_jpgs",
            &text("a.jpg b.jpg"),
            Some(&e),
            Value::Null
        ),
        0.0
    );
    assert_bad(
        "check_moved_jpgs",
        &listing,
        Some(&rules(json!({"expected": "a.jpg"}))),
        Value::Null,
    );
}

#[test]
fn check_csv() {
    let dir = tempfile::tempdir().unwrap();
    let f = file(
        dir.path(),
        "accounts.csv",
        "url,user,password\nimap://x.com,me@x.com,\"p,w\"\nsmtp://x.com,me@x.com,pw\n",
    );
    let e = rules(json!({"expect": [
        {"url": "imap://x.com", "password": "p,w"},
        {"url": "smtp://x.com", "user": "me@x.com"}
    ], "unexpect": [{"user": "root"}]}));
    assert_eq!(score("check_csv", &f, Some(&e), Value::Null), 1.0);
    let missing = rules(json!({"expect": [{"url": "pop://x.com"}]}));
    assert_eq!(score("check_csv", &f, Some(&missing), Value::Null), 0.0);
    let unexpected = rules(json!({"unexpect": [{"url": "smtp://x.com"}]}));
    assert_eq!(score("check_csv", &f, Some(&unexpected), Value::Null), 0.0);
    let no_column = rules(json!({"expect": [{"port": "993"}]}));
    assert_eq!(score("check_csv", &f, Some(&no_column), Value::Null), 0.0);
    assert_bad(
        "check_csv",
        &f,
        Some(&rules(json!({"expect": ["url"]}))),
        Value::Null,
    );
    assert_bad(
        "check_csv",
        &f,
        Some(&rules(json!({"expect": {"url": "x"}}))),
        Value::Null,
    );
}

#[test]
fn check_json() {
    let dir = tempfile::tempdir().unwrap();
    let f = file(
        dir.path(),
        "settings.json",
        r#"{"editor": {"fontSize": 14, "theme": "Dark+"}, "files": ["a", "b"], "ver": "1.5", "tags": "\"x,y\""}"#,
    );
    let e = rules(json!({
        "expect": [
            {"key": ["editor", "fontSize"], "method": "eq", "ref": 14.0},
            {"key": ["editor", "theme"], "method": "re.I", "ref": "^dark"},
            {"key": ["files", 1], "method": "eq", "ref": "b"},
            {"key": ["files", -1], "method": "ne", "ref": "a"},
            {"key": ["ver"], "method": "approx:0.01", "ref": 1.5},
            {"key": ["editor", "fontSize"], "method": "range.te", "ref": [12, 14]},
            {"key": ["editor", "fontSize"], "method": "ge", "ref": 14},
            {"key": ["tags"], "method": "str_set_eq", "ref": ["y", "x"]}
        ],
        "unexpect": [
            {"key": ["editor", "wordWrap"], "method": "eq", "ref": "on"},
            {"key": ["editor", "fontSize"], "method": "lt", "ref": 10}
        ]
    }));
    assert_eq!(score("check_json", &f, Some(&e), Value::Null), 1.0);
    let wrong =
        rules(json!({"expect": [{"key": ["editor", "fontSize"], "method": "gt", "ref": 14}]}));
    assert_eq!(score("check_json", &f, Some(&wrong), Value::Null), 0.0);
    let absent = rules(json!({"expect": [{"key": ["nope"], "method": "eq", "ref": null}]}));
    assert_eq!(score("check_json", &f, Some(&absent), Value::Null), 0.0);
    let forbidden = rules(json!({"unexpect": [{"key": ["ver"], "method": "re", "ref": "^1\\."}]}));
    assert_eq!(score("check_json", &f, Some(&forbidden), Value::Null), 0.0);
    assert_eq!(
        score("check_json", &text("not json"), Some(&e), Value::Null),
        0.0
    );

    let yaml = file(
        dir.path(),
        "c.yaml",
        "server:\n  port: 8080\n  host: localhost\n",
    );
    let y = rules(json!({"expect": [{"key": ["server", "port"], "method": "eq", "ref": 8080}]}));
    assert_eq!(
        score("check_json", &yaml, Some(&y), json!({"is_yaml": true})),
        1.0
    );
    assert_eq!(score("check_json", &yaml, Some(&y), Value::Null), 0.0);

    let bad_method =
        rules(json!({"expect": [{"key": ["ver"], "method": "spreadsheet_range", "ref": []}]}));
    assert_bad("check_json", &f, Some(&bad_method), Value::Null);
    assert_bad(
        "check_json",
        &f,
        Some(&rules(json!({"expect": [{"method": "eq", "ref": 1}]}))),
        Value::Null,
    );
    assert_bad(
        "check_json",
        &f,
        Some(&rules(json!({"expect": [{"key": ["x"], "ref": 1}]}))),
        Value::Null,
    );
    let bad_range =
        rules(json!({"expect": [{"key": ["ver"], "method": "range.tx", "ref": [1, 2]}]}));
    assert_bad("check_json", &f, Some(&bad_range), Value::Null);
}

#[test]
fn check_direct_json_object() {
    let e = rules(json!({"expected": {"start": "SEA", "end": "NYC"}}));
    let r = Got::Json(json!({"start": "SEA", "end": "NYC", "extra": 1}));
    assert_eq!(
        score("check_direct_json_object", &r, Some(&e), Value::Null),
        1.0
    );
    let t = text(" {'start': 'SEA', 'end': 'NYC'} ");
    assert_eq!(
        score("check_direct_json_object", &t, Some(&e), Value::Null),
        1.0
    );
    let other = Got::Json(json!({"start": "SEA", "end": "LAX"}));
    assert_eq!(
        score("check_direct_json_object", &other, Some(&e), Value::Null),
        0.0
    );
    assert_eq!(
        score(
            "check_direct_json_object",
            &text("[1]"),
            Some(&e),
            Value::Null
        ),
        0.0
    );

    let inr =
        rules(json!({"expect_in_result": true, "expected": {"q": "rome", "tags": ["a", "z"]}}));
    let r = Got::Json(json!({"q": "hotels in rome", "tags": ["z"]}));
    assert_eq!(
        score("check_direct_json_object", &r, Some(&inr), Value::Null),
        1.0
    );
    let r = Got::Json(json!({"q": "hotels in paris", "tags": ["z"]}));
    assert_eq!(
        score("check_direct_json_object", &r, Some(&inr), Value::Null),
        0.0
    );
    // OSWorld's function catches what goes wrong inside the comparison
    // (here `"x".items()`) and scores 0; rules that are not an object it
    // cannot even read.
    assert_eq!(
        score(
            "check_direct_json_object",
            &r,
            Some(&rules(json!({"expected": "x"}))),
            Value::Null
        ),
        0.0
    );
    assert_bad(
        "check_direct_json_object",
        &r,
        Some(&rules(json!(["x"]))),
        Value::Null,
    );
}
