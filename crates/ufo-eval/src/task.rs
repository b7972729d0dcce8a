//! Task files in OSWorld's format, as they are: `id`, `instruction`,
//! `snapshot`, `source`, `related_apps`, `config` (setup steps), `evaluator`
//! (`postconfig`, `func` with `conj`, `result`, `expected`, `options`).
//!
//! Paths and commands in a task may use `$WORK` (the task's own working
//! directory, fresh for every run) and `$SUITE` (the folder of the task
//! file, where fixtures live); `~` at the start of a path is `$WORK` too,
//! since OSWorld's tasks write to the user's home.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// One setup or postconfig step: `{"type": "launch", "parameters": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// `launch`, `open`, `execute`, `command`, `sleep`, `activate_window`,
    /// `close_window`, `download`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The step's parameters.
    #[serde(default)]
    pub parameters: Map<String, Value>,
}

/// A list that OSWorld also writes as a single item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    /// Several.
    Many(Vec<T>),
    /// One.
    One(T),
}

impl<T> Default for OneOrMany<T> {
    fn default() -> Self {
        OneOrMany::Many(Vec::new())
    }
}

impl<T: Clone> OneOrMany<T> {
    /// The items in order.
    pub fn items(&self) -> Vec<T> {
        match self {
            OneOrMany::Many(v) => v.clone(),
            OneOrMany::One(t) => vec![t.clone()],
        }
    }
}

/// The evaluator: how the outcome is read and judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluator {
    /// Steps run after the agent, before reading the result.
    #[serde(default)]
    pub postconfig: Vec<Step>,
    /// The metric(s); `infeasible` for a task that cannot be done.
    pub func: OneOrMany<String>,
    /// How several metrics combine: `and` (default) or `or`.
    #[serde(default)]
    pub conj: Option<String>,
    /// The getter(s) of the result, one per metric.
    #[serde(default)]
    pub result: Option<OneOrMany<Map<String, Value>>>,
    /// The getter(s) of the expected value, one per metric.
    #[serde(default)]
    pub expected: Option<OneOrMany<Map<String, Value>>>,
    /// Options per metric (or one object for all).
    #[serde(default)]
    pub options: Option<OneOrMany<Map<String, Value>>>,
}

/// An OSWorld task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// Unique id.
    pub id: String,
    /// What the agent is asked to do.
    pub instruction: String,
    /// The VM snapshot OSWorld would restore (informational here).
    #[serde(default)]
    pub snapshot: String,
    /// Where the task comes from: one text or several (OSWorld writes both).
    #[serde(default)]
    pub source: OneOrMany<String>,
    /// The applications involved; the first names the task's domain.
    #[serde(default)]
    pub related_apps: Vec<String>,
    /// Setup steps.
    #[serde(default)]
    pub config: Vec<Step>,
    /// How it is scored.
    pub evaluator: Evaluator,
    /// Every other key, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Task {
    /// The task's first related app, else its snapshot: the domain of a
    /// task file that lies in no folder of its own ([`TaskFile::domain`]).
    pub fn app_domain(&self) -> &str {
        self.related_apps
            .first()
            .map(String::as_str)
            .filter(|s| !s.is_empty())
            .unwrap_or(&self.snapshot)
    }

    /// Whether the task is meant to be refused (`func: infeasible`).
    pub fn infeasible(&self) -> bool {
        self.evaluator
            .func
            .items()
            .iter()
            .any(|f| f.trim() == "infeasible")
    }
}

/// A task and the file it came from.
#[derive(Debug, Clone)]
pub struct TaskFile {
    /// The task.
    pub task: Task,
    /// Its file.
    pub path: PathBuf,
    /// The folder it belongs to, as OSWorld names its domains
    /// (`examples/chrome/<id>.json` is in `chrome`), when it lies in one
    /// below the folder given; `None` for a file at the top of it.
    pub folder: Option<String>,
}

impl TaskFile {
    /// The task's domain: its folder (OSWorld's domain), else its first
    /// related app.
    pub fn domain(&self) -> &str {
        self.folder
            .as_deref()
            .unwrap_or_else(|| self.task.app_domain())
    }

    /// The task's name in a run: `<folder>/<id>`, or the bare id of a task
    /// that lies in no folder. The same id in two domains is two tasks.
    pub fn key(&self) -> String {
        match &self.folder {
            Some(f) => format!("{f}/{}", self.task.id),
            None => self.task.id.clone(),
        }
    }
}

