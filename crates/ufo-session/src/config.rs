//! The configuration file: UFO's sections and keys in one YAML file.
//!
//! ```yaml
//! HOST_AGENT:   {API_TYPE: openai, API_KEY: "${OPENAI_API_KEY}", API_MODEL: gpt-4o, VISUAL_MODE: true}
//! APP_AGENT:    {API_TYPE: openai, API_KEY: "${OPENAI_API_KEY}", API_MODEL: gpt-4o}
//! BACKUP_AGENT: {API_TYPE: ollama, API_MODEL: llava}        # optional
//! EVALUATION_AGENT: {...}                                   # optional, else APP_AGENT
//! MAX_STEP: 50
//! ACTION_SEQUENCE: false
//! SAFE_GUARD: true
//! ```
//!
//! `${VAR}` in any string value is replaced by the environment variable
//! `VAR`; a missing variable is an error naming the key. System keys may also
//! sit under a `SYSTEM:` section.

use crate::error::SessionError;

mod env;
mod keys;
pub mod knowledge;
pub mod mcp;
mod operator;
pub mod third_party;
mod unknown;
use env::{expand, redact_error, secret_fields};
use keys::{Keys, bad, model_image};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use ufo_agent::{AgentSettings, PromptPaths};
use ufo_llm::LlmConfig;

/// System keys (UFO's `system.yaml`).
#[derive(Debug, Clone)]
pub struct SystemConfig {
    /// `MAX_STEP` (50): steps per session.
    pub max_step: usize,
    /// `MAX_ROUND` (1 in UFO; 10 here for interactive sessions): rounds per session.
    pub max_round: usize,
    /// `SLEEP_TIME` (1 s): pause between steps.
    pub sleep_time: f64,
    /// `SETTLE_TIMEOUT` (1 s): the longest wait after an action for the
    /// application to react; the wait ends as soon as its accessibility
    /// events go quiet (a click whose effect is immediate costs
    /// milliseconds). 0 disables the wait.
    pub settle_timeout: f64,
    /// `STEP_TIMEOUT` (600 s): the longest one agent step may take, model
    /// calls, retries and actions included; past it the step ends in ERROR.
    pub step_timeout: f64,
    /// `SAFE_GUARD` (true): ask before sensitive actions.
    pub safe_guard: bool,
    /// `EVA_SESSION` (true): evaluate at the end of the session.
    pub eva_session: bool,
    /// `EVA_ROUND` (false): evaluate each round of a normal session.
    pub eva_round: bool,
    /// `EVA_ALL_SCREENSHOTS` (false): the evaluation sees every step's
    /// screenshot (at most 40), not only the first and the final one.
    pub eva_all_screenshots: bool,
    /// `TASK_STATUS` (true): `batch_normal` keeps `tasks_status.json` and
    /// skips the tasks it records as finished.
    pub task_status: bool,
    /// `LOG_TO_MARKDOWN` (true): write `output.md`.
    pub log_to_markdown: bool,
    /// `SAVE_UI_TREE` (false): write `ui_trees/`.
    pub save_ui_tree: bool,
    /// `SAVE_FULL_SCREEN` (false): the final snapshots include the whole
    /// desktop.
    pub save_full_screen: bool,
    /// `CONTROL_LIST`: control types shown to the model.
    pub control_list: Option<Vec<String>>,
    /// `APP_ALLOWLIST`: programs `run_shell` may start besides those with a
    /// desktop entry.
    pub app_allowlist: Vec<String>,
    /// Agent switches (`ACTION_SEQUENCE`, `JSON_PARSING_RETRY`, ...).
    pub agent: AgentSettings,
    /// The enabled third-party agents (`ENABLED_THIRD_PARTY_AGENTS`).
    pub third_party: Vec<third_party::ThirdPartyAgent>,
    /// The AppAgent's external MCP servers (`mcp:`, `MCP_TOOL_TIMEOUT`).
    pub mcp: Vec<ufo_mcp::client::ServerSpec>,
    /// Knowledge: `RAG_*`, `SAVE_EXPERIENCE`, `KNOWLEDGE_DIR`.
    pub knowledge: knowledge::KnowledgeConfig,
    /// `HEARTBEAT_INTERVAL` (30 s): how often a device (`ufo client`) sends
    /// a HEARTBEAT frame.
    pub heartbeat_interval: f64,
    /// `HEARTBEAT_TIMEOUT` (300 s): the silence after which `ufo serve`
    /// drops a device. Longer than UFO's own client's interval (120 s) with
    /// room for one lost beat.
    pub heartbeat_timeout: f64,
    /// `DEVICE_TOOL_ARGUMENTS`: arguments the server adds to a device's
    /// tool calls when the device's tool list requires them and the model
    /// is not to see them (UFO's Linux tool server wants `api_key`), e.g.
    /// `DEVICE_TOOL_ARGUMENTS: {api_key: "${UFO_MCP_API_KEY}"}`. Their values never reach a prompt
    /// or a log.
    pub device_tool_arguments: DeviceToolArguments,
}

