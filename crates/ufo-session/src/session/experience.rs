//! The session's knowledge: the retriever its agents use (`RAG_*`) and, at
//! the end, the experience saved from it (`SAVE_EXPERIENCE`).

use super::Session;
use crate::config::knowledge::SaveExperience;
use std::sync::Arc;
use ufo_agent::evaluation::EvaluationResult;
use ufo_agent::response::Verdict;
use ufo_core::Diagnostic;
use ufo_knowledge::{KnowledgeBase, Retrieve, Source};
use ufo_llm::UsageTotals;

impl Session<'_> {
    /// The knowledge base under the knowledge folder, opened once per
    /// session; an index found corrupted is rebuilt and the user told so.
    pub(super) fn knowledge_base(&mut self) -> Option<Arc<KnowledgeBase>> {
        if let Some(kb) = &self.knowledge {
            return kb.clone();
        }
        let settings = self.s.config.system.knowledge.settings(&self.s.log_root);
        let kb = match KnowledgeBase::open(settings) {
            Ok(kb) => {
                for w in kb.warnings() {
                    self.s.io.show(&format!("warning: {w}"));
                }
                Some(Arc::new(kb))
            }
            Err(e) => {
                self.s.io.show(&format!(
                    "warning: knowledge is off for this session: {}",
                    e.report().rendered()
                ));
                None
            }
        };
        self.knowledge = Some(kb.clone());
        kb
    }

    /// The retriever for the agents, when a `RAG_*` key asks for one.
    pub(super) fn retriever(&mut self) -> Option<Arc<dyn Retrieve>> {
        if !self
            .s
            .config
            .system
            .knowledge
            .settings(&self.s.log_root)
            .any()
        {
            return None;
        }
        self.knowledge_base().map(|kb| kb as Arc<dyn Retrieve>)
    }

    /// `SAVE_EXPERIENCE`: summarises the session's AppAgent work per
    /// sub-task and application into the experience store.
    pub(super) async fn save_experience(&mut self, evaluation: Option<&EvaluationResult>) {
        let cfg = &self.s.config.system.knowledge;
        if self.rec.steps().is_empty() {
            return;
        }
        let save = match cfg.save_experience {
            SaveExperience::AlwaysNot => false,
            SaveExperience::Always => true,
            SaveExperience::Auto => evaluation.is_some_and(|e| e.response.complete == Verdict::Yes),
            SaveExperience::Ask => {
                self.s
                    .io
                    .confirm("Save this session as experience for similar requests?")
                    .await
            }
        };
        if !save {
            return;
        }
        let template = match crate::knowledge::template(
            cfg.experience_prompt.as_deref(),
            crate::knowledge::EXPERIENCE_SUMMARY,
            "experience/experience_summary.yaml",
        ) {
            Ok(t) => t,
            Err(e) => return self.s.io.show(&format!("experience not saved: {e}")),
        };
        let model = match self.app_model() {
            Ok(m) => m,
            Err(e) => return self.s.io.show(&format!("experience not saved: {e}")),
        };
        let Some(kb) = self.knowledge_base() else {
            return;
        };
        let mut usage = UsageTotals::default();
        let records = crate::knowledge::experience_records(
            &model,
            &template,
            self.rec.dir(),
            self.s.config.system.agent.visual_mode,
            self.s.config.system.agent.json_parsing_retry,
            &mut usage,
        )
        .await;
        self.rec.add_usage("ExperienceSummary", &usage);
        let outcome = match records {
            Ok(r) if r.is_empty() => Ok(0),
            Ok(r) => {
                let n = r.len();
                kb.add(Source::Experience, r).await.map(|_| n)
            }
            Err(e) => Err(e),
        };
        match outcome {
            Ok(n) => self.s.io.show(&format!(
                "Saved {n} experience(s) to {}.",
                kb.store(Source::Experience).dir().display()
            )),
            Err(e) => self
                .s
                .io
                .show(&format!("experience not saved: {}", e.report().rendered())),
        }
    }
}
