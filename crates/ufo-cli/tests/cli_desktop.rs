//! `ufo desktop` and `ufo doctor` as a user runs them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{json, launch, start_desktop, ufo};
use std::process::Command;

fn alive(pids: &[u64]) -> Vec<u64> {
    pids.iter()
        .copied()
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                s.rsplit_once(')')
                    .is_some_and(|(_, r)| !r.trim_start().starts_with('Z'))
            })
        })
        .collect()
}

/// The `pids` still alive after up to 5 s: a killed process can take a
/// moment to go on a loaded machine.
fn left_after_stop(pids: &[u64]) -> Vec<u64> {
    for _ in 0..100 {
        if alive(pids).is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    alive(pids)
}

fn check<'a>(doc: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name} in {doc}"))
}

#[test]
fn start_launch_doctor_stop_leaves_nothing_behind() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let (_guard, out) = start_desktop(s, "default");
    assert!(String::from_utf8_lossy(&out.stdout).contains("export DISPLAY="));

    let out = ufo(s, &["desktop", "launch", "--json", "gnome-calculator"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json(&out)["app_name"], "gnome-calculator");

    let out = ufo(s, &["doctor", "--json"]);
    let doc = json(&out);
    assert!(out.status.success(), "{doc}");
    assert_eq!(doc["ok"], true);
    for name in [
        "display",
        "xtest",
        "screenshot",
        "session_bus",
        "a11y_bus",
        "registry",
    ] {
        assert_eq!(check(&doc, name)["status"], "ok", "{name}: {doc}");
    }
    assert!(
        check(&doc, "registry")["detail"]
            .as_str()
            .unwrap()
            .contains("gnome-calculator")
    );

    let status = json(&ufo(s, &["desktop", "status"]));
    let pids: Vec<u64> = status["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_u64().unwrap())
        .collect();
    assert!(pids.len() >= 5, "{status}");

    let out = ufo(s, &["desktop", "stop"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        left_after_stop(&pids),
        Vec::<u64>::new(),
        "processes left after stop"
    );

    // Stopped means stopped: a second stop says so and how to start one.
    let out = ufo(s, &["desktop", "stop"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ufo::headless::not_running") && err.contains("ufo desktop start"),
        "{err}"
    );
}

#[test]
fn doctor_reports_a_dead_accessibility_bus_with_a_fix() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let (_guard, _) = start_desktop(s, "broken");
    let status = json(&ufo(s, &["desktop", "status", "--name", "broken"]));
    // A hung accessibility bus: the launcher owns org.a11y.Bus but answers nothing.
    // (Killing it is not enough: the session bus would activate a new one.)
    let launcher = status["launcher_pid"].as_i64().unwrap().to_string();
    assert!(
        Command::new("kill")
            .args(["-STOP", &launcher])
            .status()
            .unwrap()
            .success()
    );
    let out = ufo(s, &["doctor", "--json", "--desktop", "broken"]);
    let doc = json(&out);
    assert!(!out.status.success(), "doctor must fail: {doc}");
    assert_eq!(doc["ok"], false);
    assert_eq!(check(&doc, "display")["status"], "ok");
    assert_eq!(check(&doc, "session_bus")["status"], "ok");
    let a11y = check(&doc, "a11y_bus");
    assert_eq!(a11y["status"], "fail", "{doc}");
    assert!(a11y["fix"].as_str().unwrap().contains("at-spi"), "{a11y}");
    assert!(
        a11y["detail"].as_str().unwrap().contains("no answer"),
        "{a11y}"
    );
    assert_eq!(check(&doc, "registry")["status"], "fail");

    assert!(
        Command::new("kill")
            .args(["-CONT", &launcher])
            .status()
            .unwrap()
            .success()
    );
}

#[test]
fn doctor_without_any_desktop_fails_with_fixes() {
    let state = tempfile::tempdir().unwrap();
    let out = ufo(state.path(), &["doctor"]);
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[FAIL] display"), "{text}");
    assert!(
        text.contains("fix: start a private desktop with `ufo desktop start`"),
        "{text}"
    );
}

#[test]
fn doctor_checks_the_configured_model_endpoint() {
    let state = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let cfg = state.path().join("config.yaml");
    std::fs::write(
        &cfg,
        format!("HOST_AGENT:\n  API_TYPE: openai\n  API_BASE: http://127.0.0.1:{port}/v1\n  API_KEY: sk-secret\nAPP_AGENT:\n  API_BASE: http://127.0.0.1:1/v1\n"),
    )
    .unwrap();
    let out = ufo(
        state.path(),
        &["doctor", "--json", "--config", cfg.to_str().unwrap()],
    );
    let doc = json(&out);
    let models: Vec<&serde_json::Value> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] == "model_endpoint")
        .collect();
    assert_eq!(models.len(), 2, "{doc}");
    assert_eq!(models[0]["status"], "ok");
    assert_eq!(models[1]["status"], "fail");
    assert!(
        models[1]["fix"]
            .as_str()
            .unwrap()
            .contains("APP_AGENT.API_BASE")
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("sk-secret"));
}

#[test]
fn stop_ends_a_desktop_whose_x_server_died() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let (_guard, _) = start_desktop(s, "half");
    launch(s, "half", "mousepad");
    let status = json(&ufo(s, &["desktop", "status", "--name", "half"]));
    let pids: Vec<u64> = status["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_u64().unwrap())
        .collect();
    let xvfb = status["xvfb_pid"].as_u64().unwrap().to_string();
    assert!(
        Command::new("kill")
            .args(["-KILL", &xvfb])
            .status()
            .unwrap()
            .success()
    );
    for _ in 0..200 {
        if alive(&[xvfb.parse().unwrap()]).is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Half dead: status says it is not running, stop still cleans up everything.
    assert!(
        !ufo(s, &["desktop", "status", "--name", "half"])
            .status
            .success()
    );
    let out = ufo(s, &["desktop", "stop", "--name", "half"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        left_after_stop(&pids),
        Vec::<u64>::new(),
        "processes left after stopping a half-dead desktop"
    );
}
