//! The thread that owns COM.
//!
//! UI Automation and MSAA objects belong to the thread that made them, and
//! `SendInput`, focus and menu calls are cheapest from one place: every
//! platform call runs on one worker thread (COM initialised as a
//! multi-threaded apartment, as UIA clients should), which also keeps the
//! UIA elements of the last captures. A call that does not answer within
//! its bound returns [`DesktopError::Timeout`]; the worker is then replaced
//! so that one hung application cannot stall every later call.

use super::uia::Uia;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;
use tokio::sync::oneshot;
use ufo_desktop::{DesktopError, Result};
use windows::Win32::System::Com::{COINIT_MULTITHREADED, CoInitializeEx, CoUninitialize};

/// What the worker keeps between calls.
pub(crate) struct State {
    /// UI Automation, when available and wanted.
    pub(crate) uia: Option<Uia>,
    /// UIA elements by handle string (from the captures so far).
    pub(crate) elements: HashMap<String, windows::Win32::UI::Accessibility::IUIAutomationElement>,
}

type Job = Box<dyn FnOnce(&mut State) + Send>;

/// Sends jobs to the worker thread.
pub(crate) struct Worker {
    tx: Mutex<mpsc::Sender<Job>>,
    want_uia: bool,
    uia_available: Arc<Mutex<Option<bool>>>,
}

fn spawn(want_uia: bool, uia_available: Arc<Mutex<Option<bool>>>) -> Result<mpsc::Sender<Job>> {
    let (tx, rx) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("ufo-windows".into())
        .spawn(move || {
            // SAFETY: COM is initialised once on this thread and uninitialised
            // when the thread ends; every COM object made here is dropped
            // before that (the state is dropped first).
            #[allow(unsafe_code)]
            let init = unsafe { CoInitializeEx(None, COINIT_MULTITHREADED) };
            let uia = if want_uia && init.is_ok() {
                match Uia::new() {
                    Ok(u) => Some(u),
                    Err(e) => {
                        tracing::info!(error = %e, "UI Automation is not available; using Win32/MSAA");
                        None
                    }
                }
            } else {
                None
            };
            if let Ok(mut slot) = uia_available.lock() {
                *slot = Some(uia.is_some());
            }
            let mut state = State {
                uia,
                elements: HashMap::new(),
            };
            while let Ok(job) = rx.recv() {
                job(&mut state);
            }
            drop(state);
            if init.is_ok() {
                #[allow(unsafe_code)]
                // SAFETY: paired with the successful CoInitializeEx above.
                unsafe {
                    CoUninitialize()
                };
            }
        })
        .map_err(|e| DesktopError::backend_by("cannot start the Windows worker thread", e))?;
    Ok(tx)
}

impl Worker {
    /// Starts the worker; `want_uia` false keeps to Win32/MSAA.
    pub(crate) fn start(want_uia: bool) -> Result<Self> {
        let uia_available = Arc::new(Mutex::new(None));
        let tx = spawn(want_uia, uia_available.clone())?;
        Ok(Self {
            tx: Mutex::new(tx),
            want_uia,
            uia_available,
        })
    }

    /// True when the worker found UI Automation (waits for its start-up).
    pub(crate) async fn uia_available(&self) -> bool {
        let r = self
            .run("starting", Duration::from_secs(10), |s| s.uia.is_some())
            .await;
        r.unwrap_or(false)
    }

    /// Runs `f` on the worker, at most `bound`.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        what: &str,
        bound: Duration,
        f: impl FnOnce(&mut State) -> T + Send + 'static,
    ) -> Result<T> {
        let (done, answer) = oneshot::channel();
        let job: Job = Box::new(move |s| {
            let _ = done.send(f(s));
        });
        {
            let tx = self
                .tx
                .lock()
                .map_err(|_| DesktopError::backend("the Windows worker lock is poisoned"))?;
            tx.send(job)
                .map_err(|_| DesktopError::backend("the Windows worker thread ended"))?;
        }
        match tokio::time::timeout(bound, answer).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(_)) => Err(DesktopError::backend(format!(
                "the Windows worker thread ended during {what}"
            ))),
            Err(_) => {
                // The worker is stuck in an application's call: later calls
                // go to a fresh one (the stuck thread ends when it returns).
                tracing::warn!(what, "a Windows call did not return; replacing the worker");
                if let (Ok(new), Ok(mut tx)) = (
                    spawn(self.want_uia, self.uia_available.clone()),
                    self.tx.lock(),
                ) {
                    *tx = new;
                }
                Err(DesktopError::Timeout {
                    what: what.to_owned(),
                    millis: u64::try_from(bound.as_millis()).unwrap_or(u64::MAX),
                })
            }
        }
    }
}
