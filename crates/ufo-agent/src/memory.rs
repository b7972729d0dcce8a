//! Per-agent memory and the blackboard shared by the HostAgent and its
//! AppAgents.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One remembered step of an agent (a subset of its log line).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryItem {
    /// Session step number.
    pub step: usize,
    /// The sub-task being worked on.
    pub subtask: String,
    /// UFO's `action_representation` of the step's actions.
    pub action_representation: Vec<String>,
    /// The step's status.
    pub status: ufo_core::StepStatus,
    /// Whether the user confirmed a sensitive action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_confirm: Option<bool>,
}

impl MemoryItem {
    /// What an agent remembers of the step `rec`, which ended in `status`.
    pub fn of(
        rec: &crate::step::StepRecord,
        status: ufo_core::StepStatus,
        user_confirm: Option<bool>,
    ) -> Self {
        Self {
            step: rec.session_step,
            subtask: rec.subtask.clone(),
            action_representation: rec.action_representations(),
            status,
            user_confirm,
        }
    }
}

/// An agent's memory: its steps in order.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    items: Vec<MemoryItem>,
}

impl Memory {
    /// Adds a step.
    pub fn push(&mut self, item: MemoryItem) {
        self.items.push(item);
    }

    /// All steps.
    pub fn items(&self) -> &[MemoryItem] {
        &self.items
    }

    /// The latest step.
    pub fn last(&self) -> Option<&MemoryItem> {
        self.items.last()
    }

    /// Number of steps.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether no step was remembered.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// A question the user answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionAnswer {
    /// The question.
    pub question: String,
    /// The answer.
    pub answer: String,
}

/// A screenshot saved on the blackboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedScreenshot {
    /// PNG data URL.
    pub image_url: String,
    /// The application it shows.
    pub application: String,
    /// Why it was saved.
    pub reason: String,
}

/// Shared memory of a session (UFO's `Blackboard`): user requests, answered
/// questions, trajectories and saved screenshots. Prepended to every Host and
/// App prompt.
#[derive(Debug, Clone, Default)]
pub struct Blackboard {
    /// Requests of the session, in order.
    pub requests: Vec<String>,
    /// Answered questions.
    pub questions: Vec<QuestionAnswer>,
    /// Trajectory items (`HISTORY_KEYS` of each step).
    pub trajectories: Vec<Value>,
    /// Saved screenshots.
    pub screenshots: Vec<SavedScreenshot>,
}

impl Blackboard {
    /// Whether there is nothing to show.
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
            && self.questions.is_empty()
            && self.trajectories.is_empty()
            && self.screenshots.is_empty()
    }

    /// The blackboard as prompt text (`[Blackboard:]` with one section per
    /// kind of entry) and the saved screenshots' URLs.
    pub fn to_prompt(&self) -> (String, Vec<String>) {
        if self.is_empty() {
            return (String::new(), Vec::new());
        }
        use crate::prompter::{render, words};
        let mut s = format!("{}\n", words("blackboard"));
        let mut section = |key: &str, items: Vec<String>| {
            if !items.is_empty() {
                s.push_str(&render(
                    words("blackboard_section"),
                    &[("name", words(key))],
                ));
                s.push('\n');
                for i in items {
                    s.push_str(&i);
                    s.push('\n');
                }
            }
        };
        section("blackboard_requests", self.requests.clone());
        section(
            "blackboard_questions",
            self.questions
                .iter()
                .map(|q| serde_json::to_string(q).unwrap_or_default())
                .collect(),
        );
        section(
            "blackboard_trajectories",
            self.trajectories.iter().map(Value::to_string).collect(),
        );
        section(
            "blackboard_screenshots",
            self.screenshots
                .iter()
                .map(|i| {
                    render(
                        words("blackboard_screenshot"),
                        &[("application", &i.application), ("reason", &i.reason)],
                    )
                })
                .collect(),
        );
        (
            s,
            self.screenshots
                .iter()
                .map(|i| i.image_url.clone())
                .collect(),
        )
    }
}

/// What an AppAgent reported for a sub-task; shown to the HostAgent as
/// `<Earlier Sub-tasks Assigned and Completion Status:>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubtaskRecord {
    /// The sub-task.
    pub subtask: String,
    /// The application it ran in.
    pub application: String,
    /// `FINISH`, `FAIL`, `ERROR`.
    pub status: ufo_core::AppAgentStatus,
    /// The AppAgent's result or comment.
    pub result: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blackboard_prompt_lists_sections() {
        let mut b = Blackboard::default();
        assert!(b.to_prompt().0.is_empty());
        b.requests.push("do x".into());
        b.questions.push(QuestionAnswer {
            question: "q?".into(),
            answer: "a".into(),
        });
        let (t, imgs) = b.to_prompt();
        assert!(
            t.starts_with("[Blackboard:]\n[Requests:]\ndo x\n[Questions:]\n"),
            "{t}"
        );
        assert!(t.contains("q?"), "{t}");
        assert!(imgs.is_empty());
    }
}
