//! The error convention shared by every crate.
//!
//! Each domain (desktop, model, session, config, ...) has its own error enum. Every
//! variant has a **stable code** (`ufo::desktop::launch_timeout`) that scripts and
//! tests can match on, and a **help line** that tells the user what to do next.
//! Codes never change once released; messages may be improved freely.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The source of an error whose underlying error types vary (I/O, JSON,
/// YAML, ...). A plain message converts into it too (`"text".into()`).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

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

    /// A serialisable snapshot of this error (code, message, help, and the
    /// causes from its source chain that the message does not already say).
    fn report(&self) -> ErrorReport {
        let message = self.to_string();
        let causes = causes(self.source(), &message);
        ErrorReport {
            code: self.code().to_owned(),
            message,
            help: self.help(),
            causes,
        }
    }
}

/// The texts of `source` and its own sources, in order, leaving out each one
/// that `message` (or an earlier cause) already contains: errors that show
/// their source in their message (`cannot read x: No such file`) add nothing.
pub fn causes(source: Option<&(dyn std::error::Error + 'static)>, message: &str) -> Vec<String> {
    let mut shown = message.to_owned();
    let mut out = Vec::new();
    let mut next = source;
    while let Some(e) = next {
        let text = e.to_string();
        if !text.is_empty() && !shown.contains(&text) {
            shown.push('\n');
            shown.push_str(&text);
            out.push(text);
        }
        next = e.source();
    }
    out
}

/// Renders any error the way a person reads it (see [`ErrorReport::rendered`]).
pub fn render(error: &dyn Diagnostic) -> String {
    error.report().rendered()
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
    /// The underlying causes (source chain) not already in `message`,
    /// outermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<String>,
}

impl ErrorReport {
    /// Builds a report from its parts.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            help: None,
            causes: Vec::new(),
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

    /// The message followed by its causes, `message: cause: cause`: the
    /// one-line form where there is no room for `caused by:` lines (what a
    /// model is told of a failed call). The same as the message when there
    /// are no causes.
    pub fn message_with_causes(&self) -> String {
        let mut s = self.message.clone();
        for c in &self.causes {
            s.push_str(": ");
            s.push_str(c);
        }
        s
    }

    /// The whole form a person reads, the one renderer every front end uses:
    /// `error[code]: message`, then a `  caused by: …` line per cause, then
    /// `  help: …` on its own line when there is help.
    pub fn rendered(&self) -> String {
        self.rendered_at("error")
    }

    /// [`Self::rendered`] for an error that does not stop the command (a
    /// task file skipped, a server left out): `warning[code]: message`, then
    /// the same caused-by and help lines.
    pub fn rendered_warning(&self) -> String {
        self.rendered_at("warning")
    }

    fn rendered_at(&self, level: &str) -> String {
        let mut s = format!("{level}[{}]: {}", self.code, self.message);
        for c in &self.causes {
            s.push_str("\n  caused by: ");
            s.push_str(c);
        }
        if let Some(h) = &self.help {
            s.push_str("\n  help: ");
            s.push_str(h);
        }
        s
    }
}

/// `[code] message`. The help line is not part of it: whoever shows the error
/// prints the help once, on its own line (an error that wraps a report, such
/// as `"observation failed: [ufo::desktop::timeout] ..."`, forwards its help).
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

    #[derive(Debug, thiserror::Error)]
    #[error("cannot read f: {source}")]
    struct Shown {
        source: std::io::Error,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("cannot read f")]
    struct Hidden {
        #[source]
        source: Shown,
    }

    impl Diagnostic for Hidden {
        fn code(&self) -> &'static str {
            "ufo::x::read"
        }
        fn help(&self) -> Option<String> {
            Some("check f".into())
        }
    }

    #[test]
    fn rendered_lists_causes_not_already_shown() {
        let e = Hidden {
            source: Shown {
                source: std::io::Error::other("gone"),
            },
        };
        let r = e.report();
        assert_eq!(r.causes, vec!["cannot read f: gone".to_owned()]);
        assert_eq!(
            r.message_with_causes(),
            "cannot read f: cannot read f: gone"
        );
        assert_eq!(ErrorReport::new("a", "b").message_with_causes(), "b");
        assert_eq!(
            render(&e),
            "error[ufo::x::read]: cannot read f\n  caused by: cannot read f: gone\n  help: check f"
        );
        assert_eq!(
            r.rendered_warning(),
            "warning[ufo::x::read]: cannot read f\n  caused by: cannot read f: gone\n  help: check f"
        );
        let json = serde_json::to_string(&ErrorReport::new("a", "b")).unwrap();
        assert!(!json.contains("causes"), "{json}");
    }
}
