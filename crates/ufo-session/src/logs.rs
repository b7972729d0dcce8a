//! `logs/<task>/`: `response.log`, `request.log`, `evaluation.log`, step
//! images and `output.md`.

use crate::error::SessionError;
use serde::Serialize;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use ufo_agent::StepRecord;
use ufo_agent::step::ImageKind;

/// A task name made safe as one directory name: letters and digits of any
/// script, `.`, `_` and `-` are kept, everything else becomes `_`; leading dots
/// are dropped; an empty result becomes `task`. No name can leave the log root.
pub fn sanitize_task_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '_' | '-') {
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
    session_id: String,
}

/// A new directory `parent/name`, or `name-2`, `name-3`, ... when that is
/// taken: two runs never share a folder, even when started in the same
/// second or with names that sanitise alike.
fn fresh_dir(parent: &Path, name: &str) -> Result<PathBuf, SessionError> {
    std::fs::create_dir_all(parent).map_err(|e| err(parent, e))?;
    for n in 1..=10_000u32 {
        let candidate = if n == 1 {
            parent.join(name)
        } else {
            parent.join(format!("{name}-{n}"))
        };
        match std::fs::create_dir(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(err(&candidate, e)),
        }
    }
    Err(err(
        &parent.join(name),
        "10,000 folders of that name exist already; choose another task name",
    ))
}

/// A session id unique on this machine: time, process and a counter.
fn new_session_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{:x}-{:x}-{}",
        nanos,
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

fn err(path: &Path, e: impl Into<ufo_core::BoxError>) -> SessionError {
    SessionError::Logs {
        path: path.display().to_string(),
        source: e.into(),
    }
}

impl TaskLogs {
    /// Creates `root/<segments...>`, each segment sanitised; the last one is
    /// always a new folder (suffixed `-2`, `-3`, ... when the name is taken).
    pub fn create(root: &Path, segments: &[&str]) -> Result<Self, SessionError> {
        let mut parent = root.to_path_buf();
        let (last, first) = segments.split_last().unwrap_or((&"task", &[]));
        for s in first {
            parent.push(sanitize_task_name(s));
        }
        let dir = fresh_dir(&parent, &sanitize_task_name(last))?;
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
            session_id: new_session_id(),
        })
    }

    /// The id every log line of this session carries (`session_id`).
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The task's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Saves the step's images, then appends its `request.log` and
    /// `response.log` lines and flushes them.
    pub fn write_step(&mut self, rec: &mut StepRecord) -> Result<(), SessionError> {
        let n = rec.session_step;
        rec.session_id.clone_from(&self.session_id);
        for kind in ImageKind::ALL {
            if let Some(b) = rec.images.take(kind) {
                let name = kind.file(n);
                let p = self.dir.join(&name);
                std::fs::write(&p, b).map_err(|e| err(&p, e))?;
                rec.screenshots.insert(kind.key().into(), name);
            }
        }
        if let Some(tree) = rec.ui_tree.take() {
            let d = self.dir.join("ui_trees");
            std::fs::create_dir_all(&d).map_err(|e| err(&d, e))?;
            let p = d.join(format!("ui_tree_step{n}.json"));
            let text = serde_json::to_string(&tree).map_err(|e| err(&p, e))?;
            std::fs::write(&p, text).map_err(|e| err(&p, e))?;
        }
        // A huge reply is kept once, whole, in its own file; the log lines
        // carry at most MAX_LOG_FIELD of any text.
        for (i, raw) in rec.raw_replies.iter_mut().enumerate() {
            if raw.len() > MAX_LOG_FIELD {
                let d = self.dir.join("replies");
                std::fs::create_dir_all(&d).map_err(|e| err(&d, e))?;
                let name = format!("step{n}_reply{i}.txt");
                let p = d.join(&name);
                std::fs::write(&p, raw.as_bytes()).map_err(|e| err(&p, e))?;
                *raw = format!("<{} bytes, whole in replies/{name}>", raw.len());
            }
        }
        if let Some(r) = rec.request_log.take() {
            let p = self.dir.join("request.log");
            line(&mut self.request, &r, &self.session_id, &p)?;
        }
        let p = self.dir.join("response.log");
        line(&mut self.response, rec, &self.session_id, &p)
    }

    /// Appends one line to `evaluation.log`.
    pub fn write_evaluation<T: Serialize>(&self, v: &T) -> Result<(), SessionError> {
        let p = self.dir.join("evaluation.log");
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&p)
            .map_err(|e| err(&p, e))?;
        line(&mut f, v, &self.session_id, &p)
    }

    /// Writes a whole binary file in the task directory (`name` may hold one
    /// folder, e.g. `ui_trees/x.json`).
    pub fn write_bytes(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, SessionError> {
        let p = self.dir.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| err(parent, e))?;
        }
        std::fs::write(&p, bytes).map_err(|e| err(&p, e))?;
        Ok(p)
    }

    /// Writes a whole file in the task directory.
    pub fn write_file(&self, name: &str, text: &str) -> Result<PathBuf, SessionError> {
        let p = self.dir.join(name);
        std::fs::write(&p, text).map_err(|e| err(&p, e))?;
        Ok(p)
    }
}

