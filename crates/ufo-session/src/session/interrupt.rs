//! Ctrl+C and SIGTERM: a signal ends the session's work, which then finishes
//! with the reason.

use super::{Session, SessionStatus};
use crate::error::SessionError;
use ufo_core::Diagnostic;

/// Resolves when the process receives SIGINT or SIGTERM, with its name; never
/// when the handlers cannot be installed.
#[cfg(not(unix))]
pub(super) async fn interrupted() -> &'static str {
    match tokio::signal::ctrl_c().await {
        Ok(()) => "Ctrl+C",
        Err(_) => std::future::pending().await,
    }
}

/// Resolves when the process receives SIGINT or SIGTERM, with its name; never
/// when the handlers cannot be installed.
#[cfg(unix)]
pub(super) async fn interrupted() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => "SIGINT",
        _ = term.recv() => "SIGTERM",
    }
}

impl Session<'_> {
    /// The status, or — when a signal ended the work — an error saying so,
    /// recorded for the summary and `output.md`.
    pub(super) fn unless_interrupted(
        &mut self,
        outcome: Result<SessionStatus, &'static str>,
    ) -> SessionStatus {
        match outcome {
            Ok(st) => st,
            Err(sig) => {
                let e = SessionError::Interrupted {
                    signal: sig.to_string(),
                    step: self.step,
                }
                .report();
                self.s.io.show(&e.headline());
                self.error = Some(e);
                SessionStatus::Error
            }
        }
    }
}
