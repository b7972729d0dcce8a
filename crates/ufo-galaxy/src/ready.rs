//! Which tasks may start now: the ready set, per dependency type, and the
//! tasks that cannot start until the plan changes.
//!
//! A task is considered when it has not started (`pending` or
//! `waiting_dependency`). Each of its incoming dependencies is, under the
//! default [`Gating::ByType`]:
//!
//! | type | released when the prerequisite | if it failed or was cancelled |
//! |---|---|---|
//! | `unconditional` | ended, however | released |
//! | `completion_only` | ended, however | released |
//! | `success_only` | completed | the task is **blocked** |
//! | `conditional` | ended, however | released; the condition goes to the agent |
//!
//! A task is ready when every incoming dependency is released; ready tasks
//! come highest priority first, ties in task order. A `conditional`
//! dependency cannot be judged by code: its condition text, with the
//! prerequisite's outcome, is carried in [`ReadyTask::conditions`] for the
//! agent, whose edit after each completion can remove the task when the
//! condition does not hold.
//!
//! **Blocked, not failed.** A task whose `success_only` prerequisite failed
//! or was cancelled stays `pending` and is listed in [`Schedule::blocked`]
//! with the reason; so is every task waiting on a blocked one, and a task
//! whose prerequisite does not exist. It is not marked failed because a
//! pending task is still editable: the agent's next edit can rescue it
//! (remove the dependency, point it at a remediation task) or remove it,
//! while a failed task could no longer change. Nothing starts it
//! meanwhile. When nothing is ready or running and only blocked or waiting
//! tasks are left, [`Schedule::is_stalled`] says so, and the orchestrator
//! cancels them ([`TaskConstellation::cancel_task`]) if the agent does not
//! change the plan; the constellation then ends `partially_failed` or
//! `failed` ([`crate::model::derive_state`]).
//!
//! **How this differs from UFO.** UFO's docstrings give the types this
//! meaning (its `evaluate_condition` releases `success_only` and
//! `conditional` only on success), but its orchestrator never applies it:
//! a task is ready once every prerequisite has *ended*, whatever the type,
//! because the per-task dependency sets are empty after any JSON round
//! trip and `is_satisfied` is tested as a method object (always true).
//! A failed task never blocks its dependants there; the agent re-planning
//! after each completion is the only guard. [`Gating::AnyEnd`] is that
//! effective rule, for runs that must behave as UFO does; `conditional`
//! differs from UFO's docstring on purpose (the agent, not `result is not
//! None`, judges a condition).

use crate::model::{DependencyType, TaskConstellation, TaskPriority, TaskStatus};

/// How dependencies release the tasks that wait on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Gating {
    /// Each type's meaning (the table in the module docs).
    #[default]
    ByType,
    /// UFO's effective rule: every prerequisite ended, whatever the type.
    AnyEnd,
}

/// A `conditional` dependency of a ready task, for the agent to judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    /// The dependency.
    pub line_id: String,
    /// Its prerequisite.
    pub from_task_id: String,
    /// Its `condition_description`.
    pub condition: String,
    /// How the prerequisite ended.
    pub outcome: TaskStatus,
}

/// A task that may start now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadyTask {
    /// The task.
    pub task_id: String,
    /// Its priority (the ready set is sorted by it).
    pub priority: TaskPriority,
    /// Its `conditional` dependencies, released but for the agent to judge.
    pub conditions: Vec<Condition>,
}

/// Why a task cannot start until the plan changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockReason {
    /// A `success_only` prerequisite failed or was cancelled.
    PrerequisiteFailed {
        /// The dependency.
        line_id: String,
        /// The prerequisite.
        from_task_id: String,
        /// How it ended.
        outcome: TaskStatus,
    },
    /// The dependency names a task that does not exist.
    MissingPrerequisite {
        /// The dependency.
        line_id: String,
        /// The id it names.
        from_task_id: String,
    },
    /// It waits on a task that is itself blocked.
    PrerequisiteBlocked {
        /// The dependency.
        line_id: String,
        /// The blocked prerequisite.
        from_task_id: String,
    },
}

/// A task that cannot start until the plan changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedTask {
    /// The task.
    pub task_id: String,
    /// Every reason, in dependency order.
    pub reasons: Vec<BlockReason>,
}

/// Every task that has not ended, sorted by what it waits for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Schedule {
    /// May start now, highest priority first (ties in task order).
    pub ready: Vec<ReadyTask>,
    /// Cannot start until the plan changes.
    pub blocked: Vec<BlockedTask>,
    /// Waits for prerequisites still pending or running, in task order.
    pub waiting: Vec<String>,
    /// Running, in task order.
    pub running: Vec<String>,
}

