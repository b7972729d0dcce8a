//! The round's state machine without a desktop: the in-process fake desktop
//! answers the agents' commands, the scripted model answers over real HTTP.
//! Each case asserts what a user would check: the session's status and error,
//! which actions reached the application, what the user was asked and what is
//! on disk (and when).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use async_trait::async_trait;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use ufo_agent::PromptSet;
use ufo_core::{ControlType, ErrorReport};
use ufo_session::config::UfoConfig;
use ufo_session::{Mode, RunOptions, Services, SessionReport, SessionStatus, UserIo};
use ufo_testkit::fake::FakeDesktop;
use ufo_testkit::scripted::{ScriptedModel, fixed};

/// A user who answers from a list and, each time they are asked, notes how
/// many steps `response.log` already holds.
struct User {
    answers: Mutex<Vec<String>>,
    log: PathBuf,
    asked: Mutex<Vec<(String, usize)>>,
    shown: Mutex<Vec<String>>,
}

impl User {
    fn new(answers: &[&str], log: PathBuf) -> Self {
        Self {
            answers: Mutex::new(answers.iter().rev().map(|s| (*s).to_owned()).collect()),
            log,
            asked: Mutex::new(Vec::new()),
            shown: Mutex::new(Vec::new()),
        }
    }

    fn next(&self, prompt: &str) -> Option<String> {
        let on_disk = std::fs::read_to_string(&self.log)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        self.asked
            .lock()
            .unwrap()
            .push((prompt.to_owned(), on_disk));
        self.answers.lock().unwrap().pop()
    }
}

#[async_trait]
impl UserIo for User {
    async fn confirm(&self, prompt: &str) -> bool {
        self.next(prompt).is_some_and(|a| a == "y")
    }
    async fn ask(&self, question: &str) -> Option<String> {
        self.next(question)
    }
    async fn new_request(&self, prompt: &str) -> Option<String> {
        self.next(prompt).filter(|a| a != "N")
    }
    fn show(&self, line: &str) {
        self.shown.lock().unwrap().push(line.to_owned());
    }
}

fn app(action: Option<(&str, Value)>, status: &str) -> Value {
    let mut v = json!({"observation": "an editor", "thought": "next", "plan": [], "comment": "said the model"});
    match action {
        Some((f, args)) => {
            v["action"] = json!({"function": f, "arguments": args, "status": status})
        }
        None => v["status"] = json!(status),
    }
    v
}

fn type_text(status: &str) -> Value {
    app(
        Some((
            "set_edit_text",
            json!({"id": "1", "name": "Text", "text": "hello"}),
        )),
        status,
    )
}

fn replace_text(status: &str) -> Value {
    app(
        Some((
            "set_edit_text",
            json!({"id": "1", "name": "Text", "text": "new", "clear_current_text": true}),
        )),
        status,
    )
}

fn finish() -> Value {
    app(Some(("summary", json!({"text": "done"}))), "FINISH")
}

/// One run of a single-tier session on the fake editor.
struct Case {
    name: &'static str,
    replies: Vec<Value>,
    answers: &'static [&'static str],
    config: &'static str,
    status: SessionStatus,
    error: Option<&'static str>,
    /// The tools that reached the application, in order.
    actions: &'static [&'static str],
    /// The `status` of each `response.log` line.
    logged: &'static [&'static str],
    /// Lines on disk each time the user was asked.
    on_disk_when_asked: &'static [usize],
}

struct Outcome {
    report: SessionReport,
    desktop: Arc<FakeDesktop>,
    asked: Vec<(String, usize)>,
    shown: String,
    model: ScriptedModel,
}

async fn run_case(
    replies: Vec<ufo_testkit::scripted::Reply>,
    answers: &[&str],
    extra: &str,
    logs: &Path,
    desktop: Arc<FakeDesktop>,
) -> Outcome {
    run_on(replies, answers, extra, logs, desktop, Some("editor")).await
}

async fn run_on(
    replies: Vec<ufo_testkit::scripted::Reply>,
    answers: &[&str],
    extra: &str,
    logs: &Path,
    desktop: Arc<FakeDesktop>,
    app: Option<&str>,
) -> Outcome {
    run_request(
        replies,
        answers,
        extra,
        logs,
        desktop,
        app,
        Some("write hello in the editor"),
    )
    .await
}

async fn run_request(
    replies: Vec<ufo_testkit::scripted::Reply>,
    answers: &[&str],
    extra: &str,
    logs: &Path,
    desktop: Arc<FakeDesktop>,
    app: Option<&str>,
    request: Option<&str>,
) -> Outcome {
    let opts = RunOptions {
        task: "t".into(),
        mode: Mode::Normal,
        request: request.map(str::to_owned),
        plan: None,
        app: app.map(str::to_owned),
    };
    run_opts(replies, answers, extra, logs, desktop, &opts).await
}