/// The most of any one text a log line carries, in bytes.
pub const MAX_LOG_FIELD: usize = 64 * 1024;

/// Cuts every string of `v` longer than [`MAX_LOG_FIELD`], saying how long it was.
fn cut_long_strings(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::String(s) if s.len() > MAX_LOG_FIELD => {
            let mut end = MAX_LOG_FIELD;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            let total = s.len();
            s.truncate(end);
            s.push_str(&format!("… [cut: {total} bytes in all]"));
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(cut_long_strings),
        serde_json::Value::Object(m) => m.values_mut().for_each(cut_long_strings),
        _ => {}
    }
}

/// Appends `v` as one JSON line carrying `session_id`, and flushes.
fn line<T: Serialize>(f: &mut File, v: &T, session_id: &str, p: &Path) -> Result<(), SessionError> {
    let mut value = serde_json::to_value(v).map_err(|e| err(p, e))?;
    cut_long_strings(&mut value);
    if let Some(o) = value.as_object_mut() {
        o.insert("session_id".into(), session_id.into());
    }
    let mut s = serde_json::to_string(&value).map_err(|e| err(p, e))?;
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
        assert_eq!(sanitize_task_name("名前✓"), "名前_");
    }

    #[test]
    fn a_huge_reply_is_kept_once_and_the_log_line_stays_small() {
        let d = tempfile::tempdir().unwrap();
        let mut l = TaskLogs::create(d.path(), &["big"]).unwrap();
        let mut r = StepRecord::new(ufo_agent::step::AgentKind::AppAgent, "AppAgent/x", 1);
        let reply = "y".repeat(5 * 1024 * 1024);
        r.raw_replies = vec![reply.clone()];
        r.thought = reply.clone();
        r.parsed_response = serde_json::json!({"Thought": reply});
        l.write_step(&mut r).unwrap();
        let log = std::fs::metadata(l.dir().join("response.log"))
            .unwrap()
            .len();
        assert!(log < 512 * 1024, "response.log is {log} bytes");
        let kept =
            std::fs::read_to_string(l.dir().join("replies").join("step1_reply0.txt")).unwrap();
        assert_eq!(kept.len(), 5 * 1024 * 1024);
    }

    #[test]
    fn two_runs_of_one_name_get_two_folders_and_their_own_ids() {
        let d = tempfile::tempdir().unwrap();
        let a = TaskLogs::create(d.path(), &["batch", "a 5"]).unwrap();
        let b = TaskLogs::create(d.path(), &["batch", "a_5"]).unwrap();
        let c = TaskLogs::create(d.path(), &[""]).unwrap();
        let e = TaskLogs::create(d.path(), &[".."]).unwrap();
        assert_eq!(a.dir(), d.path().join("batch").join("a_5"));
        assert_eq!(b.dir(), d.path().join("batch").join("a_5-2"));
        assert_eq!(c.dir(), d.path().join("task"));
        assert_eq!(e.dir(), d.path().join("task-2"));
        assert_ne!(a.session_id(), b.session_id());
        // Concurrent sessions of the same name, as two processes started in
        // the same second would be.
        let names: Vec<PathBuf> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        TaskLogs::create(d.path(), &["same"])
                            .unwrap()
                            .dir()
                            .to_path_buf()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let unique: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(unique.len(), 8, "{names:?}");
    }

    #[test]
    fn a_step_line_reads_back_as_the_record_written() {
        use ufo_agent::step::{ActionLog, AgentKind, Phase};
        let d = tempfile::tempdir().unwrap();
        let mut l = TaskLogs::create(d.path(), &["round trip"]).unwrap();
        let mut r = StepRecord::new(AgentKind::OperatorAgent, "OperatorAgent/xterm", 2);
        r.round = 1;
        r.application = "xterm".into();
        r.subtask = "type ls".into();
        r.thought = "the terminal is open".into();
        r.plan = vec!["type".into(), "press enter".into()];
        r.parsed_response = serde_json::json!({"Thought": "the terminal is open"});
        r.actions.push(ActionLog::new(
            "type",
            &serde_json::Map::from_iter([("text".into(), "ls".into())]),
            Some(serde_json::json!({"name": "Terminal", "type": "Terminal"})),
            ufo_core::StepStatus::Continue,
            ufo_core::ActionResult::success(serde_json::Value::Null),
        ));
        r.status = ufo_core::StepStatus::Finish;
        r.execution_times.insert(Phase::ActionExecution, 0.25);
        r.error = Some(ufo_core::ErrorReport {
            code: "ufo::x".into(),
            message: "m".into(),
            help: Some("h".into()),
            causes: Vec::new(),
        });
        r.images.clean = Some(vec![1]);
        r.raw_replies = vec!["{}".into()];
        l.write_step(&mut r).unwrap();
        let text = std::fs::read_to_string(l.dir().join("response.log")).unwrap();
        let back: Vec<StepRecord> = ufo_agent::read_response_log(&text)
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(back.len(), 1);
        let b = &back[0];
        assert_eq!(b.agent_type, AgentKind::OperatorAgent);
        assert_eq!(b.session_id, l.session_id());
        assert_eq!(b.actions, r.actions);
        assert_eq!(b.phase_time(Phase::ActionExecution), 0.25);
        assert_eq!(b.screenshots["clean"], "action_step2.png");
        assert_eq!(
            serde_json::to_value(b).unwrap(),
            serde_json::to_value(&r).unwrap()
        );
        // A line that is not a step record says which line it is.
        let e = ufo_agent::read_response_log("\n{\"session_step\": 1}\n")
            .next()
            .unwrap()
            .unwrap_err();
        assert_eq!(e.line, 2);
    }

    #[test]
    fn step_lines_are_flushed_and_images_referenced() {
        let d = tempfile::tempdir().unwrap();
        let mut l = TaskLogs::create(d.path(), &["t/../x"]).unwrap();
        assert!(l.dir().starts_with(d.path()));
        let mut r = StepRecord::new(ufo_agent::step::AgentKind::AppAgent, "AppAgent/x", 3);
        r.images.clean = Some(vec![1, 2, 3]);
        l.write_step(&mut r).unwrap();
        let text = std::fs::read_to_string(l.dir().join("response.log")).unwrap();
        let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(v["screenshots"]["clean"], "action_step3.png");
        assert_eq!(v["session_id"], l.session_id());
        assert!(l.dir().join("action_step3.png").exists());
    }
}
