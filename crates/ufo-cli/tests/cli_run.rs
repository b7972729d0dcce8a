//! `ufo demo` and `ufo run` end to end, as a user runs them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

fn ufo() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ufo"))
}

#[test]
fn demo_runs_a_replayed_session_on_the_calculator() {
    let logs = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let out = ufo()
        .args(["demo", "--log-dir"])
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
    assert!(stdout.contains("RECORDED REPLAY"), "{stdout}");
    assert!(stdout.contains("AppAgent/gnome-calculator"), "{stdout}");
    assert!(stdout.contains("Evaluation: complete = yes"), "{stdout}");
    // The effect is read back from the calculator, not taken from the replay.
    assert!(
        stdout.contains("Verified: the calculator's display reads 84."),
        "{stdout}"
    );
    let dir = std::fs::read_dir(logs.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert!(
        stdout.contains(&format!("{}", dir.join("output.md").display())),
        "{stdout}"
    );
    let md = std::fs::read_to_string(dir.join("output.md")).unwrap();
    assert!(md.contains("### Step 8 · HostAgent · FINISH"), "{md}");
    assert!(dir.join("evaluation.log").exists());
}

#[test]
fn run_reports_config_errors_with_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.yaml");
    std::fs::write(
        &cfg,
        "APP_AGENT:\n  API_TYPE: openai\n  API_KEY: ${UFO_TEST_SURELY_UNSET}\n",
    )
    .unwrap();
    let out = ufo()
        .args(["run", "-r", "x", "--config"])
        .arg(&cfg)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("ufo::config::missing_key") && stderr.contains("APP_AGENT.API_KEY"),
        "{stderr}"
    );
    let out = ufo()
        .args(["run", "-m", "sideways", "-r", "x"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown mode"));
}