/// Why a task file could not be read.
#[derive(Debug, thiserror::Error)]
#[error("task {path}: {message}")]
pub struct TaskError {
    /// The file.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// The error underneath (I/O, JSON), when there is one.
    #[source]
    pub source: Option<ufo_core::BoxError>,
}

impl ufo_core::Diagnostic for TaskError {
    fn code(&self) -> &'static str {
        "ufo::eval::task"
    }
    fn help(&self) -> Option<String> {
        Some("a task file is OSWorld's JSON: id, instruction, config [{type, parameters}], evaluator {func, result, expected, options}".into())
    }
}

/// Reads one task file.
pub fn load(path: &Path) -> Result<TaskFile, TaskError> {
    let err = |message: &str, source: Option<ufo_core::BoxError>| TaskError {
        path: path.display().to_string(),
        message: message.to_owned(),
        source,
    };
    let text = std::fs::read_to_string(path).map_err(|e| err("cannot read it", Some(e.into())))?;
    let task: Task =
        serde_json::from_str(&text).map_err(|e| err("not an OSWorld task", Some(e.into())))?;
    if task.id.trim().is_empty() {
        return Err(err("`id` is empty", None));
    }
    Ok(TaskFile {
        task,
        path: path.to_path_buf(),
        folder: None,
    })
}

/// Where a task's `$WORK` and `$SUITE` point.
#[derive(Debug, Clone)]
pub struct Places {
    /// The task's working directory (its home), as this process sees it.
    pub work: PathBuf,
    /// The folder of the task file.
    pub suite: PathBuf,
    /// On a task desktop run as an account: where its programs see
    /// `work` (`/home/user`) and who owns what is written there.
    pub home: Option<TaskHome>,
}

/// The home of a task desktop run as an account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskHome {
    /// Where the task's programs see it (`/home/user`).
    pub at: PathBuf,
    /// The account's user id.
    pub uid: u32,
    /// The account's group id.
    pub gid: u32,
    /// The host folder that is the desktop's own `/tmp`, once it runs.
    pub tmp: Option<PathBuf>,
}

impl Places {
    /// What `$WORK` and `~` are to the task's programs.
    pub fn inside(&self) -> &Path {
        self.home.as_ref().map_or(&self.work, |h| &h.at)
    }

    /// `s` with `$WORK`, `$SUITE` and a leading `~` replaced, as the task's
    /// programs see them.
    pub fn expand(&self, s: &str) -> String {
        let work = self.inside().display().to_string();
        let mut out = s
            .replace("$WORK", &work)
            .replace("$SUITE", &self.suite.display().to_string());
        if let Some(rest) = out.strip_prefix('~') {
            out = format!("{work}{rest}");
        }
        out
    }

    /// `s` with `$WORK` and `$SUITE` replaced, `~` left alone (a shell
    /// script's own `~` is the task's `$HOME` already).
    pub fn expand_vars(&self, s: &str) -> String {
        s.replace("$WORK", &self.inside().display().to_string())
            .replace("$SUITE", &self.suite.display().to_string())
    }

    /// A path parameter as the task's programs see it, expanded; a
    /// relative one is in their home (OSWorld's server runs there).
    pub fn desktop_path(&self, s: &str) -> PathBuf {
        self.inside().join(self.expand(s))
    }

    /// A path parameter as this process reads and writes it: what the
    /// task's programs see in their home (`/home/user/...`) is in
    /// [`Places::work`], what they see in `/tmp` in their own `/tmp`
    /// folder ([`TaskHome::tmp`]).
    pub fn path(&self, s: &str) -> PathBuf {
        let p = self.desktop_path(s);
        let Some(h) = &self.home else {
            return p;
        };
        if let Ok(rest) = p.strip_prefix(&h.at) {
            return self.work.join(rest);
        }
        // The suite's folder is the same on both sides (a task desktop
        // keeps it visible through its own /tmp).
        if p.starts_with(&self.suite) {
            return p;
        }
        match (&h.tmp, p.strip_prefix("/tmp")) {
            (Some(tmp), Ok(rest)) => tmp.join(rest),
            _ => p,
        }
    }

    /// A file this process reads on the host's side (a download's local
    /// source, `file://$SUITE/...`): in the task's home when it names it
    /// (`~`, `$WORK`, `/home/user/...`), anywhere else the host's own, its
    /// `/tmp` included.
    pub fn host_path(&self, s: &str) -> PathBuf {
        let p = self.desktop_path(s);
        match &self.home {
            Some(h) => match p.strip_prefix(&h.at) {
                Ok(rest) => self.work.join(rest),
                Err(_) => p,
            },
            None => p,
        }
    }

