//! The REST routes (UFO's `/api/*`) and the checks every request passes.

use crate::hub::{Assignment, Hub, TaskState};
use crate::refusal::{refuse, unauthorized};
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};
use std::sync::Arc;
use ufo_aip::messages::{ServerMessage, ServerMessageType, TaskStatus, is_safe_task_name, new_id};

/// All routes, behind the Host/Origin and key checks.
pub(super) fn router(hub: Arc<Hub>) -> Router {
    Router::new()
        .route("/ws", get(crate::ws::upgrade))
        .route("/api/clients", get(clients))
        .route("/api/dispatch", post(dispatch))
        .route("/api/task_result/{task_name}", get(task_result))
        .route("/api/health", get(health))
        .layer(axum::middleware::from_fn_with_state(hub.clone(), guard))
        .with_state(hub)
}

/// Host/Origin first (DNS rebinding), then the key. `/ws` checks its key
/// itself because it also accepts `?token=`.
async fn guard(State(hub): State<Arc<Hub>>, req: Request, next: Next) -> Response {
    if let Err(why) = hub.options.hosts.allows(req.headers()) {
        return refuse(
            StatusCode::FORBIDDEN,
            "ufo::aip::host_refused",
            &why,
            "call the server by the name it listens on (127.0.0.1 or localhost)",
        );
    }
    if req.uri().path() == "/ws" {
        return next.run(req).await;
    }
    if !hub.options.key.accepts_headers(req.headers()) {
        return unauthorized();
    }
    // A body sent slowly holds a connection too: the whole request has a
    // deadline (a WebSocket's upgrade answers at once and is not counted).
    let limit = hub.limits().request_timeout;
    match tokio::time::timeout(limit, next.run(req)).await {
        Ok(r) => r,
        Err(_) => refuse(
            StatusCode::REQUEST_TIMEOUT,
            "ufo::aip::request_timeout",
            &format!("the request was not read and answered within {limit:?}"),
            "send the whole request at once",
        ),
    }
}

async fn clients(State(hub): State<Arc<Hub>>) -> Json<Value> {
    Json(json!({
        "online_clients": hub.device_ids(),
        "clients": hub.summaries(),
    }))
}

async fn health(State(hub): State<Arc<Hub>>) -> Json<Value> {
    Json(json!({"status": "healthy", "online_clients": hub.device_ids()}))
}

async fn task_result(State(hub): State<Arc<Hub>>, Path(task_name): Path<String>) -> Json<Value> {
    Json(match hub.task(&task_name) {
        Some(TaskState::Done(result)) => json!({"status": "done", "result": result}),
        // UFO answers `pending` for a task it does not know yet, too.
        Some(TaskState::Pending) | None => json!({"status": "pending"}),
    })
}

/// The body of `POST /api/dispatch`, as UFO's server reads it: every
/// field a string, blank as absent; fields it does not know are ignored.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct DispatchBody {
    /// The device to run it on.
    client_id: Option<String>,
    /// What the user asks.
    request: Option<String>,
    /// A name for the task (new when absent).
    task_name: Option<String>,
    /// `service` or `linux_service`.
    mode: Option<String>,
    /// The application of `linux_service`.
    app: Option<String>,
}

/// A field's text, trimmed; blank is absent.
fn text_field(field: Option<String>) -> Option<String> {
    field.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
}

/// `POST /api/dispatch`: sends device `client_id` a TASK frame; the device
/// answers with its own TASK, which starts the session.
async fn dispatch(State(hub): State<Arc<Hub>>, body: axum::body::Bytes) -> Response {
    let bad = |message: &str, help: &str| {
        refuse(
            StatusCode::BAD_REQUEST,
            "ufo::aip::bad_dispatch",
            message,
            help,
        )
    };
    const SHAPE: &str = "send {\"client_id\": \"dev1\", \"request\": \"...\"}";
    let body: DispatchBody = match serde_json::from_slice::<Value>(&body) {
        Ok(v @ Value::Object(_)) => match serde_path_to_error::deserialize(v) {
            Ok(b) => b,
            Err(e) => {
                let field = e.path().to_string();
                return bad(
                    &format!("\"{field}\" must be text: {}", e.into_inner()),
                    SHAPE,
                );
            }
        },
        Ok(_) => return bad("the body must be a JSON object", SHAPE),
        Err(e) => return bad(&format!("the body is not JSON: {e}"), SHAPE),
    };
    let Some(request) = text_field(body.request) else {
        return bad("Empty task content", "give the request in \"request\"");
    };
    let Some(client_id) = text_field(body.client_id) else {
        return bad(
            "Empty client ID",
            "give the device in \"client_id\" (see GET /api/clients)",
        );
    };
    let task_name = text_field(body.task_name).unwrap_or_else(new_id);
    if !is_safe_task_name(&task_name) {
        return bad(
            "Invalid task_name: must be a non-empty string of characters [A-Za-z0-9._-] and must not start with '.'",
            "e.g. \"report-2026.11_a\"",
        );
    }
    let mode = text_field(body.mode);
    if let Some(m) = mode
        .as_ref()
        .filter(|m| !matches!(m.as_str(), "service" | "linux_service"))
    {
        return bad(
            &format!("unknown mode {m:?}"),
            "use \"service\" (HostAgent and AppAgents) or \"linux_service\" (one agent, see \"app\")",
        );
    }
    let Some(device) = hub.device(&client_id) else {
        return refuse(
            StatusCode::NOT_FOUND,
            "ufo::aip::client_not_online",
            "Client not online",
            "start the device with `ufo client --client-id ID`; GET /api/clients lists the connected ones",
        );
    };
    if let Some(running) = device.running() {
        return refuse(
            StatusCode::CONFLICT,
            "ufo::aip::device_busy",
            &format!("device {client_id:?} is running task {running:?}"),
            "wait for GET /api/task_result of that task to say done, then dispatch again",
        );
    }
    if matches!(hub.task(&task_name), Some(TaskState::Pending)) {
        return refuse(
            StatusCode::CONFLICT,
            "ufo::aip::task_pending",
            &format!("task {task_name:?} is still running"),
            "choose another task_name",
        );
    }
    let session_id = new_id();
    hub.assign(
        &task_name,
        Assignment {
            client_id: client_id.clone(),
            mode,
            app: text_field(body.app),
            session_id: Some(session_id.clone()),
        },
    );
    let mut msg = ServerMessage::new(ServerMessageType::Task, TaskStatus::Continue);
    msg.user_request = Some(request);
    msg.task_name = Some(task_name.clone());
    msg.session_id = Some(session_id.clone());
    msg.response_id = Some(new_id());
    if !device.send(&msg) {
        hub.drop_assignment(&task_name);
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "ufo::aip::device_unreachable",
            &format!("device {client_id:?} is not reading its connection"),
            "restart the device with `ufo client`",
        );
    }
    Json(json!({
        "status": "dispatched",
        "task_name": task_name,
        "client_id": client_id,
        "session_id": session_id,
    }))
    .into_response()
}