/// A session with `opts` (task `t`) on `desktop`, the user answering `answers`.
async fn run_opts(
    replies: Vec<ufo_testkit::scripted::Reply>,
    answers: &[&str],
    extra: &str,
    logs: &Path,
    desktop: Arc<FakeDesktop>,
    opts: &RunOptions,
) -> Outcome {
    let model = ScriptedModel::start(replies).await;
    // `{m}` in `extra` is this model's agent section.
    let extra = extra.replace("{m}", &model.agent_yaml());
    // An `APP_AGENT:` section in `extra` replaces the default one.
    let app = match extra.lines().any(|l| l == "APP_AGENT:") {
        true => String::new(),
        false => format!("APP_AGENT:\n{}", model.agent_yaml()),
    };
    let yaml = format!(
        "HOST_AGENT:\n{m}{app}SLEEP_TIME: 0\n{eva}{extra}",
        m = model.agent_yaml(),
        eva = match extra.contains("EVA_SESSION") {
            true => "",
            false => "EVA_SESSION: false\n",
        }
    );
    let config = UfoConfig::parse(&yaml, Path::new("."), &|_| None).unwrap();
    let user = Arc::new(User::new(answers, logs.join("t").join("response.log")));
    let services = Services {
        dispatcher: desktop.clone(),
        io: user.clone(),
        prompts: Arc::new(PromptSet::load(&config.prompts).unwrap()),
        log_root: logs.to_path_buf(),
        config,
    };
    let mut reports = ufo_session::run(&services, opts).await.unwrap();
    let asked = user.asked.lock().unwrap().clone();
    let shown = user.shown.lock().unwrap().join("\n");
    Outcome {
        report: reports.remove(0),
        desktop,
        asked,
        shown,
        model,
    }
}

fn editor() -> Arc<FakeDesktop> {
    Arc::new(FakeDesktop::new(
        "editor",
        "notes.txt",
        &[(ControlType::Edit, "Text"), (ControlType::Button, "Save")],
    ))
}

fn statuses(log_dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log_dir.join("response.log")).unwrap_or_default();
    ufo_agent::read_response_log(&text)
        .map(|l| l.unwrap().status.as_str().to_owned())
        .collect()
}

