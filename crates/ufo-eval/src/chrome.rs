//! Chrome on a task's desktop: how the browser a task launches is started,
//! where its profile is, and OSWorld's Chrome setup steps
//! (`desktop_env/controllers/setup.py`).
//!
//! ## `google-chrome` → `chromium`
//! OSWorld's VM has Google Chrome; Debian has Chromium. A `launch` of
//! `google-chrome` (or `google-chrome-stable`) when it is not installed
//! runs `chromium` with the same arguments, logged as a warning. Either
//! browser is started ([`browser_command`]):
//! - with its profile at `~/.config/google-chrome` (`--user-data-dir`),
//!   where OSWorld's tasks and getters look for `Preferences`, `Bookmarks`,
//!   `History`, ... (the task's home is fresh, so the profile is too);
//! - with `--remote-debugging-port=0` in place of the port the task names:
//!   tasks run side by side on one network, so the browser picks a free
//!   port and writes it to the profile's `DevToolsActivePort`, where the
//!   harness finds it ([`crate::cdp::Cdp::find`]); the task's `socat`
//!   forwarding of 9222 is left to run and is not used;
//! - with `ACCESSIBILITY_ENABLED=1` in its environment (through `env`:
//!   Chromium joins the accessibility bus only then) and `--no-sandbox`
//!   (the task's account has no user namespaces to
//!   sandbox in), `--force-renderer-accessibility` (pages on the
//!   accessibility bus, as the getters read the address bar there),
//!   `--password-store=basic`, and without first-run dialogs, background
//!   networking, component updates or sync.
//!
//! A window a task activates or closes by the name `Google Chrome` is
//! Chromium's then ([`window_names`]).
//!
//! ## Setup steps
//! | type | parameters | here |
//! |---|---|---|
//! | `chrome_open_tabs` | `urls_to_open` | each URL in a new tab (`/json/new`), its load waited for (at most 60 s; a page that does not load is logged, as OSWorld's warning); after the first, the tab that was open before is closed |
//! | `chrome_close_tabs` | `urls_to_close` | after 5 s (as OSWorld), the first tab whose URL equals each (OSWorld's `compare_urls`) is closed |
//! | `update_browse_history` | `history`: `[{url, title, visit_time_from_now_in_seconds}]` | OSWorld's history database (downloaded through the cache or the mirror, [`HISTORY_DB_URL`]) gets each entry (a row of `urls` and one of `visits`) and becomes `~/.config/google-chrome/Default/History` |
//!
//! The browser is found for at most 75 s (OSWorld tries 15 times, 5 s
//! apart); not found, the step fails and is logged (OSWorld raises after
//! its tries; its harness logs the failed step and goes on).

use crate::cdp::{Cdp, Page};
use crate::command::{Cmd, installed};
use crate::task::Places;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The history database OSWorld's `update_browse_history` starts from.
pub const HISTORY_DB_URL: &str = "https://drive.usercontent.google.com/u/0/uc?id=1Lv74QkJYDWVX0RIgg0Co-DUcoYpVL0oX&export=download";

/// Chrome's profile folder in a task's home, as OSWorld's tasks name it.
pub const PROFILE: &str = "~/.config/google-chrome";

/// The flags every browser a task launches gets (see the module docs).
const FLAGS: &[&str] = &[
    "--no-sandbox",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--password-store=basic",
    "--force-renderer-accessibility",
];

/// Whether `program` names a Chrome-family browser.
fn is_browser(program: &str) -> bool {
    let base = Path::new(program)
        .file_name()
        .map(|b| b.to_string_lossy().into_owned())
        .unwrap_or_default();
    matches!(
        base.as_str(),
        "google-chrome" | "google-chrome-stable" | "chromium" | "chromium-browser"
    )
}

/// The program that runs for `program`: itself, or `chromium` for a
/// Google Chrome that is not installed (when Chromium is).
pub fn program_for(program: &str) -> &str {
    let google = Path::new(program)
        .file_name()
        .is_some_and(|b| b.to_string_lossy().starts_with("google-chrome"));
    match google && !installed(program) && installed("chromium") {
        true => "chromium",
        false => program,
    }
}

