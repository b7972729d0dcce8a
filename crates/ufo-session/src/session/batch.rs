//! `batch_normal`: a folder of task files, one session and log folder each,
//! resumable through `tasks_status.json` (unless `TASK_STATUS: false`). A
//! task's `object` (UFO's) is opened in its application before its round,
//! and with `close` the application is closed after it.

use super::{
    Mode, RunOptions, Services, Session, SessionReport, SessionStatus, operator, plan_files_of,
};
use crate::error::SessionError;
use crate::plan::Plan;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use ufo_core::{Diagnostic, ErrorReport};
use ufo_desktop::dispatch::execute_one;
use ufo_desktop::tools::Tool;

pub(super) async fn run(
    s: &Services,
    opts: &RunOptions,
) -> Result<Vec<SessionReport>, SessionError> {
    let files = plan_files_of(opts, "batch_normal runs the task files of a folder")?;
    // batch_normal_operator: the operator is among the HostAgent's targets.
    let operator = match opts.mode {
        Mode::BatchNormalOperator => Some(operator::setup(s, None)?),
        _ => None,
    };
    let dir = s.log_root.join(crate::logs::sanitize_task_name(&opts.task));
    std::fs::create_dir_all(&dir).map_err(|e| SessionError::Logs {
        path: dir.display().to_string(),
        source: e.into(),
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
        let task_status = s.config.system.task_status;
        if task_status && status.get(&name).and_then(Value::as_str) == Some("finished") {
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
                session.app_role = ufo_agent::BATCH_ROLE;
                session.operator = operator.clone();
                match session.open_object(&plan, f, opts.app.as_deref()).await {
                    Ok(()) => session.run_plan(&plan, opts.app.as_deref()).await,
                    Err(e) => {
                        let st = session.fail_with(&e);
                        session.finish(st).await
                    }
                }
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
        if task_status {
            status.insert(name, Value::String(st.into()));
            let text = serde_json::to_string_pretty(&status).unwrap_or_default();
            std::fs::write(&status_path, text).map_err(|e| SessionError::Logs {
                path: status_path.display().to_string(),
                source: e.into(),
            })?;
        }
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

impl Session<'_> {
    /// UFO's `object`: the task's file, opened in its application (`--app`
    /// or the plan's `app`) before the round. It is looked for where UFO
    /// keeps it (the plan's folder with `tasks` read as `files`), then next
    /// to the plan.
    async fn open_object(
        &mut self,
        plan: &Plan,
        plan_file: &Path,
        app: Option<&str>,
    ) -> Result<(), ErrorReport> {
        let Some(object) = plan
            .object
            .as_deref()
            .map(str::trim)
            .filter(|o| !o.is_empty())
        else {
            return Ok(());
        };
        let fail = |message: String| {
            SessionError::Plan {
                path: plan_file.display().to_string(),
                message,
                source: None,
            }
            .report()
        };
        let dir = plan_file.parent().unwrap_or(Path::new("."));
        let files = PathBuf::from(dir.to_string_lossy().replace("tasks", "files"));
        let path = [files.join(object), dir.join(object)]
            .into_iter()
            .find(|p| p.is_file())
            .and_then(|p| p.canonicalize().ok())
            .ok_or_else(|| {
                fail(format!(
                    "its object {object:?} is neither in {} nor next to the plan",
                    files.display()
                ))
            })?;
        let app = app.map(str::to_owned).or_else(|| plan.app.clone()).ok_or_else(|| {
            fail(format!(
                "it names the object {object:?} but no application to open it with: add \"app\": \"<program>\" (e.g. \"gedit\")"
            ))
        })?;
        let command = format!("{app} {}", path.display());
        let r = execute_one(
            self.s.dispatcher.as_ref(),
            Tool::RunShell.command(json!({ "bash_command": command })),
        )
        .await;
        match r.is_success() {
            true => Ok(()),
            false => Err(r
                .error
                .unwrap_or_else(|| fail(format!("{command:?} did not start")))),
        }
    }
}

impl Session<'_> {
    /// UFO's `close`: once the task is done, its application (`app`, else
    /// each one the session worked in) is closed as a person closes it. A
    /// close that does not happen (the application asks whether to save) is
    /// said, and changes nothing of the task's status.
    pub(super) async fn close_apps(&mut self, app: Option<&str>) {
        let named: Vec<String> = match app {
            Some(a) => vec![a.to_owned()],
            None => self
                .subtasks
                .iter()
                .map(|t| t.application.clone())
                .chain(self.current_app.clone())
                .collect(),
        };
        let mut apps: Vec<String> = Vec::new();
        for a in named {
            if !a.is_empty() && !apps.contains(&a) {
                apps.push(a);
            }
        }
        for a in apps {
            let r = execute_one(
                self.s.dispatcher.as_ref(),
                Tool::CloseApplication.command(json!({ "name": a })),
            )
            .await;
            if r.is_success() {
                continue;
            }
            if let Some(e) = r.error {
                self.s
                    .io
                    .show(&format!("could not close {a}: {}", e.headline()));
            }
        }
    }
}
