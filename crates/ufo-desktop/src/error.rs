//! Errors of the desktop layer (backends, tools, images).

use ufo_core::Diagnostic;

/// Anything that can go wrong observing or acting on a desktop.
#[derive(Debug, thiserror::Error)]
pub enum DesktopError {
    /// The X display or accessibility bus could not be reached.
    #[error("cannot reach the desktop: {what}")]
    Unreachable {
        /// What could not be reached, and how that showed.
        what: String,
        /// The error that showed it, when there was one.
        #[source]
        source: Option<Cause>,
    },
    /// An element vanished or its application went away.
    #[error("element {handle} is gone: {detail}")]
    StaleElement {
        /// The element's handle.
        handle: String,
        /// What the toolkit said.
        detail: String,
    },
    /// No window matches the request.
    #[error("no window matches {0}")]
    WindowNotFound(String),
    /// The element does not support what was asked (e.g. set text on a button).
    #[error("{what} is not supported by {handle}")]
    Unsupported {
        /// What was asked.
        what: String,
        /// The element's handle.
        handle: String,
    },
    /// A tool's arguments are wrong.
    #[error("bad arguments for {tool}: {detail}")]
    BadArguments {
        /// The tool name.
        tool: String,
        /// Which argument and why.
        detail: String,
    },
    /// The `id` is not among the labelled controls.
    #[error("id {id} is not in the current control list ({count} controls)")]
    UnknownControl {
        /// The id the caller gave.
        id: String,
        /// How many controls there are.
        count: usize,
    },
    /// `id` and `name` disagree.
    #[error("name mismatch: id {id} is {actual:?}, not {expected:?}")]
    NameMismatch {
        /// The id.
        id: String,
        /// The control's real name.
        actual: String,
        /// The name the caller gave.
        expected: String,
    },
    /// An action ran but reading back shows it did not take effect.
    #[error("verification failed: {0}")]
    VerificationFailed(String),
    /// A call took longer than allowed.
    #[error("{what} timed out after {millis} ms")]
    Timeout {
        /// What was being done.
        what: String,
        /// The limit.
        millis: u64,
    },
    /// A key sequence could not be parsed.
    #[error("bad key sequence {keys:?}: {detail}")]
    BadKeys {
        /// The sequence.
        keys: String,
        /// What is wrong and where.
        detail: String,
    },
    /// Image encoding or decoding failed.
    #[error("image error: {what}")]
    Image {
        /// What was being done (and what was wrong, when no error says it).
        what: String,
        /// The error of the image or encoding library, when there was one.
        #[source]
        source: Option<Cause>,
    },
    /// The tool name is not in the catalog.
    #[error("unknown tool {0:?}")]
    UnknownTool(String),
    /// The backend's OS call failed for another reason.
    #[error("{what}")]
    Backend {
        /// What was being done (and what was wrong, when no error says it).
        what: String,
        /// The error of the OS, toolkit or library call, when there was one.
        #[source]
        source: Option<Cause>,
    },
    /// `run_shell` refused a command (see [`crate::launch`]).
    #[error("run_shell refused {command:?}: {reason}")]
    CommandRefused {
        /// The command as given (cut at 200 characters).
        command: String,
        /// Why.
        reason: String,
    },
    /// `execute_command` refused a command (see [`crate::commands`]).
    #[error("execute_command refused {command:?}: {reason}")]
    CommandNotAllowed {
        /// The command as given (cut at 200 characters).
        command: String,
        /// Why.
        reason: String,
    },
    /// A tool needs a current application window and none is selected.
    #[error("no application window is selected")]
    NoWindowSelected,
}

/// The error beneath another, kept as its source.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

impl DesktopError {
    /// The desktop cannot be reached: `what` says which part, and how.
    pub fn unreachable(what: impl Into<String>) -> Self {
        DesktopError::Unreachable {
            what: what.into(),
            source: None,
        }
    }

    /// The desktop cannot be reached: `what` says which part; `source` is
    /// the error that showed it.
    pub fn unreachable_by(what: impl Into<String>, source: impl Into<Cause>) -> Self {
        DesktopError::Unreachable {
            what: what.into(),
            source: Some(source.into()),
        }
    }

    /// A backend call failed: `what` says what was being done and what went
    /// wrong (no error value says it).
    pub fn backend(what: impl Into<String>) -> Self {
        DesktopError::Backend {
            what: what.into(),
            source: None,
        }
    }

    /// A backend call failed: `what` says what was being done; `source` is
    /// the error that says why.
    pub fn backend_by(what: impl Into<String>, source: impl Into<Cause>) -> Self {
        DesktopError::Backend {
            what: what.into(),
            source: Some(source.into()),
        }
    }

    /// Encoding or decoding an image failed: `what` says what was being done
    /// and what went wrong (no error value says it).
    pub fn image(what: impl Into<String>) -> Self {
        DesktopError::Image {
            what: what.into(),
            source: None,
        }
    }

    /// Encoding or decoding an image failed: `what` says what was being
    /// done; `source` is the error that says why.
    pub fn image_by(what: impl Into<String>, source: impl Into<Cause>) -> Self {
        DesktopError::Image {
            what: what.into(),
            source: Some(source.into()),
        }
    }
}

