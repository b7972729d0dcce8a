//! The server's certificate and key (`ufo serve --tls-cert --tls-key`):
//! HTTPS and `wss://` with rustls (ring).

use std::path::Path;
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use ufo_aip::AipError;

/// A certificate chain and its private key, ready to serve TLS.
#[derive(Clone)]
pub struct TlsConfig(Arc<rustls::ServerConfig>);

impl std::fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TlsConfig(<certificate and key>)")
    }
}

fn tls_error(
    message: String,
    help: &str,
    source: impl std::error::Error + Send + Sync + 'static,
) -> AipError {
    AipError::Tls {
        message,
        help: help.to_owned(),
        source: Some(Box::new(source)),
    }
}

impl TlsConfig {
    /// Reads a PEM certificate chain (the server's first) and a PEM private
    /// key (PKCS#8, PKCS#1 or SEC1) from files.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Self, AipError> {
        let read = |p: &Path, what: &str| {
            std::fs::read(p).map_err(|e| {
                tls_error(
                    format!("cannot read the {what} {}", p.display()),
                    "give --tls-cert and --tls-key as PEM files this user can read",
                    e,
                )
            })
        };
        Self::from_pem(&read(cert, "certificate")?, &read(key, "key")?)
    }

    /// A certificate chain and a private key in PEM.
    pub fn from_pem(cert: &[u8], key: &[u8]) -> Result<Self, AipError> {
        let help = "give --tls-cert a PEM certificate chain (BEGIN CERTIFICATE) and --tls-key its PEM private key (BEGIN PRIVATE KEY)";
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert)
            .collect::<Result<_, _>>()
            .map_err(|e| tls_error("cannot read the certificate".into(), help, e))?;
        if certs.is_empty() {
            return Err(AipError::Tls {
                message: "the certificate file holds no certificate".into(),
                help: help.into(),
                source: None,
            });
        }
        let key = PrivateKeyDer::from_pem_slice(key)
            .map_err(|e| tls_error("cannot read the private key".into(), help, e))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| tls_error("no TLS version to offer".into(), help, e))?
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .map_err(|e| {
                tls_error(
                    "the certificate and the key do not go together".into(),
                    help,
                    e,
                )
            })?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Self(Arc::new(config)))
    }

    pub(crate) fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(self.0.clone())
    }
}
