//! Setup and postconfig steps on a task's private desktop: the OSWorld types
//! that make sense on one machine.
//!
//! | type | parameters |
//! |---|---|
//! | `launch` | `command` (list, or a string split into words), `shell` (the task file's own choice; never the model's) |
//! | `open` | `path`, optional `app` (else chosen by the file's extension) |
//! | `execute`, `command` | `command`, `shell`, `timeout` (s, default 60): runs to completion; a non-zero exit fails the step |
//! | `sleep` | `seconds` |
//! | `activate_window` | `window_name`, `strict` (exact title instead of a substring), `timeout` (s, default 30: waits for the window, e.g. a document still loading) |
//! | `close_window` | `window_name`, `strict`, `timeout` |
//! | `download` | `files`: `[{url, path}]`, `url` a local path or `file://` (no network) |

use crate::task::{Places, Step};
use serde_json::{Map, Value};
use std::path::Path;
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

/// What a step runs against.
pub struct StepContext<'a> {
    /// The task's desktop.
    pub desktop: &'a HeadlessDesktop,
    /// A backend connected to it.
    pub backend: &'a dyn Backend,
    /// `$WORK` and `$SUITE`.
    pub places: &'a Places,
}

/// The application that opens a file with this extension.
fn app_for(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
    Some(match ext.as_str() {
        "ods" | "xlsx" | "xls" | "csv" => "localc",
        "odt" | "docx" | "doc" | "rtf" => "lowriter",
        "txt" | "md" | "log" | "json" | "py" | "conf" | "ini" => "mousepad",
        "html" | "htm" => "firefox-esr",
        _ => return None,
    })
}

/// The command words of `parameters.command` (a list, or a string split as
/// a shell would quote it), with `$WORK`/`$SUITE` expanded.
fn command_words(p: &Map<String, Value>, places: &Places) -> Result<Vec<String>, String> {
    let words = match p.get("command") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|w| match w {
                Value::String(s) => Ok(s.clone()),
                other => Ok(other.to_string()),
            })
            .collect::<Result<Vec<_>, String>>()?,
        Some(Value::String(s)) => {
            shlex::split(s).ok_or_else(|| format!("cannot split the command {s:?}"))?
        }
        _ => return Err("`command` is missing (a list of words or a string)".into()),
    };
    if words.is_empty() {
        return Err("`command` is empty".into());
    }
    Ok(words.iter().map(|w| places.expand(w)).collect())
}

