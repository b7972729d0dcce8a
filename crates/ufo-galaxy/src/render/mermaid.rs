//! A constellation as a Mermaid `flowchart`, for markdown trajectories:
//! one node per task (id, name, status; coloured by status), one edge per
//! dependency (its type as the label and the line's style).

use crate::model::{DependencyType, TaskConstellation, TaskStatus};
use std::fmt::Write as _;

/// Names longer than this are cut (with `…`) in node labels; conditions
/// likewise in edge labels.
const LABEL_CHARS: usize = 48;

/// The fill and stroke of each status's nodes.
fn style(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Pending | TaskStatus::WaitingDependency => "fill:#f5f5f5,stroke:#999999",
        TaskStatus::Running => "fill:#fff3cd,stroke:#d39e00",
        TaskStatus::Completed => "fill:#d4edda,stroke:#28a745",
        TaskStatus::Failed => "fill:#f8d7da,stroke:#dc3545",
        TaskStatus::Cancelled => "fill:#e2e3e5,stroke:#6c757d,stroke-dasharray:4 2",
    }
}

/// `text` safe inside a quoted Mermaid label: one line, at most `max`
/// characters, and `#`, `"`, `<`, `>`, `|` as Mermaid's entity codes.
fn label(text: &str, max: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut cut: String = one_line.chars().take(max).collect();
    if one_line.chars().count() > max {
        cut.push('…');
    }
    let mut out = String::with_capacity(cut.len());
    for c in cut.chars() {
        match c {
            '#' => out.push_str("#35;"),
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '|' => out.push_str("#124;"),
            c => out.push(c),
        }
    }
    out
}

/// The arrow of each dependency type: `==>` success only, `-.->`
/// completion only, `-->` the others.
fn arrow(kind: DependencyType) -> &'static str {
    match kind {
        DependencyType::SuccessOnly => "==>",
        DependencyType::CompletionOnly => "-.->",
        DependencyType::Unconditional | DependencyType::Conditional => "-->",
    }
}

/// `c` as a Mermaid flowchart (top to bottom), without the fence. Node ids
/// are `n0`, `n1`, … in task order (task ids may hold anything); a
/// dependency naming a missing task is a `%%` comment.
pub fn mermaid(c: &TaskConstellation) -> String {
    let mut out = String::from("flowchart TD\n");
    let node = |id: &str| c.tasks().iter().position(|t| t.task_id == id);
    for (i, t) in c.tasks().iter().enumerate() {
        let _ = writeln!(
            out,
            "    n{i}[\"{}: {}<br/>{}\"]:::{}",
            label(&t.task_id, LABEL_CHARS),
            label(&t.name, LABEL_CHARS),
            t.status,
            t.status
        );
    }
    for l in c.dependencies() {
        let (Some(a), Some(b)) = (node(&l.from_task_id), node(&l.to_task_id)) else {
            let _ = writeln!(
                out,
                "    %% dependency {}: {} → {} names a missing task",
                label(&l.line_id, LABEL_CHARS),
                label(&l.from_task_id, LABEL_CHARS),
                label(&l.to_task_id, LABEL_CHARS)
            );
            continue;
        };
        let text = match (l.dependency_type, l.condition_description.trim()) {
            (DependencyType::Conditional, cond) if !cond.is_empty() => {
                format!("conditional: {}", label(cond, LABEL_CHARS))
            }
            (kind, _) => kind.to_string(),
        };
        let _ = writeln!(
            out,
            "    n{a} {}|\"{text}\"| n{b}",
            arrow(l.dependency_type)
        );
    }
    for status in TaskStatus::ALL {
        if c.tasks().iter().any(|t| t.status == *status) {
            let _ = writeln!(out, "    classDef {status} {}", style(*status));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nodes_carry_status_and_edges_carry_type() {
        let mut c = TaskConstellation::from_value(&json!({"tasks": [
            {"task_id": "a", "name": "Fetch \"logs\" <now>", "description": "x"},
            {"task_id": "b", "name": "Sum", "description": "y"},
            {"task_id": "end", "name": "Report", "description": "z"}],
            "dependencies": [
                {"line_id": "l1", "from_task_id": "a", "to_task_id": "b", "dependency_type": "success_only"},
                {"line_id": "l2", "from_task_id": "a", "to_task_id": "end", "dependency_type": "conditional",
                 "condition_description": "if a | b found #errors"},
                {"line_id": "l3", "from_task_id": "b", "to_task_id": "end", "dependency_type": "completion_only"},
                {"line_id": "l4", "from_task_id": "ghost", "to_task_id": "end"}]}))
        .unwrap();
        c.start_task("a").unwrap();
        c.complete_task("a", json!(null)).unwrap();
        assert_eq!(
            mermaid(&c),
            "flowchart TD\n\
             \x20   n0[\"a: Fetch #quot;logs#quot; #lt;now#gt;<br/>completed\"]:::completed\n\
             \x20   n1[\"b: Sum<br/>pending\"]:::pending\n\
             \x20   n2[\"end: Report<br/>pending\"]:::pending\n\
             \x20   n0 ==>|\"success_only\"| n1\n\
             \x20   n0 -->|\"conditional: if a #124; b found #35;errors\"| n2\n\
             \x20   n1 -.->|\"completion_only\"| n2\n\
             \x20   %% dependency l4: ghost → end names a missing task\n\
             \x20   classDef pending fill:#f5f5f5,stroke:#999999\n\
             \x20   classDef completed fill:#d4edda,stroke:#28a745\n"
        );
    }

    #[test]
    fn long_labels_are_cut() {
        assert_eq!(label(&"x".repeat(60), 48), format!("{}…", "x".repeat(48)));
        assert_eq!(label("two\nlines", 48), "two lines");
    }
}
