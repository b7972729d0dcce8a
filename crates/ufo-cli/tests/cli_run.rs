//! `ufo demo` and `ufo run` end to end, as a user runs them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

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
    // The demo shows the agent working, not its repairs: a recorded reply
    // that no longer matches the control numbering (or any other repair or
    // re-ask) means the cassettes must be recorded again
    // (assets/demo/README.md).
    let repairs: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("repaired:") || l.contains("re-asked:"))
        .collect();
    assert!(repairs.is_empty(), "{repairs:#?}\n{stdout}");
    assert_eq!(stdout.matches("click_input(").count(), 5, "{stdout}");
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

/// `ufo run -t TASK -r ...` on a private desktop of its own, with a model
/// server that accepts requests and never answers, and `extra` config keys.
/// `during` runs once the HostAgent's request has reached the model, with the
/// child's pid. Returns the run's output and the task's `output.md`.
fn run_against_a_silent_model(
    task: &str,
    extra: &str,
    during: impl FnOnce(u32),
) -> (std::process::Output, String) {
    let state = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let desktop = format!("silent-{task}");
    let out = ufo()
        .args(["desktop", "start", "--name", &desktop])
        .env("UFO_STATE_DIR", state.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap();
    let cfg = logs.path().join("agents.yaml");
    let section = format!(
        "  API_TYPE: openai\n  API_BASE: http://{addr}/v1\n  API_KEY: sk-test\n  API_MODEL: m\n  TIMEOUT: 300\n"
    );
    std::fs::write(
        &cfg,
        format!("HOST_AGENT:\n{section}APP_AGENT:\n{section}SLEEP_TIME: 0\n{extra}"),
    )
    .unwrap();
    let child = ufo()
        .args([
            "run",
            "-t",
            task,
            "-r",
            "open the calculator",
            "--desktop",
            &desktop,
            "--log-dir",
        ])
        .arg(logs.path())
        .arg("--config")
        .arg(&cfg)
        .env("UFO_STATE_DIR", state.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (_conn, _) = silent.accept().unwrap();
    during(child.id());
    let out = child.wait_with_output().unwrap();
    let _ = ufo()
        .args(["desktop", "stop", "--name", &desktop])
        .env("UFO_STATE_DIR", state.path())
        .output();
    let md =
        std::fs::read_to_string(logs.path().join(task).join("output.md")).unwrap_or_else(|e| {
            panic!(
                "no output.md ({e}): {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
    (out, md)
}

#[test]
fn an_interrupted_run_leaves_output_md_with_the_reason() {
    let (out, md) = run_against_a_silent_model("stopped", "", |pid| {
        common::send_signal(pid, "INT");
    });
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(stdout.contains("ufo::session::interrupted"), "{stdout}");
    assert!(md.contains("interrupted by SIGINT"), "{md}");
    assert!(md.contains("**Status:** ERROR"), "{md}");
}

#[test]
fn a_step_that_outlives_its_deadline_ends_the_session_with_the_reason() {
    let (out, md) = run_against_a_silent_model("slow", "STEP_TIMEOUT: 2\n", |_| {});
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(stdout.contains("ufo::agent::step_deadline"), "{stdout}");
    assert!(md.contains("STEP_TIMEOUT"), "{md}");
}
