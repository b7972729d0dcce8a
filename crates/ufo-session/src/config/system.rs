//! The system keys (UFO's `system.yaml`): steps, rounds, pauses and
//! timeouts, evaluation, logs, screenshots and the agents' switches.

use super::de::{Count, Flag, Scalar, Text, count, flag};
use crate::error::SessionError;
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::time::Duration;
use ufo_agent::AgentSettings;
use ufo_core::de::duration;
use ufo_desktop::encode::{ImageFormat, ModelImage, PngCompression};

/// System keys (UFO's `system.yaml`). It deserializes from a config file's
/// top level (a `SYSTEM:` map lifted into it); [`UfoConfig`](super::UfoConfig)
/// fills the agent switches, third-party agents, MCP servers and knowledge.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, rename_all = "SCREAMING_SNAKE_CASE")]
pub struct SystemConfig {
    /// `MAX_STEP` (50): steps per session.
    #[serde(deserialize_with = "count")]
    pub max_step: usize,
    /// `MAX_ROUND` (1 in UFO; 10 here for interactive sessions): rounds per
    /// session, at least 1.
    #[serde(deserialize_with = "count")]
    pub max_round: usize,
    /// `SLEEP_TIME` (1 s, at most an hour): pause between steps.
    #[serde(deserialize_with = "duration::<_, 0, 3600, true>")]
    pub sleep_time: Duration,
    /// `SETTLE_TIMEOUT` (1 s, at most 30): the longest wait after an action
    /// for the application to react; the wait ends as soon as its
    /// accessibility events go quiet (a click whose effect is immediate
    /// costs milliseconds). 0 disables the wait.
    #[serde(deserialize_with = "duration::<_, 0, 30, true>")]
    pub settle_timeout: Duration,
    /// `STEP_TIMEOUT` (600 s, 1 s to a day): the longest one agent step may
    /// take, model calls, retries and actions included; past it the step
    /// ends in ERROR.
    #[serde(deserialize_with = "duration::<_, 1, 86_400, true>")]
    pub step_timeout: Duration,
    /// `MAX_COST` (none): the most a session may spend on models, in US
    /// dollars (priced calls only: see `PRICES`). When the session's cost
    /// reaches it, no further step is taken and the session ends with the
    /// status BUDGET, its logs and `output.md` written.
    #[serde(deserialize_with = "super::budget::max_cost")]
    pub max_cost: Option<f64>,
    /// `SAFE_GUARD` (true): ask before sensitive actions.
    #[serde(deserialize_with = "flag")]
    pub safe_guard: bool,
    /// `EVA_SESSION` (true): evaluate at the end of the session.
    #[serde(deserialize_with = "flag")]
    pub eva_session: bool,
    /// `EVA_ROUND` (false): evaluate each round of a normal session.
    #[serde(deserialize_with = "flag")]
    pub eva_round: bool,
    /// `EVA_ALL_SCREENSHOTS` (false): the evaluation sees every step's
    /// screenshot (at most 40), not only the first and the final one.
    #[serde(deserialize_with = "flag")]
    pub eva_all_screenshots: bool,
    /// `TASK_STATUS` (true): `batch_normal` keeps `tasks_status.json` and
    /// skips the tasks it records as finished.
    #[serde(deserialize_with = "flag")]
    pub task_status: bool,
    /// `LOG_TO_MARKDOWN` (true): write `output.md`.
    #[serde(deserialize_with = "flag")]
    pub log_to_markdown: bool,
    /// `SAVE_UI_TREE` (false): write `ui_trees/`.
    #[serde(deserialize_with = "flag")]
    pub save_ui_tree: bool,
    /// `SAVE_FULL_SCREEN` (false): the final snapshots include the whole
    /// desktop.
    #[serde(deserialize_with = "flag")]
    pub save_full_screen: bool,
    /// `CONTROL_LIST`: control types shown to the model.
    pub control_list: Option<Vec<String>>,
    /// `APP_ALLOWLIST`: programs `run_shell` may start besides those with a
    /// desktop entry.
    pub app_allowlist: Vec<String>,
    /// Agent switches (`ACTION_SEQUENCE`, `JSON_PARSING_RETRY`, ...).
    #[serde(skip)]
    pub agent: AgentSettings,
    /// The enabled third-party agents (`ENABLED_THIRD_PARTY_AGENTS`).
    #[serde(skip)]
    pub third_party: Vec<super::third_party::ThirdPartyAgent>,
    /// The AppAgent's external MCP servers (`mcp:`, `MCP_TOOL_TIMEOUT`).
    #[serde(skip)]
    pub mcp: Vec<ufo_mcp::client::ServerSpec>,
    /// Knowledge: `RAG_*`, `SAVE_EXPERIENCE`, `KNOWLEDGE_DIR`.
    #[serde(skip)]
    pub knowledge: super::knowledge::KnowledgeConfig,
    /// `HEARTBEAT_INTERVAL` (30 s, above 0 and at most a day): how often a
    /// device (`ufo client`) sends a HEARTBEAT frame.
    #[serde(deserialize_with = "duration::<_, 0, 86_400, false>")]
    pub heartbeat_interval: Duration,
    /// `HEARTBEAT_TIMEOUT` (300 s, above 0 and at most a day): the silence
    /// after which `ufo serve` drops a device. Longer than UFO's own
    /// client's interval (120 s) with room for one lost beat.
    #[serde(deserialize_with = "duration::<_, 0, 86_400, false>")]
    pub heartbeat_timeout: Duration,
    /// `DEVICE_TOOL_ARGUMENTS`: arguments the server adds to a device's
    /// tool calls when the device's tool list requires them and the model
    /// is not to see them (UFO's Linux tool server wants `api_key`), e.g.
    /// `DEVICE_TOOL_ARGUMENTS: {api_key: "${UFO_MCP_API_KEY}"}`. Their values never reach a prompt
    /// or a log.
    pub device_tool_arguments: DeviceToolArguments,
    /// The secret values the config brought in (not a key of its own):
    /// scrubbed from what `execute_command` prints.
    #[serde(skip)]
    pub secrets: super::KnownSecrets,
}

