//! The session's error domain: configuration, plans and logs.

use ufo_core::Diagnostic;

/// What can stop a session before or outside an agent step.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// A config key is missing.
    #[error("config key `{key}` is missing: {message}")]
    MissingKey {
        /// The key, e.g. `APP_AGENT.API_TYPE`.
        key: String,
        /// What it is needed for.
        message: String,
    },
    /// A config key has a wrong value.
    #[error("config key `{key}`: {message}")]
    BadKey {
        /// The key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A config key nothing reads (a misspelling, or a UFO key ufo-rs does
    /// not use).
    #[error("config key `{key}`: {message}")]
    UnknownKey {
        /// The key, e.g. `MAX_STEPP` or `APP_AGENT.API_MODLE`.
        key: String,
        /// What is wrong, with the nearest known key.
        message: String,
    },
    /// The config file cannot be read or parsed.
    #[error("config file {path}: {message}")]
    ConfigFile {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A plan or task file is wrong.
    #[error("plan {path}: {message}")]
    Plan {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// Log files cannot be written.
    #[error("cannot write logs in {path}: {message}")]
    Logs {
        /// The directory or file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A model could not be built from its section.
    #[error("model of {section}: {message}")]
    Model {
        /// The config section.
        section: String,
        /// What is wrong (never contains a key).
        message: String,
        /// The model error's help.
        help: Option<String>,
    },
}

impl Diagnostic for SessionError {
    fn code(&self) -> &'static str {
        match self {
            SessionError::MissingKey { .. } => "ufo::config::missing_key",
            SessionError::BadKey { .. } => "ufo::config::bad_key",
            SessionError::UnknownKey { .. } => "ufo::config::unknown_key",
            SessionError::ConfigFile { .. } => "ufo::config::file",
            SessionError::Plan { .. } => "ufo::session::plan",
            SessionError::Logs { .. } => "ufo::session::logs",
            SessionError::Model { .. } => "ufo::config::model",
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            SessionError::MissingKey { key, .. } => {
                format!("add `{key}` to your config file (see the README's Configuration section)")
            }
            SessionError::BadKey { key, .. } => {
                format!("fix the value of `{key}` in your config file")
            }
            SessionError::UnknownKey { key, .. } => format!(
                "fix or remove `{key}`; to load a UFO config that carries keys ufo-rs does not use, run with --lenient (or UFO_CONFIG_LENIENT=1)"
            ),
            SessionError::ConfigFile { .. } => {
                "check the path given with --config and that the file is valid YAML".into()
            }
            SessionError::Plan { .. } => {
                "see the README's Modes section for the plan and task file formats".into()
            }
            SessionError::Logs { .. } => {
                "check that the log directory is writable and has free space".into()
            }
            SessionError::Model { help, .. } => help
                .clone()
                .unwrap_or_else(|| "check the section's API_* keys".into()),
        })
    }
}
