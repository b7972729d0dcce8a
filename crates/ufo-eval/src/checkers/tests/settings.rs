//! Settings and browser checkers without OSWorld at hand (the differential
//! suite, `tests/parity.rs`, compares them with OSWorld's own): a passing
//! case, a failing one and a bad rule each.

use serde_json::{Value, json};

use super::{assert_bad, file, rules, score, text};

#[test]
fn settings_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let settings = file(
        d,
        "settings.json",
        r#"{"editor.fontSize": 14.0, "x": true}"#,
    );
    let want = |e: Value| rules(json!({ "expected": e }));
    let f = "check_json_settings";
    assert_eq!(
        score(
            f,
            &settings,
            Some(&want(json!({"editor.fontSize": 14}))),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(f, &settings, Some(&want(json!({"x": 1}))), Value::Null),
        1.0
    );
    assert_eq!(
        score(f, &settings, Some(&want(json!({"y": 1}))), Value::Null),
        0.0
    );
    assert_bad(f, &settings, Some(&want(json!(["x"]))), Value::Null);

    let keys = file(d, "keybindings.json", "// comment\n[{\"key\": \"f5\"}]");
    let f = "check_json_keybindings";
    assert_eq!(
        score(f, &keys, Some(&want(json!({"key": "f5"}))), Value::Null),
        1.0
    );
    assert_eq!(
        score(f, &keys, Some(&want(json!({"key": "f6"}))), Value::Null),
        0.0
    );
    assert_bad(f, &keys, Some(&rules(json!({}))), Value::Null);

    let gimprc = file(
        d,
        "gimprc",
        "# c\n(theme \"Dark\")\n(default-view (show-menubar yes))\n",
    );
    let f = "check_config_status";
    let rule = |k: Value, v: &str| rules(json!({"key": k, "value": v}));
    assert_eq!(
        score(
            f,
            &gimprc,
            Some(&rule(json!("theme"), "\"Dark\"")),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(
            f,
            &gimprc,
            Some(&rule(json!(["default-view", "(show-menubar"]), "yes")),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(
            f,
            &gimprc,
            Some(&rule(json!("theme"), "Light")),
            Value::Null
        ),
        0.0
    );
    let blank = file(d, "blank", "  \n(theme Dark)\n");
    assert_bad(f, &blank, Some(&rule(json!("theme"), "Dark")), Value::Null);

    let prefs = file(
        d,
        "prefs.js",
        "user_pref(\"mail.spellcheck.inline\", false);\n",
    );
    let f = "check_thunderbird_prefs";
    let off = json!({"method": "eq", "ref": false});
    assert_eq!(
        score(
            f,
            &prefs,
            Some(&rules(json!({"expect": {"mail.spellcheck.inline": off}}))),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(
            f,
            &prefs,
            Some(&rules(json!({"unexpect": {"mail.spellcheck.inline": off}}))),
            Value::Null
        ),
        0.0
    );
    let broken = file(d, "broken.js", "user_pref(\"a\", nope);\n");
    assert_bad(f, &broken, Some(&rules(json!({}))), Value::Null);

    let f = "is_extension_installed";
    let list = text("ms-python.python\nesbenp.prettier-vscode\n");
    let ext = |t: &str, e: &str| rules(json!({"type": t, "expected": e}));
    assert_eq!(
        score(
            f,
            &list,
            Some(&ext("contain", "ms-python.python")),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(f, &list, Some(&ext("not_contain", "prettier")), Value::Null),
        0.0
    );
    assert_bad(f, &list, Some(&ext("equal", "x")), Value::Null);
}

#[test]
fn browser_tabs_and_urls() {
    let tab = |u: &str| rules(json!({"title": "t", "url": u}));
    let f = "is_expected_active_tab";
    let rule = rules(json!({"type": "url", "url": "https://www.airbnb.com/"}));
    assert_eq!(
        score(f, &tab("https://airbnb.com.sg"), Some(&rule), Value::Null),
        1.0
    );
    assert_eq!(
        score(f, &tab("https://booking.com"), Some(&rule), Value::Null),
        0.0
    );
    assert_bad(f, &tab("x"), Some(&rules(json!({"url": "x"}))), Value::Null);

    let f = "is_expected_url_pattern_match";
    let pats = rules(json!({"expected": ["^https://", "q=\\d+"]}));
    assert_eq!(
        score(f, &text("https://a.com/?q=12"), Some(&pats), Value::Null),
        1.0
    );
    assert_eq!(
        score(f, &text("http://a.com/?q=12"), Some(&pats), Value::Null),
        0.0
    );
    assert_bad(
        f,
        &text("x"),
        Some(&rules(json!({"expected": ["("]}))),
        Value::Null,
    );

    let f = "is_expected_tabs";
    let open = rules(json!([{"url": "https://a.com"}, {"url": "b.com/"}]));
    let want = |u: Value| rules(json!({"type": "url", "urls": u}));
    assert_eq!(
        score(
            f,
            &open,
            Some(&want(json!(["http://b.com", "https://a.com/"]))),
            Value::Null
        ),
        1.0
    );
    assert_eq!(
        score(f, &open, Some(&want(json!(["a.com"]))), Value::Null),
        0.0
    );
    assert_bad(f, &open, Some(&rules(json!({"type": "url"}))), Value::Null);

    let f = "is_expected_bookmarks";
    let marks = rules(json!({"bookmark_bar": {"children": [
        {"type": "folder", "name": "Work", "children": []},
        {"type": "url", "name": "a", "url": "https://a.com"}]}}));
    let names = |n: Value| rules(json!({"type": "bookmark_bar_folders_names", "names": n}));
    assert_eq!(
        score(f, &marks, Some(&names(json!(["Work"]))), Value::Null),
        1.0
    );
    assert_eq!(
        score(f, &marks, Some(&names(json!(["Fun"]))), Value::Null),
        0.0
    );
    assert_bad(
        f,
        &marks,
        Some(&rules(json!({"type": "other"}))),
        Value::Null,
    );
}