impl Schedule {
    /// The ids of the ready tasks, in start order.
    pub fn ready_ids(&self) -> Vec<&str> {
        self.ready.iter().map(|r| r.task_id.as_str()).collect()
    }

    /// Whether task `task_id` is blocked.
    pub fn is_blocked(&self, task_id: &str) -> bool {
        self.blocked.iter().any(|b| b.task_id == task_id)
    }

    /// Nothing is ready or running, yet tasks are left: without an edit
    /// the run cannot go on.
    pub fn is_stalled(&self) -> bool {
        self.ready.is_empty()
            && self.running.is_empty()
            && (!self.blocked.is_empty() || !self.waiting.is_empty())
    }
}

/// The (dependency, prerequisite) pairs a task still waits on.
type Waits = Vec<(String, String)>;

/// What one task's incoming dependencies say.
#[derive(Default)]
struct Verdict {
    blocks: Vec<BlockReason>,
    waits: Waits,
    conditions: Vec<Condition>,
}

fn judge(c: &TaskConstellation, task_id: &str, gating: Gating) -> Verdict {
    let mut v = Verdict::default();
    for l in c.incoming(task_id) {
        let Some(from) = c.task(&l.from_task_id) else {
            v.blocks.push(BlockReason::MissingPrerequisite {
                line_id: l.line_id.clone(),
                from_task_id: l.from_task_id.clone(),
            });
            continue;
        };
        if !from.status.is_terminal() {
            v.waits.push((l.line_id.clone(), l.from_task_id.clone()));
            continue;
        }
        let needs_success =
            gating == Gating::ByType && l.dependency_type == DependencyType::SuccessOnly;
        if needs_success && from.status != TaskStatus::Completed {
            v.blocks.push(BlockReason::PrerequisiteFailed {
                line_id: l.line_id.clone(),
                from_task_id: l.from_task_id.clone(),
                outcome: from.status,
            });
        }
        if l.dependency_type == DependencyType::Conditional {
            v.conditions.push(Condition {
                line_id: l.line_id.clone(),
                from_task_id: l.from_task_id.clone(),
                condition: l.condition_description.clone(),
                outcome: from.status,
            });
        }
    }
    v
}

/// Sorts every task of `c` that has not ended: ready, blocked, waiting or
/// running.
pub fn schedule(c: &TaskConstellation, gating: Gating) -> Schedule {
    let mut s = Schedule::default();
    let mut waiting: Vec<(String, Waits)> = Vec::new();
    for t in c.tasks() {
        if t.status == TaskStatus::Running {
            s.running.push(t.task_id.clone());
        }
        if !t.status.is_not_started() {
            continue;
        }
        let v = judge(c, &t.task_id, gating);
        if !v.blocks.is_empty() {
            s.blocked.push(BlockedTask {
                task_id: t.task_id.clone(),
                reasons: v.blocks,
            });
        } else if !v.waits.is_empty() {
            waiting.push((t.task_id.clone(), v.waits));
        } else {
            s.ready.push(ReadyTask {
                task_id: t.task_id.clone(),
                priority: t.priority,
                conditions: v.conditions,
            });
        }
    }
    s.ready.sort_by_key(|r| std::cmp::Reverse(r.priority));
    spread_blocks(&mut s.blocked, &mut waiting);
    s.waiting = waiting.into_iter().map(|(id, _)| id).collect();
    s
}

/// Moves every waiting task that waits on a blocked one to the blocked
/// list, until none is left to move.
fn spread_blocks(blocked: &mut Vec<BlockedTask>, waiting: &mut Vec<(String, Waits)>) {
    loop {
        let before = blocked.len();
        let mut still = Vec::new();
        for (task_id, waits) in waiting.drain(..) {
            let reasons: Vec<BlockReason> = waits
                .iter()
                .filter(|(_, from)| blocked.iter().any(|b| &b.task_id == from))
                .map(|(line, from)| BlockReason::PrerequisiteBlocked {
                    line_id: line.clone(),
                    from_task_id: from.clone(),
                })
                .collect();
            if reasons.is_empty() {
                still.push((task_id, waits));
            } else {
                blocked.push(BlockedTask { task_id, reasons });
            }
        }
        *waiting = still;
        if blocked.len() == before {
            return;
        }
    }
}

