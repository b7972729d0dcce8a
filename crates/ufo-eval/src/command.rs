//! Commands of a task file as OSWorld's harness runs them
//! (`desktop_env/server/main.py`, `/setup/execute`, `/setup/launch`,
//! `/execute`).
//!
//! ## Why a task file may run a shell
//! Elsewhere ufo-rs runs no shell and allowlists what a model may start.
//! An eval task file is different: it is trusted input the user chose to
//! run, like a script, and OSWorld's tasks are written for a shell
//! (`"shell": true` with pipes, `&&`, redirections, heredocs). So a task's
//! setup, postconfig and getters run what the file says, as OSWorld does,
//! with two limits that stay: everything runs on the task's own private
//! desktop (its display, buses and `$HOME`, never the user's session), and
//! never with the model's words — only the task file's.
//!
//! ## OSWorld's rules, kept
//! - `shell` is truthy as Python reads it: `true`, `"true"`, any non-empty
//!   string, a non-zero number; `false`, `null`, `0`, `""` are not.
//! - With a shell, a string runs verbatim as `sh -c STRING` (quotes, `;`
//!   and newlines kept); a list runs as Python's `Popen(list, shell=True)`
//!   does: `sh -c list[0] list[1] ...` (the rest are `$0`, `$1`, ...).
//! - Without a shell, a string is split as `shlex.split` splits it
//!   (execute, getters) — except `launch`, whose string OSWorld's client
//!   splits at whitespace before sending it ([`launch_words`]).
//! - A word starting with `~/` is in the task's home; `$WORK` and `$SUITE`
//!   (ours) are expanded everywhere.
//! - A command runs at most 120 s (OSWorld's `timeout=120`).

use crate::task::Places;
use serde_json::{Map, Value};
use std::path::Path;
use std::time::Duration;
use ufo_desktop_atspi::HeadlessDesktop;

/// How long OSWorld lets a command run.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);

/// A command of a task file, ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cmd {
    /// A program and its arguments, no shell.
    Words(Vec<String>),
    /// `sh -c script args...`.
    Shell {
        /// The script, verbatim.
        script: String,
        /// `$0`, `$1`, ... of the script.
        args: Vec<String>,
    },
}

impl Cmd {
    /// The program this command starts when it is not a shell script.
    pub fn program(&self) -> Option<&str> {
        match self {
            Cmd::Words(w) => w.first().map(String::as_str),
            Cmd::Shell { .. } => None,
        }
    }

    /// For messages: the command as one line.
    pub fn display(&self) -> String {
        match self {
            Cmd::Words(w) => w.join(" "),
            Cmd::Shell { script, .. } => format!("sh -c {script:?}"),
        }
    }
}

/// Python's truth of a JSON value (`bool(x)`).
pub fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}

