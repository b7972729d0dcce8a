//! `ufo eval` end to end on real private desktops: the shipped suite's
//! checkers verified both ways (its follower plans score 1; an agent that
//! does nothing scores 0, so no checker passes vacuously), infeasible tasks,
//! a hung task and an unsupported checker, two tasks at a time.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::config;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use ufo_eval::run::{EvalMode, EvalOptions, RunStatus, TaskDesktop, TaskResult, run_tasks};
use ufo_eval::suite::load_suite;
use ufo_session::config::UfoConfig;
use ufo_testkit::scripted::{ScriptedModel, fixed};

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../suites/linux-basic")
}

fn options(config: UfoConfig, out: &Path, mode: EvalMode, timeout: u64) -> EvalOptions {
    EvalOptions {
        prompts: Arc::new(ufo_agent::PromptSet::load(&config.prompts).unwrap()),
        config,
        out: out.to_path_buf(),
        parallel: 2,
        max_steps: Some(30),
        mode,
        task_timeout: Duration::from_secs(timeout),
        fetcher: Arc::new(ufo_eval::fetch::Fetcher::new(out.join("downloads"), None)),
        desktop: TaskDesktop::default(),
        max_cost: None,
        max_task_cost: None,
    }
}

/// A scripted model whose every HostAgent/AppAgent reply is `reply`, and
/// the config that points both agents at it.
async fn always(reply: serde_json::Value, n: usize) -> (ScriptedModel, UfoConfig) {
    let model = ScriptedModel::start((0..n).map(|_| fixed(reply.to_string())).collect()).await;
    let m = model.agent_yaml();
    let cfg = config(&format!("HOST_AGENT:\n{m}APP_AGENT:\n{m}"));
    (model, cfg)
}

fn by_id(results: &[TaskResult]) -> std::collections::BTreeMap<String, TaskResult> {
    results.iter().map(|r| (r.id.clone(), r.clone())).collect()
}

/// One test, its phases in sequence: several eval runs at once would put
/// eight desktops (LibreOffice among them) on two cores.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_harness_on_real_desktops() {
    the_suite_scores_1_with_its_plans_and_0_when_nothing_is_done().await;
    giving_up_hangs_and_unknown_checkers_are_scored_and_recorded().await;
    the_operator_mode_solves_a_task_by_coordinates().await;
}

/// `--mode operator`: a scripted computer-use model (OpenAI's Responses
/// API) clicks into mousepad's text by screen position, types the sentence,
/// and the task's checker scores it.
async fn the_operator_mode_solves_a_task_by_coordinates() {
    use ufo_testkit::scripted::reply;
    let (suite_tasks, _) = load_suite(&suite());
    let task: Vec<_> = suite_tasks
        .into_iter()
        .filter(|t| t.task.id == "mousepad-type-sentence")
        .collect();
    assert_eq!(task.len(), 1);
    // Screen (200, 200) is inside mousepad's text (its window opens at the
    // top-left); the model sees the screen scaled to `display_width`.
    let click = reply(|r| {
        assert_eq!(r.body["tools"][0]["type"], "computer_use_preview");
        let w = r.body["tools"][0]["display_width"].as_f64().unwrap();
        let at = (200.0 * w / 1280.0).round();
        json!({"id": "resp_0", "output": [{"type": "computer_call", "call_id": "call_0",
            "action": {"type": "click", "button": "left", "x": at, "y": at}, "pending_safety_checks": []}]})
        .to_string()
    });
    let typing = fixed(
        json!({"id": "resp_1", "output": [{"type": "computer_call", "call_id": "call_1",
            "action": {"type": "type", "text": "The quick brown fox"}, "pending_safety_checks": []}]})
        .to_string(),
    );
    let done = fixed(
        json!({"id": "resp_2", "output": [{"type": "message", "content": [{"type": "output_text", "text": "Typed."}]}]})
            .to_string(),
    );
    let model = ScriptedModel::start(vec![click, typing, done]).await;
    let cfg = config(&format!(
        "OPERATOR:\n  API_TYPE: operator\n  API_BASE: {}\n  API_KEY: sk-test\n",
        model.base_url()
    ));
    let out = tempfile::tempdir().unwrap();
    let opts = options(cfg, out.path(), EvalMode::Operator, 120);
    let results = run_tasks(&opts, task, |_| {}).await;
    let r = &results[0];
    assert_eq!((r.score, r.status), (1.0, RunStatus::Scored), "{r:?}");
    assert_eq!(r.steps, 3, "{r:?}");
    assert_eq!(model.remaining(), 0);
}

