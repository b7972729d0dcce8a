//! A constellation as a few lines of text for a prompt: a header with the
//! state and counts, then one line per task with its device, status, what
//! it waits for and whether it is ready, waiting or blocked.
//!
//! ```text
//! Constellation "Quarterly report" (c1): executing; 3 tasks (2 pending, 1 completed); 2 dependencies
//! - [a] Fetch @linux-1: completed
//! - [b] Sum @win-1: pending, ready; after a (success_only)
//! - [c] Mail @(no device): pending, blocked (b is blocked); after b
//! ```

use crate::model::{DependencyType, TaskConstellation, TaskStatus};
use crate::ready::{BlockReason, Gating, Schedule, schedule};
use std::fmt::Write as _;

/// `c` in a few lines (see the module docs); readiness as `gating` says.
pub fn summary(c: &TaskConstellation, gating: Gating) -> String {
    let plan = schedule(c, gating);
    let mut out = header(c);
    for t in c.tasks() {
        let device = t.device().unwrap_or("(no device)");
        let _ = write!(
            out,
            "\n- [{}] {} @{device}: {}",
            t.task_id, t.name, t.status
        );
        if t.status.is_not_started() {
            let _ = write!(out, ", {}", readiness(&plan, &t.task_id));
        }
        let after: Vec<String> = c
            .incoming(&t.task_id)
            .map(|l| match l.dependency_type {
                DependencyType::Unconditional => l.from_task_id.clone(),
                DependencyType::Conditional if !l.condition_description.is_empty() => {
                    format!(
                        "{} (conditional: {:?})",
                        l.from_task_id, l.condition_description
                    )
                }
                kind => format!("{} ({kind})", l.from_task_id),
            })
            .collect();
        if !after.is_empty() {
            let _ = write!(out, "; after {}", after.join(", "));
        }
    }
    out
}

fn header(c: &TaskConstellation) -> String {
    let counts: Vec<String> = TaskStatus::ALL
        .iter()
        .filter_map(|s| {
            let n = c.tasks().iter().filter(|t| t.status == *s).count();
            (n > 0).then(|| format!("{n} {s}"))
        })
        .collect();
    let tasks = match c.tasks().len() {
        1 => "1 task".to_owned(),
        n => format!("{n} tasks"),
    };
    let counts = if counts.is_empty() {
        String::new()
    } else {
        format!(" ({})", counts.join(", "))
    };
    let lines = match c.dependencies().len() {
        1 => "1 dependency".to_owned(),
        n => format!("{n} dependencies"),
    };
    format!(
        "Constellation {:?} ({}): {}; {tasks}{counts}; {lines}",
        c.name(),
        c.id(),
        c.state()
    )
}

/// `ready`, `waiting` or `blocked (why)` for a task not started.
fn readiness(plan: &Schedule, task_id: &str) -> String {
    if plan.ready.iter().any(|r| r.task_id == task_id) {
        return "ready".into();
    }
    let Some(b) = plan.blocked.iter().find(|b| b.task_id == task_id) else {
        return "waiting".into();
    };
    let why: Vec<String> = b
        .reasons
        .iter()
        .map(|r| match r {
            BlockReason::PrerequisiteFailed {
                from_task_id,
                outcome,
                ..
            } => format!("{from_task_id} {outcome}, success_only"),
            BlockReason::MissingPrerequisite { from_task_id, .. } => {
                format!("{from_task_id} does not exist")
            }
            BlockReason::PrerequisiteBlocked { from_task_id, .. } => {
                format!("{from_task_id} is blocked")
            }
        })
        .collect();
    format!("blocked ({})", why.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_line_per_task_with_readiness() {
        let mut c = TaskConstellation::from_value(&json!({"constellation_id": "c1", "name": "Report",
            "tasks": [
                {"task_id": "a", "name": "Fetch", "description": "x", "target_device_id": "linux-1"},
                {"task_id": "b", "name": "Sum", "description": "y", "target_device_id": "win-1"},
                {"task_id": "c", "name": "Mail", "description": "z"},
                {"task_id": "d", "name": "Tidy", "description": "w", "target_device_id": "linux-1"}],
            "dependencies": [
                {"line_id": "ab", "from_task_id": "a", "to_task_id": "b", "dependency_type": "success_only"},
                {"line_id": "bc", "from_task_id": "b", "to_task_id": "c"},
                {"line_id": "ad", "from_task_id": "a", "to_task_id": "d", "dependency_type": "conditional",
                 "condition_description": "a left temp files"}]}))
        .unwrap();
        c.start_task("a").unwrap();
        c.fail_task("a", json!(null), None).unwrap();
        assert_eq!(
            summary(&c, Gating::ByType),
            "Constellation \"Report\" (c1): executing; 4 tasks (3 pending, 1 failed); 3 dependencies\n\
             - [a] Fetch @linux-1: failed\n\
             - [b] Sum @win-1: pending, blocked (a failed, success_only); after a (success_only)\n\
             - [c] Mail @(no device): pending, blocked (b is blocked); after b\n\
             - [d] Tidy @linux-1: pending, ready; after a (conditional: \"a left temp files\")"
        );
    }

    #[test]
    fn an_empty_constellation_is_one_line() {
        let c = TaskConstellation::new("c0", "Nothing");
        assert_eq!(
            summary(&c, Gating::AnyEnd),
            "Constellation \"Nothing\" (c0): created; 0 tasks; 0 dependencies"
        );
    }
}