#[tokio::test]
#[allow(clippy::too_many_lines)]
async fn the_round_machine_case_by_case() {
    let cases = vec![
        Case {
            name: "an action, then FINISH",
            replies: vec![type_text("CONTINUE"), finish()],
            answers: &[],
            config: "",
            status: SessionStatus::Finish,
            error: None,
            actions: &["set_edit_text", "summary"],
            logged: &["CONTINUE", "FINISH"],
            on_disk_when_asked: &[],
        },
        Case {
            name: "CONFIRM accepted runs the action",
            replies: vec![type_text("CONFIRM"), finish()],
            answers: &["y"],
            config: "SAFE_GUARD: true\n",
            status: SessionStatus::Finish,
            error: None,
            actions: &["set_edit_text", "summary"],
            logged: &["CONFIRM", "CONTINUE", "FINISH"],
            on_disk_when_asked: &[1],
        },
        Case {
            name: "CONFIRM declined leaves the application untouched",
            replies: vec![type_text("CONFIRM")],
            answers: &["n"],
            config: "SAFE_GUARD: true\n",
            status: SessionStatus::Finish,
            error: None,
            actions: &[],
            logged: &["CONFIRM", "FINISH"],
            on_disk_when_asked: &[1],
        },
        Case {
            name: "SAFE_GUARD stops a sensitive call the model did not confirm; declined, nothing runs",
            replies: vec![replace_text("CONTINUE")],
            answers: &["n"],
            config: "",
            status: SessionStatus::Finish,
            error: None,
            actions: &[],
            logged: &["CONFIRM", "FINISH"],
            on_disk_when_asked: &[1],
        },
        Case {
            name: "SAFE_GUARD: confirmed, the sensitive call runs",
            replies: vec![replace_text("CONTINUE"), finish()],
            answers: &["y"],
            config: "",
            status: SessionStatus::Finish,
            error: None,
            actions: &["set_edit_text", "summary"],
            logged: &["CONFIRM", "CONTINUE", "FINISH"],
            on_disk_when_asked: &[1],
        },
        Case {
            name: "SAFE_GUARD off: the same call runs without asking",
            replies: vec![replace_text("CONTINUE"), finish()],
            answers: &[],
            config: "SAFE_GUARD: false\n",
            status: SessionStatus::Finish,
            error: None,
            actions: &["set_edit_text", "summary"],
            logged: &["CONTINUE", "FINISH"],
            on_disk_when_asked: &[],
        },
        Case {
            name: "SAFE_GUARD_TOOLS replaces the rule: summary asks, replacing text does not",
            replies: vec![replace_text("CONTINUE"), finish()],
            answers: &["n"],
            config: "SAFE_GUARD_TOOLS: [summary]\n",
            status: SessionStatus::Finish,
            error: None,
            actions: &["set_edit_text"],
            logged: &["CONTINUE", "CONFIRM", "FINISH"],
            on_disk_when_asked: &[2],
        },
        Case {
            name: "PENDING asks after the step is on disk",
            replies: vec![
                json!({"observation": "an editor", "thought": "which text?", "status": "PENDING", "questions": ["What should I write?"]}),
                type_text("CONTINUE"),
                finish(),
            ],
            answers: &["hello"],
            config: "",
            status: SessionStatus::Finish,
            error: None,
            actions: &["set_edit_text", "summary"],
            logged: &["PENDING", "CONTINUE", "FINISH"],
            on_disk_when_asked: &[1],
        },
        Case {
            name: "PENDING without questions asks to go on; nobody answers, the sub-task ends",
            replies: vec![app(None, "PENDING")],
            answers: &[],
            config: "",
            status: SessionStatus::Finish,
            error: None,
            actions: &[],
            logged: &["PENDING"],
            on_disk_when_asked: &[1],
        },
        Case {
            name: "PENDING without questions, confirmed, goes on",
            replies: vec![app(None, "PENDING"), type_text("CONTINUE"), finish()],
            answers: &["y"],
            config: "",
            status: SessionStatus::Finish,
            error: None,
            actions: &["set_edit_text", "summary"],
            logged: &["PENDING", "CONTINUE", "FINISH"],
            on_disk_when_asked: &[1],
        },
        Case {
            name: "an unusable reply is asked again",
            replies: vec![json!("no json here"), finish()],
            answers: &[],
            config: "",
            status: SessionStatus::Finish,
            error: None,
            actions: &["summary"],
            logged: &["FINISH"],
            on_disk_when_asked: &[],
        },
        Case {
            name: "replies that never parse end in ERROR",
            replies: vec![json!("no"), json!("no"), json!("no")],
            answers: &[],
            config: "JSON_PARSING_RETRY: 2\n",
            status: SessionStatus::Error,
            error: Some("ufo::agent::parse_retry_exhausted"),
            actions: &[],
            logged: &["ERROR"],
            on_disk_when_asked: &[],
        },
        Case {
            name: "UFO's legacy capitalised replies and an empty function",
            replies: vec![
                json!({"Observation": "an editor", "Thought": "type", "ControlLabel": "1", "ControlText": "Text", "Function": "set_edit_text", "Args": {"text": "hello"}, "Status": "CONTINUE", "Plan": [], "Comment": ""}),
                json!({"Observation": "done", "Thought": "done", "ControlLabel": "", "ControlText": "", "Function": "", "Args": {}, "Status": "FINISH", "Plan": [], "Comment": "typed"}),
            ],
            answers: &[],
            config: "",
            status: SessionStatus::Finish,
            error: None,
            actions: &["set_edit_text"],
            logged: &["CONTINUE", "FINISH"],
            on_disk_when_asked: &[],
        },
        Case {
            name: "MAX_STEP ends the round in FAIL",
            replies: vec![
                type_text("CONTINUE"),
                type_text("CONTINUE"),
                type_text("CONTINUE"),
            ],
            answers: &[],
            config: "MAX_STEP: 2\nMAX_REPEAT: 10\n",
            status: SessionStatus::Fail,
            error: Some("ufo::session::max_step"),
            actions: &["set_edit_text", "set_edit_text"],
            logged: &["CONTINUE", "CONTINUE"],
            on_disk_when_asked: &[],
        },
        Case {
            name: "the model's own ERROR is reported as such",
            replies: vec![app(None, "ERROR")],
            answers: &[],
            config: "",
            status: SessionStatus::Error,
            error: Some("ufo::session::model_error"),
            actions: &[],
            logged: &["ERROR"],
            on_disk_when_asked: &[],
        },
    ];
    for c in cases {
        let logs = tempfile::tempdir().unwrap();
        let replies = c
            .replies
            .iter()
            .map(|v| match v {
                Value::String(s) => fixed(s.clone()),
                other => fixed(other.to_string()),
            })
            .collect();
        let o = run_case(replies, c.answers, c.config, logs.path(), editor()).await;
        let r = &o.report;
        assert_eq!(r.status, c.status, "{}: {r:?}", c.name);
        assert_eq!(
            r.error.as_ref().map(|e| e.code.as_str()),
            c.error,
            "{}: {:?}",
            c.name,
            r.error
        );
        let done: Vec<String> = o.desktop.actions().into_iter().map(|a| a.0).collect();
        assert_eq!(done, c.actions, "{}", c.name);
        assert_eq!(statuses(&r.log_dir), c.logged, "{}", c.name);
        if c.answers == ["n"] {
            // The agent (and the log) is told the user said no.
            let log = std::fs::read_to_string(r.log_dir.join("response.log")).unwrap();
            assert!(log.contains("declined by the user"), "{}: {log}", c.name);
        }
        let on_disk: Vec<usize> = o
            .asked
            .iter()
            .filter(|a| !a.0.contains("new request"))
            .map(|a| a.1)
            .collect();
        assert_eq!(on_disk, c.on_disk_when_asked, "{}: {:?}", c.name, o.asked);
        drop(o.model);
    }
}

