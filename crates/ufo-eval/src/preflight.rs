//! What is checked before a task's desktop starts, so that a task that
//! cannot run here says why in its status instead of failing somewhere in
//! its setup or scoring 0 as if it had run:
//!
//! 1. `needs_account`: a setup step `googledrive` or `login`, or a getter
//!    `googledrive_file` (they need a Google account and its credentials).
//! 2. `app_missing`: an application the task works on is not installed —
//!    a related app OSWorld names ([`APPS`]), a program a `launch` step
//!    starts (not a shell script's), or a program a checker runs
//!    (`mutool` for the PDF checkers, [`crate::checkers::program_for`]).
//! 3. `unavailable`: a file the task downloads (`download` steps,
//!    `cloud_file` getters over http(s), the history database of
//!    `update_browse_history`) cannot be had; all of them are
//!    fetched now (into the cache, or found in the mirror), so the setup and
//!    the getters later read them locally.

use crate::command::{Cmd, installed, launch_words};
use crate::fetch::Fetcher;
use crate::task::{Places, Step, TaskFile};
use serde_json::{Map, Value};

/// OSWorld's related apps and the programs that provide them (any one of
/// them will do). Names are compared lower-cased with spaces as `_`; a
/// name not listed (`os`, `terminal`, `pdf`) is not checked.
pub const APPS: &[(&str, &[&str])] = &[
    ("chrome", &["google-chrome", "chromium", "chromium-browser"]),
    ("vscode", &["code"]),
    ("vs_code", &["code"]),
    ("vlc", &["vlc"]),
    ("gimp", &["gimp"]),
    ("thunderbird", &["thunderbird"]),
    ("libreoffice_calc", &["soffice"]),
    ("libreoffice_writer", &["soffice"]),
    ("libreoffice_impress", &["soffice"]),
];

/// Why a task cannot run here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocked {
    /// It needs an account (Google Drive, a login).
    NeedsAccount,
    /// An application it works on is not installed.
    AppMissing,
    /// A file it downloads cannot be had.
    Unavailable,
}

/// Why a task cannot run here, and the reason in words; `None` when it can.
pub async fn check(task: &TaskFile, fetcher: &Fetcher) -> Option<(Blocked, String)> {
    let t = &task.task;
    let steps: Vec<&Step> = t.config.iter().chain(&t.evaluator.postconfig).collect();
    let getters = getters(task);
    let mut account: Vec<String> = steps
        .iter()
        .filter(|s| matches!(s.kind.as_str(), "googledrive" | "login"))
        .map(|s| format!("setup step `{}`", s.kind))
        .collect();
    if getters.iter().any(|g| kind(g) == "googledrive_file") {
        account.push("getter `googledrive_file`".into());
    }
    if !account.is_empty() {
        return Some((
            Blocked::NeedsAccount,
            format!("needs a Google account: {}", account.join(", ")),
        ));
    }
    let missing = missing_programs(task, &steps);
    if !missing.is_empty() {
        return Some((
            Blocked::AppMissing,
            format!("not installed: {}", missing.join(", ")),
        ));
    }
    let mut gone = Vec::new();
    for url in urls(&steps, &getters) {
        if let Err(e) = fetcher.fetch(&url).await {
            gone.push(ufo_core::render(&e));
        }
    }
    match gone.is_empty() {
        true => None,
        false => Some((Blocked::Unavailable, gone.join("\n"))),
    }
}

fn kind(g: &Map<String, Value>) -> &str {
    g.get("type").and_then(Value::as_str).unwrap_or_default()
}

/// Every getter of the task, result and expected.
fn getters(task: &TaskFile) -> Vec<Map<String, Value>> {
    let ev = &task.task.evaluator;
    [&ev.result, &ev.expected]
        .into_iter()
        .flatten()
        .flat_map(|g| g.items())
        .collect()
}

/// The programs the task needs that are not installed, each once.
fn missing_programs(task: &TaskFile, steps: &[&Step]) -> Vec<String> {
    let mut missing: Vec<String> = Vec::new();
    let mut note = |what: String| {
        if !missing.contains(&what) {
            missing.push(what);
        }
    };
    for app in &task.task.related_apps {
        let name = app.trim().to_lowercase().replace(' ', "_");
        if let Some((_, programs)) = APPS.iter().find(|(a, _)| *a == name)
            && !programs.iter().any(|p| installed(p))
        {
            note(format!("{} (related app {app:?})", programs.join(" or ")));
        }
    }
    // `$WORK` does not matter for a program's name.
    let places = Places {
        work: std::path::PathBuf::new(),
        suite: std::path::PathBuf::new(),
        home: None,
    };
    for s in steps.iter().filter(|s| s.kind == "launch") {
        if let Ok(Cmd::Words(w)) = launch_words(&s.parameters, &places)
            && !installed(crate::chrome::program_for(&w[0]))
        {
            note(w[0].clone());
        }
    }
    for func in task.task.evaluator.func.items() {
        if let Some((program, package)) = crate::checkers::program_for(&func)
            && !installed(program)
        {
            note(format!(
                "{program} (checker {func}; Debian package {package})"
            ));
        }
    }
    missing
}

/// The http(s) URLs the task downloads, in order, each once.
fn urls(steps: &[&Step], getters: &[Map<String, Value>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |u: &str| {
        if Fetcher::is_remote(u) && !out.iter().any(|o| o == u) {
            out.push(u.to_owned());
        }
    };
    for s in steps.iter().filter(|s| s.kind == "download") {
        let files = s.parameters.get("files").and_then(Value::as_array);
        for f in files.into_iter().flatten() {
            add(f.get("url").and_then(Value::as_str).unwrap_or_default());
        }
    }
    if steps.iter().any(|s| s.kind == "update_browse_history") {
        add(crate::chrome::HISTORY_DB_URL);
    }
    for g in getters.iter().filter(|g| kind(g) == "cloud_file") {
        match g.get("path") {
            Some(Value::String(s)) => add(s),
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).for_each(&mut add),
            _ => {}
        }
    }
    out
}
