//! One run, start to end: check the plan, then loop — start what may
//! start, wait for an end, record it, let the planner edit, merge — until
//! every task has ended or the run is cancelled.

use crate::model::{ConstellationState, TaskConstellation, TaskStatus, now};
use crate::orchestrate::Options;
use crate::orchestrate::cancel::CancelHandle;
use crate::orchestrate::device::{DeviceError, DeviceRunner, SubTask};
use crate::orchestrate::error::OrchestrateError;
use crate::orchestrate::event::{CancelReason, Event, TaskEnded};
use crate::orchestrate::payload::{Ending, settle};
use crate::orchestrate::planner::{PlanTurn, Planner};
use crate::orchestrate::queue::Admitted;
use crate::orchestrate::report::{Finished, RunReport};
use crate::ready::schedule;
use crate::validate::{KnownDevice, validate};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::{Id, JoinError, JoinSet};
use tokio::time::Instant;
use ufo_core::Diagnostic;

/// What a job reports when its sub-task ends.
struct JobEnd {
    ending: Ending,
    end_time: String,
}

/// A sub-task waiting for its device.
struct InFlight {
    task_id: String,
    device_id: String,
    start_time: String,
}

/// The state of one run.
pub(crate) struct Run<D, P> {
    devices: Arc<D>,
    known: Vec<KnownDevice>,
    planner: P,
    options: Options,
    events: Option<UnboundedSender<Event>>,
    cancel: CancelHandle,
    c: TaskConstellation,
    jobs: JoinSet<JobEnd>,
    in_flight: HashMap<Id, InFlight>,
    admitted: Admitted,
    started: Instant,
}

impl<D: DeviceRunner, P: Planner> Run<D, P> {
    pub(crate) fn new(
        devices: D,
        planner: P,
        options: Options,
        events: Option<UnboundedSender<Event>>,
        cancel: CancelHandle,
        c: TaskConstellation,
    ) -> Self {
        Self {
            known: devices.devices(),
            devices: Arc::new(devices),
            planner,
            options,
            events,
            cancel,
            c,
            jobs: JoinSet::new(),
            in_flight: HashMap::new(),
            admitted: Admitted::default(),
            started: Instant::now(),
        }
    }

    pub(crate) async fn run(mut self) -> Result<Finished, OrchestrateError> {
        self.prepare()?;
        loop {
            if self.cancel.is_cancelled() {
                return Ok(self.cancelled().await);
            }
            self.dispatch();
            if self.in_flight.is_empty() {
                self.give_up_blocked();
                return Ok(self.finish());
            }
            let joined = tokio::select! {
                biased;
                () = self.cancel.cancelled() => None,
                joined = self.jobs.join_next_with_id() => joined,
            };
            let Some(joined) = joined else {
                return Ok(self.cancelled().await);
            };
            let mut ended: Vec<String> = self.settle(joined).into_iter().collect();
            ended.extend(self.settle_finished());
            if !self.consult(ended).await {
                return Ok(self.cancelled().await);
            }
        }
    }

    /// Checks the plan and announces the start.
    fn prepare(&mut self) -> Result<(), OrchestrateError> {
        validate(&self.c).map_err(OrchestrateError::Invalid)?;
        OrchestrateError::check_devices(&self.c, &self.known)?;
        let running: Vec<String> = self
            .c
            .tasks()
            .iter()
            .filter(|t| t.status == TaskStatus::Running)
            .map(|t| t.task_id.clone())
            .collect();
        if !running.is_empty() {
            return Err(OrchestrateError::AlreadyRunning { task_ids: running });
        }
        self.started = Instant::now();
        let device_assignments = self
            .c
            .modifiable_tasks()
            .filter_map(|t| Some((t.task_id.clone(), t.device()?.to_owned())))
            .collect();
        self.emit(Event::ConstellationStarted {
            constellation_id: self.c.id().to_owned(),
            total_tasks: self.c.tasks().len(),
            device_assignments,
            constellation: self.snapshot(),
        });
        Ok(())
    }

    /// Starts every admitted task whose device is free, within the limit.
    fn dispatch(&mut self) {
        let ready = schedule(&self.c, self.options.gating);
        self.admitted.admit(&ready.ready_ids());
        let busy: HashSet<String> = self
            .in_flight
            .values()
            .map(|f| f.device_id.clone())
            .collect();
        let room = self
            .options
            .max_in_flight
            .map_or(usize::MAX, |n| n.saturating_sub(self.in_flight.len()));
        for (task_id, device_id) in self.admitted.pick(&self.c, &busy, room) {
            self.start(task_id, device_id);
        }
    }

