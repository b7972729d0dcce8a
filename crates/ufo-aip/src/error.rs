//! What can go wrong in service mode, each with a stable code and a help line.

use ufo_core::{BoxError, Diagnostic};

/// Errors of the AIP server and device client.
#[derive(Debug, thiserror::Error)]
pub enum AipError {
    /// `ufo serve` was asked to run without an API key.
    #[error("no API key: the server refuses to start without one")]
    NoApiKey,
    /// A key shorter than [`crate::auth::MIN_KEY_LEN`] characters.
    #[error("the {what} is {length} characters long; it must be at least {min}", min = crate::auth::MIN_KEY_LEN)]
    WeakKey {
        /// Which key (`API key`, `key of device "pc1"`).
        what: String,
        /// Its length.
        length: usize,
    },
    /// A device key (`--device-key ID=KEY`, a line of `--device-keys-file`)
    /// that cannot be used.
    #[error("bad device key {at}: {message}")]
    BadDeviceKey {
        /// Where it was given (`--device-key`, `keys.txt line 3`).
        at: String,
        /// What is wrong.
        message: String,
    },
    /// The server's certificate or key, or the CA a client trusts, cannot
    /// be read or used; or the server's certificate is not trusted.
    #[error("TLS: {message}")]
    Tls {
        /// What went wrong.
        message: String,
        /// What to do about it.
        help: String,
        /// The underlying error.
        #[source]
        source: Option<BoxError>,
    },
    /// `--insecure-no-auth` on an address other than loopback.
    #[error("--insecure-no-auth is allowed only on a loopback address, not {host}")]
    InsecureNotLoopback {
        /// The address asked for.
        host: String,
    },
    /// The listening socket cannot be opened.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The server URL is not a `ws://` or `wss://` URL.
    #[error("bad server URL {url:?}: {message}")]
    BadUrl {
        /// The URL given (without the key).
        url: String,
        /// What is wrong.
        message: String,
        /// The parser's error, when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// The server refused the key (HTTP 401 or 403, or a close with 1008).
    #[error("the server at {url} refused the API key ({why})")]
    Unauthorized {
        /// The server.
        url: String,
        /// How it refused.
        why: String,
    },
    /// The server cannot be reached, or the connection broke.
    #[error("cannot reach the server at {url}: {message}")]
    Connect {
        /// The server.
        url: String,
        /// What happened.
        message: String,
    },
    /// The server refused the registration.
    #[error("the server refused to register {client_id:?}: {message}")]
    Registration {
        /// The id sent.
        client_id: String,
        /// The server's reason.
        message: String,
    },
    /// Gave up reconnecting.
    #[error("gave up after {attempts} attempts to reach {url}: {last}")]
    RetriesExhausted {
        /// The server.
        url: String,
        /// Attempts made.
        attempts: u32,
        /// What the last attempt ran into.
        last: String,
        /// Why, when an error said so (the socket's, the JSON parser's).
        #[source]
        source: Option<BoxError>,
    },
    /// The connection dropped while this device's own task ran.
    #[error("the connection to the server broke while task {task:?} ran; the server ends it")]
    TaskInterrupted {
        /// The task's name.
        task: String,
    },
    /// A task name outside `[A-Za-z0-9._-]`.
    #[error(
        "invalid task_name {name:?}: use 1-128 characters of [A-Za-z0-9._-], not starting with '.'"
    )]
    BadTaskName {
        /// The name given.
        name: String,
    },
    /// The device did not answer a command in time.
    #[error("device {client_id:?} did not answer {tool} within {seconds} s")]
    CommandTimeout {
        /// The device.
        client_id: String,
        /// The first command's tool.
        tool: String,
        /// The timeout.
        seconds: f64,
    },
    /// The device answered a tool with a result in neither ufo-rs's shape
    /// nor UFO's.
    #[error("device {client_id:?} answered {tool} with a result that cannot be read: {source}")]
    BadResult {
        /// The device.
        client_id: String,
        /// The tool.
        tool: String,
        /// What is wrong with it.
        #[source]
        source: crate::payloads::PayloadError,
    },
    /// A Galaxy link to a device broke (or was closed) with a request
    /// outstanding.
    #[error("the link to device {device:?} is down: {why}")]
    LinkLost {
        /// The device.
        device: String,
        /// What ended it.
        why: String,
    },
    /// The server refused a sub-task (or a device-information request) a
    /// Galaxy link sent.
    #[error("the server refused {task:?}: {message}")]
    SubTaskRefused {
        /// The sub-task (or request).
        task: String,
        /// The server's words.
        message: String,
    },
    /// A sub-task a Galaxy link sent had no TASK_END in time.
    #[error("sub-task {task:?} had no TASK_END within {seconds} s")]
    SubTaskTimeout {
        /// The sub-task (or request).
        task: String,
        /// The time it was given.
        seconds: f64,
    },
    /// The device went away with commands outstanding.
    #[error("device {client_id:?} disconnected before answering {tool}")]
    DeviceGone {
        /// The device.
        client_id: String,
        /// The first command's tool.
        tool: String,
    },
}

