//! The error convention shared by every crate.
//!
//! Each domain (desktop, model, session, config, ...) has its own error enum. Every
//! variant has a **stable code** (`ufo::desktop::launch_timeout`) that scripts and
//! tests can match on, and a **help line** that tells the user what to do next.
//! Codes never change once released; messages may be improved freely.

use serde::{Deserialize, Serialize};
use std::fmt;

/// An error that carries a stable code and a help line (nushell style).
///
/// Implement it for every error enum that can reach a user. The `Display` of the
/// error is the one-line message; [`Diagnostic::help`] says what to do about it.
pub trait Diagnostic: std::error::Error {
    /// A stable, machine-matchable code such as `ufo::desktop::xvfb_missing`.
    fn code(&self) -> &'static str;

    /// One line telling the user how to fix or work around the problem.
    /// `None` only when there is genuinely nothing to suggest.
    fn help(&self) -> Option<String>;

    /// A serialisable snapshot of this error (code, message, help).
    fn report(&self) -> ErrorReport {
        ErrorReport {
            code: self.code().to_owned(),
            message: self.to_string(),
            help: self.help(),
        }
    }
}

/// A serialisable error: what went wrong, its stable code and how to fix it.
///
/// This is what crosses process and network boundaries (JSON output of the CLI,
/// failed [`ActionResult`](crate::ActionResult)s, service frames).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorReport {
    /// Stable code, e.g. `ufo::desktop::element_not_found`.
    pub code: String,
    /// Human-readable one-line message.
    pub message: String,
    /// What to do next, when there is something to suggest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

impl ErrorReport {
    /// Builds a report from its parts.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            help: None,
        }
    }

    /// Adds a help line.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The one-line form a person reads: `error[code]: message`.
    pub fn headline(&self) -> String {
        format!("error[{}]: {}", self.code, self.message)
    }

    /// The whole form a person reads, the one renderer every front end uses:
    /// `error[code]: message`, then `  help: …` on its own line when there is
    /// help.
    pub fn rendered(&self) -> String {
        match &self.help {
            Some(h) => format!("{}\n  help: {h}", self.headline()),
            None => self.headline(),
        }
    }
}

/// `[code] message`. The help line is not part of it: whoever shows the error
/// prints the help once, on its own line (an error that wraps a report, such
/// as "observation failed: [ufo::desktop::timeout] ...", forwards its help).
impl fmt::Display for ErrorReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.code, self.message)
    }
}

impl std::error::Error for ErrorReport {}

impl Diagnostic for ErrorReport {
    fn code(&self) -> &'static str {
        // A report is already serialised: its code is dynamic. Callers that need it
        // read the field; the trait's static code marks it as a forwarded report.
        "ufo::report"
    }

    fn help(&self) -> Option<String> {
        self.help.clone()
    }

    fn report(&self) -> ErrorReport {
        self.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_display_has_code_and_help() {
        let r = ErrorReport::new("ufo::x::y", "it broke").with_help("do z");
        assert_eq!(r.to_string(), "[ufo::x::y] it broke");
        assert_eq!(r.help.as_deref(), Some("do z"));
        let back: ErrorReport = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
        assert_eq!(Diagnostic::report(&back), r);
        assert_eq!(r.rendered(), "error[ufo::x::y]: it broke\n  help: do z");
        assert_eq!(
            ErrorReport::new("ufo::x::y", "it broke").rendered(),
            "error[ufo::x::y]: it broke"
        );
    }
}
