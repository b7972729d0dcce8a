//! A constellation's run state: each task's transitions (start, complete,
//! fail, cancel) and the constellation's state derived from its tasks'.
//!
//! The orchestrator drives these; which task may start is
//! [`crate::ready`]'s question, not checked here (UFO's `start_execution`
//! checks a dependency set that is always empty). Every transition stamps
//! the task's times and derives the constellation's state again.
//!
//! [`derive_state`] follows UFO's `update_state` with two changes: a
//! constellation whose tasks were all cancelled is `cancelled` (UFO says
//! `completed`), and one with any task started or ended is `executing`
//! (UFO counts only running and completed tasks, so a failed first task
//! leaves it `ready`).

use crate::model::clock;
use crate::model::constellation::TaskConstellation;
use crate::model::enums::{ConstellationState, TaskStatus};
use crate::model::error::ModelError;
use crate::model::task::TaskStar;
use serde_json::Value;

/// The state of a constellation whose tasks have these statuses:
///
/// * no tasks → `created`;
/// * all ended: some failed and some completed → `partially_failed`; some
///   failed, none completed → `failed`; some completed → `completed`; all
///   cancelled → `cancelled`;
/// * any started or ended → `executing`;
/// * otherwise → `ready`.
pub fn derive_state(statuses: impl IntoIterator<Item = TaskStatus>) -> ConstellationState {
    let (mut total, mut ended, mut started, mut completed, mut failed) = (0, 0, 0, 0, 0);
    for s in statuses {
        total += 1;
        ended += usize::from(s.is_terminal());
        started += usize::from(!s.is_not_started());
        completed += usize::from(s == TaskStatus::Completed);
        failed += usize::from(s == TaskStatus::Failed);
    }
    let all_ended = ended == total;
    if total == 0 {
        ConstellationState::Created
    } else if all_ended && failed > 0 && completed > 0 {
        ConstellationState::PartiallyFailed
    } else if all_ended && failed > 0 {
        ConstellationState::Failed
    } else if all_ended && completed > 0 {
        ConstellationState::Completed
    } else if all_ended {
        ConstellationState::Cancelled
    } else if started > 0 {
        ConstellationState::Executing
    } else {
        ConstellationState::Ready
    }
}

impl TaskConstellation {
    /// Derives the state from the tasks' statuses ([`derive_state`]) and
    /// stamps the execution's start and end: its start when a task first
    /// started, its end and duration once every task has ended (cleared
    /// again if tasks are added afterwards).
    pub fn refresh_state(&mut self) -> ConstellationState {
        self.state = derive_state(self.tasks.iter().map(|t| t.status));
        if self.execution_start_time.is_none() {
            self.execution_start_time = self
                .tasks
                .iter()
                .filter_map(|t| t.execution_start_time.clone())
                .min();
        }
        if self.all_ended() && !self.tasks.is_empty() && self.execution_end_time.is_none() {
            let end = clock::now();
            self.execution_duration = self
                .execution_start_time
                .as_deref()
                .and_then(|s| clock::seconds_between(s, &end));
            self.execution_end_time = Some(end);
        } else if !self.all_ended() {
            // Tasks added after the end: the execution goes on.
            self.execution_end_time = None;
            self.execution_duration = None;
        }
        self.state
    }

    /// `pending`/`waiting_dependency` → `running`: the task was sent to its
    /// device.
    pub fn start_task(&mut self, task_id: &str) -> Result<(), ModelError> {
        self.transition(task_id, TaskStatus::Running, |t| {
            t.execution_start_time = Some(t.updated_at.clone());
        })
    }

    /// `running` → `completed` with its `result` (UFO stores the whole
    /// `ExecutionResult`).
    pub fn complete_task(&mut self, task_id: &str, result: Value) -> Result<(), ModelError> {
        self.transition(task_id, TaskStatus::Completed, |t| {
            t.result = result;
            end(t);
        })
    }

    /// `running` → `failed` with its `result` and, unlike UFO (which keeps
    /// it `null`), the failure text in `error` when there is one.
    pub fn fail_task(
        &mut self,
        task_id: &str,
        result: Value,
        error: Option<String>,
    ) -> Result<(), ModelError> {
        self.transition(task_id, TaskStatus::Failed, |t| {
            t.result = result;
            t.error = error;
            end(t);
        })
    }

    /// Any status not ended → `cancelled` (a blocked task the plan gave up
    /// on, or the whole run stopped).
    pub fn cancel_task(&mut self, task_id: &str) -> Result<(), ModelError> {
        self.transition(task_id, TaskStatus::Cancelled, |t| {
            if t.execution_start_time.is_some() {
                end(t);
            }
        })
    }

