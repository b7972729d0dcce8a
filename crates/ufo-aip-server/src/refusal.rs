//! The refusals the REST routes and the WebSocket upgrade answer with: one
//! JSON shape, FastAPI's `detail` plus ufo-rs's code and help line.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// A JSON error: FastAPI's `detail` (what UFO's clients read) plus ufo-rs's
/// code and help line.
pub(crate) fn refuse(status: StatusCode, code: &str, message: &str, help: &str) -> Response {
    (
        status,
        Json(json!({
            "detail": message,
            "error": {"code": code, "message": message, "help": help},
        })),
    )
        .into_response()
}

/// 401: the key is missing or wrong.
pub(crate) fn unauthorized() -> Response {
    refuse(
        StatusCode::UNAUTHORIZED,
        "ufo::aip::unauthorized",
        "Invalid API key",
        "send the server's key as `X-API-Key: KEY` or `Authorization: Bearer KEY`",
    )
}
