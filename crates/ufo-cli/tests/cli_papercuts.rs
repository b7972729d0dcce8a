//! What a new user trips over first: `UFO_DESKTOP` and `ufo desktop env` in a
//! shell, a closed pipe, an application that stops answering, `RUST_LOG`,
//! `--app` with `--window`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{json, launch, send_signal, start_desktop, ufo};
use std::process::{Command, Stdio};

/// Runs `ufo ARGS` with exactly the environment a shell has after
/// `eval "$(ufo desktop env)"` (plus PATH and HOME).
fn ufo_in_shell(exports: &[(String, String)], args: &[&str]) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ufo"));
    c.args(args).env_clear();
    for k in ["PATH", "HOME"] {
        if let Some(v) = std::env::var_os(k) {
            c.env(k, v);
        }
    }
    c.envs(exports.iter().map(|(k, v)| (k, v)));
    c.output().unwrap()
}

/// `export K='V'` lines → pairs.
fn parse_exports(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| l.strip_prefix("export "))
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.trim_matches('\'').to_owned()))
        .collect()
}

fn pid_of(state: &std::path::Path, name: &str, app: &str) -> u32 {
    let out = ufo(state, &["desktop", "launch", "--name", name, "--json", app]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&out)["pid"].as_u64().unwrap() as u32
}

#[test]
fn a_user_shell_a_closed_pipe_and_a_hung_app() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let (_guard, _) = start_desktop(s, "papercuts");

    // Every `ufo desktop` subcommand honours UFO_DESKTOP.
    let out = Command::new(env!("CARGO_BIN_EXE_ufo"))
        .args(["desktop", "status"])
        .env("UFO_STATE_DIR", s)
        .env("UFO_DESKTOP", "papercuts")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json(&out)["name"], "papercuts");

    // After `eval "$(ufo desktop env)"` the shell's ufo still finds the desktop
    // (the exports move XDG_RUNTIME_DIR, from which the state root derives).
    let env = ufo(s, &["desktop", "env", "--name", "papercuts"]);
    let exports = parse_exports(&String::from_utf8_lossy(&env.stdout));
    assert!(
        exports.iter().any(|(k, _)| k == "UFO_STATE_DIR"),
        "{exports:?}"
    );
    let out = ufo_in_shell(&exports, &["desktop", "launch", "gnome-calculator"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let calc_windows = ufo_in_shell(&exports, &["windows"]);
    assert!(
        String::from_utf8_lossy(&calc_windows.stdout).contains("gnome-calculator"),
        "{}",
        String::from_utf8_lossy(&calc_windows.stderr)
    );

    // A reader that went away (`ufo inspect | head -0`) is no panic.
    let mut child = Command::new(env!("CARGO_BIN_EXE_ufo"))
        .args(["inspect", "--app", "gnome-calculator"])
        .envs(exports.iter().map(|(k, v)| (k, v)))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.success(), "{:?}: {stderr}", out.status);

    // An application that stops answering: doctor names it, `ufo windows`
    // still lists the others.
    let mousepad = pid_of(s, "papercuts", "mousepad");
    send_signal(mousepad, "STOP");
    let doctor = ufo_in_shell(&exports, &["doctor", "--json"]);
    let windows = ufo_in_shell(&exports, &["windows"]);
    send_signal(mousepad, "CONT");
    let doc = json(&doctor);
    let apps = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "apps")
        .unwrap_or_else(|| panic!("no apps check: {doc}"))
        .clone();
    assert_eq!(apps["status"], "warn", "{apps}");
    assert!(
        apps["detail"]
            .as_str()
            .unwrap()
            .contains(&mousepad.to_string()),
        "{apps}"
    );
    assert!(
        apps["fix"].as_str().is_some_and(|f| !f.is_empty()),
        "{apps}"
    );
    assert!(
        windows.status.success(),
        "{}",
        String::from_utf8_lossy(&windows.stderr)
    );
    let listed = String::from_utf8_lossy(&windows.stdout);
    assert!(listed.contains("gnome-calculator"), "{listed}");
    assert!(!listed.contains("mousepad"), "{listed}");

    // Answering again, it is back.
    let doc = json(&ufo_in_shell(&exports, &["doctor", "--json"]));
    assert!(
        doc.to_string().contains("every application answers"),
        "{doc}"
    );
}

#[test]
fn a_misspelt_config_key_is_named_and_lenient_loading_warns_instead() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.yaml");
    std::fs::write(
        &cfg,
        "MAX_STEPP: 3\nAPP_AGENT:\n  API_TYPE: openai\n  API_MODEL: gpt-4o\n",
    )
    .unwrap();
    let args = [
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "-r",
        "hello",
        "--desktop",
        "no-such-desktop",
    ];
    let out = ufo_in_shell(&[], &args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("error[ufo::config::unknown_key]"), "{err}");
    assert!(
        err.contains("MAX_STEPP") && err.contains("did you mean MAX_STEP?"),
        "{err}"
    );
    assert_eq!(err.matches("help:").count(), 1, "{err}");
    // UFO_CONFIG_LENIENT=1: a warning, and the run goes on to the next
    // problem (no desktop of that name).
    let out = ufo_in_shell(&[("UFO_CONFIG_LENIENT".into(), "1".into())], &args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: config key `MAX_STEPP`"), "{err}");
    assert!(!err.contains("unknown_key"), "{err}");
    assert!(err.contains("no-such-desktop"), "{err}");
}