/// A `launch` command as it runs here: a Chrome-family browser started as
/// the module docs say, with a note of what changed; anything else as it is.
pub fn browser_command(cmd: &Cmd, places: &Places) -> (Cmd, Option<String>) {
    let Cmd::Words(words) = cmd else {
        return (cmd.clone(), None);
    };
    let Some((program, args)) = words.split_first() else {
        return (cmd.clone(), None);
    };
    if !is_browser(program) {
        return (cmd.clone(), None);
    }
    let runs = program_for(program).to_owned();
    // Chromium joins the accessibility bus only when told to.
    let mut out = vec!["env".into(), "ACCESSIBILITY_ENABLED=1".into(), runs.clone()];
    let mut ports = Vec::new();
    for a in args {
        match a.strip_prefix("--remote-debugging-port=") {
            Some(p) => {
                ports.push(p.to_owned());
                out.push("--remote-debugging-port=0".into());
            }
            None => out.push(a.clone()),
        }
    }
    if !args.iter().any(|a| a.starts_with("--user-data-dir")) {
        let dir = places.desktop_path(PROFILE);
        out.push(format!("--user-data-dir={}", dir.display()));
    }
    out.extend(FLAGS.iter().map(|f| (*f).to_owned()));
    let mut note = Vec::new();
    if runs != *program {
        note.push(format!(
            "{program} is not installed: Debian's {runs} runs in its place"
        ));
    }
    if !ports.is_empty() {
        note.push(format!(
            "its DevTools port {} is replaced by one it picks (read from DevToolsActivePort)",
            ports.join(", ")
        ));
    }
    let note = (!note.is_empty()).then(|| note.join("; "));
    (Cmd::Words(out), note)
}

/// The window names that stand for `name` (`activate_window`,
/// `close_window`): itself, and where Chromium stands in for Chrome,
/// `Google Chrome` as `Chromium` (its windows are `<title> - Chromium`).
pub fn window_names(name: &str) -> Vec<String> {
    let mut names = vec![name.to_owned()];
    if name.contains("Google Chrome") && program_for("google-chrome") == "chromium" {
        names.push(name.replace("Google Chrome", "Chromium"));
    }
    names
}

/// The browser's profile folders in the task's home, as this process
/// reads them: Chrome's (where tasks launch it) and Chromium's default.
pub fn profiles(places: &Places) -> Vec<PathBuf> {
    vec![places.path(PROFILE), places.path("~/.config/chromium")]
}

/// The first of `profiles` that has `file` (`Default/Preferences`,
/// `Local State`).
pub fn profile_file(places: &Places, file: &str) -> Option<PathBuf> {
    profiles(places)
        .into_iter()
        .map(|p| p.join(file))
        .find(|p| p.is_file())
}

/// How long the setup steps look for the browser.
const FIND: Duration = Duration::from_secs(75);

/// A list of strings of a step's parameter.
fn strings(p: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    match p.get(key) {
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("`{key}` must be a list of URLs, got {v}"))
            })
            .collect(),
        _ => Err(format!("`{key}` is missing (a list of URLs)")),
    }
}

/// `chrome_open_tabs`' parameters checked before the browser is asked.
pub(crate) fn open_tabs_urls(p: &Map<String, Value>) -> Result<Vec<String>, String> {
    strings(p, "urls_to_open")
}

/// `chrome_close_tabs`' parameters.
pub(crate) fn close_tabs_urls(p: &Map<String, Value>) -> Result<Vec<String>, String> {
    strings(p, "urls_to_close")
}

/// Why `chrome_open_tabs` did not open every page as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TabsProblem {
    /// For the task's step problems.
    pub message: String,
    /// The pages the browser could not reach (its error page).
    pub unreached: Vec<String>,
}

impl From<String> for TabsProblem {
    fn from(message: String) -> Self {
        TabsProblem {
            message,
            unreached: Vec::new(),
        }
    }
}

/// The address Chromium shows in place of a page it could not reach.
const ERROR_PAGE: &str = "chrome-error://";

