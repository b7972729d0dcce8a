//! Setup and postconfig steps on a task's private desktop, with OSWorld's
//! semantics (`desktop_env/controllers/setup.py` and the VM's server).
//!
//! | type | parameters | here |
//! |---|---|---|
//! | `launch` | `command`, `shell` | an application (see [`is_application`]) is launched on the desktop's accessibility bus and its window waited for (at most 60 s); any other program (`socat`, `pkill`) or a shell script is started and left running until the task ends, as OSWorld's `Popen` |
//! | `open` | `path` | the desktop's default opener, as OSWorld's `xdg-open PATH` (any file type or a folder): `xdg-open`, else `gio open`, else the application of a few known extensions (`.xlsx` → `localc`, ...), else the step fails (logged); `app` (ours) names the application |
//! | `execute`, `command` | `command`, `shell`, `until`, `stdout`, `stderr`, `timeout` (ours) | runs to completion, at most 120 s; a non-zero exit is logged; `until` (`returncode`, `stdout`, `stderr`) repeats it every 0.3 s until it holds or 5 runs failed; `stdout`/`stderr` name files in the task's cache folder that get the output |
//! | `sleep` | `seconds` | |
//! | `activate_window` | `window_name`, `strict`, `by_class`, `timeout` (ours, 30 s: waits for the window) | `by_class`: the window's X class as `wmctrl -x` reads it (`Mail.thunderbird`) |
//! | `close_window` | `window_name`, `strict`, `by_class`, `timeout` | as OSWorld's `wmctrl -c`: the window found is asked to close through the window manager (Alt+F4 on it when wmctrl is missing), and confirmed gone within 5 s |
//! | `download` | `files`: `[{url, path}]` | `url` over http(s) through the cache or the mirror ([`crate::fetch`]), or a local path / `file://` |
//! | `chrome_open_tabs`, `chrome_close_tabs`, `update_browse_history` | | Chrome's, through its DevTools protocol and profile: see [`crate::chrome`] (a `launch` of `google-chrome` runs Debian's `chromium` when Chrome is not installed) |
//!
//! As in OSWorld, a step that fails on the desktop (a program that does not
//! start, a file to open that is missing, a command that fails or times
//! out, a window not found) is logged in the task's result and the setup
//! goes on ([`Failed::Logged`]); a step OSWorld's harness raises on stops
//! it: a malformed step, a download that fails, a type this build lacks.
//! Commands follow [`crate::command`] (why a task file may run a shell).

use crate::command::{
    COMMAND_TIMEOUT, Cmd, command, installed, is_application, launch_words, process, program_of,
    run,
};
use crate::fetch::{FetchError, Fetcher};
use crate::task::{Places, Step};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;
use ufo_core::BoxError;
use ufo_desktop::Backend;
use ufo_desktop_atspi::HeadlessDesktop;

/// Why a step failed.
#[derive(Debug, thiserror::Error)]
#[error("{kind} step {index}: {message}")]
pub struct StepError {
    /// Its position (1-based) in `config` or `postconfig`.
    pub index: usize,
    /// Its type.
    pub kind: String,
    /// What went wrong.
    pub message: String,
    /// The error underneath (the OS's, the desktop's), when there is one.
    #[source]
    pub source: Option<BoxError>,
}

impl ufo_core::Diagnostic for StepError {
    fn code(&self) -> &'static str {
        "ufo::eval::setup_step"
    }
    fn help(&self) -> Option<String> {
        Some("fix the step in the task file (`config`, or `postconfig` of `evaluator`); run its command by hand on a private desktop (`ufo desktop start`) to see why it fails".into())
    }
}

/// Why part of a step failed: what, and the error underneath when there is
/// one. A plain message converts into it.
#[derive(Debug)]
pub(crate) struct Why {
    message: String,
    source: Option<BoxError>,
}

impl Why {
    /// `message`, caused by `source`.
    fn new(message: impl Into<String>, source: impl Into<BoxError>) -> Self {
        Self {
            message: message.into(),
            source: Some(source.into()),
        }
    }
}

impl Why {
    /// The error of step `index` of type `kind`.
    fn of_step(self, index: usize, kind: &str) -> StepError {
        StepError {
            index,
            kind: kind.to_owned(),
            message: self.message,
            source: self.source,
        }
    }
}

