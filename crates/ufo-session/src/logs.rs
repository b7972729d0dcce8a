//! `logs/<task>/`: `response.log`, `request.log`, `evaluation.log`, step
//! images and `output.md`.

use crate::error::SessionError;
use serde::Serialize;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use ufo_agent::StepRecord;

/// A task name made safe as one directory name: letters, digits, `.`, `_`
/// and `-` are kept, everything else becomes `_`; leading dots are dropped;
/// an empty result becomes `task`. No name can leave the log root.
pub fn sanitize_task_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let s = s
        .trim_start_matches('.')
        .chars()
        .take(120)
        .collect::<String>();
    if s.is_empty() || s.chars().all(|c| c == '_') {
        "task".into()
    } else {
        s
    }
}

/// The log files of one task.
pub struct TaskLogs {
    dir: PathBuf,
    response: File,
    request: File,
}

fn err(path: &Path, e: impl std::fmt::Display) -> SessionError {
    SessionError::Logs {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

impl TaskLogs {
    /// Creates (or appends to) `root/<segments...>`, each segment sanitised.
    pub fn create(root: &Path, segments: &[&str]) -> Result<Self, SessionError> {
        let mut dir = root.to_path_buf();
        for s in segments {
            dir.push(sanitize_task_name(s));
        }
        std::fs::create_dir_all(&dir).map_err(|e| err(&dir, e))?;
        let open = |n: &str| {
            let p = dir.join(n);
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&p)
                .map_err(|e| err(&p, e))
        };
        Ok(Self {
            response: open("response.log")?,
            request: open("request.log")?,
            dir,
        })
    }

    /// The task's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Saves the step's images, then appends its `request.log` and
    /// `response.log` lines and flushes them.
    pub fn write_step(&mut self, rec: &mut StepRecord) -> Result<(), SessionError> {
        let n = rec.session_step;
        let imgs = [
            (
                "clean",
                format!("action_step{n}.png"),
                rec.images.clean.take(),
            ),
            (
                "annotated",
                format!("action_step{n}_annotated.png"),
                rec.images.annotated.take(),
            ),
            (
                "concat",
                format!("action_step{n}_concat.png"),
                rec.images.concat.take(),
            ),
            (
                "selected_controls",
                format!("action_step{n}_selected_controls.png"),
                rec.images.selected.take(),
            ),
        ];
        for (key, name, bytes) in imgs {
            if let Some(b) = bytes {
                let p = self.dir.join(&name);
                std::fs::write(&p, b).map_err(|e| err(&p, e))?;
                rec.screenshots.insert(key.into(), name);
            }
        }
        if let Some(tree) = rec.ui_tree.take() {
            let d = self.dir.join("ui_trees");
            std::fs::create_dir_all(&d).map_err(|e| err(&d, e))?;
            let p = d.join(format!("ui_tree_step{n}.json"));
            let text = serde_json::to_string(&tree).map_err(|e| err(&p, e))?;
            std::fs::write(&p, text).map_err(|e| err(&p, e))?;
        }
        if let Some(r) = rec.request_log.take() {
            line(&mut self.request, &r, &self.dir.join("request.log"))?;
        }
        line(&mut self.response, rec, &self.dir.join("response.log"))
    }

    /// Appends one line to `evaluation.log`.
    pub fn write_evaluation<T: Serialize>(&self, v: &T) -> Result<(), SessionError> {
        let p = self.dir.join("evaluation.log");
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&p)
            .map_err(|e| err(&p, e))?;
        line(&mut f, v, &p)
    }

    /// Writes a whole file in the task directory.
    pub fn write_file(&self, name: &str, text: &str) -> Result<PathBuf, SessionError> {
        let p = self.dir.join(name);
        std::fs::write(&p, text).map_err(|e| err(&p, e))?;
        Ok(p)
    }
}

fn line<T: Serialize>(f: &mut File, v: &T, p: &Path) -> Result<(), SessionError> {
    let mut s = serde_json::to_string(v).map_err(|e| err(p, e))?;
    s.push('\n');
    f.write_all(s.as_bytes()).map_err(|e| err(p, e))?;
    f.flush().map_err(|e| err(p, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_names_cannot_escape() {
        assert_eq!(sanitize_task_name("../../etc/passwd"), "_.._etc_passwd");
        assert_eq!(sanitize_task_name("a b/c"), "a_b_c");
        assert_eq!(sanitize_task_name(".."), "task");
        assert_eq!(sanitize_task_name(""), "task");
        assert_eq!(sanitize_task_name("C:\\x"), "C__x");
    }

    #[test]
    fn step_lines_are_flushed_and_images_referenced() {
        let d = tempfile::tempdir().unwrap();
        let mut l = TaskLogs::create(d.path(), &["t/../x"]).unwrap();
        assert!(l.dir().starts_with(d.path()));
        let mut r = StepRecord::new("AppAgent", "AppAgent/x", 3);
        r.images.clean = Some(vec![1, 2, 3]);
        l.write_step(&mut r).unwrap();
        let text = std::fs::read_to_string(l.dir().join("response.log")).unwrap();
        let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(v["screenshots"]["clean"], "action_step3.png");
        assert!(l.dir().join("action_step3.png").exists());
    }
}