/// `HEARTBEAT_INTERVAL`'s default.
pub const HEARTBEAT_INTERVAL: Duration = Duration::from_secs(30);
/// `HEARTBEAT_TIMEOUT`'s default.
pub const HEARTBEAT_TIMEOUT: Duration = Duration::from_secs(300);

impl Default for SystemConfig {
    fn default() -> Self {
        Self {
            max_step: 50,
            max_round: 10,
            sleep_time: Duration::from_secs(1),
            settle_timeout: Duration::from_secs(1),
            step_timeout: Duration::from_secs(600),
            max_cost: None,
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
            secrets: Default::default(),
        }
    }
}

/// `DEVICE_TOOL_ARGUMENTS`' values: secrets, so `Debug` shows only the names.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct DeviceToolArguments(pub BTreeMap<String, String>);

impl std::fmt::Debug for DeviceToolArguments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.keys().map(|k| format!("{k}=<redacted>")))
            .finish()
    }
}

impl<'de> Deserialize<'de> for DeviceToolArguments {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = BTreeMap::<String, Scalar>::deserialize(d)?;
        Ok(Self(m.into_iter().map(|(k, v)| (k, v.0)).collect()))
    }
}

/// The agent switches as written (`SAFE_GUARD` and `SAVE_UI_TREE` are
/// [`SystemConfig`]'s).
#[derive(Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(super) struct AgentKeys {
    action_sequence: Option<Flag>,
    json_parsing_retry: Option<Count<u32>>,
    include_last_screenshot: Option<Flag>,
    concat_screenshot: Option<Flag>,
    max_repeat: Option<Count<u32>>,
    safe_guard_tools: Option<Vec<String>>,
    /// UFO's 0–9 (default 1); see [`PngCompression::from_ufo_level`].
    default_png_compress_level: Option<Count<u8>>,
    /// png | jpeg | webp (default png).
    screenshot_format: Option<Text>,
    /// 1–100 (default 85).
    screenshot_jpeg_quality: Option<Count<u64>>,
    /// Pixels; 0 (the default): the screenshot's own size.
    screenshot_max_side: Option<Count<u64>>,
}

impl AgentKeys {
    /// The agent settings; `visual` is the AppAgent's `VISUAL_MODE`.
    pub(super) fn settings(
        self,
        system: &SystemConfig,
        visual: bool,
    ) -> Result<AgentSettings, SessionError> {
        let png =
            PngCompression::from_ufo_level(self.default_png_compress_level.map_or(1, |c| c.0));
        Ok(AgentSettings {
            visual_mode: visual,
            action_sequence: self.action_sequence.is_some_and(|f| f.0),
            json_parsing_retry: self.json_parsing_retry.map_or(3, |c| c.0),
            include_last_screenshot: self.include_last_screenshot.is_none_or(|f| f.0),
            concat_screenshot: self.concat_screenshot.is_some_and(|f| f.0),
            max_repeat: self.max_repeat.map_or(3, |c| c.0).max(1),
            png,
            image: self.model_image(png)?,
            save_ui_tree: system.save_ui_tree,
            safe_guard: system.safe_guard,
            safe_guard_tools: self.safe_guard_tools,
            external_tools: Vec::new(),
            knowledge: None,
        })
    }

    /// `SCREENSHOT_*`: how the AppAgent's screenshots are sent to the model.
    fn model_image(&self, png: PngCompression) -> Result<ModelImage, SessionError> {
        let d = ModelImage::default();
        let format = match &self.screenshot_format {
            None => d.format,
            Some(Text(f)) => f
                .parse::<ImageFormat>()
                .map_err(|message| SessionError::BadKey {
                    key: "SCREENSHOT_FORMAT".into(),
                    message,
                })?,
        };
        let quality = self
            .screenshot_jpeg_quality
            .map_or(u64::from(d.quality), |c| c.0);
        let Some(quality) = u8::try_from(quality).ok().filter(|q| (1..=100).contains(q)) else {
            return Err(SessionError::BadKey {
                key: "SCREENSHOT_JPEG_QUALITY".into(),
                message: format!("is {quality}; it must be between 1 and 100"),
            });
        };
        let max_side = self.screenshot_max_side.map_or(0, |c| c.0);
        let Some(max_side) = Some(max_side)
            .filter(|m| *m == 0 || (64..=16_384).contains(m))
            .and_then(|m| u32::try_from(m).ok())
        else {
            return Err(SessionError::BadKey {
                key: "SCREENSHOT_MAX_SIDE".into(),
                message: format!(
                    "is {max_side}; use 0 (the screenshot's own size) or 64 to 16384 pixels"
                ),
            });
        };
        Ok(ModelImage {
            format,
            quality,
            png,
            max_side: (max_side != 0).then_some(max_side),
        })
    }
}
