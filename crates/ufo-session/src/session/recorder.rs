//! The session's recorder: it owns the task's logs, the step summaries, the
//! usage, `output.md` and the evaluation's input, so that "a step's log line is
//! on disk before the next step" holds in one place for every mode.

use crate::error::SessionError;
use crate::logs::TaskLogs;
use crate::session::SessionStatus;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use ufo_agent::step::ImageKind;
use ufo_agent::{AgentKind, StepRecord, SubtaskRecord};
use ufo_core::ErrorReport;
use ufo_llm::UsageTotals;

/// A summary line per step for evaluation and `output.md`.
#[derive(Debug, Clone, Serialize)]
pub(super) struct StepSummary {
    pub(super) step: usize,
    pub(super) round: usize,
    pub(super) kind: AgentKind,
    pub(super) agent: String,
    pub(super) subtask: String,
    pub(super) application: String,
    pub(super) observation: String,
    pub(super) thought: String,
    pub(super) plan: Vec<String>,
    pub(super) comment: String,
    pub(super) actions: Vec<String>,
    pub(super) status: ufo_core::StepStatus,
    /// The step's model usage and cost.
    pub(super) usage: UsageTotals,
    pub(super) total_time: f64,
    pub(super) screenshots: std::collections::BTreeMap<String, String>,
    pub(super) execution_times: Value,
}

/// The most screenshots one evaluation sees (UFO's `MAX_EVAL_IMAGES`).
pub(super) const MAX_EVAL_IMAGES: usize = 40;

/// The session's final snapshot.
pub(super) const FINAL_SHOT: &str = "action_step_final.png";

/// How a session ended, for `output.md`.
#[derive(Clone, Copy)]
pub(super) struct Ending<'a> {
    pub(super) task: &'a str,
    pub(super) requests: &'a [String],
    pub(super) status: SessionStatus,
    pub(super) result: &'a str,
    pub(super) error: Option<&'a ErrorReport>,
    pub(super) subtasks: &'a [SubtaskRecord],
    pub(super) evaluation: Option<&'a ufo_agent::evaluation::EvaluationResult>,
}

/// The task's logs and what the session learnt from its steps.
pub(super) struct Recorder {
    logs: TaskLogs,
    steps: Vec<StepSummary>,
    usage: UsageTotals,
    /// The usage per agent: its kind (`HostAgent`, `AppAgent`, ...) or the
    /// name of what spent it outside a step (`EvaluationAgent`).
    by_agent: BTreeMap<String, UsageTotals>,
    /// `action_step_final.png`, once the session's final snapshot is taken.
    final_shot: Option<String>,
}

impl Recorder {
    /// A new log folder `root/<segments...>` (see [`TaskLogs::create`]).
    pub(super) fn create(root: &Path, segments: &[&str]) -> Result<Self, SessionError> {
        Ok(Self {
            logs: TaskLogs::create(root, segments)?,
            steps: Vec::new(),
            usage: UsageTotals::default(),
            by_agent: BTreeMap::new(),
            final_shot: None,
        })
    }

    /// The task's log folder.
    pub(super) fn dir(&self) -> &Path {
        self.logs.dir()
    }

    /// The model usage so far.
    pub(super) fn usage(&self) -> UsageTotals {
        self.usage
    }

    /// The model usage so far per agent.
    pub(super) fn usage_by_agent(&self) -> &BTreeMap<String, UsageTotals> {
        &self.by_agent
    }

    /// Adds usage spent outside a step by `agent` (the evaluation).
    pub(super) fn add_usage(&mut self, agent: &str, u: &UsageTotals) {
        if u.calls > 0 {
            self.usage.merge(u);
            self.by_agent.entry(agent.to_owned()).or_default().merge(u);
        }
    }

    /// The steps recorded so far.
    pub(super) fn steps(&self) -> &[StepSummary] {
        &self.steps
    }

    /// Writes a finished step — images, `request.log` and `response.log`
    /// lines, flushed — and keeps its summary. A write that fails is the
    /// step's error: a session never goes on without its log.
    pub(super) fn step(&mut self, rec: &mut StepRecord) -> Result<(), SessionError> {
        self.logs.write_step(rec)?;
        self.usage.merge(&rec.usage);
        if rec.usage.calls > 0 {
            self.by_agent
                .entry(agent_label(rec.agent_type).to_owned())
                .or_default()
                .merge(&rec.usage);
        }
        self.steps.push(StepSummary {
            step: rec.session_step,
            round: rec.round,
            kind: rec.agent_type,
            agent: rec.agent_name.clone(),
            subtask: rec.subtask.clone(),
            application: rec.application.clone(),
            observation: rec.observation.clone(),
            thought: rec.thought.clone(),
            plan: rec.plan.clone(),
            comment: rec.comment.clone(),
            actions: rec.action_representations(),
            status: rec.status,
            usage: rec.usage,
            total_time: rec.total_time,
            screenshots: rec.screenshots.clone(),
            execution_times: serde_json::to_value(&rec.execution_times).unwrap_or_default(),
        });
        Ok(())
    }

