//! The accept loop: every TCP connection is counted against
//! [`Limits::max_connections`](crate::Limits) (a WebSocket keeps its count
//! after the upgrade), optionally wrapped in TLS, and served by hyper's
//! HTTP/1 with a header read timeout, so a client that sends half a request
//! (or half a TLS handshake) is closed instead of held forever.

use crate::hub::{ConnectionSlot, Hub, lock};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

/// How long the server waits for its connections to end after shutdown.
const DRAIN: Duration = Duration::from_secs(3);

/// A connection's count, handed to the request that upgrades it to a
/// WebSocket (which keeps it for the socket's life).
#[derive(Clone)]
pub(crate) struct SlotCell(Arc<Mutex<Option<ConnectionSlot>>>);

impl SlotCell {
    /// Takes the connection's count (once).
    pub(crate) fn take(&self) -> Option<ConnectionSlot> {
        lock(&self.0).take()
    }
}

/// A byte stream hyper can serve: plain TCP or TLS over it.
trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// Serves `router` on `listener` until `shutdown` resolves, then lets the
/// connections wind up for a few seconds.
pub(crate) async fn run(
    listener: TcpListener,
    hub: Arc<Hub>,
    router: axum::Router,
    tls: Option<TlsAcceptor>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let (stop_tx, stop_rx) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => break,
            a = listener.accept() => a,
        };
        let (tcp, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of file descriptors and the like: wait, then go on.
                tracing::warn!("accepting a connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Some(slot) = hub.open_connection() else {
            tracing::warn!(
                %peer,
                "connection refused: the server holds its limit of {} connections",
                hub.limits().max_connections
            );
            drop(tcp);
            continue;
        };
        let _ = tcp.set_nodelay(true);
        let cell = SlotCell(Arc::new(Mutex::new(Some(slot))));
        let router = router.clone().layer(axum::Extension(cell));
        tokio::spawn(connection(
            tcp,
            tls.clone(),
            router,
            hub.limits().header_timeout,
            stop_rx.clone(),
        ));
    }
    let _ = stop_tx.send(true);
    let drained = async {
        while hub.open_connections() > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let _ = tokio::time::timeout(DRAIN, drained).await;
    Ok(())
}

/// One connection: the TLS handshake (bounded by `header_timeout`), then
/// HTTP/1 with upgrades until the client goes, or the server stops.
async fn connection(
    tcp: tokio::net::TcpStream,
    tls: Option<TlsAcceptor>,
    router: axum::Router,
    header_timeout: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let io: Box<dyn Io> = match tls {
        None => Box::new(tcp),
        Some(acceptor) => match tokio::time::timeout(header_timeout, acceptor.accept(tcp)).await {
            Ok(Ok(s)) => Box::new(s),
            Ok(Err(e)) => {
                tracing::debug!("TLS handshake failed: {e}");
                return;
            }
            Err(_) => return,
        },
    };
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let conn = http
        .serve_connection(TokioIo::new(io), TowerToHyperService::new(router))
        .with_upgrades();
    tokio::pin!(conn);
    let stopping = async move {
        let _ = stop.wait_for(|s| *s).await;
    };
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = stopping => {}
    }
    conn.as_mut().graceful_shutdown();
    let _ = tokio::time::timeout(DRAIN, conn).await;
}
