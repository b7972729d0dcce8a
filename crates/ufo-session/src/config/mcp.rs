//! External MCP servers: the `mcp:` section, in the shape of UFO's
//! `mcp.yaml` (agent → `default` → `data_collection` / `action` lists), and
//! `MCP_TOOL_TIMEOUT`.
//!
//! ```yaml
//! MCP_TOOL_TIMEOUT: 30            # seconds one external tool call may take
//! mcp:
//!   AppAgent:
//!     default:
//!       action:
//!         - namespace: fs           # the agent calls fs.read_text_file, ...
//!           type: stdio
//!           command: npx
//!           start_args: [-y, "@modelcontextprotocol/server-filesystem", /home/me/notes]
//!           env: {NODE_NO_WARNINGS: "1"}
//!         - namespace: search
//!           type: http
//!           url: http://127.0.0.1:8010/mcp   # or UFO's host, port, path
//!           headers: {Authorization: "Bearer ${SEARCH_TOKEN}"}
//!           timeout: 60
//! ```
//!
//! The AppAgent is the agent that calls external tools (the HostAgent only
//! assigns and launches). UFO's entries for ufo-rs's own namespaces
//! (`type: local`, `UICollector`, `AppUIExecutor`, ...) are accepted under
//! any agent: those tools are built in. Every other key, agent, list or
//! value is an error naming it.

use super::de::{self, Scalar, Text};
use crate::error::SessionError;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;
use ufo_core::de::Seconds;
use ufo_desktop::tools::{
    APP_UI_EXECUTOR, BASH_EXECUTOR, COMMAND_LINE_EXECUTOR, HOST_UI_EXECUTOR, UI_COLLECTOR,
};
use ufo_mcp::client::{ServerSpec, Transport};

/// The namespaces of ufo-rs's own tools (UFO's `type: local` servers).
const BUILT_IN: &[&str] = &[
    UI_COLLECTOR,
    HOST_UI_EXECUTOR,
    APP_UI_EXECUTOR,
    COMMAND_LINE_EXECUTOR,
    BASH_EXECUTOR,
];

/// The keys as written.
#[derive(Deserialize)]
pub(super) struct Keys {
    /// `MCP_TOOL_TIMEOUT` (30 s, UFO's default).
    #[serde(rename = "MCP_TOOL_TIMEOUT")]
    timeout: Option<Seconds<0, 3600>>,
    /// Read by [`Agents`], strictly (even when loading leniently).
    mcp: Option<Value>,
}

/// UFO's agents whose lists are read.
#[derive(Deserialize)]
#[serde(expecting = "a map from agent name (AppAgent) to its server lists")]
struct Agents {
    #[serde(rename = "AppAgent")]
    app: Option<Agent>,
    #[serde(rename = "HostAgent")]
    host: Option<Agent>,
}

#[derive(Deserialize)]
#[serde(expecting = "a map with `default`")]
struct Agent {
    default: Option<Lists>,
}

#[derive(Deserialize)]
#[serde(expecting = "a map with `action` and `data_collection` lists")]
struct Lists {
    /// Each entry is read by [`entry`].
    action: Option<Vec<Value>>,
    data_collection: Option<Vec<Value>>,
}

/// One server.
#[derive(Deserialize)]
#[serde(expecting = "a map with namespace and type")]
struct Entry {
    namespace: Text,
    #[serde(rename = "type")]
    kind: Text,
    command: Option<Text>,
    start_args: Option<Vec<Scalar>>,
    args: Option<Vec<Scalar>>,
    /// Values never echoed in errors (they may be secrets).
    env: Option<BTreeMap<String, Scalar>>,
    cwd: Option<Text>,
    url: Option<Text>,
    host: Option<Text>,
    port: Option<u16>,
    path: Option<Text>,
    /// As `env`.
    headers: Option<BTreeMap<String, Scalar>>,
    timeout: Option<Seconds<0, 3600, false>>,
    /// UFO's; accepted (ufo-rs starts each server once per session).
    #[serde(rename = "reset")]
    _reset: Option<bool>,
}

/// What belongs at a parent path inside `mcp:`.
fn known(parent: &[String]) -> (Vec<&'static str>, &'static str) {
    match parent.len() {
        0 => (
            de::keys_of::<Agents>(),
            "the agents are AppAgent and HostAgent",
        ),
        1 => (
            vec!["default"],
            "ufo-rs reads the `default` list only (not per-application lists); put the servers under `default`",
        ),
        _ => (
            de::keys_of::<Lists>(),
            "the lists are action and data_collection",
        ),
    }
}

