//! The session's error domain: configuration, plans, logs, and why a session
//! or round ended without finishing.

use ufo_core::{BoxError, Diagnostic};

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
        /// The underlying error (I/O, YAML), when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// A plan or task file is wrong.
    #[error("plan {path}: {message}")]
    Plan {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
        /// The underlying error (I/O, JSON), when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// Log files cannot be written.
    #[error("cannot write logs in {path}: {source}")]
    Logs {
        /// The directory or file.
        path: String,
        /// What is wrong (I/O, JSON).
        #[source]
        source: BoxError,
    },
    /// A model could not be built from its section.
    #[error("model of {section}: {source}")]
    Model {
        /// The config section.
        section: String,
        /// What is wrong (never contains a key).
        #[source]
        source: BoxError,
        /// The model error's help.
        help: Option<String>,
    },
    /// `MAX_STEP` was reached.
    #[error("MAX_STEP ({max}) reached")]
    MaxStep {
        /// The limit.
        max: usize,
    },
    /// `MAX_COST` was reached.
    #[error("MAX_COST (${max:.4}) reached: the session spent ${spent:.4} ({tokens} tokens)")]
    Budget {
        /// The limit, USD.
        max: f64,
        /// What was spent, USD.
        spent: f64,
        /// Tokens used.
        tokens: u64,
    },
    /// Nothing to do: no `-r` and no terminal to ask.
    #[error("no request was given and none could be asked (no terminal); nothing ran")]
    NoRequest,
    /// The model itself answered ERROR.
    #[error("the {who} model ended the task with status ERROR; {detail}")]
    ModelSaidError {
        /// `HostAgent`, `AppAgent/<app>/<window>` or a third-party agent's name.
        who: String,
        /// Its comment, or that it gave none.
        detail: String,
    },
    /// SIGINT or SIGTERM.
    #[error("interrupted by {signal} at step {step}")]
    Interrupted {
        /// The signal's name.
        signal: String,
        /// The last step.
        step: usize,
    },
    /// `--app` (or a plan) names an application with no window.
    #[error("no window of {application:?} on the desktop ({open})")]
    AppNotFound {
        /// The application asked for.
        application: String,
        /// What is open.
        open: String,
    },
    /// A replayed plan action failed.
    #[error("plan action {action:?} failed")]
    PlanActionFailed {
        /// The action.
        action: String,
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
            SessionError::MaxStep { .. } => "ufo::session::max_step",
            SessionError::Budget { .. } => "ufo::session::budget",
            SessionError::NoRequest => "ufo::session::no_request",
            SessionError::ModelSaidError { .. } => "ufo::session::model_error",
            SessionError::Interrupted { .. } => "ufo::session::interrupted",
            SessionError::AppNotFound { .. } => "ufo::session::app_not_found",
            SessionError::PlanActionFailed { .. } => "ufo::session::plan_action_failed",
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
            SessionError::MaxStep { .. } => "raise MAX_STEP in the config".into(),
            SessionError::Budget { .. } => "the logs and output.md say what was spent per agent; raise MAX_COST in the config (or `ufo eval --max-cost/--max-task-cost`) to go further".into(),
            SessionError::NoRequest => {
                "give the request with -r \"...\", or run in a terminal to be asked".into()
            }
            SessionError::ModelSaidError { .. } => "read the step's thought in response.log; rephrase the request or try a stronger model".into(),
            SessionError::Interrupted { .. } => "the logs up to the last finished step are complete; run the request again to go on".into(),
            SessionError::AppNotFound { .. } => "launch the application first, e.g. `ufo desktop launch gedit`; if it runs but is busy or hung, `ufo doctor` names it".into(),
            SessionError::PlanActionFailed { .. } => "see the step's error in response.log; fix the plan or the application's state".into(),
        })
    }
}
