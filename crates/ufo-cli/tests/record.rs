//! `ufo record` on a real private desktop: a person's typing into mousepad,
//! seen through AT-SPI events, becomes a demonstration that replays with
//! `-m follower` and, summarised by the (scripted) model, is retrievable.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{launch, ok_json, start_desktop, ufo};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

/// The text of mousepad's editable text control and its id.
fn mousepad_text(s: &Path) -> (String, String) {
    let controls = ok_json(&ufo(s, &["inspect", "--app", "mousepad", "--json"]));
    let c = controls
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "Edit" || c["type"] == "Document")
        .unwrap_or_else(|| panic!("no text control: {controls}"))
        .clone();
    let id = c["id"]
        .as_u64()
        .map(|i| i.to_string())
        .unwrap_or_else(|| c["id"].as_str().unwrap().to_owned());
    let args = format!(r#"{{"id": "{id}", "name": {}}}"#, c["name"]);
    let r = ok_json(&ufo(
        s,
        &["act", "--app", "mousepad", "texts", "--args", &args],
    ));
    (
        r["result"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| r["result"].to_string()),
        args,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(clippy::too_many_lines)]
async fn a_recorded_demonstration_replays_with_follower_and_is_retrievable() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path().to_path_buf();
    let (_stop, _) = start_desktop(&s, "default");
    launch(&s, "default", "mousepad");
    let demo = s.join("demo.json");

    // The recorder runs while a person types.
    let mut rec = Command::new(env!("CARGO_BIN_EXE_ufo"))
        .args([
            "record",
            "--app",
            "mousepad",
            "-r",
            "type hello demo into mousepad",
            "-o",
        ])
        .arg(&demo)
        .env("UFO_STATE_DIR", &s)
        .env_remove("DISPLAY")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("UFO_DESKTOP")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(rec.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(first.starts_with("Recording mousepad"), "{first}");
    let (_, args) = mousepad_text(&s);
    let mut typing: serde_json::Value = serde_json::from_str(&args).unwrap();
    typing["keys"] = "hello demo".into();
    let r = ok_json(&ufo(
        &s,
        &[
            "act",
            "--app",
            "mousepad",
            "keyboard_input",
            "--args",
            &typing.to_string(),
        ],
    ));
    assert_eq!(r["status"], "success", "{r}");
    // The person stops the recorder once the text is there.
    for _ in 0..100 {
        if mousepad_text(&s).0 == "hello demo" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    common::send_signal(rec.id(), "INT");
    let status = rec.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    assert!(status.success(), "{rest}");
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&demo).unwrap()).unwrap();
    let actions = plan["actions"].as_array().unwrap();
    assert_eq!(actions[0]["action"], "select_application", "{plan}");
    let typed = actions
        .iter()
        .find(|a| a["action"] == "set_edit_text")
        .unwrap_or_else(|| panic!("{plan}"));
    assert_eq!(typed["parameters"]["text"], "hello demo", "{plan}");
    assert!(
        plan["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["event"] == "text")
    );

    // Replay: clear the document, run the plan in follower mode.
    let clear = {
        let mut a: serde_json::Value = serde_json::from_str(&args).unwrap();
        a["keys"] = "^a{DELETE}".into();
        a.to_string()
    };
    ok_json(&ufo(
        &s,
        &[
            "act",
            "--app",
            "mousepad",
            "keyboard_input",
            "--args",
            &clear,
        ],
    ));
    assert_eq!(mousepad_text(&s).0, "");
    let logs = s.join("logs");
    let out = ufo(
        &s,
        &[
            "run",
            "-m",
            "follower",
            "-t",
            "replay",
            "--log-dir",
            logs.to_str().unwrap(),
            "-p",
            demo.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(mousepad_text(&s).0, "hello demo");

    // Learn from it: the model summarises the steps; the summary is retrieved.
    let model = ufo_testkit::scripted::ScriptedModel::start(vec![ufo_testkit::scripted::fixed(
        serde_json::json!({"Observation": "an empty document", "Thought": "type the text", "ControlLabel": "", "ControlText": "", "Function": "set_edit_text", "Args": {"text": "hello demo"}, "Status": "FINISH", "Plan": [], "Comment": "typed", "Tips": "DEMO-TIP: set the text of the document directly"}).to_string(),
    )])
    .await;
    let cfg = s.join("ufo.yaml");
    std::fs::write(
        &cfg,
        format!(
            "APP_AGENT:\n{}KNOWLEDGE_DIR: {:?}\n",
            model.agent_yaml(),
            s.join("kb")
        ),
    )
    .unwrap();
    let cfg_s = cfg.to_str().unwrap().to_owned();
    let demo_s = demo.to_str().unwrap().to_owned();
    let s2 = s.clone();
    let out = tokio::task::spawn_blocking(move || {
        ufo(&s2, &["knowledge", "--config", &cfg_s, "add-demo", &demo_s])
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let asked = model.requests()[0].text();
    assert!(
        asked.contains("<User Request:> type hello demo into mousepad"),
        "{asked}"
    );
    assert!(asked.contains("\"hello demo\""), "{asked}");
    let cfg_s = cfg.to_str().unwrap().to_owned();
    let hits = ok_json(&ufo(
        &s,
        &[
            "knowledge",
            "--config",
            &cfg_s,
            "search",
            "type some text into mousepad",
            "--source",
            "demonstration",
            "--app",
            "mousepad",
        ],
    ));
    assert_eq!(
        hits[0]["body"]["Tips"], "DEMO-TIP: set the text of the document directly",
        "{hits}"
    );
    assert_eq!(hits[0]["body"]["app_list"][0], "mousepad");
}
