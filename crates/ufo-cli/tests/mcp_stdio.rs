//! `ufo mcp` over stdio, as an MCP host starts it: the rmcp client spawns the
//! binary as a child process (on the caller's own desktop, from the
//! environment), initializes, lists the tools with their annotations, selects
//! mousepad, lists its controls and sets its text — and the text is in
//! mousepad, read back over AT-SPI.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use ufo_testkit::{desktop_env, desktop_with_apps, editable_texts};

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .find_map(|c| c.as_text().map(|t| t.text.clone()))
        .unwrap_or_else(|| panic!("no text in {r:?}"))
}

async fn call(
    c: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tool: &str,
    args: Value,
) -> CallToolResult {
    c.call_tool(
        CallToolRequestParams::new(tool.to_owned())
            .with_arguments(args.as_object().cloned().unwrap()),
    )
    .await
    .unwrap()
}

fn ok_json(r: &CallToolResult) -> Value {
    assert_eq!(r.is_error, Some(false), "{r:?}");
    serde_json::from_str(&text(r)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_host_drives_ufo_mcp_over_stdio() {
    let (desktop, backend) = desktop_with_apps("mcp-stdio", &["mousepad"]).await;
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_ufo"));
    cmd.arg("mcp")
        .env_remove("DISPLAY")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("UFO_CONFIG")
        .envs(desktop_env(&desktop));
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    assert_eq!(
        client
            .peer_info()
            .unwrap()
            .server_info
            .as_ref()
            .unwrap()
            .name,
        "ufo-rs"
    );

    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), ufo_desktop::tools::Tool::ALL.len());
    let set = tools.iter().find(|t| t.name == "set_edit_text").unwrap();
    assert_eq!(
        set.annotations.as_ref().unwrap().destructive_hint,
        Some(true)
    );
    let info = tools
        .iter()
        .find(|t| t.name == "get_desktop_app_info")
        .unwrap();
    assert_eq!(
        info.annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );

    let windows = ok_json(&call(&client, "get_desktop_app_info", json!({})).await);
    let w = windows
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["app_name"] == "mousepad")
        .unwrap_or_else(|| panic!("no mousepad in {windows}"))
        .clone();
    ok_json(
        &call(
            &client,
            "select_application_window",
            json!({"id": w["id"], "name": w["name"]}),
        )
        .await,
    );
    let controls = ok_json(&call(&client, "get_app_window_controls_target_info", json!({})).await);
    let edit = controls["controls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["capabilities"]["editable_text"] == true)
        .unwrap_or_else(|| panic!("no editable control in {controls}"))
        .clone();
    let typed = "sent over stdio";
    let r = call(
        &client,
        "set_edit_text",
        json!({"id": edit["id"].to_string(), "name": edit["name"], "text": typed, "clear_current_text": true}),
    )
    .await;
    assert_eq!(r.is_error, Some(false), "{r:?}");

    // Read back over AT-SPI, not from the tool's answer.
    let seen = editable_texts(&backend, "mousepad", typed).await;
    assert!(seen.iter().any(|t| t == typed), "mousepad holds {seen:?}");
    client.cancel().await.unwrap();
}
