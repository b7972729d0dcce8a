//! The EvaluationAgent: judges a finished session from its trajectory and
//! screenshots.

use crate::error::AgentError;
use crate::llm::{AskLog, ask};
use crate::prompter::{render, tools_to_llm_prompt};
use crate::prompts::PromptSet;
use crate::response::EvaluationResponse;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;
use ufo_desktop::tools::{APP_UI_EXECUTOR, catalog_for};
use ufo_llm::{ChatModel, ChatRequest, Part, UsageTotals};

/// The verdict and what it cost.
#[derive(Debug)]
pub struct Evaluation {
    /// The parsed verdict.
    pub response: EvaluationResponse,
    /// Usage and cost.
    pub usage: UsageTotals,
}

/// What was evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EvaluationLevel {
    /// The whole session.
    Session,
    /// One round of a normal session.
    Round,
}

/// An `evaluation.log` line (UFO's `evaluation_result`): the verdict, what it
/// judged and what it cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvaluationResult {
    /// The verdict.
    #[serde(flatten)]
    pub response: EvaluationResponse,
    /// Session or round.
    pub level: EvaluationLevel,
    /// The round, for a round's evaluation (0-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<usize>,
    /// The request judged.
    pub request: String,
    /// Always `evaluation_result`.
    #[serde(rename = "type")]
    pub kind: String,
    /// What the evaluation cost.
    pub cost: f64,
}

/// Which screenshots an evaluation is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// None (`EVALUATION_AGENT.VISUAL_MODE: false`): the template's
    /// `system_nonvisual`, no images.
    Nonvisual,
    /// The first and the final screenshot (`screenshots_head_tail`).
    FirstAndLast,
    /// Every step's screenshot (`EVA_ALL_SCREENSHOTS`, `screenshots_all`).
    EveryStep,
}

/// Asks the evaluation model about `request` given the `trajectory` (one
/// JSON object per step) and screenshot data URLs, introduced as `evidence`
/// says (with [`Evidence::Nonvisual`] the screenshots are not sent).
pub async fn evaluate(
    model: &Arc<dyn ChatModel>,
    prompts: &PromptSet,
    request: &str,
    trajectory: &[Value],
    screenshots: &[String],
    evidence: Evidence,
    retries: u32,
) -> Result<Evaluation, AgentError> {
    let t = &prompts.evaluation;
    let apis = tools_to_llm_prompt(&catalog_for(APP_UI_EXECUTOR), false);
    let system = match evidence {
        Evidence::Nonvisual => t.text_or(
            crate::prompts::EVALUATION,
            "system_nonvisual",
            &[("apis", &apis)],
        ),
        _ => render(t.get("system")?, &[("apis", &apis)]),
    };
    let (screenshots, heading) = match evidence {
        Evidence::Nonvisual => (&[][..], None),
        Evidence::FirstAndLast => (screenshots, t.opt("screenshots_head_tail")),
        Evidence::EveryStep => (screenshots, t.opt("screenshots_all")),
    };
    let traj = trajectory
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    let user = render(
        t.get("user")?,
        &[("request", request), ("trajectory", &traj)],
    );
    let mut parts = Vec::new();
    if !screenshots.is_empty() {
        if let Some(h) = heading {
            parts.push(Part::text(h));
        }
        for s in screenshots {
            parts.push(Part::image(s.clone()));
        }
    }
    parts.push(Part::text(user));
    let mut log = AskLog::default();
    let retry = t.opt("retry").unwrap_or("{error}").to_owned();
    let asked = ask::<EvaluationResponse, _, _>(
        model.as_ref(),
        ChatRequest::agent(system, parts),
        retries,
        &retry,
        &mut log,
        // The verdicts are typed: an unknown one is re-asked like any
        // malformed reply.
        |r, _| Ok(r),
    )
    .await?;
    Ok(Evaluation {
        response: asked.value,
        usage: log.usage,
    })
}
