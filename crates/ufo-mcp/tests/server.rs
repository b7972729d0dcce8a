//! Our tools as an MCP server, driven by the rmcp client over streamable
//! HTTP on a private desktop: initialize, tools/list with annotations,
//! select mousepad, list its controls, set_edit_text — and the text is in
//! mousepad (read back over AT-SPI). And the HTTP doors: key, Host, Origin.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use ufo_desktop::Backend;
use ufo_desktop::tools::ToolSettings;
use ufo_mcp::server::{DesktopServer, HttpOptions, HttpServer, serve_http};

async fn serve(b: Arc<dyn Backend>) -> HttpServer {
    serve_http(
        HttpOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            api_key: API_KEY.into(),
            allow_remote: false,
        },
        move || DesktopServer::new(b.clone(), ToolSettings::default()),
    )
    .await
    .unwrap()
}

async fn connect(url: &str) -> RunningService<rmcp::RoleClient, ClientConfig> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(API_KEY);
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("ufo-mcp-test", "0"),
    )
    .serve(StreamableHttpClientTransport::from_config(config))
    .await
    .unwrap()
}

async fn call(
    c: &RunningService<rmcp::RoleClient, ClientConfig>,
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

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .find_map(|c| c.as_text().map(|t| t.text.clone()))
        .unwrap_or_else(|| panic!("no text in {r:?}"))
}

fn ok_json(r: &CallToolResult) -> Value {
    assert_eq!(r.is_error, Some(false), "{r:?}");
    serde_json::from_str(&text(r)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rmcp_client_sets_mousepads_text_over_http() {
    let (d, b) = ufo_testkit::desktop_with_apps("mcp-rmcp", &["mousepad"]).await;
    let b = Arc::new(b);
    let server = serve(b.clone()).await;
    let client = connect(&server.url()).await;

    // initialize
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "ufo-rs");
    assert!(info.capabilities.tools.is_some());

    // tools/list: the whole catalog with its annotations.
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for t in ufo_desktop::tools::Tool::ALL {
        assert!(
            names.contains(&t.name()),
            "{} missing from {names:?}",
            t.name()
        );
    }
    let hints = |name: &str| {
        let t = tools.iter().find(|t| t.name == name).unwrap();
        let a = t.annotations.clone().unwrap();
        (a.read_only_hint, a.destructive_hint)
    };
    assert_eq!(
        hints("get_app_window_controls_target_info"),
        (Some(true), Some(false))
    );
    assert_eq!(hints("set_edit_text"), (Some(false), Some(true)));
    assert_eq!(hints("click_input"), (Some(false), Some(false)));
    let set = tools.iter().find(|t| t.name == "set_edit_text").unwrap();
    assert!(set.input_schema["properties"]["text"].is_object());

    // An action before a window is chosen: a tool error, not a crash.
    let r = call(&client, "get_app_window_controls_target_info", json!({})).await;
    assert_eq!(r.is_error, Some(true), "{r:?}");
    assert!(text(&r).contains("help:"), "{r:?}");

    // Select mousepad, list its controls, set its text.
    let windows = ok_json(&call(&client, "get_desktop_app_info", json!({})).await);
    let w = windows
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["app_name"] == "mousepad")
        .unwrap_or_else(|| panic!("no mousepad in {windows}"));
    let sel = call(
        &client,
        "select_application_window",
        json!({"id": w["id"], "name": w["name"]}),
    )
    .await;
    assert_eq!(ok_json(&sel)["root_name"], "mousepad");
    let controls = ok_json(&call(&client, "get_app_window_controls_target_info", json!({})).await);
    let (id, name) = edit_control(&controls);
    let typed = "typed by an MCP client";
    let r = call(
        &client,
        "set_edit_text",
        json!({"id": id, "name": name, "text": typed, "clear_current_text": true}),
    )
    .await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    assert_eq!(editor_text(&b, "mousepad", typed).await, typed);

    // A screenshot is an MCP image.
    let shot = call(&client, "capture_window_screenshot", json!({})).await;
    let img = shot.content[0].as_image().unwrap();
    assert_eq!(img.mime_type, "image/png");
    assert!(img.data.len() > 100);

    client.cancel().await.unwrap();
    server.stop().await;
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_keep_their_own_window() {
    let (d, b) = ufo_testkit::desktop_with_apps("mcp-sessions", &["mousepad"]).await;
    let server = serve(Arc::new(b)).await;
    let first = connect(&server.url()).await;
    let second = connect(&server.url()).await;
    let windows = ok_json(&call(&first, "get_desktop_app_info", json!({})).await);
    let w = &windows[0];
    let sel = call(
        &first,
        "select_application_window",
        json!({"id": w["id"], "name": w["name"]}),
    )
    .await;
    assert_eq!(sel.is_error, Some(false), "{sel:?}");
    assert_eq!(
        call(&first, "get_app_window_controls_target_info", json!({}))
            .await
            .is_error,
        Some(false)
    );
    // The second session chose nothing yet.
    let r = call(&second, "get_app_window_controls_target_info", json!({})).await;
    assert_eq!(r.is_error, Some(true), "{r:?}");
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
    server.stop().await;
    d.stop().unwrap();
}

/// One raw HTTP request; the status line's code.
async fn status(addr: std::net::SocketAddr, headers: &str) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})
    .to_string();
    let req = format!(
        "POST /mcp HTTP/1.1\r\n{headers}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out).await;
    let head = String::from_utf8_lossy(&out);
    head.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_needs_the_key_the_right_host_and_no_foreign_origin() {
    let (d, b) = ufo_testkit::desktop_with_apps("mcp-doors", &[]).await;
    let server = serve(Arc::new(b)).await;
    let a = server.local_addr();
    let host = format!("Host: 127.0.0.1:{}\r\n", a.port());
    let key = format!("Authorization: Bearer {API_KEY}\r\n");
    assert_eq!(status(a, &format!("{host}{key}")).await, 200);
    assert_eq!(status(a, &host).await, 401);
    assert_eq!(
        status(
            a,
            &format!("{host}Authorization: Bearer wrong-key-0123456789\r\n")
        )
        .await,
        401
    );
    assert_eq!(
        status(a, &format!("Host: evil.example:{}\r\n{key}", a.port())).await,
        403
    );
    assert_eq!(
        status(a, &format!("{host}{key}Origin: http://evil.example\r\n")).await,
        403
    );
    assert_eq!(
        status(
            a,
            &format!("{host}{key}Origin: http://127.0.0.1:{}\r\n", a.port())
        )
        .await,
        200
    );
    server.stop().await;

    // Refused before listening: a short key, a public address.
    let short = serve_http(
        HttpOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            api_key: "short".into(),
            allow_remote: false,
        },
        || unreachable!(),
    )
    .await
    .unwrap_err();
    assert_eq!(ufo_core::Diagnostic::code(&short), "ufo::mcp::serve");
    let public = serve_http(
        HttpOptions {
            addr: "0.0.0.0:0".parse().unwrap(),
            api_key: API_KEY.into(),
            allow_remote: false,
        },
        || unreachable!(),
    )
    .await
    .unwrap_err();
    assert!(
        public.to_string().contains("not a loopback address"),
        "{public}"
    );
    d.stop().unwrap();
}

