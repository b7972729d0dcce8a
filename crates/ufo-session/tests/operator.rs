//! The operator modes on a real calculator, by coordinates only: a scripted
//! OpenAI Responses server and a scripted Anthropic server answer with
//! computer-use actions at pixels of the screenshot they were sent; a
//! provider's safety check declined without a terminal clicks nothing; in
//! `normal_operator` the HostAgent gives one sub-task to the operator and the
//! next to an AppAgent.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use ufo_core::{Point, Screen};
use ufo_desktop::{Backend, TreeBudget};
use ufo_session::{Mode, ScriptedIo, SessionStatus};
use ufo_testkit::scripted::{Reply, ScriptedModel, ScriptedRequest, reply};

/// Screen centres of the calculator's buttons, and its window's rectangle.
async fn buttons(
    rig: &Rig,
) -> (
    std::collections::HashMap<String, Point<Screen>>,
    ufo_core::geometry::Rect<Screen>,
) {
    let windows = rig.backend.list_windows().await.unwrap();
    let w = windows
        .iter()
        .find(|w| w.app_name == "gnome-calculator")
        .unwrap();
    let tree = rig
        .backend
        .capture_tree(w, &TreeBudget::default())
        .await
        .unwrap();
    let mut out = std::collections::HashMap::new();
    for n in &tree.nodes {
        if n.role.to_ascii_lowercase().contains("button")
            && !n.name.is_empty()
            && let Some(r) = n.rect
        {
            // gnome-calculator names its buttons "7 7" (label and text).
            let key = n.name.split_whitespace().next().unwrap_or_default();
            out.entry(key.to_owned()).or_insert_with(|| r.center());
        }
    }
    if ["1", "2", "×", "7", "="]
        .iter()
        .any(|k| !out.contains_key(*k))
    {
        let seen: Vec<String> = tree
            .nodes
            .iter()
            .filter(|n| n.role.contains("button"))
            .take(60)
            .map(|n| format!("{}:{}:{:?}", n.role, n.name, n.rect))
            .collect();
        panic!("no buttons in {seen:?}");
    }
    (out, w.rect.unwrap())
}

/// The screenshot size the operator announced (`display_width`/`_px`).
fn display(r: &ScriptedRequest) -> (f64, f64) {
    let t = &r.body["tools"][0];
    let w = t
        .get("display_width")
        .or_else(|| t.get("display_width_px"))
        .and_then(Value::as_f64)
        .unwrap();
    let h = t
        .get("display_height")
        .or_else(|| t.get("display_height_px"))
        .and_then(Value::as_f64)
        .unwrap();
    (w, h)
}

/// Where `button` is in the screenshot the model saw: `origin` and `size`
/// are the screen rectangle the screenshot shows.
fn at(r: &ScriptedRequest, p: Point<Screen>, origin: (i32, i32), size: (i32, i32)) -> (i64, i64) {
    let (w, h) = display(r);
    let x = f64::from(p.x - origin.0) * w / f64::from(size.0);
    let y = f64::from(p.y - origin.1) * h / f64::from(size.1);
    (x.round() as i64, y.round() as i64)
}

/// A Responses-API reply clicking `button`; checks the request chains on
/// the previous response and carries a screenshot.
fn responses_click(
    n: usize,
    p: Point<Screen>,
    origin: (i32, i32),
    size: (i32, i32),
    checks: Value,
) -> Reply {
    reply(move |r| {
        assert_eq!(r.body["tools"][0]["type"], "computer_use_preview");
        assert_eq!(r.body["truncation"], "auto");
        match n {
            0 => {
                assert!(r.body.get("previous_response_id").is_none());
                assert!(
                    r.body["input"][0]["content"][0]["text"]
                        .as_str()
                        .unwrap()
                        .contains("12")
                );
                assert!(
                    r.body["input"][0]["content"][1]["image_url"]
                        .as_str()
                        .unwrap()
                        .starts_with("data:image/png;base64,")
                );
            }
            _ => {
                assert_eq!(r.body["previous_response_id"], format!("resp_{}", n - 1));
                assert_eq!(r.body["input"][0]["type"], "computer_call_output");
                assert_eq!(r.body["input"][0]["call_id"], format!("call_{}", n - 1));
                assert_eq!(r.body["input"][0]["output"]["type"], "computer_screenshot");
            }
        }
        let (x, y) = at(r, p, origin, size);
        json!({"id": format!("resp_{n}"), "output": [
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": format!("press button {n}")}]},
            {"type": "computer_call", "id": format!("cu_{n}"), "call_id": format!("call_{n}"),
             "action": {"type": "click", "button": "left", "x": x, "y": y},
             "pending_safety_checks": checks, "status": "completed"}],
         "usage": {"input_tokens": 1000, "output_tokens": 20, "total_tokens": 1020}})
        .to_string()
    })
}

