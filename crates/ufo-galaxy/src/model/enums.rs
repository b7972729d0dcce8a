//! The enumerations of a constellation, spelt as UFO's
//! `galaxy/constellation/enums.py` writes them: task status, dependency
//! type, constellation state, device type and priority.
//!
//! Reading is lenient the way UFO's is: any case, `-` or a space for `_`,
//! and an unknown spelling becomes the default (`pending`, `unconditional`,
//! `created`, `MEDIUM`; an unknown device type is no device type). Writing
//! is always UFO's lower-case value (the priority as its number). Where a
//! silent default would hide a mistake (an edit command's
//! `dependency_type`), callers use the strict [`DependencyType::parse`].

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

/// `text` as the enums compare it: trimmed, lower case, `-` and spaces as `_`.
fn normalise(text: &str) -> String {
    text.trim()
        .chars()
        .map(|c| match c {
            '-' | ' ' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// Declares a text enum: its values, UFO's spelling of each (plus accepted
/// aliases), `as_str`, `parse`, `Display` and `Serialize`.
macro_rules! text_enum {
    ($(#[$m:meta])* $name:ident { $( $(#[$vm:meta])* $v:ident = $s:literal $(| $alias:literal)* ),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $( $(#[$vm])* $v ),+ }

        impl $name {
            /// Every value, in UFO's order.
            pub const ALL: &'static [$name] = &[$($name::$v),+];

            /// UFO's spelling (lower case, as serialised).
            pub fn as_str(self) -> &'static str {
                match self { $($name::$v => $s),+ }
            }

            /// Reads UFO's spelling in any case (`-` or a space for `_`);
            /// `None` when it is none of the values.
            pub fn parse(text: &str) -> Option<Self> {
                let t = normalise(text);
                $( if t == $s $(|| t == $alias)* { return Some($name::$v); } )+
                None
            }

            /// The spellings [`Self::parse`] accepts, for error messages.
            pub fn spellings() -> String {
                [$($s),+].join(", ")
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

/// Reads a text enum leniently: a known spelling, or `default` for an
/// unknown one or `null`; a value that is not text is an error.
fn lenient<'de, D: Deserializer<'de>, T>(
    d: D,
    parse: fn(&str) -> Option<T>,
    default: T,
    what: &str,
) -> Result<T, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(parse(&s).unwrap_or(default)),
        Value::Null => Ok(default),
        other => Err(D::Error::custom(format!(
            "{what} is {other}; expected text"
        ))),
    }
}

text_enum! {
    /// Where a task is in its life (`TaskStatus`). UFO never sets
    /// `waiting_dependency`; it counts as not started, like `pending`.
    #[derive(Default)]
    TaskStatus {
        /// Not started.
        #[default]
        Pending = "pending",
        /// Sent to its device, no TASK_END yet.
        Running = "running",
        /// Ended in success.
        Completed = "completed",
        /// Ended in failure.
        Failed = "failed",
        /// Ended without running to its end.
        Cancelled = "cancelled",
        /// Not started; UFO's name for a task waiting on predecessors.
        WaitingDependency = "waiting_dependency",
    }
}

impl TaskStatus {
    /// Ended: completed, failed or cancelled.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    /// Not started yet (`pending` or `waiting_dependency`): the only tasks
    /// an edit may change (UFO's "modifiable" tasks).
    pub fn is_not_started(self) -> bool {
        matches!(self, Self::Pending | Self::WaitingDependency)
    }
}

impl<'de> Deserialize<'de> for TaskStatus {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d, Self::parse, Self::Pending, "status")
    }
}

text_enum! {
    /// How a dependency (a [`crate::model::TaskStarLine`]) gates the task it
    /// leads to. What each one means for the ready set is in
    /// [`crate::ready`].
    #[derive(Default)]
    DependencyType {
        /// Released when the prerequisite ends, however it ended.
        #[default]
        Unconditional = "unconditional",
        /// Released when the prerequisite ends; its condition text is
        /// handed to the agent, which judges it.
        Conditional = "conditional",
        /// Released only when the prerequisite completed successfully.
        SuccessOnly = "success_only",
        /// Released when the prerequisite ends, however it ended.
        CompletionOnly = "completion_only",
    }
}

impl<'de> Deserialize<'de> for DependencyType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d, Self::parse, Self::Unconditional, "dependency_type")
    }
}