fn word(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `p.command` with `p.shell`, as `execute`, `command` and the getters run
/// it. An error names what is missing (OSWorld raises on an empty command).
pub fn command(p: &Map<String, Value>, places: &Places) -> Result<Cmd, String> {
    build(p, places, |s| {
        shlex::split(s).ok_or_else(|| format!("cannot split the command {s:?}"))
    })
}

/// `p.command` as `launch` runs it: a string without a shell is split at
/// whitespace (OSWorld's client does `command.split()`).
pub fn launch_words(p: &Map<String, Value>, places: &Places) -> Result<Cmd, String> {
    build(p, places, |s| {
        Ok(s.split_whitespace().map(str::to_owned).collect())
    })
}

fn build(
    p: &Map<String, Value>,
    places: &Places,
    split: impl Fn(&str) -> Result<Vec<String>, String>,
) -> Result<Cmd, String> {
    let shell = truthy(p.get("shell"));
    let cmd = match (p.get("command"), shell) {
        (Some(Value::String(s)), true) => Cmd::Shell {
            script: places.expand_vars(s),
            args: Vec::new(),
        },
        (Some(Value::Array(a)), true) => {
            let mut words = a.iter().map(|w| places.expand_vars(&word(w)));
            Cmd::Shell {
                script: words.next().unwrap_or_default(),
                args: words.collect(),
            }
        }
        (Some(Value::String(s)), false) => {
            Cmd::Words(split(s)?.iter().map(|w| places.expand(w)).collect())
        }
        (Some(Value::Array(a)), false) => {
            Cmd::Words(a.iter().map(|w| places.expand(&word(w))).collect())
        }
        _ => return Err("`command` is missing (a list of words or a string)".into()),
    };
    match &cmd {
        Cmd::Words(w) if w.is_empty() => Err("`command` is empty".into()),
        Cmd::Shell { script, .. } if script.trim().is_empty() => Err("`command` is empty".into()),
        _ => Ok(cmd),
    }
}

/// A process of `cmd` on the desktop's display and buses, run in `$WORK`
/// (as the desktop's account, in its namespace, when it has one).
pub(crate) fn process(
    desktop: &HeadlessDesktop,
    places: &Places,
    cmd: &Cmd,
) -> tokio::process::Command {
    let state = desktop.state();
    let dir = Some(places.inside());
    let mut c = match cmd {
        Cmd::Shell { script, args } => {
            let mut c = state.command("sh", dir);
            c.arg("-c").arg(script).args(args);
            c
        }
        Cmd::Words(w) => {
            let mut c = state.command(&w[0], dir);
            c.args(&w[1..]);
            c
        }
    };
    c.envs(state.env()).stdin(std::process::Stdio::null());
    tokio::process::Command::from(c)
}

/// What a command that ran left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Its exit code (-1 when a signal ended it).
    pub code: i32,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
}

/// Runs `cmd` to completion, at most `timeout`; killed when it takes
/// longer. An error when it could not start or did not finish (OSWorld's
/// server answers 500 then); a non-zero exit is an [`Output`], not an error.
pub(crate) async fn run(
    desktop: &HeadlessDesktop,
    places: &Places,
    cmd: &Cmd,
    timeout: Duration,
) -> Result<Output, (String, Option<ufo_core::BoxError>)> {
    let mut c = process(desktop, places, cmd);
    c.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let child = c
        .spawn()
        .map_err(|e| (format!("cannot start {}", cmd.display()), Some(e.into())))?;
    match tokio::time::timeout(timeout, child.wait_with_output()).await {
        Ok(Ok(out)) => Ok(Output {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }),
        Ok(Err(e)) => Err((format!("{} failed", cmd.display()), Some(e.into()))),
        Err(_) => Err((
            format!("{} did not finish within {timeout:?}", cmd.display()),
            None,
        )),
    }
}

/// Whether `program` is found: a path to an executable file, or a name on
/// `PATH`.
pub fn installed(program: &str) -> bool {
    let exec = |p: &Path| {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return exec(Path::new(program));
    }
    std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).any(|d| exec(&d.join(program))))
        .unwrap_or(false)
}

/// The program `words` start: the first word, or what a leading `env`
/// runs (past its `NAME=VALUE` words).
pub fn program_of(words: &[String]) -> &str {
    let mut w = words.iter().map(String::as_str);
    match w.next() {
        Some("env") => w.find(|x| !x.contains('=')).unwrap_or("env"),
        Some(first) => first,
        None => "",
    }
}

/// Whether `program` is a desktop application: a `.desktop` entry of the
/// system or the user is named after it or runs it, or it is one of
/// LibreOffice's launchers (`localc`, `soffice`, ..., which the entries
/// reach through `libreoffice`). Applications are launched so that they
/// join the accessibility bus and their window is waited for; other
/// programs a task launches (`socat`, `pkill`) are started and left to run,
/// as OSWorld's `Popen` does.
pub fn is_application(program: &str) -> bool {
    let base = Path::new(program)
        .file_name()
        .map(|b| b.to_string_lossy().into_owned())
        .unwrap_or_default();
    if base.is_empty() {
        return false;
    }
    let office = matches!(
        base.as_str(),
        "soffice" | "localc" | "lowriter" | "loimpress" | "lodraw" | "lobase"
    ) || base.starts_with("libreoffice");
    office || application_dirs().iter().any(|d| has_entry(d, &base))
}

