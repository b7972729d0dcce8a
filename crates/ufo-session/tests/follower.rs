//! Follower and batch modes on real applications: plans replayed without a
//! model, plan steps as sub-tasks, resumable task folders.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use std::sync::Arc;
use ufo_session::ScriptedIo;
use ufo_session::{Mode, SessionStatus};
use ufo_testkit::scripted::ScriptedModel;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(clippy::too_many_lines)]
async fn follower_actions_and_resumable_batch_on_gedit_without_a_model() {
    let rig = rig("sess-follow", &["gedit"]).await;
    let plans = tempfile::tempdir().unwrap();
    let plan = |text: &str, control: &str| {
        serde_json::json!({"request": format!("write {text:?} in gedit"), "actions": [
            {"agent": "HostAgent", "action": "select_application", "parameters": {"app_name": "gedit"}},
            {"agent": "AppAgent", "action": "set_edit_text", "parameters": {"control_type": control, "text": text, "clear_current_text": true}}
        ]})
        .to_string()
    };
    let text = "Hello from the follower.\nSecond line: {braces} + 100%";
    let single = plans.path().join("single.json");
    std::fs::write(&single, plan(text, "Edit|Document")).unwrap();
    let cfg = config("SLEEP_TIME: 0\nEVA_SESSION: false\n");
    let io = Arc::new(ScriptedIo::new(Vec::<String>::new()));
    let reports = run(
        &rig,
        cfg.clone(),
        io.clone(),
        Mode::Follower,
        None,
        Some(single),
        None,
        "follow",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish, "{:?}", reports[0]);
    assert!(
        app_texts(&rig.backend, "gedit")
            .await
            .iter()
            .any(|t| t == text)
    );

    let batch = plans.path().join("batch");
    std::fs::create_dir_all(&batch).unwrap();
    std::fs::write(batch.join("t1.json"), plan("one", "Edit|Document")).unwrap();
    std::fs::write(batch.join("t2.json"), plan("two", "NoSuchControlType")).unwrap();
    std::fs::write(batch.join("t3.json"), plan("three", "Edit|Document")).unwrap();
    let reports = run(
        &rig,
        cfg.clone(),
        io.clone(),
        Mode::BatchNormal,
        None,
        Some(batch.clone()),
        None,
        "batch",
    )
    .await;
    let st: Vec<SessionStatus> = reports.iter().map(|r| r.status).collect();
    assert_eq!(
        st,
        [
            SessionStatus::Finish,
            SessionStatus::Fail,
            SessionStatus::Finish
        ]
    );
    assert!(
        app_texts(&rig.backend, "gedit")
            .await
            .iter()
            .any(|t| t == "three")
    );
    let status: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(rig.logs.path().join("batch/tasks_status.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        status,
        serde_json::json!({"t1": "finished", "t2": "failed", "t3": "finished"})
    );
    for t in ["t1", "t2", "t3"] {
        assert!(
            rig.logs
                .path()
                .join("batch")
                .join(t)
                .join("response.log")
                .exists(),
            "{t}"
        );
    }
    // Rerun: finished tasks are skipped, the failed one runs again.
    let again = run(
        &rig,
        cfg.clone(),
        io.clone(),
        Mode::BatchNormal,
        None,
        Some(batch.clone()),
        None,
        "batch",
    )
    .await;
    let skipped: Vec<bool> = again.iter().map(|r| r.skipped).collect();
    assert_eq!(skipped, [true, false, true]);
    assert_eq!(again[1].status, SessionStatus::Fail);
    // The rerun of t2 has a folder of its own: the first run's logs are kept.
    assert!(again[1].log_dir.ends_with("t2-2"), "{:?}", again[1].log_dir);
    assert!(rig.logs.path().join("batch/t2/response.log").exists());

    // A corrupt status file: said, kept aside, and every task runs again.
    let status_file = rig.logs.path().join("batch/tasks_status.json");
    std::fs::write(&status_file, "{ not json").unwrap();
    let third = run(
        &rig,
        cfg,
        io.clone(),
        Mode::BatchNormal,
        None,
        Some(batch),
        None,
        "batch",
    )
    .await;
    assert!(third.iter().all(|r| !r.skipped));
    assert_eq!(
        std::fs::read_to_string(status_file.with_extension("json.corrupt")).unwrap(),
        "{ not json"
    );
    assert!(
        io.transcript()
            .iter()
            .any(|l| l.contains("not valid JSON") && l.contains("every task runs again")),
        "{:?}",
        io.transcript()
    );
    rig.desktop.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follower_steps_are_sub_tasks_of_the_app_agent() {
    let rig = rig("sess-steps", &["gnome-calculator"]).await;
    let plans = tempfile::tempdir().unwrap();
    let plan = plans.path().join("steps.json");
    std::fs::write(
        &plan,
        serde_json::json!({
            "task": "compute 12*7 in the calculator",
            "steps": ["1. Enter 12.", "2. Multiply it by 7 and show the result."],
            "object": "",
            "close": false
        })
        .to_string(),
    )
    .unwrap();
    let subtask_is = |step: &'static str, then: &'static str| {
        ufo_testkit::scripted::reply(move |r| {
            let t = r.last_user_text();
            assert!(
                t.contains(&format!("<Sub-task for you to complete:> {step}\n")),
                "{t}"
            );
            let id = r.control_id(then).unwrap();
            app_reply(
                serde_json::json!({"observation": "the calculator", "thought": format!("click {then}"), "action": {"function": "click_input", "arguments": {"id": id, "name": then}, "status": "CONTINUE"}}),
            )
        })
    };
    let model = ScriptedModel::start(vec![
        // No `app` in UFO's plan format: the HostAgent picks the window once.
        host_assign("gnome-calculator", "Compute 12*7.", ""),
        subtask_is("1. Enter 12.", "1"),
        click("2", "CONTINUE"),
        app_finish("12"),
        subtask_is("2. Multiply it by 7 and show the result.", "×"),
        click("7", "CONTINUE"),
        click("=", "CONTINUE"),
        app_finish("84"),
    ])
    .await;
    let cfg = base_config(&model, "");
    let io = Arc::new(ScriptedIo::new(Vec::<String>::new()));
    let reports = run(
        &rig,
        cfg,
        io,
        Mode::Follower,
        None,
        Some(plan),
        None,
        "steps",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    assert_eq!(model.remaining(), 0);
    assert_eq!(calculator_display(&rig.backend).await, "84");
    let subtasks: Vec<(&str, &str)> = r
        .subtasks
        .iter()
        .map(|s| (s.subtask.as_str(), s.status.as_str()))
        .collect();
    assert_eq!(
        subtasks,
        [
            ("1. Enter 12.", "FINISH"),
            ("2. Multiply it by 7 and show the result.", "FINISH")
        ]
    );
    // The second step's prompt reports the first as done.
    let reqs = model.requests();
    let t = reqs[4].last_user_text();
    assert!(
        t.contains("<Previous Sub-tasks Results:> [{\"subtask\":\"1. Enter 12.\""),
        "{t}"
    );
    assert_eq!(r.result, "84");
    // UFO names a follower's AppAgent BatchAgent/<application>/<window>.
    let names: Vec<String> = steps(&r.log_dir.join("response.log"))
        .into_iter()
        .map(|l| l.agent_name)
        .collect();
    assert_eq!(names[0], "HostAgent");
    assert!(
        names[1..]
            .iter()
            .all(|n| n == "BatchAgent/gnome-calculator/Calculator"),
        "{names:?}"
    );
    rig.desktop.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seed_plan_with_ufo_legacy_action_names_replays() {
    let rig = rig("sess-legacy", &["gnome-calculator"]).await;
    let plans = tempfile::tempdir().unwrap();
    let plan = plans.path().join("legacy.json");
    // The plan file format of UFO's session documentation, action names and
    // all (`select_application`, `click_element` with a `label`).
    std::fs::write(
        &plan,
        serde_json::json!({
            "request": "Enter 12 in the calculator",
            "actions": [
                {"agent": "HostAgent", "action": "select_application", "parameters": {"app_name": "gnome-calculator"}},
                {"agent": "AppAgent", "action": "click_element", "parameters": {"label": "1"}},
                {"agent": "AppAgent", "action": "click_element", "parameters": {"label": "2"}}
            ]
        })
        .to_string(),
    )
    .unwrap();
    let cfg = config("SLEEP_TIME: 0\nEVA_SESSION: false\n");
    let io = Arc::new(ScriptedIo::new(Vec::<String>::new()));
    let reports = run(
        &rig,
        cfg,
        io,
        Mode::Follower,
        None,
        Some(plan),
        None,
        "legacy",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish, "{:?}", reports[0]);
    assert_eq!(calculator_display(&rig.backend).await, "12");
    // A replayed step is named as UFO's follower names its agent.
    let names: Vec<String> = steps(&reports[0].log_dir.join("response.log"))
        .into_iter()
        .map(|l| l.agent_name)
        .collect();
    assert_eq!(
        names,
        [
            "HostAgent",
            "BatchAgent/gnome-calculator/Calculator",
            "BatchAgent/gnome-calculator/Calculator"
        ]
    );
    rig.desktop.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replayed_actions_plan_is_evaluated_with_its_final_screenshot() {
    let rig = rig("sess-replay-final", &["gnome-calculator"]).await;
    let plans = tempfile::tempdir().unwrap();
    let plan = plans.path().join("final.json");
    std::fs::write(
        &plan,
        serde_json::json!({
            "request": "Enter 12 in the calculator",
            "actions": [
                {"agent": "HostAgent", "action": "select_application_window", "parameters": {"name": "gnome-calculator"}},
                {"agent": "AppAgent", "action": "click_input", "parameters": {"name": "1"}},
                {"agent": "AppAgent", "action": "click_input", "parameters": {"name": "2"}}
            ]
        })
        .to_string(),
    )
    .unwrap();
    // Only the evaluation asks a model.
    let model = ScriptedModel::start(vec![ufo_testkit::scripted::fixed(
        serde_json::json!({"reason": "12 is shown", "sub_scores": [], "complete": "yes"})
            .to_string(),
    )])
    .await;
    let cfg = config(&format!(
        "SLEEP_TIME: 0\nEVA_SESSION: true\nEVALUATION_AGENT:\n{}",
        model.agent_yaml()
    ));
    let io = Arc::new(ScriptedIo::new(Vec::<String>::new()));
    let reports = run(
        &rig,
        cfg,
        io,
        Mode::Follower,
        None,
        Some(plan),
        None,
        "replay-final",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    assert_eq!(calculator_display(&rig.backend).await, "12");
    // The replay took its final snapshots, like the other modes.
    let last = std::fs::read(r.log_dir.join("action_step_final.png")).unwrap();
    assert!(r.log_dir.join("action_round_0_final.png").exists());
    // The evaluation was asked with that final screenshot.
    assert!(r.evaluation.is_some(), "{r:?}");
    let reqs = model.requests();
    assert_eq!(reqs.len(), 1);
    let shown = reqs[0].image_urls();
    let final_url = ufo_desktop::encode::data_url("image/png", &last);
    assert_eq!(shown.last(), Some(&final_url), "{} images", shown.len());
    rig.desktop.stop().unwrap();
}

/// The names of the applications with a window on the desktop, once
/// `gone` is no longer among them or after ten looks a second apart (an
/// application's registry entry may outlive its last window briefly).
async fn apps_after_closing(b: &ufo_desktop_atspi::AtspiBackend, gone: &str) -> Vec<String> {
    use ufo_desktop::Backend;
    let mut names = Vec::new();
    for _ in 0..10 {
        names = b
            .list_windows()
            .await
            .unwrap()
            .into_iter()
            .map(|w| w.app_name)
            .collect();
        if !names.iter().any(|n| n == gone) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_task_with_close_closes_its_application_when_done() {
    let rig = rig("sess-close", &["gnome-calculator"]).await;
    let plans = tempfile::tempdir().unwrap();
    let task = |dir: &str, close: bool| {
        let d = plans.path().join(dir);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("enter.json"),
            serde_json::json!({
                "request": "Enter 12 in the calculator",
                "app": "gnome-calculator",
                "close": close,
                "actions": [
                    {"agent": "HostAgent", "action": "select_application", "parameters": {"app_name": "gnome-calculator"}},
                    {"agent": "AppAgent", "action": "click_input", "parameters": {"name": "1", "control_type": "Button"}},
                    {"agent": "AppAgent", "action": "click_input", "parameters": {"name": "2", "control_type": "Button"}}
                ]
            })
            .to_string(),
        )
        .unwrap();
        d
    };
    let cfg = config("SLEEP_TIME: 0\nEVA_SESSION: false\n");
    let io = Arc::new(ScriptedIo::new(Vec::<String>::new()));
    // `close: false`: the calculator stays, showing what the task entered.
    let keep = task("keep", false);
    let reports = run(
        &rig,
        cfg.clone(),
        io.clone(),
        Mode::BatchNormal,
        None,
        Some(keep),
        None,
        "keep",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish, "{:?}", reports[0]);
    assert_eq!(calculator_display(&rig.backend).await, "12");

    // `close: true`: done, then closed as a person closes it.
    let close = task("close", true);
    let reports = run(
        &rig,
        cfg,
        io.clone(),
        Mode::BatchNormal,
        None,
        Some(close),
        None,
        "close",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish, "{:?}", reports[0]);
    let open = apps_after_closing(&rig.backend, "gnome-calculator").await;
    assert!(
        !open.iter().any(|n| n == "gnome-calculator"),
        "still open: {open:?}; {:?}",
        io.transcript()
    );
    // The replayed steps are in the task's log.
    let steps = steps(&reports[0].log_dir.join("response.log"));
    assert_eq!(steps.len(), 3);
    rig.desktop.stop().unwrap();
}
