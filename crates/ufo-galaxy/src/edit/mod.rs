//! Editing a constellation the way UFO's ConstellationAgent does, one
//! batch of commands per model reply, each command checked.
//!
//! [`Editor`] owns the constellation. [`Editor::apply`] (typed commands)
//! and [`Editor::apply_actions`] (the model's `action` list) run a batch in
//! order and stop at the first command refused: the commands before it
//! stay applied, the ones after are skipped, and the [`BatchError`] says
//! which command failed, why, and what was skipped (UFO's early exit, its
//! `Failed to <verb> <noun>: …` prefix and its skip text). A command is
//! refused when:
//! * its arguments do not fit ([`EditError::BadArguments`]) or the function
//!   is unknown;
//! * an id it names is missing, or an id it adds is taken;
//! * it changes a task that has started, or a dependency into one
//!   ([`EditError::Started`]): only tasks not started (`pending`,
//!   `waiting_dependency`) may change. UFO's code protects only running
//!   tasks and leaves finished ones to the prompt;
//! * it would make the constellation invalid ([`crate::validate`]: a cycle,
//!   a dangling end, and — when the editor knows the devices — a task on an
//!   unknown device). Only problems the command *adds* count, so a plan
//!   read with a problem can still be repaired one command at a time;
//!   `build_constellation` replacing the plan must give a wholly valid one.
//!
//! Each batch that changed anything leaves a snapshot; [`Editor::undo`]
//! restores the constellation as it was before the last one, keeping the
//! run state (statuses, results, times) the tasks reached since, and
//! refuses when the batch changed a task that has started since.

mod apply;
pub mod command;
pub mod error;

pub use command::{
    Action, AddDependency, AddTask, BuildConstellation, EditCommand, RemoveDependency, RemoveTask,
    UpdateDependency, UpdateTask,
};
pub use error::{BatchError, EditError, FUNCTIONS, ItemKind, Outcome, OutcomeStatus, SKIPPED};

use crate::model::TaskConstellation;
use crate::validate::{Invalid, KnownDevice, problems};

/// How many batches [`Editor::undo`] can go back.
pub const HISTORY: usize = 32;

/// The constellation before one batch.
#[derive(Debug, Clone)]
struct Snapshot {
    before: TaskConstellation,
}

/// A batch that was applied in full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// Each command's outcome (all `success`).
    pub outcomes: Vec<Outcome>,
}

/// Owns a constellation and changes its structure through checked,
/// undoable batches of edit commands. Run-state transitions (start,
/// complete, fail, cancel) go through [`Editor::constellation_mut`].
#[derive(Debug, Clone)]
pub struct Editor {
    current: TaskConstellation,
    devices: Option<Vec<KnownDevice>>,
    history: Vec<Snapshot>,
}

impl Editor {
    /// An editor of `constellation`, checking structure only.
    pub fn new(constellation: TaskConstellation) -> Self {
        Self {
            current: constellation,
            devices: None,
            history: Vec::new(),
        }
    }

    /// Also checks that tasks still to run are on one of `devices`.
    pub fn with_devices(mut self, devices: Vec<KnownDevice>) -> Self {
        self.devices = Some(devices);
        self
    }

    /// Changes the devices checked against (`None`: structure only).
    pub fn set_devices(&mut self, devices: Option<Vec<KnownDevice>>) {
        self.devices = devices;
    }

    /// The constellation.
    pub fn constellation(&self) -> &TaskConstellation {
        &self.current
    }

    /// The constellation, for run-state transitions (its structure cannot
    /// be changed from outside this crate but by edits).
    pub fn constellation_mut(&mut self) -> &mut TaskConstellation {
        &mut self.current
    }

    /// The constellation, the editor done with.
    pub fn into_constellation(self) -> TaskConstellation {
        self.current
    }

    /// How many batches can be undone.
    pub fn undoable(&self) -> usize {
        self.history.len()
    }

    /// Every problem of the constellation now, devices included when the
    /// editor knows them.
    pub fn problems(&self) -> Vec<crate::validate::ValidationError> {
        problems(&self.current, self.devices.as_deref())
    }

    /// Applies `commands` in order, stopping at the first refused (see the
    /// module docs).
    pub fn apply(&mut self, commands: &[EditCommand]) -> Result<Applied, BatchError> {
        let items: Vec<(String, Result<EditCommand, EditError>)> = commands
            .iter()
            .map(|c| (c.function().to_owned(), Ok(c.clone())))
            .collect();
        self.run(items)
    }

