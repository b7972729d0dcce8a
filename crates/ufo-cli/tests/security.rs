//! What a hostile model can make `ufo` do through its tools, tried through
//! the binary: `execute_command` (served by `ufo mcp` to a real rmcp client)
//! sees none of ufo's keys and hands back none, whatever it reads, and
//! refuses the abbreviated options that once ran code or wrote files; a
//! config with a syntax error never echoes its key; `ufo llm ping` sends the
//! key its config names through `${VAR}`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use std::process::Command;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use ufo_testkit::{desktop_env, desktop_with_apps};

const ENV_KEY: &str = "sk-env-leak-test-0123456789abcdef";
const FILE_KEY: &str = "sk-literal-leak-test-9876543210";

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .find_map(|c| c.as_text().map(|t| t.text.clone()))
        .unwrap_or_else(|| panic!("no text in {r:?}"))
}

async fn call(
    c: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    command: &str,
) -> CallToolResult {
    c.call_tool(
        CallToolRequestParams::new("execute_command")
            .with_arguments(json!({"command": command}).as_object().cloned().unwrap()),
    )
    .await
    .unwrap()
}

fn stdout_of(r: &CallToolResult) -> String {
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let v: Value = serde_json::from_str(&text(r)).unwrap();
    v["stdout"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_see_and_return_no_key_and_abbreviated_options_are_refused() {
    let (desktop, _backend) = desktop_with_apps("sec-commands", &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let config = d.join("config.yaml");
    std::fs::write(
        &config,
        format!(
            "HOST_AGENT:\n  API_TYPE: openai\n  API_BASE: http://127.0.0.1:9\n  API_MODEL: m\n  API_KEY: {FILE_KEY}\n\
             APP_AGENT:\n  API_TYPE: openai\n  API_BASE: http://127.0.0.1:9\n  API_MODEL: m\n  API_KEY: \"${{TEST_MODEL_KEY}}\"\n\
             ENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]\n\
             THIRD_PARTY_AGENT_CONFIG:\n  LinuxAgent:\n    WORKING_DIRECTORY: {}\n",
            d.display()
        ),
    )
    .unwrap();
    std::fs::write(d.join("lines.txt"), "touch /tmp/pwned\n").unwrap();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_ufo"));
    cmd.arg("mcp")
        .arg("--config")
        .arg(&config)
        .env_remove("DISPLAY")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("UFO_CONFIG")
        .env("TEST_MODEL_KEY", ENV_KEY)
        .env("OPENAI_API_KEY", ENV_KEY)
        .envs(desktop_env(&desktop));
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();

    // The command's own environment holds nothing of ufo's.
    let env = stdout_of(&call(&client, "cat /proc/self/environ").await);
    assert!(!env.contains(ENV_KEY), "{env}");
    assert!(!env.contains("OPENAI_API_KEY"), "{env}");
    assert!(!env.contains("TEST_MODEL_KEY"), "{env}");
    assert!(env.contains("PATH="), "{env}");

    // Read from ufo's own process, or from the config file, a key comes
    // back scrubbed.
    let status = stdout_of(&call(&client, "cat /proc/self/status").await);
    let ppid = status
        .lines()
        .find_map(|l| l.strip_prefix("PPid:"))
        .unwrap()
        .trim()
        .to_owned();
    let parent = stdout_of(&call(&client, &format!("cat /proc/{ppid}/environ")).await);
    assert!(parent.contains("OPENAI_API_KEY=***"), "{parent}");
    assert!(!parent.contains(ENV_KEY), "{parent}");
    let file = stdout_of(&call(&client, "cat config.yaml").await);
    assert!(file.contains("API_KEY: ***"), "{file}");
    assert!(!file.contains(FILE_KEY), "{file}");

    // The security pass's abbreviations: refused before anything runs.
    let out = d.join("written.txt");
    for bad in [
        "sort -S 1K --co=sh lines.txt".to_owned(),
        format!("sort --outp={} lines.txt", out.display()),
        "date --se=2020-01-01".to_owned(),
        "tail --fo lines.txt".to_owned(),
    ] {
        let r = call(&client, &bad).await;
        assert_eq!(r.is_error, Some(true), "{bad}: {r:?}");
        assert!(
            text(&r).contains("not allowed") || text(&r).contains("in full"),
            "{bad}: {}",
            text(&r)
        );
    }
    assert!(!out.exists(), "sort wrote {}", out.display());
    assert!(!std::path::Path::new("/tmp/pwned").exists());
    client.cancel().await.unwrap();
}

#[test]
fn a_config_with_a_syntax_error_never_shows_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.yaml");
    // The key on the line the parser complains about.
    std::fs::write(
        &config,
        format!("HOST_AGENT:\n  API_TYPE: openai\n  API_KEY: {FILE_KEY}\n  API_MODEL: [m\n"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ufo"))
        .args(["run", "--config"])
        .arg(&config)
        .args(["-r", "anything"])
        .env_remove("UFO_CONFIG")
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{all}");
    assert!(all.contains("YAML"), "{all}");
    assert!(!all.contains(FILE_KEY), "{all}");
}

/// One OpenAI-shaped chat reply on a loopback port; hands back the
/// request's `Authorization` header.
async fn one_reply() -> (String, tokio::task::JoinHandle<String>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let n = s.read(&mut chunk).await.unwrap();
            buf.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&buf).to_string();
            if let Some(end) = text.find("\r\n\r\n") {
                let len = text
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse::<usize>().unwrap())
                    })
                    .unwrap_or(0);
                if buf.len() >= end + 4 + len || n == 0 {
                    break;
                }
            }
            if n == 0 {
                break;
            }
        }
        let body = json!({"id": "x", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "pong"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
        .to_string();
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        s.write_all(reply.as_bytes()).await.unwrap();
        String::from_utf8_lossy(&buf)
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .starts_with("authorization:")
                    .then(|| l["authorization:".len()..].trim().to_owned())
            })
            .unwrap_or_default()
    });
    (base, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_ping_sends_the_key_its_config_names_through_a_variable() {
    let (base, server) = one_reply().await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("agents.yaml");
    std::fs::write(
        &config,
        format!(
            "APP_AGENT:\n  API_TYPE: openai\n  API_BASE: {base}/v1\n  API_MODEL: m\n  API_KEY: \"${{PING_TEST_KEY}}\"\n  MAX_RETRY: 0\n"
        ),
    )
    .unwrap();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_ufo"))
        .args(["llm", "ping", "--agent", "APP_AGENT", "--config"])
        .arg(&config)
        .env("PING_TEST_KEY", ENV_KEY)
        .output()
        .await
        .unwrap();
    let auth = server.await.unwrap();
    assert_eq!(auth, format!("Bearer {ENV_KEY}"));
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{all}");
    assert!(!all.contains(ENV_KEY), "{all}");
}
