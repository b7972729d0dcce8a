//! Running the `ufo` binary against private desktops, shared by the CLI tests.
#![allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

pub mod service;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `ufo ARGS` with desktop state in `state`, isolated from the caller's
/// own display and session bus.
pub fn ufo(state: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ufo"))
        .args(args)
        .env("UFO_STATE_DIR", state)
        .env_remove("DISPLAY")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("UFO_DESKTOP")
        .output()
        .expect("run ufo")
}

/// Runs `ufo ARGS` with `input` on stdin and extra environment variables.
pub fn ufo_stdin(args: &[&str], env: &[(&str, &str)], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ufo"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// Parses stdout as JSON, with the output in the panic message if it is not.
pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Asserts success and parses stdout as JSON.
pub fn ok_json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(out)
}

/// Stops the named desktop when dropped, so a failing test leaves nothing behind.
pub struct StopOnDrop<'a>(pub &'a Path, pub &'static str);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        let _ = ufo(self.0, &["desktop", "stop", "--name", self.1]);
    }
}

/// Starts the desktop `name` with state in `state`, asserts it started, and
/// returns the guard that stops it. The `ufo desktop start` output is returned
/// too, for tests that look at the printed exports.
pub fn start_desktop<'a>(state: &'a Path, name: &'static str) -> (StopOnDrop<'a>, Output) {
    let out = ufo(state, &["desktop", "start", "--name", name]);
    let guard = StopOnDrop(state, name);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (guard, out)
}

/// Launches `app` on the desktop `name` and asserts it came up.
pub fn launch(state: &Path, name: &str, app: &str) {
    let out = ufo(state, &["desktop", "launch", "--name", name, app]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Sends signal `sig` (`INT`, `STOP`, `CONT`, ...) to `pid` with kill(1).
pub fn send_signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{sig} {pid}");
}
