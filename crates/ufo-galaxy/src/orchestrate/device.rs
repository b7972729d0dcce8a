//! How the orchestrator reaches a device: [`DeviceRunner`] sends one
//! sub-task's text and waits for its end. The AIP constellation client (a
//! WebSocket to each device's `ufo serve`) implements it; tests plug in
//! fakes. The orchestrator never sees the transport.

use crate::validate::KnownDevice;
use serde_json::Value;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use ufo_core::Diagnostic;

/// One sub-task as it is sent to its device.
#[derive(Debug, Clone, PartialEq)]
pub struct SubTask {
    /// The constellation it belongs to.
    pub constellation_id: String,
    /// The task (AIP's session id is built from it: `TN@<task_id>`).
    pub task_id: String,
    /// The device that runs it.
    pub device_id: String,
    /// What the device is asked: UFO's `to_request_string()`
    /// ([`crate::TaskStar::request_text`]), description and tips only.
    pub request: String,
    /// How long the orchestrator waits for its end (`timeout or 1000` s).
    /// The orchestrator enforces it; a runner may pass it on.
    pub timeout: Duration,
}

/// How a device said a sub-task ended (AIP's `TASK_END`).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskOutcome {
    /// `true` for `status: completed`; anything else failed.
    pub completed: bool,
    /// The device's results (`TASK_END.result`: the session's
    /// `[{"request", "result"}, …]`).
    pub result: Value,
    /// The device's error text (`TASK_END.error`).
    pub error: Option<String>,
}

impl TaskOutcome {
    /// A sub-task that completed with `result`.
    pub fn completed(result: Value) -> Self {
        Self {
            completed: true,
            result,
            error: None,
        }
    }

    /// A sub-task the device ran and reported failed.
    pub fn failed(result: Value, error: Option<String>) -> Self {
        Self {
            completed: false,
            result,
            error,
        }
    }
}

/// Why a device gave no `TASK_END` for a sub-task. The task fails with
/// UFO's payload for it (`device_disconnection` or `execution_error`); a
/// timeout is the orchestrator's own (`timeout`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// The connection to the device was lost before the end came (UFO's
    /// `ConnectionError`).
    #[error("{message}")]
    Disconnected {
        /// What happened (`Device D disconnected while waiting for task
        /// response`).
        message: String,
    },
    /// Anything else: the device is not connected, the request could not
    /// be sent, the runner failed.
    #[error("{message}")]
    Failed {
        /// What happened.
        message: String,
    },
}

impl DeviceError {
    /// A lost connection.
    pub fn disconnected(message: impl Into<String>) -> Self {
        Self::Disconnected {
            message: message.into(),
        }
    }

    /// Any other failure.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::Failed {
            message: message.into(),
        }
    }
}

impl Diagnostic for DeviceError {
    fn code(&self) -> &'static str {
        match self {
            Self::Disconnected { .. } => "ufo::galaxy::device_disconnected",
            Self::Failed { .. } => "ufo::galaxy::device_failed",
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            Self::Disconnected { .. } => "check that the device's `ufo serve` is running and reachable; the plan can move the work to another device (update_task) or add a remediation task".into(),
            Self::Failed { .. } => "check the device's log; the plan can retry the work as a new task (add_task)".into(),
        })
    }
}

/// The devices a constellation runs on, as the orchestrator sees them.
///
/// `run` is called at most once at a time per device (the orchestrator
/// queues the rest), for different devices at the same time. Dropping its
/// future (timeout, cancellation) must be harmless: the orchestrator
/// stops waiting; whether the device also stops is the transport's affair
/// (AIP has no cancel frame, so UFO's devices go on).
pub trait DeviceRunner: Send + Sync + 'static {
    /// Every registered device, connected or not (UFO checks assignments
    /// against all of them): a task naming another id cannot run.
    fn devices(&self) -> Vec<KnownDevice>;

    /// Sends `task` to `task.device_id` and waits for its end.
    fn run(&self, task: SubTask) -> impl Future<Output = Result<TaskOutcome, DeviceError>> + Send;
}

impl<T: DeviceRunner> DeviceRunner for Arc<T> {
    fn devices(&self) -> Vec<KnownDevice> {
        T::devices(self)
    }

    fn run(&self, task: SubTask) -> impl Future<Output = Result<TaskOutcome, DeviceError>> + Send {
        T::run(self, task)
    }
}
