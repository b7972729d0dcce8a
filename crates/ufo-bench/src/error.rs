//! The benchmarks' own errors (desktop, session and service errors come
//! from their crates' enums, already rendered).

use ufo_core::{Diagnostic, ErrorReport};

/// What can go wrong in a benchmark itself.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// An option has a bad value (`--runs 0`, an unknown application).
    #[error("{option}: {message}")]
    BadOption {
        /// The option.
        option: &'static str,
        /// What is wrong.
        message: String,
        /// An example of a good value.
        help: &'static str,
    },
    /// A file, a child process or a resource cannot be read or started.
    #[error("cannot read {what}: {message}")]
    Read {
        /// What could not be read.
        what: String,
        /// The OS error.
        message: String,
        /// The underlying error.
        #[source]
        source: Option<ufo_core::BoxError>,
        /// What to do.
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
    /// A baseline (the Python walk, the Python agent) failed.
    #[error("the baseline failed: {message}")]
    Baseline {
        /// Its last words.
        message: String,
        /// What to install or pass.
        help: &'static str,
    },
}

impl Diagnostic for BenchError {
    fn code(&self) -> &'static str {
        match self {
            // The codes the command line used before the benchmarks moved.
            BenchError::BadOption { .. } => "ufo::cli::bad_args",
            BenchError::Read { .. } => "ufo::cli::read",
            BenchError::Write { .. } => "ufo::cli::write",
            BenchError::Baseline { .. } => "ufo::bench::baseline",
        }
    }

    fn help(&self) -> Option<String> {
        match self {
            BenchError::BadOption { help, .. }
            | BenchError::Read { help, .. }
            | BenchError::Baseline { help, .. } => Some((*help).to_owned()),
            BenchError::Write { .. } => {
                Some("check that the directory exists and is writable".into())
            }
        }
    }
}

/// A [`BenchError::BadOption`], rendered.
pub(crate) fn bad(option: &'static str, message: String, help: &'static str) -> ErrorReport {
    BenchError::BadOption {
        option,
        message,
        help,
    }
    .report()
}

/// A [`BenchError::Write`] of `path`, rendered.
pub(crate) fn write_err(path: &std::path::Path, e: std::io::Error) -> ErrorReport {
    BenchError::Write {
        path: path.display().to_string(),
        source: e,
    }
    .report()
}

/// The path of the running executable, which benchmarks start again as
/// their helper processes.
pub(crate) fn current_exe() -> Result<std::path::PathBuf, ErrorReport> {
    std::env::current_exe().map_err(|e| {
        BenchError::Read {
            what: "the ufo executable's path".into(),
            message: e.to_string(),
            source: Some(e.into()),
            help: "run ufo from its installed path",
        }
        .report()
    })
}
