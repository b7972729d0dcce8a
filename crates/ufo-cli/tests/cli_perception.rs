//! The debugging commands a person uses: windows, inspect, screenshot, act,
//! bench, llm format — run as the real binary against a real desktop.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{launch, ok_json, start_desktop, ufo, ufo_stdin};

#[test]
#[allow(clippy::too_many_lines)]
fn inspect_act_screenshot_and_bench_on_the_calculator() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let (_stop, _) = start_desktop(s, "default");
    launch(s, "default", "gnome-calculator");

    let windows = ok_json(&ufo(s, &["windows", "--json"]));
    assert_eq!(windows[0]["app_name"], "gnome-calculator", "{windows}");
    assert_eq!(windows[0]["title"], "Calculator");

    // inspect --json: an array of controls with at least id, name, type.
    let controls = ok_json(&ufo(s, &["inspect", "--app", "gnome-calculator", "--json"]));
    let controls = controls.as_array().unwrap();
    assert!(controls.len() > 20);
    for (i, c) in controls.iter().enumerate() {
        assert_eq!(c["id"].as_u64(), Some(i as u64 + 1));
        assert!(c["name"].is_string() && c["type"].is_string(), "{c}");
    }
    let seven = controls
        .iter()
        .find(|c| c["name"] == "7" && c["type"] == "Button")
        .expect("button 7");
    let id = seven["id"].as_u64().unwrap().to_string();

    // act: one tool call, the ActionResult as JSON; the display then reads 7.
    let args = format!(r#"{{"id": "{id}", "name": "7"}}"#);
    let r = ok_json(&ufo(
        s,
        &[
            "act",
            "--app",
            "gnome-calculator",
            "click_input",
            "--args",
            &args,
        ],
    ));
    assert_eq!(r["status"], "success", "{r}");
    assert_eq!(calculator_display(s, "7"), "7");

    // A wrong name is refused with UFO's message and a non-zero exit.
    let out = ufo(
        s,
        &[
            "act",
            "--app",
            "gnome-calculator",
            "click_input",
            "--args",
            &format!(r#"{{"id": "{id}", "name": "Open"}}"#),
        ],
    );
    assert!(!out.status.success());
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["status"], "failure");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("name mismatch"),
        "{r}"
    );

    // Bad --args is a clear error, not a panic.
    let out = ufo(
        s,
        &[
            "act",
            "--app",
            "gnome-calculator",
            "click_input",
            "--args",
            "{oops",
        ],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ufo::cli::bad_args"));

    // screenshot --annotate writes a PNG of the window's size.
    let png = s.join("calc.png");
    let out = ufo(
        s,
        &[
            "screenshot",
            "--app",
            "gnome-calculator",
            "--annotate",
            "-o",
            png.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert!(
        (300..500).contains(&w) && (400..600).contains(&h),
        "{w}x{h}"
    );

    // bench perception --json has the documented shape.
    let b = ok_json(&ufo(
        s,
        &[
            "bench",
            "perception",
            "--app",
            "gnome-calculator",
            "--runs",
            "2",
            "--json",
        ],
    ));
    assert_eq!(b["app"], "gnome-calculator");
    assert_eq!(b["runs"], 2);
    assert!(b["nodes"].as_u64().unwrap() > 50 && b["controls"].as_u64().unwrap() > 20);
    for k in [
        "tree",
        "filter",
        "screenshot",
        "annotate",
        "encode",
        "total",
    ] {
        assert!(b["median_ms"][k].as_f64().unwrap() >= 0.0, "{k}: {b}");
    }

    // An unknown app names the windows that exist.
    let out = ufo(s, &["inspect", "--app", "no-such-app"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ufo::desktop::window_not_found") && err.contains("gnome-calculator"),
        "{err}"
    );
}

/// What the calculator's display shows once it shows `want` (read with
/// `ufo inspect --all`, at most 10 s), else what it showed last.
fn calculator_display(s: &std::path::Path, want: &str) -> String {
    let mut shown = String::new();
    for _ in 0..200 {
        let tree = ok_json(&ufo(
            s,
            &["inspect", "--app", "gnome-calculator", "--all", "--json"],
        ));
        shown = tree["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["role"] == "text" && n["capabilities"]["editable_text"] == true)
            .and_then(|n| n["value"].as_str())
            .unwrap_or_default()
            .to_owned();
        if shown == want {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    shown
}

/// `ufo act --handle` acts on the control `ufo inspect --json` printed,
/// whatever id it has in the observation `act` makes; a handle that names
/// no control is a clear error.
#[test]
fn act_by_handle_presses_the_control_inspect_printed() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let (_stop, _) = start_desktop(s, "default");
    launch(s, "default", "gnome-calculator");
    let controls = ok_json(&ufo(s, &["inspect", "--app", "gnome-calculator", "--json"]));
    let eight = controls
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "8" && c["type"] == "Button")
        .expect("button 8")
        .clone();
    let handle = eight["handle"].as_str().unwrap();
    let r = ok_json(&ufo(
        s,
        &[
            "act",
            "--app",
            "gnome-calculator",
            "click_input",
            "--handle",
            handle,
        ],
    ));
    assert_eq!(r["status"], "success", "{r}");
    assert_eq!(calculator_display(s, "8"), "8");

    let out = ufo(
        s,
        &[
            "act",
            "--app",
            "gnome-calculator",
            "click_input",
            "--handle",
            ":1.999|/org/a11y/atspi/accessible/nothing",
        ],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ufo::cli::bad_args") && err.contains("--handle") && err.contains("help:"),
        "{err}"
    );
}

#[test]
fn llm_format_prints_the_request_without_secrets() {
    let messages = r#"[{"name":"system","role":"system","content":"You are a helpful assistant","url":null},
                      {"name":"Bob","role":"user","content":"hi","url":"https://example.com/a.png"}]"#;
    let out = ufo_stdin(
        &["llm", "format", "--api", "openai", "--model", "gpt-4o"],
        &[
            ("OPENAI_API_KEY", "sk-very-secret-123"),
            ("API_KEY", "sk-very-secret-123"),
        ],
        messages.as_bytes(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("sk-very-secret-123")
            && !String::from_utf8_lossy(&out.stderr).contains("sk-very")
    );
    // The top-level keys come in the order method, url, headers, body.
    let top_level: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("  \""))
        .filter_map(|l| l.split('"').next())
        .collect();
    assert_eq!(top_level, ["method", "url", "headers", "body"], "{text}");
    let v = ok_json(&out);
    assert_eq!(v["method"], "POST");
    assert!(
        v["url"].as_str().unwrap().ends_with("/chat/completions"),
        "{v}"
    );
    assert_eq!(v["body"]["model"], "gpt-4o");
    assert_eq!(v["body"]["messages"][1]["name"], "Bob");
    assert_eq!(
        v["body"]["messages"][1]["content"][1]["image_url"]["url"],
        "https://example.com/a.png"
    );

    // The seed's own call: a message, then a list of two, as AgentScope's
    // `format(msg, [msg, msg])` takes them; and a single message alone.
    let nested = r#"[{"name":"system","role":"system","content":"You're a helpful assistant"},
                     [{"name":"Bob","role":"assistant","content":"Hi."},
                      {"name":"Alice","role":"assistant","content":"Nice to meet you!"}]]"#;
    let out = ufo_stdin(
        &["llm", "format", "--api", "openai", "--model", "gpt-4"],
        &[],
        nested.as_bytes(),
    );
    let sent: Vec<(String, String)> = ok_json(&out)["body"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap_or_default().to_owned(),
                m["content"].to_string(),
            )
        })
        .collect();
    assert_eq!(
        sent,
        [
            ("system".into(), "\"You're a helpful assistant\"".into()),
            ("Bob".into(), "\"Hi.\"".into()),
            ("Alice".into(), "\"Nice to meet you!\"".into())
        ]
    );
    let out = ufo_stdin(
        &["llm", "format", "--api", "openai"],
        &[],
        br#"{"name":"Bob","role":"user","content":"Hi."}"#,
    );
    assert_eq!(ok_json(&out)["body"]["messages"][0]["name"], "Bob");

    // Malformed input is a clear error.
    let out = ufo_stdin(&["llm", "format", "--api", "openai"], &[], b"[{not json");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error[ufo::") && err.contains("help:"),
        "{err}"
    );
}
