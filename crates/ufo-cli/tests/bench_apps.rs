//! `ufo bench apps` end to end, as a user runs it: its own private desktop,
//! two small applications, ufo's full and live observations and the careful
//! pyatspi walk in the same run. No timing is asserted, only what the report holds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::process::Command;

fn ufo(args: &[&str], state: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ufo"))
        .args(args)
        .env("UFO_STATE_DIR", state)
        .output()
        .unwrap()
}

#[test]
fn bench_apps_observes_galculator_and_zenity_and_walks_them_with_pyatspi() {
    let state = tempfile::tempdir().unwrap();
    let out = ufo(
        &[
            "bench",
            "apps",
            "--apps",
            "galculator,zenity",
            "--runs",
            "2",
            "--settle-ms",
            "50",
            "--json",
        ],
        state.path(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(r["runs"], 2, "{r}");
    // Each observation and walk came after the idle time asked for.
    assert_eq!(r["settle_ms"], 50, "{r}");
    assert_eq!(r["skipped"], serde_json::json!([]), "{r}");
    let apps = r["apps"].as_array().unwrap();
    assert_eq!(apps.len(), 2, "{r}");
    let g = &apps[0];
    assert_eq!(g["app"], "galculator");
    assert_eq!(g["toolkit"], "GTK 3");
    assert!(g["window"].as_str().unwrap().contains("galculator"), "{g}");
    // Both sides read the window: ufo's capture and the walk found nodes,
    // and ufo listed the calculator's keys among its controls.
    let nodes = g["nodes"].as_u64().unwrap();
    let walk_nodes = g["walk_nodes"].as_u64().unwrap();
    assert!(nodes > 20 && walk_nodes > 20, "{g}");
    assert!(g["controls"].as_u64().unwrap() >= 10, "{g}");
    assert_eq!(g["truncated"], false, "{g}");
    for k in [
        "full_ms",
        "full_tree_ms",
        "live_ms",
        "live_tree_ms",
        "walk_ms",
        "full_ratio",
        "live_ratio",
    ] {
        assert!(g[k].as_f64().unwrap() > 0.0, "{k}: {g}");
    }
    // The walk is careful: it reads the nodes ufo reads, no more and no
    // fewer — galculator's closed menus their first item only, zenity's
    // list (a table that manages its descendants) by its visible cells.
    for a in apps {
        assert_eq!(a["nodes"], a["walk_nodes"], "{a}");
    }
    assert_eq!(apps[1]["app"], "zenity", "{r}");
    assert!(r["missed"].is_array() && r["machine"].is_string(), "{r}");
    assert_eq!(r["date"].as_str().unwrap().len(), 10, "{r}");
}

#[test]
fn bench_apps_refuses_an_unknown_application_and_names_the_known_ones() {
    let state = tempfile::tempdir().unwrap();
    let out = ufo(&["bench", "apps", "--apps", "no-such-app"], state.path());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ufo::cli::bad_args") && err.contains("gedit") && err.contains("help:"),
        "{err}"
    );
    let list = ufo(&["bench", "apps", "--list"], state.path());
    assert!(list.status.success());
    let text = String::from_utf8_lossy(&list.stdout);
    assert!(text.lines().any(|l| l.starts_with("galculator")), "{text}");
}
