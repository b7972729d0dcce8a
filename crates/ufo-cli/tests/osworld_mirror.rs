//! `scripts/osworld/make_mirror.py` on a tree laid out as OSWorld's: every
//! download gets a stand-in of the kind the task saves it as, at the place
//! `ufo eval --mirror` looks, and the task then sets up and is scored
//! instead of ending `unavailable`; a program a task runs gets none (a
//! stand-in cannot do its work), and that task is `unavailable`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/osworld/make_mirror.py")
}

#[test]
fn a_generated_mirror_lets_the_tasks_download_and_be_scored() {
    let root = tempfile::tempdir().unwrap();
    // A workbook saved under a Drive-style URL with no extension of its own.
    let url = "https://drive.example/uc?id=AbC&export=download";
    let task = json!({
        "id": "sheet", "instruction": "x", "source": "ours", "related_apps": ["os"],
        "config": [{"type": "download", "parameters": {"files": [
            {"url": url, "path": "~/Desktop/numbers.xlsx"}]}}],
        "evaluator": {"func": "check_include_exclude",
            "result": {"type": "vm_command_line",
                       "command": ["python3", "-c", "import zipfile,sys,os; z=zipfile.ZipFile(os.path.expanduser('~/Desktop/numbers.xlsx')); print('workbook' if 'xl/workbook.xml' in z.namelist() else 'no')"]},
            "expected": {"type": "rule", "rules": {"include": ["workbook"], "exclude": ["no"]}}}
    });
    let p = root.path().join("examples/os/sheet.json");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, task.to_string()).unwrap();
    // A script the task downloads and its checker runs.
    let program = "https://drive.example/uc?id=Prog&export=download";
    let runs = json!({
        "id": "runs", "instruction": "x", "source": "ours", "related_apps": ["os"],
        "config": [{"type": "download", "parameters": {"files": [
            {"url": program, "path": "/home/user/eval.sh"}]}}],
        "evaluator": {"func": "check_include_exclude",
            "result": {"type": "vm_command_line", "command": "bash eval.sh", "shell": true},
            "expected": {"type": "rule", "rules": {"include": ["Success"], "exclude": []}}}
    });
    std::fs::write(p.with_file_name("runs.json"), runs.to_string()).unwrap();
    std::fs::write(
        root.path().join("test_all.json"),
        json!({"os": ["sheet", "runs"]}).to_string(),
    )
    .unwrap();

    let mirror = tempfile::tempdir().unwrap();
    let out = Command::new("python3")
        .arg(script())
        .args([root.path(), mirror.path()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("1 of 2 URLs have a stand-in"), "{said}");
    assert!(said.contains("1 left out (a task runs them"), "{said}");
    // Where `wget -x` would save it, and a real workbook.
    let saved = mirror
        .path()
        .join("drive.example/uc?id=AbC&export=download");
    let bytes = std::fs::read(&saved).unwrap();
    assert!(bytes.starts_with(b"PK"), "a zip package: {saved:?}");

    // The task downloads it from the mirror, sets up, and is scored: its
    // check (run in the task's desktop) finds a workbook where it saved it.
    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("eval.yaml");
    std::fs::write(&config, "EVA_SESSION: false\nSAFE_GUARD: false\n").unwrap();
    let plans = work.path().join("plans/os");
    std::fs::create_dir_all(&plans).unwrap();
    for id in ["sheet", "runs"] {
        std::fs::write(
            plans.join(format!("{id}.json")),
            json!({"request": "x", "actions": []}).to_string(),
        )
        .unwrap();
    }
    let results = work.path().join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_ufo"))
        .env_remove("UFO_CONFIG")
        .args(["eval", "--tasks"])
        .arg(root.path())
        .args(["--mode", "follower", "--plans"])
        .arg(work.path().join("plans"))
        .arg("--config")
        .arg(&config)
        .arg("--mirror")
        .arg(mirror.path())
        .arg("--cache")
        .arg(work.path().join("cache"))
        .arg("--out")
        .arg(&results)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("results.json")).unwrap())
            .unwrap();
    let by = |id: &str| {
        r.as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == format!("os/{id}"))
            .unwrap()
            .clone()
    };
    let t = by("sheet");
    assert_eq!(t["status"], "scored", "{r}");
    assert_eq!(t["score"].as_f64(), Some(1.0), "{r}");
    // Not scored on what a stand-in script would print.
    let t = by("runs");
    assert_eq!(t["status"], "unavailable", "{r}");
    assert!(t["error"].as_str().unwrap().contains("id=Prog"), "{r}");
}
