//! gedit and mousepad (GTK3): set_edit_text and keyboard_input produce exactly
//! the expected buffer text.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;
use ufo_desktop::Backend;

async fn edit_session(app: &str) {
    let (d, b) = desktop_with(app).await;
    let w = main_window(&b, app).await;
    let mut ctx = observe(&b, &w).await;
    let doc = editor(&ctx);
    let read = || async { b.read_text(&doc.handle).await.unwrap() };

    // Replace the whole buffer.
    let r = act(
        &b,
        &mut ctx,
        "set_edit_text",
        args(&doc, json!({"text": "alpha", "clear_current_text": true})),
    )
    .await;
    assert!(r.is_success(), "{r:?}");
    assert_eq!(eventually("alpha", read).await, "alpha");

    // Append without clearing.
    let r = act(
        &b,
        &mut ctx,
        "set_edit_text",
        args(&doc, json!({"text": " beta", "clear_current_text": false})),
    )
    .await;
    assert!(r.is_success(), "{r:?}");
    assert_eq!(eventually("alpha beta", read).await, "alpha beta");

    // Select all and type over it, with a line break and a repeated key.
    let r = act(
        &b,
        &mut ctx,
        "keyboard_input",
        args(&doc, json!({"keys": "^afirst{ENTER}second{TAB 2}x"})),
    )
    .await;
    assert!(r.is_success(), "{r:?}");
    assert_eq!(
        eventually("first\nsecond\t\tx", read).await,
        "first\nsecond\t\tx"
    );

    // Escaped braces and plus, `+` as Shift, shifted characters and a backspace.
    let r = act(
        &b,
        &mut ctx,
        "keyboard_input",
        args(&doc, json!({"keys": "{BACKSPACE}Y: {{}{+}1{}} +a"})),
    )
    .await;
    assert!(r.is_success(), "{r:?}");
    assert_eq!(
        eventually("first\nsecond\t\tY: {+1} A", read).await,
        "first\nsecond\t\tY: {+1} A"
    );

    // texts() reads the buffer back through the tool catalog.
    let r = act(&b, &mut ctx, "texts", args(&doc, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    assert_eq!(
        r.result.as_str().or_else(|| r.result["text"].as_str()),
        Some("first\nsecond\t\tY: {+1} A"),
        "{r:?}"
    );
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gedit_buffer_text_is_exact() {
    edit_session("gedit").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mousepad_buffer_text_is_exact() {
    edit_session("mousepad").await;
}
