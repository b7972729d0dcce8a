//! Settings checkers: a JSON settings file (`vscode.py`), an extension
//! list (`vscode.py`), a GIMP configuration file (`gimp.py`).

use std::path::Path;

use serde_json::json;
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};

fn write(dir: &Path, name: &str, content: &str) -> Got {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    Got::File(p)
}

#[test]
fn check_json_settings() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        r#"{"editor.fontSize": 14, "files.autoSave": "afterDelay", "nested": {"a": [1, 2]}}"#,
        r#"{"editor.fontSize": 14.0, "files.autoSave": "afterDelay", "nested": {"a": [1, 2.0]}}"#,
        r#"{"editor.fontSize": 15, "files.autoSave": "afterDelay", "nested": {"a": [1, 2]}}"#,
        r#"{"files.autoSave": "afterDelay"}"#,
        r#"{"editor.fontSize": 14, "files.autoSave": "off", "nested": {"a": [2, 1]}, "x": 1}"#,
        r#"{"editor.fontSize": true, "files.autoSave": "afterDelay", "nested": {"a": [1, 2]}}"#,
        r#"{"editor.fontSize": 1, "files.autoSave": "afterDelay", "nested": {"a": [1, 2]}}"#,
        r#"{"editor.fontSize": "14", "files.autoSave": "afterDelay"}"#,
        r#"["editor.fontSize", 14]"#,
        r#""editor.fontSize""#,
        "{\"editor.fontSize\": 14, // comment\n}",
        "",
        "null",
        "5",
    ];
    let expectations = [
        json!({"editor.fontSize": 14}),
        json!({"editor.fontSize": 14, "files.autoSave": "afterDelay"}),
        json!({"nested": {"a": [1, 2]}}),
        json!({"editor.fontSize": true}),
        json!({"files.autoSave": "afterDelay", "missing": null}),
        json!({}),
        json!(["editor.fontSize"]),
    ];
    let mut cases = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let file = write(dir.path(), &format!("settings{i}.json"), f);
        for e in &expectations {
            cases.push(Case::new(
                format!("{f} has {e}"),
                file.clone(),
                Got::Json(json!({"expected": e})),
            ));
        }
    }
    let absent = Got::File(dir.path().join("absent.json"));
    cases.push(Case::new(
        "no file",
        absent,
        Got::Json(json!({"expected": {"a": 1}})),
    ));
    cases.push(Case::new(
        "rules without expected",
        write(dir.path(), "ok.json", r#"{"a": 1}"#),
        Got::Json(json!({"expect": {"a": 1}})),
    ));
    cases.push(
        Case::new(
            "an option it ignores",
            write(dir.path(), "opt.json", r#"{"a": 1}"#),
            Got::Json(json!({"expected": {"a": 1}})),
        )
        .with(json!({"ignore_case": true})),
    );
    compare("vscode", "check_json_settings", &cases);
}

#[test]
fn is_extension_installed() {
    let outputs = [
        "ms-python.python\nesbenp.prettier-vscode\n",
        "ms-python.python@2024.1.0\n",
        "esbenp.prettier-vscode\n",
        "",
        "MS-Python.Python\n",
    ];
    let wanted = [
        json!("ms-python.python"),
        json!("prettier"),
        json!("vscodevim.vim"),
        json!(""),
    ];
    let mut cases = Vec::new();
    for o in outputs {
        for w in &wanted {
            for t in ["contain", "not_contain"] {
                cases.push(Case::new(
                    format!("{o:?} {t} {w}"),
                    Got::Text(o.into()),
                    Got::Json(json!({"type": t, "expected": w})),
                ));
            }
        }
    }
    let text = Got::Text("ms-python.python\n".into());
    for (name, rules) in [
        ("type other", json!({"type": "equal", "expected": "x"})),
        ("no type", json!({"expected": "x"})),
        ("no expected", json!({"type": "contain"})),
        (
            "expected a number",
            json!({"type": "contain", "expected": 5}),
        ),
    ] {
        cases.push(Case::new(name, text.clone(), Got::Json(rules)));
    }
    cases.push(Case::new(
        "list output",
        Got::Json(json!(["ms-python.python", "x"])),
        Got::Json(json!({"type": "contain", "expected": "ms-python.python"})),
    ));
    compare("vscode", "is_extension_installed", &cases);
}

#[test]
fn check_config_status() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        "# gimprc\n(show-menubar yes)\n(theme \"Dark\")\n",
        "# gimprc\n\n(show-menubar no)\n(default-view (show-menubar yes))\n",
        "(default-view show-menubar yes)\r\n(theme Dark)\r\n",
        "(show-menubar yes\n",
        "((show-menubar yes))\n",
        "  (show-menubar   yes)  \n",
        "(theme Dark)\n   \n(show-menubar yes)\n",
        "(show-menubar yes)\n   \n",
        "(default-view)\n(show-menubar yes)\n",
        "# only comments\n",
        "",
        "(show-menubar\tyes)",
    ];
    let rules = [
        json!({"key": "show-menubar", "value": "yes"}),
        json!({"key": "show-menubar", "value": "no"}),
        json!({"key": "theme", "value": "\"Dark\""}),
        json!({"key": ["default-view", "show-menubar"], "value": "yes"}),
        json!({"key": ["default-view", "(show-menubar"], "value": "yes"}),
        json!({"key": ["a", "b", "c"], "value": "yes"}),
        json!({"key": "show-menubar"}),
        json!({"value": "yes"}),
        json!({"key": 5, "value": "yes"}),
    ];
    let mut cases = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let file = write(dir.path(), &format!("gimprc{i}"), f);
        for r in &rules {
            cases.push(Case::new(
                format!("{f:?} {r}"),
                file.clone(),
                Got::Json(r.clone()),
            ));
        }
    }
    cases.push(Case::new(
        "not UTF-8",
        {
            let p = dir.path().join("latin1");
            std::fs::write(&p, b"(show-menubar yes)\n(theme \xe9)\n").unwrap();
            Got::File(p)
        },
        Got::Json(rules[0].clone()),
    ));
    cases.push(Case::new(
        "no file",
        Got::File(dir.path().join("absent")),
        Got::Json(rules[0].clone()),
    ));
    cases.push(Case::new(
        "missing",
        Got::Missing,
        Got::Json(rules[0].clone()),
    ));
    compare("gimp", "check_config_status", &cases);
}

