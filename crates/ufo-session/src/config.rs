//! The configuration file: UFO's sections and keys in one YAML file.
//!
//! ```yaml
//! HOST_AGENT:   {API_TYPE: openai, API_KEY: "${OPENAI_API_KEY}", API_MODEL: gpt-4o, VISUAL_MODE: true}
//! APP_AGENT:    {API_TYPE: openai, API_KEY: "${OPENAI_API_KEY}", API_MODEL: gpt-4o}
//! BACKUP_AGENT: {API_TYPE: ollama, API_MODEL: llava}        # optional
//! EVALUATION_AGENT: {...}                                   # optional, else APP_AGENT
//! MAX_STEP: 50
//! MAX_COST: 2.0                                             # optional: USD per session
//! PRICES: {"openai/gpt-4o": {input: 0.0025, output: 0.01}}  # optional: over the shipped table
//! ACTION_SEQUENCE: false
//! SAFE_GUARD: true
//! ```
//!
//! `${VAR}` in any string value is replaced by the environment variable
//! `VAR`; a missing variable is an error naming the key. System keys may also
//! sit under a `SYSTEM:` section.

use crate::error::SessionError;

pub mod budget;
mod de;
mod env;
pub mod knowledge;
pub mod mcp;
mod misspelt;
mod system;
pub mod third_party;
mod unknown;
pub use env::KnownSecrets;
use env::{expand, redact_error, secret_fields, secret_lines};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;
pub use system::{DeviceToolArguments, HEARTBEAT_INTERVAL, HEARTBEAT_TIMEOUT, SystemConfig};
use ufo_agent::PromptPaths;
use ufo_llm::LlmConfig;
use ufo_llm::computer::ComputerApi;

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
    /// `OPERATOR`: the computer-use model of the operator modes. Its
    /// `API_TYPE` names a computer-use format (`operator` for OpenAI's
    /// Responses API, `claude`, or `ollama`/`custom` for a vision model
    /// answering JSON actions).
    pub operator: Option<LlmConfig<ComputerApi>>,
    /// System keys.
    pub system: SystemConfig,
    /// `PRICES`: the config's own model prices, laid over the shipped table
    /// ([`Self::price_table`]).
    pub prices: ufo_llm::PriceTable,
    /// User prompt templates.
    pub prompts: PromptPaths,
    /// Keys that were ignored (lenient loading), one line each.
    pub warnings: Vec<String>,
}

/// The model sections, the LLM keys they share (an agent section's own
/// value wins) and UFO's top-level template paths.
#[derive(Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
struct Sections {
    host_agent: Option<LlmConfig>,
    app_agent: Option<LlmConfig>,
    backup_agent: Option<LlmConfig>,
    evaluation_agent: Option<LlmConfig>,
    operator: Option<LlmConfig<ComputerApi>>,
    max_tokens: Option<u32>,
    temperature: Option<f64>,
    top_p: Option<f64>,
    #[serde(
        default,
        deserialize_with = "ufo_core::de::opt_duration::<_, 0, 3600, false>"
    )]
    timeout: Option<Duration>,
    max_retry: Option<u32>,
    hostagent_prompt: Option<String>,
    hostagent_example_prompt: Option<String>,
    appagent_prompt: Option<String>,
    appagent_example_prompt: Option<String>,
    appagent_example_prompt_as: Option<String>,
    evaluation_prompt: Option<String>,
}

