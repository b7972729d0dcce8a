//! Galaxy's run log in a task's folder: `events.jsonl` (one line per
//! orchestrator event, as it happens, with the constellation as it stood
//! wherever the event carries one: the graph at every change), and
//! `trajectory.md` at the end (the events as a table and the final graph
//! in Mermaid). `ufo galaxy replay DIR` prints the trajectory again from
//! `events.jsonl`. While it runs, each event is also a line on the console
//! (stderr), and each event that carries the graph draws it below that
//! line, in layers with a mark per status: the graph as it runs.

use crate::error::CliError;
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use tokio::sync::mpsc::UnboundedReceiver;
use ufo_core::{Diagnostic, ErrorReport};
use ufo_galaxy::TaskConstellation;
use ufo_galaxy::orchestrate::Event;

/// One event as a line of `events.jsonl`.
pub(crate) fn event_json(e: &Event) -> Value {
    let graph = |c: &TaskConstellation| c.to_value();
    let mut v = match e {
        Event::ConstellationStarted {
            constellation_id,
            total_tasks,
            device_assignments,
            constellation,
        } => json!({"constellation_id": constellation_id, "total_tasks": total_tasks,
            "device_assignments": device_assignments, "constellation": graph(constellation)}),
        Event::TaskStarted {
            constellation_id,
            task_id,
            device_id,
        } => {
            json!({"constellation_id": constellation_id, "task_id": task_id, "device_id": device_id})
        }
        Event::TaskCompleted(t) | Event::TaskFailed(t) => json!({
            "constellation_id": t.constellation_id, "task_id": t.task_id, "device_id": t.device_id,
            "status": t.status.as_str(), "result": t.result, "error": t.error,
            "newly_ready_tasks": t.newly_ready_tasks, "constellation": graph(&t.constellation)}),
        Event::TaskCancelled {
            constellation_id,
            task_id,
            reason,
        } => json!({"constellation_id": constellation_id, "task_id": task_id,
            "reason": format!("{reason:?}")}),
        Event::ConstellationModified {
            constellation_id,
            on_task_ids,
            new_constellation,
            ..
        } => json!({"constellation_id": constellation_id, "on_task_id": on_task_ids,
            "constellation": graph(new_constellation)}),
        Event::PlanRefused {
            constellation_id,
            on_task_ids,
            error,
        } => json!({"constellation_id": constellation_id, "on_task_id": on_task_ids,
            "error": error.message, "code": error.code}),
        Event::ConstellationCompleted {
            report,
            constellation,
        } => json!({"report": report, "constellation": graph(constellation)}),
    };
    v["type"] = json!(e.event_type());
    v["time"] = json!(ufo_aip::messages::now());
    v
}

/// Writes every event `rx` brings to `dir/events.jsonl` until the run
/// ends (the sender is dropped); the lines written.
pub(crate) async fn record(dir: PathBuf, mut rx: UnboundedReceiver<Event>) -> Vec<Value> {
    let path = dir.join("events.jsonl");
    let mut file = std::fs::File::create(&path)
        .map_err(|e| tracing::warn!("cannot write {}: {e}", path.display()))
        .ok();
    let mut lines = Vec::new();
    while let Some(e) = rx.recv().await {
        let v = event_json(&e);
        if let Some(f) = file.as_mut()
            && writeln!(f, "{v}").is_err()
        {
            tracing::warn!("cannot write {}", path.display());
            file = None;
        }
        eprint!("{}", console(&v));
        lines.push(v);
    }
    lines
}

/// One event for the console: its line, then the graph drawn in layers
/// when the event carries it.
pub(crate) fn console(v: &Value) -> String {
    let mut text = console_line(v);
    text.push('\n');
    if let Some(c) = v
        .get("constellation")
        .and_then(|c| TaskConstellation::from_value(c).ok())
    {
        text.push_str(&ufo_galaxy::render::layered(&c, "    "));
    }
    text
}

