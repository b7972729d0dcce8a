//! A constellation drawn for a terminal as it runs: one line per task, in
//! layers (a task sits one step right of the deepest task it waits for),
//! each with a status mark, its device and what it waits for.
//!
//! ```text
//! ✔ [mul] Multiply @pc1: completed
//! ├─▶ ▶ [write] Write @pc2: running  ← mul
//! └─▶ ○ [mail] Mail @pc1: pending  ← mul
//!     ○ [end] Tidy @pc2: pending  ← write, mail
//! ```
//!
//! Tasks caught in a cycle (a graph the validator would refuse) are drawn
//! after the rest, at the layer where the walk stopped, never lost.

use crate::model::{TaskConstellation, TaskStatus};
use std::collections::HashMap;
use std::fmt::Write as _;

/// The mark of each status.
fn mark(status: TaskStatus) -> char {
    match status {
        TaskStatus::Pending => '○',
        TaskStatus::WaitingDependency => '◌',
        TaskStatus::Running => '▶',
        TaskStatus::Completed => '✔',
        TaskStatus::Failed => '✘',
        TaskStatus::Cancelled => '⊘',
    }
}

/// Each task's layer: 0 for a task that waits for nothing, else one more
/// than the deepest layer among the tasks it waits for. Tasks on a cycle
/// keep the layer they had when the walk stopped.
fn layers(c: &TaskConstellation) -> HashMap<&str, usize> {
    let mut layer: HashMap<&str, usize> =
        c.tasks().iter().map(|t| (t.task_id.as_str(), 0)).collect();
    // Longest paths by relaxation: at most one pass per task settles an
    // acyclic graph; a cycle stops at the bound instead of growing.
    for _ in 0..c.tasks().len() {
        let mut changed = false;
        for line in c.dependencies() {
            let (Some(&from), Some(&to)) = (
                layer.get(line.from_task_id.as_str()),
                layer.get(line.to_task_id.as_str()),
            ) else {
                continue;
            };
            if to < from + 1 {
                layer.insert(line.to_task_id.as_str(), from + 1);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    layer
}

/// `c` drawn in layers (see the module docs), one line per task, each line
/// starting with `indent`.
pub fn layered(c: &TaskConstellation, indent: &str) -> String {
    let layer = layers(c);
    let mut order: Vec<(usize, usize)> = c
        .tasks()
        .iter()
        .enumerate()
        .map(|(i, t)| (layer.get(t.task_id.as_str()).copied().unwrap_or(0), i))
        .collect();
    order.sort_unstable();
    let mut out = String::new();
    for (pos, &(depth, i)) in order.iter().enumerate() {
        let t = &c.tasks()[i];
        let branch = if depth == 0 {
            String::new()
        } else {
            // The last task of its layer closes the branch.
            let last = order.get(pos + 1).is_none_or(|&(d, _)| d != depth);
            format!(
                "{}{}",
                "    ".repeat(depth - 1),
                if last { "└─▶ " } else { "├─▶ " }
            )
        };
        let _ = write!(
            out,
            "{indent}{branch}{} [{}] {} @{}: {}",
            mark(t.status),
            t.task_id,
            one_line(&t.name),
            t.device().unwrap_or("(no device)"),
            t.status
        );
        let after: Vec<&str> = c
            .incoming(&t.task_id)
            .map(|l| l.from_task_id.as_str())
            .collect();
        if !after.is_empty() {
            let _ = write!(out, "  ← {}", after.join(", "));
        }
        out.push('\n');
    }
    out
}

/// A name on one line, at most 40 characters.
fn one_line(name: &str) -> String {
    let joined = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut cut: String = joined.chars().take(40).collect();
    if joined.chars().count() > 40 {
        cut.push('…');
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn diamond() -> TaskConstellation {
        TaskConstellation::from_value(&json!({"constellation_id": "c1", "name": "Report",
            "tasks": [
                {"task_id": "end", "name": "Tidy", "description": "w", "target_device_id": "pc2"},
                {"task_id": "mul", "name": "Multiply", "description": "x", "target_device_id": "pc1"},
                {"task_id": "write", "name": "Write\n it", "description": "y", "target_device_id": "pc2"},
                {"task_id": "mail", "name": "Mail", "description": "z"}],
            "dependencies": [
                {"line_id": "1", "from_task_id": "mul", "to_task_id": "write"},
                {"line_id": "2", "from_task_id": "mul", "to_task_id": "mail"},
                {"line_id": "3", "from_task_id": "write", "to_task_id": "end"},
                {"line_id": "4", "from_task_id": "mail", "to_task_id": "end"}]}))
        .unwrap()
    }

    #[test]
    fn tasks_are_drawn_in_layers_with_their_marks() {
        let mut c = diamond();
        c.start_task("mul").unwrap();
        c.complete_task("mul", json!("42")).unwrap();
        c.start_task("write").unwrap();
        assert_eq!(
            layered(&c, "  "),
            "  ✔ [mul] Multiply @pc1: completed\n\
             \x20 ├─▶ ▶ [write] Write it @pc2: running  ← mul\n\
             \x20 └─▶ ○ [mail] Mail @(no device): pending  ← mul\n\
             \x20     └─▶ ○ [end] Tidy @pc2: pending  ← write, mail\n"
        );
    }

    #[test]
    fn a_cycle_is_drawn_not_lost() {
        let c = TaskConstellation::from_value(&json!({"constellation_id": "c", "name": "loop",
            "tasks": [{"task_id": "a", "name": "A", "description": "x"},
                      {"task_id": "b", "name": "B", "description": "y"}],
            "dependencies": [{"line_id": "1", "from_task_id": "a", "to_task_id": "b"},
                             {"line_id": "2", "from_task_id": "b", "to_task_id": "a"}]}));
        // The model may refuse a cycle outright; when it holds one, every
        // task is still drawn once.
        if let Ok(c) = c {
            let drawn = layered(&c, "");
            assert_eq!(drawn.lines().count(), 2, "{drawn}");
            assert!(drawn.contains("[a]") && drawn.contains("[b]"), "{drawn}");
        }
    }
}