    /// Writes a step that waits for the user (status CONFIRM) before the
    /// question is asked, so a session killed while the user thinks keeps it. The
    /// completed step follows as a line of its own; only that one counts in
    /// the summaries and the usage.
    pub(super) fn awaiting(&mut self, rec: &StepRecord) -> Result<(), SessionError> {
        let mut line = rec.clone();
        line.status = ufo_core::StepStatus::Confirm;
        self.logs.write_step(&mut line)
    }

    /// The evaluation's input for `round` (or the whole session): the
    /// trajectory (UFO's capitalised keys) and screenshots as PNG bytes — the
    /// first and the final (or last) one, or with `all` every step's, at most
    /// [`MAX_EVAL_IMAGES`] (the first ones and the final one kept).
    pub(super) fn evaluation_input(
        &self,
        round: Option<usize>,
        all: bool,
    ) -> (Vec<Value>, Vec<Vec<u8>>) {
        let steps: Vec<&StepSummary> = self
            .steps
            .iter()
            .filter(|s| round.is_none_or(|r| s.round == r))
            .collect();
        let shots: Vec<&String> = steps
            .iter()
            .filter_map(|s| s.screenshots.get(ImageKind::Clean.key()))
            .collect();
        let last = match round {
            None => self.final_shot.as_ref().or(shots.last().copied()),
            Some(_) => shots.last().copied(),
        };
        let names: Vec<&String> = match all {
            true => {
                let mut v: Vec<&String> = shots.iter().copied().take(MAX_EVAL_IMAGES - 1).collect();
                v.extend(last);
                v
            }
            false => [shots.first().copied(), last]
                .into_iter()
                .flatten()
                .collect(),
        };
        let mut images: Vec<Vec<u8>> = Vec::new();
        for name in names {
            if let Ok(b) = std::fs::read(self.dir().join(name))
                && !images.contains(&b)
            {
                images.push(b);
            }
        }
        let traj = steps
            .iter()
            .map(|s| json!({"Step": s.step, "Agent": s.agent, "Subtask": s.subtask, "Application": s.application, "Observation": s.observation, "Thought": s.thought, "Plan": s.plan, "Comment": s.comment, "Action": s.actions, "Status": s.status}))
            .collect();
        (traj, images)
    }

    /// Writes a snapshot file (`action_round_{r}_final.png`, ...) in the log
    /// folder; `action_step_final.png` becomes the evaluation's last image.
    pub(super) fn write_snapshot(&mut self, name: &str, bytes: &[u8]) -> Result<(), SessionError> {
        self.logs.write_bytes(name, bytes)?;
        if name == FINAL_SHOT {
            self.final_shot = Some(name.to_owned());
        }
        Ok(())
    }

    /// Appends the evaluation to `evaluation.log`.
    pub(super) fn write_evaluation<T: Serialize>(&self, v: &T) -> Result<(), SessionError> {
        self.logs.write_evaluation(v)
    }

    /// Writes `output.md`.
    pub(super) fn write_output(&self, end: &Ending<'_>) -> Result<PathBuf, SessionError> {
        self.logs.write_file("output.md", &self.markdown(end))
    }

    /// The steps per kind of agent: `2 HostAgent, 3 AppAgent, 1 operator`
    /// (HostAgent and AppAgent always named, the others when they took steps).
    fn steps_by_agent(&self) -> String {
        let count = |k: AgentKind| self.steps.iter().filter(|s| s.kind == k).count();
        let mut parts = vec![
            format!("{} HostAgent", count(AgentKind::HostAgent)),
            format!("{} AppAgent", count(AgentKind::AppAgent)),
        ];
        for (kind, name) in [
            (AgentKind::OperatorAgent, "operator"),
            (AgentKind::ThirdPartyAgent, "third-party agent"),
        ] {
            if count(kind) > 0 {
                parts.push(format!("{} {name}", count(kind)));
            }
        }
        parts.join(", ")
    }

    /// `output.md`'s table of cost and tokens per agent (empty when no
    /// model was called).
    fn agents_table(&self) -> String {
        if self.by_agent.is_empty() {
            return String::new();
        }
        let mut md = String::from(
            "### Cost per agent\n\n| agent | cost | tokens | prompt | completion | model calls |\n|---|---|---|---|---|---|\n",
        );
        for (agent, u) in &self.by_agent {
            let cost = crate::console::cost_line("", u, 4);
            md.push_str(&format!(
                "| {agent} | {} | {} | {} | {} | {} |\n",
                cost.trim_start_matches([':', ' '])
                    .trim_start_matches("is "),
                u.usage.total_tokens,
                u.usage.prompt_tokens,
                u.usage.completion_tokens,
                u.calls
            ));
        }
        md.push('\n');
        md
    }