impl Sections {
    /// The four agent sections, each with the shared keys it does not set,
    /// its `FORMAT_STRATEGY` checked and its cassette relative to `base`.
    fn agents(&mut self, base: &Path) -> Result<(), SessionError> {
        let sections = [
            ("HOST_AGENT", &mut self.host_agent),
            ("APP_AGENT", &mut self.app_agent),
            ("BACKUP_AGENT", &mut self.backup_agent),
            ("EVALUATION_AGENT", &mut self.evaluation_agent),
        ];
        for (name, c) in sections {
            let Some(c) = c else { continue };
            c.max_tokens = c.max_tokens.or(self.max_tokens);
            c.temperature = c.temperature.or(self.temperature);
            c.top_p = c.top_p.or(self.top_p);
            c.timeout = c.timeout.or(self.timeout);
            c.max_retry = c.max_retry.or(self.max_retry);
            if let Some(p) = &c.cassette {
                c.cassette = Some(base.join(p).display().to_string());
            }
            c.strategy().map_err(|e| SessionError::BadKey {
                key: format!("{name}.FORMAT_STRATEGY"),
                message: match e {
                    ufo_llm::LlmError::Config { message, .. } => message,
                    other => other.to_string(),
                },
            })?;
        }
        Ok(())
    }

    /// The template paths: an agent section's own (`PROMPT`, ...), else
    /// UFO's top-level name (`HOSTAGENT_PROMPT`, ...); `{mode}` follows the
    /// section's `VISUAL_MODE`.
    fn prompts(&self, base: &Path) -> PromptPaths {
        type Key = fn(&LlmConfig) -> &Option<String>;
        let visual = |c: &Option<LlmConfig>| c.as_ref().and_then(|c| c.visual_mode) != Some(false);
        let own = |c: &Option<LlmConfig>, key: Key| {
            template_path(c.as_ref().and_then(|c| key(c).as_deref()), visual(c), base)
        };
        let top = |k: &Option<String>, visual| template_path(k.as_deref(), visual, base);
        let (host, app) = (&self.host_agent, &self.app_agent);
        PromptPaths {
            host: own(host, |c| &c.prompt).or_else(|| top(&self.hostagent_prompt, visual(host))),
            host_examples: own(host, |c| &c.example_prompt)
                .or_else(|| top(&self.hostagent_example_prompt, visual(host))),
            app: own(app, |c| &c.prompt).or_else(|| top(&self.appagent_prompt, visual(app))),
            app_examples: own(app, |c| &c.example_prompt)
                .or_else(|| top(&self.appagent_example_prompt, visual(app))),
            app_examples_as: own(app, |c| &c.example_prompt_as)
                .or_else(|| top(&self.appagent_example_prompt_as, visual(app))),
            evaluation: own(&self.evaluation_agent, |c| &c.prompt)
                .or_else(|| top(&self.evaluation_prompt, true)),
            host_nonvisual: !visual(host),
            app_nonvisual: !visual(app),
        }
    }
}

