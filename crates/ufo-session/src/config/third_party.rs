//! Third-party agents: `ENABLED_THIRD_PARTY_AGENTS` and
//! `THIRD_PARTY_AGENT_CONFIG` (UFO's `third_party.yaml`).
//!
//! ```yaml
//! ENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]
//! THIRD_PARTY_AGENT_CONFIG:
//!   LinuxAgent:
//!     INTRODUCTION: "Answers questions about files and the system with read-only commands."
//!     ALLOWED_COMMANDS: [ls, cat, wc, grep]   # narrows the built-in set
//!     COMMAND_TIMEOUT: 30                     # default seconds per command
//!     OUTPUT_LIMIT: 16384                     # bytes kept per stream
//!     WORKING_DIRECTORY: /srv/data            # default cwd
//! ```
//!
//! The one third-party agent ufo-rs ships is `LinuxAgent`, the command-line
//! agent; none is enabled unless the config lists it. Entries of
//! `THIRD_PARTY_AGENT_CONFIG` that are not enabled are not read (UFO's file
//! carries several).

use super::{Keys, bad, template_path, unknown::nearest};
use crate::error::SessionError;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;
use ufo_agent::CommandAgentSpec;
use ufo_desktop::commands::CommandPolicy;

/// The third-party agents ufo-rs can run.
pub const AVAILABLE: &[&str] = &["LinuxAgent"];

/// Keys of a `THIRD_PARTY_AGENT_CONFIG` entry. `VISUAL_MODE` and
/// `API_PROMPT` are UFO's and accepted: the command-line agent sees no
/// screen, and its tool descriptions come from the tool catalog.
const ENTRY_KEYS: &[&str] = &[
    "AGENT_NAME",
    "INTRODUCTION",
    "APPAGENT_PROMPT",
    "APPAGENT_EXAMPLE_PROMPT",
    "API_PROMPT",
    "VISUAL_MODE",
    "ALLOWED_COMMANDS",
    "COMMAND_TIMEOUT",
    "OUTPUT_LIMIT",
    "WORKING_DIRECTORY",
];

const DEFAULT_INTRODUCTION: &str = "A command-line agent on this machine. It answers questions about files, folders, processes, disk space and the system by running read-only commands (ls, cat, grep, wc, find, df, ps, ...). It cannot change anything or operate application windows.";

/// An enabled third-party agent: what the HostAgent is told and what the
/// device may run for it.
#[derive(Debug, Clone)]
pub struct ThirdPartyAgent {
    /// The agent as the HostAgent and the prompts know it.
    pub spec: CommandAgentSpec,
    /// What its `execute_command` may run.
    pub policy: CommandPolicy,
}

/// Reads the enabled third-party agents.
pub(super) fn read(keys: &Keys<'_>, base: &Path) -> Result<Vec<ThirdPartyAgent>, SessionError> {
    let enabled = keys
        .strings("ENABLED_THIRD_PARTY_AGENTS", "a list of agent names")?
        .unwrap_or_default();
    let configs = match keys.get("THIRD_PARTY_AGENT_CONFIG") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(other) => {
            return Err(bad(
                "THIRD_PARTY_AGENT_CONFIG",
                "a map from agent name to its settings",
                other,
            ));
        }
    };
    let mut out = Vec::new();
    for name in enabled.iter().map(|n| n.trim()) {
        if !AVAILABLE.contains(&name) {
            let hint = nearest(name, AVAILABLE.iter().copied())
                .map(|n| format!(" (did you mean {n}?)"))
                .unwrap_or_default();
            return Err(SessionError::BadKey {
                key: "ENABLED_THIRD_PARTY_AGENTS".into(),
                message: format!(
                    "{name:?} is not a third-party agent ufo-rs can run{hint}; available: {}",
                    AVAILABLE.join(", ")
                ),
            });
        }
        let entry = match configs.get(name) {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(other) => {
                return Err(bad(
                    &format!("THIRD_PARTY_AGENT_CONFIG.{name}"),
                    "a map of settings",
                    other,
                ));
            }
        };
        out.push(entry_of(name, &entry, base)?);
    }
    Ok(out)
}