#[tokio::test]
async fn a_failed_observation_ends_the_session_with_the_desktop_error() {
    let logs = tempfile::tempdir().unwrap();
    let d = editor();
    d.fail_next(
        "get_app_window_controls_target_info",
        ErrorReport::new("ufo::desktop::timeout", "GetRole timed out").with_help("retry"),
    );
    let o = run_case(vec![fixed(finish().to_string())], &[], "", logs.path(), d).await;
    assert_eq!(o.report.status, SessionStatus::Error);
    let e = o.report.error.unwrap();
    assert_eq!(e.code, "ufo::agent::observation", "{e:?}");
    assert!(e.message.contains("GetRole timed out"), "{e:?}");
    // The desktop's help is shown once, with the error that ends the session.
    assert_eq!(o.shown.matches("help: retry").count(), 1, "{}", o.shown);
    // The model was never asked about a window it could not see.
    assert_eq!(o.model.requests().len(), 0);
}

#[tokio::test]
async fn a_log_that_cannot_be_written_stops_the_session_at_that_step() {
    let logs = tempfile::tempdir().unwrap();
    let dir = logs.path().join("t");
    // The second reply is built while the session waits for it: the log folder
    // is replaced by a file, so that step's screenshot cannot be written.
    let gone = dir.clone();
    let replies = vec![
        fixed(type_text("CONTINUE").to_string()),
        ufo_testkit::scripted::reply(move |_| {
            std::fs::remove_dir_all(&gone).unwrap();
            std::fs::write(&gone, "not a folder").unwrap();
            type_text("CONTINUE").to_string()
        }),
        fixed(finish().to_string()),
    ];
    let o = run_case(replies, &[], "", logs.path(), editor()).await;
    assert_eq!(o.report.status, SessionStatus::Error, "{:?}", o.report);
    let e = o.report.error.unwrap();
    assert_eq!(e.code, "ufo::session::logs", "{e:?}");
    // No step ran after the one whose log failed.
    assert_eq!(o.model.remaining(), 1);
    assert_eq!(o.desktop.actions().len(), 2);
}

#[tokio::test]
async fn the_host_assigns_the_editor_and_finishes_after_it() {
    let logs = tempfile::tempdir().unwrap();
    let host_assign = json!({"observation": "an editor is open", "thought": "assign", "current_subtask": "write hello", "message": ["use the Text field"], "plan": ["save it"], "status": "ASSIGN", "function": "select_application_window", "arguments": {"id": "1", "name": "notes.txt"}});
    let host_finish = json!({"observation": "done", "thought": "all done", "status": "FINISH", "result": "hello written"});
    let replies = [host_assign, type_text("CONTINUE"), finish(), host_finish]
        .iter()
        .map(|v| fixed(v.to_string()))
        .collect();
    let o = run_on(replies, &[], "", logs.path(), editor(), None).await;
    assert_eq!(o.report.status, SessionStatus::Finish, "{:?}", o.report);
    assert_eq!(o.report.result, "hello written");
    // The console shows what the HostAgent decided (UFO's print_response).
    assert!(
        o.shown.contains("  plan: (1) write hello (2) save it\n"),
        "{}",
        o.shown
    );
    assert!(o.shown.contains("  application: editor\n"), "{}", o.shown);
    assert!(
        o.shown.contains("  message: use the Text field\n"),
        "{}",
        o.shown
    );
    assert_eq!(
        statuses(&o.report.log_dir),
        ["ASSIGN", "CONTINUE", "FINISH", "FINISH"]
    );
    let done: Vec<String> = o.desktop.actions().into_iter().map(|a| a.0).collect();
    assert_eq!(done, ["set_edit_text", "summary"]);
    assert_eq!(o.report.subtasks.len(), 1);
    assert_eq!(o.report.subtasks[0].application, "editor");
}

#[tokio::test]
async fn no_request_and_nobody_to_ask_is_an_error_not_a_silent_success() {
    let logs = tempfile::tempdir().unwrap();
    let o = run_request(vec![], &[], "", logs.path(), editor(), Some("editor"), None).await;
    assert_eq!(o.report.status, SessionStatus::Error);
    assert_eq!(o.report.error.unwrap().code, "ufo::session::no_request");
    assert_eq!(o.model.requests().len(), 0);
}

