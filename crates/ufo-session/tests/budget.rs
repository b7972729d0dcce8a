//! Cost budgets on a real private desktop: the scripted model's replies
//! carry usage, the config prices them, and `MAX_COST` ends the session
//! with the status BUDGET, its logs on disk and the cost and tokens of each
//! agent in `output.md` and on the console.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;
use ufo_session::SessionStatus;
use ufo_testkit::scripted::{ScriptedModel, fixed};

/// An AppAgent step that goes on without acting, its reply about `chars`
/// long: the scripted server counts a reply's tokens as its length / 4.
fn costly_app_step(chars: usize) -> ufo_testkit::scripted::Reply {
    fixed(
        json!({"observation": "the editor", "thought": "x".repeat(chars), "status": "CONTINUE", "plan": [], "comment": ""})
            .to_string(),
    )
}

/// One desktop for both sessions, one after the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cost_budgets_and_local_models_on_a_real_desktop() {
    let rig = rig("sess-budget", &["mousepad"]).await;
    max_cost_ends_the_session_with_budget_its_logs_and_the_cost_per_agent(&rig).await;
    a_local_model_costs_0_and_says_so(&rig).await;
}

async fn max_cost_ends_the_session_with_budget_its_logs_and_the_cost_per_agent(rig: &Rig) {
    // Output tokens cost $1 per 1K, input nothing: the HostAgent's short
    // reply costs about $0.09, each AppAgent reply about $1.02. With
    // MAX_COST 1.5 the session stops after the second AppAgent step.
    let replies = vec![
        host_assign("mousepad", "write hello", "write hello in the editor"),
        costly_app_step(4000),
        costly_app_step(4000),
        costly_app_step(4000),
        costly_app_step(4000),
    ];
    let model = ScriptedModel::start(replies).await;
    let (reports, io) = normal(
        rig,
        &model,
        "MAX_COST: 1.5\nPRICES:\n  scripted: {input: 0, output: 1.0}\n",
        &[],
        "write hello in mousepad",
        None,
        "budget",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Budget, "{r:?}");
    assert_eq!(r.status.as_str(), "BUDGET");
    // No model call after the budget was reached.
    assert_eq!((r.steps, model.remaining()), (3, 2), "{r:?}");
    let e = r.error.as_ref().unwrap();
    assert_eq!(e.code, "ufo::session::budget");
    assert!(
        e.message
            .starts_with("MAX_COST ($1.5000) reached: the session spent $2.1"),
        "{e:?}"
    );
    assert!(
        e.help.as_deref().unwrap().contains("raise MAX_COST"),
        "{e:?}"
    );
    // Cost and tokens per agent.
    assert!(
        r.usage.cost >= 1.5 && r.usage.unpriced_calls == 0,
        "{:?}",
        r.usage
    );
    let host = &r.usage_by_agent["HostAgent"];
    let app = &r.usage_by_agent["AppAgent"];
    assert_eq!((host.calls, app.calls), (1, 2));
    assert!(host.cost > 0.0 && host.cost < 0.3, "{host:?}");
    assert!(app.cost > 2.0 && app.cost < 2.2, "{app:?}");
    assert_eq!(
        host.usage.total_tokens + app.usage.total_tokens,
        r.usage.usage.total_tokens
    );
    assert!(app.usage.prompt_tokens > 0 && app.usage.completion_tokens > 2000);
    // The logs are on disk: every step, and output.md with the status, the
    // error and a row per agent.
    assert_eq!(steps(&r.log_dir.join("response.log")).len(), 3);
    let md = std::fs::read_to_string(r.markdown.as_ref().unwrap()).unwrap();
    assert!(md.contains("- **Status:** BUDGET"), "{md}");
    assert!(
        md.contains("`ufo::session::budget` MAX_COST ($1.5000) reached"),
        "{md}"
    );
    assert!(md.contains("### Cost per agent"), "{md}");
    let row = |agent: &str, u: &ufo_llm::UsageTotals| {
        format!(
            "| {agent} | ${:.4} | {} | {} | {} | {} |",
            u.cost, u.usage.total_tokens, u.usage.prompt_tokens, u.usage.completion_tokens, u.calls
        )
    };
    assert!(md.contains(&row("HostAgent", host)), "{md}");
    assert!(md.contains(&row("AppAgent", app)), "{md}");
    // The console says why it stopped, what each step cost and each agent.
    let shown = io.transcript().join("\n");
    assert!(
        shown.contains("MAX_COST ($1.5000) reached") && shown.contains("the session ends."),
        "{shown}"
    );
    assert!(shown.contains("ended: BUDGET after 3 steps"), "{shown}");
    assert!(
        shown.contains(&format!(
            "Per agent: AppAgent: ${:.4} ({} tokens, 2 model calls); HostAgent: ${:.4} ({} tokens, 1 model calls).",
            app.cost, app.usage.total_tokens, host.cost, host.usage.total_tokens
        )),
        "{shown}"
    );
    assert!(shown.contains("  cost: $1.0"), "{shown}");
}

async fn a_local_model_costs_0_and_says_so(rig: &Rig) {
    let replies = vec![
        host_assign("mousepad", "write hello", "write hello in the editor"),
        app_finish("nothing to do"),
        host_finish("done"),
    ];
    let model = ScriptedModel::start(replies).await;
    // A price of 0 makes the model local; MAX_COST never stops it.
    let (reports, io) = normal(
        rig,
        &model,
        "MAX_COST: 0.01\nPRICES:\n  scripted: {input: 0, output: 0}\n",
        &[],
        "write hello in mousepad",
        None,
        "local",
    )
    .await;
    let r = &reports[0];
    assert_eq!(r.status, SessionStatus::Finish, "{r:?}");
    assert_eq!(r.usage.local_calls, 3, "{:?}", r.usage);
    let shown = io.transcript().join("\n");
    assert!(shown.contains("Total cost: $0 (local model)"), "{shown}");
    assert!(shown.contains("  cost: $0 (local model) · "), "{shown}");
    let md = std::fs::read_to_string(r.markdown.as_ref().unwrap()).unwrap();
    assert!(md.contains("- **Cost**: $0 (local model) ("), "{md}");
    assert!(md.contains("| HostAgent | $0 (local model) |"), "{md}");
}