#[test]
fn check_thunderbird_prefs() {
    let dir = tempfile::tempdir().unwrap();
    let head = "// Mozilla User Preferences\n\n";
    let files = [
        "user_pref(\"mail.spellcheck.inline\", false);\nuser_pref(\"mailnews.start_page.enabled\", true);\nuser_pref(\"mail.identity.id1.fullName\", \"Ann Lee\");\n",
        "user_pref(\"mail.spellcheck.inline\", true);\nuser_pref(\"mailnews.start_page.enabled\", true);\n",
        "user_pref(\"mail.spellcheck.inline\", false);\nuser_pref(\"mail.spellcheck.inline\", true);\n",
        "user_pref(\"mailnews.start_page.enabled\", false);\nuser_pref(\"browser.cache.disk.capacity\", 358400);\n",
        "  user_pref(\"mail.spellcheck.inline\", false);  \r\nuser_pref(\"mail.identity.id1.fullName\", \"Bob \\\"B\\\" Ray\");\r\n",
        "user_pref(\"mail.spellcheck.inline\",false);\nuser_pref(\"x\", 1.5);\n",
        "user_pref(\"mail.spellcheck.inline\", false);\nuser_pref(\"broken\", not json);\n",
        "",
    ];
    let rules = [
        json!({"expect": {"mail.spellcheck.inline": {"method": "eq", "ref": false}}}),
        json!({"expect": {"mailnews.start_page.enabled": {"method": "eq", "ref": true}},
               "unexpect": {"mail.spellcheck.inline": {"method": "eq", "ref": true}}}),
        json!({"expect": {"mail.identity.id1.fullName": {"method": "re", "ref": "^Ann"}}}),
        json!({"expect": {"browser.cache.disk.capacity": {"method": "ge", "ref": 100000}}}),
        json!({"expect": {"x": {"method": "approx:0.1", "ref": 1.45}}}),
        json!({"unexpect": {"mailnews.start_page.enabled": {"method": "eq", "ref": false}}}),
        json!({}),
    ];
    let mut cases = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let file = write(dir.path(), &format!("prefs{i}.js"), &format!("{head}{f}"));
        for r in &rules {
            cases.push(Case::new(
                format!("{f:?} {r}"),
                file.clone(),
                Got::Json(r.clone()),
            ));
        }
    }
    cases.push(Case::new(
        "missing",
        Got::Missing,
        Got::Json(rules[0].clone()),
    ));
    compare("thunderbird", "check_thunderbird_prefs", &cases);
}

