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
) -> Result<(i32, String, String), String> {
    let mut cmd = process(desktop, places, words, sh);
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {:?}: {e}", words[0]))?;
    match tokio::time::timeout(timeout, child.wait_with_output()).await {
        Ok(Ok(out)) => Ok((
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )),
        Ok(Err(e)) => Err(format!("{:?} failed: {e}", words[0])),
        Err(_) => Err(format!("{:?} did not finish within {timeout:?}", words[0])),
    }
}

async fn find_window(
    backend: &dyn Backend,
    p: &Map<String, Value>,
) -> Result<ufo_core::WindowInfo, String> {
    let name = p
        .get("window_name")
        .and_then(Value::as_str)
        .ok_or("`window_name` is missing")?;
    let strict = p.get("strict").and_then(Value::as_bool).unwrap_or(false);
    let deadline = tokio::time::Instant::now() + seconds(p, "timeout", 30.0)?;
    loop {
        let windows = backend.list_windows().await.map_err(|e| e.to_string())?;
        let found = windows.into_iter().find(|w| match strict {
            true => w.title == name,
            false => w.title.contains(name) || w.app_name == name,
        });
        match found {
            Some(w) => return Ok(w),
            None if tokio::time::Instant::now() >= deadline => {
                return Err(format!("no window named {name:?}"));
            }
            None => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// Runs one step.
pub async fn run_step(cx: &StepContext<'_>, index: usize, step: &Step) -> Result<(), StepError> {
    let fail = |message: String| StepError {
        index,
        kind: step.kind.clone(),
        message,
    };
    let p = &step.parameters;
    match step.kind.as_str() {
        "launch" => {
            let words = command_words(p, cx.places).map_err(fail)?;
            if shell(p) {
                process(cx.desktop, cx.places, &words, true)
                    .spawn()
                    .map_err(|e| fail(format!("cannot start it: {e}")))?;
            } else {
                cx.desktop
                    .launch(&words, Duration::from_secs(60))
                    .await
                    .map_err(|e| fail(e.to_string()))?;
            }
        }
        "open" => {
            let path = p
                .get("path")
                .and_then(Value::as_str)
                .map(|s| cx.places.path(s))
                .ok_or_else(|| fail("`path` is missing".into()))?;
            let app = match p.get("app").and_then(Value::as_str) {
                Some(a) => a.to_owned(),
                None => app_for(&path)
                    .ok_or_else(|| {
                        fail(format!(
                            "no application known for {}; give `app`",
                            path.display()
                        ))
                    })?
                    .to_owned(),
            };
            let words = vec![app, path.display().to_string()];
            cx.desktop
                .launch(&words, Duration::from_secs(90))
                .await
                .map_err(|e| fail(e.to_string()))?;
        }
        "execute" | "command" => {
            let words = command_words(p, cx.places).map_err(fail)?;
            let timeout = seconds(p, "timeout", 60.0).map_err(fail)?;
            let (code, _, err) = run_command(cx.desktop, cx.places, &words, shell(p), timeout)
                .await
                .map_err(fail)?;
            if code != 0 {
                return Err(fail(format!("exit code {code}: {}", err.trim())));
            }
        }
        "sleep" => {
            tokio::time::sleep(seconds(p, "seconds", 1.0).map_err(fail)?).await;
        }
        "activate_window" => {
            let w = find_window(cx.backend, p).await.map_err(fail)?;
            cx.backend
                .activate_window(&w)
                .await
                .map_err(|e| fail(e.to_string()))?;
        }
        "close_window" => {
            let w = find_window(cx.backend, p).await.map_err(fail)?;
            cx.backend
                .activate_window(&w)
                .await
                .map_err(|e| fail(e.to_string()))?;
            let keys =
                ufo_desktop::keyparse::parse_keys("%{F4}").map_err(|e| fail(e.to_string()))?;
            cx.backend
                .send_keys(&keys)
                .await
                .map_err(|e| fail(e.to_string()))?;
        }
        "download" => {
            let files = p
                .get("files")
                .and_then(Value::as_array)
                .ok_or_else(|| fail("`files` is missing (a list of {url, path})".into()))?;
            for f in files {
                let url = f.get("url").and_then(Value::as_str).unwrap_or_default();
                let dest = f.get("path").and_then(Value::as_str).unwrap_or_default();
                if url.starts_with("http://") || url.starts_with("https://") {
                    return Err(fail(format!(
                        "{url} is on the network; ship the file with the suite and give its local path"
                    )));
                }
                let src = cx.places.path(url.strip_prefix("file://").unwrap_or(url));
                let dest = cx.places.path(dest);
                if let Some(dir) = dest.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| fail(e.to_string()))?;
                }
                std::fs::copy(&src, &dest)
                    .map_err(|e| fail(format!("cannot copy {}: {e}", src.display())))?;
            }
        }
        other => {
            return Err(fail(format!(
                "step type {other:?} is not supported (launch, open, execute, command, sleep, activate_window, close_window, download)"
            )));
        }
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
}