impl From<String> for Why {
    fn from(message: String) -> Self {
        Self {
            message,
            source: None,
        }
    }
}

impl From<&str> for Why {
    fn from(message: &str) -> Self {
        message.to_owned().into()
    }
}

impl From<(String, Option<BoxError>)> for Why {
    fn from((message, source): (String, Option<BoxError>)) -> Self {
        Self { message, source }
    }
}

/// A step that did not go as written, and what it means for the task.
#[derive(Debug)]
pub enum Failed {
    /// Logged in the task's result; the setup goes on (OSWorld's server
    /// answers an error, its harness logs it and goes on).
    Logged(StepError),
    /// The setup stops and the task is `setup_failed` (OSWorld raises).
    Fatal(StepError),
    /// A file to download could not be had: the task is `unavailable`.
    Unavailable(StepError),
    /// A step type this build does not run: the task is `unsupported`.
    Unsupported(StepError),
    /// Logged as [`Failed::Logged`]; the pages named could not be reached
    /// (kept in the result's `unreached`).
    Unreached(StepError, Vec<String>),
}

/// Programs a task started and left running; ended with the task (their
/// handles kill them when dropped).
#[derive(Debug, Default)]
pub struct Started(Mutex<Vec<tokio::process::Child>>);

impl Started {
    fn keep(&self, child: tokio::process::Child) {
        if let Ok(mut c) = self.0.lock() {
            c.push(child);
        }
    }
}

/// What a step runs against.
pub struct StepContext<'a> {
    /// The task's desktop.
    pub desktop: &'a HeadlessDesktop,
    /// A backend connected to it.
    pub backend: &'a dyn Backend,
    /// `$WORK` and `$SUITE`.
    pub places: &'a Places,
    /// Downloads.
    pub fetcher: &'a Fetcher,
    /// The task's cache folder (`execute`'s `stdout`/`stderr` files, OSWorld's `cache_file`).
    pub cache: &'a Path,
    /// Programs started and left running.
    pub started: &'a Started,
}

/// The application that opens a file with this extension, when the desktop
/// has no default opener.
fn app_for(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
    Some(match ext.as_str() {
        "ods" | "xlsx" | "xls" | "csv" => "localc",
        "odt" | "docx" | "doc" | "rtf" => "lowriter",
        "odp" | "pptx" | "ppt" => "loimpress",
        "txt" | "md" | "log" | "json" | "py" | "conf" | "ini" => "mousepad",
        "html" | "htm" => "firefox-esr",
        "pdf" => "evince",
        _ => return None,
    })
}

fn seconds(p: &Map<String, Value>, key: &str, default: f64) -> Result<Duration, String> {
    match p.get(key) {
        None | Some(Value::Null) => Ok(Duration::from_secs_f64(default)),
        Some(v) => v
            .as_f64()
            .filter(|s| s.is_finite() && (0.0..=3600.0).contains(s))
            .map(Duration::from_secs_f64)
            .ok_or_else(|| format!("`{key}` must be seconds between 0 and 3600, got {v}")),
    }
}

