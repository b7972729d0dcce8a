//! The behaviour switches every agent reads (from the system config), in a
//! module of their own: the agents and their guards use them, and they use
//! nothing of the agents.

use std::sync::Arc;
use ufo_desktop::encode::{ModelImage, PngCompression};

/// Behaviour switches shared by the agents (from the system config).
#[derive(Debug, Clone)]
pub struct AgentSettings {
    /// `VISUAL_MODE`: send screenshots.
    pub visual_mode: bool,
    /// `ACTION_SEQUENCE`: AppAgent may answer with a list of actions.
    pub action_sequence: bool,
    /// `JSON_PARSING_RETRY`: extra replies asked for after an unusable one.
    pub json_parsing_retry: u32,
    /// `INCLUDE_LAST_SCREENSHOT`.
    pub include_last_screenshot: bool,
    /// `CONCAT_SCREENSHOT`.
    pub concat_screenshot: bool,
    /// How many times the same failing action may be repeated before the
    /// sub-task fails (`MAX_REPEAT`, default 3).
    pub max_repeat: u32,
    /// PNG compression of saved images.
    pub png: PngCompression,
    /// How screenshots are sent to the model (`SCREENSHOT_FORMAT`,
    /// `SCREENSHOT_JPEG_QUALITY`, `SCREENSHOT_MAX_SIDE`).
    pub image: ModelImage,
    /// `SAVE_UI_TREE`: each AppAgent step also fetches the window's full UI
    /// tree (`get_ui_tree`), saved as `ui_trees/ui_tree_step{N}.json`.
    pub save_ui_tree: bool,
    /// `SAFE_GUARD`: a sensitive call (see `ufo_desktop::tools::guard`) waits
    /// for the user's confirmation even when the model did not ask for it.
    pub safe_guard: bool,
    /// `SAFE_GUARD_TOOLS`: the tools whose calls are sensitive, replacing the
    /// built-in rule.
    pub safe_guard_tools: Option<Vec<String>>,
    /// Tools of external MCP servers the AppAgent may call besides its own
    /// (`<namespace>.<tool>`): shown in its tool docs, accepted in its
    /// replies, and under SAFE_GUARD when `destructive`.
    pub external_tools: Vec<ufo_core::ToolSpec>,
    /// Retrieval (`RAG_*`): help documents, online search, experiences and
    /// demonstrations for the prompts; `None` retrieves nothing.
    pub knowledge: Option<Arc<dyn crate::retrieve::Retrieve>>,
}

impl Default for AgentSettings {
    fn default() -> Self {
        Self {
            visual_mode: true,
            action_sequence: false,
            json_parsing_retry: 3,
            include_last_screenshot: true,
            concat_screenshot: false,
            max_repeat: 3,
            png: PngCompression::Fast,
            image: ModelImage::default(),
            save_ui_tree: false,
            safe_guard: false,
            safe_guard_tools: None,
            external_tools: Vec::new(),
            knowledge: None,
        }
    }
}
