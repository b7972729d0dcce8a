//! Sessions on real applications in private headless desktops, with a
//! scripted model served over HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use std::sync::Arc;
use ufo_agent::ScriptedIo;
use ufo_session::{Mode, SessionStatus};
use ufo_testkit::scripted::ScriptedModel;

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
    let cfg = base_config(&model, "");
    let io = Arc::new(ScriptedIo::new(Vec::<String>::new()));
    let reports = run(
        &rig,
        cfg,
        io,
        Mode::Normal,
        Some("compute 12*7 in the calculator"),
        None,
        None,
        "calc 12*7",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    assert_eq!(calculator_display(&rig.backend).await, "84");
    assert_eq!(r.steps, 8);
    assert_eq!(r.subtasks.len(), 1);
    assert_eq!(r.subtasks[0].status, "FINISH");
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
    // App prompts carry the screenshots (clean + annotated, then the last step's too).
    assert_eq!(reqs[1].image_count(), 2);
    assert_eq!(reqs[2].image_count(), 3);

    // Logs.
    assert_eq!(r.log_dir.file_name().unwrap(), "calc_12_7");
    let lines = lines(&r.log_dir.join("response.log"));
    assert_eq!(lines.len(), 8);
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["session_step"], i + 1);
        for k in [
            "agent_name",
            "parsed_response",
            "actions",
            "status",
            "cost",
            "execution_times",
            "total_time",
        ] {
            assert!(l.get(k).is_some(), "line {i} lacks {k}: {l}");
        }
        assert!(l["execution_times"]["LLM_INTERACTION"].is_number(), "{l}");
    }
    assert_eq!(lines[0]["agent_name"], "HostAgent");
    assert_eq!(lines[0]["status"], "ASSIGN");
    assert_eq!(lines[1]["agent_name"], "AppAgent/gnome-calculator");
    assert_eq!(lines[1]["actions"][0]["result"]["status"], "success");
    assert_eq!(lines[7]["status"], "FINISH");
    for f in [
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

fn write_demo_cassettes(lines: &[serde_json::Value]) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/demo");
    std::fs::create_dir_all(&dir).unwrap();
    let mut host = String::new();
    let mut app = String::new();
    for l in lines {
        for raw in l["raw_replies"].as_array().unwrap() {
            let entry = serde_json::json!({
                "request": {"recorded": "sequential replay: the request is not compared"},
                "response": {"text": raw, "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                             "cost": null, "model": "recorded-demo", "provider": "replay", "latency_ms": 0}
            });
            let target = if l["agent_name"] == "HostAgent" { &mut host } else { &mut app };
            target.push_str(&entry.to_string());
            target.push('\n');
        }
    }
    std::fs::write(dir.join("host.cassette.jsonl"), host).unwrap();
    std::fs::write(dir.join("app.cassette.jsonl"), app).unwrap();
}
