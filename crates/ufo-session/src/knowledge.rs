//! Learning: experiences summarised from a finished session's `response.log`
//! (UFO's ExperiencePrompter) and demonstrations summarised from a recorded
//! step list (UFO's DemonstrationPrompter), stored in the knowledge base.
//!
//! The templates are `prompts/experience/experience_summary.yaml` and
//! `prompts/demonstration/demonstration_summary.yaml` (keys `system`,
//! `system_nonvisual`, `user`, `retry`); `EXPERIENCE_PROMPT` and
//! `DEMONSTRATION_PROMPT` name others.

use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use ufo_agent::prompter::{Template, render};
use ufo_knowledge::records::{
    TrajectoryStep, new_id, partition_response_log, record_of_summary, summary_record,
};
use ufo_knowledge::{KnowledgeError, Record};
use ufo_llm::{ChatModel, ChatRequest, ExtractOptions, Part, UsageTotals, extract_json};

/// The built-in experience template.
pub const EXPERIENCE_SUMMARY: &str =
    include_str!("../../../prompts/experience/experience_summary.yaml");
/// The built-in demonstration template.
pub const DEMONSTRATION_SUMMARY: &str =
    include_str!("../../../prompts/demonstration/demonstration_summary.yaml");

/// A template from `path`, or the built-in `builtin`.
pub fn template(
    path: Option<&Path>,
    builtin: &str,
    name: &str,
) -> Result<Template, KnowledgeError> {
    let t = match path {
        Some(p) => Template::load(p),
        None => Template::parse(format!("built-in:{name}"), builtin),
    };
    t.map_err(|e| KnowledgeError::Summary {
        message: e.to_string(),
        source: Some(e.into()),
    })
}

fn summary_err(message: impl Into<String>) -> KnowledgeError {
    KnowledgeError::Summary {
        message: message.into(),
        source: None,
    }
}

/// Asks `model` with the template's system prompt (`system`, or
/// `system_nonvisual` when not `visual`) and `user` filled from `vars`,
/// followed by `images` (a visual summary's screenshots), until the reply is
/// a JSON object (at most `retries` re-asks).
pub async fn summarise(
    model: &Arc<dyn ChatModel>,
    t: &Template,
    visual: bool,
    vars: &[(&str, &str)],
    images: Vec<Part>,
    retries: u32,
    usage: &mut UsageTotals,
) -> Result<Value, KnowledgeError> {
    let key = match visual {
        true => "system",
        false => "system_nonvisual",
    };
    // Rendered like every template: its `{{`/`}}` are the JSON braces the
    // model is shown.
    let system = render(
        t.opt(key)
            .or(t.opt("system"))
            .ok_or_else(|| summary_err(format!("{}: no `system`", t.source_name)))?,
        vars,
    );
    let user = render(
        t.opt("user")
            .ok_or_else(|| summary_err(format!("{}: no `user`", t.source_name)))?,
        vars,
    );
    let mut parts = vec![Part::text(user)];
    parts.extend(images);
    let mut last = String::new();
    for _ in 0..=retries {
        let reply = model
            .chat(ChatRequest::agent(system.clone(), parts.clone()))
            .await
            .map_err(|e| KnowledgeError::Summary {
                message: e.to_string(),
                source: Some(e.into()),
            })?;
        usage.record(&reply);
        match extract_json(&reply.text, ExtractOptions::lenient()) {
            Ok(x) if x.value.is_object() => return Ok(x.value),
            Ok(_) => last = "the reply is not a JSON object".into(),
            Err(e) => last = e.to_string(),
        }
        let retry = t.opt("retry").unwrap_or("{error}");
        parts.push(Part::text(render(retry, &[("error", &last)])));
    }
    Err(summary_err(format!("no usable summary: {last}")))
}

/// The experience records of a finished session: `response.log` in
/// `log_dir` split per sub-task and application, each part summarised. A
/// `visual` summariser (UFO's, when `APP_AGENT.VISUAL_MODE`) gets the
/// template's visual prompt and each step's screenshot after the steps.
pub async fn experience_records(
    model: &Arc<dyn ChatModel>,
    t: &Template,
    log_dir: &Path,
    visual: bool,
    retries: u32,
    usage: &mut UsageTotals,
) -> Result<Vec<Record>, KnowledgeError> {
    let p = log_dir.join("response.log");
    let text = std::fs::read_to_string(&p).map_err(|e| KnowledgeError::Io {
        path: p.display().to_string(),
        source: e,
    })?;
    let mut out = Vec::new();
    for (i, part) in partition_response_log(&text).into_iter().enumerate() {
        let trajectory = part
            .steps
            .iter()
            .filter_map(|s| serde_json::to_string(s).ok())
            .collect::<Vec<_>>()
            .join("\n");
        let images = match visual {
            true => step_screenshots(log_dir, &part.steps),
            false => Vec::new(),
        };
        let reply = summarise(
            model,
            t,
            visual,
            &[
                ("user_request", &part.request),
                ("subtask", &part.subtask),
                ("application", &part.application),
                ("trajectory", &trajectory),
            ],
            images,
            retries,
            usage,
        )
        .await?;
        let tips = reply
            .get("Tips")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let summary = summary_record(
            &reply,
            tips,
            &part.request,
            &part.subtask,
            std::slice::from_ref(&part.application),
        );
        out.push(record_of_summary(&new_id("exp", i), &summary));
    }
    Ok(out)
}

