//! Closing an application: each of its X windows asked to close, then
//! watched until none is left (see [`ufo_desktop::Backend::close_app`]).

use super::{AtspiBackend, Result};
use std::time::{Duration, Instant};
use ufo_core::WindowInfo;
use ufo_desktop::DesktopError;

/// How often the windows are looked at while an application closes.
const CLOSE_POLL: Duration = Duration::from_millis(100);

impl AtspiBackend {
    /// The X windows of `window`'s application: those of its process, or
    /// its own window when the process is not known.
    fn x_windows_of(&self, window: &WindowInfo) -> Result<Vec<u32>> {
        let own = window.native_id.and_then(|n| u32::try_from(n).ok());
        Ok(self
            .x11
            .client_windows()?
            .into_iter()
            .filter(|w| w.viewable)
            .filter(|w| match window.pid {
                Some(pid) => w.pid == Some(pid),
                None => Some(w.id) == own,
            })
            .map(|w| w.id)
            .collect())
    }

    /// Asks every window of `window`'s application to close, then waits at
    /// most `timeout` for them to go.
    pub(super) async fn close_windows_of(
        &self,
        window: &WindowInfo,
        timeout: Duration,
    ) -> Result<()> {
        let ids = self.x_windows_of(window)?;
        if ids.is_empty() {
            return Err(DesktopError::WindowNotFound(format!(
                "{:?}: the application has no open window",
                window.app_name
            )));
        }
        // Dialogs first: a window closes more readily without its dialogs.
        let x = self.x11.clone();
        tokio::task::spawn_blocking(move || ids.iter().rev().try_for_each(|&id| x.close(id)))
            .await
            .map_err(|e| DesktopError::backend_by("the thread closing the windows failed", e))??;
        let deadline = Instant::now() + timeout;
        loop {
            let left = self.x_windows_of(window)?.len();
            if left == 0 {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(DesktopError::Timeout {
                    what: format!(
                        "closing {:?} ({left} window(s) still open: it may be asking whether to save)",
                        window.app_name
                    ),
                    millis: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
                });
            }
            tokio::time::sleep(CLOSE_POLL).await;
        }
    }
}
