//! `ufo mcp --http`: the server over streamable HTTP at `/mcp`.
//!
//! Three doors, all closed by default:
//! * an API key on every request (`Authorization: Bearer <key>`, compared
//!   in constant time); without one the answer is 401;
//! * `Host` must name the address served (loopback names for a loopback
//!   address), so a web page cannot reach the server by DNS rebinding;
//! * a request from a browser page (`Origin`) is refused unless the page is
//!   the server itself.
//!
//! The address is loopback unless the caller allows another one
//! ([`HttpOptions::allow_remote`]).

use super::DesktopServer;
use crate::error::McpError;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The path the MCP endpoint is served at.
pub const PATH: &str = "/mcp";

/// The shortest API key accepted.
pub const MIN_KEY_LEN: usize = 16;

/// How to serve over HTTP.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Where to listen (port 0: any free port).
    pub addr: SocketAddr,
    /// The key every request must carry.
    pub api_key: String,
    /// Allow a non-loopback address (the `Host` check is then off; the key
    /// and the `Origin` check stay).
    pub allow_remote: bool,
}

/// A running HTTP server.
#[derive(Debug)]
pub struct HttpServer {
    addr: SocketAddr,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl HttpServer {
    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint URL (`http://127.0.0.1:PORT/mcp`).
    pub fn url(&self) -> String {
        format!("http://{}{PATH}", self.addr)
    }

    /// Stops it and waits until it has.
    pub async fn stop(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }

    /// Waits until it stops (Ctrl-C: `cancel_on`), then returns.
    pub async fn wait(self) -> Result<(), McpError> {
        match self.task.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(McpError::Transport {
                message: format!("serving HTTP on {}", self.addr),
                source: e.into(),
            }),
            Err(e) => Err(McpError::Transport {
                message: format!("the HTTP server's task on {}", self.addr),
                source: e.into(),
            }),
        }
    }

    /// A token that stops the server when cancelled.
    pub fn cancel_token(&self) -> CancellationToken {
        self.stop.clone()
    }
}

/// Starts serving; `make` builds the server of each new MCP session.
pub async fn serve_http(
    options: HttpOptions,
    make: impl Fn() -> DesktopServer + Send + Sync + 'static,
) -> Result<HttpServer, McpError> {
    if options.api_key.trim().chars().count() < MIN_KEY_LEN {
        return Err(McpError::Serve {
            message: format!("the API key must be at least {MIN_KEY_LEN} characters"),
            help: "put a long random key in a file, e.g. `head -c 24 /dev/urandom | base64 > ~/.config/ufo/mcp.key`, and pass --api-key-file",
            source: None,
        });
    }
    let loopback = options.addr.ip().is_loopback();
    if !loopback && !options.allow_remote {
        return Err(McpError::Serve {
            message: format!("{} is not a loopback address", options.addr.ip()),
            help: "serve on 127.0.0.1 (the default) and reach it through an SSH tunnel, or pass --allow-remote if other machines must reach it",
            source: None,
        });
    }
    let listener = tokio::net::TcpListener::bind(options.addr)
        .await
        .map_err(|e| McpError::Serve {
            message: format!("cannot listen on {}", options.addr),
            help: "choose another port (`--http 127.0.0.1:0` picks a free one)",
            source: Some(e),
        })?;
    let addr = listener.local_addr().map_err(|e| McpError::Serve {
        message: format!("no local address for {}", options.addr),
        help: "choose another address",
        source: Some(e),
    })?;
    let stop = CancellationToken::new();
    let port = addr.port();
    let origins = [
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        format!("http://[::1]:{port}"),
    ];
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(stop.child_token())
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    config = match loopback {
        true => config.with_allowed_hosts([
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ]),
        false => config.disable_allowed_hosts(),
    };
    let service = StreamableHttpService::new(
        move || Ok(make()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let key: Arc<str> = Arc::from(options.api_key.trim());
    let router = axum::Router::new()
        .nest_service(PATH, service)
        .layer(axum::middleware::from_fn(
            move |req: Request, next: Next| {
                let key = key.clone();
                async move { authorize(&key, req, next).await }
            },
        ));
    let shutdown = stop.clone();
    let task = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await
    });
    Ok(HttpServer { addr, stop, task })
}

async fn authorize(key: &str, req: Request, next: Next) -> Response {
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    match given {
        Some(g) if same(g.as_bytes(), key.as_bytes()) => {
            let delete = req.method() == axum::http::Method::DELETE;
            let mut response = next.run(req).await;
            // Ending a session: rmcp answers 202, which the Python SDK
            // reports as a failure; 204 says the same and every SDK takes it.
            if delete && response.status() == StatusCode::ACCEPTED {
                *response.status_mut() = StatusCode::NO_CONTENT;
            }
            response
        }
        _ => (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "an API key is required: send `Authorization: Bearer <key>` with the key of `ufo mcp --api-key-file`\n",
        )
            .into_response(),
    }
}

/// Constant-time equality (the time taken does not depend on where the
/// first difference is).
fn same(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for (i, x) in a.iter().enumerate() {
        diff |= usize::from(x ^ b.get(i % b.len().max(1)).copied().unwrap_or(0));
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_compare_whole() {
        assert!(same(b"0123456789abcdef", b"0123456789abcdef"));
        assert!(!same(b"0123456789abcdeX", b"0123456789abcdef"));
        assert!(!same(b"0123456789abcdef0", b"0123456789abcdef"));
        assert!(!same(b"", b"0123456789abcdef"));
        assert!(!same(b"0123", b""));
    }
}
