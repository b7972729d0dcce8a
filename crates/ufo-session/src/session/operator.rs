//! The operator modes: `operator` (UFO's `OpenAIOperatorSession`: the
//! operator alone, on the desktop or on `--app`'s window) and
//! `normal_operator` and `batch_normal_operator` (normal and batch mode, with
//! the operator among the HostAgent's targets beside the windows and
//! third-party agents).

use super::{Mode, RunOptions, Services, Session, SessionReport};
use crate::error::SessionError;
use std::sync::Arc;
use ufo_agent::SubAgent;
use ufo_agent::operator::{OPERATOR_AGENT, OperatorAgent, operator_template};
use ufo_core::Diagnostic;
use ufo_llm::computer::ComputerModel;

/// How the operator is set up for a session.
#[derive(Debug, Clone)]
pub(super) struct OperatorSetup {
    /// `operator --app APP`: the window it works on (else the desktop).
    pub(super) window_app: Option<String>,
    /// Its prompt template, read once per session.
    template: ufo_agent::prompter::Template,
}

impl OperatorSetup {
    /// `(name, introduction)` for the HostAgent's list.
    pub(super) fn target(&self) -> (String, String) {
        let intro = self
            .template
            .text_or(ufo_agent::operator::OPERATOR, "introduction", &[]);
        (OPERATOR_AGENT.to_owned(), intro)
    }
}

/// The operator of an operator mode, working on `window_app` (else the
/// desktop); an error when the config has no `OPERATOR` model.
pub(super) fn setup(
    s: &Services,
    window_app: Option<String>,
) -> Result<OperatorSetup, SessionError> {
    if s.config.operator.is_none() {
        return Err(SessionError::MissingKey {
            key: "OPERATOR".into(),
            message: "the operator modes need a computer-use model: OPERATOR: {API_TYPE: operator | claude | ollama, API_MODEL: ..., API_KEY: ...}".into(),
        });
    }
    let template = operator_template(None).map_err(|e| SessionError::BadKey {
        key: "OPERATOR".into(),
        message: e.report().message,
    })?;
    Ok(OperatorSetup {
        window_app,
        template,
    })
}

pub(super) async fn run(
    s: &Services,
    opts: &RunOptions,
) -> Result<Vec<SessionReport>, SessionError> {
    let (window_app, single) = match opts.mode {
        Mode::Operator => (opts.app.clone(), true),
        _ => (None, false),
    };
    let setup = setup(s, window_app)?;
    let mut session = Session::new(s, &[&opts.task])?;
    session.operator = Some(setup);
    let app = single.then_some(OPERATOR_AGENT);
    Ok(vec![session.run_normal(opts.request.clone(), app).await])
}

impl Session<'_> {
    /// Whether `application` names the operator of an operator mode.
    pub(super) fn is_operator(&self, application: &str) -> bool {
        self.operator.is_some() && application == OPERATOR_AGENT
    }

    /// The operator agent, on the desktop unless `operator --app` gave a window.
    pub(super) fn operator_agent(
        &self,
        settings: ufo_agent::AgentSettings,
    ) -> Result<SubAgent, SessionError> {
        let cfg = self
            .s
            .config
            .operator
            .as_ref()
            .ok_or_else(|| SessionError::MissingKey {
                key: "OPERATOR".into(),
                message: "the operator needs a computer-use model".into(),
            })?;
        let setup = self
            .operator
            .as_ref()
            .ok_or_else(|| SessionError::MissingKey {
                key: "OPERATOR".into(),
                message: "the operator modes set it up".into(),
            })?;
        let template = setup.template.clone();
        let text = |k: &str| template.text_or(ufo_agent::operator::OPERATOR, k, &[]);
        let model = ComputerModel::new(cfg, &text("system"), &text("followup")).map_err(|e| {
            SessionError::Model {
                section: "OPERATOR".into(),
                help: e.help(),
                source: e.into(),
            }
        })?;
        let desktop = setup.window_app.is_none();
        Ok(SubAgent::Operator(OperatorAgent::new(
            Arc::new(model),
            self.s.dispatcher.clone(),
            settings,
            template,
            desktop,
        )))
    }
}
