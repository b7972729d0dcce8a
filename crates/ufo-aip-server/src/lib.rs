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
//! loopback, which stops DNS-rebinding pages from reaching it; a browser's
//! `Origin` must be the server's own (scheme, host and port).
//!
//! Constellation clients (Galaxy's orchestrator) register as
//! `<task name>@<device id>` with the shared key and a connected
//! `target_id`, and send that device TASKs: each runs as a session on the
//! device, and its TASK_END goes to both.
//!
//! Devices: with a [`DevicePolicy`] that gives devices their own keys, a
//! device registers only the client id its key is for, and the shared key
//! registers none (it stays the key of the REST routes). A task dispatched
//! to a device runs on that device and no other. `DEVICE_TOOL_ARGUMENTS`
//! go only to the devices the policy names.
//!
//! [`Server::serve`] serves HTTP, [`Server::serve_tls`] HTTPS and `wss://`
//! ([`TlsConfig`]); both close a connection whose request headers do not
//! arrive within [`Limits::header_timeout`] and hold at most
//! [`Limits::max_connections`] connections of any kind.

mod dispatcher;
mod http;
pub(crate) mod hub;
mod listen;
mod refusal;
mod runner;
mod tls;
mod ws;

pub use dispatcher::WsDispatcher;
pub use runner::SessionRunner;
pub use tls::TlsConfig;

use hub::Hub;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;
use ufo_aip::auth::{ApiKey, DeviceKeys, HostCheck};

/// The server's limits. Defaults: 16 MiB frames, 2,048 connections, 50
/// frames a second per connection (bursts of 100), 120 s per command batch
/// (UFO's timeout), 300 s of silence before a device counts as dead (UFO's
/// client beats every 120 s; `HEARTBEAT_TIMEOUT`), 10 s to
/// register, 10 s for a request's headers (and a TLS handshake), 30 s for a
/// REST request.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest frame or message accepted.
    pub max_frame_bytes: usize,
    /// Open connections at most, of any kind (WebSockets, REST requests,
    /// connections still sending their headers or TLS handshake); one more
    /// is closed at once.
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
    /// Time for a connection's request headers (and its TLS handshake)
    /// to arrive; a connection that sends them no faster is closed.
    pub header_timeout: Duration,
    /// Time for a REST request to be read and answered.
    pub request_timeout: Duration,
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
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
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

/// Which device may register under which id, and which devices are given
/// `DEVICE_TOOL_ARGUMENTS`.
///
/// Without device keys (the default) any holder of the shared key may
/// register any id that is not connected: the key is then the devices'
/// only credential, and a program holding it can pose as a device that is
/// not connected yet. With device keys a device registers only the id its
/// key is for, and the shared key registers no device.
#[derive(Debug, Clone, Default)]
pub struct DevicePolicy {
    /// Each device's own key.
    pub keys: DeviceKeys,
    /// The devices whose tool calls are given `DEVICE_TOOL_ARGUMENTS`
    /// (on a server with device keys, only when they showed their own).
    /// Empty: no device is given them.
    pub tool_argument_devices: BTreeSet<String>,
}

/// The agent server.
#[derive(Clone)]
pub struct Server {
    hub: Arc<Hub>,
}

impl Server {
    /// A server; `runner` runs the sessions (`None`: devices may connect and
    /// be sent commands, but TASKs are refused, as for benchmarks). Devices
    /// register with the shared key (see [`DevicePolicy`]).
    pub fn new(options: ServerOptions, runner: Option<SessionRunner>) -> Self {
        Self::with_devices(options, DevicePolicy::default(), runner)
    }

    /// A server whose devices register under `policy`.
    pub fn with_devices(
        options: ServerOptions,
        policy: DevicePolicy,
        runner: Option<SessionRunner>,
    ) -> Self {
        Self {
            hub: Arc::new(Hub::new(options, policy, runner)),
        }
    }

    /// The HTTP and WebSocket routes.
    pub fn router(&self) -> axum::Router {
        http::router(self.hub.clone())
    }

    /// Serves HTTP and `ws://` on `listener` until `shutdown` resolves; then
    /// tells every device (a close frame, 1001 "going away") so its client
    /// reconnects, and returns within a few seconds even if a connection
    /// lingers.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        self.serve_with(listener, None, shutdown).await
    }

    /// As [`Server::serve`], over TLS: HTTPS and `wss://`.
    pub async fn serve_tls(
        self,
        listener: tokio::net::TcpListener,
        tls: TlsConfig,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        self.serve_with(listener, Some(tls), shutdown).await
    }

    async fn serve_with(
        self,
        listener: tokio::net::TcpListener,
        tls: Option<TlsConfig>,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let reaper = tokio::spawn(ws::reap_silent(self.hub.clone()));
        let hub = self.hub.clone();
        let shutdown = async move {
            shutdown.await;
            for d in hub.devices() {
                d.close(1001, "the server is shutting down");
            }
        };
        let r = listen::run(
            listener,
            self.hub.clone(),
            self.router(),
            tls.map(|t| t.acceptor()),
            shutdown,
        )
        .await;
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
