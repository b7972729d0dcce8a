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

use super::de::{self, Count};
use super::{misspelt::nearest, template_path};
use crate::error::SessionError;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;
use ufo_agent::CommandAgentSpec;
use ufo_desktop::commands::CommandPolicy;

/// The third-party agents ufo-rs can run.
pub const AVAILABLE: &[&str] = &["LinuxAgent"];

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

/// The keys as written.
#[derive(Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(super) struct Keys {
    enabled_third_party_agents: Option<Vec<String>>,
    /// Every agent's entry; only the enabled ones are read.
    third_party_agent_config: Option<BTreeMap<String, Value>>,
}

/// A `THIRD_PARTY_AGENT_CONFIG` entry. `VISUAL_MODE` and `API_PROMPT` are
/// UFO's and accepted: the command-line agent sees no screen, and its tool
/// descriptions come from the tool catalog.
#[derive(Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE", expecting = "a map of settings")]
struct Entry {
    agent_name: Option<String>,
    introduction: Option<String>,
    appagent_prompt: Option<String>,
    appagent_example_prompt: Option<String>,
    #[serde(rename = "API_PROMPT")]
    _api_prompt: Option<Value>,
    #[serde(rename = "VISUAL_MODE")]
    _visual_mode: Option<Value>,
    allowed_commands: Option<Vec<String>>,
    /// Seconds, 1 to the policy's longest.
    command_timeout: Option<f64>,
    /// Bytes kept per stream.
    output_limit: Option<Count<usize>>,
    working_directory: Option<String>,
}

impl Keys {
    /// The enabled third-party agents; paths are relative to `base`.
    pub(super) fn agents(self, base: &Path) -> Result<Vec<ThirdPartyAgent>, SessionError> {
        let mut configs = self.third_party_agent_config.unwrap_or_default();
        let mut out = Vec::new();
        for name in self
            .enabled_third_party_agents
            .iter()
            .flatten()
            .map(|n| n.trim())
        {
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
            let at = format!("THIRD_PARTY_AGENT_CONFIG.{name}");
            let v = match configs.remove(name) {
                None | Some(Value::Null) => Value::Object(Default::default()),
                Some(v) => v,
            };
            let entry: Entry = de::read_all(&v, &at, |_| (de::keys_of::<Entry>(), ""))?;
            out.push(entry.agent(name, &at, base)?);
        }
        Ok(out)
    }
}

impl Entry {
    fn agent(self, name: &str, at: &str, base: &Path) -> Result<ThirdPartyAgent, SessionError> {
        let bad = |k: &str, message: String| SessionError::BadKey {
            key: format!("{at}.{k}"),
            message,
        };
        let mut policy = CommandPolicy::default();
        if let Some(names) = &self.allowed_commands {
            policy = policy.only(names).map_err(|m| bad("ALLOWED_COMMANDS", m))?;
        }
        if let Some(t) = self.command_timeout {
            let max = policy.max_timeout.as_secs_f64();
            if !(1.0..=max).contains(&t) {
                return Err(bad(
                    "COMMAND_TIMEOUT",
                    format!("expected a number from 1 to {max}, got {t}"),
                ));
            }
            policy.default_timeout = Duration::from_secs_f64(t);
        }
        if let Some(Count(n)) = self.output_limit {
            if !(256..=1_048_576).contains(&n) {
                return Err(bad(
                    "OUTPUT_LIMIT",
                    format!("expected a number from 256 to 1048576, got {n}"),
                ));
            }
            policy.output_limit = n;
        }
        if let Some(dir) = &self.working_directory {
            let p = base.join(dir.trim());
            if !p.is_dir() {
                return Err(bad(
                    "WORKING_DIRECTORY",
                    format!("{} is not a directory", p.display()),
                ));
            }
            policy.working_dir = Some(p);
        }
        let spec = CommandAgentSpec {
            name: self
                .agent_name
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| name.to_owned()),
            introduction: self
                .introduction
                .unwrap_or_else(|| DEFAULT_INTRODUCTION.to_owned()),
            allowed_commands: policy.programs().map(str::to_owned).collect(),
            prompt: template_path(self.appagent_prompt.as_deref(), false, base),
            example_prompt: template_path(self.appagent_example_prompt.as_deref(), false, base),
        };
        Ok(ThirdPartyAgent { spec, policy })
    }
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
