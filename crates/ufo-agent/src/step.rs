//! What one agent step produced: the line written to `response.log`, the
//! request written to `request.log` and the images saved next to them.
//!
//! [`StepRecord`] is the schema of a `response.log` line both ways: the
//! session writes it, and whatever reads the log back (experience learning,
//! benchmarks, tests) reads it with [`StepRecord::from_log_line`] or
//! [`read_response_log`], never by string keys.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use ufo_core::{ActionResult, ErrorReport, StepStatus};
use ufo_llm::UsageTotals;

/// The processor's phases (UFO's `ProcessingPhase`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Phase {
    /// Observation.
    DataCollection,
    /// Prompt, model, parse.
    LlmInteraction,
    /// Commands.
    ActionExecution,
    /// Memory, blackboard.
    MemoryUpdate,
}

/// Which agent took a step (`agent_type` in `response.log`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AgentKind {
    /// The HostAgent.
    HostAgent,
    /// An AppAgent.
    AppAgent,
    /// A third-party agent the HostAgent assigned a sub-task to (the
    /// command-line agent, `LinuxAgent`).
    ThirdPartyAgent,
    /// The operator: a computer-use model acting by coordinates.
    OperatorAgent,
}

/// One executed (or skipped) action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionLog {
    /// Tool name.
    pub function: String,
    /// Arguments as sent.
    pub arguments: Value,
    /// `fn(k="v")`.
    pub action_string: String,
    /// UFO's `[Action] … [Target] … [Status] … [Error] … [Result] …`.
    pub action_representation: String,
    /// The control acted on, when the call names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<Value>,
    /// UFO's control log of that control: class, type and automation id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_log: Option<ufo_core::ControlLog>,
    /// The status the model gave this action.
    pub status: StepStatus,
    /// What happened.
    pub result: ActionResult,
}

impl ActionLog {
    /// The log of `function(arguments)` on `target` with its `result`; the
    /// action string and UFO's representation are derived here.
    pub fn new(
        function: &str,
        arguments: &serde_json::Map<String, Value>,
        target: Option<Value>,
        status: StepStatus,
        result: ActionResult,
    ) -> Self {
        let s = crate::response::action_string(function, arguments);
        Self {
            function: function.to_owned(),
            arguments: Value::Object(arguments.clone()),
            action_representation: action_representation(&s, target.as_ref(), &result),
            action_string: s,
            target,
            control_log: None,
            status,
            result,
        }
    }
}

/// The images of a step; each owns its file name and its key in the log
/// line's `screenshots`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    /// The clean screenshot, `action_step{N}.png`.
    Clean,
    /// With set-of-marks labels, `action_step{N}_annotated.png`.
    Annotated,
    /// Clean and annotated side by side, `action_step{N}_concat.png`.
    Concat,
    /// The controls acted on, `action_step{N}_selected_controls.png`.
    Selected,
}

impl ImageKind {
    /// Every kind, in the order they are saved.
    pub const ALL: [ImageKind; 4] = [
        ImageKind::Clean,
        ImageKind::Annotated,
        ImageKind::Concat,
        ImageKind::Selected,
    ];

    /// The key in a log line's `screenshots`.
    pub const fn key(self) -> &'static str {
        match self {
            ImageKind::Clean => "clean",
            ImageKind::Annotated => "annotated",
            ImageKind::Concat => "concat",
            ImageKind::Selected => "selected_controls",
        }
    }

    /// The file name of this image of session step `step`.
    pub fn file(self, step: usize) -> String {
        match self {
            ImageKind::Clean => format!("action_step{step}.png"),
            other => format!("action_step{step}_{}.png", other.key()),
        }
    }
}

/// PNG images of a step, saved by the session as [`ImageKind::file`].
#[derive(Debug, Clone, Default)]
pub struct StepImages {
    /// `action_step{N}.png`: the clean screenshot.
    pub clean: Option<Vec<u8>>,
    /// `action_step{N}_annotated.png`.
    pub annotated: Option<Vec<u8>>,
    /// `action_step{N}_concat.png`.
    pub concat: Option<Vec<u8>>,
    /// `action_step{N}_selected_controls.png`.
    pub selected: Option<Vec<u8>>,
}

impl StepImages {
    /// Takes the image of `kind` out (to be written once).
    pub fn take(&mut self, kind: ImageKind) -> Option<Vec<u8>> {
        match kind {
            ImageKind::Clean => self.clean.take(),
            ImageKind::Annotated => self.annotated.take(),
            ImageKind::Concat => self.concat.take(),
            ImageKind::Selected => self.selected.take(),
        }
    }
}

/// The prompt of a step, for `request.log`: messages with every image
/// replaced by the name of its file.
#[derive(Debug, Clone, Serialize)]
pub struct RequestLog {
    /// Step number.
    pub step: usize,
    /// The agent.
    pub agent: String,
    /// The image files referenced by the prompt, in order.
    pub image_list: Vec<String>,
    /// The request sent (images replaced by file names), one per attempt.
    pub prompts: Vec<Value>,
}