    /// Marks the task running, spawns its job and announces it.
    fn start(&mut self, task_id: String, device_id: String) {
        let Some(task) = self.c.task(&task_id) else {
            return;
        };
        let timeout = self.options.timeout_of(task.timeout);
        let sub = SubTask {
            constellation_id: self.c.id().to_owned(),
            task_id: task_id.clone(),
            device_id: device_id.clone(),
            request: task.request_text(),
            timeout,
        };
        if self.c.start_task(&task_id).is_err() {
            return;
        }
        let devices = Arc::clone(&self.devices);
        let handle = self.jobs.spawn(async move {
            let ending = match tokio::time::timeout(timeout, devices.run(sub)).await {
                Ok(Ok(outcome)) => Ending::Outcome(outcome),
                Ok(Err(e)) => Ending::Device(e),
                Err(_) => Ending::TimedOut(timeout.as_secs_f64()),
            };
            JobEnd {
                ending,
                end_time: now(),
            }
        });
        let start_time = self
            .c
            .task(&task_id)
            .and_then(|t| t.execution_start_time.clone())
            .unwrap_or_else(now);
        self.in_flight.insert(
            handle.id(),
            InFlight {
                task_id: task_id.clone(),
                device_id: device_id.clone(),
                start_time,
            },
        );
        self.emit(Event::TaskStarted {
            constellation_id: self.c.id().to_owned(),
            task_id,
            device_id,
        });
    }

    /// Records the end of the job that joined; the task's id if it was
    /// one of ours.
    fn settle(&mut self, joined: Result<(Id, JobEnd), JoinError>) -> Option<String> {
        let (id, job) = match joined {
            Ok((id, job)) => (id, job),
            Err(e) => {
                let message = if e.is_panic() {
                    "the device runner panicked"
                } else {
                    "the device runner was stopped"
                };
                let job = JobEnd {
                    ending: Ending::Device(DeviceError::failed(message)),
                    end_time: now(),
                };
                (e.id(), job)
            }
        };
        let flight = self.in_flight.remove(&id)?;
        let s = settle(
            &flight.task_id,
            &flight.device_id,
            job.ending,
            &flight.start_time,
            &job.end_time,
        );
        let recorded = if s.completed {
            self.c.complete_task(&flight.task_id, s.result.clone())
        } else {
            self.c
                .fail_task(&flight.task_id, s.result.clone(), s.error.clone())
        };
        recorded.ok()?;
        let status = if s.completed {
            TaskStatus::Completed
        } else {
            TaskStatus::Failed
        };
        let ended = TaskEnded {
            constellation_id: self.c.id().to_owned(),
            newly_ready_tasks: self.newly_ready(&flight.task_id),
            task_id: flight.task_id.clone(),
            device_id: flight.device_id,
            status,
            result: s.result,
            error: s.error,
            constellation: self.snapshot(),
        };
        self.emit(if s.completed {
            Event::TaskCompleted(ended)
        } else {
            Event::TaskFailed(ended)
        });
        Some(flight.task_id)
    }

    /// Records every job that has already ended, without waiting.
    fn settle_finished(&mut self) -> Vec<String> {
        let mut ended = Vec::new();
        while let Some(joined) = self.jobs.try_join_next_with_id() {
            ended.extend(self.settle(joined));
        }
        ended
    }

    /// The dependants of `task_id` that are ready now.
    fn newly_ready(&self, task_id: &str) -> Vec<String> {
        let ready = schedule(&self.c, self.options.gating);
        let dependants: Vec<&str> = self
            .c
            .outgoing(task_id)
            .map(|l| l.to_task_id.as_str())
            .collect();
        ready
            .ready
            .into_iter()
            .map(|r| r.task_id)
            .filter(|id| dependants.contains(&id.as_str()))
            .collect()
    }

    /// Asks the planner for its edit and merges it; `false` when the run
    /// was cancelled meanwhile.
    async fn consult(&mut self, ended: Vec<String>) -> bool {
        if ended.is_empty() {
            return true;
        }
        let turn = PlanTurn {
            ended_task_ids: ended.clone(),
            constellation: self.snapshot(),
        };
        let wait = self.options.planner_timeout;
        let reply = tokio::select! {
            biased;
            () = self.cancel.cancelled() => return false,
            reply = within(wait, self.planner.replan(turn)) => reply,
        };
        if let Some(edited) = reply {
            self.accept(edited, ended);
        }
        true
    }