/// `HEARTBEAT_INTERVAL`'s default, seconds.
pub const HEARTBEAT_INTERVAL: f64 = 30.0;
/// `HEARTBEAT_TIMEOUT`'s default, seconds.
pub const HEARTBEAT_TIMEOUT: f64 = 300.0;

impl Default for SystemConfig {
    fn default() -> Self {
        Self {
            max_step: 50,
            max_round: 10,
            sleep_time: 1.0,
            settle_timeout: 1.0,
            step_timeout: 600.0,
            safe_guard: true,
            eva_session: true,
            eva_round: false,
            eva_all_screenshots: false,
            task_status: true,
            log_to_markdown: true,
            save_ui_tree: false,
            save_full_screen: false,
            control_list: None,
            app_allowlist: Vec::new(),
            agent: AgentSettings::default(),
            third_party: Vec::new(),
            mcp: Vec::new(),
            knowledge: Default::default(),
            heartbeat_interval: HEARTBEAT_INTERVAL,
            heartbeat_timeout: HEARTBEAT_TIMEOUT,
            device_tool_arguments: Default::default(),
        }
    }
}

/// The whole configuration.
#[derive(Debug, Clone, Default)]
pub struct UfoConfig {
    /// `HOST_AGENT`.
    pub host: Option<LlmConfig>,
    /// `APP_AGENT`.
    pub app: Option<LlmConfig>,
    /// `BACKUP_AGENT`.
    pub backup: Option<LlmConfig>,
    /// `EVALUATION_AGENT` (falls back to `APP_AGENT`).
    pub evaluation: Option<LlmConfig>,
    /// `OPERATOR`: the computer-use model of the operator modes.
    pub operator: Option<LlmConfig>,
    /// System keys.
    pub system: SystemConfig,
    /// User prompt templates.
    pub prompts: PromptPaths,
    /// Keys that were ignored (lenient loading), one line each.
    pub warnings: Vec<String>,
}

/// Agent section `name`, with the system-level LLM keys (`MAX_TOKENS`,
/// `TEMPERATURE`, `TOP_P`, `TIMEOUT`, `MAX_RETRY`) merged in where the section
/// does not set them.
fn section(keys: &Keys<'_>, name: &str) -> Result<Option<LlmConfig>, SessionError> {
    match keys.top.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => {
            let mut m = m.clone();
            for k in ufo_llm::config::SHARED_AGENT_KEYS {
                if let Some(v) = keys.get(k).filter(|v| !v.is_null())
                    && !m.contains_key(*k)
                {
                    m.insert((*k).to_owned(), v.clone());
                }
            }
            let cfg: LlmConfig =
                serde_json::from_value(Value::Object(m)).map_err(|e| SessionError::BadKey {
                    key: name.to_owned(),
                    message: e.to_string(),
                })?;
            if cfg.api_type.trim().is_empty() {
                return Err(SessionError::MissingKey {
                    key: format!("{name}.API_TYPE"),
                    message: "every agent section needs its provider".into(),
                });
            }
            cfg.api().map_err(|e| SessionError::BadKey {
                key: format!("{name}.API_TYPE"),
                message: e.to_string(),
            })?;
            cfg.strategy().map_err(|e| SessionError::BadKey {
                key: format!("{name}.FORMAT_STRATEGY"),
                message: match e {
                    ufo_llm::LlmError::Config { message, .. } => message,
                    other => other.to_string(),
                },
            })?;
            Ok(Some(cfg))
        }
        Some(other) => Err(bad(name, "a map of API_* keys", other)),
    }
}

/// A template path, relative to the config file; UFO's `{mode}` becomes
/// `visual` or `nonvisual`.
fn template_path(value: Option<&Value>, visual: bool, base: &Path) -> Option<PathBuf> {
    let mode = if visual { "visual" } else { "nonvisual" };
    let s = value?.as_str()?.trim().replace("{mode}", mode);
    (!s.is_empty()).then(|| {
        let p = PathBuf::from(s);
        if p.is_absolute() { p } else { base.join(p) }
    })
}