text_enum! {
    /// Where the whole constellation is (`ConstellationState`), derived from
    /// its tasks' statuses ([`crate::model::derive_state`]).
    #[derive(Default)]
    ConstellationState {
        /// No tasks.
        #[default]
        Created = "created",
        /// Tasks, none started.
        Ready = "ready",
        /// Some task started, not all ended.
        Executing = "executing",
        /// All ended, none failed.
        Completed = "completed",
        /// All ended, every one that ran failed.
        Failed = "failed",
        /// All ended, some failed and some completed.
        PartiallyFailed = "partially_failed",
        /// All ended, all cancelled (UFO has no way to reach it).
        Cancelled = "cancelled",
    }
}

impl<'de> Deserialize<'de> for ConstellationState {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient(d, Self::parse, Self::Created, "state")
    }
}

text_enum! {
    /// The kind of device a task is meant for (`DeviceType`). Also read
    /// from a device's `os` or platform name (`Darwin` is macOS).
    DeviceType {
        /// Windows.
        Windows = "windows" | "win32" | "win",
        /// macOS.
        Macos = "macos" | "darwin" | "mac",
        /// Linux.
        Linux = "linux",
        /// Android.
        Android = "android",
        /// iOS.
        Ios = "ios",
        /// A browser.
        Web = "web",
        /// A service reached through its API.
        Api = "api",
    }
}

impl<'de> Deserialize<'de> for DeviceType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).ok_or_else(|| {
            D::Error::custom(format!(
                "unknown device type {s:?}; expected one of {}",
                Self::spellings()
            ))
        })
    }
}

/// `deserialize_with` for an `Option<DeviceType>` read as UFO reads it:
/// `null` or an unknown name is no device type.
pub(crate) fn lenient_device_type<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<DeviceType>, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(DeviceType::parse(&s)),
        Value::Null => Ok(None),
        other => Err(D::Error::custom(format!(
            "device_type is {other}; expected text"
        ))),
    }
}

/// How urgent a task is (`TaskPriority`), 1 to 4. Among tasks ready at the
/// same time the higher priority starts first. Written as its number; read
/// from the number or the name, anything else is `MEDIUM`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum TaskPriority {
    /// 1.
    Low = 1,
    /// 2, the default.
    #[default]
    Medium = 2,
    /// 3.
    High = 3,
    /// 4.
    Critical = 4,
}

impl TaskPriority {
    /// The number UFO writes (1–4).
    pub fn value(self) -> u8 {
        self as u8
    }

    /// The priority of number `n`, if it is 1–4.
    pub fn from_value(n: i64) -> Option<Self> {
        Some(match n {
            1 => Self::Low,
            2 => Self::Medium,
            3 => Self::High,
            4 => Self::Critical,
            _ => return None,
        })
    }

    /// The priority named `text` (`low`, `HIGH`, …) or numbered (`"3"`).
    pub fn parse(text: &str) -> Option<Self> {
        match normalise(text).as_str() {
            "low" => Some(Self::Low),
            "medium" => Some(Self::Medium),
            "high" => Some(Self::High),
            "critical" => Some(Self::Critical),
            t => t.parse().ok().and_then(Self::from_value),
        }
    }

    /// UFO's name (`MEDIUM`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Low => "LOW",
            Self::Medium => "MEDIUM",
            Self::High => "HIGH",
            Self::Critical => "CRITICAL",
        }
    }
}