impl Diagnostic for DesktopError {
    fn code(&self) -> &'static str {
        match self {
            DesktopError::Unreachable { .. } => "ufo::desktop::unreachable",
            DesktopError::StaleElement { .. } => "ufo::desktop::stale_element",
            DesktopError::WindowNotFound(_) => "ufo::desktop::window_not_found",
            DesktopError::Unsupported { .. } => "ufo::desktop::unsupported",
            DesktopError::BadArguments { .. } => "ufo::tool::bad_arguments",
            DesktopError::UnknownControl { .. } => "ufo::tool::unknown_control",
            DesktopError::NameMismatch { .. } => "ufo::tool::name_mismatch",
            DesktopError::VerificationFailed(_) => "ufo::tool::verification_failed",
            DesktopError::Timeout { .. } => "ufo::desktop::timeout",
            DesktopError::BadKeys { .. } => "ufo::tool::bad_keys",
            DesktopError::Image { .. } => "ufo::desktop::image",
            DesktopError::UnknownTool(_) => "ufo::tool::unknown_tool",
            DesktopError::Backend { .. } => "ufo::desktop::backend",
            DesktopError::NoWindowSelected => "ufo::tool::no_window_selected",
            DesktopError::CommandRefused { .. } => "ufo::tool::command_refused",
            DesktopError::CommandNotAllowed { .. } => "ufo::tool::command_not_allowed",
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            DesktopError::Unreachable { .. } => "start a private desktop with `ufo desktop start`, or check DISPLAY and DBUS_SESSION_BUS_ADDRESS; `ufo doctor` tells which part is missing".into(),
            DesktopError::StaleElement { .. } => "the window changed or closed; observe again and use the new control list".into(),
            DesktopError::WindowNotFound(_) => "list windows with `ufo windows` and pass a name or id shown there".into(),
            DesktopError::Unsupported { .. } => "pick a control of a type that supports this action, or use keyboard_input/click_input".into(),
            DesktopError::BadArguments { tool, .. } => format!("check the argument names and types in the documentation of `{tool}`"),
            DesktopError::UnknownControl { .. } => "use an id from the latest control list; ids change after each observation".into(),
            DesktopError::NameMismatch { .. } => "pass the id and the name of the same control, exactly as listed".into(),
            DesktopError::VerificationFailed(_) => "observe the application again; the control may need focus or a different action".into(),
            DesktopError::Timeout { .. } => "the application may be busy; retry, or raise the deadline".into(),
            DesktopError::BadKeys { .. } => "use pywinauto syntax: literal text, {ENTER}, {TAB 3}, ^a (Ctrl), %f (Alt), +x (Shift), and {{}/{}} for braces".into(),
            DesktopError::Image { .. } => "check disk space and the output path".into(),
            DesktopError::UnknownTool(_) => "list the tools with `ufo act --list`".into(),
            DesktopError::Backend { .. } => "run `ufo doctor` to check the desktop".into(),
            DesktopError::NoWindowSelected => "list windows with get_desktop_app_info and choose one with select_application_window".into(),
            DesktopError::CommandRefused { .. } => "run_shell starts one application by its name, e.g. \"mousepad\" or \"gedit notes.txt\": the programs of the desktop's application entries, plus APP_ALLOWLIST in the config".into(),
            DesktopError::CommandNotAllowed { .. } => "execute_command runs one read-only program with plain arguments, e.g. \"ls -l /tmp\" or \"grep -n word notes.txt\"; the allowed programs are listed in the reason (ALLOWED_COMMANDS in the agent's THIRD_PARTY_AGENT_CONFIG narrows them)".into(),
        })
    }
}

/// Result alias for this crate.
pub type Result<T, E = DesktopError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;
    use std::io::{Error as IoError, ErrorKind};

    #[test]
    fn a_backend_error_keeps_the_io_error_as_its_source_and_shows_it() {
        let io = IoError::new(ErrorKind::PermissionDenied, "access denied");
        let e = DesktopError::backend_by("cannot start \"mousepad\"", io);
        let kind = e
            .source()
            .and_then(|s| s.downcast_ref::<IoError>())
            .map(IoError::kind);
        assert_eq!(kind, Some(ErrorKind::PermissionDenied));
        // The message says what was being done; the cause, why.
        assert_eq!(e.to_string(), "cannot start \"mousepad\"");
        let r = e.report();
        assert_eq!(
            (r.code.as_str(), r.causes.as_slice()),
            ("ufo::desktop::backend", &["access denied".to_owned()][..])
        );
        assert_eq!(
            r.message_with_causes(),
            "cannot start \"mousepad\": access denied"
        );
        assert_eq!(
            ufo_core::render(&e),
            "error[ufo::desktop::backend]: cannot start \"mousepad\"\n  caused by: access denied\n  help: run `ufo doctor` to check the desktop"
        );
        let plain = DesktopError::backend("the control refused WM_SETTEXT");
        assert!(plain.source().is_none());
        assert!(plain.report().causes.is_empty());
    }

    #[test]
    fn an_image_error_keeps_its_source_and_code() {
        let e = DesktopError::image_by("PNG encoding failed", IoError::other("disk full"));
        assert_eq!(e.code(), "ufo::desktop::image");
        assert_eq!(e.to_string(), "image error: PNG encoding failed");
        assert_eq!(e.report().causes, ["disk full"]);
        assert!(
            DesktopError::image("no screenshot was taken")
                .source()
                .is_none()
        );
    }
}