/// An agent section's template path (`PROMPT`, `EXAMPLE_PROMPT`, ...), its
/// `{mode}` after the section's `VISUAL_MODE`.
fn path_key(cfg: &Option<LlmConfig>, key: &str, base: &Path) -> Option<PathBuf> {
    let c = cfg.as_ref()?;
    template_path(c.extra.get(key), c.visual_mode.unwrap_or(true), base)
}

impl UfoConfig {
    /// Parses config text; relative paths (cassettes, prompts) are resolved
    /// against `base_dir`. `env` looks up `${VAR}`s. A key nothing reads is an
    /// error naming the nearest known key.
    pub fn parse(
        text: &str,
        base_dir: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, SessionError> {
        Self::parse_with(text, base_dir, env, false)
    }

    /// [`Self::parse`]; with `lenient`, keys nothing reads (a UFO config
    /// carries many) are listed in [`Self::warnings`] instead.
    pub fn parse_with(
        text: &str,
        base_dir: &Path,
        env: &dyn Fn(&str) -> Option<String>,
        lenient: bool,
    ) -> Result<Self, SessionError> {
        // Every value that came from the environment, and every value of a
        // key, token or password field, is a secret: no error may echo it.
        let used = std::cell::RefCell::new(Vec::<(String, String)>::new());
        let recording = |var: &str| {
            let v = env(var);
            if let Some(val) = &v {
                used.borrow_mut().push((var.to_owned(), val.clone()));
            }
            v
        };
        let parsed = Self::parse_inner(text, base_dir, &recording, lenient);
        parsed.map_err(|e| {
            let mut secrets: Vec<(String, String)> = used.into_inner();
            if let Ok(raw) = serde_saphyr::from_str::<Value>(text) {
                secret_fields(&raw, &mut secrets);
            }
            redact_error(e, &secrets)
        })
    }

    fn parse_inner(
        text: &str,
        base_dir: &Path,
        env: &dyn Fn(&str) -> Option<String>,
        lenient: bool,
    ) -> Result<Self, SessionError> {
        let mut v: Value = if text.trim().is_empty() {
            Value::Object(Map::new())
        } else {
            serde_saphyr::from_str(text).map_err(|e| SessionError::ConfigFile {
                path: base_dir.display().to_string(),
                message: format!("not valid YAML: {e}"),
            })?
        };
        expand(&mut v, "", env)?;
        let Value::Object(top) = v else {
            return Err(SessionError::ConfigFile {
                path: base_dir.display().to_string(),
                message: "the file must be a YAML map of sections and keys".into(),
            });
        };
        let keys = Keys {
            top: &top,
            system: top.get("SYSTEM").and_then(Value::as_object),
            read: Default::default(),
        };
        let mut host = section(&keys, "HOST_AGENT")?;
        let mut app = section(&keys, "APP_AGENT")?;
        let mut backup = section(&keys, "BACKUP_AGENT")?;
        let mut evaluation = section(&keys, "EVALUATION_AGENT")?;
        let operator = operator::section(&keys)?;
        for c in [&mut host, &mut app, &mut backup, &mut evaluation]
            .into_iter()
            .flatten()
        {
            if let Some(p) = &c.cassette {
                let pb = PathBuf::from(p);
                if pb.is_relative() {
                    c.cassette = Some(base_dir.join(pb).display().to_string());
                }
            }
        }
        let d = SystemConfig::default();
        let control_list = keys.strings("CONTROL_LIST", "a list of control type names")?;
        let visual = app.as_ref().and_then(|a| a.visual_mode).unwrap_or(true);
        let agent = AgentSettings {
            visual_mode: visual,
            action_sequence: keys.bool("ACTION_SEQUENCE", false)?,
            json_parsing_retry: u32::try_from(keys.uint("JSON_PARSING_RETRY", 3)?).unwrap_or(3),
            include_last_screenshot: keys.bool("INCLUDE_LAST_SCREENSHOT", true)?,
            concat_screenshot: keys.bool("CONCAT_SCREENSHOT", false)?,
            max_repeat: u32::try_from(keys.uint("MAX_REPEAT", 3)?)
                .unwrap_or(3)
                .max(1),
            png: ufo_desktop::encode::PngCompression::from_ufo_level(
                u8::try_from(keys.uint("DEFAULT_PNG_COMPRESS_LEVEL", 1)?).unwrap_or(1),
            ),
            image: model_image(&keys)?,
            save_ui_tree: keys.bool("SAVE_UI_TREE", d.save_ui_tree)?,
            safe_guard: keys.bool("SAFE_GUARD", d.safe_guard)?,
            safe_guard_tools: keys.strings("SAFE_GUARD_TOOLS", "a list of tool names")?,
            external_tools: Vec::new(),
            knowledge: None,
        };
        let system = SystemConfig {
            max_step: usize::try_from(keys.uint("MAX_STEP", d.max_step as u64)?)
                .unwrap_or(d.max_step),
            max_round: usize::try_from(keys.uint("MAX_ROUND", d.max_round as u64)?)
                .unwrap_or(d.max_round)
                .max(1),
            sleep_time: keys.seconds("SLEEP_TIME", d.sleep_time, 3600.0)?,
            settle_timeout: keys.seconds("SETTLE_TIMEOUT", d.settle_timeout, 30.0)?,
            step_timeout: match keys.seconds("STEP_TIMEOUT", d.step_timeout, 86_400.0)? {
                t if t < 1.0 => {
                    return Err(SessionError::BadKey {
                        key: "STEP_TIMEOUT".into(),
                        message: format!("is {t} seconds; it must be between 1 and 86400"),
                    });
                }
                t => t,
            },
            safe_guard: agent.safe_guard,
            eva_session: keys.bool("EVA_SESSION", d.eva_session)?,
            eva_round: keys.bool("EVA_ROUND", d.eva_round)?,
            eva_all_screenshots: keys.bool("EVA_ALL_SCREENSHOTS", d.eva_all_screenshots)?,
            task_status: keys.bool("TASK_STATUS", d.task_status)?,
            log_to_markdown: keys.bool("LOG_TO_MARKDOWN", d.log_to_markdown)?,
            save_ui_tree: agent.save_ui_tree,
            save_full_screen: keys.bool("SAVE_FULL_SCREEN", d.save_full_screen)?,
            control_list,
            app_allowlist: keys
                .strings("APP_ALLOWLIST", "a list of program names")?
                .unwrap_or_default(),
            agent,
            third_party: third_party::read(&keys, base_dir)?,
            mcp: mcp::read(&keys)?,
            knowledge: knowledge::read(&keys, base_dir)?,
            heartbeat_interval: positive_seconds(
                &keys,
                "HEARTBEAT_INTERVAL",
                d.heartbeat_interval,
            )?,
            heartbeat_timeout: positive_seconds(&keys, "HEARTBEAT_TIMEOUT", d.heartbeat_timeout)?,
            device_tool_arguments: device_tool_arguments(&keys)?,
        };
        // UFO's top-level names (HOSTAGENT_PROMPT, ...) where a section does
        // not name its own.
        let host_visual = host.as_ref().and_then(|h| h.visual_mode) != Some(false);
        let top_path = |k: &str, visual: bool| template_path(keys.get(k), visual, base_dir);
        let prompts = PromptPaths {
            host: path_key(&host, "PROMPT", base_dir)
                .or_else(|| top_path("HOSTAGENT_PROMPT", host_visual)),
            host_examples: path_key(&host, "EXAMPLE_PROMPT", base_dir)
                .or_else(|| top_path("HOSTAGENT_EXAMPLE_PROMPT", host_visual)),
            app: path_key(&app, "PROMPT", base_dir).or_else(|| top_path("APPAGENT_PROMPT", visual)),
            app_examples: path_key(&app, "EXAMPLE_PROMPT", base_dir)
                .or_else(|| top_path("APPAGENT_EXAMPLE_PROMPT", visual)),
            app_examples_as: path_key(&app, "EXAMPLE_PROMPT_AS", base_dir)
                .or_else(|| top_path("APPAGENT_EXAMPLE_PROMPT_AS", visual)),
            evaluation: path_key(&evaluation, "PROMPT", base_dir)
                .or_else(|| top_path("EVALUATION_PROMPT", true)),
            host_nonvisual: host.as_ref().and_then(|h| h.visual_mode) == Some(false),
            app_nonvisual: !visual,
        };
        let mut warnings: Vec<String> = unknown::ACCEPTED
            .iter()
            .filter(|(k, _)| keys.get(k).is_some())
            .map(|(k, why)| format!("config key `{k}` is accepted and not used: {why}"))
            .collect();
        let read = keys.read.borrow().clone();
        let unknown = unknown::unknown_keys(&top, &read);
        match (unknown.is_empty(), lenient) {
            (true, _) => {}
            (false, true) => warnings.extend(unknown::warnings(&unknown)),
            (false, false) => return Err(unknown::error(&unknown)),
        }
        Ok(Self {
            host,
            app,
            backup,
            evaluation,
            operator,
            system,
            prompts,
            warnings,
        })
    }

    /// Reads a config file (environment from the process); strict about keys.
    pub fn load(path: &Path) -> Result<Self, SessionError> {
        Self::load_with(path, false)
    }

    /// [`Self::load`], lenient about keys nothing reads when `lenient`.
    pub fn load_with(path: &Path, lenient: bool) -> Result<Self, SessionError> {
        let text = std::fs::read_to_string(path).map_err(|e| SessionError::ConfigFile {
            path: path.display().to_string(),
            message: format!("cannot read it: {e}"),
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Self::parse_with(&text, &base, &|k| std::env::var(k).ok(), lenient).map_err(|e| match e {
            SessionError::ConfigFile { message, .. } => SessionError::ConfigFile {
                path: path.display().to_string(),
                message,
            },
            other => other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(k: &str) -> Option<String> {
        (k == "KEY").then(|| "sk-secret".to_owned())
    }

    #[test]
    fn parses_sections_system_keys_and_env() {
        let c = UfoConfig::parse(
            "HOST_AGENT:\n  API_TYPE: openai\n  API_KEY: ${KEY}\n  API_MODEL: gpt-4o\nAPP_AGENT:\n  API_TYPE: replay\n  CASSETTE: a.jsonl\n  VISUAL_MODE: false\nMAX_STEP: 7\nACTION_SEQUENCE: True\nSYSTEM:\n  SAFE_GUARD: false\n",
            Path::new("/cfg"),
            &env,
        )
        .unwrap();
        assert_eq!(c.host.as_ref().unwrap().api_key.expose(), "sk-secret");
        assert_eq!(
            c.app.as_ref().unwrap().cassette.as_deref(),
            Some("/cfg/a.jsonl")
        );
        assert_eq!(c.system.max_step, 7);
        assert!(c.system.agent.action_sequence && !c.system.agent.visual_mode);
        assert!(!c.system.safe_guard);
        assert!(!format!("{c:?}").contains("sk-secret"));
    }

    #[test]
    fn screenshot_and_settle_keys_are_read_and_bad_values_named() {
        use ufo_core::Diagnostic;
        use ufo_desktop::encode::ImageFormat;
        let parse = |y: &str| UfoConfig::parse(y, Path::new("."), &env);
        let d = parse("MAX_STEP: 3\n").unwrap();
        assert_eq!(d.system.agent.image.format, ImageFormat::Png);
        assert_eq!(d.system.agent.image.max_side, None);
        assert_eq!(d.system.settle_timeout, 1.0);
        let c = parse(
            "SCREENSHOT_FORMAT: JPEG\nSCREENSHOT_JPEG_QUALITY: 70\nSCREENSHOT_MAX_SIDE: 1024\nSETTLE_TIMEOUT: 0.5\n",
        )
        .unwrap();
        assert_eq!(c.system.agent.image.format, ImageFormat::Jpeg);
        assert_eq!(c.system.agent.image.quality, 70);
        assert_eq!(c.system.agent.image.max_side, Some(1024));
        assert_eq!(c.system.settle_timeout, 0.5);
        let settings = crate::dispatcher::tool_settings(&c.system);
        assert_eq!(
            settings.action_settle,
            std::time::Duration::from_millis(500)
        );
        for (yaml, key, says) in [
            (
                "SCREENSHOT_FORMAT: gif\n",
                "SCREENSHOT_FORMAT",
                "png, jpeg or webp",
            ),
            (
                "SCREENSHOT_JPEG_QUALITY: 0\n",
                "SCREENSHOT_JPEG_QUALITY",
                "between 1 and 100",
            ),
            (
                "SCREENSHOT_MAX_SIDE: 10\n",
                "SCREENSHOT_MAX_SIDE",
                "64 to 16384",
            ),
            ("SETTLE_TIMEOUT: 90\n", "SETTLE_TIMEOUT", "between 0 and 30"),
        ] {
            let e = parse(yaml).unwrap_err();
            assert_eq!(e.code(), "ufo::config::bad_key", "{yaml}: {e}");
            assert!(e.to_string().contains(key), "{e}");
            assert!(e.to_string().contains(says), "{e}");
        }
    }

    #[test]
    fn misspelt_keys_are_named_with_the_nearest_known_key() {
        use ufo_core::Diagnostic;
        let parse = |y: &str, lenient| UfoConfig::parse_with(y, Path::new("."), &env, lenient);
        let e = parse("MAX_STEPP: 3\n", false).unwrap_err();
        assert_eq!(e.code(), "ufo::config::unknown_key");
        assert!(e.to_string().contains("MAX_STEPP"), "{e}");
        assert!(e.to_string().contains("did you mean MAX_STEP?"), "{e}");
        assert!(e.help().unwrap().contains("--lenient"));
        let e = parse(
            "APP_AGENT:\n  API_TYPE: openai\n  API_MODLE: gpt-4o\n",
            false,
        )
        .unwrap_err();
        assert!(e.to_string().contains("APP_AGENT.API_MODLE"), "{e}");
        assert!(e.to_string().contains("did you mean API_MODEL?"), "{e}");
        let e = parse("SYSTEM:\n  SAFE_GAURD: false\n", false).unwrap_err();
        assert!(e.to_string().contains("SYSTEM.SAFE_GAURD"), "{e}");
        assert!(e.to_string().contains("SAFE_GUARD"), "{e}");
        // Lenient: UFO's keys we do not read are warnings, the rest loads.
        let c = parse(
            "MAX_STEP: 4\nCONTROL_BACKEND: [uia]\nPRINT_LOG: false\n",
            true,
        )
        .unwrap();
        assert_eq!(c.system.max_step, 4);
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        assert!(c.warnings.iter().any(|w| w.contains("CONTROL_BACKEND")));
    }

    #[test]
    fn ufo_keys_the_seeds_name_are_read_or_accepted_with_a_reason() {
        let yaml = "API_PROMPT: ufo/prompts/share/base/api.yaml\nUSE_APIS: true\nPRINT_LOG: false\nLOG_LEVEL: DEBUG\nCONTROL_BACKEND: [uia]\nEXPERIENCE_SAVED_PATH: vectordb/experience/\nRAG_DEMONSTRATION_COMPLETION_N: 3\nTASK_STATUS: false\n";
        // Strict loading: none of them is refused.
        let c = UfoConfig::parse(yaml, Path::new("."), &env).unwrap();
        assert!(!c.system.task_status);
        assert!(
            UfoConfig::parse("MAX_STEP: 3\n", Path::new("."), &env)
                .unwrap()
                .system
                .task_status
        );
        // Each key not read says why.
        for (key, why) in [
            ("API_PROMPT", "tool catalog"),
            ("USE_APIS", "COM"),
            ("PRINT_LOG", "console"),
            ("LOG_LEVEL", "RUST_LOG"),
            ("CONTROL_BACKEND", "AT-SPI"),
            ("EXPERIENCE_SAVED_PATH", "KNOWLEDGE_DIR"),
            ("RAG_DEMONSTRATION_COMPLETION_N", "one model completion"),
        ] {
            assert!(
                c.warnings
                    .iter()
                    .any(|w| w.contains(&format!("`{key}` is accepted")) && w.contains(why)),
                "{key}: {:?}",
                c.warnings
            );
        }
        assert_eq!(c.warnings.len(), 7, "{:?}", c.warnings);
        // Under SYSTEM too.
        let c = UfoConfig::parse("SYSTEM:\n  USE_APIS: false\n", Path::new("."), &env).unwrap();
        assert_eq!(c.warnings.len(), 1);
    }

    #[test]
    fn ufo_mode_placeholders_in_template_paths_follow_visual_mode() {
        let c = UfoConfig::parse(
            "HOST_AGENT:\n  API_TYPE: openai\n  EXAMPLE_PROMPT: ex/{mode}/host.yaml\nAPP_AGENT:\n  API_TYPE: openai\n  VISUAL_MODE: false\n  EXAMPLE_PROMPT: ex/{mode}/app.yaml\n",
            Path::new("/cfg"),
            &env,
        )
        .unwrap();
        assert_eq!(
            c.prompts.host_examples.unwrap(),
            Path::new("/cfg/ex/visual/host.yaml")
        );
        assert_eq!(
            c.prompts.app_examples.unwrap(),
            Path::new("/cfg/ex/nonvisual/app.yaml")
        );
    }

    #[test]
    fn ufo_top_level_prompt_keys_are_read() {
        let c = UfoConfig::parse(
            "APP_AGENT:\n  API_TYPE: openai\n  VISUAL_MODE: false\nHOSTAGENT_PROMPT: p/host.yaml\nAPPAGENT_PROMPT: p/app.yaml\nAPPAGENT_EXAMPLE_PROMPT: ex/{mode}/app.yaml\nEVALUATION_PROMPT: p/eval.yaml\n",
            Path::new("/cfg"),
            &env,
        )
        .unwrap();
        assert_eq!(c.prompts.host.unwrap(), Path::new("/cfg/p/host.yaml"));
        assert_eq!(c.prompts.app.unwrap(), Path::new("/cfg/p/app.yaml"));
        assert_eq!(
            c.prompts.app_examples.unwrap(),
            Path::new("/cfg/ex/nonvisual/app.yaml")
        );
        assert_eq!(c.prompts.evaluation.unwrap(), Path::new("/cfg/p/eval.yaml"));
    }

    #[test]
    fn system_llm_keys_reach_every_agent_unless_it_sets_its_own() {
        let c = UfoConfig::parse(
            "HOST_AGENT:\n  API_TYPE: openai\n  TIMEOUT: 5\nAPP_AGENT:\n  API_TYPE: openai\nTIMEOUT: 30\nMAX_TOKENS: 500\nSYSTEM:\n  TEMPERATURE: 0.5\n",
            Path::new("."),
            &env,
        )
        .unwrap();
        let (h, a) = (c.host.unwrap(), c.app.unwrap());
        assert_eq!(h.timeout, Some(5.0));
        assert_eq!(a.timeout, Some(30.0));
        assert_eq!((h.max_tokens, a.max_tokens), (Some(500), Some(500)));
        assert_eq!((h.temperature, a.temperature), (Some(0.5), Some(0.5)));
    }

    #[test]
    fn errors_name_the_key() {
        let e = UfoConfig::parse("MAX_STEP: lots\n", Path::new("."), &env).unwrap_err();
        assert!(e.to_string().contains("`MAX_STEP`"), "{e}");
        let e =
            UfoConfig::parse("APP_AGENT:\n  API_KEY: ${NOPE}\n", Path::new("."), &env).unwrap_err();
        assert!(
            e.to_string().contains("APP_AGENT.API_KEY") && e.to_string().contains("NOPE"),
            "{e}"
        );
        let e = UfoConfig::parse("APP_AGENT:\n  API_MODEL: x\n", Path::new("."), &env).unwrap_err();
        assert!(e.to_string().contains("APP_AGENT.API_TYPE"), "{e}");
        let e = UfoConfig::parse("APP_AGENT:\n  API_TYPE: martian\n", Path::new("."), &env)
            .unwrap_err();
        assert!(e.to_string().contains("APP_AGENT.API_TYPE"), "{e}");
    }

    #[test]
    fn secrets_are_never_echoed_in_config_errors() {
        use ufo_core::Diagnostic;
        let env = |k: &str| (k == "PROBE_KEY").then(|| "sk-live-0123456789".to_owned());
        let e = UfoConfig::parse("MAX_STEP: ${PROBE_KEY}\n", Path::new("."), &env).unwrap_err();
        let text = format!("{e} {}", e.help().unwrap_or_default());
        assert!(text.contains("`MAX_STEP`"), "{text}");
        assert!(!text.contains("sk-live"), "{text}");
        assert!(text.contains("PROBE_KEY"), "{text}");
        let e = UfoConfig::parse(
            "APP_AGENT:\n  API_TYPE: openai\n  API_MODEL: m\n  API_KEY: 987654321\n",
            Path::new("."),
            &env,
        );
        if let Err(e) = e {
            let text = format!("{e} {}", e.help().unwrap_or_default());
            assert!(!text.contains("987654321"), "{text}");
        }
    }

    #[test]
    fn heartbeat_keys_are_read_and_bad_values_named() {
        use ufo_core::Diagnostic;
        let parse = |y: &str| UfoConfig::parse(y, Path::new("."), &env);
        let d = parse("MAX_STEP: 3\n").unwrap();
        assert_eq!(d.system.heartbeat_interval, HEARTBEAT_INTERVAL);
        assert_eq!(d.system.heartbeat_timeout, HEARTBEAT_TIMEOUT);
        let c = parse("HEARTBEAT_INTERVAL: 12.5\nHEARTBEAT_TIMEOUT: 90\n").unwrap();
        assert_eq!(c.system.heartbeat_interval, 12.5);
        assert_eq!(c.system.heartbeat_timeout, 90.0);
        for (yaml, key, says) in [
            ("HEARTBEAT_INTERVAL: 0\n", "HEARTBEAT_INTERVAL", "above 0"),
            ("HEARTBEAT_TIMEOUT: -5\n", "HEARTBEAT_TIMEOUT", ""),
            ("HEARTBEAT_INTERVAL: soon\n", "HEARTBEAT_INTERVAL", ""),
            (
                "HEARTBEAT_TIMEOUT: 100000\n",
                "HEARTBEAT_TIMEOUT",
                "between 0 and 86400",
            ),
        ] {
            let e = parse(yaml).unwrap_err();
            assert_eq!(e.code(), "ufo::config::bad_key", "{yaml}: {e}");
            assert!(e.to_string().contains(key), "{yaml}: {e}");
            assert!(e.to_string().contains(says), "{yaml}: {e}");
            assert!(e.help().is_some(), "{yaml}: {e}");
        }
    }

    #[test]
    fn device_tool_arguments_are_read_and_never_shown() {
        let env = |k: &str| (k == "MCP_KEY").then(|| "mcp-secret-42".to_owned());
        let c = UfoConfig::parse(
            "DEVICE_TOOL_ARGUMENTS:\n  api_key: \"${MCP_KEY}\"\n  port: 8010\n",
            Path::new("."),
            &env,
        )
        .unwrap();
        let a = &c.system.device_tool_arguments.0;
        assert_eq!(a["api_key"], "mcp-secret-42");
        assert_eq!(a["port"], "8010");
        let shown = format!("{c:?}");
        assert!(!shown.contains("mcp-secret-42"), "{shown}");
        assert!(shown.contains("api_key=<redacted>"), "{shown}");
        let e = UfoConfig::parse("DEVICE_TOOL_ARGUMENTS: [api_key]\n", Path::new("."), &env)
            .unwrap_err();
        assert!(e.to_string().contains("DEVICE_TOOL_ARGUMENTS"), "{e}");
    }

    #[test]
    fn durations_too_large_for_the_clock_are_errors_naming_the_key() {
        for v in ["1e308", "3601", "-1", "NaN"] {
            let e =
                UfoConfig::parse(&format!("SLEEP_TIME: {v}\n"), Path::new("."), &env).unwrap_err();
            assert!(e.to_string().contains("`SLEEP_TIME`"), "{v}: {e}");
        }
        let c = UfoConfig::parse("SLEEP_TIME: 0.5\n", Path::new("."), &env).unwrap();
        assert!((c.system.sleep_time - 0.5).abs() < 1e-9);
    }
}

#[cfg(test)]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn config_files_never_panic(text in "\\PC{0,300}") {
            let _ = UfoConfig::parse(&text, Path::new("."), &|_| None);
        }

        #[test]
        fn yaml_shaped_configs_never_panic(
            key in "(MAX_STEP|SLEEP_TIME|STEP_TIMEOUT|SAFE_GUARD|CONTROL_LIST|APP_AGENT|TIMEOUT|MAX_ROUND|X)",
            value in "(-?[0-9]{1,400}(\\.[0-9]+)?(e[0-9]{1,3})?|\\$\\{[A-Z]{1,5}\\}|\\[[a-z, ]{0,20}\\]|\\{[a-z: ]{0,20}\\}|true|~|[a-z]{0,10})"
        ) {
            let _ = UfoConfig::parse(&format!("{key}: {value}\n"), Path::new("."), &|_| Some("1e308".into()));
        }
    }
}

/// A duration key that must be above zero (a heartbeat of 0 s would spin).
fn positive_seconds(keys: &Keys<'_>, k: &str, default: f64) -> Result<f64, SessionError> {
    match keys.seconds(k, default, 86_400.0)? {
        t if t > 0.0 => Ok(t),
        t => Err(SessionError::BadKey {
            key: k.to_owned(),
            message: format!("is {t} seconds; it must be above 0"),
        }),
    }
}

/// `DEVICE_TOOL_ARGUMENTS`: a map of argument names to string values.
fn device_tool_arguments(keys: &Keys<'_>) -> Result<DeviceToolArguments, SessionError> {
    let bad = || SessionError::BadKey {
        key: "DEVICE_TOOL_ARGUMENTS".into(),
        message: "must map argument names to text, e.g. {api_key: \"${UFO_MCP_API_KEY}\"}".into(),
    };
    match keys.get("DEVICE_TOOL_ARGUMENTS") {
        None | Some(Value::Null) => Ok(Default::default()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                Value::Number(n) => Ok((k.clone(), n.to_string())),
                _ => Err(bad()),
            })
            .collect::<Result<_, _>>()
            .map(DeviceToolArguments),
        Some(_) => Err(bad()),
    }
}

/// `DEVICE_TOOL_ARGUMENTS`' values: secrets, so `Debug` shows only the names.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct DeviceToolArguments(pub std::collections::BTreeMap<String, String>);

impl std::fmt::Debug for DeviceToolArguments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.keys().map(|k| format!("{k}=<redacted>")))
            .finish()
    }
}