fn application_dirs() -> Vec<std::path::PathBuf> {
    let data = std::env::var("XDG_DATA_DIRS")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
    let mut dirs: Vec<std::path::PathBuf> = data
        .split(':')
        .map(|d| Path::new(d).join("applications"))
        .collect();
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(Path::new(&home).join(".local/share/applications"));
    }
    dirs
}

/// Whether `dir` has an entry `<base>.desktop` or one whose `Exec` runs
/// `base` (not in a terminal).
fn has_entry(dir: &Path, base: &str) -> bool {
    if dir.join(format!("{base}.desktop")).is_file() {
        return true;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let p = e.path();
        p.extension().is_some_and(|x| x == "desktop")
            && std::fs::read_to_string(&p).is_ok_and(|text| {
                // A terminal program's entry (vim, python) opens a terminal.
                !text.lines().any(|l| l.trim() == "Terminal=true")
                    && text.lines().any(|l| {
                        l.strip_prefix("Exec=")
                            .and_then(|cmd| cmd.split_whitespace().next())
                            .and_then(|w| Path::new(w).file_name())
                            .is_some_and(|n| n == base)
                    })
            })
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn commands_are_read_as_osworld_reads_them() {
        let places = Places {
            work: "/w".into(),
            suite: "/s".into(),
            home: None,
        };
        // Words: places expanded, `~/` is the task's home.
        assert_eq!(
            command(
                &p(json!({"command": ["cat", "$WORK/a b.txt", "~/x"]})),
                &places
            )
            .unwrap(),
            Cmd::Words(vec!["cat".into(), "/w/a b.txt".into(), "/w/x".into()])
        );
        assert_eq!(
            command(&p(json!({"command": "cp '$SUITE/x y' ~/z"})), &places).unwrap(),
            Cmd::Words(vec!["cp".into(), "/s/x y".into(), "/w/z".into()])
        );
        // `launch` splits a string at whitespace, quotes and all.
        assert_eq!(
            launch_words(&p(json!({"command": "app 'a b'"})), &places).unwrap(),
            Cmd::Words(vec!["app".into(), "'a".into(), "b'".into()])
        );
        // A shell string is verbatim: quotes, newlines; `"true"` is a shell.
        let script = "echo 'a  b' > ~/f\nprintf \"%s\" \"$HOME\"";
        for shell in [json!(true), json!("true"), json!(1)] {
            assert_eq!(
                command(&p(json!({"command": script, "shell": shell})), &places).unwrap(),
                Cmd::Shell {
                    script: script.into(),
                    args: vec![]
                }
            );
        }
        // A list with a shell: the first item is the script.
        assert_eq!(
            command(
                &p(json!({"command": ["echo $0", "x"], "shell": true})),
                &places
            )
            .unwrap(),
            Cmd::Shell {
                script: "echo $0".into(),
                args: vec!["x".into()]
            }
        );
        for no in [json!(false), json!(""), json!(0), json!(null)] {
            assert!(!truthy(Some(&no)), "{no}");
        }
        assert!(command(&p(json!({})), &places).is_err());
        assert!(command(&p(json!({"command": []})), &places).is_err());
        assert!(command(&p(json!({"command": " ", "shell": true})), &places).is_err());
    }

    #[test]
    fn programs_are_found_and_applications_known() {
        assert!(installed("sh"));
        assert!(installed("/bin/sh"));
        assert!(!installed("no-such-program-ufo"));
        assert!(is_application("localc"));
        assert!(!is_application("socat"));
        assert!(!is_application("pkill"));
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("x.desktop"),
            "[Desktop Entry]\nExec=/opt/bin/myapp %U\n",
        )
        .unwrap();
        assert!(has_entry(dir.path(), "myapp"));
        assert!(has_entry(dir.path(), "x"));
        assert!(!has_entry(dir.path(), "other"));
    }
}
