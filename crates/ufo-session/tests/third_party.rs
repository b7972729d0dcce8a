//! Third-party agents: the HostAgent assigns a sub-task to the command-line
//! agent (`LinuxAgent`) like an application; its commands run without a
//! shell, from an allowlist with argument policies, and what it finds flows
//! on to an application.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;
use ufo_session::SessionStatus;
use ufo_testkit::scripted::{ScriptedModel, ScriptedRequest, reply};

/// The `(id, name)` of the third-party agent `name` in the host's list.
fn agent_target(r: &ScriptedRequest, name: &str) -> (String, String) {
    r.list_after("<Available Applications/Agents:>")
        .iter()
        .find(|t| t["kind"] == "third_party_agent" && t["name"] == name)
        .map(|t| {
            (
                t["id"].as_str().unwrap_or_default().to_owned(),
                t["name"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .unwrap_or_else(|| panic!("{name} is not listed to the host:\n{}", r.text()))
}

/// A LinuxAgent reply in UFO's shape.
fn linux(command: &str, status: &str) -> String {
    json!({
        "observation": "", "thought": format!("run {command}"),
        "action": {"function": "execute_command", "arguments": {"command": command}, "status": status},
        "plan": [], "comment": "", "result": ""
    })
    .to_string()
}

fn executed(lines: &[StepRecord]) -> Vec<(String, ActionStatus, String)> {
    lines
        .iter()
        .filter(|l| l.agent_type == AgentKind::ThirdPartyAgent)
        .flat_map(|l| &l.actions)
        .map(|a| {
            (
                a.arguments["command"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                a.result.status,
                a.result
                    .error
                    .as_ref()
                    .map(|e| e.code.clone())
                    .unwrap_or_default(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_asks_the_linux_agent_and_types_its_answer_into_mousepad() {
    let rig = rig("sess-thirdparty", &["mousepad"]).await;
    let data = rig.logs.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    let victim = data.join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let rm = format!("rm {}", victim.display());
    let model = ScriptedModel::start(vec![
        // The host sees the agent beside the windows, and what it is for.
        reply(|r| {
            let sys = r.system();
            assert!(sys.contains("LinuxAgent: Counts lines"), "{sys}");
            let (id, name) = agent_target(r, "LinuxAgent");
            assert!(r.window("mousepad").is_some());
            json!({"observation": "mousepad is open; the LinuxAgent can read files", "thought": "count first",
                   "current_subtask": "Count the lines of notes.txt", "message": ["it is in the working directory"],
                   "plan": ["type the count into mousepad"], "status": "ASSIGN",
                   "function": "select_application_window", "arguments": {"id": id, "name": name}}).to_string()
        }),
        // Refused before anything runs: not allowed, shell syntax.
        reply(move |r| {
            let sys = r.system();
            assert!(sys.contains("execute_command") && sys.contains("wc"), "{sys}");
            assert!(!sys.contains("rm,"), "rm is offered: {sys}");
            assert!(r.last_user_text().contains("Count the lines of notes.txt"));
            linux(&rm, "CONTINUE")
        }),
        reply(|r| {
            let last = r.last_user_text();
            assert!(last.contains("\"rm\" is not an allowed command"), "{last}");
            linux("cat notes.txt | wc -l", "CONTINUE")
        }),
        // A sloppy reply: arguments as a JSON string.
        reply(|r| {
            let last = r.last_user_text();
            assert!(last.contains("a pipe"), "{last}");
            json!({"observation": "", "thought": "one program", "action": {"function": "execute_command",
                   "arguments": "{\"command\": \"wc -l notes.txt\"}", "status": "CONTINUE"}}).to_string()
        }),
        reply(|r| {
            let last = r.last_user_text();
            assert!(last.contains("[exit code] 0") && last.contains("3 notes.txt"), "{last}");
            json!({"observation": "wc printed 3", "thought": "answered", "action": {"function": "", "arguments": {}, "status": "FINISH"},
                   "result": "3"}).to_string()
        }),
        // The host passes the answer on.
        reply(|r| {
            let text = r.text();
            assert!(text.contains("\"result\":\"3\""), "{text}");
            let (id, name) = r.window("mousepad").unwrap();
            json!({"observation": "the count is 3", "thought": "type it", "current_subtask": "Type: notes.txt has 3 lines",
                   "message": [], "status": "ASSIGN", "function": "select_application_window", "arguments": {"id": id, "name": name}}).to_string()
        }),
        reply(|r| {
            let id = r
                .control_id_of_type("Document")
                .or_else(|| r.control_id_of_type("Edit"))
                .unwrap();
            json!({"observation": "an empty document", "thought": "type", "action": {"function": "set_edit_text",
                   "arguments": {"id": id, "name": "", "text": "notes.txt has 3 lines"}, "status": "FINISH"}, "result": "typed"}).to_string()
        }),
        host_finish("typed the count"),
    ])
    .await;
    let extra = format!(
        "SAFE_GUARD: false\nENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]\nTHIRD_PARTY_AGENT_CONFIG:\n  LinuxAgent:\n    VISUAL_MODE: false\n    INTRODUCTION: Counts lines and reads files with read-only commands.\n    WORKING_DIRECTORY: {}\n",
        data.display()
    );
    let (reports, _io) = normal(
        &rig,
        &model,
        &extra,
        &[],
        "write how many lines notes.txt has into mousepad",
        None,
        "thirdparty",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    // The refused command did not run; the answer reached the editor.
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    let texts = app_texts(&rig.backend, "mousepad").await;
    assert!(
        texts.iter().any(|t| t.contains("notes.txt has 3 lines")),
        "{texts:?}"
    );
    let lines = steps(&r.log_dir.join("response.log"));
    let ran = executed(&lines);
    let codes: Vec<(ActionStatus, &str)> = ran.iter().map(|(_, s, c)| (*s, c.as_str())).collect();
    assert_eq!(
        codes,
        [
            (ActionStatus::Failure, "ufo::tool::command_not_allowed"),
            (ActionStatus::Failure, "ufo::tool::command_not_allowed"),
            (ActionStatus::Success, ""),
        ],
        "{ran:?}"
    );
    let agents: Vec<&str> = lines.iter().map(|l| l.agent_name.as_str()).collect();
    assert!(agents.contains(&"LinuxAgent"), "{agents:?}");
    rig.desktop.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guarded_command_waits_for_the_user_and_a_declined_one_does_not_run() {
    let rig = rig("sess-thirdparty-guard", &[]).await;
    let model = ScriptedModel::start(vec![
        reply(|_| linux("uname -s", "CONTINUE")),
        reply(|r| {
            let last = r.last_user_text();
            assert!(last.contains("Linux"), "{last}");
            linux("ls /", "CONTINUE")
        }),
    ])
    .await;
    // The first command is confirmed, the second declined.
    let (reports, io) = normal(
        &rig,
        &model,
        "SAFE_GUARD: true\nSAFE_GUARD_TOOLS: [execute_command]\nENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]\n",
        &["y", "n"],
        "which operating system is this?",
        Some("LinuxAgent"),
        "thirdparty-guard",
    )
    .await;
    let r = &reports[0];
    let transcript = io.transcript();
    let asked: Vec<&String> = transcript
        .iter()
        .filter(|l| l.contains("Do you want to proceed"))
        .collect();
    assert_eq!(asked.len(), 2, "{transcript:?}");
    assert!(
        asked[1].contains("execute_command(command=\"ls /\")"),
        "{asked:?}"
    );
    let lines = steps(&r.log_dir.join("response.log"));
    let ran = executed(&lines);
    assert_eq!(ran.len(), 2, "{ran:?}");
    assert_eq!(
        (ran[0].0.as_str(), ran[0].1),
        ("uname -s", ActionStatus::Success)
    );
    assert_eq!(
        (ran[1].0.as_str(), ran[1].2.as_str()),
        ("ls /", "ufo::agent::declined")
    );
    // The declined step says so; the CONFIRM was on disk before the answer.
    let statuses: Vec<StepStatus> = lines.iter().map(|l| l.status).collect();
    assert!(statuses.contains(&StepStatus::Confirm), "{statuses:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.comment.contains("declined by the user")),
        "{lines:?}"
    );
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    rig.desktop.stop().unwrap();
}
