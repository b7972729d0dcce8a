//! External MCP servers as AppAgent tools, in real sessions with a scripted
//! model: the reference filesystem server from the npm registry reads a
//! file whose content the agent then types into gedit; SAFE_GUARD stops the
//! server's destructive tool; a server that hangs, dies or fails gives its
//! step a clear error and the session goes on; one that cannot start is
//! reported and left out.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// The MCP test pieces (pinned third-party servers, AT-SPI read-back) are
// ufo-mcp's; this test lives here because it runs whole sessions.
#[path = "../../ufo-mcp/tests/common/mod.rs"]
mod mcp_common;
use mcp_common::*;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use ufo_agent::PromptSet;
use ufo_session::config::UfoConfig;
use ufo_session::dispatcher::local_dispatcher;
use ufo_session::{Mode, RunOptions, ScriptedIo, Services, SessionReport, SessionStatus};
use ufo_testkit::scripted::{ScriptedModel, ScriptedRequest, fixed, reply};

/// A single-tier session (the AppAgent on `app`) with the scripted model,
/// `extra` config lines and the user's `answers`.
async fn session(
    backend: Arc<ufo_desktop_atspi::AtspiBackend>,
    model: &ScriptedModel,
    extra: &str,
    answers: &[&str],
    app: &str,
    logs: &Path,
) -> (SessionReport, Arc<ScriptedIo>) {
    let yaml = format!(
        "APP_AGENT:\n{m}MAX_STEP: 10\nSLEEP_TIME: 0\nEVA_SESSION: false\n{extra}",
        m = model.agent_yaml()
    );
    let config = UfoConfig::parse(&yaml, Path::new("."), &|_| None).unwrap();
    let io = Arc::new(ScriptedIo::new(answers.iter().copied()));
    let services = Services {
        dispatcher: Arc::new(local_dispatcher(backend, &config.system)),
        io: io.clone(),
        prompts: Arc::new(PromptSet::load(&config.prompts).unwrap()),
        log_root: logs.to_path_buf(),
        config,
    };
    let mut reports = ufo_session::run(
        &services,
        &RunOptions {
            task: "mcp".into(),
            mode: Mode::Normal,
            request: Some("use the tools".into()),
            plan: None,
            app: Some(app.into()),
        },
    )
    .await
    .unwrap();
    (reports.remove(0), io)
}

/// An AppAgent reply calling `function`.
fn call(function: &str, arguments: Value, status: &str) -> String {
    json!({
        "observation": "", "thought": format!("call {function}"),
        "action": {"function": function, "arguments": arguments, "status": status},
        "plan": [], "comment": ""
    })
    .to_string()
}

/// The `[Result]` of the last action shown in the prompt (the model's view
/// of what the previous step returned).
fn last_result(r: &ScriptedRequest) -> String {
    let text = r.last_user_text();
    let at = text
        .rfind("[Result] ")
        .unwrap_or_else(|| panic!("no action result in the prompt:\n{text}"));
    let rest = &text[at + "[Result] ".len()..];
    // The actions are a JSON list of strings: the result ends its string.
    let end = rest.find('"').unwrap_or(rest.len());
    serde_json::from_str::<String>(&format!("\"{}\"", &rest[..end])).unwrap()
}

