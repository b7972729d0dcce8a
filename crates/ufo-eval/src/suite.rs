//! Finding the tasks of a run: OSWorld's `evaluation_examples/` as it is, a
//! list of its (`test_all.json`, `test_small.json`), any folder of task
//! files, or one file; and the `--domain`/`--ids` filters.
//!
//! OSWorld names a task by its domain (the folder it lies in,
//! `examples/<domain>/<id>.json`) and its id; ids repeat across domains (a
//! chrome task and a thunderbird task share one), so a task's name in a run
//! is [`TaskFile::key`], `<domain>/<id>`, and both run.

use crate::task::{TaskError, TaskFile, load};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// The list OSWorld's harness reads: domain → task ids.
pub type Meta = BTreeMap<String, Vec<String>>;

/// Every task of `path`, and the files that could not be read beside them
/// (one broken task does not stop a run):
///
/// - OSWorld's tree (a folder holding `test_all.json` and `examples/`): the
///   tasks `test_all.json` lists, `examples/<domain>/<id>.json`, each in its
///   domain, in the list's order;
/// - such a list itself (`evaluation_examples/test_small.json`): its tasks,
///   from `examples/` beside it;
/// - any other folder: every `*.json` below it (sorted by path; folders
///   named `plans` or `fixtures` hold no tasks); a file in a subfolder
///   belongs to that folder (`chrome/x.json` is in `chrome`), a file at the
///   top to no folder (its domain is then its first related app);
/// - one task file: it, in its folder when that folder lies in an
///   `examples/` folder as OSWorld's do.
///
/// Two tasks with the same [`TaskFile::key`] are an error for the second.
pub fn load_suite(path: &Path) -> (Vec<TaskFile>, Vec<TaskError>) {
    let mut tasks = Vec::new();
    let mut errors = Vec::new();
    let mut add = |r: Result<TaskFile, TaskError>| match r {
        Ok(t) => tasks.push(t),
        Err(e) => errors.push(e),
    };
    if path.is_dir() && path.join("test_all.json").is_file() && path.join("examples").is_dir() {
        match read_meta(&path.join("test_all.json")) {
            Ok(meta) => listed(&path.join("examples"), &meta)
                .into_iter()
                .for_each(add),
            Err(e) => add(Err(e)),
        }
    } else if path.is_dir() {
        let mut files = Vec::new();
        collect(path, &mut files);
        files.sort();
        for f in files {
            add(load(&f).map(|t| in_folder(t, path)));
        }
    } else if let Some(meta) = as_meta(path) {
        let examples = path
            .parent()
            .unwrap_or_else(|| Path::new("."))
            .join("examples");
        listed(&examples, &meta).into_iter().for_each(add);
    } else {
        add(load(path).map(|mut t| {
            t.folder = osworld_folder(path);
            t
        }));
    }
    let mut seen = HashSet::new();
    tasks.retain(|t| {
        let fresh = seen.insert(t.key());
        if !fresh {
            errors.push(TaskError {
                path: t.path.display().to_string(),
                message: format!("task {:?} is listed twice; the second is skipped", t.key()),
                source: None,
            });
        }
        fresh
    });
    (tasks, errors)
}

/// Whether `path` is OSWorld's tree as [`load_suite`] reads it: its
/// `evaluation_examples/` (`test_all.json` and `examples/`), a list in it
/// (`test_small.json`), or a folder or file under an `examples/` folder.
pub fn is_osworld_tree(path: &Path) -> bool {
    let tree = |p: &Path| p.join("test_all.json").is_file() && p.join("examples").is_dir();
    (path.is_dir() && tree(path))
        || (path.is_file() && as_meta(path).is_some())
        || path
            .ancestors()
            .any(|a| a.file_name().is_some_and(|n| n == "examples"))
}

/// Reads an OSWorld list (`test_all.json`): domain → ids.
pub fn read_meta(path: &Path) -> Result<Meta, TaskError> {
    let err = |message: &str, source: Option<ufo_core::BoxError>| TaskError {
        path: path.display().to_string(),
        message: message.to_owned(),
        source,
    };
    let text = std::fs::read_to_string(path).map_err(|e| err("cannot read it", Some(e.into())))?;
    serde_json::from_str(&text).map_err(|e| {
        err(
            "not a list of tasks ({\"domain\": [\"id\", ...]})",
            Some(e.into()),
        )
    })
}