#[tokio::test]
async fn the_first_request_is_asked_after_a_welcome_panel() {
    let logs = tempfile::tempdir().unwrap();
    let replies = vec![
        fixed(type_text("CONTINUE").to_string()),
        fixed(finish().to_string()),
    ];
    let o = run_request(
        replies,
        &["write hello in the editor", "N"],
        "",
        logs.path(),
        editor(),
        Some("editor"),
        None,
    )
    .await;
    assert_eq!(o.report.status, SessionStatus::Finish, "{:?}", o.report);
    assert!(
        o.desktop
            .actions()
            .iter()
            .any(|(f, a)| f == "set_edit_text" && a["text"] == "hello"),
        "{:?}",
        o.desktop.actions()
    );
    // UFO's `first_request`: the panel, then the question.
    let panel = o.shown.split("\n\n").next().unwrap_or_default();
    assert!(o.shown.starts_with('╭'), "{}", o.shown);
    for said in [
        "a UI-focused agent for desktop applications",
        "not asked: the AppAgent works on editor (--app)",
        "scripted",
        "Enter N to leave",
    ] {
        assert!(o.shown.contains(said), "{said:?} not in:\n{panel}");
    }
    // Every line of the panel is as wide as the others.
    let widths: Vec<usize> = o
        .shown
        .lines()
        .take_while(|l| !l.starts_with('╰'))
        .map(|l| l.chars().count())
        .collect();
    assert!(widths.windows(2).all(|w| w[0] == w[1]), "{}", o.shown);
    assert_eq!(o.asked[0].0, "Please enter your request to be completed:");
    // Shown once: the next request is asked without it.
    assert_eq!(o.shown.matches('╭').count(), 1, "{}", o.shown);
    // A request given on the command line is not preceded by it.
    let logs = tempfile::tempdir().unwrap();
    let o = run_on(
        vec![fixed(finish().to_string())],
        &["N"],
        "",
        logs.path(),
        editor(),
        Some("editor"),
    )
    .await;
    assert!(!o.shown.contains('╭'), "{}", o.shown);
}

#[tokio::test]
async fn a_round_that_ends_in_error_ends_the_session() {
    let logs = tempfile::tempdir().unwrap();
    let replies = [app(None, "ERROR"), finish()]
        .iter()
        .map(|v| fixed(v.to_string()))
        .collect();
    let o = run_on(
        replies,
        &["try once more", "N"],
        "",
        logs.path(),
        editor(),
        Some("editor"),
    )
    .await;
    // UFO's `is_finished`: an error ends the session; the user is not asked
    // for another request and the session reports the error.
    assert_eq!(o.report.status, SessionStatus::Error, "{:?}", o.report);
    assert_eq!(o.report.requests.len(), 1);
    assert_eq!(statuses(&o.report.log_dir), ["ERROR"]);
    assert!(o.asked.is_empty(), "{:?}", o.asked);
    assert_eq!(o.model.remaining(), 1);
    // Each step is announced before it runs, and shown when it is done.
    assert!(
        o.shown
            .contains("▶ Step 1 · AppAgent/editor/notes.txt: write hello in the editor"),
        "{}",
        o.shown
    );
    assert!(o.shown.find("▶ Step 1").unwrap() < o.shown.find("── Step 1").unwrap());
    // Each round says what it cost; the session says what all cost.
    assert_eq!(
        o.shown.matches("Round 1 ended: ERROR").count(),
        1,
        "{}",
        o.shown
    );
    assert!(!o.shown.contains("Round 2"), "{}", o.shown);
    assert!(
        o.shown.contains("ended: ERROR after 1 steps"),
        "{}",
        o.shown
    );
    assert!(o.shown.contains("in 1 model calls)"), "{}", o.shown);
    // The scripted model has no price: the cost is said to be unknown, not $0.
    assert!(
        o.shown.contains("Total cost is not available"),
        "{}",
        o.shown
    );
    assert!(
        o.shown.contains("Round cost is not available"),
        "{}",
        o.shown
    );
    assert!(
        o.shown.contains("  cost is not available · "),
        "{}",
        o.shown
    );
    assert!(!o.shown.contains("$0.0000"), "{}", o.shown);
    // The failed round's error stays in the report.
    assert_eq!(o.report.error.unwrap().code, "ufo::session::model_error");
}