impl Keys {
    /// The AppAgent's external servers.
    pub(super) fn servers(self) -> Result<Vec<ServerSpec>, SessionError> {
        let Some(v) = self.mcp.filter(|v| !v.is_null()) else {
            return Ok(Vec::new());
        };
        let agents: Agents = de::read_all(&v, "mcp", known)?;
        // MCP_TOOL_TIMEOUT 0 would fail every call; a call gets at least 1 s.
        let timeout = self.timeout.map_or(Duration::from_secs(30), |s| s.0);
        let mut out: Vec<ServerSpec> = Vec::new();
        for (agent, lists) in [("AppAgent", agents.app), ("HostAgent", agents.host)] {
            let Some(lists) = lists.and_then(|a| a.default) else {
                continue;
            };
            for (list, entries) in [
                ("action", lists.action),
                ("data_collection", lists.data_collection),
            ] {
                for (i, e) in entries.into_iter().flatten().enumerate() {
                    let at = format!("mcp.{agent}.default.{list}[{i}]");
                    let Some(spec) = entry(&e, &at, timeout)? else {
                        continue;
                    };
                    if (agent, list) != ("AppAgent", "action") {
                        return Err(SessionError::BadKey {
                            key: at,
                            message: "external servers go under AppAgent.default.action: the AppAgent is the agent that calls their tools".into(),
                        });
                    }
                    if out.iter().any(|s| s.namespace == spec.namespace) {
                        return Err(SessionError::BadKey {
                            key: format!("{at}.namespace"),
                            message: format!(
                                "{:?} is used twice; give each server its own namespace",
                                spec.namespace
                            ),
                        });
                    }
                    out.push(spec);
                }
            }
        }
        Ok(out)
    }
}

/// The keys of each server type besides `namespace`, `type` and `reset`.
fn keys_of_type(kind: &str) -> Option<&'static [&'static str]> {
    match kind {
        "local" => Some(&["start_args"]),
        "stdio" => Some(&["command", "start_args", "args", "env", "cwd", "timeout"]),
        "http" => Some(&["url", "host", "port", "path", "headers", "timeout"]),
        _ => None,
    }
}

/// One server, `None` for a built-in (`local`) namespace. A key of
/// another server type is named before any value is read.
fn entry(v: &Value, at: &str, timeout: Duration) -> Result<Option<ServerSpec>, SessionError> {
    let keys = de::keys_of::<Entry>();
    let kind = v.get("type").and_then(Value::as_str).unwrap_or_default();
    if let (Some(m), Some(allowed)) = (v.as_object(), keys_of_type(kind.trim())) {
        let shared = ["namespace", "type", "reset"];
        let other = m
            .keys()
            .map(String::as_str)
            .find(|k| keys.contains(k) && !shared.contains(k) && !allowed.contains(k));
        if let Some(k) = other {
            return Err(bad(at, k, format!("not a key of a `type: {kind}` server")));
        }
    }
    let e: Entry = de::read_all(v, at, |_| {
        (keys.clone(), "see the `mcp:` section in the README")
    })?;
    e.server(at, timeout)
}

impl Entry {
    /// The server, `None` for a built-in (`local`) namespace.
    fn server(
        self,
        at: &str,
        default_timeout: Duration,
    ) -> Result<Option<ServerSpec>, SessionError> {
        let bad = |k: &str, message: String| bad(at, k, message);
        let (namespace, kind) = (self.namespace.0.clone(), self.kind.0.as_str());
        if keys_of_type(kind).is_none() {
            return Err(bad(
                "type",
                format!("{kind:?} is not a server type; use stdio, http or local"),
            ));
        }
        let built_in = BUILT_IN.contains(&namespace.as_str());
        match (kind, built_in) {
            ("local", false) => {
                return Err(bad(
                    "namespace",
                    format!(
                        "{namespace:?} is not a local server of ufo-rs (those are {}); run it as a stdio or http server",
                        BUILT_IN.join(", ")
                    ),
                ));
            }
            (_, true) if kind != "local" => {
                return Err(bad(
                    "namespace",
                    format!(
                        "{namespace:?} is a namespace of ufo-rs's own tools; choose another one"
                    ),
                ));
            }
            _ => {}
        }
        let transport = match kind {
            "stdio" => self.stdio(at)?,
            "http" => self.http(at)?,
            _ => return Ok(None),
        };
        check_namespace(&format!("{at}.namespace"), &namespace)?;
        Ok(Some(ServerSpec {
            namespace,
            transport,
            timeout: self
                .timeout
                .map_or(default_timeout, |s| s.0)
                .max(Duration::from_secs(1)),
        }))
    }