/// `path` as an OSWorld list, when it is one (an object of id lists; a task
/// has an `instruction`).
fn as_meta(path: &Path) -> Option<Meta> {
    let text = std::fs::read_to_string(path).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    let o = v.as_object()?;
    let lists = o
        .values()
        .all(|l| l.as_array().is_some_and(|a| a.iter().all(Value::is_string)));
    match lists && !o.contains_key("instruction") {
        true => serde_json::from_value(v).ok(),
        false => None,
    }
}

/// The tasks `meta` lists, from `examples/<domain>/<id>.json`.
fn listed(examples: &Path, meta: &Meta) -> Vec<Result<TaskFile, TaskError>> {
    let mut out = Vec::new();
    for (domain, ids) in meta {
        for id in ids {
            let file = examples.join(domain).join(format!("{id}.json"));
            out.push(load(&file).map(|mut t| {
                t.folder = Some(domain.clone());
                t
            }));
        }
    }
    out
}

/// `t`, in the folder of its file below `root` (none at the top).
fn in_folder(mut t: TaskFile, root: &Path) -> TaskFile {
    t.folder = t
        .path
        .parent()
        .and_then(|p| p.strip_prefix(root).ok())
        .map(|rel| {
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        })
        .filter(|f| !f.is_empty());
    t
}

