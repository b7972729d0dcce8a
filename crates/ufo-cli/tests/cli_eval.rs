//! `ufo eval` on a tree laid out as OSWorld's `evaluation_examples/`: the
//! tasks listed by domain, the filters, and a run whose tasks cannot run
//! here ending in named statuses (no desktop is started for them).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;
use std::path::Path;
use std::process::{Command, Output};

fn ufo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ufo"))
        .args(args)
        .env_remove("UFO_CONFIG")
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn tree(root: &Path) {
    let task = |id: &str, config: serde_json::Value| {
        json!({"id": id, "instruction": "x", "source": ["a", "b"], "related_apps": ["os"],
               "config": config, "evaluator": {"func": "exact_match",
               "result": {"type": "vm_file", "path": "~/a", "dest": "a"},
               "expected": {"type": "rule", "rules": {"expected": "x"}}}})
    };
    let dl = json!([{"type": "download", "parameters": {"files": [
        {"url": "https://files.example/a/b.xlsx?id=1&export=download", "path": "~/b.xlsx"}]}}]);
    let login =
        json!([{"type": "login", "parameters": {"settings_file": "x", "platform": "googledrive"}}]);
    for (dir, id, config) in [
        ("chrome", "same", dl.clone()),
        ("thunderbird", "same", login),
        ("os", "other", dl),
    ] {
        let p = root.join("examples").join(dir).join(format!("{id}.json"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, task(id, config).to_string()).unwrap();
    }
    let meta = json!({"chrome": ["same"], "thunderbird": ["same"], "os": ["other"]});
    std::fs::write(root.join("test_all.json"), meta.to_string()).unwrap();
}

#[test]
fn osworld_trees_are_listed_filtered_and_run_to_named_statuses() {
    let root = tempfile::tempdir().unwrap();
    tree(root.path());
    let tasks = root.path().to_str().unwrap();

    let out = ufo(&["eval", "--tasks", tasks, "--list"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listed = text(&out.stdout);
    let keys: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.split('\t').next())
        .collect();
    assert_eq!(
        keys,
        [
            "chrome/same",
            "os/other",
            "thunderbird/same",
            "3 tasks, 0 files not read"
        ]
    );

    let out = ufo(&[
        "eval",
        "--tasks",
        tasks,
        "--list",
        "--domain",
        "thunderbird,os",
        "--ids",
        "same",
    ]);
    assert_eq!(
        text(&out.stdout).lines().next().unwrap().split('\t').next(),
        Some("thunderbird/same")
    );

    let out = ufo(&["eval", "--tasks", tasks, "--list", "--domain", "gimp"]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("--domain/--ids: no task matches gimp"),
        "{err}"
    );
    assert!(err.contains("help: `ufo eval --tasks DIR --list`"), "{err}");

    // A run against an empty mirror: the downloads are unavailable (named),
    // the login needs an account; nothing is scored as if it had run.
    let mirror = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("eval.yaml");
    std::fs::write(&config, "EVA_SESSION: false\nSAFE_GUARD: false\n").unwrap();
    let results = work.path().join("out");
    let out = ufo(&[
        "eval",
        "--tasks",
        tasks,
        "--config",
        config.to_str().unwrap(),
        "--mirror",
        mirror.path().to_str().unwrap(),
        "--cache",
        work.path().join("cache").to_str().unwrap(),
        "--out",
        results.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(table.contains("| os | 0 | 1 | 0 |"), "{table}");
    assert!(table.contains("| thunderbird | 0 | 0 | 1 |"), "{table}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("results.json")).unwrap())
            .unwrap();
    let by = |id: &str| {
        r.as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(by("chrome/same")["status"], "unavailable");
    assert!(
        by("os/other")["error"].as_str().unwrap().contains(
            "https://files.example/a/b.xlsx?id=1&export=download is unavailable: not in the mirror"
        ),
        "{r}"
    );
    assert_eq!(by("thunderbird/same")["status"], "needs_account");
    assert!(results.join("chrome/same/result.json").is_file());
    assert!(results.join("thunderbird/same/result.json").is_file());
}
