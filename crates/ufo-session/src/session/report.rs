//! The end of a session: evaluation, the summary line, `output.md`.

use super::{Session, SessionReport, SessionStatus, model_for, recorder};
use std::sync::Arc;
use ufo_agent::AgentError;
use ufo_agent::evaluation::{EvaluationLevel, EvaluationResult, Evidence};
use ufo_core::Diagnostic;
use ufo_llm::ChatModel;

impl Session<'_> {
    pub(super) async fn finish(&mut self, status: SessionStatus) -> SessionReport {
        self.snapshot(None).await;
        // Over budget, nothing more is spent: no evaluation, no experience.
        let evaluation = if self.s.config.system.eva_session
            && !matches!(status, SessionStatus::Error | SessionStatus::Budget)
            && !self.rec.steps().is_empty()
        {
            self.evaluate(None).await
        } else {
            None
        };
        if status != SessionStatus::Budget {
            self.save_experience(evaluation.as_ref()).await;
        }
        let usage = self.rec.usage();
        self.s.io.show(&format!(
            "Session {} ended: {} after {} steps. {} ({} tokens in {} model calls).\nPer agent: {}.",
            self.task,
            status.as_str(),
            self.step,
            crate::console::cost_line("Total cost", &usage, 4),
            usage.usage.total_tokens,
            usage.calls,
            crate::console::agents_line(self.rec.usage_by_agent()),
        ));
        let markdown = if self.s.config.system.log_to_markdown {
            let end = recorder::Ending {
                task: &self.task,
                requests: &self.requests,
                status,
                result: &self.result,
                error: self.error.as_ref(),
                subtasks: &self.subtasks,
                evaluation: evaluation.as_ref(),
            };
            match self.rec.write_output(&end) {
                Ok(p) => Some(p),
                Err(e) => {
                    self.s.io.show(&e.report().rendered());
                    None
                }
            }
        } else {
            None
        };
        SessionReport {
            task: self.task.clone(),
            log_dir: self.rec.dir().to_path_buf(),
            status,
            requests: self.requests.clone(),
            result: self.result.clone(),
            steps: self.step,
            subtasks: self.subtasks.clone(),
            usage: self.rec.usage(),
            usage_by_agent: self.rec.usage_by_agent().clone(),
            evaluation,
            error: self.error.clone(),
            markdown,
            skipped: false,
        }
    }

    /// Evaluates the session (`None`) or one round. With
    /// `EVA_ALL_SCREENSHOTS` the model sees every step's screenshot; if that
    /// fails, it is asked again with the first and the final one.
    pub(super) async fn evaluate(&mut self, round: Option<usize>) -> Option<EvaluationResult> {
        let cfg = self
            .s
            .config
            .evaluation
            .as_ref()
            .or(self.s.config.app.as_ref())?;
        let model = match model_for(&self.s.config, "EVALUATION_AGENT", Some(cfg)) {
            Ok(m) => m,
            Err(e) => {
                self.s.io.show(&format!("evaluation skipped: {e}"));
                return None;
            }
        };
        let request = match round {
            Some(r) => self.requests.get(r).cloned().unwrap_or_default(),
            None => self.requests.join("\n"),
        };
        // EVALUATION_AGENT.VISUAL_MODE: false sends no screenshots.
        let evidence = match (
            cfg.visual_mode.unwrap_or(true),
            self.s.config.system.eva_all_screenshots,
        ) {
            (false, _) => Evidence::Nonvisual,
            (true, true) => Evidence::EveryStep,
            (true, false) => Evidence::FirstAndLast,
        };
        let mut outcome = self.ask_evaluation(&model, &request, round, evidence).await;
        if evidence == Evidence::EveryStep && outcome.is_err() {
            outcome = self
                .ask_evaluation(&model, &request, round, Evidence::FirstAndLast)
                .await;
        }
        let level = match round {
            Some(_) => EvaluationLevel::Round,
            None => EvaluationLevel::Session,
        };
        match outcome {
            Ok(ev) => {
                self.rec.add_usage("EvaluationAgent", &ev.usage);
                let v = EvaluationResult {
                    response: ev.response,
                    level,
                    round,
                    request,
                    kind: "evaluation_result".into(),
                    cost: ev.usage.cost,
                };
                if let Err(e) = self.rec.write_evaluation(&v) {
                    self.s.io.show(&e.report().rendered());
                }
                let what = match round {
                    Some(r) => format!("Round {} evaluation", r + 1),
                    None => "Evaluation".to_owned(),
                };
                self.s.io.show(&format!(
                    "{what}: complete = {} — {}",
                    v.response.complete, v.response.reason
                ));
                Some(v)
            }
            Err(e) => {
                self.s.io.show(&format!("evaluation failed: {e}"));
                None
            }
        }
    }

    /// One evaluation of `round` (or the session) with the screenshots
    /// `evidence` says.
    async fn ask_evaluation(
        &self,
        model: &Arc<dyn ChatModel>,
        request: &str,
        round: Option<usize>,
        evidence: Evidence,
    ) -> Result<ufo_agent::evaluation::Evaluation, AgentError> {
        let all = evidence == Evidence::EveryStep;
        let (traj, shots) = self.rec.evaluation_input(round, all);
        let images: Vec<String> = shots
            .iter()
            .map(|b| ufo_desktop::encode::data_url("image/png", b))
            .collect();
        ufo_agent::evaluation::evaluate(
            model,
            &self.s.prompts,
            request,
            &traj,
            &images,
            evidence,
            self.s.config.system.agent.json_parsing_retry,
        )
        .await
    }
}
