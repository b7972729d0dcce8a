//! An MCP client from another ecosystem: the Python SDK (`mcp` on PyPI,
//! installed into a venv under the target directory) drives our server over
//! streamable HTTP on a private desktop — initialize, tools/list with
//! annotations, select mousepad, list controls, set_edit_text — and the
//! text is in mousepad, read back over AT-SPI.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::Value;
use std::sync::Arc;
use ufo_desktop::tools::ToolSettings;
use ufo_mcp::server::{DesktopServer, HttpOptions, serve_http};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_sets_mousepads_text_over_http() {
    let py = python();
    let (d, b) = ufo_testkit::desktop_with_apps("mcp-python", &["mousepad"]).await;
    let b = Arc::new(b);
    let backend = b.clone();
    let server = serve_http(
        HttpOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            api_key: API_KEY.into(),
            allow_remote: false,
        },
        move || DesktopServer::new(backend.clone(), ToolSettings::default()),
    )
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("mcp.key");
    std::fs::write(&key, format!("{API_KEY}\n")).unwrap();
    let text = "typed from Python: ünïcode & <tags>";
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/drive_ufo.py");
    let out = tokio::process::Command::new(py)
        .arg(script)
        .arg("--http")
        .arg(server.url())
        .arg("--key-file")
        .arg(&key)
        .args(["--app", "mousepad", "--text", text])
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "the Python client failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Every step of the session went as the SDK expects, its end included.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("failed"), "{stderr}");
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(seen["server"], "ufo-rs");
    assert_eq!(seen["image"], "image/png");
    assert_eq!(
        seen["tools"].as_u64().unwrap() as usize,
        ufo_desktop::tools::Tool::ALL.len()
    );
    assert_eq!(editor_text(&b, "mousepad", text).await, text);

    // Without the key the Python client cannot even initialize.
    std::fs::write(&key, "not-the-key-0123456789").unwrap();
    let out = tokio::process::Command::new(py)
        .arg(script)
        .arg("--http")
        .arg(server.url())
        .arg("--key-file")
        .arg(&key)
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("401"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    server.stop().await;
    d.stop().unwrap();
}