#[tokio::test]
async fn rounds_and_the_session_leave_a_final_snapshot() {
    let logs = tempfile::tempdir().unwrap();
    let replies = [type_text("CONTINUE"), finish()]
        .iter()
        .map(|v| fixed(v.to_string()))
        .collect();
    let o = run_case(
        replies,
        &[],
        "SAVE_FULL_SCREEN: true\nSAVE_UI_TREE: true\n",
        logs.path(),
        editor(),
    )
    .await;
    assert_eq!(o.report.status, SessionStatus::Finish, "{:?}", o.report);
    let dir = &o.report.log_dir;
    for f in [
        "action_round_0_final.png",
        "action_step_final.png",
        "desktop_final.png",
        "desktop_round_0_final.png",
        "ui_trees/ui_tree_final.json",
    ] {
        let bytes = std::fs::read(dir.join(f)).unwrap_or_default();
        assert!(!bytes.is_empty(), "{f} missing");
        assert!(bytes.starts_with(b"\x89PNG") || f.ends_with(".json"), "{f}");
    }
    let md = std::fs::read_to_string(dir.join("output.md")).unwrap();
    assert!(md.contains("![final](action_step_final.png)"), "{md}");
}

#[tokio::test]
async fn rounds_and_sessions_are_evaluated_and_a_failed_all_screenshot_evaluation_is_retried() {
    let logs = tempfile::tempdir().unwrap();
    let verdict = json!({"reason": "hello is in the editor", "sub_scores": [], "complete": "yes"});
    let replies = [
        type_text("CONTINUE"),
        finish(),
        json!("not an evaluation"),
        verdict.clone(),
        verdict,
    ]
    .iter()
    .map(|v| match v {
        Value::String(s) => fixed(s.clone()),
        other => fixed(other.to_string()),
    })
    .collect();
    let o = run_case(
        replies,
        &[],
        "EVA_SESSION: true\nEVA_ROUND: true\nEVA_ALL_SCREENSHOTS: true\nJSON_PARSING_RETRY: 0\n",
        logs.path(),
        editor(),
    )
    .await;
    assert_eq!(o.report.status, SessionStatus::Finish, "{:?}", o.report);
    let log = std::fs::read_to_string(o.report.log_dir.join("evaluation.log")).unwrap();
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert_eq!(
        (lines[0]["level"].as_str(), lines[0]["round"].as_u64()),
        (Some("round"), Some(0))
    );
    assert_eq!(lines[1]["level"], "session");
    assert_eq!(lines[1]["complete"], "yes");
    assert!(
        o.shown.contains("Round 1 evaluation: complete = yes"),
        "{}",
        o.shown
    );
    // The round's evaluation was asked twice: with every screenshot, then
    // again with the first and the final one.
    assert_eq!(o.model.remaining(), 0);
    assert_eq!(o.model.requests().len(), 5);
    assert!(o.report.evaluation.is_some());
    // The prompt says which screenshots it holds.
    let reqs = o.model.requests();
    for i in [2, 4] {
        assert!(
            reqs[i].contains("Screenshots of every step:"),
            "{}",
            reqs[i].text()
        );
        assert!(!reqs[i].contains("The first and the last screenshot"));
        assert!(reqs[i].image_count() > 0);
    }
    assert!(
        reqs[3].contains("The first and the last screenshot of the application:"),
        "{}",
        reqs[3].text()
    );
    assert!(!reqs[3].contains("Screenshots of every step:"));
}

#[tokio::test]
async fn an_evaluation_agent_without_visual_mode_gets_no_screenshots() {
    let logs = tempfile::tempdir().unwrap();
    let verdict = json!({"reason": "hello is in the editor", "sub_scores": [], "complete": "yes"});
    let replies = [type_text("CONTINUE"), finish(), verdict]
        .iter()
        .map(|v| fixed(v.to_string()))
        .collect();
    let o = run_case(
        replies,
        &[],
        "EVA_SESSION: true\nEVA_ALL_SCREENSHOTS: true\nEVALUATION_AGENT:\n{m}  VISUAL_MODE: false\n",
        logs.path(),
        editor(),
    )
    .await;
    assert_eq!(o.report.status, SessionStatus::Finish, "{:?}", o.report);
    assert!(o.report.evaluation.is_some());
    let reqs = o.model.requests();
    assert_eq!(reqs.len(), 3);
    let eva = &reqs[2];
    assert_eq!(eva.image_count(), 0);
    assert!(
        !eva.text().to_lowercase().contains("screenshot"),
        "{}",
        eva.text()
    );
    assert!(eva.contains("hello"), "{}", eva.text());
}

#[tokio::test]
async fn a_session_without_app_steps_is_still_evaluated() {
    let logs = tempfile::tempdir().unwrap();
    let replies = [
        json!({"observation": "nothing to do", "thought": "already done", "status": "FINISH", "result": "nothing needed"}),
        json!({"reason": "nothing was needed", "sub_scores": [], "complete": "yes"}),
    ]
    .iter()
    .map(|v| fixed(v.to_string()))
    .collect();
    let o = run_on(
        replies,
        &[],
        "EVA_SESSION: true\n",
        logs.path(),
        editor(),
        None,
    )
    .await;
    assert_eq!(o.report.status, SessionStatus::Finish, "{:?}", o.report);
    assert_eq!(
        o.report.evaluation.unwrap().response.complete,
        ufo_agent::response::Verdict::Yes
    );
}

