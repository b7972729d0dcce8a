//! The HostAgent reply in the seed's own format (UFO's legacy keys:
//! `ControlLabel`/`ControlText` naming the application, status `CONTINUE`,
//! and a `Bash` command beside them) does what UFO's HostAgent does: the
//! command runs (through the allowlist and SAFE_GUARD), then the application
//! the label names is selected and its AppAgent gets the sub-task. A label
//! that names no window is sent back to the model with the reason; a command
//! that is refused is said, with why.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;
use ufo_session::SessionStatus;
use ufo_testkit::scripted::{ScriptedModel, reply};

/// A HostAgent reply with every key of the seed's example.
fn seed_reply(label: &str, text: &str, subtask: &str, bash: &str) -> String {
    json!({
        "Observation": "Desktop screenshot",
        "Thought": format!("{text} does the sub-task"),
        "Current Sub-Task": subtask,
        "Message": "Message to AppAgent",
        "ControlLabel": label,
        "ControlText": text,
        "Plan": [],
        "Status": "CONTINUE",
        "Comment": "",
        "Questions": [],
        "Bash": bash
    })
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seed_continue_with_a_control_label_selects_that_application() {
    let rig = rig("sess-seed-select", &["gnome-calculator"]).await;
    let model = ScriptedModel::start(vec![
        // A label that names no window: the model is told, with the windows.
        reply(|_| seed_reply("9", "LibreOffice Writer", "Enter 7.", "")),
        reply(|r| {
            let said = r.last_user_text();
            assert!(
                said.contains("no listed window") && said.contains("LibreOffice Writer"),
                "{said}"
            );
            let (id, name) = r.window("gnome-calculator").unwrap();
            seed_reply(&id, &name, "Enter 7.", "")
        }),
        click("7", "FINISH"),
        host_finish("7 entered"),
    ])
    .await;
    let (reports, io) = normal(
        &rig,
        &model,
        "SAFE_GUARD: false\n",
        &[],
        "enter 7 in the calculator",
        None,
        "seed-select",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    // The application was selected and its AppAgent did the sub-task.
    assert_eq!(calculator_display(&rig.backend).await, "7");
    let lines = steps(&r.log_dir.join("response.log"));
    let host = &lines[0];
    assert_eq!(host.agent_type, AgentKind::HostAgent);
    assert_eq!(host.application, "gnome-calculator", "{host:?}");
    assert_eq!(host.subtask, "Enter 7.");
    let selected: Vec<_> = host
        .actions
        .iter()
        .map(|a| (a.function.as_str(), a.result.status))
        .collect();
    assert_eq!(
        selected,
        [("select_application_window", ActionStatus::Success)]
    );
    assert_eq!(lines[1].agent_type, AgentKind::AppAgent, "{lines:?}");
    // The console says the label was re-asked and how the reply was read.
    let shown = io.transcript().join("\n");
    assert!(
        shown.contains("re-asked:") && shown.contains("no listed window"),
        "{shown}"
    );
    assert!(shown.contains("read as ASSIGN"), "{shown}");
    rig.desktop.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seed_bash_beside_a_control_label_runs_then_selects_or_says_why_not() {
    let rig = rig("sess-seed-bash", &["gnome-calculator"]).await;
    let victim = rig.logs.path().join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let rm = format!("rm {}", victim.display());
    let model = ScriptedModel::start(vec![
        // A command that is not an application: refused, nothing selected.
        reply(move |_| seed_reply("2", "mousepad", "Type the note.", &rm)),
        reply(|r| {
            let said = r.last_user_text();
            assert!(said.contains("not an application"), "{said}");
            assert!(r.window("mousepad").is_none(), "mousepad is open already");
            seed_reply("2", "mousepad", "Type the note.", "mousepad")
        }),
        reply(|r| {
            let id = r
                .control_id_of_type("Document")
                .or_else(|| r.control_id_of_type("Edit"))
                .unwrap_or_else(|| panic!("not mousepad's controls:\n{}", r.text()));
            json!({"observation": "an empty document", "thought": "type the note", "action": {"function": "set_edit_text", "arguments": {"id": id, "name": "", "text": "started by the seed"}, "status": "FINISH"}, "result": "typed"}).to_string()
        }),
        host_finish("note typed in mousepad"),
    ])
    .await;
    // SAFE_GUARD asks before mousepad starts; the user agrees.
    let (reports, io) = normal(
        &rig,
        &model,
        "",
        &["y"],
        "write 'started by the seed' in mousepad",
        None,
        "seed-bash",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    let texts = app_texts(&rig.backend, "mousepad").await;
    assert!(
        texts.iter().any(|t| t.contains("started by the seed")),
        "{texts:?}"
    );
    // A step written as it waits for SAFE_GUARD is written again complete:
    // the last line of each step.
    let mut lines = steps(&r.log_dir.join("response.log"));
    lines.dedup_by(|later, earlier| {
        let same = later.session_step == earlier.session_step;
        if same {
            std::mem::swap(later, earlier);
        }
        same
    });
    let acts = |i: usize| -> Vec<(String, ActionStatus)> {
        lines[i]
            .actions
            .iter()
            .map(|a| (a.function.clone(), a.result.status))
            .collect()
    };
    // Refused: the command is logged as failed and nothing is selected.
    assert_eq!(
        acts(0),
        [("run_shell".to_owned(), ActionStatus::Failure)],
        "{lines:?}"
    );
    assert_eq!(lines[0].status, StepStatus::Continue);
    // Then: the command runs, and the application it opened is selected.
    assert_eq!(
        acts(1),
        [
            ("run_shell".to_owned(), ActionStatus::Success),
            (
                "select_application_window".to_owned(),
                ActionStatus::Success
            )
        ],
        "{lines:?}"
    );
    assert_eq!(lines[1].application, "mousepad");
    assert_eq!(lines[2].agent_type, AgentKind::AppAgent, "{lines:?}");
    // The console says why the first was not selected; only the command
    // that can run is put to the user.
    let transcript = io.transcript();
    let shown = transcript.join("\n");
    assert!(
        shown.contains("\"mousepad\" (ControlLabel \"2\") was not selected")
            && shown.contains("did not run"),
        "{shown}"
    );
    let asked: Vec<&String> = transcript
        .iter()
        .filter(|l| l.contains("Do you want to proceed"))
        .collect();
    assert_eq!(asked.len(), 1, "{transcript:?}");
    assert!(asked[0].contains("bash_command=\"mousepad\""), "{asked:?}");
    rig.desktop.stop().unwrap();
}
