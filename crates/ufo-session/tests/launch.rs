//! The HostAgent manages the application lifecycle: an application the
//! request needs and that is not open is started with `run_shell` (no shell,
//! allowlisted programs only), confirmed under SAFE_GUARD, then assigned.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;
use ufo_session::SessionStatus;
use ufo_testkit::scripted::{ScriptedModel, fixed, reply};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_starts_mousepad_when_only_the_calculator_runs() {
    let rig = rig("sess-launch", &["gnome-calculator"]).await;
    let victim = rig.logs.path().join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let rm = format!("rm {}", victim.display());
    let model = ScriptedModel::start(vec![
        // A command that is not an application is refused; the host is told.
        reply(move |r| {
            assert!(r.window("mousepad").is_none(), "mousepad is already open");
            assert!(r.system().contains("run_shell"), "{}", r.system());
            json!({"observation": "only a calculator", "thought": "clean up first", "status": "CONTINUE", "function": "run_shell", "arguments": {"bash_command": rm}}).to_string()
        }),
        reply(|r| {
            // The host sees why its command was refused.
            let last = r.last_user_text();
            assert!(last.contains("run_shell") && last.contains("not an application"), "{last}");
            // The prompt names what can be started.
            let started = r.system();
            let line = started.lines().find(|l| l.contains("can be started")).unwrap_or_default().to_owned();
            assert!(line.contains("mousepad"), "{line}");
            json!({"observation": "no editor open", "thought": "start mousepad", "status": "CONTINUE", "function": "run_shell", "arguments": {"bash_command": "mousepad"}}).to_string()
        }),
        host_assign("mousepad", "Type the note.", "Write: started by the host"),
        reply(|r| {
            let id = r.control_id_of_type("Document").or_else(|| r.control_id_of_type("Edit")).unwrap();
            json!({"observation": "an empty document", "thought": "type the note", "action": {"function": "set_edit_text", "arguments": {"id": id, "name": "", "text": "started by the host"}, "status": "FINISH"}, "result": "typed"}).to_string()
        }),
        fixed(json!({"observation": "done", "thought": "done", "status": "FINISH", "result": "note typed in mousepad"}).to_string()),
    ])
    .await;
    // SAFE_GUARD asks before the command runs; the user agrees.
    let (reports, io) = normal(
        &rig,
        &model,
        "",
        &["y"],
        "write 'started by the host' in mousepad",
        None,
        "launch",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    let transcript = io.transcript();
    let asked: Vec<&String> = transcript
        .iter()
        .filter(|l| l.contains("Do you want to proceed"))
        .collect();
    // Only the command that can run is put to the user.
    assert_eq!(asked.len(), 1, "{transcript:?}");
    assert!(
        asked[0].contains("run_shell(bash_command=\"mousepad\")"),
        "{transcript:?}"
    );
    // The refused command did not run; the application did.
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    assert!(
        app_texts(&rig.backend, "mousepad")
            .await
            .iter()
            .any(|t| t.contains("started by the host")),
        "{:?}",
        app_texts(&rig.backend, "mousepad").await
    );
    let lines = steps(&r.log_dir.join("response.log"));
    let launched = lines
        .iter()
        .flat_map(|l| &l.actions)
        .filter(|a| a.function == "run_shell")
        .map(|a| a.result.status)
        .collect::<Vec<_>>();
    assert_eq!(
        launched,
        [ActionStatus::Failure, ActionStatus::Success],
        "{lines:?}"
    );
    rig.desktop.stop().unwrap();
}