/// `chrome_open_tabs`: each URL in a new tab; the tab open before is
/// closed after the first. Pages that do not load within 60 s, and pages
/// the browser could not reach (no network: its error page), are named in
/// the error (the tabs stay, as OSWorld's).
pub(crate) async fn open_tabs(places: &Places, urls: &[String]) -> Result<(), TabsProblem> {
    let cdp = Cdp::find(&profiles(places), FIND)
        .await
        .map_err(|e| e.to_string())?;
    let before = cdp.tabs().await.map_err(|e| e.to_string())?;
    let (mut slow, mut unreached) = (Vec::new(), Vec::new());
    for (i, url) in urls.iter().enumerate() {
        let tab = cdp.new_tab(url).await.map_err(|e| e.to_string())?;
        match Page::open(&tab).await {
            Ok(mut p) => {
                if !p.wait_navigated(url, Duration::from_secs(60)).await {
                    slow.push(url.clone());
                } else if p.href().await.is_some_and(|h| h.starts_with(ERROR_PAGE)) {
                    unreached.push(url.clone());
                }
            }
            Err(_) => slow.push(url.clone()),
        }
        if i == 0 {
            // Playwright's `context.pages[0]`: the oldest tab (the new one
            // when none was open).
            let default = before.last().map_or(tab.id.clone(), |t| t.id.clone());
            cdp.close(&default).await.map_err(|e| e.to_string())?;
        }
    }
    let mut why = Vec::new();
    if !slow.is_empty() {
        why.push(format!(
            "opening {} exceeds the time limit (60 s)",
            slow.join(", ")
        ));
    }
    if !unreached.is_empty() {
        why.push(format!(
            "the browser could not reach {} (its error page: no network?)",
            unreached.join(", ")
        ));
    }
    match why.is_empty() {
        true => Ok(()),
        false => Err(TabsProblem {
            message: why.join("; "),
            unreached,
        }),
    }
}