#[tokio::test]
async fn a_follower_plan_without_an_app_lets_the_host_start_one_first() {
    let logs = tempfile::tempdir().unwrap();
    let plan = logs.path().join("plan.json");
    std::fs::write(
        &plan,
        r#"{"task": "write hello in the editor", "steps": ["type hello"]}"#,
    )
    .unwrap();
    let replies = [
        json!({"observation": "no editor", "thought": "start it", "status": "CONTINUE", "function": "run_shell", "arguments": {"bash_command": "mousepad"}}),
        json!({"observation": "the editor is open", "thought": "assign", "current_subtask": "type hello", "status": "ASSIGN", "function": "select_application_window", "arguments": {"id": "1", "name": "notes.txt"}}),
        type_text("FINISH"),
    ]
    .iter()
    .map(|v| fixed(v.to_string()))
    .collect();
    let opts = RunOptions {
        task: "t".into(),
        mode: Mode::Follower,
        request: None,
        plan: Some(plan),
        app: None,
    };
    let o = run_opts(
        replies,
        &[],
        "SAFE_GUARD: false\n",
        logs.path(),
        editor(),
        &opts,
    )
    .await;
    assert_eq!(o.report.status, SessionStatus::Finish, "{:?}", o.report);
    let done: Vec<String> = o.desktop.actions().into_iter().map(|a| a.0).collect();
    assert_eq!(done, ["run_shell", "set_edit_text"]);
}

#[tokio::test]
async fn the_host_waits_for_the_user_on_pending_without_questions_and_on_confirm() {
    let host = |status: &str, comment: &str| json!({"observation": "an editor is open", "thought": "careful", "status": status, "questions": [], "comment": comment});
    let host_assign = json!({"observation": "an editor is open", "thought": "assign", "current_subtask": "write hello", "message": [], "plan": [], "status": "ASSIGN", "function": "select_application_window", "arguments": {"id": "1", "name": "notes.txt"}});
    let host_finish = json!({"observation": "done", "thought": "all done", "status": "FINISH", "result": "hello written"});
    // Declined: the round ends there, nothing reaches the application.
    let logs = tempfile::tempdir().unwrap();
    let replies = [
        host("PENDING", "I will overwrite notes.txt"),
        host_assign.clone(),
    ]
    .iter()
    .map(|v| fixed(v.to_string()))
    .collect();
    let o = run_on(replies, &["n"], "", logs.path(), editor(), None).await;
    assert_eq!(o.report.status, SessionStatus::Finish, "{:?}", o.report);
    assert!(o.report.result.contains("declined"), "{:?}", o.report);
    assert_eq!(statuses(&o.report.log_dir), ["PENDING"]);
    assert_eq!(o.model.remaining(), 1);
    assert!(o.desktop.actions().is_empty());
    let asked: Vec<&String> = o
        .asked
        .iter()
        .map(|a| &a.0)
        .filter(|a| !a.contains("new request"))
        .collect();
    assert_eq!(asked.len(), 1, "{:?}", o.asked);
    assert!(
        asked[0].contains("[HostAgent]") && asked[0].contains("I will overwrite notes.txt"),
        "{asked:?}"
    );
    // UFO's CONFIRM, confirmed: the HostAgent goes on.
    let logs = tempfile::tempdir().unwrap();
    let replies = [
        host("CONFIRM", "I will overwrite notes.txt"),
        host_assign,
        type_text("CONTINUE"),
        finish(),
        host_finish,
    ]
    .iter()
    .map(|v| fixed(v.to_string()))
    .collect();
    let o = run_on(replies, &["y"], "", logs.path(), editor(), None).await;
    assert_eq!(o.report.status, SessionStatus::Finish, "{:?}", o.report);
    assert_eq!(
        statuses(&o.report.log_dir),
        ["CONFIRM", "ASSIGN", "CONTINUE", "FINISH", "FINISH"]
    );
    let asked: Vec<&String> = o
        .asked
        .iter()
        .map(|a| &a.0)
        .filter(|a| !a.contains("new request"))
        .collect();
    assert_eq!(asked.len(), 1, "{:?}", o.asked);
}

