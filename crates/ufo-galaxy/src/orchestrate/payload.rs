//! What a task's `result` holds once it has ended: UFO's serialised
//! `ExecutionResult` (`galaxy/core/types.py`), on success and on failure,
//! with the failure payloads UFO's device manager builds
//! (`_execute_task_on_device`): `error_type` `device_disconnection`,
//! `timeout` or `execution_error`, and `metadata.error_category`.

use crate::orchestrate::device::{DeviceError, TaskOutcome};
use serde_json::{Value, json};

/// How a sub-task ended, as the job that waited for it saw it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ending {
    /// The device sent its end.
    Outcome(TaskOutcome),
    /// The device could not run it or the connection was lost.
    Device(DeviceError),
    /// No end within this many seconds.
    TimedOut(f64),
}

/// A task's end: whether it completed, its `result` (the
/// `ExecutionResult`) and its error text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settled {
    pub(crate) completed: bool,
    pub(crate) result: Value,
    pub(crate) error: Option<String>,
}

/// Seconds as Python prints a float: `60.0`, `0.5`, `1000.0`.
pub(crate) fn py_float(seconds: f64) -> String {
    if seconds.is_finite() && seconds.fract() == 0.0 && seconds.abs() < 1e16 {
        format!("{seconds:.1}")
    } else {
        format!("{seconds}")
    }
}

/// UFO's `ExecutionResult` for task `task_id` on `device_id`, run from
/// `start` to `end` (ISO 8601).
pub(crate) fn settle(
    task_id: &str,
    device_id: &str,
    ending: Ending,
    start: &str,
    end: &str,
) -> Settled {
    let failure = |kind: &str, message: String| json!({"error_type": kind, "message": message, "device_id": device_id, "task_id": task_id});
    let (completed, result, error, mut metadata) = match ending {
        Ending::Outcome(o) => (o.completed, o.result, o.error, json!({})),
        Ending::Device(DeviceError::Disconnected { message }) => (
            false,
            failure(
                "device_disconnection",
                format!("Device {device_id} disconnected during task execution"),
            ),
            Some(message),
            json!({"disconnected": true, "error_category": "connection_error"}),
        ),
        Ending::Device(DeviceError::Failed { message }) => (
            false,
            failure("execution_error", message.clone()),
            Some(message),
            json!({"error_category": "general_error"}),
        ),
        Ending::TimedOut(seconds) => (
            false,
            failure(
                "timeout",
                format!("Task timed out after {} seconds", py_float(seconds)),
            ),
            Some(format!(
                "Task execution timed out after {} seconds",
                py_float(seconds)
            )),
            json!({"timeout": seconds, "error_category": "timeout_error"}),
        ),
    };
    metadata["device_id"] = json!(device_id);
    let status = if completed { "completed" } else { "failed" };
    let execution_result = json!({
        "task_id": task_id,
        "status": status,
        "result": result,
        "error": error,
        "metadata": metadata,
        "start_time": start,
        "end_time": end,
    });
    Settled {
        completed,
        result: execution_result,
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: &str = "2026-01-01T00:00:00.000000+00:00";
    const E: &str = "2026-01-01T00:01:00.000000+00:00";

    #[test]
    fn floats_print_as_python_does() {
        assert_eq!(py_float(60.0), "60.0");
        assert_eq!(py_float(1000.0), "1000.0");
        assert_eq!(py_float(0.5), "0.5");
    }

    #[test]
    fn a_completed_task_keeps_the_device_result() {
        let s = settle(
            "t1",
            "pc",
            Ending::Outcome(TaskOutcome::completed(
                json!([{"request": "r", "result": "ok"}]),
            )),
            S,
            E,
        );
        assert!(s.completed);
        assert_eq!(
            s.result,
            json!({"task_id": "t1", "status": "completed",
                "result": [{"request": "r", "result": "ok"}], "error": null,
                "metadata": {"device_id": "pc"}, "start_time": S, "end_time": E})
        );
    }

    #[test]
    fn failures_carry_ufos_payloads() {
        let t = settle("t1", "pc", Ending::TimedOut(60.0), S, E);
        assert_eq!(
            t.error.as_deref(),
            Some("Task execution timed out after 60.0 seconds")
        );
        assert_eq!(t.result["status"], "failed");
        assert_eq!(
            t.result["result"],
            json!({"error_type": "timeout", "message": "Task timed out after 60.0 seconds",
                "device_id": "pc", "task_id": "t1"})
        );
        assert_eq!(
            t.result["metadata"],
            json!({"device_id": "pc", "timeout": 60.0, "error_category": "timeout_error"})
        );
        let d = settle(
            "t1",
            "pc",
            Ending::Device(DeviceError::disconnected("socket closed")),
            S,
            E,
        );
        assert_eq!(d.result["result"]["error_type"], "device_disconnection");
        assert_eq!(d.result["error"], "socket closed");
        assert_eq!(d.result["metadata"]["error_category"], "connection_error");
        assert_eq!(d.result["metadata"]["disconnected"], true);
        let x = settle(
            "t1",
            "pc",
            Ending::Device(DeviceError::failed("not connected")),
            S,
            E,
        );
        assert_eq!(x.result["result"]["error_type"], "execution_error");
        assert_eq!(x.result["result"]["message"], "not connected");
        assert_eq!(x.result["metadata"]["error_category"], "general_error");
        let f = settle(
            "t1",
            "pc",
            Ending::Outcome(TaskOutcome::failed(
                json!({"failure": "session ended with an error"}),
                None,
            )),
            S,
            E,
        );
        assert!(!f.completed);
        assert_eq!(f.result["metadata"], json!({"device_id": "pc"}));
    }
}