#[test]
fn check_json_keybindings() {
    let dir = tempfile::tempdir().unwrap();
    let binding = json!({"key": "ctrl+j", "command": "workbench.action.togglePanel"});
    let files = [
        "[{\"key\": \"ctrl+j\", \"command\": \"workbench.action.togglePanel\"}]".to_owned(),
        "// Place your key bindings in this file\n[{\"key\": \"ctrl+j\", \"command\": \"workbench.action.togglePanel\"}]".to_owned(),
        "// comment\r\n[{\"command\": \"workbench.action.togglePanel\", \"key\": \"ctrl+j\"}, {\"key\": \"f5\"}]".to_owned(),
        "[{\"key\": \"ctrl+j\", \"command\": \"workbench.action.togglePanel\", \"when\": \"editorFocus\"}]".to_owned(),
        "// one\n// two\n[{\"key\": \"ctrl+j\", \"command\": \"workbench.action.togglePanel\"}]".to_owned(),
        "{\"key\": \"ctrl+j\"}".to_owned(),
        "[]".to_owned(),
        "not json".to_owned(),
        String::new(),
    ];
    let wanted = [
        binding.clone(),
        json!({"key": "ctrl+k", "command": "workbench.action.togglePanel"}),
        json!("ctrl+j"),
    ];
    let mut cases = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let file = write(dir.path(), &format!("keybindings{i}.json"), f);
        for w in &wanted {
            cases.push(Case::new(
                format!("{f:?} has {w}"),
                file.clone(),
                Got::Json(json!({"expected": w})),
            ));
        }
    }
    cases.push(Case::new(
        "no file",
        Got::File(dir.path().join("absent.json")),
        Got::Json(json!({"expected": binding})),
    ));
    compare("vscode", "check_json_keybindings", &cases);
}

#[test]
fn check_thunderbird_filter() {
    let dir = tempfile::tempdir().unwrap();
    let head = "version=\"9\"\nlogging=\"no\"\n";
    let filter = |name: &str, action: &str, cond: &str| {
        format!(
            "name=\"{name}\"\nenabled=\"yes\"\ntype=\"17\"\naction=\"{action}\"\nactionValue=\"mailbox://nobody@Local%20Folders/Promotions\"\ncondition=\"{cond}\"\n"
        )
    };
    let files = [
        format!(
            "{head}{}",
            filter(
                "Promos",
                "Move to folder",
                "AND (subject,contains,discount)"
            )
        ),
        format!(
            "{head}{}{}",
            filter(
                "Promos",
                "Move to folder",
                "OR (subject,contains,discount) OR (from,is,\\\"Shop\\\" <shop@x.com>)"
            ),
            filter("Spam", "Delete", "ALL")
        ),
        format!(
            "{head}{}",
            filter("Promos", "Mark read", "AND (subject,contains,discount)")
        ),
        head.to_owned(),
        format!("{head}enabled=\"yes\"\n"),
        filter(
            "Promos",
            "Move to folder",
            "AND (subject,contains,discount)",
        )
        .trim_end()
        .to_owned(),
    ];
    let rules = [
        json!({"expect": [{"name": "Promos", "enabled": "yes", "action": "Move to folder",
                            "condition": ["AND (subject,contains,discount)"]}]}),
        json!({"expect": [{"action": "Move to folder"}], "unexpect": [{"action": "Delete"}]}),
        json!({"expect": [{"condition": ["ALL"]}]}),
        json!({"unexpect": [{"name": "Promos"}]}),
        json!({}),
    ];
    let mut cases = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let file = write(dir.path(), &format!("msgFilterRules{i}.dat"), f);
        for r in &rules {
            cases.push(Case::new(
                format!("{f:?} {r}"),
                file.clone(),
                Got::Json(r.clone()),
            ));
        }
    }
    compare("thunderbird", "check_thunderbird_filter", &cases);
}

#[test]
fn check_thunderbird_folder() {
    let dir = tempfile::tempdir().unwrap();
    let mail = |subject: &str, status: &str| {
        format!(
            "From - Mon Jan 01 00:00:00 2024\nX-Mozilla-Status: {status}\nX-Mozilla-Keys: \nMIME-Version: 1.0\nSubject: {subject}\n\nbody\n\n"
        )
    };
    let folders = [
        format!("{}{}", mail("a", "0001"), mail("b", "0001")),
        mail("a", "0001"),
        mail("z", "0009"),
        String::new(),
        "\n\n".to_owned(),
        "FROM - x\nFROM - y\n".to_owned(),
        "FROM - \nFROM - \n".to_owned(),
        "x FROM - FROM - FROM - y".to_owned(),
    ];
    let files: Vec<Got> = folders
        .iter()
        .enumerate()
        .map(|(i, f)| write(dir.path(), &format!("Inbox{i}"), f))
        .collect();
    let mut cases = Vec::new();
    for (i, a) in files.iter().enumerate() {
        for (j, b) in files.iter().enumerate() {
            for o in [
                json!({}),
                json!({"remove_duplicate": false, "ignore_status": true}),
            ] {
                cases.push(
                    Case::new(
                        format!("{:?} vs {:?} {o}", folders[i], folders[j]),
                        a.clone(),
                        b.clone(),
                    )
                    .with(o),
                );
            }
        }
    }
    compare("thunderbird", "check_thunderbird_folder", &cases);
}