/// Each step's screenshot that is in `log_dir`, introduced by its step:
/// `Step N:` then the image (a step without one is left out).
fn step_screenshots(log_dir: &Path, steps: &[TrajectoryStep]) -> Vec<Part> {
    let mut parts = Vec::new();
    for s in steps {
        let Some(bytes) = s
            .screenshot
            .as_ref()
            .and_then(|f| std::fs::read(log_dir.join(f)).ok())
        else {
            continue;
        };
        parts.push(Part::text(format!("Step {}:", s.step)));
        parts.push(Part::image(ufo_desktop::encode::data_url(
            "image/png",
            &bytes,
        )));
    }
    parts
}

/// A demonstration file: a `ufo record` step list (a follower plan with
/// `request`, `app` and `actions`, each with a `description`), or UFO's
/// demonstration YAML (taken as it is, no summary needed).
#[derive(Debug, Clone)]
pub enum Demonstration {
    /// Steps to summarise.
    Steps {
        /// The request shown.
        request: String,
        /// The application.
        app: String,
        /// One line per step.
        steps: Vec<String>,
    },
    /// Ready records in UFO's shape.
    Ufo(Vec<Value>),
}

/// Reads a demonstration file (`.json` step list, `.yaml`/`.yml` UFO's).
pub fn read_demonstration(path: &Path) -> Result<Demonstration, KnowledgeError> {
    let name = path.to_string_lossy().to_lowercase();
    if name.ends_with(".yaml") || name.ends_with(".yml") {
        return ufo_knowledge::records::read_ufo_yaml(path).map(Demonstration::Ufo);
    }
    let fmt = |m: &str| KnowledgeError::Format {
        path: path.display().to_string(),
        message: m.to_owned(),
        source: None,
    };
    let text = std::fs::read_to_string(path).map_err(|e| KnowledgeError::Io {
        path: path.display().to_string(),
        source: e,
    })?;
    let plan = crate::plan::Plan::parse(&text).map_err(|e| fmt(&e))?;
    let request = plan.request_text();
    let app = plan.app.clone().unwrap_or_default();
    let actions = plan.actions.unwrap_or_default();
    if request.is_empty() || app.is_empty() || actions.is_empty() {
        return Err(fmt(
            "a demonstration needs `request`, `app` and `actions` (as `ufo record` writes them)",
        ));
    }
    let steps = actions
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let d = a.description.clone().unwrap_or_else(|| {
                format!("{}({})", a.action, Value::Object(a.parameters.clone()))
            });
            format!("{}. {d}", i + 1)
        })
        .collect();
    Ok(Demonstration::Steps {
        request,
        app,
        steps,
    })
}

/// The demonstration records of `demo` (summarised by `model` when it is a
/// step list).
pub async fn demonstration_records(
    model: Option<&Arc<dyn ChatModel>>,
    t: &Template,
    demo: Demonstration,
    retries: u32,
    usage: &mut UsageTotals,
) -> Result<Vec<Record>, KnowledgeError> {
    match demo {
        Demonstration::Ufo(list) => Ok(list
            .iter()
            .enumerate()
            .map(|(i, s)| record_of_summary(&new_id("demo", i), s))
            .collect()),
        Demonstration::Steps {
            request,
            app,
            steps,
        } => {
            let model = model.ok_or_else(|| {
                summary_err(
                    "a recorded demonstration is summarised by the APP_AGENT model: give --config",
                )
            })?;
            let reply = summarise(
                model,
                t,
                false,
                &[
                    ("user_request", &request),
                    ("application", &app),
                    ("steps", &steps.join("\n")),
                ],
                Vec::new(),
                retries,
                usage,
            )
            .await?;
            let tips = reply
                .get("Tips")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let summary =
                summary_record(&reply, tips, &request, &request, std::slice::from_ref(&app));
            Ok(vec![record_of_summary(&new_id("demo", 0), &summary)])
        }
    }
}
