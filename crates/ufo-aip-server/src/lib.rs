//! The agent server (`ufo serve`): devices connect over WebSocket at `/ws`,
//! programs use the REST routes, and each task runs a service session whose
//! commands go to the device.
//!
//! | route | what |
//! |---|---|
//! | `GET /ws` | AIP over WebSocket (first frame REGISTER) |
//! | `POST /api/dispatch` | `{client_id, request, task_name?, mode?, app?}` → sends the device a TASK |
//! | `GET /api/task_result/{task_name}` | `{status: pending}` or `{status: done, result}` |
//! | `GET /api/clients` | the connected devices |
//! | `GET /api/health` | `{status: healthy, online_clients}` |
//!
//! Every route needs the API key (`X-API-Key` or `Authorization: Bearer`);
//! `/ws` also takes `?token=KEY`, the only way UFO's own clients can send it.
//! `Host` (and a browser's `Origin`) must name the server when it listens on
//! loopback, which stops DNS-rebinding pages from reaching it.

mod dispatcher;
mod http;
pub(crate) mod hub;
mod refusal;
mod runner;
mod ws;

pub use dispatcher::WsDispatcher;
pub use runner::SessionRunner;

use hub::Hub;
use std::sync::Arc;
use std::time::Duration;
use ufo_aip::auth::{ApiKey, HostCheck};

/// The server's limits. Defaults: 16 MiB frames, 2,048 connections, 50
/// frames a second per connection (bursts of 100), 120 s per command batch
/// (UFO's timeout), 300 s of silence before a device counts as dead (UFO's
/// client beats every 120 s; `HEARTBEAT_TIMEOUT`), 10 s to
/// register.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest frame or message accepted.
    pub max_frame_bytes: usize,
    /// Open WebSocket connections at most.
    pub max_connections: usize,
    /// Sustained frames per second per connection.
    pub frames_per_second: u32,
    /// How long a command batch may take on the device.
    pub command_timeout: Duration,
    /// Silence after which a device is dropped (its heartbeats stopped).
    pub heartbeat_timeout: Duration,
    /// Time for the first frame (REGISTER).
    pub register_timeout: Duration,
    /// After its device is gone, how long a session may take to wind up
    /// before it is cut off.
    pub wind_up: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_frame_bytes: 16 << 20,
            max_connections: 2048,
            frames_per_second: 50,
            command_timeout: Duration::from_secs(120),
            heartbeat_timeout: Duration::from_secs(300),
            register_timeout: Duration::from_secs(10),
            wind_up: Duration::from_secs(10),
        }
    }
}

/// Who may connect and how much they may do.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// The API key.
    pub key: ApiKey,
    /// Allowed `Host`/`Origin` names.
    pub hosts: HostCheck,
    /// Limits.
    pub limits: Limits,
}

/// The agent server.
#[derive(Clone)]
pub struct Server {
    hub: Arc<Hub>,
}

impl Server {
    /// A server; `runner` runs the sessions (`None`: devices may connect and
    /// be sent commands, but TASKs are refused, as for benchmarks).
    pub fn new(options: ServerOptions, runner: Option<SessionRunner>) -> Self {
        Self {
            hub: Arc::new(Hub::new(options, runner)),
        }
    }

    /// The HTTP and WebSocket routes.
    pub fn router(&self) -> axum::Router {
        http::router(self.hub.clone())
    }

    /// Serves on `listener` until `shutdown` resolves; then tells every
    /// device (a close frame, 1001 "going away") so its client reconnects,
    /// and returns within a few seconds even if a connection lingers.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let reaper = tokio::spawn(ws::reap_silent(self.hub.clone()));
        let app = self
            .router()
            .into_make_service_with_connect_info::<std::net::SocketAddr>();
        let (stopping_tx, stopping) = tokio::sync::oneshot::channel::<()>();
        let hub = self.hub.clone();
        let shutdown = async move {
            shutdown.await;
            for d in hub.devices() {
                d.close(1001, "the server is shutting down");
            }
            let _ = stopping_tx.send(());
        };
        let server = axum::serve(listener, app).with_graceful_shutdown(shutdown);
        let r = tokio::select! {
            r = server.into_future() => r,
            _ = async {
                let _ = stopping.await;
                tokio::time::sleep(Duration::from_secs(3)).await;
            } => Ok(()),
        };
        reaper.abort();
        r
    }

    /// The ids of the connected devices.
    pub fn devices(&self) -> Vec<String> {
        self.hub.device_ids()
    }

    /// A dispatcher that sends commands to device `client_id` outside any
    /// task (benchmarks, diagnostics); `None` when it is not connected.
    pub fn dispatcher(&self, client_id: &str) -> Option<WsDispatcher> {
        let d = self.hub.device(client_id)?;
        Some(WsDispatcher::new(
            d,
            &ufo_aip::messages::new_id(),
            "direct",
            self.hub.limits().command_timeout,
        ))
    }
}