    /// Gives `path`, written by this process in the task's home or its
    /// `/tmp`, and the folders between it and there, to the task's account
    /// (its programs may change what setup put there).
    pub fn give(&self, path: &Path) -> std::io::Result<()> {
        let Some(h) = &self.home else {
            return Ok(());
        };
        let tmp = h
            .tmp
            .as_ref()
            .and_then(|t| Some((t, path.strip_prefix(t).ok()?)));
        let (base, rest) = match (path.strip_prefix(&self.work), tmp) {
            (Ok(rest), _) => (&self.work, rest),
            (Err(_), Some((t, rest))) => (t, rest),
            (Err(_), None) => return Ok(()),
        };
        let mut at = base.clone();
        for part in rest.components() {
            at.push(part);
            std::os::unix::fs::lchown(&at, Some(h.uid), Some(h.gid))?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn osworld_tasks_are_read_as_they_are() {
        let t: Task = serde_json::from_value(serde_json::json!({
            "id": "a1", "snapshot": "gedit", "instruction": "Write hi",
            "source": "ufo-rs", "related_apps": ["gedit"],
            "config": [{"type": "launch", "parameters": {"command": ["gedit"]}}],
            "trajectory": "trajectories/",
            "evaluator": {"func": ["compare_text_file", "exact_match"], "conj": "or",
                          "result": [{"type": "vm_file", "path": "~/a.txt", "dest": "a.txt"},
                                     {"type": "vm_command_line", "command": ["cat", "$WORK/a.txt"]}],
                          "expected": {"type": "rule", "rules": {"expected": "hi"}},
                          "options": {}}
        }))
        .unwrap();
        assert_eq!(t.app_domain(), "gedit");
        assert_eq!(t.evaluator.func.items().len(), 2);
        assert_eq!(t.evaluator.result.as_ref().unwrap().items().len(), 2);
        assert_eq!(t.evaluator.expected.as_ref().unwrap().items().len(), 1);
        assert!(t.extra.contains_key("trajectory"));
        assert!(!t.infeasible());
        // `source` as OSWorld also writes it: a list.
        let t: Task = serde_json::from_value(serde_json::json!({
            "id": "a2", "instruction": "x", "source": ["https://a", "https://b"],
            "evaluator": {"func": "infeasible"}
        }))
        .unwrap();
        assert_eq!(t.source.items().len(), 2);
        let mut places = Places {
            work: "/w".into(),
            suite: "/s".into(),
            home: None,
        };
        assert_eq!(places.expand("~/a.txt"), "/w/a.txt");
        assert_eq!(places.expand("$SUITE/fixtures/x"), "/s/fixtures/x");
        assert_eq!(places.path("a/b.sh"), Path::new("/w/a/b.sh"));
        // A task desktop run as an account sees its home at /home/user;
        // this process reads and writes it in `work`.
        places.home = Some(TaskHome {
            at: "/home/user".into(),
            uid: 5,
            gid: 5,
            tmp: Some("/state/tmp".into()),
        });
        assert_eq!(places.expand("~/a.txt"), "/home/user/a.txt");
        assert_eq!(places.expand_vars("cd $WORK"), "cd /home/user");
        assert_eq!(
            places.path("/home/user/Desktop/x"),
            Path::new("/w/Desktop/x")
        );
        assert_eq!(places.path("~/x"), Path::new("/w/x"));
        assert_eq!(places.path("x"), Path::new("/w/x"));
        assert_eq!(places.desktop_path("x"), Path::new("/home/user/x"));
        // Its /tmp is its own; a source the harness reads is the host's.
        assert_eq!(places.path("/tmp/x"), Path::new("/state/tmp/x"));
        assert_eq!(places.host_path("/tmp/x"), Path::new("/tmp/x"));
        assert_eq!(places.host_path("~/x"), Path::new("/w/x"));
        let in_tmp = Places {
            suite: "/tmp/s".into(),
            ..places.clone()
        };
        assert_eq!(in_tmp.path("$SUITE/f"), Path::new("/tmp/s/f"));
        assert_eq!(places.path("/var/x"), Path::new("/var/x"));
        assert_eq!(places.path("$SUITE/f"), Path::new("/s/f"));
    }
}