/// A template path, relative to the config file; UFO's `{mode}` becomes
/// `visual` or `nonvisual`.
fn template_path(value: Option<&str>, visual: bool, base: &Path) -> Option<PathBuf> {
    let mode = if visual { "visual" } else { "nonvisual" };
    let s = value?.trim().replace("{mode}", mode);
    (!s.is_empty()).then(|| base.join(s))
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
        let raw = serde_saphyr::from_str::<Value>(text).ok();
        match parsed {
            Ok(mut c) => {
                c.system.secrets = KnownSecrets::of(raw.as_ref(), &used.borrow());
                Ok(c)
            }
            Err(e) => {
                let mut secrets: Vec<(String, String)> = used.into_inner();
                match &raw {
                    Some(raw) => secret_fields(raw, &mut secrets),
                    // Not YAML: the parser's message may quote any line.
                    None => secrets.extend(secret_lines(text)),
                }
                Err(redact_error(e, &secrets))
            }
        }
    }

    fn parse_inner(
        text: &str,
        base_dir: &Path,
        env: &dyn Fn(&str) -> Option<String>,
        lenient: bool,
    ) -> Result<Self, SessionError> {
        let file_error =
            |message: String, source: Option<ufo_core::BoxError>| SessionError::ConfigFile {
                path: base_dir.display().to_string(),
                message,
                source,
            };
        let mut v: Value = match text.trim().is_empty() {
            true => Value::Object(Map::new()),
            false => serde_saphyr::from_str(text)
                .map_err(|e| file_error(format!("not valid YAML: {e}"), Some(e.into())))?,
        };
        expand(&mut v, "", env)?;
        let Value::Object(top) = v else {
            return Err(file_error(
                "the file must be a YAML map of sections and keys".into(),
                None,
            ));
        };
        let mut top = unknown::TopLevel::new(top)?;
        let mut sections: Sections = top.read()?;
        let mut system: SystemConfig = top.read()?;
        let agent: system::AgentKeys = top.read()?;
        let knowledge: knowledge::Keys = top.read()?;
        let mcp: mcp::Keys = top.read()?;
        let third_party: third_party::Keys = top.read()?;
        let budget: budget::Keys = top.read()?;
        let unknown = top.unknown();
        let mut warnings = std::mem::take(&mut top.notes);
        match (unknown.is_empty(), lenient) {
            (true, _) => {}
            (false, true) => warnings.extend(misspelt::warnings(&unknown)),
            (false, false) => return Err(misspelt::error(&unknown, "")),
        }
        sections.agents(base_dir)?;
        let visual = sections.app_agent.as_ref().and_then(|a| a.visual_mode) != Some(false);
        system.max_round = system.max_round.max(1);
        system.agent = agent.settings(&system, visual)?;
        system.third_party = third_party.agents(base_dir)?;
        system.mcp = mcp.servers()?;
        system.knowledge = knowledge.config(base_dir)?;
        let prices = budget.prices(base_dir)?;
        Ok(Self {
            prices,
            prompts: sections.prompts(base_dir),
            host: sections.host_agent,
            app: sections.app_agent,
            backup: sections.backup_agent,
            evaluation: sections.evaluation_agent,
            operator: sections.operator,
            system,
            warnings,
        })
    }

    /// The prices models are charged at: UFO's shipped table with the
    /// config's `PRICES` laid over it.
    pub fn price_table(&self) -> ufo_llm::PriceTable {
        let mut t = ufo_llm::PriceTable::ufo_defaults();
        t.merge(&self.prices);
        t
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
            source: Some(e.into()),
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Self::parse_with(&text, &base, &|k| std::env::var(k).ok(), lenient).map_err(|e| match e {
            SessionError::ConfigFile {
                message, source, ..
            } => SessionError::ConfigFile {
                path: path.display().to_string(),
                message,
                source,
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
        assert_eq!(d.system.settle_timeout, Duration::from_secs(1));
        let c = parse(
            "SCREENSHOT_FORMAT: JPEG\nSCREENSHOT_JPEG_QUALITY: 70\nSCREENSHOT_MAX_SIDE: 1024\nSETTLE_TIMEOUT: 0.5\n",
        )
        .unwrap();
        assert_eq!(c.system.agent.image.format, ImageFormat::Jpeg);
        assert_eq!(c.system.agent.image.quality, 70);
        assert_eq!(c.system.agent.image.max_side, Some(1024));
        assert_eq!(c.system.settle_timeout, Duration::from_millis(500));
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
        assert_eq!(h.timeout, Some(Duration::from_secs(5)));
        assert_eq!(a.timeout, Some(Duration::from_secs(30)));
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
        let env = |k: &str| (k == "PROBE_KEY").then(|| "sk-live-0123456789".to_owned());
        let e = UfoConfig::parse("MAX_STEP: ${PROBE_KEY}\n", Path::new("."), &env).unwrap_err();
        let text = ufo_core::render(&e);
        assert!(text.contains("`MAX_STEP`"), "{text}");
        assert!(!text.contains("sk-live"), "{text}");
        assert!(text.contains("PROBE_KEY"), "{text}");
        let e = UfoConfig::parse(
            "APP_AGENT:\n  API_TYPE: openai\n  API_MODEL: m\n  API_KEY: 987654321\n",
            Path::new("."),
            &env,
        );
        if let Err(e) = e {
            let text = ufo_core::render(&e);
            assert!(!text.contains("987654321"), "{text}");
        }
    }

    #[test]
    fn max_cost_and_prices_are_read_merged_and_bad_values_named() {
        use ufo_core::Diagnostic;
        use ufo_llm::{ApiType, Price, Pricing};
        let parse = |y: &str| UfoConfig::parse(y, Path::new("/cfg"), &env);
        // Defaults: no budget, the shipped table.
        let d = parse("MAX_STEP: 3\n").unwrap();
        assert_eq!(d.system.max_cost, None);
        assert!(d.prices.is_empty());
        assert_eq!(d.price_table(), ufo_llm::PriceTable::ufo_defaults());
        let c = parse(
            "MAX_COST: 0.5\nPRICES:\n  \"openai/gpt-4o\": {input: 0.0025, output: 0.01}\n  my-model: {input: 1, output: 2}\n  lan-llama: {input: 0, output: 0}\n",
        )
        .unwrap();
        assert_eq!(c.system.max_cost, Some(0.5));
        let t = c.price_table();
        // The config's entry replaces the shipped one; the others stay.
        assert_eq!(
            t.pricing(ApiType::OpenAi, "gpt-4o"),
            Pricing::Priced(Price {
                input: 0.0025,
                output: 0.01
            })
        );
        assert!(t.lookup(ApiType::Aoai, "gpt-4o-20240806").is_some());
        assert_eq!(
            t.pricing(ApiType::Custom, "my-model"),
            Pricing::Priced(Price {
                input: 1.0,
                output: 2.0
            })
        );
        // A price of 0: a local model, cost 0; no price: not available.
        assert_eq!(t.pricing(ApiType::Custom, "lan-llama"), Pricing::Local);
        assert_eq!(t.pricing(ApiType::Custom, "mystery"), Pricing::Unknown);
        assert_eq!(t.pricing(ApiType::Ollama, "llama3"), Pricing::Local);
        // Under SYSTEM, as text, with a dollar sign; a prices.yaml pasted whole.
        let c =
            parse("SYSTEM:\n  MAX_COST: \"$2\"\nPRICES: {PRICES: {m: {input: 1, output: 1}}}\n")
                .unwrap();
        assert_eq!(c.system.max_cost, Some(2.0));
        assert_eq!(c.prices.len(), 1);
        // A file beside the config.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("prices.yaml"),
            "PRICES:\n  \"openai/gpt-x\": {input: 0.1, output: 0.2}\n",
        )
        .unwrap();
        let c = UfoConfig::parse("PRICES: prices.yaml\n", dir.path(), &env).unwrap();
        assert!(c.price_table().lookup(ApiType::OpenAi, "gpt-x").is_some());
        for (yaml, key, says) in [
            ("MAX_COST: 0\n", "`MAX_COST`", "above 0"),
            ("MAX_COST: -1\n", "`MAX_COST`", "above 0"),
            ("MAX_COST: lots\n", "`MAX_COST`", "US dollars"),
            ("SYSTEM:\n  MAX_COST: -3\n", "`SYSTEM.MAX_COST`", "above 0"),
            ("PRICES: {m: {input: 1}}\n", "`PRICES`", "output"),
            (
                "PRICES: {m: {input: -1, output: 0}}\n",
                "`PRICES`",
                "input is -1",
            ),
            ("PRICES: 7\n", "`PRICES`", "a map of model prices"),
            ("PRICES: none.yaml\n", "`PRICES`", "none.yaml"),
        ] {
            let e = parse(yaml).unwrap_err();
            assert_eq!(e.code(), "ufo::config::bad_key", "{yaml}: {e}");
            assert!(e.to_string().contains(key), "{yaml}: {e}");
            assert!(e.to_string().contains(says), "{yaml}: {e}");
            assert!(e.help().unwrap().contains(key.trim_matches('`')), "{yaml}");
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
        assert_eq!(c.system.heartbeat_interval, Duration::from_secs_f64(12.5));
        assert_eq!(c.system.heartbeat_timeout, Duration::from_secs(90));
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
        assert_eq!(c.system.sleep_time, Duration::from_millis(500));
    }

    #[test]
    fn wrong_types_name_their_path_and_the_expected_type() {
        use ufo_core::Diagnostic;
        for (yaml, key, says) in [
            (
                "APP_AGENT:\n  API_TYPE: openai\n  TEMPERATURE: hot\n",
                "`APP_AGENT.TEMPERATURE`",
                "expected f64",
            ),
            (
                "CONTROL_LIST: [Button, 7]\n",
                "`CONTROL_LIST[1]`",
                "expected a string",
            ),
            (
                "SYSTEM:\n  MAX_STEP: lots\n",
                "`SYSTEM.MAX_STEP`",
                "whole number",
            ),
            (
                "SYSTEM:\n  SAFE_GUARD: maybe\n",
                "`SYSTEM.SAFE_GUARD`",
                "true or false",
            ),
            (
                "mcp: {AppAgent: {default: {action: [{namespace: fs, type: stdio, command: x, start_args: [[1]]}]}}}\n",
                "`mcp.AppAgent.default.action[0].start_args[0]`",
                "expected a string",
            ),
            (
                "mcp: {AppAgent: {default: {action: [{namespace: fs, type: http, host: h, port: 99999}]}}}\n",
                "`mcp.AppAgent.default.action[0].port`",
                "u16",
            ),
            (
                "STEP_TIMEOUT: 0.5\n",
                "`STEP_TIMEOUT`",
                "between 1 and 86400",
            ),
            ("SYSTEM: [MAX_STEP]\n", "`SYSTEM`", "map of system keys"),
        ] {
            let e = UfoConfig::parse(yaml, Path::new("."), &env).unwrap_err();
            assert_eq!(e.code(), "ufo::config::bad_key", "{yaml}: {e}");
            assert!(e.to_string().contains(key), "{yaml}: {e}");
            assert!(e.to_string().contains(says), "{yaml}: {e}");
        }
    }

    #[test]
    fn api_types_are_read_once_with_the_accepted_values_named() {
        let parse = |y: &str| UfoConfig::parse(y, Path::new("."), &env);
        let c =
            parse("APP_AGENT: {API_TYPE: Anthropic}\nOPERATOR: {API_TYPE: operator}\n").unwrap();
        assert_eq!(c.app.unwrap().api_type, ufo_llm::ApiType::Claude);
        assert_eq!(c.operator.unwrap().api_type, ComputerApi::Responses);
        let c = parse("OPERATOR: {API_TYPE: ui-tars, API_BASE: 'http://x/v1'}\n").unwrap();
        assert_eq!(c.operator.unwrap().api_type, ComputerApi::Generic);
        let e = parse("APP_AGENT: {API_TYPE: martian}\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`APP_AGENT.API_TYPE`"), "{e}");
        assert!(e.contains("openai, aoai, azure_ad"), "{e}");
        let e = parse("OPERATOR: {API_TYPE: gemini}\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`OPERATOR.API_TYPE`") && e.contains("claude"),
            "{e}"
        );
        let e = parse("OPERATOR: {API_MODEL: m}\n").unwrap_err().to_string();
        assert!(e.contains("`OPERATOR.API_TYPE`"), "{e}");
    }

    #[test]
    fn unknown_keys_inside_parts_are_named_with_their_path_even_leniently() {
        for lenient in [false, true] {
            let e = UfoConfig::parse_with(
                "mcp: {AppAgent: {default: {action: [{namespace: fs, type: stdio, command: x, headrs: {}}]}}}\n",
                Path::new("."),
                &env,
                lenient,
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.contains("`mcp.AppAgent.default.action[0].headrs`")
                    && e.contains("did you mean headers"),
                "{e}"
            );
        }
        // An agent section's unknown key is a warning when lenient.
        let c = UfoConfig::parse_with(
            "APP_AGENT: {API_TYPE: openai, API_MODLE: m}\nSYSTEM: {HOST_AGENT: {}}\n",
            Path::new("."),
            &env,
            true,
        )
        .unwrap();
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        assert!(
            c.warnings[0].contains("APP_AGENT.API_MODLE") && c.warnings[0].contains("API_MODEL")
        );
        assert!(c.warnings[1].contains("SYSTEM.HOST_AGENT"));
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