/// The window a step names: by title (`strict`: the whole title), or with
/// `by_class` by its X class as `wmctrl -x` reads it (`instance.class`,
/// e.g. `Mail.thunderbird`); waited for up to `timeout`.
async fn find_window(
    cx: &StepContext<'_>,
    p: &Map<String, Value>,
) -> Result<ufo_core::WindowInfo, Why> {
    let name = p
        .get("window_name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let strict = p.get("strict").and_then(Value::as_bool).unwrap_or(false);
    let by_class = p.get("by_class").and_then(Value::as_bool).unwrap_or(false);
    let deadline = tokio::time::Instant::now() + seconds(p, "timeout", 30.0)?;
    loop {
        let windows = cx
            .backend
            .list_windows()
            .await
            .map_err(|e| Why::new("cannot list the windows", e))?;
        // "Google Chrome" is Chromium's window where Chromium stands in.
        let names = crate::chrome::window_names(name);
        let classed = match by_class {
            true => windows_of_class(cx, name, strict).await?,
            false => Vec::new(),
        };
        let found = windows.into_iter().find(|w| match by_class {
            true => w.native_id.is_some_and(|id| classed.contains(&id)),
            false => names.iter().any(|name| match strict {
                true => w.title == *name,
                false => w.title.contains(name.as_str()) || w.app_name == *name,
            }),
        });
        match found {
            Some(w) => return Ok(w),
            None if tokio::time::Instant::now() >= deadline => {
                return Err(format!("no window named {name:?}").into());
            }
            None => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// The X ids of the windows whose class (`wmctrl -lx`'s third column,
/// `instance.class`) is `name` (`strict`), or holds it, ignoring case, as
/// `wmctrl -x` matches.
async fn windows_of_class(cx: &StepContext<'_>, name: &str, strict: bool) -> Result<Vec<u64>, Why> {
    if !installed("wmctrl") {
        return Err("`by_class` needs wmctrl (apt-get install wmctrl)".into());
    }
    let cmd = Cmd::Words(vec!["wmctrl".into(), "-lx".into()]);
    let out = run(cx.desktop, cx.places, &cmd, Duration::from_secs(10)).await?;
    Ok(classes_matching(&out.stdout, name, strict))
}

/// The ids of `wmctrl -lx` lines (`ID DESKTOP CLASS HOST TITLE`) whose
/// class is or holds `name`.
fn classes_matching(listing: &str, name: &str, strict: bool) -> Vec<u64> {
    listing
        .lines()
        .filter_map(|line| {
            let mut cols = line.split_whitespace();
            let id = cols.next()?.strip_prefix("0x")?;
            let class = cols.nth(1)?;
            let hit = match strict {
                true => class == name,
                false => class.to_lowercase().contains(&name.to_lowercase()),
            };
            hit.then(|| u64::from_str_radix(id, 16).ok()).flatten()
        })
        .collect()
}

/// Runs one step; `index` is its place (1-based) in its list.
pub async fn run_step(cx: &StepContext<'_>, index: usize, step: &Step) -> Result<(), Failed> {
    let p = &step.parameters;
    let at = |w: Why| w.of_step(index, &step.kind);
    // What OSWorld's harness raises on: the step is malformed.
    let fatal = |m: String| Failed::Fatal(at(m.into()));
    match step.kind.as_str() {
        "launch" => {
            let cmd = launch_words(p, cx.places).map_err(fatal)?;
            let (cmd, note) = crate::chrome::browser_command(&cmd, cx.places);
            if let Some(note) = note {
                tracing::warn!("launch step {index}: {note}");
            }
            launch(cx, &cmd).await.map_err(|w| Failed::Logged(at(w)))
        }
        "open" => {
            let path = p.get("path").and_then(Value::as_str).filter(|s| !s.is_empty());
            let path = path.ok_or_else(|| fatal("`path` is missing".into()))?;
            open(cx, p, path).await
                .map_err(|w| Failed::Logged(at(w)))
        }
        "execute" | "command" => {
            let cmd = command(p, cx.places).map_err(fatal)?;
            let timeout = seconds(p, "timeout", COMMAND_TIMEOUT.as_secs_f64()).map_err(fatal)?;
            execute(cx, p, &cmd, timeout)
                .await
                .map_err(|w| Failed::Logged(at(w)))
        }
        "sleep" => {
            let d = seconds(p, "seconds", 1.0).map_err(fatal)?;
            tokio::time::sleep(d).await;
            Ok(())
        }
        "activate_window" | "close_window" => {
            if p.get("window_name").and_then(Value::as_str).is_none_or(str::is_empty) {
                return Err(fatal("`window_name` is missing".into()));
            }
            window(cx, p, step.kind == "close_window")
                .await
                .map_err(|w| Failed::Logged(at(w)))
        }
        "download" => download(cx.fetcher, cx.places, p)
            .await
            .map_err(|(f, w)| f(at(w))),
        "chrome_open_tabs" => {
            let urls = crate::chrome::open_tabs_urls(p).map_err(fatal)?;
            crate::chrome::open_tabs(cx.places, &urls)
                .await
                .map_err(|p| match p.unreached.is_empty() {
                    true => Failed::Logged(at(p.message.into())),
                    false => Failed::Unreached(at(p.message.into()), p.unreached),
                })
        }
        "chrome_close_tabs" => {
            let urls = crate::chrome::close_tabs_urls(p).map_err(fatal)?;
            crate::chrome::close_tabs(cx.places, &urls)
                .await
                .map_err(|m| Failed::Logged(at(m.into())))
        }
        "update_browse_history" => browse_history(cx, p).await.map_err(|(f, w)| f(at(w))),
        other => Err(Failed::Unsupported(at(format!(
            "step type {other:?} is not supported (launch, open, execute, command, sleep, activate_window, close_window, download, chrome_open_tabs, chrome_close_tabs, update_browse_history)"
        )
        .into()))),
    }
}

/// `launch`: an application through the desktop (accessibility bus, its
/// window waited for); anything else started and left running.
async fn launch(cx: &StepContext<'_>, cmd: &Cmd) -> Result<(), Why> {
    match cmd {
        Cmd::Words(words) if is_application(program_of(words)) => {
            launch_settled(cx.desktop, words, Duration::from_secs(60))
                .await
                .map_err(|e| Why::new(format!("cannot launch {:?}", words[0]), e))?;
        }
        _ => {
            let child = process(cx.desktop, cx.places, cmd)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .kill_on_drop(true)
                .spawn()
                .map_err(|e| Why::new(format!("cannot start {}", cmd.display()), e))?;
            cx.started.keep(child);
        }
    }
    Ok(())
}

/// Launches `words` on `desktop` (its window waited for, at most
/// `timeout`), then waits until the processes it started are done starting
/// (`headless::quiet`): a window maps before the document in it has loaded,
/// and a session that acts at once meets an application still at work
/// (gedit's file, loading late, replaced the text a replayed plan had set).
async fn launch_settled(
    desktop: &HeadlessDesktop,
    words: &[String],
    timeout: Duration,
) -> Result<ufo_desktop_atspi::headless::LaunchedApp, ufo_desktop_atspi::headless::HeadlessError> {
    let before: std::collections::HashSet<u32> = desktop.processes().into_iter().collect();
    let launched = desktop.launch(words, timeout).await?;
    let waited = ufo_desktop_atspi::headless::quiet::until_quiet(|| {
        desktop
            .processes()
            .into_iter()
            .filter(|p| !before.contains(p))
            .collect()
    })
    .await;
    tracing::debug!(app = %launched.app_name, ms = waited.as_millis() as u64, "done starting");
    Ok(launched)
}

/// `open`: `app` when the task names one, else the desktop's default
/// opener (`xdg-open`, `gio open`), else the application of the extension.
async fn open(cx: &StepContext<'_>, p: &Map<String, Value>, given: &str) -> Result<(), Why> {
    let path = cx.places.desktop_path(given);
    if !cx.places.path(given).exists() {
        return Err(format!("{} does not exist", path.display()).into());
    }
    let path = path.as_path();
    let file = path.display().to_string();
    let app = p.get("app").and_then(Value::as_str).map(str::to_owned);
    let words: Vec<String> = match app {
        Some(a) => vec![a, file],
        None if installed("xdg-open") => vec!["xdg-open".into(), file],
        None if installed("gio") => vec!["gio".into(), "open".into(), file],
        None => match app_for(path) {
            Some(a) => vec![a.into(), file],
            None => {
                return Err(format!(
                    "no default opener (neither xdg-open nor gio is installed) and no application known for {}; install xdg-utils or give `app`",
                    path.display()
                )
                .into());
            }
        },
    };
    match is_application(&words[0]) {
        true => launch_settled(cx.desktop, &words, Duration::from_secs(90))
            .await
            .map(|_| ())
            .map_err(|e| Why::new(format!("cannot open {} in {}", path.display(), words[0]), e)),
        // The opener hands the file to the default application; as
        // OSWorld's `Popen`, it is not waited for, beyond 5 s to see it fail
        // at once (no application for the type).
        false => opener(cx, &Cmd::Words(words)).await,
    }
}

/// Starts the desktop's opener and keeps it; its error output goes to
/// `open.log` in the task's cache folder and is quoted when it fails.
async fn opener(cx: &StepContext<'_>, cmd: &Cmd) -> Result<(), Why> {
    let log = cx.cache.join("open.log");
    let err = std::fs::create_dir_all(cx.cache)
        .and_then(|()| std::fs::File::create(&log))
        .map_err(|e| Why::new(format!("cannot write {}", log.display()), e))?;
    let mut child = process(cx.desktop, cx.places, cmd)
        .stdout(std::process::Stdio::null())
        .stderr(err)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| Why::new(format!("cannot start {}", cmd.display()), e))?;
    match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
        Ok(Ok(status)) if !status.success() => {
            let said = std::fs::read_to_string(&log).unwrap_or_default();
            Err(format!("{} failed ({status}): {}", cmd.display(), said.trim()).into())
        }
        Ok(Err(e)) => Err(Why::new(format!("{} failed", cmd.display()), e)),
        Ok(Ok(_)) => Ok(()),
        Err(_) => {
            cx.started.keep(child);
            Ok(())
        }
    }
}

/// `execute`: to completion, repeated while `until` does not hold.
async fn execute(
    cx: &StepContext<'_>,
    p: &Map<String, Value>,
    cmd: &Cmd,
    timeout: Duration,
) -> Result<(), Why> {
    let until = p
        .get("until")
        .and_then(Value::as_object)
        .filter(|u| !u.is_empty());
    let mut failures = 0;
    loop {
        let out = match run(cx.desktop, cx.places, cmd, timeout).await {
            Ok(out) => out,
            Err(e) if until.is_none() => return Err(e.into()),
            Err(e) => {
                failures += 1;
                if failures >= 5 {
                    return Err(e.into());
                }
                tokio::time::sleep(Duration::from_millis(300)).await;
                continue;
            }
        };
        for (key, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            if let Some(name) = p.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()) {
                let dest = cx
                    .cache
                    .join(Path::new(name).file_name().unwrap_or_default());
                std::fs::create_dir_all(cx.cache)
                    .and_then(|()| std::fs::write(&dest, text))
                    .map_err(|e| Why::new(format!("cannot write {}", dest.display()), e))?;
            }
        }
        let Some(u) = until else {
            return match out.code {
                0 => Ok(()),
                c => Err(match out.stderr.trim() {
                    "" => format!("exit code {c}"),
                    err => format!("exit code {c}: {err}"),
                }
                .into()),
            };
        };
        let holds = u.get("returncode").and_then(Value::as_i64) == Some(i64::from(out.code))
            || u.get("stdout")
                .and_then(Value::as_str)
                .is_some_and(|s| out.stdout.contains(s))
            || u.get("stderr")
                .and_then(Value::as_str)
                .is_some_and(|s| out.stderr.contains(s));
        if holds {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

async fn window(cx: &StepContext<'_>, p: &Map<String, Value>, close: bool) -> Result<(), Why> {
    let w = find_window(cx, p).await?;
    match close {
        false => cx
            .backend
            .activate_window(&w)
            .await
            .map_err(|e| Why::new(format!("cannot activate {:?}", w.title), e)),
        true => close_window(cx, &w).await,
    }
}

/// `close_window`: as OSWorld's `wmctrl -c`, a polite request through the
/// window manager (`_NET_CLOSE_WINDOW`; the application may ask to save
/// first), for the window found; without wmctrl, Alt+F4 on it. Confirmed:
/// the window is gone within 5 s, or the step says it is still open.
async fn close_window(cx: &StepContext<'_>, w: &ufo_core::WindowInfo) -> Result<(), Why> {
    match installed("wmctrl") {
        // By its X id when known (the title may repeat), else its exact title.
        true => {
            let mut words = vec!["wmctrl".to_owned()];
            match w.native_id {
                Some(id) => words.extend(["-i".into(), "-c".into(), format!("{id:#x}")]),
                None => words.extend(["-F".into(), "-c".into(), w.title.clone()]),
            }
            let cmd = Cmd::Words(words);
            let out = run(cx.desktop, cx.places, &cmd, Duration::from_secs(10)).await?;
            if out.code != 0 {
                return Err(format!(
                    "{} failed ({}): {}",
                    cmd.display(),
                    out.code,
                    out.stderr.trim()
                )
                .into());
            }
        }
        false => {
            cx.backend
                .activate_window(w)
                .await
                .map_err(|e| Why::new(format!("cannot activate {:?}", w.title), e))?;
            let keys = ufo_desktop::keyparse::parse_keys("%{F4}")
                .map_err(|e| Why::new("cannot make Alt+F4", e))?;
            cx.backend.send_keys(&keys).await.map_err(|e| {
                Why::new(
                    format!(
                        "cannot close {:?} (wmctrl is not installed; Alt+F4)",
                        w.title
                    ),
                    e,
                )
            })?;
        }
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let open = cx
            .backend
            .list_windows()
            .await
            .map_err(|e| Why::new("cannot list the windows", e))?
            .iter()
            .any(|o| o.handle == w.handle);
        if !open {
            return Ok(());
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(format!(
                "{:?} is still open 5 s after it was asked to close (a dialog asking to save?)",
                w.title
            )
            .into());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

type Classify = fn(StepError) -> Failed;

/// `update_browse_history`: OSWorld's history database (through the cache
/// or the mirror; missing, the task is `unavailable`) with the entries
/// added, as the profile's `Default/History`.
async fn browse_history(
    cx: &StepContext<'_>,
    p: &Map<String, Value>,
) -> Result<(), (Classify, Why)> {
    let fatal: Classify = Failed::Fatal;
    let visits = crate::chrome::history_entries(p).map_err(|m| (fatal, m.into()))?;
    let url = crate::chrome::HISTORY_DB_URL;
    let template = cx.fetcher.fetch(url).await.map_err(|e: FetchError| {
        let why = Why {
            message: e.to_string(),
            source: e.source,
        };
        (Failed::Unavailable as Classify, why)
    })?;
    // OSWorld adds to its cached copy (`history_new.sqlite`), kept for the
    // task's later steps.
    let db = cx.cache.join("history_new.sqlite");
    if !db.is_file() {
        copy(&template, &db).map_err(|w| (fatal, w))?;
    }
    crate::chrome::add_history(&db, &visits).map_err(|m| (fatal, m.into()))?;
    let dest = crate::chrome::history_path(cx.places);
    copy(&db, &dest).map_err(|w| (fatal, w))?;
    cx.places.give(&dest).map_err(|e| {
        (
            fatal,
            Why::new(
                format!("cannot give {} to the task's account", dest.display()),
                e,
            ),
        )
    })
}

/// `download`: each `{url, path}`; a URL through the fetcher (a file it
/// cannot have makes the task `unavailable`), a local path or `file://`
/// copied (a missing one stops the setup).
async fn download(
    fetcher: &Fetcher,
    places: &Places,
    p: &Map<String, Value>,
) -> Result<(), (Classify, Why)> {
    let fatal: Classify = Failed::Fatal;
    let files = p.get("files").and_then(Value::as_array).ok_or((
        fatal,
        Why::from("`files` is missing (a list of {url, path})"),
    ))?;
    for f in files {
        let url = f.get("url").and_then(Value::as_str).unwrap_or_default();
        let dest = f.get("path").and_then(Value::as_str).unwrap_or_default();
        if url.is_empty() || dest.is_empty() {
            return Err((
                fatal,
                format!("invalid url ({url:?}) or path ({dest:?})").into(),
            ));
        }
        let src: PathBuf = match Fetcher::is_remote(url) {
            true => fetcher.fetch(url).await.map_err(|e: FetchError| {
                let why = Why {
                    message: e.to_string(),
                    source: e.source,
                };
                (Failed::Unavailable as Classify, why)
            })?,
            false => places.host_path(url.strip_prefix("file://").unwrap_or(url)),
        };
        let dest = places.path(dest);
        copy(&src, &dest).map_err(|w| (fatal, w))?;
        places.give(&dest).map_err(|e| {
            (
                fatal,
                Why::new(
                    format!("cannot give {} to the task's account", dest.display()),
                    e,
                ),
            )
        })?;
    }
    Ok(())
}

fn copy(src: &Path, dest: &Path) -> Result<(), Why> {
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Why::new(format!("cannot create {}", dir.display()), e))?;
    }
    std::fs::copy(src, dest).map_err(|e| {
        Why::new(
            format!("cannot copy {} to {}", src.display(), dest.display()),
            e,
        )
    })?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn by_class_matches_wmctrl_s_class_column() {
        let listing = "0x00600007  0 Mail.thunderbird   vm Inbox - Mozilla Thunderbird\n\
                       0x00a00003  0 gedit.Gedit        vm notes.txt - gedit\n\
                       0x00c00001 -1 xfce4-panel.Xfce4-panel  vm xfce4-panel\n\
                       not a window line\n";
        assert_eq!(
            classes_matching(listing, "Mail.thunderbird", true),
            [0x0060_0007]
        );
        assert!(classes_matching(listing, "mail.thunderbird", true).is_empty());
        assert_eq!(
            classes_matching(listing, "THUNDERBIRD", false),
            [0x0060_0007]
        );
        assert_eq!(classes_matching(listing, "e", false).len(), 3);
    }

    fn kind(r: &Result<(), (Classify, Why)>) -> &'static str {
        let Err((f, _)) = r else { return "ok" };
        match f(StepError {
            index: 0,
            kind: String::new(),
            message: String::new(),
            source: None,
        }) {
            Failed::Logged(_) | Failed::Unreached(..) => "logged",
            Failed::Fatal(_) => "fatal",
            Failed::Unavailable(_) => "unavailable",
            Failed::Unsupported(_) => "unsupported",
        }
    }

    /// Local copies, the mirror, and what each failure means: a missing
    /// local file stops the setup (rendered with its OS cause), a URL the
    /// mirror lacks makes the task unavailable, naming the URL.
    #[tokio::test]
    async fn downloads_copy_local_files_and_mirrored_urls() {
        let dir = tempfile::tempdir().unwrap();
        let places = Places {
            work: dir.path().join("work"),
            suite: dir.path().join("suite"),
            home: None,
        };
        let mirror = dir.path().join("mirror");
        std::fs::create_dir_all(mirror.join("host/a")).unwrap();
        std::fs::write(mirror.join("host/a/b.xlsx"), "sheet").unwrap();
        let fetcher = Fetcher::new(dir.path().join("cache"), Some(mirror));
        let p = |v: Value| v.as_object().unwrap().clone();

        let ok = download(
            &fetcher,
            &places,
            &p(serde_json::json!({"files": [
            {"url": "https://host/a/b.xlsx", "path": "~/Desktop/b.xlsx"}]})),
        )
        .await;
        assert_eq!(kind(&ok), "ok");
        assert_eq!(
            std::fs::read_to_string(places.work.join("Desktop/b.xlsx")).unwrap(),
            "sheet"
        );

        let gone = download(
            &fetcher,
            &places,
            &p(serde_json::json!({"files": [
            {"url": "https://host/a/gone.pptx", "path": "~/x.pptx"}]})),
        )
        .await;
        assert_eq!(kind(&gone), "unavailable");
        let Err((_, why)) = gone else { unreachable!() };
        let e = why.of_step(1, "download");
        assert!(
            e.to_string().starts_with(
                "download step 1: https://host/a/gone.pptx is unavailable: not in the mirror"
            ),
            "{e}"
        );

        let bad = download(
            &fetcher,
            &places,
            &p(serde_json::json!({"files": [{"url": "", "path": "x"}]})),
        )
        .await;
        assert_eq!(kind(&bad), "fatal");

        let missing = download(
            &fetcher,
            &places,
            &p(serde_json::json!({"files": [
            {"url": "file://$SUITE/missing.txt", "path": "$WORK/a.txt"}]})),
        )
        .await;
        assert_eq!(kind(&missing), "fatal");
        let Err((_, why)) = missing else {
            unreachable!()
        };
        let e = why.of_step(2, "download");
        let os = std::fs::read("/nonexistent/ufo-eval").unwrap_err();
        let (suite, work) = (places.suite.display(), places.work.display());
        assert_eq!(
            ufo_core::render(&e),
            format!(
                "error[ufo::eval::setup_step]: download step 2: cannot copy {suite}/missing.txt to {work}/a.txt\n  \
                 caused by: {os}\n  \
                 help: fix the step in the task file (`config`, or `postconfig` of `evaluator`); \
                 run its command by hand on a private desktop (`ufo desktop start`) to see why it fails"
            )
        );
        assert_eq!(app_for(Path::new("/a/b.PPTX")), Some("loimpress"));
        assert_eq!(app_for(Path::new("/a/b")), None);
    }
}