    /// Merges the planner's constellation with the run state and takes it,
    /// or refuses it and keeps the plan.
    fn accept(&mut self, mut edited: TaskConstellation, on_task_ids: Vec<String>) {
        edited.merge_run_state(&self.c);
        edited.refresh_state();
        if let Err(error) = self.admissible(&edited) {
            self.emit(Event::PlanRefused {
                constellation_id: self.c.id().to_owned(),
                on_task_ids,
                error: error.report(),
            });
            return;
        }
        let old_constellation = self.snapshot();
        self.c = edited;
        self.emit(Event::ConstellationModified {
            constellation_id: self.c.id().to_owned(),
            on_task_ids,
            old_constellation,
            new_constellation: self.snapshot(),
        });
    }

    /// Whether an edited (and merged) constellation can replace the plan.
    fn admissible(&self, edited: &TaskConstellation) -> Result<(), OrchestrateError> {
        let in_flight: Vec<&str> = self
            .in_flight
            .values()
            .map(|f| f.task_id.as_str())
            .collect();
        let removed: Vec<String> = in_flight
            .iter()
            .filter(|id| edited.task(id).is_none())
            .map(|id| (*id).to_owned())
            .collect();
        let not_started: Vec<String> = edited
            .tasks()
            .iter()
            .filter(|t| t.status == TaskStatus::Running)
            .filter(|t| !in_flight.contains(&t.task_id.as_str()))
            .map(|t| t.task_id.clone())
            .collect();
        if !removed.is_empty() || !not_started.is_empty() {
            return Err(OrchestrateError::RunningConflict {
                removed,
                not_started,
            });
        }
        validate(edited).map_err(OrchestrateError::Invalid)?;
        OrchestrateError::check_devices(edited, &self.known)
    }

    /// Nothing runs and nothing can start: cancels the tasks left (blocked
    /// by a failed `success_only` prerequisite under type-aware gating).
    fn give_up_blocked(&mut self) {
        let left: Vec<String> = self
            .c
            .tasks()
            .iter()
            .filter(|t| !t.status.is_terminal())
            .map(|t| t.task_id.clone())
            .collect();
        for task_id in left {
            self.cancel_task(task_id, CancelReason::Blocked);
        }
    }

    fn cancel_task(&mut self, task_id: String, reason: CancelReason) {
        if self.c.cancel_task(&task_id).is_ok() {
            self.emit(Event::TaskCancelled {
                constellation_id: self.c.id().to_owned(),
                task_id,
                reason,
            });
        }
    }

    /// Stops the run: records what already ended, aborts the rest and
    /// cancels every task not ended.
    async fn cancelled(mut self) -> Finished {
        self.settle_finished();
        self.jobs.shutdown().await;
        self.in_flight.clear();
        // In task order: the aborted ones (running) and the ones not started.
        let left: Vec<String> = self
            .c
            .tasks()
            .iter()
            .filter(|t| !t.status.is_terminal())
            .map(|t| t.task_id.clone())
            .collect();
        for task_id in left {
            self.cancel_task(task_id, CancelReason::RunCancelled);
        }
        self.c.refresh_state();
        self.c.state = ConstellationState::Cancelled;
        self.finish_with_state()
    }

    /// Every task has ended: derives the state and announces the end.
    fn finish(mut self) -> Finished {
        self.c.refresh_state();
        self.finish_with_state()
    }

    fn finish_with_state(self) -> Finished {
        let report = RunReport::new(&self.c, self.started.elapsed());
        self.emit(Event::ConstellationCompleted {
            report: report.clone(),
            constellation: self.snapshot(),
        });
        Finished {
            constellation: self.c,
            report,
        }
    }

    fn snapshot(&self) -> Arc<TaskConstellation> {
        Arc::new(self.c.clone())
    }

    fn emit(&self, event: Event) {
        if let Some(tx) = &self.events {
            // A listener that went away does not stop the run.
            let _ = tx.send(event);
        }
    }
}

/// `f`'s answer, or `None` when `wait` passes first (UFO's auto-release
/// of a pending modification).
async fn within<T>(wait: Option<Duration>, f: impl Future<Output = Option<T>>) -> Option<T> {
    match wait {
        Some(w) => tokio::time::timeout(w, f).await.ok().flatten(),
        None => f.await,
    }
}