/// One agent step: a `response.log` line, written and read by this type.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepRecord {
    /// The session that wrote the line (filled by the log writer).
    #[serde(default)]
    pub session_id: String,
    /// Session step number (1-based).
    pub session_step: usize,
    /// Round number (0-based).
    pub round: usize,
    /// The agent's own step number (1-based).
    pub agent_step: usize,
    /// Which agent took the step.
    pub agent_type: AgentKind,
    /// `HostAgent`, `AppAgent/<app>/<window>` (`BatchAgent/...` in batch
    /// and follower sessions) or a third-party agent's name.
    pub agent_name: String,
    /// The user request.
    pub request: String,
    /// The sub-task.
    pub subtask: String,
    /// The application worked in.
    pub application: String,
    /// The parsed reply (as JSON), when there was one.
    pub parsed_response: Value,
    /// Observation field of the reply.
    pub observation: String,
    /// Thought field of the reply.
    pub thought: String,
    /// Plan field of the reply.
    pub plan: Vec<String>,
    /// Comment field of the reply.
    pub comment: String,
    /// Executed actions.
    pub actions: Vec<ActionLog>,
    /// The step's status (after the state machine's view of it).
    pub status: StepStatus,
    /// Controls shown to the model (`{id,name,type}`), for AppAgent steps.
    pub control_count: usize,
    /// UFO's step-level control log: that of the last control acted on
    /// (`control_class`, `control_type`, `control_automation_id`).
    #[serde(default)]
    pub control_log: Option<ufo_core::ControlLog>,
    /// Model usage and cost of the step.
    pub usage: UsageTotals,
    /// Cost of the step in USD.
    pub cost: f64,
    /// Seconds per phase.
    pub execution_times: BTreeMap<Phase, f64>,
    /// Seconds for the whole step.
    pub total_time: f64,
    /// Replies asked for (1 = first reply was usable).
    pub llm_attempts: u32,
    /// Validation errors that led to re-asking.
    pub parse_errors: Vec<String>,
    /// Repairs made to the reply (JSON repair, control id fixed by name).
    pub repairs: Vec<String>,
    /// The error that ended the step, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorReport>,
    /// Image files of the step (filled by the log writer).
    pub screenshots: BTreeMap<String, String>,
    /// The images (saved by the log writer).
    #[serde(skip)]
    pub images: StepImages,
    /// The window's UI tree (`SAVE_UI_TREE`), written to
    /// `ui_trees/ui_tree_step{N}.json` by the log writer.
    #[serde(skip)]
    pub ui_tree: Option<Value>,
    /// The prompts (written to `request.log` by the log writer).
    #[serde(skip)]
    pub request_log: Option<RequestLog>,
    /// The raw model replies.
    pub raw_replies: Vec<String>,
}

impl StepRecord {
    /// An empty record for `agent_name` at `session_step`.
    pub fn new(agent_type: AgentKind, agent_name: &str, session_step: usize) -> Self {
        Self {
            session_id: String::new(),
            session_step,
            round: 0,
            agent_step: 0,
            agent_type,
            agent_name: agent_name.to_owned(),
            request: String::new(),
            subtask: String::new(),
            application: String::new(),
            parsed_response: Value::Null,
            observation: String::new(),
            thought: String::new(),
            plan: Vec::new(),
            comment: String::new(),
            actions: Vec::new(),
            status: StepStatus::Continue,
            control_count: 0,
            control_log: None,
            usage: UsageTotals::default(),
            cost: 0.0,
            execution_times: BTreeMap::new(),
            total_time: 0.0,
            llm_attempts: 0,
            parse_errors: Vec::new(),
            repairs: Vec::new(),
            error: None,
            screenshots: BTreeMap::new(),
            images: StepImages::default(),
            ui_tree: None,
            request_log: None,
            raw_replies: Vec::new(),
        }
    }

    /// Ends the step with `error`: the record carries its report, `status`
    /// (the agent's ERROR) and the step's total time.
    pub fn fail(
        mut self,
        error: crate::error::AgentError,
        status: impl Into<StepStatus>,
        started: std::time::Instant,
    ) -> StepFailure {
        use ufo_core::Diagnostic;
        self.error = Some(error.report());
        self.status = status.into();
        self.total_time = started.elapsed().as_secs_f64();
        StepFailure(Box::new((error, self)))
    }

    /// UFO's representation of each action of the step, in order.
    pub fn action_representations(&self) -> Vec<String> {
        self.actions
            .iter()
            .map(|a| a.action_representation.clone())
            .collect()
    }

    /// Reads one `response.log` line.
    pub fn from_log_line(line: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(line)
    }

    /// The sum of the step's phase times, in seconds.
    pub fn phase_time(&self, phase: Phase) -> f64 {
        self.execution_times.get(&phase).copied().unwrap_or(0.0)
    }

    /// Records the time of a phase.
    pub fn time(&mut self, phase: Phase, since: std::time::Instant) {
        *self.execution_times.entry(phase).or_insert(0.0) += since.elapsed().as_secs_f64();
    }
}

