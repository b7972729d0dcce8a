//! The connection under the device's WebSocket: the upgrade request with
//! the key (header and UFO's `?token=`), TCP, and TLS for `wss://` with
//! `--ca`'s authorities or Mozilla's roots.

use crate::error::AipError;
use std::path::PathBuf;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::rustls;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use ufo_core::BoxError;

/// Where and how to connect: the client's options that the connection
/// needs (its server URL, key and `--ca`).
pub(super) struct Endpoint<'a> {
    /// `ws://` or `wss://` URL.
    pub(super) server: &'a String,
    /// The key, sent as a header and as `?token=`.
    pub(super) api_key: &'a Option<String>,
    /// Certificate authorities to trust instead of Mozilla's roots.
    pub(super) ca: &'a Option<PathBuf>,
}

/// The WebSocket upgrade request for the server, with the key.
pub(super) fn upgrade_request(
    opts: &Endpoint<'_>,
) -> Result<tokio_tungstenite::tungstenite::handshake::client::Request, AipError> {
    let bad_url = |message: &str, source: Option<BoxError>| AipError::BadUrl {
        url: opts.server.clone(),
        message: message.to_owned(),
        source,
    };
    if !(opts.server.starts_with("ws://") || opts.server.starts_with("wss://")) {
        return Err(bad_url("it must start with ws:// or wss://", None));
    }
    // The key goes both ways: `?token=` for UFO's server, the header for
    // ours. (The URL with the key is never logged: errors name opts.server.)
    let url = match &opts.api_key {
        Some(key) => {
            with_token(opts.server, key).map_err(|e| bad_url("it is not a URL", Some(e.into())))?
        }
        None => opts.server.clone(),
    };
    let mut request = url
        .as_str()
        .into_client_request()
        .map_err(|e| bad_url("it is not a WebSocket request's URL", Some(e.into())))?;
    if let Some(key) = &opts.api_key {
        let v = HeaderValue::from_str(key.trim()).map_err(|_| AipError::Unauthorized {
            url: opts.server.clone(),
            why: "the key holds characters a header cannot carry".into(),
        })?;
        request.headers_mut().insert("x-api-key", v);
    }
    Ok(request)
}

/// A byte stream under the WebSocket: TCP, or TLS over it.
pub(super) trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// The connection to the server: TCP, with TLS for `wss://`. `Err` for
/// what retrying cannot fix (an untrusted certificate, an unreadable
/// `--ca`); `Ok(Err)` for what may pass (the server is not up yet).
pub(super) async fn open(
    opts: &Endpoint<'_>,
    request: &tokio_tungstenite::tungstenite::handshake::client::Request,
) -> Result<Result<Box<dyn Io>, BoxError>, AipError> {
    let uri = request.uri();
    let secure = uri.scheme_str() == Some("wss");
    let host = uri
        .host()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let port = uri.port_u16().unwrap_or(if secure { 443 } else { 80 });
    let tcp = match tokio::net::TcpStream::connect((host.as_str(), port)).await {
        Ok(t) => t,
        Err(e) => return Ok(Err(e.into())),
    };
    let _ = tcp.set_nodelay(true);
    if !secure {
        return Ok(Ok(Box::new(tcp)));
    }
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(tls_config(opts)?));
    let name =
        rustls::pki_types::ServerName::try_from(host.clone()).map_err(|e| AipError::BadUrl {
            url: opts.server.clone(),
            message: format!("{host:?} is not a host name a certificate can name"),
            source: Some(e.into()),
        })?;
    match connector.connect(name, tcp).await {
        Ok(s) => Ok(Ok(Box::new(s))),
        Err(e) => match e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
            Some(tls) => Err(untrusted(opts, &host, tls.clone())),
            None => Ok(Err(e.into())),
        },
    }
}

/// A TLS failure with the server, said for the user.
fn untrusted(opts: &Endpoint<'_>, host: &str, e: rustls::Error) -> AipError {
    let (message, help) = match &e {
        rustls::Error::InvalidCertificate(why) => (
            format!("the server's certificate for {host} is not trusted ({why:?})"),
            match &opts.ca {
                Some(ca) => format!(
                    "the server's certificate is not signed by the CA in {} for the name {host}: check --ca and the host in --server",
                    ca.display()
                ),
                None => "give the CA that signed the server's certificate with --ca FILE (PEM); a self-signed server's own certificate works too".into(),
            },
        ),
        _ => (
            format!("the TLS handshake with {host} failed"),
            "check that the server serves TLS (ufo serve --tls-cert … --tls-key …); for a server without TLS use ws://".into(),
        ),
    };
    AipError::Tls {
        message,
        help,
        source: Some(Box::new(e)),
    }
}

/// The client's TLS settings: `--ca`'s authorities, else Mozilla's roots.
fn tls_config(opts: &Endpoint<'_>) -> Result<rustls::ClientConfig, AipError> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let help = "give --ca a PEM file of certificates (BEGIN CERTIFICATE)";
    let fail = |message: String, source: Option<BoxError>| AipError::Tls {
        message,
        help: help.into(),
        source,
    };
    let mut roots = rustls::RootCertStore::empty();
    match &opts.ca {
        Some(path) => {
            let shown = path.display();
            let pem = std::fs::read(path)
                .map_err(|e| fail(format!("cannot read --ca {shown}"), Some(e.into())))?;
            for cert in CertificateDer::pem_slice_iter(&pem) {
                let cert =
                    cert.map_err(|e| fail(format!("cannot read --ca {shown}"), Some(e.into())))?;
                roots.add(cert).map_err(|e| {
                    fail(
                        format!("--ca {shown} holds an unusable certificate"),
                        Some(e.into()),
                    )
                })?;
            }
            if roots.is_empty() {
                return Err(fail(format!("--ca {shown} holds no certificate"), None));
            }
        }
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| fail("no TLS version to offer".into(), Some(e.into())))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// The server URL with the key as `?token=` (percent-encoded: keys may
/// hold `+`, `/`, `=`), which is how UFO's server takes it.
fn with_token(server: &str, key: &str) -> Result<String, url::ParseError> {
    let mut u = url::Url::parse(server)?;
    let others: Vec<(String, String)> = u
        .query_pairs()
        .filter(|(k, _)| k != "token")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    u.query_pairs_mut()
        .clear()
        .extend_pairs(others)
        .append_pair("token", key.trim());
    Ok(u.to_string())
}
