//! The command line's own errors (everything else comes from the library
//! crates' error enums).

use ufo_core::Diagnostic;

/// What can go wrong in the command line itself.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// A file or stdin cannot be read.
    #[error("cannot read {what}: {source}")]
    Read {
        /// The file (or `stdin`).
        what: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
        /// What to pass instead.
        help: &'static str,
    },
    /// A file cannot be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    // Only the Linux-only commands (demo, eval, record) raise it.
    #[cfg_attr(windows, allow(dead_code))]
    /// A file is not valid YAML or JSON.
    #[error("{what} is not valid {format}: {message}")]
    Syntax {
        /// The file or option.
        what: String,
        /// `YAML` or `JSON`.
        format: &'static str,
        /// Where and what.
        message: String,
        /// What to do.
        help: &'static str,
    },
    /// Output cannot be serialised.
    #[error("cannot serialise output: {0}")]
    Json(#[source] serde_json::Error),
    /// An option has a bad value (`--runs 0`, `--size 12`).
    #[error("{option}: {message}")]
    BadOption {
        /// The option.
        option: &'static str,
        /// What is wrong.
        message: String,
        /// An example of a good value.
        help: &'static str,
    },
    /// `--app`/`--window` match no open window.
    #[error("no window matches {what}")]
    WindowNotFound {
        /// What was asked for.
        what: String,
        /// What is open.
        open: Vec<String>,
        /// Applications that did not answer (hung or busy).
        silent: Vec<String>,
    },
    /// `ufo run -m service` (or `linux_service`): those modes run inside a
    /// server, on a device's desktop.
    #[error(
        "the {mode} mode runs inside a server, not from `ufo run`: its commands are carried out by a device connected to `ufo serve`"
    )]
    ServiceOutsideServer {
        /// The mode asked for.
        mode: String,
    },
    // Only the Linux-only commands (demo, eval, record) raise it.
    #[cfg_attr(windows, allow(dead_code))]
    /// The demo's cassettes cannot be written.
    #[error("cannot write the demo cassettes: {0}")]
    DemoCassette(#[source] std::io::Error),
    // Only the Linux-only commands (demo, eval, record) raise it.
    #[cfg_attr(windows, allow(dead_code))]
    /// The demo ran but its result is not on screen.
    #[error("{0}")]
    DemoUnverified(String),
}

impl Diagnostic for CliError {
    fn code(&self) -> &'static str {
        match self {
            CliError::Read { .. } => "ufo::cli::read",
            CliError::Write { .. } => "ufo::cli::write",
            CliError::Syntax { .. } => "ufo::cli::syntax",
            CliError::Json(_) => "ufo::cli::json",
            CliError::BadOption { .. } => "ufo::cli::bad_args",
            // The same code as the desktop's own.
            CliError::WindowNotFound { .. } => "ufo::desktop::window_not_found",
            CliError::ServiceOutsideServer { .. } => "ufo::cli::service_outside_server",
            CliError::DemoCassette(_) => "ufo::demo::cassette",
            CliError::DemoUnverified(_) => "ufo::demo::unverified",
        }
    }

    fn help(&self) -> Option<String> {
        match self {
            CliError::Read { help, .. }
            | CliError::Syntax { help, .. }
            | CliError::BadOption { help, .. } => Some((*help).to_owned()),
            CliError::Write { .. } | CliError::DemoCassette(_) => {
                Some("check that the directory exists and is writable".into())
            }
            CliError::Json(_) => None,
            CliError::ServiceOutsideServer { mode } => Some(format!(
                "start the agents with `ufo serve` and connect the desktop with `ufo client --server ws://HOST:5000/ws --client-id NAME` (add `-r \"...\" -m {mode}` to send a request); on this desktop alone, use `ufo run -m normal`"
            )),
            CliError::WindowNotFound { silent, open, .. } if !silent.is_empty() => Some(format!(
                "{} does not answer the accessibility bus (hung or busy): wait, or end it; {}",
                silent.join(", "),
                match open.is_empty() {
                    true => "no other application windows are open".to_owned(),
                    false => format!("open windows: {}", open.join(", ")),
                }
            )),
            CliError::WindowNotFound { open, .. } if open.is_empty() => Some(
                "no application windows are open; launch one (`ufo desktop launch gnome-calculator`)"
                    .into(),
            ),
            CliError::WindowNotFound { open, .. } => {
                Some(format!("open windows: {}", open.join(", ")))
            }
            CliError::DemoUnverified(_) => Some("the session did not leave the expected result on screen; see the step log above and the task's response.log".into()),
        }
    }
}