/// Our own server, reached as an *external* server over streamable HTTP with
/// its key in `headers`: the client side of ufo-mcp, and the dispatcher
/// that routes `<namespace>.<tool>` to it and the rest to the inner one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_with_headers_serves_as_external_tools() {
    use std::time::Duration;
    use ufo_core::{ActionStatus, Command, ControlType};
    use ufo_desktop::dispatch::CommandDispatcher;
    use ufo_mcp::client::{ExternalServer, ServerSpec, Transport};
    use ufo_mcp::dispatch::ExternalTools;

    let (d, b) = ufo_testkit::desktop_with_apps("mcp-http-client", &["mousepad"]).await;
    let server = serve(Arc::new(b)).await;
    let spec = |key: &str| ServerSpec {
        namespace: "desk".into(),
        transport: Transport::Http {
            url: server.url(),
            headers: [("Authorization".to_owned(), format!("Bearer {key}"))].into(),
        },
        timeout: Duration::from_secs(60),
    };

    // The wrong key: a clear start error, not a hang.
    let e = ExternalServer::start(&spec("wrong-key-0123456789"), Duration::from_secs(60))
        .await
        .unwrap_err();
    assert_eq!(ufo_core::Diagnostic::code(&e), "ufo::mcp::handshake_failed");
    assert!(e.to_string().contains("desk"), "{e}");

    let tools = ExternalTools::start(&[spec(API_KEY)]).await;
    assert!(tools.failures().is_empty(), "{:?}", tools.failures());
    let specs = tools.specs();
    let find = |n: &str| specs.iter().find(|s| s.name == n).unwrap();
    assert!(find("desk.set_edit_text").destructive);
    assert!(!find("desk.get_desktop_app_info").destructive);
    assert!(!find("desk.click_input").destructive);
    assert_eq!(
        find("desk.texts").parameters,
        ufo_desktop::tools::Tool::Texts.parameters()
    );

    let inner = Arc::new(ufo_testkit::fake::FakeDesktop::new(
        "fake",
        "Fake",
        &[(ControlType::Button, "OK")],
    ));
    let dispatcher = tools.dispatcher(inner.clone());
    let mut cmds = vec![
        Command::data("desk.get_desktop_app_info", json!({})),
        Command::action("summary", json!({"text": "local"})),
        Command::action("desk.no_such_tool", json!({})),
        Command::action("summary", json!({"text": "never"})),
    ];
    for (i, c) in cmds.iter_mut().enumerate() {
        c.call_id = format!("c{i}");
    }
    let results = dispatcher.execute(cmds).await;
    let statuses: Vec<ActionStatus> = results.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        [
            ActionStatus::Success,
            ActionStatus::Success,
            ActionStatus::Failure,
            ActionStatus::Skipped
        ],
        "{results:?}"
    );
    let ids: Vec<&str> = results.iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids, ["c0", "c1", "c2", "c3"]);
    let windows: Value = serde_json::from_str(results[0].result.as_str().unwrap()).unwrap();
    assert!(
        windows
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["app_name"] == "mousepad"),
        "{windows}"
    );
    assert_eq!(results[0].namespace.as_deref(), Some("desk"));
    assert_eq!(
        results[2].error.as_ref().unwrap().code,
        "ufo::mcp::rejected",
        "{:?}",
        results[2]
    );
    // Only our own commands reached the inner dispatcher.
    let reached: Vec<String> = inner.commands().into_iter().map(|c| c.tool_name).collect();
    assert_eq!(reached, ["summary"]);
    assert!(dispatcher.describe().contains("desk"));
    tools.stop().await;
    server.stop().await;
    d.stop().unwrap();
}
