//! `ufo bench step` end to end, as a user runs it: its own private desktop,
//! the calculator, the scripted session through the real agent and tools,
//! and the Python baseline in the same run.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::process::Command;

#[test]
fn bench_step_runs_the_scripted_session_and_the_baseline_on_the_calculator() {
    let logs = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ufo"))
        .args([
            "bench",
            "step",
            "--app",
            "gnome-calculator",
            "--runs",
            "1",
            "--json",
        ])
        .arg("--log-dir")
        .arg(logs.path())
        .env("UFO_STATE_DIR", state.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_str(&stdout).unwrap();
    // Ten timed steps, every action done.
    assert_eq!(r["ufo"]["steps"], 10, "{r}");
    assert_eq!(r["ufo"]["failed_actions"], 0, "{r}");
    assert_eq!(r["ufo"]["unfinished_sessions"], 0, "{r}");
    for phase in ["data_collection", "action_execution", "non_model_per_step"] {
        assert!(r["ufo"][phase].as_f64().unwrap() > 0.0, "{phase}: {r}");
    }
    // The baseline did the same ten steps and found every target.
    assert_eq!(r["python"]["steps"], 10, "{r}");
    assert_eq!(r["python"]["errors"], serde_json::json!([]), "{r}");
    assert!(r["speedup"].as_f64().unwrap() > 0.0, "{r}");
    // Our control list costs fewer tokens than UFO's layout of it.
    let t = &r["tokens"]["o200k_base"];
    assert!(
        t["ours"].as_u64().unwrap() < t["ufo"].as_u64().unwrap(),
        "{t}"
    );
    assert!(r["peak_rss_kib"].as_u64().unwrap() > 0);

    // The timed run's log: the typed sum verified, the scripted clicks
    // landed on the named buttons.
    let log =
        std::fs::read_to_string(logs.path().join("bench-gnome-calculator-1/response.log")).unwrap();
    let steps: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|s: &Value| s["agent_type"] == "AppAgent")
        .collect();
    assert_eq!(steps.len(), 10, "{log}");
    let typed = steps
        .iter()
        .flat_map(|s| s["actions"].as_array().unwrap().clone())
        .find(|a| a["function"] == "set_edit_text")
        .unwrap();
    assert_eq!(typed["result"]["result"]["verified"], true, "{typed}");
    assert_eq!(typed["result"]["result"]["text"], "12+30", "{typed}");
    assert_eq!(steps[9]["status"], "FINISH");
}
