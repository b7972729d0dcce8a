//! What can go wrong starting, using and stopping a private desktop, each
//! with its stable code and what to do.

use std::path::PathBuf;
use ufo_core::Diagnostic;

/// Errors of the headless desktop.
#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    /// A required program is not installed.
    #[error("{program} is not installed")]
    MissingProgram {
        /// The program that was looked for.
        program: String,
        /// The Debian package that provides it.
        package: String,
    },
    /// A component did not come up.
    #[error("{component} did not start: {detail}")]
    StartFailed {
        /// Which component.
        component: String,
        /// What happened (log excerpt).
        detail: String,
        /// The underlying error (D-Bus), when there is one.
        #[source]
        source: Option<ufo_core::BoxError>,
    },
    /// A desktop of that name is already running.
    #[error("a desktop named {0:?} is already running")]
    AlreadyRunning(String),
    /// No desktop of that name is running.
    #[error("no desktop named {0:?} is running")]
    NotRunning(String),
    /// The launched application did not appear on the accessibility registry.
    #[error("{command} did not appear on the accessibility registry within {secs} s")]
    LaunchTimeout {
        /// The command line.
        command: String,
        /// The limit.
        secs: u64,
        /// Where the application's output went.
        log: PathBuf,
    },
    /// The launched application exited before registering.
    #[error("{command} exited with {status} before it registered: {tail}")]
    LaunchExited {
        /// The command line.
        command: String,
        /// Its exit status.
        status: String,
        /// The last lines it printed.
        tail: String,
    },
    /// The state file is unreadable.
    #[error("desktop state file {path} is unreadable: {source}")]
    BadState {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// Something only root may do was asked of a desktop run by another user.
    #[error("{what} needs root")]
    NeedsRoot {
        /// What was asked.
        what: String,
    },
    /// The account a desktop runs as cannot be had.
    #[error("the account {name:?} cannot be used: {detail}")]
    Account {
        /// The account's name.
        name: String,
        /// Why.
        detail: String,
    },
    /// A file-system or process error.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

impl Diagnostic for HeadlessError {
    fn code(&self) -> &'static str {
        match self {
            HeadlessError::MissingProgram { .. } => "ufo::headless::missing_program",
            HeadlessError::StartFailed { .. } => "ufo::headless::start_failed",
            HeadlessError::AlreadyRunning(_) => "ufo::headless::already_running",
            HeadlessError::NotRunning(_) => "ufo::headless::not_running",
            HeadlessError::LaunchTimeout { .. } => "ufo::headless::launch_timeout",
            HeadlessError::LaunchExited { .. } => "ufo::headless::launch_exited",
            HeadlessError::BadState { .. } => "ufo::headless::bad_state",
            HeadlessError::NeedsRoot { .. } => "ufo::headless::needs_root",
            HeadlessError::Account { .. } => "ufo::headless::account",
            HeadlessError::Io { .. } => "ufo::headless::io",
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            HeadlessError::MissingProgram { package, .. } => format!(
                "install it: sudo apt-get install -y --no-install-recommends {package} (or run scripts/bootstrap.sh)"
            ),
            HeadlessError::StartFailed { .. } => {
                "see the logs in the desktop's state directory; `ufo doctor` checks each part"
                    .into()
            }
            HeadlessError::AlreadyRunning(name) => format!(
                "use it (`ufo desktop env --name {name}`), stop it (`ufo desktop stop --name {name}`), or pick another --name"
            ),
            HeadlessError::NotRunning(_) => "start one with `ufo desktop start`".into(),
            HeadlessError::LaunchTimeout { log, .. } => format!(
                "check that the program is a GTK/Qt/LibreOffice app with accessibility on (NO_AT_BRIDGE and GTK_A11Y must be unset); its output is in {}; raise --timeout for slow first starts",
                log.display()
            ),
            HeadlessError::LaunchExited { status, tail, .. } => launch_exited_help(status, tail),
            HeadlessError::BadState { path, .. } => format!(
                "the desktop was probably stopped uncleanly; remove {} and start a new one",
                path.parent().unwrap_or(path).display()
            ),
            HeadlessError::NeedsRoot { .. } => {
                "run it as root, or run the desktop as yourself (no account of its own)".into()
            }
            HeadlessError::Account { name, .. } => format!(
                "create it by hand (sudo useradd --system --user-group --no-create-home --home-dir /home/user {name}) or check /etc/passwd"
            ),
            HeadlessError::Io { .. } => {
                "check permissions of the state directory (UFO_STATE_DIR)".into()
            }
        })
    }
}

pub(super) type Result<T, E = HeadlessError> = std::result::Result<T, E>;

pub(super) fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> HeadlessError {
    let what = what.into();
    move |source| HeadlessError::Io { what, source }
}

/// What to do about an application that exited before it registered, from
/// how it ended and what it printed last.
fn launch_exited_help(status: &str, tail: &str) -> String {
    let said = tail.to_ascii_lowercase();
    if said.contains("root")
        && (said.contains("run as") || said.contains("as root") || said.contains("superuser"))
    {
        "the program refuses to run as root (VLC does): run ufo, or this launch, as an ordinary user".into()
    } else if status.contains("exit status: 0") {
        "a single-instance app hands over to its running copy and exits (launch it once per desktop)".into()
    } else {
        "its last output is in the message above; run the command by hand inside the desktop (`eval $(ufo desktop env)`) to see more".into()
    }
}

#[cfg(test)]
mod tests {
    use super::launch_exited_help;

    #[test]
    fn an_early_exit_is_explained_by_what_the_program_said() {
        let vlc = "VLC is not supposed to be run as root. Sorry.\nIf you need to use real-time priorities and/or privileged TCP ports\nyou can use vlc-wrapper";
        assert!(launch_exited_help("exit status: 1", vlc).contains("as an ordinary user"));
        assert!(launch_exited_help("exit status: 0", "").contains("single-instance"));
        assert!(launch_exited_help("exit status: 2", "bad option").contains("last output"));
    }
}
