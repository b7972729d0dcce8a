//! Service mode: UFO's Agent Interaction Protocol (AIP) over WebSocket.
//!
//! The agents run on a server (`ufo-aip-server`'s `Server`, `ufo serve`); the
//! desktop belongs to a device ([`client`], `ufo client`) that executes
//! their commands and sends back the results. The agents are the same as
//! in a local run: only the dispatcher differs (the server's `WsDispatcher`
//! sends [`ufo_core::Command`]s in COMMAND frames and awaits the device's
//! COMMAND_RESULTS).
//!
//! The sequence, as UFO's:
//!
//! ```text
//! device                                   server
//!   REGISTER {client_id, metadata}   ──▶
//!                                    ◀──   HEARTBEAT ok  (registered)
//!   TASK {request, task_name}        ──▶   (or POST /api/dispatch → TASK ▶ device → TASK ◀)
//!                                    ◀──   COMMAND {actions, response_id}
//!   COMMAND_RESULTS {prev_response_id, action_results} ──▶
//!                 … one COMMAND per dispatcher call …
//!                                    ◀──   TASK_END {status: completed|failed, result}
//!   HEARTBEAT (every 30 s)           ──▶   ◀── HEARTBEAT ok
//! ```
//!
//! Frames are [`messages::ClientMessage`] and [`messages::ServerMessage`]
//! JSON with UFO's field names, so UFO's own clients can use this server.
//!
//! This crate is what a device links: the frames, their payloads, the API
//! key and the device client. It knows nothing of agents, models or
//! sessions (the server, in `ufo-aip-server`, does).

pub mod auth;
pub mod client;
pub mod error;
pub mod messages;
pub mod payloads;

pub use error::AipError;