    /// `output.md`: the summary, the evaluation, every step, the timings.
    pub(super) fn markdown(&self, end: &Ending<'_>) -> String {
        let Ending {
            task,
            requests,
            status,
            result,
            error,
            subtasks,
            evaluation,
        } = *end;
        let mut md = format!("# UFO session `{}`\n\n", task);
        md.push_str("## Summary\n\n");
        for r in requests {
            md.push_str(&format!("- **Request:** {r}\n"));
        }
        md.push_str(&format!(
            "- **Status:** {}\n- **Steps:** {} ({})\n- **Result:** {}\n- {} ({} tokens, {} model calls)\n\n",
            status.as_str(),
            self.steps.len(),
            self.steps_by_agent(),
            if result.is_empty() { "-" } else { result },
            // The console's words: a cost, "local model", or "not available",
            // never a made-up $0.
            crate::console::cost_line("**Cost**", &self.usage, 4),
            self.usage.usage.total_tokens,
            self.usage.calls
        ));
        md.push_str(&self.agents_table());
        if let Some(e) = error {
            md.push_str(&format!("- **Error:** `{}` {}\n", e.code, e.message));
            if let Some(h) = &e.help {
                md.push_str(&format!("- **What to do:** {h}\n"));
            }
            md.push('\n');
        }
        if !subtasks.is_empty() {
            md.push_str("### Sub-tasks\n\n| sub-task | application | status | result |\n|---|---|---|---|\n");
            for s in subtasks {
                md.push_str(&format!(
                    "| {} | {} | {} | {} |\n",
                    cell(&s.subtask),
                    s.application,
                    s.status,
                    cell(&s.result)
                ));
            }
            md.push('\n');
        }
        md.push_str("## Evaluation\n\n");
        match evaluation {
            Some(e) => {
                md.push_str(&format!(
                    "- **Complete:** {}\n- **Reason:** {}\n",
                    e.response.complete, e.response.reason
                ));
                for s in &e.response.sub_scores {
                    md.push_str(&format!("  - {}: {}\n", s.name, s.evaluation));
                }
                md.push('\n');
            }
            None => md.push_str("Not evaluated.\n\n"),
        }
        md.push_str("## Steps\n\n");
        for s in &self.steps {
            md.push_str(&format!(
                "### Step {} · {} · {}\n\n",
                s.step, s.agent, s.status
            ));
            if !s.subtask.is_empty() {
                md.push_str(&format!("- **Sub-task:** {}\n", s.subtask));
            }
            if !s.observation.is_empty() {
                md.push_str(&format!("- **Observation:** {}\n", s.observation));
            }
            if !s.thought.is_empty() {
                md.push_str(&format!("- **Thought:** {}\n", s.thought));
            }
            for a in &s.actions {
                md.push_str(&format!("- **Action:** `{a}`\n"));
            }
            if !s.comment.is_empty() {
                md.push_str(&format!("- **Comment:** {}\n", s.comment));
            }
            md.push_str(&format!(
                "- **Time:** {:.2}s {} · {}\n\n",
                s.total_time,
                s.execution_times,
                crate::console::cost_line("**Cost**", &s.usage, 4)
            ));
            for key in [ImageKind::Annotated.key(), ImageKind::Selected.key()] {
                if let Some(f) = s.screenshots.get(key) {
                    md.push_str(&format!("![{key}]({f})\n"));
                }
            }
            md.push('\n');
        }
        if let Some(f) = &self.final_shot {
            md.push_str(&format!("## Final state\n\n![final]({f})\n\n"));
        }
        md.push_str("## Timings\n\n| phase | seconds |\n|---|---|\n");
        let mut totals: std::collections::BTreeMap<String, f64> = Default::default();
        for s in &self.steps {
            if let Some(m) = s.execution_times.as_object() {
                for (k, v) in m {
                    *totals.entry(k.clone()).or_default() += v.as_f64().unwrap_or(0.0);
                }
            }
        }
        for (k, v) in totals {
            md.push_str(&format!("| {k} | {v:.2} |\n"));
        }
        md
    }
}

/// The name an agent's usage is listed under.
fn agent_label(kind: AgentKind) -> &'static str {
    match kind {
        AgentKind::HostAgent => "HostAgent",
        AgentKind::AppAgent => "AppAgent",
        AgentKind::ThirdPartyAgent => "ThirdPartyAgent",
        AgentKind::OperatorAgent => "OperatorAgent",
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}
