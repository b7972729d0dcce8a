//! Stopping a run from outside: a [`CancelHandle`] shared by the caller
//! and the orchestrator.

use std::sync::Arc;
use tokio::sync::watch;

/// Cancels one run. Clones cancel the same run; cancelling twice is the
/// same as once, and a handle cancelled before the run starts makes it
/// stop as soon as its plan has been checked.
///
/// On cancellation the orchestrator starts nothing more, aborts the jobs
/// waiting for devices and marks their tasks (and every task not started)
/// `cancelled`; the run ends in state `cancelled`.
#[derive(Debug, Clone)]
pub struct CancelHandle {
    flag: Arc<watch::Sender<bool>>,
}

impl Default for CancelHandle {
    fn default() -> Self {
        Self::new()
    }
}

impl CancelHandle {
    /// A handle not cancelled.
    pub fn new() -> Self {
        Self {
            flag: Arc::new(watch::Sender::new(false)),
        }
    }

    /// Cancels the run.
    pub fn cancel(&self) {
        self.flag.send_replace(true);
    }

    /// Whether the run was cancelled.
    pub fn is_cancelled(&self) -> bool {
        *self.flag.borrow()
    }

    /// Resolves once the run is cancelled.
    pub async fn cancelled(&self) {
        let mut rx = self.flag.subscribe();
        // The sender lives in `self`, so the wait can only end by a cancel.
        if rx.wait_for(|c| *c).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_clone_cancels_the_same_run() {
        let h = CancelHandle::new();
        let other = h.clone();
        assert!(!h.is_cancelled());
        other.cancel();
        assert!(h.is_cancelled());
        h.cancelled().await;
    }
}