/// The actions of every step in `response.log`: (function, status, error code).
fn actions(log_dir: &Path) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(log_dir.join("response.log")).unwrap();
    ufo_agent::read_response_log(&text)
        .map(Result::unwrap)
        .flat_map(|l| l.actions)
        .map(|a| {
            (
                a.function,
                serde_json::to_value(a.result.status)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_owned(),
                a.result.error.map(|e| e.code).unwrap_or_default(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_app_agent_types_a_file_read_by_the_npm_filesystem_server_into_gedit() {
    let server = filesystem_server();
    let files = tempfile::tempdir().unwrap();
    let files_dir = files.path().canonicalize().unwrap();
    let note = files_dir.join("note.txt");
    let content = "Meeting at 10:30 in room 4B, bring the Q3 numbers.";
    std::fs::write(&note, content).unwrap();
    let victim = files_dir.join("written.txt");
    let (d, b) = ufo_testkit::desktop_with_apps("mcp-session", &["gedit"]).await;
    let b = Arc::new(b);
    let logs = tempfile::tempdir().unwrap();

    let note_path = note.display().to_string();
    let running = files_dir.display().to_string();
    let victim_path = victim.display().to_string();
    let model = ScriptedModel::start(vec![
        // 1. The filesystem server's tools are in the prompt, namespaced.
        reply(move |r| {
            assert_eq!(
                processes_with(&running).len(),
                1,
                "the server is not running"
            );
            let system = r.system();
            assert!(system.contains("fs.read_text_file"), "{system}");
            assert!(system.contains("fs.write_file"), "{system}");
            assert!(system.contains("set_edit_text"), "{system}");
            call("fs.read_text_file", json!({"path": note_path}), "CONTINUE")
        }),
        // 2. What the server returned reached the model; type it into gedit.
        reply(|r| {
            let text = last_result(r);
            let id = r
                .control_id_of_type("Document")
                .or_else(|| r.control_id_of_type("Edit"))
                .unwrap_or_else(|| panic!("no text control:\n{}", r.text()));
            let name = r
                .list_after("<Available Control Item:>")
                .iter()
                .find(|c| c["id"] == id.as_str())
                .map(|c| c["name"].as_str().unwrap_or_default().to_owned())
                .unwrap_or_default();
            call(
                "set_edit_text",
                json!({"id": id, "name": name, "text": text, "clear_current_text": false}),
                "CONTINUE",
            )
        }),
        // 3. A destructive tool of the server: SAFE_GUARD asks, the user says no.
        reply(move |_| {
            call(
                "fs.write_file",
                json!({"path": victim_path, "content": "should not be written"}),
                "CONTINUE",
            )
        }),
    ])
    .await;
    let extra = format!(
        "mcp:\n  AppAgent:\n    default:\n      action:\n        - {{namespace: fs, type: stdio, command: node, start_args: [{js:?}, {dir:?}]}}\n",
        js = server.display().to_string(),
        dir = files_dir.display().to_string(),
    );
    let (report, io) = session(b.clone(), &model, &extra, &["N"], "gedit", logs.path()).await;
    // The server ran for the session and is stopped with it.
    let marker = files_dir.display().to_string();
    assert_eq!(
        gone(&marker).await,
        Vec::<u32>::new(),
        "the server outlived the session"
    );

    assert_eq!(editor_text(&b, "gedit", content).await, content);
    assert_eq!(
        actions(&report.log_dir)[..2],
        [
            ("fs.read_text_file".into(), "success".into(), String::new()),
            ("set_edit_text".into(), "success".into(), String::new()),
        ]
    );
    let transcript = io.transcript();
    let asked: Vec<&String> = transcript
        .iter()
        .filter(|l| l.contains("Do you want to proceed"))
        .collect();
    assert_eq!(asked.len(), 1, "{transcript:?}");
    assert!(
        asked[0].contains("fs.write_file") && asked[0].contains("does not mark it read-only"),
        "{asked:?}"
    );
    assert!(!victim.exists(), "the declined write happened");
    assert_eq!(report.status, SessionStatus::Finish, "{report:?}");
    assert_eq!(model.remaining(), 0);
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_that_hang_fail_die_or_never_start_give_error_steps_and_the_session_goes_on() {
    let py = python().display().to_string();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../ufo-mcp/tests/python/flaky_server.py"
    );
    let (d, b) = ufo_testkit::desktop_with_apps("mcp-flaky", &["gedit"]).await;
    let logs = tempfile::tempdir().unwrap();
    let model = ScriptedModel::start(vec![
        reply(|r| {
            // The flaky server's tools are listed; the one that did not start
            // is listed with its error.
            let system = r.system();
            assert!(system.contains("flaky.echo"), "{system}");
            assert!(
                system.contains("broken.*") && system.contains("ufo::mcp::spawn_failed"),
                "{system}"
            );
            call("flaky.echo", json!({"text": "still here"}), "CONTINUE")
        }),
        // A tool of the server that did not start: its step fails with why.
        fixed(call("broken.read", json!({}), "CONTINUE")),
        fixed(call("flaky.fail", json!({"reason": "disk on fire"}), "CONTINUE")),
        fixed(call("flaky.hang", json!({}), "CONTINUE")),
        fixed(call("flaky.crash", json!({}), "CONTINUE")),
        fixed(call("flaky.echo", json!({"text": "anyone?"}), "CONTINUE")),
        fixed(
            json!({"observation": "", "thought": "the server is gone", "action": {"function": "summary", "arguments": {"text": "gave up on flaky"}, "status": "FINISH"}, "result": "gave up on flaky"})
                .to_string(),
        ),
    ])
    .await;
    let extra = format!(
        "SAFE_GUARD: false\nMCP_TOOL_TIMEOUT: 3\nmcp:\n  AppAgent:\n    default:\n      action:\n        - {{namespace: flaky, type: stdio, command: {py:?}, start_args: [{script:?}]}}\n        - {{namespace: broken, type: stdio, command: /nonexistent/mcp-server}}\n"
    );
    let (report, io) = session(Arc::new(b), &model, &extra, &[], "gedit", logs.path()).await;

    let got = actions(&report.log_dir);
    let codes: Vec<(&str, &str, &str)> = got
        .iter()
        .map(|(f, s, c)| (f.as_str(), s.as_str(), c.as_str()))
        .collect();
    assert_eq!(
        codes,
        [
            ("flaky.echo", "success", ""),
            ("broken.read", "failure", "ufo::mcp::spawn_failed"),
            ("flaky.fail", "failure", "ufo::mcp::tool_failed"),
            ("flaky.hang", "failure", "ufo::mcp::timeout"),
            ("flaky.crash", "failure", "ufo::mcp::server_gone"),
            ("flaky.echo", "failure", "ufo::mcp::server_gone"),
            ("summary", "success", ""),
        ],
        "{got:?}"
    );
    let log = std::fs::read_to_string(report.log_dir.join("response.log")).unwrap();
    assert!(log.contains("disk on fire"), "the server's message is lost");
    assert!(
        io.transcript()
            .iter()
            .any(|l| l.contains("MCP server `broken` is not available")
                && l.contains("/nonexistent/mcp-server")),
        "{:?}",
        io.transcript()
    );
    assert_eq!(report.status, SessionStatus::Finish, "{report:?}");
    assert_eq!(report.result, "gave up on flaky");
    d.stop().unwrap();
}
