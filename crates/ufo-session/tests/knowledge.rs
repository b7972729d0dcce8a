//! Knowledge in sessions: experience saved by one session and retrieved by
//! the next, help documents per application, a corrupted index rebuilt —
//! real private desktops, the scripted model over HTTP, tantivy on disk.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::json;
use ufo_knowledge::{KnowledgeBase, Settings, Source};
use ufo_session::SessionStatus;
use ufo_testkit::scripted::{ScriptedModel, fixed};

fn summary(tip: &str) -> ufo_testkit::scripted::Reply {
    fixed(
        json!({
            "Observation": "the calculator shows 0",
            "Thought": "press the digit button",
            "ControlLabel": "7",
            "ControlText": "7",
            "Function": "click_input",
            "Args": {"button": "left"},
            "Status": "FINISH",
            "Plan": [],
            "Comment": "pressed 7",
            "Tips": tip
        })
        .to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_experience_is_retrieved_into_the_next_app_prompt() {
    let rig = rig("kn-exp", &["gnome-calculator"]).await;
    let kdir = tempfile::tempdir().unwrap();
    let kdir_yaml = format!("KNOWLEDGE_DIR: {:?}\n", kdir.path());

    // 1. A session that saves its experience.
    let model = ScriptedModel::start(vec![
        host_assign("gnome-calculator", "Press 7 on the calculator.", "Click 7"),
        click("7", "CONTINUE"),
        app_finish("7"),
        host_finish("pressed 7"),
        summary("EXP-TIP-7: the digit buttons are named by their digit"),
    ])
    .await;
    let (reports, io) = normal(
        &rig,
        &model,
        &format!("{kdir_yaml}SAVE_EXPERIENCE: always\n"),
        &[],
        "press 7 on the calculator",
        None,
        "exp-first",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish, "{:?}", reports[0]);
    assert_eq!(model.remaining(), 0);
    assert!(
        io.transcript()
            .iter()
            .any(|l| l.contains("Saved 1 experience")),
        "{:?}",
        io.transcript()
    );
    // The summary request saw the AppAgent's steps of that sub-task.
    let reqs = model.requests();
    let sum = reqs.last().unwrap().text();
    assert!(
        sum.contains("<Sub-task:> Press 7 on the calculator."),
        "{sum}"
    );
    assert!(sum.contains("click_input"), "{sum}");
    // The template's escaped braces reach the model as the JSON they stand for.
    let system = reqs.last().unwrap().system();
    assert!(
        system.contains("You summarise how a desktop agent"),
        "{system}"
    );
    assert!(!system.contains("{{") && !system.contains("}}"), "{system}");
    assert!(system.contains("\"Observation\": "), "{system}");
    // A visual AppAgent (the default) is summarised visually, as UFO's
    // summariser is: the visual prompt, and each of the sub-task's two
    // AppAgent steps with its screenshot from the log folder.
    assert!(
        system.contains("\"Args\": {\"<argument>\": \"<value>\"}"),
        "{system}"
    );
    let shots = reqs.last().unwrap().image_urls();
    assert_eq!(shots.len(), 2, "{sum}");
    let on_disk = std::fs::read(reports[0].log_dir.join("action_step2.png")).unwrap();
    assert!(shots[0] == ufo_desktop::encode::data_url("image/png", &on_disk));
    assert!(sum.contains("Step 1:") && sum.contains("Step 2:"), "{sum}");
    // Stored in UFO's record shape.
    let kb = KnowledgeBase::open(Settings::off(kdir.path().to_path_buf())).unwrap();
    let recs = kb.store(Source::Experience).records().unwrap();
    assert_eq!(recs.len(), 1);
    let body = &recs[0].body;
    assert_eq!(body["Sub-task"], "Press 7 on the calculator.");
    assert_eq!(body["app_list"], json!(["gnome-calculator"]));
    assert_eq!(body["example"]["ControlText"], "7");
    for k in [
        "Observation",
        "Thought",
        "ControlLabel",
        "Function",
        "Args",
        "Status",
        "Plan",
        "Comment",
    ] {
        assert!(body["example"].get(k).is_some(), "{k} missing: {body}");
    }
    // A demonstration in UFO's YAML, taken as it is.
    let demo = kdir.path().join("demo.yaml");
    std::fs::write(
        &demo,
        "example0:\n  example:\n    Observation: the calculator\n    Function: click_input\n    ControlText: '8'\n    Status: FINISH\n  Tips: 'DEMO-TIP-8: the digits are buttons'\n  request: press 8 on the calculator\n  app_list: [gnome-calculator]\n",
    )
    .unwrap();
    let t =
        ufo_session::knowledge::template(None, ufo_session::knowledge::DEMONSTRATION_SUMMARY, "d")
            .unwrap();
    let d = ufo_session::knowledge::read_demonstration(&demo).unwrap();
    let recs =
        ufo_session::knowledge::demonstration_records(None, &t, d, 0, &mut Default::default())
            .await
            .unwrap();
    kb.add(Source::Demonstration, recs).await.unwrap();
    drop(kb);

    // 2. A similar request: the AppAgent's prompt carries the experience.
    let model = ScriptedModel::start(vec![
        host_assign("gnome-calculator", "Press 8 on the calculator.", "Click 8"),
        app_finish("8"),
        host_finish("pressed 8"),
    ])
    .await;
    let (reports, _) = normal(
        &rig,
        &model,
        &format!("{kdir_yaml}RAG_EXPERIENCE: true\nRAG_EXPERIENCE_RETRIEVED_TOPK: 3\nRAG_DEMONSTRATION: true\n"),
        &[],
        "press 8 on the calculator",
        None,
        "exp-second",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish, "{:?}", reports[0]);
    let reqs = model.requests();
    let app_system = reqs[1].system();
    assert!(app_system.contains("EXP-TIP-7"), "{app_system}");
    assert!(
        app_system.contains("[User Request]:\n    press 7 on the calculator"),
        "{app_system}"
    );
    // The demonstration follows as another example.
    let (i_exp, i_demo) = (
        app_system.find("EXP-TIP-7").unwrap(),
        app_system.find("DEMO-TIP-8").unwrap(),
    );
    assert!(i_exp < i_demo, "{app_system}");
    // The HostAgent sees it too (any application's experience).
    assert!(reqs[0].system().contains("EXP-TIP-7"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_documents_reach_only_their_application() {
    let rig = rig("kn-docs", &["gnome-calculator", "mousepad"]).await;
    let kdir = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    std::fs::create_dir(docs.path().join("calc")).unwrap();
    std::fs::create_dir(docs.path().join("pad")).unwrap();
    std::fs::write(
        docs.path().join("calc/multiply.json"),
        json!({"application": "gnome-calculator", "request": "How to multiply two numbers?", "guidance": ["CALC-DOC: click the first number", "click ×", "click the second number", "click ="]}).to_string(),
    )
    .unwrap();
    std::fs::write(
        docs.path().join("pad/typing.md"),
        "# Type a number into the document\n\nPAD-DOC: click into the text area and type the number.\n",
    )
    .unwrap();
    {
        let kb = KnowledgeBase::open(Settings::off(kdir.path().to_path_buf())).unwrap();
        for (dir, app) in [("calc", "gnome-calculator"), ("pad", "mousepad")] {
            let l = ufo_knowledge::docs::load_dir(&docs.path().join(dir), app).unwrap();
            kb.add(Source::HelpDocs, l.records).await.unwrap();
        }
    }
    let model = ScriptedModel::start(vec![
        host_assign("gnome-calculator", "Multiply 12 by 7.", ""),
        app_finish("84"),
        host_assign("mousepad", "Type the number 84 into the document.", ""),
        app_finish("typed"),
        host_finish("done"),
    ])
    .await;
    let (reports, _) = normal(
        &rig,
        &model,
        &format!("KNOWLEDGE_DIR: {:?}\nRAG_OFFLINE_DOCS: true\n", kdir.path()),
        &[],
        "multiply 12 by 7 in the calculator and type the number into mousepad",
        None,
        "docs",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish, "{:?}", reports[0]);
    let reqs = model.requests();
    let calc = reqs[1].last_user_text();
    assert!(calc.contains("[Help Documents]"), "{calc}");
    assert!(
        calc.contains("[Similar Requests]: How to multiply two numbers?\nStep: CALC-DOC"),
        "{calc}"
    );
    assert!(!calc.contains("PAD-DOC"), "{calc}");
    let pad = reqs[3].last_user_text();
    assert!(pad.contains("PAD-DOC"), "{pad}");
    assert!(!pad.contains("CALC-DOC"), "{pad}");
    // The HostAgent is given no application's help documents.
    assert!(!reqs[0].text().contains("[Help Documents]"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupted_index_is_rebuilt_with_a_warning_not_a_crash() {
    let rig = rig("kn-corrupt", &["gnome-calculator"]).await;
    let kdir = tempfile::tempdir().unwrap();
    {
        let kb = KnowledgeBase::open(Settings::off(kdir.path().to_path_buf())).unwrap();
        let summary = ufo_knowledge::records::summary_record(
            &json!({"Function": "click_input", "ControlText": "9"}),
            "CORRUPT-TIP: press 9",
            "press 9 on the calculator",
            "Press 9 on the calculator.",
            &["gnome-calculator".to_owned()],
        );
        kb.add(
            Source::Experience,
            vec![ufo_knowledge::records::record_of_summary("e1", &summary)],
        )
        .await
        .unwrap();
    }
    let index = kdir.path().join("experience/index");
    for e in std::fs::read_dir(&index).unwrap() {
        std::fs::write(e.unwrap().path(), b"{not an index").unwrap();
    }
    let model = ScriptedModel::start(vec![app_finish("9")]).await;
    let (reports, io) = normal(
        &rig,
        &model,
        &format!("KNOWLEDGE_DIR: {:?}\nRAG_EXPERIENCE: true\n", kdir.path()),
        &[],
        "press 9 on the calculator",
        Some("gnome-calculator"),
        "corrupt",
    )
    .await;
    assert_eq!(reports[0].status, SessionStatus::Finish, "{:?}", reports[0]);
    let t = io.transcript();
    assert!(
        t.iter()
            .any(|l| l.starts_with("warning: the experience index")
                && l.contains("corrupted")
                && l.contains("rebuilt")),
        "{t:?}"
    );
    // Rebuilt from the records: the experience is still retrieved.
    assert!(model.requests()[0].system().contains("CORRUPT-TIP"));
    // And the rebuilt index opens cleanly afterwards.
    let kb = KnowledgeBase::open(Settings::off(kdir.path().to_path_buf())).unwrap();
    assert!(kb.warnings().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn save_experience_auto_follows_the_evaluation() {
    let rig = rig("kn-auto", &["gnome-calculator"]).await;
    let kdir = tempfile::tempdir().unwrap();
    let verdict = |complete: &str| {
        fixed(
            json!({"reason": "checked the display", "sub_scores": [], "complete": complete})
                .to_string(),
        )
    };
    let extra = format!("KNOWLEDGE_DIR: {:?}\nSAVE_EXPERIENCE: auto\n", kdir.path());
    // A single-tier session with the evaluation on (the common config turns it off).
    // `VISUAL_MODE: false` on the last session: its summary is not visual.
    let session = |model: &ScriptedModel, extra: &str, answers: &[&str], task: &str| {
        let visual = match task {
            "auto-yes" => "  VISUAL_MODE: false\n",
            _ => "",
        };
        let cfg = config(&format!(
            "APP_AGENT:\n{}{visual}SLEEP_TIME: 0\nEVA_SESSION: true\n{extra}",
            model.agent_yaml()
        ));
        let io = std::sync::Arc::new(ufo_session::ScriptedIo::new(answers.iter().copied()));
        let task = task.to_owned();
        let rig = &rig;
        async move {
            let r = run(
                rig,
                cfg,
                io.clone(),
                ufo_session::Mode::Normal,
                Some("press 5"),
                None,
                Some("gnome-calculator"),
                &task,
            )
            .await;
            (r, io)
        }
    };
    let stored = || {
        KnowledgeBase::open(Settings::off(kdir.path().to_path_buf()))
            .unwrap()
            .store(Source::Experience)
            .records()
            .unwrap()
            .len()
    };
    // Judged incomplete: nothing is saved (and the model is not asked).
    let model = ScriptedModel::start(vec![app_finish("5"), verdict("no")]).await;
    let (r, _) = session(&model, &extra, &[], "auto-no").await;
    assert_eq!(r[0].status, SessionStatus::Finish);
    assert_eq!(model.remaining(), 0);
    assert_eq!(stored(), 0);
    // Judged complete: summarised and saved.
    let model =
        ScriptedModel::start(vec![app_finish("5"), verdict("yes"), summary("AUTO-TIP")]).await;
    let (r, _) = session(&model, &extra, &[], "auto-yes").await;
    assert_eq!(r[0].status, SessionStatus::Finish);
    assert_eq!(model.remaining(), 0);
    assert_eq!(stored(), 1);
    // A non-visual AppAgent's summary: the non-visual prompt, no images.
    let last = model.requests().pop().unwrap();
    assert!(last.system().contains("there are no screenshots"));
    assert_eq!(last.image_count(), 0);
    // `ask`, declined: nothing more.
    let extra = extra.replace("SAVE_EXPERIENCE: auto", "SAVE_EXPERIENCE: ask");
    let model = ScriptedModel::start(vec![app_finish("5"), verdict("yes")]).await;
    let (_, io) = session(&model, &extra, &["n"], "ask-no").await;
    assert_eq!(model.remaining(), 0);
    assert!(
        io.transcript()
            .iter()
            .any(|l| l.contains("Save this session as experience")),
        "{:?}",
        io.transcript()
    );
    assert_eq!(stored(), 1);
}
