//! The agents' error domain.

use ufo_core::Diagnostic;

/// What can stop an agent step.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// A prompt template could not be read or lacks a key.
    #[error("prompt template {source_name}: {message}")]
    Template {
        /// Which template (path or built-in name).
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// The model failed (after its own retries and the backup model).
    #[error("the model failed: {0}")]
    Model(ufo_core::ErrorReport),
    /// The model's replies could not be parsed or validated, `JSON_PARSING_RETRY` times.
    #[error("no usable reply after {attempts} attempts; last error: {last_error}")]
    ParseRetryExhausted {
        /// Replies asked for.
        attempts: u32,
        /// The last validation error.
        last_error: String,
    },
    /// Observation failed (screenshot or control list).
    #[error("observation failed: {0}")]
    Observation(ufo_core::ErrorReport),
    /// The user declined a confirmation (SAFE_GUARD or CONFIRM): the action
    /// did not run.
    #[error("declined by the user")]
    Declined,
    /// A follower plan names a control the window does not have.
    #[error("no control named {name:?} of type {types:?} in the window ({count} controls)")]
    PlanControlNotFound {
        /// The name in the plan.
        name: String,
        /// The control types in the plan.
        types: String,
        /// How many controls the window has.
        count: usize,
    },
    /// The step did not finish within its deadline.
    #[error("the step did not finish within {seconds} s (STEP_TIMEOUT)")]
    StepDeadline {
        /// The deadline.
        seconds: f64,
    },
}

impl Diagnostic for AgentError {
    fn code(&self) -> &'static str {
        match self {
            AgentError::Template { .. } => "ufo::agent::template",
            AgentError::Model(_) => "ufo::agent::model",
            AgentError::ParseRetryExhausted { .. } => "ufo::agent::parse_retry_exhausted",
            AgentError::Observation(_) => "ufo::agent::observation",
            AgentError::StepDeadline { .. } => "ufo::agent::step_deadline",
            AgentError::Declined => "ufo::agent::declined",
            AgentError::PlanControlNotFound { .. } => "ufo::agent::plan_control_not_found",
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            AgentError::Template { .. } => "check the PROMPT / EXAMPLE_PROMPT paths in your config, or remove them to use the built-in templates".into(),
            AgentError::Model(r) => r.help.clone().unwrap_or_else(|| "check the agent's API_* keys with `ufo llm ping`".into()),
            AgentError::ParseRetryExhausted { .. } => "the model does not follow the reply format; try a stronger model or raise JSON_PARSING_RETRY".into(),
            AgentError::Observation(r) => r.help.clone().unwrap_or_else(|| "check the desktop with `ufo doctor`".into()),
            AgentError::StepDeadline { .. } => "the model or the application is too slow or hung: raise STEP_TIMEOUT, lower TIMEOUT/MAX_RETRY, or check the model with `ufo llm ping`".into(),
            AgentError::Declined => "nothing to do: the agent was told and chooses its next step; SAFE_GUARD: false runs sensitive actions without asking".into(),
            AgentError::PlanControlNotFound { .. } => "check the plan's name and control_type against `ufo inspect`".into(),
        })
    }

    /// As the provided report, and a forwarded report (the model's, the
    /// observation's) keeps its causes: its message is in ours, its causes
    /// are not.
    fn report(&self) -> ufo_core::ErrorReport {
        let message = self.to_string();
        let mut causes = ufo_core::error::causes(std::error::Error::source(self), &message);
        if let AgentError::Model(r) | AgentError::Observation(r) = self {
            causes.extend(r.causes.iter().cloned());
        }
        ufo_core::ErrorReport {
            code: self.code().to_owned(),
            message,
            help: self.help(),
            causes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forwarded_report_keeps_its_causes() {
        let mut inner =
            ufo_core::ErrorReport::new("ufo::desktop::backend", "AT-SPI call on x failed");
        inner.causes = vec!["org.freedesktop.DBus.Error.Timeout".into()];
        let r = AgentError::Observation(inner).report();
        assert_eq!(r.code, "ufo::agent::observation");
        assert!(r.message.contains("AT-SPI call on x failed"), "{r:?}");
        assert_eq!(r.causes, ["org.freedesktop.DBus.Error.Timeout"]);
        assert!(
            r.rendered()
                .contains("\n  caused by: org.freedesktop.DBus.Error.Timeout"),
            "{}",
            r.rendered()
        );
        assert!(AgentError::Declined.report().causes.is_empty());
    }
}