/// The domain of a lone OSWorld task file: its folder, when that lies in
/// `examples/`.
fn osworld_folder(file: &Path) -> Option<String> {
    let folder = file.parent()?;
    let examples = folder.parent()?;
    match examples.file_name()? == "examples" {
        true => Some(folder.file_name()?.to_string_lossy().into_owned()),
        false => None,
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            if !matches!(name.as_str(), "plans" | "fixtures") && !name.starts_with('.') {
                collect(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

/// `--domain` and `--ids`: which of the loaded tasks run. Empty lists let
/// every task through.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Domains to keep ([`TaskFile::domain`]).
    pub domains: Vec<String>,
    /// Tasks to keep, by id or by `<domain>/<id>`.
    pub ids: Vec<String>,
}

impl Filter {
    /// The tasks that pass both filters, in order, and the filter values no
    /// task has (a typo should be seen, not silently run nothing).
    pub fn apply(&self, tasks: Vec<TaskFile>) -> (Vec<TaskFile>, Vec<String>) {
        let mut used: HashSet<&str> = HashSet::new();
        let mut kept = Vec::new();
        for t in tasks {
            let domain = self
                .domains
                .iter()
                .find(|d| d.as_str() == t.domain())
                .map(String::as_str);
            let key = t.key();
            let id = self
                .ids
                .iter()
                .find(|i| **i == t.task.id || **i == key)
                .map(String::as_str);
            let pass_domain = self.domains.is_empty() || domain.is_some();
            let pass_id = self.ids.is_empty() || id.is_some();
            // A value is used when some task has it, whatever the other filter says.
            used.extend(domain);
            used.extend(id);
            if pass_domain && pass_id {
                kept.push(t);
            }
        }
        let unmatched = self
            .domains
            .iter()
            .chain(&self.ids)
            .filter(|v| !used.contains(v.as_str()))
            .cloned()
            .collect();
        (kept, unmatched)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn task(id: &str) -> String {
        format!(
            r#"{{"id": "{id}", "instruction": "x", "source": ["a", "b"], "trajectory": "t/",
                 "related_apps": ["app"], "evaluator": {{"func": "infeasible"}}}}"#
        )
    }

    /// OSWorld's tree: the listed tasks only, the same id in two domains is
    /// two tasks, a listed file that is missing is an error beside them.
    #[test]
    fn osworld_trees_load_by_their_list_with_ids_per_domain() {
        let dir = tempfile::tempdir().unwrap();
        let ex = dir.path().join("examples");
        for d in ["chrome", "thunderbird", "settings"] {
            std::fs::create_dir_all(ex.join(d)).unwrap();
        }
        std::fs::write(ex.join("chrome/same.json"), task("same")).unwrap();
        std::fs::write(ex.join("thunderbird/same.json"), task("same")).unwrap();
        std::fs::write(ex.join("chrome/other.json"), task("other")).unwrap();
        std::fs::write(ex.join("settings/not-listed.json"), "{}").unwrap();
        let meta = r#"{"chrome": ["same", "other", "gone"], "thunderbird": ["same"]}"#;
        std::fs::write(dir.path().join("test_all.json"), meta).unwrap();
        std::fs::write(
            dir.path().join("test_small.json"),
            r#"{"thunderbird": ["same"]}"#,
        )
        .unwrap();

        let (tasks, errors) = load_suite(dir.path());
        let keys: Vec<String> = tasks.iter().map(TaskFile::key).collect();
        // In the list's order, as OSWorld's harness runs them.
        assert_eq!(keys, ["chrome/same", "chrome/other", "thunderbird/same"]);
        assert_eq!(tasks[2].domain(), "thunderbird");
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].path.ends_with("chrome/gone.json"), "{errors:?}");

        // A list file names its own tasks.
        let (small, errors) = load_suite(&dir.path().join("test_small.json"));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(small.len(), 1);
        assert_eq!(small[0].key(), "thunderbird/same");

        // One file of the tree keeps its domain.
        let (one, _) = load_suite(&ex.join("chrome/same.json"));
        assert_eq!(one[0].key(), "chrome/same");

        // The examples folder itself: its subfolders are the domains.
        let (all, errors) = load_suite(&ex);
        assert_eq!(all.len(), 3);
        assert_eq!(errors.len(), 1, "settings/not-listed.json: {errors:?}");

        // Filters: by domain, by id or domain/id; unknown values are named.
        let f = Filter {
            domains: vec!["chrome".into(), "vlc".into()],
            ids: vec!["same".into()],
        };
        let (kept, unmatched) = f.apply(tasks.clone());
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].key(), "chrome/same");
        assert_eq!(unmatched, ["vlc"]);
        // `other` is an id (of chrome's), though not of a kept task.
        let f = Filter {
            domains: vec!["thunderbird".into()],
            ids: vec!["same".into(), "other".into()],
        };
        let (kept, unmatched) = f.apply(tasks.clone());
        assert_eq!((kept.len(), unmatched.len()), (1, 0));
        let f = Filter {
            domains: vec![],
            ids: vec!["thunderbird/same".into()],
        };
        assert_eq!(f.apply(tasks.clone()).0[0].domain(), "thunderbird");
        assert_eq!(Filter::default().apply(tasks).0.len(), 3);
    }

    #[test]
    fn a_suite_keeps_good_tasks_beside_bad_ones() {
        let dir = tempfile::tempdir().unwrap();
        let good = r#"{"id": "g", "instruction": "x", "evaluator": {"func": "infeasible"}}"#;
        std::fs::write(dir.path().join("a.json"), good).unwrap();
        std::fs::write(dir.path().join("b.json"), "{not json").unwrap();
        std::fs::write(dir.path().join("c.json"), good).unwrap();
        std::fs::create_dir(dir.path().join("plans")).unwrap();
        std::fs::write(dir.path().join("plans/g.json"), "{}").unwrap();
        let (tasks, errors) = load_suite(dir.path());
        assert_eq!(tasks.len(), 1);
        assert!(tasks[0].task.infeasible());
        // At the top of the folder: no domain folder, the bare id.
        assert_eq!(tasks[0].key(), "g");
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors.iter().any(|e| e.message.contains("listed twice")));
        // The broken file: the parser's error is the cause.
        let bad = errors.iter().find(|e| e.path.ends_with("b.json")).unwrap();
        let text = ufo_core::render(bad);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            format!(
                "error[ufo::eval::task]: task {}: not an OSWorld task",
                bad.path
            )
        );
        assert!(
            lines[1].starts_with("  caused by: key must be a string at line 1"),
            "{text}"
        );
        assert!(
            lines[2].starts_with("  help: a task file is OSWorld's JSON"),
            "{text}"
        );
    }
}
