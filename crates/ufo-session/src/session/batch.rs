//! `batch_normal`: a folder of task files, one session and log folder each,
//! resumable through `tasks_status.json`.

use super::*;

pub(super) async fn run(
    s: &Services,
    opts: &RunOptions,
) -> Result<Vec<SessionReport>, SessionError> {
    let files = plan_files_of(opts, "batch_normal runs the task files of a folder")?;
    let dir = s.log_root.join(crate::logs::sanitize_task_name(&opts.task));
    std::fs::create_dir_all(&dir).map_err(|e| SessionError::Logs {
        path: dir.display().to_string(),
        message: e.to_string(),
    })?;
    let status_path = dir.join("tasks_status.json");
    let mut status: serde_json::Map<String, Value> = match std::fs::read_to_string(&status_path) {
        Err(_) => serde_json::Map::new(),
        Ok(t) => match serde_json::from_str(&t) {
            Ok(m) => m,
            Err(e) => {
                // Say so and keep it: every task runs again, nothing is lost.
                let backup = status_path.with_extension("json.corrupt");
                let _ = std::fs::rename(&status_path, &backup);
                s.io.show(&format!(
                    "warning: {} is not valid JSON ({e}); kept as {}; every task runs again",
                    status_path.display(),
                    backup.display()
                ));
                serde_json::Map::new()
            }
        },
    };
    let mut out = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let name = stem(f);
        let progress = format!("[{}/{}] {name}", i + 1, files.len());
        if status.get(&name).and_then(Value::as_str) == Some("finished") {
            s.io.show(&format!("{progress}: already finished, skipped"));
            out.push(SessionReport {
                skipped: true,
                ..SessionReport::without_steps(
                    &name,
                    dir.join(crate::logs::sanitize_task_name(&name)),
                    SessionStatus::Finish,
                )
            });
            continue;
        }
        s.io.show(&format!("{progress}: running"));
        let report = match Plan::load(f) {
            Ok(plan) => {
                let mut session = Session::new(s, &[&opts.task, &name])?;
                session.run_plan(&plan, opts.app.as_deref()).await
            }
            Err(e) => {
                s.io.show(&format!("{progress}: {e}"));
                SessionReport {
                    error: Some(e.report()),
                    ..SessionReport::without_steps(&name, dir.clone(), SessionStatus::Error)
                }
            }
        };
        let st = if report.status == SessionStatus::Finish {
            "finished"
        } else {
            "failed"
        };
        s.io.show(&format!("{progress}: {}", report.status.as_str()));
        status.insert(name, Value::String(st.into()));
        let text = serde_json::to_string_pretty(&status).unwrap_or_default();
        std::fs::write(&status_path, text).map_err(|e| SessionError::Logs {
            path: status_path.display().to_string(),
            message: e.to_string(),
        })?;
        let interrupted = report
            .error
            .as_ref()
            .is_some_and(|e| e.code == "ufo::session::interrupted");
        out.push(report);
        if interrupted {
            s.io.show("batch interrupted: the remaining tasks were not started");
            break;
        }
    }
    Ok(out)
}

pub(super) fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|x| x.to_string_lossy().into_owned())
        .unwrap_or_else(|| "task".into())
}
