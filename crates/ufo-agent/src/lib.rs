//! # ufo-agent — the agents
//!
//! The prompter (YAML templates), HostAgent / AppAgent / EvaluationAgent, their
//! steps (the processor's phases), the blackboard and memory.
//!
//! ## One step
//! [`AppAgent::step`] runs UFO's processor phases: **data collection**
//! (`get_app_window_controls_target_info` + `capture_window_screenshot`
//! through the [`CommandDispatcher`], set-of-marks annotation), **LLM
//! interaction** (the [`prompter`] builds system and user prompts from the
//! YAML templates in [`prompts`]; the reply is parsed into [`response`] types,
//! repaired or re-asked with the exact error up to `JSON_PARSING_RETRY`
//! times), **action execution** (one call or a sequence; the first failure
//! skips the rest) and **memory update** (memory, blackboard, the
//! repeated-action guard). It returns a [`StepRecord`] (one `response.log`
//! line, with per-phase times and cost) and the next status; the session's
//! state machine decides what happens next. [`HostAgent::step`] is the same
//! for the desktop: list windows (and, in visual mode, take a desktop
//! screenshot with `capture_desktop_screenshot`), ask, `select_application_window`.
//!
//! ## Galaxy
//! [`constellation::ConstellationAgent`] plans one request as a constellation
//! of sub-tasks over devices (`ufo_galaxy`), runs it with the orchestrator and
//! re-plans through its planner hook as sub-tasks end.
//!
//! ## What this crate must not know
//! Which backend or transport executes a command: agents speak only in
//! `ufo_core::Command`s through a [`CommandDispatcher`]. Nor does it write
//! files: the session persists records and images.

pub mod app;
pub mod call;
pub mod command_agent;
pub mod constellation;
pub mod error;
pub mod evaluation;
mod guards;
pub mod host;
pub mod lifecycle;
pub mod llm;
pub mod memory;
pub mod normalize;
pub mod operator;
pub mod prompter;
pub mod prompts;
pub mod replay;
pub mod response;
pub mod retrieve;
pub mod settings;
pub mod step;
pub mod sub_agent;
mod subtask_prompt;
pub mod turn;

pub use app::{APP_ROLE, AgentSettings, AppAgent, AppStep, BATCH_ROLE, StepInput, agent_name};
pub use command_agent::{CommandAgent, CommandAgentSpec};
pub use error::AgentError;
pub use host::{Assignment, HostAgent, HostStep};
pub use memory::{Blackboard, Memory, MemoryItem, SubtaskRecord};
pub use operator::{OPERATOR_AGENT, OperatorAgent};
pub use prompts::{PromptPaths, PromptSet};
pub use replay::ReplayAgent;
pub use step::{
    AgentKind, LogLineError, StepFailure, StepRecord, read_response_log, request_for_log,
};
pub use sub_agent::SubAgent;
pub use ufo_desktop::dispatch::CommandDispatcher;
pub use ufo_desktop::observe::{Observation, ObserveOptions};