/// The tasks that may start now ([`schedule`]'s `ready`).
pub fn ready_tasks(c: &TaskConstellation, gating: Gating) -> Vec<ReadyTask> {
    schedule(c, gating).ready
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// a → b (success_only), b → c, a → d (completion_only), a → e
    /// (conditional), f alone with priority 4.
    fn plan() -> TaskConstellation {
        TaskConstellation::from_value(&json!({
            "tasks": [
                {"task_id": "a", "description": "x"}, {"task_id": "b", "description": "x"},
                {"task_id": "c", "description": "x"}, {"task_id": "d", "description": "x"},
                {"task_id": "e", "description": "x"}, {"task_id": "f", "description": "x", "priority": 4}],
            "dependencies": [
                {"line_id": "ab", "from_task_id": "a", "to_task_id": "b", "dependency_type": "success_only"},
                {"line_id": "bc", "from_task_id": "b", "to_task_id": "c"},
                {"line_id": "ad", "from_task_id": "a", "to_task_id": "d", "dependency_type": "completion_only"},
                {"line_id": "ae", "from_task_id": "a", "to_task_id": "e", "dependency_type": "conditional",
                 "condition_description": "only if a found files"}]}))
        .unwrap()
    }

    #[test]
    fn roots_are_ready_by_priority() {
        let s = schedule(&plan(), Gating::ByType);
        assert_eq!(s.ready_ids(), ["f", "a"]);
        assert_eq!(s.waiting, ["b", "c", "d", "e"]);
        assert!(!s.is_stalled());
    }

    #[test]
    fn success_releases_every_type_and_hands_conditions_over() {
        let mut c = plan();
        c.start_task("a").unwrap();
        assert_eq!(schedule(&c, Gating::ByType).running, ["a"]);
        c.complete_task("a", json!("ok")).unwrap();
        let s = schedule(&c, Gating::ByType);
        assert_eq!(s.ready_ids(), ["f", "b", "d", "e"]);
        let e = s.ready.iter().find(|r| r.task_id == "e").unwrap();
        assert_eq!(
            e.conditions,
            [Condition {
                line_id: "ae".into(),
                from_task_id: "a".into(),
                condition: "only if a found files".into(),
                outcome: TaskStatus::Completed,
            }]
        );
    }

    #[test]
    fn a_failed_success_only_prerequisite_blocks_its_dependants() {
        let mut c = plan();
        c.start_task("a").unwrap();
        c.fail_task("a", json!(null), None).unwrap();
        let s = schedule(&c, Gating::ByType);
        assert_eq!(s.ready_ids(), ["f", "d", "e"]);
        assert_eq!(
            s.blocked,
            [
                BlockedTask {
                    task_id: "b".into(),
                    reasons: vec![BlockReason::PrerequisiteFailed {
                        line_id: "ab".into(),
                        from_task_id: "a".into(),
                        outcome: TaskStatus::Failed
                    }]
                },
                BlockedTask {
                    task_id: "c".into(),
                    reasons: vec![BlockReason::PrerequisiteBlocked {
                        line_id: "bc".into(),
                        from_task_id: "b".into()
                    }]
                },
            ]
        );
        assert!(s.waiting.is_empty());
        assert_eq!(
            c.task("b").unwrap().status,
            TaskStatus::Pending,
            "blocked, not failed"
        );
    }

    #[test]
    fn ufos_effective_rule_releases_on_any_end() {
        let mut c = plan();
        c.start_task("a").unwrap();
        c.fail_task("a", json!(null), None).unwrap();
        let s = schedule(&c, Gating::AnyEnd);
        assert_eq!(s.ready_ids(), ["f", "b", "d", "e"]);
        assert!(s.blocked.is_empty());
    }

    #[test]
    fn only_blocked_tasks_left_is_a_stall() {
        let mut c = plan();
        for id in ["f", "a"] {
            c.start_task(id).unwrap();
        }
        c.complete_task("f", json!(null)).unwrap();
        c.fail_task("a", json!(null), None).unwrap();
        for id in ["d", "e"] {
            c.start_task(id).unwrap();
            c.complete_task(id, json!(null)).unwrap();
        }
        let s = schedule(&c, Gating::ByType);
        assert!(s.ready.is_empty() && s.is_stalled());
        assert!(s.is_blocked("b") && s.is_blocked("c"));
        c.cancel_task("b").unwrap();
        c.cancel_task("c").unwrap();
        assert_eq!(c.state(), crate::model::ConstellationState::PartiallyFailed);
    }

    #[test]
    fn a_missing_prerequisite_blocks() {
        let c = TaskConstellation::from_value(&json!({
            "tasks": [{"task_id": "x", "description": "x"}],
            "dependencies": [{"line_id": "l", "from_task_id": "ghost", "to_task_id": "x"}]}))
        .unwrap();
        let s = schedule(&c, Gating::AnyEnd);
        assert_eq!(
            s.blocked[0].reasons,
            [BlockReason::MissingPrerequisite {
                line_id: "l".into(),
                from_task_id: "ghost".into()
            }]
        );
    }
}
