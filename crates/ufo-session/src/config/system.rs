//! The system keys (UFO's `system.yaml`): steps, rounds, pauses and
//! timeouts, evaluation, logs, screenshots and the agents' switches.

use super::de::{Count, Flag, Scalar, Text};
use crate::error::SessionError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::time::Duration;
use ufo_agent::AgentSettings;
use ufo_core::de::Seconds;
use ufo_desktop::encode::{ImageFormat, ModelImage, PngCompression};

/// System keys (UFO's `system.yaml`).
#[derive(Debug, Clone)]
pub struct SystemConfig {
    /// `MAX_STEP` (50): steps per session.
    pub max_step: usize,
    /// `MAX_ROUND` (1 in UFO; 10 here for interactive sessions): rounds per session.
    pub max_round: usize,
    /// `SLEEP_TIME` (1 s, at most an hour): pause between steps.
    pub sleep_time: Duration,
    /// `SETTLE_TIMEOUT` (1 s, at most 30): the longest wait after an action
    /// for the application to react; the wait ends as soon as its
    /// accessibility events go quiet (a click whose effect is immediate
    /// costs milliseconds). 0 disables the wait.
    pub settle_timeout: Duration,
    /// `STEP_TIMEOUT` (600 s, 1 s to a day): the longest one agent step may
    /// take, model calls, retries and actions included; past it the step
    /// ends in ERROR.
    pub step_timeout: Duration,
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
    pub third_party: Vec<super::third_party::ThirdPartyAgent>,
    /// The AppAgent's external MCP servers (`mcp:`, `MCP_TOOL_TIMEOUT`).
    pub mcp: Vec<ufo_mcp::client::ServerSpec>,
    /// Knowledge: `RAG_*`, `SAVE_EXPERIENCE`, `KNOWLEDGE_DIR`.
    pub knowledge: super::knowledge::KnowledgeConfig,
    /// `HEARTBEAT_INTERVAL` (30 s, above 0 and at most a day): how often a
    /// device (`ufo client`) sends a HEARTBEAT frame.
    pub heartbeat_interval: Duration,
    /// `HEARTBEAT_TIMEOUT` (300 s, above 0 and at most a day): the silence
    /// after which `ufo serve` drops a device. Longer than UFO's own
    /// client's interval (120 s) with room for one lost beat.
    pub heartbeat_timeout: Duration,
    /// `DEVICE_TOOL_ARGUMENTS`: arguments the server adds to a device's
    /// tool calls when the device's tool list requires them and the model
    /// is not to see them (UFO's Linux tool server wants `api_key`), e.g.
    /// `DEVICE_TOOL_ARGUMENTS: {api_key: "${UFO_MCP_API_KEY}"}`. Their values never reach a prompt
    /// or a log.
    pub device_tool_arguments: DeviceToolArguments,
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

/// The system keys as written.
#[derive(Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(super) struct Keys {
    max_step: Option<Count<usize>>,
    max_round: Option<Count<usize>>,
    sleep_time: Option<Seconds<0, 3600>>,
    settle_timeout: Option<Seconds<0, 30>>,
    step_timeout: Option<Seconds<1, 86_400>>,
    safe_guard: Option<Flag>,
    safe_guard_tools: Option<Vec<String>>,
    eva_session: Option<Flag>,
    eva_round: Option<Flag>,
    eva_all_screenshots: Option<Flag>,
    task_status: Option<Flag>,
    log_to_markdown: Option<Flag>,
    save_ui_tree: Option<Flag>,
    save_full_screen: Option<Flag>,
    control_list: Option<Vec<String>>,
    app_allowlist: Option<Vec<String>>,
    action_sequence: Option<Flag>,
    json_parsing_retry: Option<Count<u32>>,
    include_last_screenshot: Option<Flag>,
    concat_screenshot: Option<Flag>,
    max_repeat: Option<Count<u32>>,
    /// UFO's 0–9; see [`PngCompression::from_ufo_level`].
    default_png_compress_level: Option<Count<u8>>,
    /// png | jpeg | webp (default png).
    screenshot_format: Option<Text>,
    /// 1–100 (default 85).
    screenshot_jpeg_quality: Option<Count<u64>>,
    /// Pixels; 0 (the default): the screenshot's own size.
    screenshot_max_side: Option<Count<u64>>,
    heartbeat_interval: Option<Seconds<0, 86_400, false>>,
    heartbeat_timeout: Option<Seconds<0, 86_400, false>>,
    device_tool_arguments: Option<BTreeMap<String, Scalar>>,
}