impl fmt::Display for TaskPriority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for TaskPriority {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.value())
    }
}

impl<'de> Deserialize<'de> for TaskPriority {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let parsed = match &v {
            Value::Number(n) => n
                .as_i64()
                .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                .and_then(Self::from_value),
            Value::String(s) => Self::parse(s),
            _ => None,
        };
        Ok(parsed.unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read<T: for<'de> Deserialize<'de>>(v: Value) -> T {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn statuses_read_any_case_and_default_to_pending() {
        assert_eq!(read::<TaskStatus>(json!("RUNNING")), TaskStatus::Running);
        assert_eq!(
            read::<TaskStatus>(json!("Waiting-Dependency")),
            TaskStatus::WaitingDependency
        );
        assert_eq!(read::<TaskStatus>(json!("exploded")), TaskStatus::Pending);
        assert_eq!(read::<TaskStatus>(json!(null)), TaskStatus::Pending);
        assert!(serde_json::from_value::<TaskStatus>(json!(3)).is_err());
        assert_eq!(
            json!(TaskStatus::WaitingDependency),
            json!("waiting_dependency")
        );
    }

    #[test]
    fn dependency_types_are_lenient_when_read_and_strict_when_parsed() {
        assert_eq!(
            read::<DependencyType>(json!("SUCCESS_ONLY")),
            DependencyType::SuccessOnly
        );
        assert_eq!(
            read::<DependencyType>(json!("sometimes")),
            DependencyType::Unconditional
        );
        assert_eq!(
            DependencyType::parse("completion only"),
            Some(DependencyType::CompletionOnly)
        );
        assert_eq!(DependencyType::parse("sometimes"), None);
        assert_eq!(json!(DependencyType::SuccessOnly), json!("success_only"));
    }

    #[test]
    fn states_and_device_types_keep_ufo_spellings() {
        assert_eq!(
            read::<ConstellationState>(json!("PARTIALLY_FAILED")),
            ConstellationState::PartiallyFailed
        );
        assert_eq!(
            read::<ConstellationState>(json!("bogus")),
            ConstellationState::Created
        );
        assert_eq!(DeviceType::parse("Darwin"), Some(DeviceType::Macos));
        assert_eq!(DeviceType::parse("LINUX"), Some(DeviceType::Linux));
        assert_eq!(DeviceType::parse("toaster"), None);
        assert!(serde_json::from_value::<DeviceType>(json!("toaster")).is_err());
        assert_eq!(json!(DeviceType::Macos), json!("macos"));
    }

    #[test]
    fn priorities_read_numbers_and_names_and_write_numbers() {
        assert_eq!(read::<TaskPriority>(json!(4)), TaskPriority::Critical);
        assert_eq!(read::<TaskPriority>(json!(3.0)), TaskPriority::High);
        assert_eq!(read::<TaskPriority>(json!("low")), TaskPriority::Low);
        assert_eq!(read::<TaskPriority>(json!("3")), TaskPriority::High);
        assert_eq!(read::<TaskPriority>(json!(9)), TaskPriority::Medium);
        assert_eq!(read::<TaskPriority>(json!([1])), TaskPriority::Medium);
        assert_eq!(json!(TaskPriority::High), json!(3));
        assert!(TaskPriority::Critical > TaskPriority::Low);
    }

    #[test]
    fn terminal_and_not_started_partition_the_statuses() {
        let terminal: Vec<_> = TaskStatus::ALL.iter().filter(|s| s.is_terminal()).collect();
        let waiting: Vec<_> = TaskStatus::ALL
            .iter()
            .filter(|s| s.is_not_started())
            .collect();
        assert_eq!(terminal.len(), 3);
        assert_eq!(
            waiting,
            [&TaskStatus::Pending, &TaskStatus::WaitingDependency]
        );
        assert!(!TaskStatus::Running.is_terminal() && !TaskStatus::Running.is_not_started());
    }
}
