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

use super::{Keys, bad, unknown::nearest};
use crate::error::SessionError;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;
use ufo_desktop::tools::{
    APP_UI_EXECUTOR, BASH_EXECUTOR, COMMAND_LINE_EXECUTOR, HOST_UI_EXECUTOR, UI_COLLECTOR,
};
use ufo_mcp::client::{ServerSpec, Transport};

/// The key of the section.
const SECTION: &str = "mcp";
/// UFO's agents whose lists are read.
const AGENTS: &[&str] = &["AppAgent", "HostAgent"];
/// The namespaces of ufo-rs's own tools (UFO's `type: local` servers).
const BUILT_IN: &[&str] = &[
    UI_COLLECTOR,
    HOST_UI_EXECUTOR,
    APP_UI_EXECUTOR,
    COMMAND_LINE_EXECUTOR,
    BASH_EXECUTOR,
];
const ENTRY_KEYS: &[&str] = &[
    "namespace",
    "type",
    "command",
    "start_args",
    "args",
    "env",
    "cwd",
    "url",
    "host",
    "port",
    "path",
    "headers",
    "timeout",
    "reset",
];
/// Default of `MCP_TOOL_TIMEOUT` (UFO's).
const DEFAULT_TIMEOUT: f64 = 30.0;

/// Reads the AppAgent's external servers.
pub(super) fn read(keys: &Keys<'_>) -> Result<Vec<ServerSpec>, SessionError> {
    let timeout = keys.seconds("MCP_TOOL_TIMEOUT", DEFAULT_TIMEOUT, 3600.0)?;
    let agents = match keys.get(SECTION) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(m)) => m,
        Some(other) => {
            return Err(bad(
                SECTION,
                "a map from agent name (AppAgent) to its server lists",
                other,
            ));
        }
    };
    let mut out: Vec<ServerSpec> = Vec::new();
    for (agent, subtypes) in agents {
        let at = format!("{SECTION}.{agent}");
        if !AGENTS.contains(&agent.as_str()) {
            return Err(unknown(
                &at,
                agent,
                AGENTS,
                "the agents are AppAgent and HostAgent",
            ));
        }
        let subtypes = object(&at, subtypes, "a map with `default`")?;
        for (sub, lists) in subtypes {
            let at = format!("{at}.{sub}");
            if sub != "default" {
                return Err(SessionError::BadKey {
                    key: at,
                    message: "ufo-rs reads the `default` list only (not per-application lists); put the servers under `default`".into(),
                });
            }
            for (list, entries) in object(
                &at,
                lists,
                "a map with `action` and `data_collection` lists",
            )? {
                let at = format!("{at}.{list}");
                if !["action", "data_collection"].contains(&list.as_str()) {
                    return Err(unknown(
                        &at,
                        list,
                        &["action", "data_collection"],
                        "the lists are action and data_collection",
                    ));
                }
                let Value::Array(entries) = entries else {
                    return Err(bad(&at, "a list of servers", entries));
                };
                for (i, e) in entries.iter().enumerate() {
                    let at = format!("{at}[{i}]");
                    let external = entry(&at, e, timeout)?;
                    let Some(spec) = external else { continue };
                    if agent != "AppAgent" || list != "action" {
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
    }
    Ok(out)
}

fn object<'v>(at: &str, v: &'v Value, what: &str) -> Result<&'v Map<String, Value>, SessionError> {
    v.as_object().ok_or_else(|| bad(at, what, v))
}

fn unknown(at: &str, got: &str, known: &[&str], list: &str) -> SessionError {
    let hint = nearest(got, known.iter().copied())
        .map(|n| format!(" (did you mean {n}?)"))
        .unwrap_or_default();
    SessionError::UnknownKey {
        key: at.to_owned(),
        message: format!("not read by ufo-rs{hint}; {list}"),
    }
}

/// One server entry: `None` for a built-in (`local`) namespace.
fn entry(at: &str, v: &Value, default_timeout: f64) -> Result<Option<ServerSpec>, SessionError> {
    let m = object(at, v, "a map with namespace and type")?;
    for k in m.keys() {
        if !ENTRY_KEYS.contains(&k.as_str()) {
            return Err(unknown(
                &format!("{at}.{k}"),
                k,
                ENTRY_KEYS,
                "see the `mcp:` section in the README",
            ));
        }
    }
    let key = |k: &str| format!("{at}.{k}");
    let string = |k: &str| -> Result<Option<String>, SessionError> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_owned())),
            Some(other) => Err(bad(&key(k), "a non-empty string", other)),
        }
    };
    let namespace = string("namespace")?.ok_or_else(|| SessionError::MissingKey {
        key: key("namespace"),
        message: "each server needs a namespace: its tools are called <namespace>.<tool>".into(),
    })?;
    let kind = string("type")?.ok_or_else(|| SessionError::MissingKey {
        key: key("type"),
        message: "stdio (a program) or http (a URL)".into(),
    })?;
    if let Some(v) = m.get("reset").filter(|v| !v.is_null() && !v.is_boolean()) {
        return Err(bad(&key("reset"), "true or false", v));
    }
    let is_built_in = BUILT_IN.contains(&namespace.as_str());
    let only = |allowed: &[&str], kind: &str| -> Result<(), SessionError> {
        match m.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(k) => Err(SessionError::BadKey {
                key: key(k),
                message: format!("not a key of a `type: {kind}` server"),
            }),
            None => Ok(()),
        }
    };
    let transport = match kind.as_str() {
        "local" if is_built_in => {
            only(&["namespace", "type", "start_args", "reset"], "local")?;
            return Ok(None);
        }
        "local" => {
            return Err(SessionError::BadKey {
                key: key("namespace"),
                message: format!(
                    "{namespace:?} is not a local server of ufo-rs (those are {}); run it as a stdio or http server",
                    BUILT_IN.join(", ")
                ),
            });
        }
        _ if is_built_in => {
            return Err(SessionError::BadKey {
                key: key("namespace"),
                message: format!(
                    "{namespace:?} is a namespace of ufo-rs's own tools; choose another one"
                ),
            });
        }
        "stdio" => {
            only(
                &[
                    "namespace",
                    "type",
                    "command",
                    "start_args",
                    "args",
                    "env",
                    "cwd",
                    "timeout",
                    "reset",
                ],
                "stdio",
            )?;
            let command = string("command")?.ok_or_else(|| SessionError::MissingKey {
                key: key("command"),
                message: "the program that runs the server, e.g. npx".into(),
            })?;
            if m.contains_key("start_args") && m.contains_key("args") {
                return Err(SessionError::BadKey {
                    key: key("args"),
                    message: "give start_args or args, not both".into(),
                });
            }
            let args_key = if m.contains_key("args") {
                "args"
            } else {
                "start_args"
            };
            let args = match m.get(args_key) {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|x| scalar(x).ok_or_else(|| bad(&key(args_key), "a list of strings", x)))
                    .collect::<Result<_, _>>()?,
                Some(other) => return Err(bad(&key(args_key), "a list of strings", other)),
            };
            Transport::Stdio {
                command,
                args,
                env: string_map(&key("env"), m.get("env"))?,
                cwd: string("cwd")?.map(PathBuf::from),
            }
        }
        "http" => {
            only(
                &[
                    "namespace",
                    "type",
                    "url",
                    "host",
                    "port",
                    "path",
                    "headers",
                    "timeout",
                    "reset",
                ],
                "http",
            )?;
            let url = match (string("url")?, string("host")?) {
                (Some(_), Some(_)) => {
                    return Err(SessionError::BadKey {
                        key: key("host"),
                        message: "give url, or host and port, not both".into(),
                    });
                }
                (Some(u), None) => u,
                (None, Some(h)) => {
                    let port = m
                        .get("port")
                        .and_then(Value::as_u64)
                        .filter(|p| (1..=65535).contains(p));
                    let Some(port) = port else {
                        return Err(bad(
                            &key("port"),
                            "a port number (1-65535)",
                            m.get("port").unwrap_or(&Value::Null),
                        ));
                    };
                    let path = string("path")?.unwrap_or_else(|| "/mcp".into());
                    format!("http://{h}:{port}{path}")
                }
                (None, None) => {
                    return Err(SessionError::MissingKey {
                        key: key("url"),
                        message: "the server's address, e.g. http://127.0.0.1:8010/mcp".into(),
                    });
                }
            };
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(SessionError::BadKey {
                    key: key("url"),
                    message: "must start with http:// or https://".into(),
                });
            }
            Transport::Http {
                url,
                headers: string_map(&key("headers"), m.get("headers"))?,
            }
        }
        other => {
            return Err(SessionError::BadKey {
                key: key("type"),
                message: format!("{other:?} is not a server type; use stdio, http or local"),
            });
        }
    };
    check_namespace(&key("namespace"), &namespace)?;
    let timeout = match m.get("timeout") {
        None | Some(Value::Null) => default_timeout,
        Some(v) => v
            .as_f64()
            .filter(|t| *t > 0.0 && *t <= 3600.0)
            .ok_or_else(|| bad(&key("timeout"), "seconds between 0 and 3600", v))?,
    };
    Ok(Some(ServerSpec {
        namespace,
        transport,
        // MCP_TOOL_TIMEOUT 0 would fail every call; a call gets at least 1 s.
        timeout: Duration::from_secs_f64(timeout.max(1.0)),
    }))
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

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A map of names to strings (`env`, `headers`); values are never echoed
/// in errors (they may be secrets).
fn string_map(at: &str, v: Option<&Value>) -> Result<BTreeMap<String, String>, SessionError> {
    let m = match v {
        None | Some(Value::Null) => return Ok(BTreeMap::new()),
        Some(Value::Object(m)) => m,
        Some(_) => {
            return Err(SessionError::BadKey {
                key: at.to_owned(),
                message: "expected a map of names to strings".into(),
            });
        }
    };
    m.iter()
        .map(|(k, x)| {
            scalar(x)
                .map(|s| (k.clone(), s))
                .ok_or_else(|| SessionError::BadKey {
                    key: format!("{at}.{k}"),
                    message: "expected a string".into(),
                })
        })
        .collect()
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