    /// Reads and applies the model's actions in order; an action that
    /// cannot be read fails the batch there. Actions with an empty
    /// `function` are dropped first, as UFO drops them.
    pub fn apply_actions(&mut self, actions: &[Action]) -> Result<Applied, BatchError> {
        let items = actions
            .iter()
            .filter(|a| !a.function.trim().is_empty())
            .map(|a| (a.function.trim().to_owned(), EditCommand::from_action(a)))
            .collect();
        self.run(items)
    }

    fn run(
        &mut self,
        items: Vec<(String, Result<EditCommand, EditError>)>,
    ) -> Result<Applied, BatchError> {
        let before = self.current.clone();
        let mut outcomes: Vec<Outcome> = Vec::with_capacity(items.len());
        let mut failure = None;
        for (i, (function, cmd)) in items.into_iter().enumerate() {
            if failure.is_some() {
                outcomes.push(outcome(
                    function,
                    OutcomeStatus::Skipped,
                    Some(SKIPPED.into()),
                ));
                continue;
            }
            match cmd.and_then(|c| self.step(&c)) {
                Ok(()) => outcomes.push(outcome(function, OutcomeStatus::Success, None)),
                Err(e) => {
                    outcomes.push(outcome(
                        function.clone(),
                        OutcomeStatus::Failure,
                        Some(e.to_string()),
                    ));
                    failure = Some((i, function, e));
                }
            }
        }
        let applied = failure.as_ref().map_or(outcomes.len(), |(i, _, _)| *i);
        if applied > 0 {
            self.history.push(Snapshot { before });
            if self.history.len() > HISTORY {
                self.history.remove(0);
            }
        }
        match failure {
            None => Ok(Applied { outcomes }),
            Some((index, function, error)) => Err(BatchError {
                index,
                function,
                error,
                outcomes,
            }),
        }
    }

    /// One command: applied to a copy, checked, then kept.
    fn step(&mut self, cmd: &EditCommand) -> Result<(), EditError> {
        let devices = self.devices.as_deref();
        let mut next = self.current.clone();
        apply::apply(&mut next, cmd)?;
        let mut found = problems(&next, devices);
        let fresh = matches!(cmd, EditCommand::BuildConstellation(b) if b.clear_existing);
        if !fresh {
            let had = problems(&self.current, devices);
            found.retain(|p| !had.contains(p));
        }
        if !found.is_empty() {
            return Err(EditError::Invalid(Invalid { errors: found }));
        }
        next.touch();
        next.refresh_state();
        self.current = next;
        Ok(())
    }

    /// Restores the constellation as it was before the last batch that
    /// changed it, with the run state its tasks reached since. Refused when
    /// that batch added or changed a task (or a dependency into it) that
    /// has started since.
    pub fn undo(&mut self) -> Result<(), EditError> {
        let snap = self.history.last().ok_or(EditError::NothingToUndo)?;
        let conflicts = changed_tasks(&snap.before, &self.current)
            .into_iter()
            .filter(|id| {
                self.current
                    .task(id)
                    .is_some_and(|t| !t.status.is_not_started())
            })
            .collect::<Vec<_>>();
        if !conflicts.is_empty() {
            return Err(EditError::UndoConflict {
                task_ids: conflicts,
            });
        }
        let mut restored = snap.before.clone();
        for t in restored.tasks.iter_mut() {
            if let Some(now) = self.current.task(&t.task_id) {
                t.take_run_state(now);
            }
        }
        restored.execution_start_time = self.current.execution_start_time.clone();
        restored.execution_end_time = self.current.execution_end_time.clone();
        restored.execution_duration = self.current.execution_duration;
        restored.touch();
        restored.refresh_state();
        self.current = restored;
        self.history.pop();
        Ok(())
    }
}

fn outcome(function: String, status: OutcomeStatus, error: Option<String>) -> Outcome {
    Outcome {
        function,
        status,
        error,
    }
}

/// The tasks whose definition or incoming dependencies differ between `a`
/// and `b`, or that only one of them has, in `a`'s then `b`'s order.
fn changed_tasks(a: &TaskConstellation, b: &TaskConstellation) -> Vec<String> {
    let same_lines = |id: &str| {
        let x: Vec<_> = a.incoming(id).collect();
        let y: Vec<_> = b.incoming(id).collect();
        x.len() == y.len() && x.iter().all(|l| y.iter().any(|m| l.same_definition(m)))
    };
    let mut out: Vec<String> = Vec::new();
    for t in a.tasks().iter().chain(b.tasks()) {
        let id = t.task_id.as_str();
        let same = match (a.task(id), b.task(id)) {
            (Some(x), Some(y)) => x.same_definition(y) && same_lines(id),
            _ => false,
        };
        if !same && !out.iter().any(|o| o == id) {
            out.push(id.to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests;