async fn the_suite_scores_1_with_its_plans_and_0_when_nothing_is_done() {
    let (tasks, errors) = load_suite(&suite());
    assert!(errors.is_empty(), "{errors:?}");
    assert!(tasks.len() >= 33, "{}", tasks.len());
    let feasible: Vec<_> = tasks
        .iter()
        .filter(|t| !t.task.infeasible())
        .cloned()
        .collect();

    // Solved by the plans: every feasible task scores 1.
    let out = tempfile::tempdir().unwrap();
    let plans = suite().join("plans");
    let opts = options(config(""), out.path(), EvalMode::Follower(plans), 180);
    let results = run_tasks(&opts, feasible.clone(), |_| {}).await;
    for r in &results {
        assert_eq!((r.score, r.status), (1.0, RunStatus::Scored), "{r:?}");
    }
    assert_eq!(results.len(), feasible.len());

    // An agent that says FINISH at once: nothing changed, every task scores 0,
    // the infeasible one too (it did not give up).
    let (_model, cfg) = always(
        json!({"observation": "", "thought": "nothing to do", "status": "FINISH", "result": "done"}),
        tasks.len(),
    )
    .await;
    let out = tempfile::tempdir().unwrap();
    let opts = options(cfg, out.path(), EvalMode::Normal, 180);
    let results = by_id(&run_tasks(&opts, tasks.clone(), |_| {}).await);
    for t in &tasks {
        let r = &results[&t.task.id];
        assert_eq!((r.score, r.status), (0.0, RunStatus::Scored), "{r:?}");
        assert_eq!(r.session_status.as_deref(), Some("FINISH"));
    }
}

async fn giving_up_hangs_and_unknown_checkers_are_scored_and_recorded() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tasks");
    let (mut tasks, errors) = load_suite(&here);
    assert!(errors.is_empty(), "{errors:?}");
    let (suite_tasks, _) = load_suite(&suite());
    tasks.extend(suite_tasks.into_iter().filter(|t| {
        ["infeasible-photoshop", "mousepad-append-line"].contains(&t.task.id.as_str())
    }));
    // The model gives up on everything.
    let (_model, cfg) = always(
        json!({"observation": "", "thought": "this cannot be done", "status": "FAIL", "comment": "not possible"}),
        tasks.len(),
    )
    .await;
    let out = tempfile::tempdir().unwrap();
    let opts = options(cfg, out.path(), EvalMode::Normal, 20);
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let results = by_id(
        &run_tasks(&opts, tasks.clone(), move |r| {
            s2.lock().unwrap().push(r.id.clone())
        })
        .await,
    );
    assert_eq!(seen.lock().unwrap().len(), tasks.len());
    // Giving up is right only for the infeasible task.
    assert_eq!(
        results["infeasible-photoshop"].score, 1.0,
        "{:?}",
        results["infeasible-photoshop"]
    );
    assert_eq!(results["mousepad-append-line"].score, 0.0);
    // The hung task is recorded and the run went on.
    let hung = &results["hangs"];
    assert_eq!(
        (hung.status, hung.score),
        (RunStatus::Timeout, 0.0),
        "{hung:?}"
    );
    assert!(
        hung.error
            .as_deref()
            .unwrap_or_default()
            .contains("did not finish")
    );
    // A checker this build lacks is reported, not a crash.
    let un = &results["unsupported-checker"];
    assert_eq!(un.status, RunStatus::Unsupported, "{un:?}");
    assert!(
        un.error
            .as_deref()
            .unwrap_or_default()
            .contains("compare_pdf_files"),
        "{un:?}"
    );
    // A failed setup step is recorded rendered: its code, the OS error as
    // its cause, its help; the agent never ran.
    let setup = &results["setup-fails"];
    assert_eq!(setup.status, RunStatus::SetupFailed, "{setup:?}");
    assert_eq!(setup.session_status, None, "{setup:?}");
    let text = setup.error.as_deref().unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("error[ufo::eval::setup_step]: download step 1: cannot copy ")
            && lines[0].contains("no-such-file.txt"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("  caused by: ") && lines[1].contains("os error"),
        "{text}"
    );
    assert!(
        lines[2].starts_with("  help: fix the step in the task file"),
        "{text}"
    );
    // Each task wrote its result: a rerun skips them all (and is instant).
    for t in &tasks {
        assert!(
            out.path()
                .join(ufo_eval::run::safe_name(&t.task.id))
                .join("result.json")
                .is_file()
        );
    }
    let again = run_tasks(&opts, tasks.clone(), |_| {}).await;
    // As stored: only a time's last digit may differ through JSON's text.
    let (again, results) = (by_id(&again), results);
    assert_eq!(again.len(), results.len());
    for (id, r) in &results {
        let a = &again[id];
        assert!((a.time_s - r.time_s).abs() < 1e-9, "{a:?}\n{r:?}");
        let time_s = r.time_s;
        assert_eq!(
            &TaskResult {
                time_s,
                ..a.clone()
            },
            r
        );
    }
}
