//! Agent statuses. Parsed once from model replies; past parsing, statuses are
//! enums and every state machine matches on them exhaustively.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Why a status string could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown status {found:?}; expected one of {expected}")]
pub struct StatusParseError {
    /// What the model wrote.
    pub found: String,
    /// The allowed values.
    pub expected: &'static str,
}

macro_rules! status_enum {
    ($(#[$m:meta])* $name:ident { $( $(#[$vm:meta])* $v:ident => $s:literal ),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $( $(#[$vm])* $v, )+ }

        impl $name {
            /// UFO's spelling (upper case).
            pub const fn as_str(self) -> &'static str {
                match self { $( $name::$v => $s, )+ }
            }
            /// All allowed values, for error messages and prompts.
            pub const EXPECTED: &'static str = concat!($( $s, " " ),+);
        }

        impl FromStr for $name {
            type Err = StatusParseError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let t = s.trim();
                $( if t.eq_ignore_ascii_case($s) { return Ok($name::$v); } )+
                Err(StatusParseError { found: t.to_owned(), expected: $name::EXPECTED.trim_end() })
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.as_str()) }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

status_enum! {
    /// The HostAgent's statuses.
    HostAgentStatus {
        /// Keep going with the HostAgent.
        Continue => "CONTINUE",
        /// Hand a subtask to an AppAgent.
        Assign => "ASSIGN",
        /// Wait for the user: answers to its questions, or (without
        /// questions) the confirmation of a safety-critical step.
        Pending => "PENDING",
        /// A safety-critical step is next; the user confirms it first.
        Confirm => "CONFIRM",
        /// The whole request is done.
        Finish => "FINISH",
        /// The request cannot be done.
        Fail => "FAIL",
        /// Something broke (unparseable replies, lost desktop).
        Error => "ERROR",
    }
}

status_enum! {
    /// The AppAgent's statuses.
    AppAgentStatus {
        /// Keep acting on this application.
        Continue => "CONTINUE",
        /// The subtask is done; hand back to the HostAgent.
        Finish => "FINISH",
        /// The subtask cannot be done.
        Fail => "FAIL",
        /// A sensitive action is next; ask the user first.
        Confirm => "CONFIRM",
        /// Ask the user the model's questions.
        Pending => "PENDING",
        /// Something broke.
        Error => "ERROR",
    }
}

status_enum! {
    /// The status a step of either agent ended in, as its log line and the
    /// step summaries carry it (UFO's upper-case spelling).
    StepStatus {
        /// Keep going.
        Continue => "CONTINUE",
        /// The HostAgent handed a sub-task to an AppAgent.
        Assign => "ASSIGN",
        /// The agent asked the user questions.
        Pending => "PENDING",
        /// A sensitive action waits for the user's confirmation.
        Confirm => "CONFIRM",
        /// Done.
        Finish => "FINISH",
        /// Cannot be done.
        Fail => "FAIL",
        /// Something broke.
        Error => "ERROR",
    }
}

impl From<HostAgentStatus> for StepStatus {
    fn from(s: HostAgentStatus) -> Self {
        match s {
            HostAgentStatus::Continue => StepStatus::Continue,
            HostAgentStatus::Assign => StepStatus::Assign,
            HostAgentStatus::Pending => StepStatus::Pending,
            HostAgentStatus::Confirm => StepStatus::Confirm,
            HostAgentStatus::Finish => StepStatus::Finish,
            HostAgentStatus::Fail => StepStatus::Fail,
            HostAgentStatus::Error => StepStatus::Error,
        }
    }
}

impl From<AppAgentStatus> for StepStatus {
    fn from(s: AppAgentStatus) -> Self {
        match s {
            AppAgentStatus::Continue => StepStatus::Continue,
            AppAgentStatus::Finish => StepStatus::Finish,
            AppAgentStatus::Fail => StepStatus::Fail,
            AppAgentStatus::Confirm => StepStatus::Confirm,
            AppAgentStatus::Pending => StepStatus::Pending,
            AppAgentStatus::Error => StepStatus::Error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_is_case_insensitive_and_errors_list_values() {
        assert_eq!(
            "assign".parse::<HostAgentStatus>(),
            Ok(HostAgentStatus::Assign)
        );
        let e = "DONE".parse::<AppAgentStatus>().unwrap_err();
        assert!(
            e.to_string()
                .contains("CONTINUE FINISH FAIL CONFIRM PENDING ERROR")
        );
        let s: AppAgentStatus = serde_json::from_str("\"Finish\"").unwrap();
        assert_eq!(s, AppAgentStatus::Finish);
        let step = StepStatus::from(HostAgentStatus::Assign);
        assert_eq!(serde_json::to_string(&step).unwrap(), "\"ASSIGN\"");
    }
}
