//! The end of a session: evaluation, the summary line, `output.md`.

use super::*;

impl Session<'_> {
    pub(super) async fn finish(&mut self, status: SessionStatus) -> SessionReport {
        let evaluation = if self.s.config.system.eva_session
            && status != SessionStatus::Error
            && !self.steps.is_empty()
        {
            self.evaluate().await
        } else {
            None
        };
        self.s.io.show(&format!(
            "Session {} ended: {} after {} steps. Total cost: ${:.4} ({} tokens in {} model calls).",
            self.task,
            status.as_str(),
            self.step,
            self.usage.cost,
            self.usage.usage.total_tokens,
            self.usage.calls
        ));
        let markdown = if self.s.config.system.log_to_markdown {
            let md = self.markdown(status, evaluation.as_ref());
            self.logs.write_file("output.md", &md).ok()
        } else {
            None
        };
        SessionReport {
            task: self.task.clone(),
            log_dir: self.logs.dir().to_path_buf(),
            status,
            requests: self.requests.clone(),
            result: self.result.clone(),
            steps: self.step,
            subtasks: self.subtasks.clone(),
            usage: self.usage,
            evaluation,
            error: self.error.clone(),
            markdown,
            skipped: false,
        }
    }

    pub(super) async fn evaluate(&mut self) -> Option<Value> {
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
        let shots: Vec<&String> = self
            .steps
            .iter()
            .filter_map(|s| s.screenshots.get("clean"))
            .collect();
        let mut images = Vec::new();
        for name in [shots.first(), shots.last()].into_iter().flatten() {
            if let Ok(b) = std::fs::read(self.logs.dir().join(name))
                && !images.iter().any(|u: &String| u.len() == b.len() * 4 / 3)
            {
                images.push(ufo_desktop::encode::data_url("image/png", &b));
            }
        }
        images.dedup();
        let traj: Vec<Value> = self
            .steps
            .iter()
            .map(|s| json!({"Step": s.step, "Agent": s.agent, "Subtask": s.subtask, "Application": s.application, "Observation": s.observation, "Thought": s.thought, "Plan": s.plan, "Comment": s.comment, "Action": s.actions, "Status": s.status}))
            .collect();
        let request = self.requests.join("\n");
        match ufo_agent::evaluation::evaluate(
            &model,
            &self.s.prompts,
            &request,
            &traj,
            &images,
            self.s.config.system.agent.json_parsing_retry,
        )
        .await
        {
            Ok(ev) => {
                self.usage.merge(&ev.usage);
                let mut v = serde_json::to_value(&ev.response).unwrap_or_default();
                if let Value::Object(m) = &mut v {
                    m.insert("level".into(), json!("session"));
                    m.insert("request".into(), json!(request));
                    m.insert("type".into(), json!("evaluation_result"));
                    m.insert("cost".into(), json!(ev.usage.cost));
                }
                let _ = self.logs.write_evaluation(&v);
                self.s.io.show(&format!(
                    "Evaluation: complete = {} — {}",
                    ev.response.complete, ev.response.reason
                ));
                Some(v)
            }
            Err(e) => {
                self.s.io.show(&format!("evaluation failed: {e}"));
                None
            }
        }
    }

    pub(super) fn markdown(&self, status: SessionStatus, evaluation: Option<&Value>) -> String {
        let mut md = format!("# UFO session `{}`\n\n", self.task);
        md.push_str("## Summary\n\n");
        for r in &self.requests {
            md.push_str(&format!("- **Request:** {r}\n"));
        }
        let host = self.steps.iter().filter(|s| s.agent == "HostAgent").count();
        md.push_str(&format!(
            "- **Status:** {}\n- **Steps:** {} ({} HostAgent, {} AppAgent)\n- **Result:** {}\n- **Cost:** ${:.4} ({} tokens, {} model calls)\n\n",
            status.as_str(),
            self.steps.len(),
            host,
            self.steps.len() - host,
            if self.result.is_empty() { "-" } else { &self.result },
            self.usage.cost,
            self.usage.usage.total_tokens,
            self.usage.calls
        ));
        if let Some(e) = &self.error {
            md.push_str(&format!("- **Error:** `{}` {}\n", e.code, e.message));
            if let Some(h) = &e.help {
                md.push_str(&format!("- **What to do:** {h}\n"));
            }
            md.push('\n');
        }
        if !self.subtasks.is_empty() {
            md.push_str("### Sub-tasks\n\n| sub-task | application | status | result |\n|---|---|---|---|\n");
            for s in &self.subtasks {
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
                    e.get("complete").and_then(Value::as_str).unwrap_or("-"),
                    e.get("reason").and_then(Value::as_str).unwrap_or("-")
                ));
                for s in e
                    .get("sub_scores")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    md.push_str(&format!(
                        "  - {}: {}\n",
                        s.get("name").and_then(Value::as_str).unwrap_or(""),
                        s.get("evaluation").and_then(Value::as_str).unwrap_or("")
                    ));
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
                "- **Time:** {:.2}s {} · **Cost:** ${:.4}\n\n",
                s.total_time, s.execution_times, s.cost
            ));
            for key in ["annotated", "selected_controls"] {
                if let Some(f) = s.screenshots.get(key) {
                    md.push_str(&format!("![{key}]({f})\n"));
                }
            }
            md.push('\n');
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

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}