fn entry_of(
    name: &str,
    m: &Map<String, Value>,
    base: &Path,
) -> Result<ThirdPartyAgent, SessionError> {
    let key = |k: &str| format!("THIRD_PARTY_AGENT_CONFIG.{name}.{k}");
    for k in m.keys() {
        if !ENTRY_KEYS.contains(&k.as_str()) {
            return Err(SessionError::UnknownKey {
                key: key(k),
                message: match nearest(k, ENTRY_KEYS.iter().copied()) {
                    Some(n) => format!("unknown key; did you mean {n}?"),
                    None => format!("unknown key; known: {}", ENTRY_KEYS.join(", ")),
                },
            });
        }
    }
    let text = |k: &str| -> Result<Option<String>, SessionError> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(bad(&key(k), "a string", other)),
        }
    };
    let number = |k: &str, min: f64, max: f64| -> Result<Option<f64>, SessionError> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_f64().filter(|f| (min..=max).contains(f)) {
                Some(f) => Ok(Some(f)),
                None => Err(bad(&key(k), &format!("a number from {min} to {max}"), v)),
            },
        }
    };
    let mut policy = CommandPolicy::default();
    if let Some(v) = m.get("ALLOWED_COMMANDS").filter(|v| !v.is_null()) {
        let names: Vec<String> = match v.as_array() {
            Some(a) => a
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| bad(&key("ALLOWED_COMMANDS"), "a list of program names", x))
                })
                .collect::<Result<_, _>>()?,
            None => return Err(bad(&key("ALLOWED_COMMANDS"), "a list of program names", v)),
        };
        policy = policy
            .only(&names)
            .map_err(|message| SessionError::BadKey {
                key: key("ALLOWED_COMMANDS"),
                message,
            })?;
    }
    if let Some(t) = number("COMMAND_TIMEOUT", 1.0, policy.max_timeout.as_secs_f64())? {
        policy.default_timeout = Duration::from_secs_f64(t);
    }
    if let Some(n) = number("OUTPUT_LIMIT", 256.0, 1_048_576.0)? {
        policy.output_limit = n as usize;
    }
    if let Some(dir) = text("WORKING_DIRECTORY")? {
        let p = PathBuf::from(dir.trim());
        let p = if p.is_absolute() { p } else { base.join(p) };
        if !p.is_dir() {
            return Err(SessionError::BadKey {
                key: key("WORKING_DIRECTORY"),
                message: format!("{} is not a directory", p.display()),
            });
        }
        policy.working_dir = Some(p);
    }
    let spec = CommandAgentSpec {
        name: text("AGENT_NAME")?
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| name.to_owned()),
        introduction: text("INTRODUCTION")?.unwrap_or_else(|| DEFAULT_INTRODUCTION.to_owned()),
        allowed_commands: policy.programs().map(str::to_owned).collect(),
        prompt: template_path(m.get("APPAGENT_PROMPT"), false, base),
        example_prompt: template_path(m.get("APPAGENT_EXAMPLE_PROMPT"), false, base),
    };
    Ok(ThirdPartyAgent { spec, policy })
}

#[cfg(test)]
mod tests {
    use crate::config::UfoConfig;
    use std::path::Path;

    fn parse(text: &str) -> Result<UfoConfig, crate::error::SessionError> {
        UfoConfig::parse(text, Path::new("/tmp"), &|_| None)
    }

    #[test]
    fn no_third_party_agent_unless_enabled() {
        let c = parse(
            "THIRD_PARTY_AGENT_CONFIG:\n  LinuxAgent: {INTRODUCTION: hi}\n  MobileAgent: {X: 1}\n",
        )
        .unwrap();
        assert!(c.system.third_party.is_empty());
    }

    #[test]
    fn the_linux_agent_is_read_with_its_policy() {
        let c = parse(
            "ENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]\nTHIRD_PARTY_AGENT_CONFIG:\n  LinuxAgent:\n    VISUAL_MODE: false\n    INTRODUCTION: reads files\n    ALLOWED_COMMANDS: [wc, cat]\n    COMMAND_TIMEOUT: 5\n    WORKING_DIRECTORY: /tmp\n",
        )
        .unwrap();
        let a = &c.system.third_party[0];
        assert_eq!(a.spec.name, "LinuxAgent");
        assert_eq!(a.spec.introduction, "reads files");
        assert_eq!(a.spec.allowed_commands, ["cat", "wc"]);
        assert_eq!(a.policy.default_timeout.as_secs(), 5);
        assert!(a.policy.parse("ls").is_err());
        // Enabled with no entry: the defaults.
        let c = parse("ENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]\n").unwrap();
        assert!(c.system.third_party[0].spec.allowed_commands.len() > 20);
    }

    #[test]
    fn mistakes_are_named() {
        for (text, key, says) in [
            (
                "ENABLED_THIRD_PARTY_AGENTS: [LinuxAgnet]\n",
                "ENABLED_THIRD_PARTY_AGENTS",
                "did you mean LinuxAgent",
            ),
            (
                "ENABLED_THIRD_PARTY_AGENTS: [HardwareAgent]\n",
                "ENABLED_THIRD_PARTY_AGENTS",
                "available: LinuxAgent",
            ),
            (
                "ENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]\nTHIRD_PARTY_AGENT_CONFIG: {LinuxAgent: {ALLOWED_COMMAND: [ls]}}\n",
                "THIRD_PARTY_AGENT_CONFIG.LinuxAgent.ALLOWED_COMMAND",
                "did you mean ALLOWED_COMMANDS",
            ),
            (
                "ENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]\nTHIRD_PARTY_AGENT_CONFIG: {LinuxAgent: {ALLOWED_COMMANDS: [rm]}}\n",
                "THIRD_PARTY_AGENT_CONFIG.LinuxAgent.ALLOWED_COMMANDS",
                "\"rm\" is not one of the commands",
            ),
            (
                "ENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]\nTHIRD_PARTY_AGENT_CONFIG: {LinuxAgent: {COMMAND_TIMEOUT: 9999}}\n",
                "THIRD_PARTY_AGENT_CONFIG.LinuxAgent.COMMAND_TIMEOUT",
                "from 1 to 120",
            ),
            (
                "ENABLED_THIRD_PARTY_AGENTS: [LinuxAgent]\nTHIRD_PARTY_AGENT_CONFIG: {LinuxAgent: {WORKING_DIRECTORY: /no/such}}\n",
                "THIRD_PARTY_AGENT_CONFIG.LinuxAgent.WORKING_DIRECTORY",
                "not a directory",
            ),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains(says), "{text}: {e}");
        }
    }
}