    /// UFO's merge of run state into an edited copy
    /// (`merge_and_sync_constellation_states`): for each task in both, when
    /// `other`'s status is further along (pending < waiting_dependency <
    /// running < ended), its status, result, error and times are copied
    /// here; then the state is derived again. Returns how many tasks were
    /// updated. With one owner of the constellation (an
    /// [`crate::edit::Editor`]) it is not needed; it is here for copies.
    pub fn merge_run_state(&mut self, other: &TaskConstellation) -> usize {
        fn level(s: TaskStatus) -> u8 {
            match s {
                TaskStatus::Pending => 0,
                TaskStatus::WaitingDependency => 1,
                TaskStatus::Running => 2,
                TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled => 3,
            }
        }
        let mut merged = 0;
        for t in &mut self.tasks {
            if let Some(o) = other.task(&t.task_id)
                && level(o.status) > level(t.status)
            {
                t.take_run_state(o);
                merged += 1;
            }
        }
        if merged > 0 {
            self.refresh_state();
        }
        merged
    }

    fn transition(
        &mut self,
        task_id: &str,
        to: TaskStatus,
        then: impl FnOnce(&mut TaskStar),
    ) -> Result<(), ModelError> {
        let task = self
            .task_mut(task_id)
            .ok_or_else(|| ModelError::NoSuchTask {
                task_id: task_id.to_owned(),
            })?;
        let allowed = match to {
            TaskStatus::Running => task.status.is_not_started(),
            TaskStatus::Completed | TaskStatus::Failed => task.status == TaskStatus::Running,
            _ => !task.status.is_terminal(),
        };
        if !allowed {
            return Err(ModelError::Transition {
                task_id: task_id.to_owned(),
                from: task.status,
                to,
            });
        }
        task.status = to;
        task.updated_at = clock::now();
        then(task);
        self.touch();
        self.refresh_state();
        Ok(())
    }
}

/// Stamps a task's end time and duration.
fn end(t: &mut TaskStar) {
    t.execution_end_time = Some(t.updated_at.clone());
    t.execution_duration = t
        .execution_start_time
        .as_deref()
        .and_then(|s| clock::seconds_between(s, &t.updated_at));
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConstellationState as S;
    use TaskStatus::*;
    use serde_json::json;

    #[test]
    fn the_state_follows_the_statuses() {
        assert_eq!(derive_state([]), S::Created);
        assert_eq!(derive_state([Pending, WaitingDependency]), S::Ready);
        assert_eq!(derive_state([Completed, Pending]), S::Executing);
        assert_eq!(derive_state([Failed, Pending]), S::Executing);
        assert_eq!(derive_state([Completed, Completed]), S::Completed);
        assert_eq!(derive_state([Completed, Cancelled]), S::Completed);
        assert_eq!(
            derive_state([Completed, Failed, Cancelled]),
            S::PartiallyFailed
        );
        assert_eq!(derive_state([Failed, Cancelled]), S::Failed);
        assert_eq!(derive_state([Cancelled, Cancelled]), S::Cancelled);
    }

    fn two_tasks() -> TaskConstellation {
        TaskConstellation::from_value(&json!({"constellation_id": "c", "tasks": [
            {"task_id": "a", "description": "x"}, {"task_id": "b", "description": "y"}]}))
        .unwrap()
    }

    #[test]
    fn transitions_stamp_times_and_the_state() {
        let mut c = two_tasks();
        c.start_task("a").unwrap();
        assert_eq!(c.state(), S::Executing);
        assert!(c.task("a").unwrap().execution_start_time.is_some());
        assert!(c.execution().0.is_some());
        c.complete_task("a", json!({"status": "completed"}))
            .unwrap();
        let a = c.task("a").unwrap();
        assert_eq!(a.result["status"], "completed");
        assert!(a.execution_duration.unwrap() >= 0.0);
        c.start_task("b").unwrap();
        c.fail_task(
            "b",
            json!({"error_type": "timeout"}),
            Some("timed out".into()),
        )
        .unwrap();
        assert_eq!(c.state(), S::PartiallyFailed);
        assert_eq!(c.task("b").unwrap().error.as_deref(), Some("timed out"));
        assert!(c.execution().1.is_some());
    }

    #[test]
    fn a_copy_takes_the_run_state_that_is_further_along() {
        let mut ahead = two_tasks();
        ahead.start_task("a").unwrap();
        ahead.complete_task("a", json!("done")).unwrap();
        let mut edited = two_tasks();
        edited.start_task("b").unwrap();
        assert_eq!(edited.merge_run_state(&ahead), 1);
        assert_eq!(edited.task("a").unwrap().result, json!("done"));
        assert_eq!(
            edited.task("b").unwrap().status,
            Running,
            "b is further along here"
        );
        assert_eq!(edited.merge_run_state(&ahead), 0);
    }

    #[test]
    fn impossible_transitions_are_refused() {
        let mut c = two_tasks();
        let e = c.complete_task("a", json!(null)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "task \"a\" is pending: it cannot become completed"
        );
        c.start_task("a").unwrap();
        assert!(c.start_task("a").is_err());
        c.cancel_task("a").unwrap();
        assert!(c.cancel_task("a").is_err(), "an ended task stays ended");
        let e = c.start_task("zz").unwrap_err();
        assert_eq!(
            e,
            ModelError::NoSuchTask {
                task_id: "zz".into()
            }
        );
        c.cancel_task("b").unwrap();
        assert_eq!(c.state(), S::Cancelled);
    }
}