/// One event for the console: what happened, and every task's status
/// where the event carries the graph (`mul:completed add:running`).
fn console_line(v: &Value) -> String {
    let mut line = format!("galaxy: {}", v["type"].as_str().unwrap_or_default());
    for (key, sep) in [("task_id", " "), ("device_id", " on "), ("status", ": ")] {
        if let Some(x) = v[key].as_str() {
            line.push_str(sep);
            line.push_str(x);
        }
    }
    if let Some(tasks) = v["constellation"]["tasks"].as_object() {
        let statuses: Vec<String> = tasks
            .iter()
            .map(|(id, t)| format!("{id}:{}", t["status"].as_str().unwrap_or("?")))
            .collect();
        line.push_str(&format!("  [{}]", statuses.join(" ")));
    }
    line
}

/// The trajectory: a table of the events and the last graph in Mermaid.
pub(crate) fn trajectory(title: &str, events: &[Value]) -> String {
    let mut md =
        format!("# {title}\n\n| time | event | task | device | status |\n|---|---|---|---|---|\n");
    let cell = |v: &Value, k: &str| v[k].as_str().unwrap_or_default().replace('|', "\\|");
    let mut last = None;
    for e in events {
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            cell(e, "time"),
            cell(e, "type"),
            cell(e, "task_id"),
            cell(e, "device_id"),
            cell(e, "status"),
        ));
        if e.get("constellation").is_some_and(Value::is_object) {
            last = Some(&e["constellation"]);
        }
    }
    if let Some(c) = last.and_then(|c| TaskConstellation::from_value(c).ok()) {
        md.push_str("\n## The graph at the end\n\n```mermaid\n");
        md.push_str(&ufo_galaxy::render::mermaid(&c));
        md.push_str("```\n");
    }
    md
}

/// Writes `dir/trajectory.md` from `events`.
pub(crate) fn write_trajectory(
    dir: &Path,
    title: &str,
    events: &[Value],
) -> Result<(), ErrorReport> {
    let path = dir.join("trajectory.md");
    std::fs::write(&path, trajectory(title, events)).map_err(|e| {
        CliError::Write {
            path: path.display().to_string(),
            source: e,
        }
        .report()
    })
}

/// `ufo galaxy replay DIR`: the trajectory of a logged run, from its
/// `events.jsonl`.
pub(crate) fn replay(dir: &Path) -> Result<String, ErrorReport> {
    let path = dir.join("events.jsonl");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        CliError::Read {
            what: path.display().to_string(),
            source: e,
            help: "give the folder of a run of `ufo galaxy ask` or `ufo galaxy run --log-dir`",
        }
        .report()
    })?;
    let mut events = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let v: Value = serde_json::from_str(line).map_err(|e| {
            CliError::Syntax {
                what: format!("{} line {}", path.display(), n + 1),
                format: "JSON",
                message: e.to_string(),
                help: "events.jsonl holds one JSON object per line, as `ufo galaxy` writes it",
            }
            .report()
        })?;
        events.push(v);
    }
    let title = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "galaxy".into());
    Ok(trajectory(&title, &events))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn an_event_with_the_graph_draws_it_under_its_line() {
        let graph = json!({"constellation_id": "c1", "name": "two",
            "tasks": [{"task_id": "mul", "name": "Multiply", "description": "x",
                       "target_device_id": "pc1", "status": "completed"},
                      {"task_id": "add", "name": "Add", "description": "y",
                       "target_device_id": "pc2"}],
            "dependencies": [{"line_id": "l", "from_task_id": "mul", "to_task_id": "add"}]});
        let event = json!({"type": "task_completed", "task_id": "mul", "device_id": "pc1",
            "status": "completed",
            // As `event_json` writes it: UFO's map of tasks by id.
            "constellation": TaskConstellation::from_value(&graph).unwrap().to_value()});
        assert_eq!(
            console(&event),
            "galaxy: task_completed mul on pc1: completed  [add:pending mul:completed]\n    \
             ✔ [mul] Multiply @pc1: completed\n    \
             └─▶ ○ [add] Add @pc2: pending  ← mul\n"
        );
        let started = json!({"type": "task_started", "task_id": "add", "device_id": "pc2"});
        assert_eq!(console(&started), "galaxy: task_started add on pc2\n");
    }
}
