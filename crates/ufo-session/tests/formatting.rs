//! A session whose agents use AgentScope formatting strategies
//! (`FORMAT_STRATEGY`), each agent its own: the HostAgent's requests keep
//! OpenAI's roles, the AppAgent's are folded into one Ollama `/api/generate`
//! prompt with the screenshots in `images`; the work gets done either way.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use ufo_session::SessionStatus;
use ufo_testkit::scripted::ScriptedModel;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_agent_speaks_through_its_own_formatting_strategy() {
    let rig = rig("sess-format", &["gnome-calculator"]).await;
    let model = ScriptedModel::start(vec![
        host_assign("gnome-calculator", "Enter 7.", ""),
        click("7", "FINISH"),
        host_finish("7 entered"),
    ])
    .await;
    let cfg = config(&format!(
        "HOST_AGENT:\n{host}  FORMAT_STRATEGY: openai_chat\nAPP_AGENT:\n{app}MAX_STEP: 10\nSLEEP_TIME: 0\nEVA_SESSION: false\nSAFE_GUARD: false\n",
        host = model.agent_yaml(),
        app = model.ollama_yaml("ollama_generate"),
    ));
    let io = std::sync::Arc::new(ufo_session::ScriptedIo::new(Vec::<String>::new()));
    let reports = run(
        &rig,
        cfg,
        io,
        ufo_session::Mode::Normal,
        Some("enter 7 in the calculator"),
        None,
        None,
        "format",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish, "{:?}", reports[0]);
    assert_eq!(calculator_display(&rig.backend).await, "7");
    let reqs = model.requests();
    assert_eq!(reqs.len(), 3);
    // The HostAgent: OpenAI messages, roles kept.
    assert_eq!(reqs[0].body["messages"][0]["role"], "system");
    // The AppAgent: one folded prompt, images apart, no messages.
    let app = &reqs[1].body;
    assert!(app.get("messages").is_none(), "{app}");
    let prompt = app["prompt"].as_str().unwrap();
    assert!(prompt.contains("## Dialogue History"), "{prompt}");
    assert!(prompt.contains("<Available Control Item:>"), "{prompt}");
    let images = app["images"].as_array().unwrap();
    assert!(!images.is_empty() && !images[0].as_str().unwrap().starts_with("data:"));
    rig.desktop.stop().unwrap();
}

#[test]
fn a_strategy_of_another_provider_or_a_misspelt_one_is_named() {
    for (section, says) in [
        (
            "  API_TYPE: openai\n  API_MODEL: m\n  FORMAT_STRATEGY: ollama_generate\n",
            "cannot be used with API_TYPE openai",
        ),
        (
            "  API_TYPE: ollama\n  API_MODEL: m\n  FORMAT_STRATEGY: olama_chat\n",
            "not a formatting strategy",
        ),
    ] {
        let e = ufo_session::config::UfoConfig::parse(
            &format!("APP_AGENT:\n{section}"),
            std::path::Path::new("."),
            &|_| None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("APP_AGENT.FORMAT_STRATEGY") && e.contains(says),
            "{e}"
        );
    }
}
