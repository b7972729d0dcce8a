//! Shared test helpers: the third-party MCP pieces the tests use, installed
//! once per machine under the target directory (the Python `mcp` package in
//! a venv, the reference filesystem server from the npm registry), and
//! AT-SPI read-back.
#![allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;
use ufo_desktop::{Backend, TreeBudget};
use ufo_desktop_atspi::AtspiBackend;
use ufo_testkit::deps::{install_once, python_venv, run};

/// The Python `mcp` package the tests drive our server with.
pub const PYTHON_MCP: &str = "mcp==1.30.0";
/// The reference filesystem server from the npm registry.
pub const NPM_FILESYSTEM: &str = "@modelcontextprotocol/server-filesystem@2026.8.31";
/// The API key of the in-process HTTP servers.
pub const API_KEY: &str = "test-key-0123456789abcdef";

fn cache_root() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ufo-mcp-deps")
}

/// A venv's python with the `mcp` package (`/usr/bin/python3`, Debian's:
/// `python3` on PATH may be a pyenv shim). Needs python3-venv (bootstrap.sh).
pub fn python() -> &'static Path {
    static PY: OnceLock<PathBuf> = OnceLock::new();
    PY.get_or_init(|| python_venv(&cache_root(), "py-mcp-1.30.0", &[PYTHON_MCP]))
}

/// The reference filesystem server's entry point (run with `node`).
pub fn filesystem_server() -> &'static Path {
    static JS: OnceLock<PathBuf> = OnceLock::new();
    JS.get_or_init(|| {
        let dir = cache_root().join("npm-server-filesystem-2026.8.31");
        let js = dir.join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
        install_once(&dir, &js, |tmp| {
            std::fs::create_dir_all(tmp).unwrap();
            run(
                Command::new("npm")
                    .args([
                        "install",
                        "--no-audit",
                        "--no-fund",
                        "--loglevel=error",
                        "--prefix",
                    ])
                    .arg(tmp)
                    .arg(NPM_FILESYSTEM),
                "npm install (apt-get install nodejs npm, or run scripts/bootstrap.sh)",
            );
        });
        js
    })
}

/// The text of `app`'s first editable text control, read over AT-SPI until
/// it equals `want` (at most 10 s); the last text read otherwise.
pub async fn editor_text(b: &AtspiBackend, app: &str, want: &str) -> String {
    let mut last = String::new();
    for _ in 0..200 {
        if let Ok(windows) = b.list_windows().await
            && let Some(w) = windows
                .iter()
                .filter(|w| w.app_name == app)
                .max_by_key(|w| w.rect.map_or(0, |r| r.area()))
            && let Ok(tree) = b.capture_tree(w, &TreeBudget::default()).await
        {
            for n in tree.nodes.iter().filter(|n| n.capabilities.editable_text) {
                if let Ok(t) = b.read_text(&n.handle).await {
                    last = t;
                    if last == want {
                        return last;
                    }
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    last
}

/// The listed control whose type is Edit or Document and that has editable
/// text, from a `get_app_window_controls_target_info` result.
pub fn edit_control(controls: &Value) -> (String, String) {
    controls["controls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| {
            c["capabilities"]["editable_text"] == true
                && matches!(c["type"].as_str(), Some("Edit" | "Document"))
        })
        .map(|c| (c["id"].to_string(), c["name"].as_str().unwrap().to_owned()))
        .unwrap_or_else(|| panic!("no edit control in {controls}"))
}

/// Pids of the processes whose command line contains `needle`.
pub fn processes_with(needle: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmd).contains(needle) {
            out.push(pid);
        }
    }
    out
}

/// Waits (at most 10 s) until no process's command line contains `needle`;
/// the pids still there otherwise.
pub async fn gone(needle: &str) -> Vec<u32> {
    let mut left = processes_with(needle);
    for _ in 0..200 {
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        left = processes_with(needle);
    }
    left
}