fn responses_done(n: usize, text: &'static str) -> Reply {
    reply(move |r| {
        assert_eq!(r.body["previous_response_id"], format!("resp_{}", n - 1));
        json!({"id": format!("resp_{n}"), "output": [{"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": text}]}]})
        .to_string()
    })
}

/// `ufo run -m operator --app gnome-calculator -r "compute 12*7"`.
async fn on_calculator(
    rig: &Rig,
    cfg: ufo_session::config::UfoConfig,
    io: Arc<ScriptedIo>,
    task: &str,
) -> Vec<ufo_session::SessionReport> {
    run(
        rig,
        cfg,
        io,
        Mode::Operator,
        Some("compute 12*7"),
        None,
        Some("gnome-calculator"),
        task,
    )
    .await
}

fn operator_yaml(model: &ScriptedModel, api_type: &str) -> String {
    format!(
        "OPERATOR:\n  API_TYPE: {api_type}\n  API_BASE: {}\n  API_KEY: sk-test\n  API_MODEL: cu-model\n",
        model.base_url()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_responses_api_operator_computes_12_times_7_by_coordinates() {
    let rig = rig("op-responses", &["gnome-calculator"]).await;
    let (b, win) = buttons(&rig).await;
    let (origin, size) = ((win.x, win.y), (win.width, win.height));
    let keys = ["1", "2", "×", "7", "="];
    let mut replies: Vec<Reply> = keys
        .iter()
        .enumerate()
        .map(|(n, k)| responses_click(n, b[*k], origin, size, json!([])))
        .collect();
    replies.push(responses_done(keys.len(), "12*7 = 84"));
    let model = ScriptedModel::start(replies).await;
    let cfg = base_config(&model, &operator_yaml(&model, "operator"));
    let io = Arc::new(ScriptedIo::new(Vec::<String>::new()));
    let reports = on_calculator(&rig, cfg, io.clone(), "op-responses").await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    assert_eq!(calculator_display(&rig.backend).await, "84");
    assert_eq!(model.remaining(), 0);
    // Logged like any agent: one line per step, the clicked point drawn on
    // the step's screenshot.
    let steps = steps(&r.log_dir.join("response.log"));
    assert_eq!(steps.len(), 6);
    assert_eq!(steps[0].agent_type, AgentKind::OperatorAgent);
    assert_eq!(steps[0].actions[0].function, "click");
    let shot = image::open(r.log_dir.join("action_step1.png"))
        .unwrap()
        .to_rgb8();
    assert!(
        shot.pixels().any(|p| p.0 == [230, 20, 20]),
        "no mark on the step's screenshot"
    );
    // output.md counts the operator's steps as the operator's.
    let md = std::fs::read_to_string(r.log_dir.join("output.md")).unwrap();
    assert!(
        md.contains("- **Steps:** 6 (0 HostAgent, 0 AppAgent, 6 operator)"),
        "{md}"
    );
    // A computer-use turn has no price: the console and output.md both say
    // so, for every operator step and the session, and never print $0.
    let shown = io.transcript().join("\n");
    assert_eq!(
        shown.matches("  cost is not available · ").count(),
        6,
        "{shown}"
    );
    assert!(shown.contains("Total cost is not available"), "{shown}");
    assert!(!shown.contains("$0.0000"), "{shown}");
    assert_eq!(md.matches("· **Cost** is not available").count(), 6, "{md}");
    assert!(md.contains("- **Cost** is not available ("), "{md}");
    assert!(!md.contains("$0.0000"), "{md}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_safety_check_declined_without_a_terminal_clicks_nothing() {
    let rig = rig("op-safety", &["gnome-calculator"]).await;
    let (b, win) = buttons(&rig).await;
    let check = json!([{"id": "sc_1", "code": "malicious_instructions", "message": "The screen may contain instructions."}]);
    let model = ScriptedModel::start(vec![responses_click(
        0,
        b["7"],
        (win.x, win.y),
        (win.width, win.height),
        check,
    )])
    .await;
    let cfg = base_config(&model, &operator_yaml(&model, "operator"));
    let io = Arc::new(ScriptedIo::new(Vec::<String>::new()));
    let reports = on_calculator(&rig, cfg, io.clone(), "op-safety").await;
    let r = &reports[0];
    assert_ne!(r.status, SessionStatus::Finish, "{r:?}");
    // Nothing was clicked: the display still shows its empty state.
    let shown = calculator_display(&rig.backend).await;
    assert!(!shown.contains('7'), "the click ran: {shown:?}");
    // The user was asked, with the provider's reason.
    let asked = io.transcript().join("\n");
    assert!(asked.contains("malicious_instructions"), "{asked}");
    let steps = steps(&r.log_dir.join("response.log"));
    assert!(
        steps.iter().any(|s| s
            .error
            .as_ref()
            .is_some_and(|e| e.code == "ufo::agent::declined")),
        "{steps:?}"
    );
    assert_eq!(model.requests().len(), 1);
}

/// A Responses-API reply with one computer-use `action` (no click target).
fn responses_action(n: usize, action: Value) -> Reply {
    reply(move |_| {
        json!({"id": format!("resp_{n}"), "output": [
            {"type": "computer_call", "id": format!("cu_{n}"), "call_id": format!("call_{n}"),
             "action": action, "pending_safety_checks": [], "status": "completed"}]})
        .to_string()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn safe_guard_holds_the_operators_typing_over_everything_it_selected() {
    let rig = rig("op-guard", &["gnome-calculator"]).await;
    let (b, win) = buttons(&rig).await;
    // 7 is clicked; ^a selects the display; typing 5 would replace it all:
    // SAFE_GUARD stops it as it stops an AppAgent's, and the user (no
    // terminal) declines.
    let model = ScriptedModel::start(vec![
        responses_click(
            0,
            b["7"],
            (win.x, win.y),
            (win.width, win.height),
            json!([]),
        ),
        responses_action(1, json!({"type": "keypress", "keys": ["ctrl", "a"]})),
        responses_action(2, json!({"type": "type", "text": "5"})),
    ])
    .await;
    let extra = format!("SAFE_GUARD: True\n{}", operator_yaml(&model, "operator"));
    let cfg = base_config(&model, &extra);
    let io = Arc::new(ScriptedIo::new(Vec::<String>::new()));
    let reports = on_calculator(&rig, cfg, io.clone(), "op-guard").await;
    let r = &reports[0];
    assert_ne!(r.status, SessionStatus::Finish, "{r:?}");
    assert_eq!(model.remaining(), 0);
    let shown = calculator_display(&rig.backend).await;
    assert!(shown.contains('7') && !shown.contains('5'), "{shown:?}");
    let asked = io.transcript().join("\n");
    assert!(asked.contains("everything is selected"), "{asked}");
}

/// An Anthropic reply: a `computer` tool call (or the final text).
fn anthropic_click(n: usize, p: Point<Screen>, origin: (i32, i32), size: (i32, i32)) -> Reply {
    reply(move |r| {
        assert_eq!(r.body["tools"][0]["type"], "computer_20250124");
        let msgs = r.body["messages"].as_array().unwrap();
        // The whole conversation is replayed: task, then call/result pairs.
        assert_eq!(msgs.len(), 1 + 2 * n);
        if n > 0 {
            let last = &msgs[2 * n]["content"][0];
            assert_eq!(last["type"], "tool_result");
            assert_eq!(last["tool_use_id"], format!("toolu_{}", n - 1));
            assert_eq!(last["content"][0]["type"], "image");
        }
        let (x, y) = at(r, p, origin, size);
        json!({"content": [
            {"type": "text", "text": format!("pressing {n}")},
            {"type": "tool_use", "id": format!("toolu_{n}"), "name": "computer",
             "input": {"action": "left_click", "coordinate": [x, y]}}],
         "stop_reason": "tool_use", "usage": {"input_tokens": 900, "output_tokens": 15}})
        .to_string()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_anthropic_operator_computes_12_times_7_by_coordinates() {
    let rig = rig("op-anthropic", &["gnome-calculator"]).await;
    let (b, win) = buttons(&rig).await;
    let keys = ["1", "2", "×", "7", "="];
    let mut replies: Vec<Reply> = keys
        .iter()
        .enumerate()
        .map(|(n, k)| anthropic_click(n, b[*k], (win.x, win.y), (win.width, win.height)))
        .collect();
    replies.push(ufo_testkit::scripted::fixed(
        json!({"content": [{"type": "text", "text": "The result is 84."}], "stop_reason": "end_turn"}).to_string(),
    ));
    let model = ScriptedModel::start(replies).await;
    let cfg = base_config(&model, &operator_yaml(&model, "claude"));
    let reports = on_calculator(
        &rig,
        cfg,
        Arc::new(ScriptedIo::new(Vec::<String>::new())),
        "op-anthropic",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish, "{:?}", reports[0]);
    assert_eq!(calculator_display(&rig.backend).await, "84");
    assert_eq!(model.remaining(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn normal_operator_lets_the_host_assign_to_the_operator_and_to_an_app_agent() {
    let rig = rig("op-normal", &["gnome-calculator"]).await;
    let (b, _) = buttons(&rig).await;
    // The operator sees the whole desktop.
    let desktop = rig
        .backend
        .screenshot(&ufo_desktop::ScreenshotTarget::Desktop)
        .await
        .unwrap();
    let size = (desktop.image.width() as i32, desktop.image.height() as i32);
    let host_turn = Arc::new(AtomicUsize::new(0));
    let h = host_turn.clone();
    let host = reply(move |r| {
        h.fetch_add(1, Ordering::SeqCst);
        // The operator is listed as a target beside the windows.
        let targets = r.list_after("<Available Applications/Agents:>");
        let op = targets
            .iter()
            .find(|t| t["name"] == "OperatorAgent")
            .unwrap_or_else(|| panic!("no OperatorAgent among {targets:?}"));
        assert_eq!(op["kind"], "third_party_agent");
        json!({"observation": "", "thought": "the operator types the first number",
               "current_subtask": "Enter 12 on the calculator by clicking its buttons",
               "message": [], "plan": ["then multiply by 7"], "status": "ASSIGN",
               "function": "select_application_window", "arguments": {"id": op["id"], "name": "OperatorAgent"},
               "questions": [], "comment": "", "result": ""})
        .to_string()
    });
    let model = ScriptedModel::start(vec![
        host,
        responses_click(0, b["1"], (0, 0), size, json!([])),
        responses_click(1, b["2"], (0, 0), size, json!([])),
        responses_done(2, "12 entered"),
        host_assign(
            "gnome-calculator",
            "Multiply the shown number by 7",
            "12 is shown",
        ),
        click("×", "CONTINUE"),
        click("7", "CONTINUE"),
        click("=", "CONTINUE"),
        app_finish("84"),
        host_finish("12*7 = 84"),
    ])
    .await;
    let cfg = base_config(&model, &operator_yaml(&model, "operator"));
    let reports = run(
        &rig,
        cfg,
        Arc::new(ScriptedIo::new(Vec::<String>::new())),
        Mode::NormalOperator,
        Some("compute 12*7 on the calculator"),
        None,
        None,
        "op-normal",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    assert_eq!(calculator_display(&rig.backend).await, "84");
    assert_eq!(r.subtasks.len(), 2);
    assert_eq!(r.subtasks[0].status.as_str(), "FINISH");
    let steps = steps(&r.log_dir.join("response.log"));
    let kinds: Vec<AgentKind> = steps.iter().map(|s| s.agent_type).collect();
    assert!(
        kinds.contains(&AgentKind::OperatorAgent) && kinds.contains(&AgentKind::AppAgent),
        "{kinds:?}"
    );
    assert_eq!(model.remaining(), 0);
}

/// A local vision model (UI-TARS/Qwen-VL style, over Chat Completions)
/// answering the way such models do: JSON in a code fence, numbers as
/// strings, its own key names.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_vision_model_drives_the_calculator_with_sloppy_json() {
    let rig = rig("op-generic", &["gnome-calculator"]).await;
    let (b, win) = buttons(&rig).await;
    let (origin, size) = ((win.x, win.y), (win.width, win.height));
    let mut replies: Vec<Reply> = ["1", "2", "×", "7", "="]
        .iter()
        .enumerate()
        .map(|(n, k)| {
            let p = b[*k];
            reply(move |r| {
                let msgs = r.body["messages"].as_array().unwrap();
                // The instructions give the screenshot's size; only the newest
                // screenshot is sent.
                let system = msgs[0]["content"].as_str().unwrap();
                assert!(system.contains("pixels"), "{system}");
                assert_eq!(r.image_count(), 1, "turn {n}");
                let url = r.image_urls()[0].clone();
                let png = ufo_desktop::encode::decode_image_data_url(&url).unwrap();
                let (w, h) = (f64::from(png.width()), f64::from(png.height()));
                let x = f64::from(p.x - origin.0) * w / f64::from(size.0);
                let y = f64::from(p.y - origin.1) * h / f64::from(size.1);
                format!(
                    "Sure.\n```json\n{{\"thought\": \"press {n}\", \"action\": {{\"action\": \"left_click\", \"x\": \"{}\", \"y\": \"{}\"}}, \"status\": \"continue\"}}\n```",
                    x.round(),
                    y.round()
                )
            })
        })
        .collect();
    replies.push(ufo_testkit::scripted::fixed(
        "{\"thought\": \"the display shows 84\", \"status\": \"FINISH\", \"result\": \"84\"}",
    ));
    let model = ScriptedModel::start(replies).await;
    let cfg = base_config(&model, &operator_yaml(&model, "ollama"));
    let reports = on_calculator(
        &rig,
        cfg,
        Arc::new(ScriptedIo::new(Vec::<String>::new())),
        "op-generic",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish, "{:?}", reports[0]);
    assert_eq!(calculator_display(&rig.backend).await, "84");
    assert_eq!(model.remaining(), 0);
}
