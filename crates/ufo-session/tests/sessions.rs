//! Sessions on real applications in private headless desktops, with a
//! scripted model served over HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use ufo_session::ScriptedIo;
use ufo_session::SessionStatus;
use ufo_testkit::scripted::ScriptedModel;

/// UFO's control log of the calculator button pressed at `step` (the
/// second line of the log in `dir`): class (AT-SPI has none: the role), type
/// and automation id, each key written, kept out of what the model is shown.
fn button_control_log(dir: &std::path::Path, step: &ufo_agent::StepRecord) {
    let log = step.control_log.as_ref().unwrap();
    assert_eq!(log.control_type.as_deref(), Some("Button"), "{log:?}");
    assert_eq!(log.control_class.as_deref(), Some("button"), "{log:?}");
    assert_eq!(step.actions[0].control_log.as_ref(), Some(log));
    assert!(step.actions[0].result.result.get("control_log").is_none());
    assert!(
        !step.actions[0]
            .action_representation
            .contains("control_log")
    );
    let raw = std::fs::read_to_string(dir.join("response.log")).unwrap();
    let second: serde_json::Value = serde_json::from_str(raw.lines().nth(1).unwrap()).unwrap();
    for k in ["control_class", "control_type", "control_automation_id"] {
        assert!(second["control_log"].get(k).is_some(), "{k}: {second}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_app_host_computes_12_times_7() {
    let rig = rig("sess-calc", &["gnome-calculator"]).await;
    let model = ScriptedModel::start(vec![
        host_assign(
            "gnome-calculator",
            "Compute 12*7 with the calculator's buttons.",
            "Click 1, 2, ×, 7, =",
        ),
        click("1", "CONTINUE"),
        click("2", "CONTINUE"),
        click("×", "CONTINUE"),
        click("7", "CONTINUE"),
        click("=", "CONTINUE"),
        app_finish("84"),
        host_finish("12*7 = 84"),
    ])
    .await;
    let (reports, _) = normal(
        &rig,
        &model,
        "",
        &[],
        "compute 12*7 in the calculator",
        None,
        "calc 12*7",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    assert_eq!(calculator_display(&rig.backend).await, "84");
    // The calculator as the session left it.
    let last = image::open(r.log_dir.join("action_step_final.png")).unwrap();
    assert!(last.width() > 100 && last.height() > 100);
    assert!(r.log_dir.join("action_round_0_final.png").exists());
    assert_eq!(r.steps, 8);
    assert_eq!(r.subtasks.len(), 1);
    assert_eq!(r.subtasks[0].status.as_str(), "FINISH");
    assert_eq!(r.subtasks[0].result, "84");
    assert_eq!(model.remaining(), 0);

    // The HostAgent's second prompt lists the finished sub-task.
    let reqs = model.requests();
    let last = reqs.last().unwrap().last_user_text();
    assert!(
        last.contains(
            "<Earlier Sub-tasks Assigned and Completion Status:> [{\"subtask\":\"Compute 12*7"
        ),
        "{last}"
    );
    assert!(last.contains("\"status\":\"FINISH\""), "{last}");
    // The HostAgent sees the desktop: one PNG screenshot before the window list.
    let host_images = reqs[0].image_urls();
    assert_eq!(host_images.len(), 1, "host prompt images");
    assert!(host_images[0].starts_with("data:image/png;base64,"));
    assert!(
        reqs[0]
            .text()
            .contains("Current Screenshot of the desktop:")
    );
    // App prompts carry the screenshots (clean + annotated, then the last step's too).
    assert_eq!(reqs[1].image_count(), 2);
    assert_eq!(reqs[2].image_count(), 3);

    // Logs.
    assert_eq!(r.log_dir.file_name().unwrap(), "calc_12_7");
    // Every line reads back as a step record.
    let lines = steps(&r.log_dir.join("response.log"));
    assert_eq!(lines.len(), 8);
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l.session_step, i + 1);
        assert!(l.phase_time(Phase::LlmInteraction) > 0.0, "{l:?}");
    }
    assert_eq!(lines[0].agent_type, AgentKind::HostAgent);
    assert_eq!(lines[0].agent_name, "HostAgent");
    assert_eq!(lines[0].status, StepStatus::Assign);
    // UFO's name: AppAgent/<application>/<its window>.
    assert_eq!(lines[1].agent_name, "AppAgent/gnome-calculator/Calculator");
    assert_eq!(lines[1].actions[0].result.status, ActionStatus::Success);
    button_control_log(&r.log_dir, &lines[1]);
    assert_eq!(lines[7].status, StepStatus::Finish);
    assert_eq!(lines[0].screenshots["clean"], "action_step1.png");
    assert!(!r.log_dir.join("ui_trees").exists(), "SAVE_UI_TREE is off");
    for f in [
        "action_step1.png",
        "action_step8.png",
        "action_step2.png",
        "action_step2_annotated.png",
        "action_step2_selected_controls.png",
    ] {
        assert!(r.log_dir.join(f).exists(), "{f}");
    }
    let request_log = std::fs::read_to_string(r.log_dir.join("request.log")).unwrap();
    assert!(
        !request_log.contains("base64"),
        "request.log inlines images"
    );
    assert!(request_log.contains("action_step2_annotated.png"));
    let host_request: serde_json::Value =
        serde_json::from_str(request_log.lines().next().unwrap()).unwrap();
    assert_eq!(host_request["agent"], "HostAgent");
    assert_eq!(
        host_request["image_list"],
        serde_json::json!(["action_step1.png"])
    );
    assert!(
        host_request["prompts"][0]
            .to_string()
            .contains("\"action_step1.png\"")
    );
    let md = std::fs::read_to_string(r.log_dir.join("output.md")).unwrap();
    for i in 1..=8 {
        assert!(
            md.contains(&format!("### Step {i} ")),
            "output.md lacks step {i}"
        );
    }
    // `UFO_WRITE_DEMO_CASSETTES=1 cargo test -p ufo-session --test sessions host_app_host`
    // regenerates the replay cassettes of `ufo demo` from this run.
    if std::env::var_os("UFO_WRITE_DEMO_CASSETTES").is_some() {
        write_demo_cassettes(&lines);
    }
    rig.desktop.stop().unwrap();
}

fn write_demo_cassettes(lines: &[StepRecord]) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/demo");
    std::fs::create_dir_all(&dir).unwrap();
    let mut host = String::new();
    let mut app = String::new();
    for l in lines {
        for raw in &l.raw_replies {
            let entry = serde_json::json!({
                "request": {"recorded": "sequential replay: the request is not compared"},
                "response": {"text": raw, "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                             "cost": null, "model": "recorded-demo", "provider": "replay", "latency_ms": 0}
            });
            let target = if l.agent_type == AgentKind::HostAgent {
                &mut host
            } else {
                &mut app
            };
            target.push_str(&entry.to_string());
            target.push('\n');
        }
    }
    std::fs::write(dir.join("host.cassette.jsonl"), host).unwrap();
    std::fs::write(dir.join("app.cassette.jsonl"), app).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_applications_pass_the_result_back_through_the_host() {
    let rig = rig("sess-two", &["gnome-calculator", "mousepad"]).await;
    let model = ScriptedModel::start(vec![
        host_assign("gnome-calculator", "Compute 12*7 in the calculator.", ""),
        click("1", "CONTINUE"),
        click("2", "CONTINUE"),
        click("×", "CONTINUE"),
        click("7", "CONTINUE"),
        click("=", "CONTINUE"),
        // The seed's SaveScreenshot: the display goes on the blackboard.
        ufo_testkit::scripted::fixed(
            serde_json::json!({"Observation": "84", "Thought": "done", "Status": "FINISH", "Function": "summary", "Args": {"text": "84"}, "SaveScreenshot": {"save": true, "reason": "the display shows 84"}, "Result": "84"}).to_string(),
        ),
        ufo_testkit::scripted::reply(|r| {
            // The calculator's result reached the host.
            assert!(r.last_user_text().contains("\"result\":\"84\""), "{}", r.last_user_text());
            // So did the saved screenshot, as UFO's blackboard gives it to
            // the HostAgent: its reason, then the image, before the desktop.
            assert!(r.text().contains("the display shows 84"), "{}", r.text());
            assert_eq!(r.image_count(), 2, "{}", r.text());
            let (id, name) = r.window("mousepad").unwrap();
            app_reply(serde_json::json!({"observation": "84 computed", "thought": "type it into mousepad", "current_subtask": "Type the result into the document.", "message": ["The result is 84."], "status": "ASSIGN", "function": "select_application_window", "arguments": {"id": id, "name": name}}))
        }),
        ufo_testkit::scripted::reply(|r| {
            assert!(r.last_user_text().contains("The result is 84."));
            let id = r.control_id_of_type("Document").or_else(|| r.control_id_of_type("Edit")).unwrap();
            app_reply(serde_json::json!({"observation": "empty document", "thought": "type 84", "action": {"function": "set_edit_text", "arguments": {"id": id, "name": "", "text": "84", "clear_current_text": true}, "status": "FINISH"}}))
        }),
        host_finish("84 typed into mousepad"),
    ])
    .await;
    // Replacing the document's text is sensitive: SAFE_GUARD asks, the user agrees.
    let (reports, io) = normal(
        &rig,
        &model,
        "",
        &["y"],
        "compute 12*7 in the calculator and type the result into mousepad",
        None,
        "two apps",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    assert_eq!(r.subtasks.len(), 2);
    assert_eq!(r.subtasks[0].application, "gnome-calculator");
    assert_eq!(r.subtasks[1].application, "mousepad");
    assert!(
        io.transcript()
            .iter()
            .any(|l| l.contains("SAFE_GUARD") && l.contains("replaces")),
        "{:?}",
        io.transcript()
    );
    assert!(
        app_texts(&rig.backend, "mousepad")
            .await
            .iter()
            .any(|t| t == "84")
    );
    let lines = steps(&r.log_dir.join("response.log"));
    let agents: std::collections::BTreeSet<String> =
        lines.iter().map(|l| l.agent_name.clone()).collect();
    assert!(
        agents.contains("AppAgent/gnome-calculator/Calculator")
            && agents.iter().any(|a| a.starts_with("AppAgent/mousepad/")),
        "{agents:?}"
    );
    rig.desktop.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn action_sequence_stops_at_the_failure_and_reports_it() {
    let rig = rig("sess-seq", &["gnome-calculator"]).await;
    let model = ScriptedModel::start(vec![
        ufo_testkit::scripted::reply(|r| {
            assert!(r.system().contains("SEQUENCE"), "system_as is used");
            let id = |n: &str| r.control_id(n).unwrap();
            app_reply(serde_json::json!({"observation": "0", "thought": "four actions", "action": [
                {"function": "click_input", "arguments": {"id": id("1"), "name": "1"}, "status": "CONTINUE"},
                {"function": "click_input", "arguments": {"id": id("2"), "name": "2"}, "status": "CONTINUE"},
                {"function": "keyboard_input", "arguments": {"keys": "{NOSUCHKEY}", "control_focus": false}, "status": "CONTINUE"},
                {"function": "click_input", "arguments": {"id": id("7"), "name": "7"}, "status": "FINISH"}
            ]}))
        }),
        ufo_testkit::scripted::reply(|r| {
            let t = r.last_user_text();
            assert!(t.contains("keyboard_input") && t.contains("[Status] failure"), "{t}");
            assert!(t.contains("[Status] skipped"), "{t}");
            app_reply(serde_json::json!({"observation": "12", "thought": "the third action failed; stop here", "status": "FINISH", "result": "12"}))
        }),
    ])
    .await;
    let (reports, _) = normal(
        &rig,
        &model,
        "ACTION_SEQUENCE: true\n",
        &[],
        "type 12*7",
        Some("gnome-calculator"),
        "sequence",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish, "{:?}", reports[0]);
    let lines = steps(&reports[0].log_dir.join("response.log"));
    let st: Vec<ActionStatus> = lines[0].actions.iter().map(|a| a.result.status).collect();
    assert_eq!(
        st,
        [
            ActionStatus::Success,
            ActionStatus::Success,
            ActionStatus::Failure,
            ActionStatus::Skipped
        ]
    );
    assert_eq!(
        lines[0].status,
        StepStatus::Continue,
        "a failed sequence cannot finish"
    );
    assert_eq!(calculator_display(&rig.backend).await, "12");
    assert_eq!(model.remaining(), 0);
    rig.desktop.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_replies_are_repaired_or_re_asked() {
    let rig = rig("sess-bad", &["gnome-calculator"]).await;
    let act = |n: &str, id: String| serde_json::json!({"observation": "calc", "thought": format!("click {n}"), "action": {"function": "click_input", "arguments": {"id": id, "name": n}, "status": "CONTINUE"}});
    let model = ScriptedModel::start(vec![
        // Fenced JSON.
        ufo_testkit::scripted::reply(move |r| format!("```json\n{}\n```", act("1", r.control_id("1").unwrap()))),
        // Prose around the JSON.
        ufo_testkit::scripted::reply(move |r| format!("Sure! Here is my answer:\n{}\nGood luck.", act("2", r.control_id("2").unwrap()))),
        // A missing required field → re-asked with the error.
        ufo_testkit::scripted::fixed(r#"{"observation": "calc", "action": {"function": "click_input", "arguments": {"id": "1", "name": "1"}}}"#),
        ufo_testkit::scripted::reply(move |r| {
            assert!(r.last_user_text().contains("thought"), "the re-ask names the field: {}", r.last_user_text());
            act("×", r.control_id("×").unwrap()).to_string()
        }),
        // An unknown id with a name: repaired from the name.
        ufo_testkit::scripted::reply(move |_| act("7", "999".into()).to_string()),
        // An unknown id without a name: re-asked.
        ufo_testkit::scripted::fixed(r#"{"observation": "calc", "thought": "t", "action": {"function": "click_input", "arguments": {"id": "999"}, "status": "CONTINUE"}}"#),
        ufo_testkit::scripted::reply(move |r| {
            assert!(r.last_user_text().contains("no control with id 999"), "{}", r.last_user_text());
            act("=", r.control_id("=").unwrap()).to_string()
        }),
        app_finish("84"),
    ])
    .await;
    let (reports, _) = normal(
        &rig,
        &model,
        "JSON_PARSING_RETRY: 2\n",
        &[],
        "compute 12*7",
        Some("gnome-calculator"),
        "malformed",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish, "{:?}", reports[0]);
    assert_eq!(calculator_display(&rig.backend).await, "84");
    let lines = steps(&reports[0].log_dir.join("response.log"));
    assert_eq!(lines[2].llm_attempts, 2);
    assert!(lines[2].parse_errors[0].contains("thought"));
    assert!(lines[3].repairs[0].contains("999"), "{:?}", lines[3]);
    assert_eq!(lines[4].llm_attempts, 2);

    // Replies that never parse: ERROR after JSON_PARSING_RETRY re-asks, logs intact.
    let bad = ScriptedModel::start(vec![
        ufo_testkit::scripted::fixed("I'd rather chat."),
        ufo_testkit::scripted::fixed("{\"observation\": 1}"),
        ufo_testkit::scripted::fixed("no json here"),
    ])
    .await;
    let (reports, bad_io) = normal(
        &rig,
        &bad,
        "JSON_PARSING_RETRY: 2\n",
        &[],
        "compute 12*7",
        Some("gnome-calculator"),
        "hopeless",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Error);
    assert_eq!(
        r.error.as_ref().unwrap().code,
        "ufo::agent::parse_retry_exhausted"
    );
    // The code is printed once, the help line once.
    let shown = bad_io.transcript().join("\n");
    assert!(
        shown.contains("error[ufo::agent::parse_retry_exhausted]"),
        "{shown}"
    );
    assert!(!shown.contains("ufo::report"), "{shown}");
    assert_eq!(shown.matches("help:").count(), 1, "{shown}");
    assert_eq!(bad.requests().len(), 3);
    let lines = common::steps(&r.log_dir.join("response.log"));
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].status, StepStatus::Error);
    assert_eq!(lines[0].parse_errors.len(), 3);
    assert!(r.log_dir.join("output.md").exists());

    // A 5 MB reply: refused before any scanning, re-asked, then ERROR with the
    // reason; the whole reply is kept once, the log line stays small.
    let huge = format!("{{\"observation\": \"{}", "{".repeat(5 * 1024 * 1024));
    let flood = ScriptedModel::start(vec![
        ufo_testkit::scripted::fixed(huge.clone()),
        ufo_testkit::scripted::fixed(huge.clone()),
    ])
    .await;
    let (reports, _) = normal(
        &rig,
        &flood,
        "JSON_PARSING_RETRY: 1\n",
        &[],
        "compute 12*7",
        Some("gnome-calculator"),
        "flood",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Error);
    let e = r.error.as_ref().unwrap();
    assert!(e.message.contains("bytes"), "{e:?}");
    let log = std::fs::metadata(r.log_dir.join("response.log"))
        .unwrap()
        .len();
    assert!(log < 1024 * 1024, "response.log is {log} bytes");
    assert!(r.log_dir.join("replies").join("step1_reply0.txt").exists());
    let md = std::fs::read_to_string(r.log_dir.join("output.md")).unwrap();
    assert!(md.contains("**Error:**"), "{md}");
    rig.desktop.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confirm_declined_does_not_execute_the_action() {
    let rig = rig("sess-confirm", &["mousepad"]).await;
    let model = ScriptedModel::start(vec![ufo_testkit::scripted::reply(|r| {
        let id = r.control_id_of_type("Document").or_else(|| r.control_id_of_type("Edit")).unwrap();
        app_reply(serde_json::json!({"observation": "a document", "thought": "overwriting is irreversible: ask first", "action": {"function": "set_edit_text", "arguments": {"id": id, "name": "", "text": "OVERWRITTEN", "clear_current_text": true}, "status": "CONFIRM"}}))
    })])
    .await;
    let (reports, io) = normal(
        &rig,
        &model,
        "SAFE_GUARD: true\n",
        &["n"],
        "overwrite the document",
        Some("mousepad"),
        "confirm",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    assert!(
        io.transcript()
            .iter()
            .any(|l| l.contains("sensitive") && l.contains("set_edit_text")),
        "{:?}",
        io.transcript()
    );
    assert!(
        !app_texts(&rig.backend, "mousepad")
            .await
            .iter()
            .any(|t| t.contains("OVERWRITTEN"))
    );
    // The step was on disk as it waited (CONFIRM), then completed (FINISH).
    let lines = steps(&r.log_dir.join("response.log"));
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].status, StepStatus::Confirm);
    assert_eq!(lines[1].status, StepStatus::Finish);
    assert!(lines[1].actions.is_empty());

    // The model does not ask, but replacing the text is sensitive: SAFE_GUARD
    // asks in code, the user says no, the document is untouched.
    let model = ScriptedModel::start(vec![ufo_testkit::scripted::reply(|r| {
        let id = r.control_id_of_type("Document").or_else(|| r.control_id_of_type("Edit")).unwrap();
        app_reply(serde_json::json!({"observation": "a document", "thought": "just overwrite it", "action": {"function": "set_edit_text", "arguments": {"id": id, "name": "", "text": "OVERWRITTEN", "clear_current_text": true}, "status": "CONTINUE"}}))
    })])
    .await;
    let (reports, io) = normal(
        &rig,
        &model,
        "",
        &["n"],
        "overwrite the document",
        Some("mousepad"),
        "guard",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish, "{:?}", reports[0]);
    assert!(
        io.transcript()
            .iter()
            .any(|l| l.contains("SAFE_GUARD") && l.contains("set_edit_text")),
        "{:?}",
        io.transcript()
    );
    assert!(
        !app_texts(&rig.backend, "mousepad")
            .await
            .iter()
            .any(|t| t.contains("OVERWRITTEN"))
    );
    rig.desktop.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn save_ui_tree_writes_the_window_tree_of_each_app_step() {
    let rig = rig("sess-tree", &["gnome-calculator"]).await;
    let model = ScriptedModel::start(vec![click("4", "CONTINUE"), app_finish("4")]).await;
    let (reports, _) = normal(
        &rig,
        &model,
        "SAVE_UI_TREE: true\n",
        &[],
        "type 4",
        Some("gnome-calculator"),
        "trees",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    assert_eq!(r.steps, 2);
    for step in 1..=2 {
        let p = r.log_dir.join(format!("ui_trees/ui_tree_step{step}.json"));
        let tree: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(tree["window"]["app_name"], "gnome-calculator", "{p:?}");
        let nodes = tree["nodes"].as_array().unwrap();
        // The whole tree, not only the labelled controls: buttons and the display.
        assert!(nodes.iter().any(|n| n["name"] == "4"), "{p:?}");
        assert!(nodes.iter().any(|n| n["role"] == "text"), "{p:?}");
        assert!(nodes.len() > steps(&r.log_dir.join("response.log"))[0].control_count);
    }
    // The step-2 tree shows the effect of step 1.
    let after = std::fs::read_to_string(r.log_dir.join("ui_trees/ui_tree_step2.json")).unwrap();
    assert!(
        after.contains("\"value\":\"4\""),
        "the display reads 4 in the step-2 tree"
    );
    assert!(!r.log_dir.join("ui_trees/ui_tree_step3.json").exists());
    rig.desktop.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pending_questions_are_asked_and_answered_in_the_next_prompt() {
    let rig = rig("sess-pending", &["gnome-calculator"]).await;
    let host_q = "Which number should be multiplied by 7?";
    let app_q = "Should I clear the display first?";
    let model = ScriptedModel::start(vec![
        ufo_testkit::scripted::fixed(
            serde_json::json!({"observation": "a calculator", "thought": "the number is missing", "status": "PENDING", "questions": [host_q]}).to_string(),
        ),
        ufo_testkit::scripted::reply(move |r| {
            let t = r.last_user_text();
            assert!(t.contains(&format!("Question: {host_q}\nAnswer from the user: 12")), "{t}");
            assert!(t.contains("[Questions:]") && t.contains("\"answer\":\"12\""), "blackboard: {t}");
            let (id, name) = r.window("gnome-calculator").unwrap();
            app_reply(serde_json::json!({"observation": "12 it is", "thought": "assign", "current_subtask": "Compute 12*7.", "status": "ASSIGN", "function": "select_application_window", "arguments": {"id": id, "name": name}}))
        }),
        ufo_testkit::scripted::fixed(
            serde_json::json!({"observation": "the calculator", "thought": "ask first", "status": "PENDING", "questions": [app_q]}).to_string(),
        ),
        ufo_testkit::scripted::reply(move |r| {
            let t = r.last_user_text();
            assert!(t.contains(&format!("Question: {app_q}\nAnswer from the user: no")), "{t}");
            assert!(t.contains("\"answer\":\"12\"") && t.contains("\"answer\":\"no\""), "blackboard: {t}");
            let id = r.control_id("1").unwrap();
            app_reply(serde_json::json!({"observation": "0", "thought": "click 1", "action": {"function": "click_input", "arguments": {"id": id, "name": "1"}, "status": "CONTINUE"}}))
        }),
        click("2", "CONTINUE"),
        click("×", "CONTINUE"),
        click("7", "CONTINUE"),
        click("=", "CONTINUE"),
        app_finish("84"),
        host_finish("84"),
    ])
    .await;
    let (reports, io) = normal(
        &rig,
        &model,
        "",
        &["12", "no"],
        "multiply a number by 7 in the calculator",
        None,
        "pending",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    assert_eq!(model.remaining(), 0);
    assert_eq!(calculator_display(&rig.backend).await, "84");
    let asked: Vec<String> = io
        .transcript()
        .into_iter()
        .filter(|l| l.ends_with('?'))
        .collect();
    assert_eq!(asked, [host_q, app_q]);
    let lines = steps(&r.log_dir.join("response.log"));
    assert_eq!(lines[0].status, StepStatus::Pending);
    assert_eq!(lines[0].agent_type, AgentKind::HostAgent);
    assert_eq!(lines[2].status, StepStatus::Pending);
    assert_eq!(lines[2].agent_name, "AppAgent/gnome-calculator/Calculator");
    rig.desktop.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn normal_mode_asks_for_new_requests_until_n_within_max_round() {
    let rig = rig("sess-rounds", &["gnome-calculator"]).await;
    let model = ScriptedModel::start(vec![
        click("1", "CONTINUE"),
        app_finish("1"),
        ufo_testkit::scripted::reply(|r| {
            let t = r.last_user_text();
            assert!(t.contains("<Overall User Request:> now type 2\n"), "{t}");
            assert!(t.contains("[Requests:]\ntype 1\nnow type 2\n"), "{t}");
            let id = r.control_id("2").unwrap();
            app_reply(serde_json::json!({"observation": "1", "thought": "click 2", "action": {"function": "click_input", "arguments": {"id": id, "name": "2"}, "status": "CONTINUE"}}))
        }),
        app_finish("12"),
    ])
    .await;
    let (reports, io) = normal(
        &rig,
        &model,
        "",
        &["now type 2", "N", "never asked"],
        "type 1",
        Some("gnome-calculator"),
        "rounds",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    assert_eq!(r.requests, ["type 1", "now type 2"]);
    assert_eq!(model.remaining(), 0);
    assert_eq!(calculator_display(&rig.backend).await, "12");
    let new_request = |io: &ScriptedIo| {
        io.transcript()
            .iter()
            .filter(|l| l.contains("new request"))
            .count()
    };
    assert_eq!(new_request(&io), 2, "asked after each round, until N");
    let rounds: Vec<usize> = steps(&r.log_dir.join("response.log"))
        .iter()
        .map(|l| l.round)
        .collect();
    assert_eq!(rounds, [0, 0, 1, 1]);

    // MAX_ROUND: 1 ends the session after the first round without asking.
    let model = ScriptedModel::start(vec![app_finish("12")]).await;
    let (reports, io) = normal(
        &rig,
        &model,
        "MAX_ROUND: 1\n",
        &["another request"],
        "read the display",
        Some("gnome-calculator"),
        "one round",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish);
    assert_eq!(reports[0].requests, ["read the display"]);
    assert_eq!(new_request(&io), 0);
    rig.desktop.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_status_values_are_re_asked_with_the_exact_error() {
    use ufo_core::{AppAgentStatus, HostAgentStatus};
    let rig = rig("sess-status", &["gnome-calculator"]).await;
    let host_error = format!(
        "$.status: unknown status \"ASSIGNED\"; expected one of {}",
        HostAgentStatus::EXPECTED.trim_end()
    );
    let app_error = format!(
        "$.action.status: unknown status \"DONE\"; expected one of {}",
        AppAgentStatus::EXPECTED.trim_end()
    );
    let re_asked = |error: String, then: ufo_testkit::scripted::Reply| {
        ufo_testkit::scripted::reply(move |r| {
            let t = r.last_user_text();
            assert!(
                t.starts_with(&format!("Your last reply could not be used: {error}\n")),
                "{t}"
            );
            then(r)
        })
    };
    let model = ScriptedModel::start(vec![
        ufo_testkit::scripted::fixed(
            serde_json::json!({"observation": "a calculator", "thought": "t", "current_subtask": "Read the display.", "status": "ASSIGNED", "function": "select_application_window", "arguments": {"id": "1", "name": "Calculator"}}).to_string(),
        ),
        re_asked(
            host_error.clone(),
            host_assign("gnome-calculator", "Read the display.", ""),
        ),
        ufo_testkit::scripted::fixed(
            serde_json::json!({"observation": "0", "thought": "t", "action": {"function": "summary", "arguments": {"text": "0"}, "status": "DONE"}}).to_string(),
        ),
        re_asked(app_error.clone(), app_finish("0")),
        host_finish("the display reads 0"),
    ])
    .await;
    let (reports, _) = normal(
        &rig,
        &model,
        "",
        &[],
        "read the calculator's display",
        None,
        "status",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    assert_eq!(model.remaining(), 0);
    let lines = steps(&r.log_dir.join("response.log"));
    let summary: Vec<(StepStatus, u32, Vec<String>)> = lines
        .iter()
        .map(|l| (l.status, l.llm_attempts, l.parse_errors.clone()))
        .collect();
    assert_eq!(
        summary,
        [
            (StepStatus::Assign, 2, vec![host_error]),
            (StepStatus::Finish, 2, vec![app_error]),
            (StepStatus::Finish, 1, vec![])
        ]
    );
    rig.desktop.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_answers_error_ends_the_session_with_its_reason() {
    let rig = rig("sess-model-error", &["gnome-calculator"]).await;
    let model = ScriptedModel::start(vec![ufo_testkit::scripted::fixed(
        serde_json::json!({"observation": "no display", "thought": "cannot go on", "action": {"function": "", "arguments": {}, "status": "ERROR"}, "comment": "the calculator shows no display"}).to_string(),
    )])
    .await;
    let (reports, io) = normal(
        &rig,
        &model,
        "",
        &[],
        "compute 12*7",
        Some("gnome-calculator"),
        "model-error",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Error);
    let e = r.error.as_ref().expect("the session says why it ended");
    assert_eq!(e.code, "ufo::session::model_error");
    assert!(
        e.message.contains("the calculator shows no display"),
        "{e:?}"
    );
    assert!(
        io.transcript()
            .iter()
            .any(|l| l.contains("ufo::session::model_error")),
        "{:?}",
        io.transcript()
    );
    let md = std::fs::read_to_string(r.log_dir.join("output.md")).unwrap();
    assert!(md.contains("no display"), "{md}");
    rig.desktop.stop().unwrap();
}