    fn stdio(&self, at: &str) -> Result<Transport, SessionError> {
        let Some(command) = &self.command else {
            return Err(SessionError::MissingKey {
                key: format!("{at}.command"),
                message: "the program that runs the server, e.g. npx".into(),
            });
        };
        let bad = |k: &str, message: String| bad(at, k, message);
        let args = match (&self.args, &self.start_args) {
            (Some(_), Some(_)) => {
                return Err(bad("args", "give start_args or args, not both".into()));
            }
            (Some(a), None) | (None, Some(a)) => a.iter().map(|s| s.0.clone()).collect(),
            (None, None) => Vec::new(),
        };
        Ok(Transport::Stdio {
            command: command.0.clone(),
            args,
            env: strings(&self.env),
            cwd: self.cwd.as_ref().map(|t| PathBuf::from(&t.0)),
        })
    }

    fn http(&self, at: &str) -> Result<Transport, SessionError> {
        let bad = |k: &str, message: String| bad(at, k, message);
        let url = match (&self.url, &self.host) {
            (Some(_), Some(_)) => {
                return Err(bad("host", "give url, or host and port, not both".into()));
            }
            (Some(u), None) => u.0.clone(),
            (None, Some(h)) => {
                let Some(port) = self.port.filter(|p| *p != 0) else {
                    return Err(bad("port", "expected a port number (1-65535)".into()));
                };
                let path = self.path.as_ref().map_or("/mcp", |p| p.0.as_str());
                format!("http://{}:{port}{path}", h.0)
            }
            (None, None) => {
                return Err(SessionError::MissingKey {
                    key: format!("{at}.url"),
                    message: "the server's address, e.g. http://127.0.0.1:8010/mcp".into(),
                });
            }
        };
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(bad("url", "must start with http:// or https://".into()));
        }
        Ok(Transport::Http {
            url,
            headers: strings(&self.headers),
        })
    }
}

/// A `BadKey` error for key `k` of the server at `at`.
fn bad(at: &str, k: &str, message: String) -> SessionError {
    SessionError::BadKey {
        key: format!("{at}.{k}"),
        message,
    }
}

fn strings(m: &Option<BTreeMap<String, Scalar>>) -> BTreeMap<String, String> {
    m.iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.0.clone()))
        .collect()
}