fn shell(p: &Map<String, Value>) -> bool {
    p.get("shell").and_then(Value::as_bool).unwrap_or(false)
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

/// A process on the desktop's display and buses, run in `$WORK`.
fn process(
    desktop: &HeadlessDesktop,
    places: &Places,
    words: &[String],
    sh: bool,
) -> tokio::process::Command {
    let mut cmd = match sh {
        true => {
            let mut c = tokio::process::Command::new("sh");
            c.arg("-c").arg(words.join(" "));
            c
        }
        false => {
            let mut c = tokio::process::Command::new(&words[0]);
            c.args(&words[1..]);
            c
        }
    };
    cmd.envs(desktop.state().env())
        .current_dir(&places.work)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    cmd
}

/// Runs `words` to completion (at most `timeout`); its stdout, or why not.
pub(crate) async fn run_command(
    desktop: &HeadlessDesktop,
    places: &Places,
    words: &[String],
    sh: bool,
    timeout: Duration,
) -> Result<(i32, String, String), Why> {
    let mut cmd = process(desktop, places, words, sh);
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd
        .spawn()
        .map_err(|e| Why::new(format!("cannot start {:?}", words[0]), e))?;
    match tokio::time::timeout(timeout, child.wait_with_output()).await {
        Ok(Ok(out)) => Ok((
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )),
        Ok(Err(e)) => Err(Why::new(format!("{:?} failed", words[0]), e)),
        Err(_) => Err(format!("{:?} did not finish within {timeout:?}", words[0]).into()),
    }
}

async fn find_window(
    backend: &dyn Backend,
    p: &Map<String, Value>,
) -> Result<ufo_core::WindowInfo, Why> {
    let name = p
        .get("window_name")
        .and_then(Value::as_str)
        .ok_or("`window_name` is missing")?;
    let strict = p.get("strict").and_then(Value::as_bool).unwrap_or(false);
    let deadline = tokio::time::Instant::now() + seconds(p, "timeout", 30.0)?;
    loop {
        let windows = backend
            .list_windows()
            .await
            .map_err(|e| Why::new("cannot list the windows", e))?;
        let found = windows.into_iter().find(|w| match strict {
            true => w.title == name,
            false => w.title.contains(name) || w.app_name == name,
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

/// Runs one step.
pub async fn run_step(cx: &StepContext<'_>, index: usize, step: &Step) -> Result<(), StepError> {
    perform(cx, step)
        .await
        .map_err(|w| w.of_step(index, &step.kind))
}

async fn perform(cx: &StepContext<'_>, step: &Step) -> Result<(), Why> {
    let p = &step.parameters;
    match step.kind.as_str() {
        "launch" => {
            let words = command_words(p, cx.places)?;
            if shell(p) {
                process(cx.desktop, cx.places, &words, true)
                    .spawn()
                    .map_err(|e| Why::new("cannot start it", e))?;
            } else {
                cx.desktop
                    .launch(&words, Duration::from_secs(60))
                    .await
                    .map_err(|e| Why::new(format!("cannot launch {:?}", words[0]), e))?;
            }
        }
        "open" => open(cx, p).await?,
        "execute" | "command" => {
            let words = command_words(p, cx.places)?;
            let timeout = seconds(p, "timeout", 60.0)?;
            let (code, _, err) =
                run_command(cx.desktop, cx.places, &words, shell(p), timeout).await?;
            if code != 0 {
                return Err(format!("exit code {code}: {}", err.trim()).into());
            }
        }
        "sleep" => tokio::time::sleep(seconds(p, "seconds", 1.0)?).await,
        "activate_window" => {
            let w = find_window(cx.backend, p).await?;
            activate(cx.backend, &w).await?;
        }
        "close_window" => {
            let w = find_window(cx.backend, p).await?;
            activate(cx.backend, &w).await?;
            let keys = ufo_desktop::keyparse::parse_keys("%{F4}")
                .map_err(|e| Why::new("cannot make Alt+F4", e))?;
            cx.backend
                .send_keys(&keys)
                .await
                .map_err(|e| Why::new(format!("cannot close {:?}", w.title), e))?;
        }
        "download" => download(cx.places, p)?,
        other => {
            return Err(format!(
                "step type {other:?} is not supported (launch, open, execute, command, sleep, activate_window, close_window, download)"
            )
            .into());
        }
    }
    Ok(())
}

async fn activate(backend: &dyn Backend, w: &ufo_core::WindowInfo) -> Result<(), Why> {
    backend
        .activate_window(w)
        .await
        .map_err(|e| Why::new(format!("cannot activate {:?}", w.title), e))
}

/// `open`: the file in `app`, or in the application of its extension.
async fn open(cx: &StepContext<'_>, p: &Map<String, Value>) -> Result<(), Why> {
    let path = p
        .get("path")
        .and_then(Value::as_str)
        .map(|s| cx.places.path(s))
        .ok_or("`path` is missing")?;
    let app = match p.get("app").and_then(Value::as_str) {
        Some(a) => a.to_owned(),
        None => app_for(&path)
            .ok_or_else(|| format!("no application known for {}; give `app`", path.display()))?
            .to_owned(),
    };
    let words = vec![app, path.display().to_string()];
    cx.desktop
        .launch(&words, Duration::from_secs(90))
        .await
        .map_err(|e| Why::new(format!("cannot open {} in {}", path.display(), words[0]), e))?;
    Ok(())
}

/// `download`: copies each `{url, path}`, `url` a local path or `file://`.
fn download(places: &Places, p: &Map<String, Value>) -> Result<(), Why> {
    let files = p
        .get("files")
        .and_then(Value::as_array)
        .ok_or("`files` is missing (a list of {url, path})")?;
    for f in files {
        let url = f.get("url").and_then(Value::as_str).unwrap_or_default();
        let dest = f.get("path").and_then(Value::as_str).unwrap_or_default();
        if url.starts_with("http://") || url.starts_with("https://") {
            return Err(format!(
                "{url} is on the network; ship the file with the suite and give its local path"
            )
            .into());
        }
        let src = places.path(url.strip_prefix("file://").unwrap_or(url));
        let dest = places.path(dest);
        if let Some(dir) = dest.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Why::new(format!("cannot create {}", dir.display()), e))?;
        }
        std::fs::copy(&src, &dest).map_err(|e| {
            Why::new(
                format!("cannot copy {} to {}", src.display(), dest.display()),
                e,
            )
        })?;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_words_with_places_expanded() {
        let places = Places {
            work: "/w".into(),
            suite: "/s".into(),
        };
        let p = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(
            command_words(
                &p(serde_json::json!({"command": ["cat", "$WORK/a b.txt"]})),
                &places
            )
            .unwrap(),
            ["cat", "/w/a b.txt"]
        );
        assert_eq!(
            command_words(
                &p(serde_json::json!({"command": "cp '$SUITE/x y' ~/z"})),
                &places
            )
            .unwrap(),
            ["cp", "/s/x y", "/w/z"]
        );
        assert!(command_words(&p(serde_json::json!({})), &places).is_err());
        assert_eq!(app_for(Path::new("/a/b.ODS")), Some("localc"));
        assert_eq!(app_for(Path::new("/a/b")), None);
    }

    /// A setup step that fails on an OS error: rendered with the error as
    /// its cause, under the step's code and help.
    #[test]
    fn a_failed_download_step_renders_its_cause() {
        let dir = tempfile::tempdir().unwrap();
        let places = Places {
            work: dir.path().join("work"),
            suite: dir.path().join("suite"),
        };
        let p = serde_json::json!({"files": [{"url": "file://$SUITE/missing.txt", "path": "$WORK/a.txt"}]});
        let e = download(&places, p.as_object().unwrap())
            .unwrap_err()
            .of_step(2, "download");
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
        // A refusal without an error underneath has no cause line.
        let p = serde_json::json!({"files": [{"url": "https://example.com/a", "path": "a"}]});
        let e = download(&places, p.as_object().unwrap())
            .unwrap_err()
            .of_step(1, "download");
        assert!(!ufo_core::render(&e).contains("caused by"), "{e}");
    }
}