fn flag(v: Option<Flag>, default: bool) -> bool {
    v.map_or(default, |f| f.0)
}

impl Keys {
    /// The system config (its third-party agents, MCP servers and
    /// knowledge are read by their own modules); `visual` is the AppAgent's
    /// `VISUAL_MODE`.
    pub(super) fn config(self, visual: bool) -> Result<SystemConfig, SessionError> {
        let d = SystemConfig::default();
        let png =
            PngCompression::from_ufo_level(self.default_png_compress_level.map_or(1, |c| c.0));
        let safe_guard = flag(self.safe_guard, d.safe_guard);
        let save_ui_tree = flag(self.save_ui_tree, d.save_ui_tree);
        let agent = AgentSettings {
            visual_mode: visual,
            action_sequence: flag(self.action_sequence, false),
            json_parsing_retry: self.json_parsing_retry.map_or(3, |c| c.0),
            include_last_screenshot: flag(self.include_last_screenshot, true),
            concat_screenshot: flag(self.concat_screenshot, false),
            max_repeat: self.max_repeat.map_or(3, |c| c.0).max(1),
            png,
            image: model_image(
                self.screenshot_format,
                self.screenshot_jpeg_quality,
                self.screenshot_max_side,
                png,
            )?,
            save_ui_tree,
            safe_guard,
            safe_guard_tools: self.safe_guard_tools,
            external_tools: Vec::new(),
            knowledge: None,
        };
        Ok(SystemConfig {
            max_step: self.max_step.map_or(d.max_step, |c| c.0),
            max_round: self.max_round.map_or(d.max_round, |c| c.0).max(1),
            sleep_time: self.sleep_time.map_or(d.sleep_time, |s| s.0),
            settle_timeout: self.settle_timeout.map_or(d.settle_timeout, |s| s.0),
            step_timeout: self.step_timeout.map_or(d.step_timeout, |s| s.0),
            safe_guard,
            eva_session: flag(self.eva_session, d.eva_session),
            eva_round: flag(self.eva_round, d.eva_round),
            eva_all_screenshots: flag(self.eva_all_screenshots, d.eva_all_screenshots),
            task_status: flag(self.task_status, d.task_status),
            log_to_markdown: flag(self.log_to_markdown, d.log_to_markdown),
            save_ui_tree,
            save_full_screen: flag(self.save_full_screen, d.save_full_screen),
            control_list: self.control_list,
            app_allowlist: self.app_allowlist.unwrap_or_default(),
            agent,
            heartbeat_interval: self
                .heartbeat_interval
                .map_or(d.heartbeat_interval, |s| s.0),
            heartbeat_timeout: self.heartbeat_timeout.map_or(d.heartbeat_timeout, |s| s.0),
            device_tool_arguments: DeviceToolArguments(
                self.device_tool_arguments
                    .into_iter()
                    .flatten()
                    .map(|(k, v)| (k, v.0))
                    .collect(),
            ),
            ..d
        })
    }
}

/// `SCREENSHOT_*`: how the AppAgent's screenshots are sent to the model.
fn model_image(
    format: Option<Text>,
    quality: Option<Count<u64>>,
    max_side: Option<Count<u64>>,
    png: PngCompression,
) -> Result<ModelImage, SessionError> {
    let d = ModelImage::default();
    let format = match format {
        None => d.format,
        Some(Text(f)) => f
            .parse::<ImageFormat>()
            .map_err(|message| SessionError::BadKey {
                key: "SCREENSHOT_FORMAT".into(),
                message,
            })?,
    };
    let quality = quality.map_or(u64::from(d.quality), |c| c.0);
    let Some(quality) = u8::try_from(quality).ok().filter(|q| (1..=100).contains(q)) else {
        return Err(SessionError::BadKey {
            key: "SCREENSHOT_JPEG_QUALITY".into(),
            message: format!("is {quality}; it must be between 1 and 100"),
        });
    };
    let max_side = max_side.map_or(0, |c| c.0);
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