/// A namespace is a name: letters, digits, `_` and `-`, starting with a
/// letter (no `.`: it separates namespace and tool).
fn check_namespace(at: &str, ns: &str) -> Result<(), SessionError> {
    let ok = ns.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && ns
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match ok {
        true => Ok(()),
        false => Err(SessionError::BadKey {
            key: at.to_owned(),
            message: format!(
                "{ns:?}: a namespace is letters, digits, _ and -, starting with a letter"
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use crate::config::UfoConfig;
    use crate::error::SessionError;
    use std::path::Path;
    use std::time::Duration;
    use ufo_core::Diagnostic;
    use ufo_mcp::client::Transport;

    fn parse(yaml: &str) -> Result<UfoConfig, SessionError> {
        UfoConfig::parse(yaml, Path::new("."), &|v| {
            (v == "TOKEN").then(|| "s3cret-value".to_owned())
        })
    }

    #[test]
    fn ufo_shaped_lists_become_server_specs() {
        let c = parse(
            r#"
MCP_TOOL_TIMEOUT: 12
mcp:
  HostAgent:
    default:
      action:
        - {namespace: HostUIExecutor, type: local, start_args: [], reset: false}
  AppAgent:
    default:
      data_collection:
        - {namespace: UICollector, type: local}
      action:
        - {namespace: AppUIExecutor, type: local}
        - namespace: fs
          type: stdio
          command: npx
          start_args: [-y, "@modelcontextprotocol/server-filesystem", /tmp]
          env: {A: 1}
        - {namespace: web, type: http, host: localhost, port: 8010, headers: {Authorization: "Bearer ${TOKEN}"}, timeout: 5}
"#,
        )
        .unwrap();
        let s = &c.system.mcp;
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].namespace, "fs");
        assert_eq!(s[0].timeout, Duration::from_secs(12));
        match &s[0].transport {
            Transport::Stdio {
                command, args, env, ..
            } => {
                assert_eq!(command, "npx");
                assert_eq!(args[2], "/tmp");
                assert_eq!(env["A"], "1");
            }
            t => panic!("{t:?}"),
        }
        match &s[1].transport {
            Transport::Http { url, headers } => {
                assert_eq!(url, "http://localhost:8010/mcp");
                assert_eq!(headers["Authorization"], "Bearer s3cret-value");
            }
            t => panic!("{t:?}"),
        }
        assert_eq!(s[1].timeout, Duration::from_secs(5));
        assert!(parse("MAX_STEP: 3").unwrap().system.mcp.is_empty());
    }

    #[test]
    fn mistakes_are_errors_naming_the_key() {
        let cases = [
            ("mcp: [1]", "mcp", "ufo::config::bad_key"),
            (
                "mcp: {AppAgnet: {}}",
                "mcp.AppAgnet",
                "did you mean AppAgent",
            ),
            (
                "mcp: {AppAgent: {WINWORD.EXE: {}}}",
                "mcp.AppAgent.WINWORD.EXE",
                "`default` list only",
            ),
            (
                "mcp: {AppAgent: {default: {actions: []}}}",
                "mcp.AppAgent.default.actions",
                "did you mean action",
            ),
            (
                "mcp: {AppAgent: {default: {action: [{type: stdio, command: x}]}}}",
                "[0].namespace",
                "needs a namespace",
            ),
            (
                "mcp: {AppAgent: {default: {action: [{namespace: fs, type: stdio}]}}}",
                "[0].command",
                "the program",
            ),
            (
                "mcp: {AppAgent: {default: {action: [{namespace: fs, type: stdio, command: x, comand: y}]}}}",
                "[0].comand",
                "did you mean command",
            ),
            (
                "mcp: {AppAgent: {default: {action: [{namespace: fs, type: stdio, command: x, url: y}]}}}",
                "[0].url",
                "type: stdio",
            ),
            (
                "mcp: {AppAgent: {default: {action: [{namespace: fs, type: sse, command: x}]}}}",
                "[0].type",
                "use stdio, http or local",
            ),
            (
                "mcp: {AppAgent: {default: {action: [{namespace: fs, type: http, url: ftp://x}]}}}",
                "[0].url",
                "http://",
            ),
            (
                "mcp: {AppAgent: {default: {action: [{namespace: a.b, type: stdio, command: x}]}}}",
                "[0].namespace",
                "letters, digits",
            ),
            (
                "mcp: {AppAgent: {default: {action: [{namespace: AppUIExecutor, type: stdio, command: x}]}}}",
                "[0].namespace",
                "own tools",
            ),
            (
                "mcp: {AppAgent: {default: {action: [{namespace: WordCOMExecutor, type: local}]}}}",
                "[0].namespace",
                "not a local server",
            ),
            (
                "mcp: {AppAgent: {default: {action: [{namespace: fs, type: stdio, command: first}, {namespace: fs, type: stdio, command: second}]}}}",
                "[1].namespace",
                "used twice",
            ),
            (
                "mcp: {HostAgent: {default: {action: [{namespace: fs, type: stdio, command: x}]}}}",
                "HostAgent.default.action[0]",
                "AppAgent.default.action",
            ),
            (
                "mcp: {AppAgent: {default: {data_collection: [{namespace: fs, type: stdio, command: x}]}}}",
                "data_collection[0]",
                "AppAgent.default.action",
            ),
            (
                "mcp: {AppAgent: {default: {action: [{namespace: fs, type: stdio, command: x, timeout: 0}]}}}",
                "[0].timeout",
                "between 0 and 3600",
            ),
            (
                "mcp: {AppAgent: {default: {action: [{namespace: fs, type: http, host: h}]}}}",
                "[0].port",
                "port number",
            ),
            ("MCP_TOOL_TIMEOUT: -1", "MCP_TOOL_TIMEOUT", "number"),
        ];
        for (yaml, key, words) in cases {
            let e = parse(yaml).err().unwrap_or_else(|| panic!("{yaml} parsed"));
            let text = format!("{} {}", e.code(), e);
            assert!(text.contains(key), "{yaml}: {text}");
            assert!(text.contains(words), "{yaml}: {text}");
        }
    }

    #[test]
    fn secrets_in_headers_and_env_are_not_echoed() {
        let e = parse("mcp: {AppAgent: {default: {action: [{namespace: w, type: http, url: http://x, headers: {Authorization: [\"${TOKEN}\"]}}]}}}")
            .err()
            .unwrap();
        assert!(!e.to_string().contains("s3cret"), "{e}");
    }
}