impl Diagnostic for AipError {
    fn code(&self) -> &'static str {
        match self {
            AipError::NoApiKey => "ufo::aip::no_api_key",
            AipError::WeakKey { .. } => "ufo::aip::weak_key",
            AipError::BadDeviceKey { .. } => "ufo::aip::bad_device_key",
            AipError::Tls { .. } => "ufo::aip::tls",
            AipError::InsecureNotLoopback { .. } => "ufo::aip::insecure_not_loopback",
            AipError::Bind { .. } => "ufo::aip::bind",
            AipError::BadUrl { .. } => "ufo::aip::bad_url",
            AipError::Unauthorized { .. } => "ufo::aip::unauthorized",
            AipError::Connect { .. } => "ufo::aip::connect",
            AipError::Registration { .. } => "ufo::aip::registration",
            AipError::RetriesExhausted { .. } => "ufo::aip::retries_exhausted",
            AipError::TaskInterrupted { .. } => "ufo::aip::task_interrupted",
            AipError::BadTaskName { .. } => "ufo::aip::bad_task_name",
            AipError::CommandTimeout { .. } => "ufo::aip::command_timeout",
            AipError::DeviceGone { .. } => "ufo::aip::device_gone",
            AipError::LinkLost { .. } => "ufo::aip::link_lost",
            AipError::SubTaskRefused { .. } => "ufo::aip::sub_task_refused",
            AipError::SubTaskTimeout { .. } => "ufo::aip::sub_task_timeout",
            AipError::BadResult { .. } => "ufo::aip::bad_result",
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            AipError::NoApiKey => "set UFO_API_KEY or pass --api-key-file FILE (or, on loopback only, --insecure-no-auth)".into(),
            AipError::InsecureNotLoopback { .. } => {
                "bind to 127.0.0.1, or give the server an API key".into()
            }
            AipError::WeakKey { .. } => "use a long random key, e.g. `head -c 24 /dev/urandom | base64 > ufo.key && chmod 600 ufo.key`".into(),
            AipError::BadDeviceKey { .. } => "give each device as ID=KEY (--device-key) or as `ID: KEY` lines (--device-keys-file), IDs of [A-Za-z0-9._-], keys of at least 16 characters, each key different".into(),
            AipError::Tls { help, .. } => help.clone(),
            AipError::Bind { .. } => "choose another --port, or stop what listens there".into(),
            AipError::BadUrl { .. } => "use the form ws://127.0.0.1:5000/ws".into(),
            AipError::Unauthorized { .. } => {
                "give the server's key (this device's own key when the server has one for it) with UFO_API_KEY or --api-key-file".into()
            }
            AipError::Connect { .. } => {
                "start the server with `ufo serve`, and check --server".into()
            }
            AipError::Registration { .. } => {
                "use the --client-id your key is for, or stop the device already registered under it".into()
            }
            AipError::RetriesExhausted { .. } => {
                "check that the server runs; raise --max-retries to wait longer".into()
            }
            AipError::TaskInterrupted { .. } => {
                "read the task's logs on the server; send the request again once connected".into()
            }
            AipError::BadTaskName { .. } => "e.g. \"report-2026.11_a\"".into(),
            AipError::CommandTimeout { .. } => {
                "check the device (is its desktop responsive?); raise --command-timeout".into()
            }
            AipError::DeviceGone { .. } => {
                "restart the device with `ufo client`; the task must be sent again".into()
            }
            AipError::LinkLost { .. } => {
                "check that the device's server (`ufo serve`) runs and the device is connected; the sub-task must be sent again".into()
            }
            AipError::SubTaskRefused { .. } => {
                "the server's words say why: connect the device, wait for its running task to end, or fix the request".into()
            }
            AipError::SubTaskTimeout { .. } => {
                "give the sub-task a longer timeout, or read the device's session logs on its server".into()
            }
            AipError::BadResult { .. } => "the device runs tools that answer in a shape neither ufo-rs nor UFO uses: run `ufo client` or UFO's own client (ufo.client.client) with UFO's tool servers, and read the device's log".into(),
        })
    }
}