/// A step that ended in an error: the error, and the step's record (which
/// carries the error's report) for the session to log before it reports
/// the error. Every agent's `step` fails with this.
#[derive(Debug)]
pub struct StepFailure(Box<(crate::error::AgentError, StepRecord)>);

impl StepFailure {
    /// What went wrong.
    pub fn error(&self) -> &crate::error::AgentError {
        &self.0.0
    }

    /// The step as it ended.
    pub fn record(&self) -> &StepRecord {
        &self.0.1
    }

    /// The error and the record, to log the one and report the other.
    pub fn into_parts(self) -> (crate::error::AgentError, StepRecord) {
        *self.0
    }
}

impl std::fmt::Display for StepFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "step {} failed: {}",
            self.record().session_step,
            self.error()
        )
    }
}

impl std::error::Error for StepFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.error())
    }
}

/// A line of `response.log` that is not a step record.
#[derive(Debug, thiserror::Error)]
#[error("response.log line {line}: {source}")]
pub struct LogLineError {
    /// The line number (1-based).
    pub line: usize,
    /// Why it is not a step record.
    #[source]
    pub source: serde_json::Error,
}

/// Reads `response.log` (one [`StepRecord`] per line; blank lines skipped),
/// each line as a record or the reason it is not one.
pub fn read_response_log(
    text: &str,
) -> impl Iterator<Item = Result<StepRecord, LogLineError>> + '_ {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            StepRecord::from_log_line(l).map_err(|source| LogLineError {
                line: i + 1,
                source,
            })
        })
}

/// `[Action] … [Target] … [Status] … [Error] … [Result] …`.
pub fn action_representation(
    action_string: &str,
    target: Option<&Value>,
    result: &ActionResult,
) -> String {
    let target = target
        .map(|t| {
            format!(
                "{} ({})",
                t.get("name").and_then(Value::as_str).unwrap_or(""),
                t.get("type").and_then(Value::as_str).unwrap_or("")
            )
        })
        .unwrap_or_else(|| "-".into());
    let status = serde_json::to_value(result.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let error = result
        .error
        .as_ref()
        .map(|e| {
            let mut s = format!("{} {}", e.code, e.message_with_causes());
            if let Some(h) = &e.help {
                s.push_str(&format!(" (help: {h})"));
            }
            s
        })
        .unwrap_or_else(|| "-".into());
    let res = match &result.result {
        Value::Null => "-".to_owned(),
        Value::String(s) => s.clone(),
        v => {
            let s = v.to_string();
            s.chars().take(300).collect()
        }
    };
    format!(
        "[Action] {action_string} [Target] {target} [Status] {status} [Error] {error} [Result] {res}"
    )
}

/// The request as JSON with each image URL replaced, in order, by the next
/// name of `names` (`"<image>"` once they run out): what `request.log` keeps.
pub fn request_for_log(request: &ufo_llm::ChatRequest, names: &[String]) -> Value {
    let mut v = serde_json::to_value(request).unwrap_or(Value::Null);
    let mut i = 0usize;
    fn walk(v: &mut Value, names: &[String], i: &mut usize) {
        match v {
            Value::Object(m) => {
                if let Some(Value::Object(img)) = m.get_mut("image_url")
                    && let Some(url) = img.get_mut("url")
                {
                    *url =
                        Value::String(names.get(*i).cloned().unwrap_or_else(|| "<image>".into()));
                    *i += 1;
                }
                for (k, x) in m.iter_mut() {
                    if k != "image_url" {
                        walk(x, names, i);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, names, i)),
            _ => {}
        }
    }
    walk(&mut v, names, &mut i);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use ufo_core::Diagnostic;

    #[test]
    fn a_failed_step_keeps_its_error_and_a_record_that_reports_it() {
        let rec = StepRecord::new(AgentKind::AppAgent, "AppAgent/gedit", 4);
        let started = std::time::Instant::now();
        let failure = rec.fail(
            crate::error::AgentError::StepDeadline { seconds: 2.0 },
            StepStatus::Error,
            started,
        );
        assert_eq!(failure.record().status, StepStatus::Error);
        let shown = failure.to_string();
        assert!(shown.starts_with("step 4 failed: "), "{shown}");
        assert!(std::error::Error::source(&failure).is_some());
        let (error, record) = failure.into_parts();
        assert_eq!(error.code(), "ufo::agent::step_deadline");
        assert_eq!(
            record.error.as_ref().map(|r| r.code.as_str()),
            Some("ufo::agent::step_deadline")
        );
    }

    #[test]
    fn a_failed_action_is_shown_to_the_model_with_its_cause() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "Access is denied.");
        let e = ufo_desktop::DesktopError::backend_by("cannot move the pointer", io);
        let log = ActionLog::new(
            "click_on_coordinates",
            &serde_json::Map::new(),
            None,
            StepStatus::Continue,
            ActionResult::failure(e.report()),
        );
        assert!(
            log.action_representation.contains(
                "[Error] ufo::desktop::backend cannot move the pointer: Access is denied. (help: "
            ),
            "{}",
            log.action_representation
        );
    }
}