#[test]
fn service_mode_outside_a_server_and_a_prompt_without_its_texts_are_refused_before_the_desktop() {
    // `ufo run -m service`: the mode belongs to a server.
    for mode in ["service", "linux_service"] {
        let out = ufo_in_shell(
            &[],
            &[
                "run",
                "-m",
                mode,
                "-r",
                "hello",
                "--desktop",
                "no-such-desktop",
            ],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(
            err.contains("error[ufo::cli::service_outside_server]"),
            "{err}"
        );
        assert!(err.contains("help:") && err.contains("ufo serve"), "{err}");
        assert!(err.contains("ufo client"), "{err}");
        assert!(!err.contains("no-such-desktop"), "{err}");
    }
    // A PROMPT template without `user`: an error naming the key and the file.
    let dir = tempfile::tempdir().unwrap();
    let prompt = dir.path().join("app_prompt.yaml");
    std::fs::write(&prompt, "system: \"You are an agent.\"\n").unwrap();
    let cfg = dir.path().join("config.yaml");
    std::fs::write(
        &cfg,
        format!(
            "APP_AGENT:\n  API_TYPE: openai\n  API_MODEL: gpt-4o\n  PROMPT: {}\n",
            prompt.display()
        ),
    )
    .unwrap();
    let out = ufo_in_shell(
        &[],
        &[
            "run",
            "--config",
            cfg.to_str().unwrap(),
            "-r",
            "hello",
            "--desktop",
            "no-such-desktop",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("error[ufo::agent::template]"), "{err}");
    assert!(
        err.contains("app_prompt.yaml") && err.contains("`user`"),
        "{err}"
    );
    assert!(err.contains("help:"), "{err}");
}

/// Every script the README tells a user to run as a command
/// (`scripts/...` at the start of a line) exists and is executable: a
/// README command that answers "Permission denied" is the first thing a new
/// user meets.
#[test]
fn every_script_the_readme_runs_is_executable() {
    use std::os::unix::fs::PermissionsExt;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let scripts: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.starts_with("scripts/"))
        .collect();
    assert!(scripts.len() >= 3, "{scripts:?}");
    for s in scripts {
        let meta = std::fs::metadata(root.join(s)).unwrap_or_else(|e| panic!("{s}: {e}"));
        assert!(
            meta.permissions().mode() & 0o111 != 0,
            "{s} is run by the README but is not executable"
        );
    }
}

#[test]
fn rust_log_shows_diagnostics_and_window_pins_a_window_of_the_app() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let (_stop, _) = start_desktop(s, "default");
    launch(s, "default", "gnome-calculator");
    launch(s, "default", "mousepad");
    let run = |env: &[(&str, &str)], args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_ufo"))
            .args(args)
            .env("UFO_STATE_DIR", s)
            .env_remove("DISPLAY")
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .env_remove("UFO_DESKTOP")
            .env_remove("UFO_LOG")
            .env_remove("RUST_LOG")
            .envs(env.iter().copied())
            .output()
            .unwrap()
    };
    let stderr = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();

    // Diagnostics follow RUST_LOG, as the README says; UFO_LOG wins when
    // both are set; by default there are none.
    let inspect = ["inspect", "--app", "gnome-calculator", "--json"];
    let debug = ("RUST_LOG", "ufo_desktop_atspi=debug");
    let out = run(&[debug], &inspect);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("capture: walked"), "{}", stderr(&out));
    let out = run(&[], &inspect);
    assert!(
        !stderr(&out).contains("capture: walked"),
        "{}",
        stderr(&out)
    );
    let out = run(&[debug, ("UFO_LOG", "warn")], &inspect);
    assert!(
        !stderr(&out).contains("capture: walked"),
        "{}",
        stderr(&out)
    );

    // --window with --app: a window of that application.
    let out = run(
        &[],
        &[
            "inspect",
            "--app",
            "gnome-calculator",
            "--window",
            "Calculator",
            "--json",
        ],
    );
    let controls = json(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        controls
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == "7" && c["type"] == "Button"),
        "{controls}"
    );
    // Mousepad's window is there, but it is not the calculator's.
    let out = run(
        &[],
        &[
            "inspect",
            "--app",
            "gnome-calculator",
            "--window",
            "Mousepad",
        ],
    );
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("ufo::desktop::window_not_found")
            && err.contains("--window \"Mousepad\" of --app \"gnome-calculator\""),
        "{err}"
    );
    let out = run(
        &[],
        &[
            "inspect", "--app", "mousepad", "--window", "Mousepad", "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !json(&out)
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == "7" && c["type"] == "Button"),
        "the calculator's controls, not mousepad's"
    );
}
