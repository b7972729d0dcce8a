//! Cost budgets of `ufo eval` on real private desktops: three of the
//! shipped suite's Mousepad tasks, one at a time, against a scripted model
//! whose replies carry usage the config prices. The first task reaches its
//! own budget (`max_task_cost`), the second the run's (`max_cost`), the
//! third finds the run's budget spent and never runs: all three are
//! `budget` in the results, `results.json` and the report, with their cost
//! and tokens per agent.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::config;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use ufo_eval::report;
use ufo_eval::run::{EvalMode, EvalOptions, RunStatus, TaskDesktop, TaskResult, run_tasks};
use ufo_eval::suite::load_suite;
use ufo_testkit::scripted::{ScriptedModel, reply};

/// The HostAgent assigns the task to Mousepad; the AppAgent goes on
/// without acting, each reply about 1700 characters (output tokens are
/// the reply's length / 4: about $0.43 a step at $1 per 1K).
fn model_replies() -> Vec<ufo_testkit::scripted::Reply> {
    let one = || {
        reply(|r| match r.window("mousepad") {
            Some((id, name)) => json!({
                "observation": "mousepad is open", "thought": "assign it",
                "current_subtask": "edit the file", "message": ["edit the file"], "plan": [],
                "status": "ASSIGN", "function": "select_application_window",
                "arguments": {"id": id, "name": name}, "questions": [], "comment": "", "result": ""
            })
            .to_string(),
            None => json!({
                "observation": "the editor", "thought": "x".repeat(1600),
                "status": "CONTINUE", "plan": [], "comment": ""
            })
            .to_string(),
        })
    };
    (0..40).map(|_| one()).collect()
}

fn options(out: &Path, model: &ScriptedModel) -> EvalOptions {
    let m = model.agent_yaml();
    let config = config(&format!(
        "HOST_AGENT:\n{m}APP_AGENT:\n{m}PRICES:\n  scripted: {{input: 0, output: 1.0}}\n"
    ));
    EvalOptions {
        prompts: Arc::new(ufo_agent::PromptSet::load(&config.prompts).unwrap()),
        config,
        out: out.to_path_buf(),
        parallel: 1,
        max_steps: Some(30),
        mode: EvalMode::Normal,
        task_timeout: Duration::from_secs(180),
        fetcher: Arc::new(ufo_eval::fetch::Fetcher::new(out.join("downloads"), None)),
        desktop: TaskDesktop::default(),
        max_cost: Some(2.0),
        max_task_cost: Some(1.0),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_and_run_budgets_end_tasks_as_budget() {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../suites/linux-basic");
    let (all, _) = load_suite(&suite);
    let ids = [
        "mousepad-first-line",
        "mousepad-append-line",
        "mousepad-upper-case",
    ];
    let tasks: Vec<_> = ids
        .iter()
        .map(|id| all.iter().find(|t| t.task.id == *id).unwrap().clone())
        .collect();
    let model = ScriptedModel::start(model_replies()).await;
    let out = tempfile::tempdir().unwrap();
    let opts = options(out.path(), &model);
    let results = run_tasks(&opts, tasks.clone(), |_| {}).await;
    let [first, second, third] = &results[..] else {
        panic!("{results:#?}")
    };

    // The task's own budget ($1): HostAgent $0.09, AppAgent 3 × $0.43.
    assert_eq!(first.status, RunStatus::Budget, "{first:#?}");
    assert_eq!(first.session_status.as_deref(), Some("BUDGET"));
    assert_eq!((first.score, first.steps), (0.0, 4), "{first:#?}");
    assert!(first.cost >= 1.0 && first.cost < 1.5, "{first:#?}");
    let e = first.error.as_deref().unwrap();
    assert!(
        e.contains("the task's budget (--max-task-cost $1.0000)")
            && e.contains("error[ufo::session::budget]: MAX_COST ($1.0000) reached"),
        "{e}"
    );
    let (host, app) = (&first.agents["HostAgent"], &first.agents["AppAgent"]);
    assert_eq!((host.calls, app.calls), (1, 3), "{first:#?}");
    assert_eq!(host.tokens + app.tokens, first.tokens);
    assert!((host.cost + app.cost - first.cost).abs() < 1e-9);
    assert!(first.log_dir.as_ref().unwrap().join("output.md").is_file());

    // The run's budget ($2): what the first left (about $0.63) stops the
    // second after its HostAgent step and two AppAgent steps.
    assert_eq!(second.status, RunStatus::Budget, "{second:#?}");
    assert_eq!(second.steps, 3, "{second:#?}");
    let e = second.error.as_deref().unwrap();
    assert!(e.contains("the run's budget (--max-cost)"), "{e}");
    assert!(first.cost + second.cost >= 2.0);

    // The run's budget is spent: the third never runs.
    assert_eq!(third.status, RunStatus::Budget, "{third:#?}");
    assert_eq!((third.steps, third.session_status.as_deref()), (0, None));
    assert_eq!(third.cost, 0.0);
    assert!(
        third
            .error
            .as_deref()
            .unwrap()
            .starts_with("not run: the run's budget (--max-cost $2.0000) was spent"),
        "{third:#?}"
    );

    // results.json and the report say `budget`, with cost and tokens per agent.
    let json = serde_json::to_value(&results).unwrap();
    for r in json.as_array().unwrap() {
        assert_eq!(r["status"], "budget", "{r}");
    }
    assert_eq!(json[0]["agents"]["AppAgent"]["calls"], 3);
    assert!(json[0]["agents"]["HostAgent"]["tokens"].as_u64().unwrap() > 0);
    let back: Vec<TaskResult> = serde_json::from_value(json).unwrap();
    assert_eq!(back, results);
    let md = report::markdown(&results, Some(30), out.path());
    assert!(
        md.contains(&format!("| {} | 0.00 | budget | 4 |", first.id)),
        "{md}"
    );
    assert!(md.contains("## Cost per agent"), "{md}");
    let app_total = first.agents["AppAgent"].cost + second.agents["AppAgent"].cost;
    assert!(
        md.contains(&format!("| AppAgent | {app_total:.4} |")),
        "{md}"
    );
    let table = report::table(&results);
    assert!(table.contains("budget"), "{table}");
    assert!(table.contains("  HostAgent: $ "), "{table}");
    // A budget result is not kept: a rerun with more budget runs the task.
    for t in &tasks {
        assert!(
            !ufo_eval::run::task_dir(out.path(), t)
                .join("result.json")
                .exists()
        );
    }
}