#[tokio::test]
async fn a_nonvisual_app_agent_is_never_told_of_screenshots() {
    for (extra, says) in [
        ("", "Each turn you see the list of controls"),
        ("ACTION_SEQUENCE: true\n", "SEQUENCE of actions"),
    ] {
        let logs = tempfile::tempdir().unwrap();
        let sequence = json!({"observation": "an editor", "thought": "type, then done", "action": [
            {"function": "set_edit_text", "arguments": {"id": "1", "name": "Text", "text": "hello"}, "status": "CONTINUE"},
            {"function": "summary", "arguments": {"text": "done"}, "status": "FINISH"}
        ]});
        let replies = match extra.is_empty() {
            true => vec![type_text("CONTINUE"), finish()],
            false => vec![sequence],
        };
        let o = run_case(
            replies.iter().map(|v| fixed(v.to_string())).collect(),
            &[],
            &format!("APP_AGENT:\n{{m}}  VISUAL_MODE: false\n{extra}"),
            logs.path(),
            editor(),
        )
        .await;
        assert_eq!(
            o.report.status,
            SessionStatus::Finish,
            "{extra}: {:?}",
            o.report
        );
        let done: Vec<String> = o.desktop.actions().into_iter().map(|a| a.0).collect();
        assert_eq!(done, ["set_edit_text", "summary"], "{extra}");
        for r in o.model.requests() {
            assert_eq!(r.image_count(), 0, "{extra}");
            let text = r.text();
            assert!(text.contains(says), "{extra}: {text}");
            assert!(
                text.contains("<Available Control Item:>"),
                "{extra}: {text}"
            );
            assert!(
                !text.to_lowercase().contains("screenshot"),
                "{extra}: {text}"
            );
        }
    }
}

#[tokio::test]
async fn batch_normal_operator_offers_the_operator_to_the_host_and_task_status_can_be_off() {
    let logs = tempfile::tempdir().unwrap();
    let tasks = logs.path().join("tasks");
    std::fs::create_dir_all(&tasks).unwrap();
    std::fs::write(tasks.join("t1.json"), r#"{"request": "write hello"}"#).unwrap();
    let mode: Mode = "batch_normal_operator".parse().unwrap();
    assert_eq!(mode, Mode::BatchNormalOperator);
    let host = ufo_testkit::scripted::reply(|r| {
        let targets = r.list_after("<Available Applications/Agents:>");
        assert!(
            targets.iter().any(|t| t["name"] == "OperatorAgent"),
            "{targets:?}"
        );
        json!({"observation": "", "thought": "nothing to do", "status": "FINISH", "result": "ok"})
            .to_string()
    });
    let opts = RunOptions {
        task: "t".into(),
        mode,
        request: None,
        plan: Some(tasks.clone()),
        app: None,
    };
    let operator = "OPERATOR:\n  API_TYPE: operator\n  API_BASE: http://127.0.0.1:9/v1\n  API_KEY: sk-test\n  API_MODEL: cu-model\nTASK_STATUS: false\n";
    let o = run_opts(vec![host], &[], operator, logs.path(), editor(), &opts).await;
    assert_eq!(o.report.status, SessionStatus::Finish, "{:?}", o.report);
    assert_eq!(o.model.remaining(), 0);
    // TASK_STATUS: false keeps no status file.
    assert!(!logs.path().join("t/tasks_status.json").exists());
}

#[tokio::test]
async fn a_batch_task_opens_its_object_before_its_round() {
    let logs = tempfile::tempdir().unwrap();
    // UFO's layout: the task files in tasks/, the files they are about in files/.
    let (tasks, files) = (logs.path().join("tasks"), logs.path().join("files"));
    std::fs::create_dir_all(&tasks).unwrap();
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(files.join("notes.txt"), "old").unwrap();
    std::fs::write(
        tasks.join("t1.json"),
        r#"{"request": "write hello in the editor", "object": "notes.txt", "app": "editor", "close": false}"#,
    )
    .unwrap();
    std::fs::write(
        tasks.join("t2.json"),
        r#"{"request": "write hello in the editor", "object": "missing.txt", "app": "editor"}"#,
    )
    .unwrap();
    let opts = RunOptions {
        task: "t".into(),
        mode: Mode::BatchNormal,
        request: None,
        plan: Some(tasks.clone()),
        app: None,
    };
    let o = run_opts(
        vec![fixed(finish().to_string())],
        &[],
        "",
        logs.path(),
        editor(),
        &opts,
    )
    .await;
    assert_eq!(o.report.status, SessionStatus::Finish, "{:?}", o.report);
    let done = o.desktop.actions();
    assert_eq!(done[0].0, "run_shell", "{done:?}");
    let command = done[0].1["bash_command"].as_str().unwrap();
    let expected = files.join("notes.txt").canonicalize().unwrap();
    assert_eq!(command, format!("editor {}", expected.display()));
    assert_eq!(done[1].0, "summary", "{done:?}");
    // A missing object is the task's error, said with the file and where it
    // was looked for; no model call is made for it.
    let status: Value = serde_json::from_str(
        &std::fs::read_to_string(logs.path().join("t/tasks_status.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(status, json!({"t1": "finished", "t2": "failed"}));
    assert!(o.shown.contains("missing.txt"), "{}", o.shown);
    assert_eq!(o.model.remaining(), 0);
}