/// `chrome_close_tabs`: for each URL, the first tab showing it is closed.
/// A URL no tab shows is passed over, as OSWorld's does, and named in the
/// error (the step's problem: the task then starts with that tab open).
pub(crate) async fn close_tabs(places: &Places, urls: &[String]) -> Result<(), String> {
    tokio::time::sleep(Duration::from_secs(5)).await;
    let cdp = Cdp::find(&profiles(places), FIND)
        .await
        .map_err(|e| e.to_string())?;
    let mut missed = Vec::new();
    for url in urls {
        let tabs = cdp.tabs().await.map_err(|e| e.to_string())?;
        // Playwright's order: the oldest tab first.
        match tabs
            .iter()
            .rev()
            .find(|t| crate::checkers::compare_urls(&t.url, url))
        {
            Some(t) => cdp.close(&t.id).await.map_err(|e| e.to_string())?,
            None => missed.push(format!(
                "{url} (open: {})",
                tabs.iter()
                    .map(|t| t.url.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    match missed.is_empty() {
        true => Ok(()),
        false => Err(format!("no tab shows {}", missed.join("; "))),
    }
}

/// One entry of `update_browse_history`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Visit {
    url: String,
    title: String,
    ago_s: f64,
}

/// `update_browse_history`'s entries, checked.
pub(crate) fn history_entries(p: &Map<String, Value>) -> Result<Vec<Visit>, String> {
    let items = p
        .get("history")
        .and_then(Value::as_array)
        .ok_or("`history` is missing (a list of {url, title, visit_time_from_now_in_seconds})")?;
    items
        .iter()
        .map(|h| {
            let s = |k: &str| h.get(k).and_then(Value::as_str).map(str::to_owned);
            match (s("url"), s("title"), h.get("visit_time_from_now_in_seconds").and_then(Value::as_f64)) {
                (Some(url), Some(title), Some(ago_s)) if ago_s.is_finite() => Ok(Visit { url, title, ago_s }),
                _ => Err(format!("each history entry needs `url`, `title` and `visit_time_from_now_in_seconds`, got {h}")),
            }
        })
        .collect()
}

/// Chrome's time: microseconds since 1601-01-01, `ago_s` before now.
fn chrome_time(ago_s: f64) -> i64 {
    const FROM_1601_TO_1970_S: i64 = 11_644_473_600;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    ((now - ago_s) * 1e6) as i64 + FROM_1601_TO_1970_S * 1_000_000
}

/// Adds `visits` to the history database at `db` as OSWorld does (a row of
/// `urls`, then one of `visits` pointing at it).
pub(crate) fn add_history(db: &Path, visits: &[Visit]) -> Result<(), String> {
    let conn = rusqlite::Connection::open(db)
        .map_err(|e| format!("cannot open the history database {}: {e}", db.display()))?;
    for v in visits {
        let t = chrome_time(v.ago_s);
        conn.execute(
            "INSERT INTO urls (url, title, visit_count, typed_count, last_visit_time, hidden) VALUES (?1, ?2, 1, 0, ?3, 0)",
            rusqlite::params![v.url, v.title, t],
        )
        .and_then(|_| {
            conn.execute(
                "INSERT INTO visits (url, visit_time, from_visit, transition, segment_id, visit_duration) VALUES (?1, ?2, 0, 805306368, 0, 0)",
                rusqlite::params![conn.last_insert_rowid(), t],
            )
        })
        .map_err(|e| format!("cannot add {} to the history database: {e}", v.url))?;
    }
    Ok(())
}

/// Where `update_browse_history` puts the database, as this process
/// writes it.
pub(crate) fn history_path(places: &Places) -> PathBuf {
    places.path(&format!("{PROFILE}/Default/History"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn places() -> Places {
        Places {
            work: PathBuf::from("/w"),
            suite: PathBuf::from("/s"),
            home: None,
        }
    }

    #[test]
    fn a_browser_launch_gets_its_profile_a_free_port_and_flags() {
        let cmd = Cmd::Words(vec![
            "chromium".into(),
            "--remote-debugging-port=1337".into(),
        ]);
        let (Cmd::Words(w), note) = browser_command(&cmd, &places()) else {
            panic!()
        };
        assert_eq!(w[..3], ["env", "ACCESSIBILITY_ENABLED=1", "chromium"]);
        assert_eq!(w[3], "--remote-debugging-port=0");
        assert_eq!(w[4], "--user-data-dir=/w/.config/google-chrome");
        assert_eq!(crate::command::program_of(&w), "chromium");
        assert!(w.contains(&"--no-sandbox".to_owned()));
        assert!(note.unwrap().contains("1337"));
        let other = Cmd::Words(vec!["socat".into(), "tcp-listen:9222,fork".into()]);
        assert_eq!(browser_command(&other, &places()), (other.clone(), None));
        assert_eq!(program_for("gedit"), "gedit");
        assert_eq!(window_names("gedit"), vec!["gedit"]);
        if program_for("google-chrome") == "chromium" {
            assert_eq!(
                window_names("Google Chrome"),
                vec!["Google Chrome", "Chromium"]
            );
        }
    }

    #[test]
    fn tabs_to_close_are_matched_as_osworld_does() {
        use crate::checkers::compare_urls;
        assert!(compare_urls(
            "https://www.tripadvisor.com/",
            "https://www.tripadvisor.com"
        ));
        assert!(compare_urls("http://a.com/x", "http://A.com/x"));
        assert!(!compare_urls("https://a.com/x", "https://a.com/y"));
    }

    #[test]
    fn step_parameters_are_checked() {
        let p = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(
            open_tabs_urls(&p(json!({"urls_to_open": ["a", "b"]}))).unwrap(),
            vec!["a", "b"]
        );
        assert!(open_tabs_urls(&p(json!({"urls_to_open": [1]}))).is_err());
        assert!(close_tabs_urls(&p(json!({}))).is_err());
        let h = history_entries(&p(json!({"history": [
            {"url": "https://a/", "title": "A", "visit_time_from_now_in_seconds": 60}]})))
        .unwrap();
        assert_eq!(h[0].ago_s, 60.0);
        assert!(history_entries(&p(json!({"history": [{"url": "x"}]}))).is_err());
    }

    #[test]
    fn history_rows_are_added_in_chrome_time() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("History");
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch(
            "CREATE TABLE urls(id INTEGER PRIMARY KEY, url TEXT, title TEXT, visit_count INTEGER, typed_count INTEGER, last_visit_time INTEGER, hidden INTEGER);
             CREATE TABLE visits(id INTEGER PRIMARY KEY, url INTEGER, visit_time INTEGER, from_visit INTEGER, transition INTEGER, segment_id INTEGER, visit_duration INTEGER);",
        )
        .unwrap();
        drop(c);
        let v = Visit {
            url: "https://a/".into(),
            title: "A".into(),
            ago_s: 3600.0,
        };
        add_history(&db, &[v]).unwrap();
        let c = rusqlite::Connection::open(&db).unwrap();
        let (t, url): (i64, i64) = c
            .query_row("SELECT visit_time, url FROM visits", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!(url, 1);
        // 2020-01-01 in Chrome time is 13222310400 s; now is later.
        assert!(t > 13_222_310_400 * 1_000_000, "{t}");
        assert!((chrome_time(0.0) - t - 3_600_000_000).abs() < 10_000_000);
    }
}
