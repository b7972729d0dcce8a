//! Follower mode: plan files replayed one session each. A plan's `actions`
//! run without a model (the replay agent resolves their controls); its
//! `steps` are sub-tasks of the AppAgent; a plan with neither is a request.

use super::interrupt::interrupted;
use super::{RunOptions, Services, Session, SessionReport, SessionStatus, plan_files_of};
use crate::error::SessionError;
use crate::plan::{Plan, PlanAction};
use serde_json::{Value, json};
use std::time::Instant;
use ufo_agent::{AgentKind, StepRecord};
use ufo_core::{Diagnostic, ErrorReport, HostAgentStatus};

/// How many more times a replayed plan looks for its application, a second
/// apart, before the selection fails.
const SELECT_RETRIES: usize = 5;
use super::batch::stem;
use ufo_agent::ReplayAgent;
use ufo_core::StepStatus;

pub(super) async fn run(
    s: &Services,
    opts: &RunOptions,
) -> Result<Vec<SessionReport>, SessionError> {
    let files = plan_files_of(opts, "follower mode replays a plan file")?;
    let mut out = Vec::new();
    for f in &files {
        let plan = Plan::load(f)?;
        let stem = stem(f);
        let segs: Vec<&str> = if files.len() > 1 {
            vec![&opts.task, &stem]
        } else {
            vec![&opts.task]
        };
        let mut session = Session::new(s, &segs)?;
        session.app_role = ufo_agent::BATCH_ROLE;
        out.push(session.run_plan(&plan, opts.app.as_deref()).await);
    }
    Ok(out)
}

impl Session<'_> {
    pub(super) async fn run_plan(&mut self, plan: &Plan, app: Option<&str>) -> SessionReport {
        let outcome = tokio::select! {
            st = self.plan_status(plan, app) => Ok(st),
            sig = interrupted() => Err(sig),
        };
        self.snapshot(Some(0)).await;
        let status = self.unless_interrupted(outcome);
        if plan.close {
            self.close_apps(app.or(plan.app.as_deref())).await;
        }
        self.finish(status).await
    }

    async fn plan_status(&mut self, plan: &Plan, app: Option<&str>) -> SessionStatus {
        let request = plan.request_text();
        let app = app.map(str::to_owned).or_else(|| plan.app.clone());
        if let Some(actions) = &plan.actions {
            self.run_actions(&request, actions).await
        } else if let Some(steps) = &plan.steps {
            self.run_steps(&request, steps, app.as_deref()).await
        } else {
            match app.as_deref() {
                Some(a) => self.run_single_tier(0, &request, a, None).await,
                None => self.run_round(0, &request).await,
            }
        }
    }

    /// Follower with `steps`: each step is a sub-task of the AppAgent.
    async fn run_steps(
        &mut self,
        request: &str,
        steps: &[String],
        app: Option<&str>,
    ) -> SessionStatus {
        let app = match app {
            Some(a) => a.to_owned(),
            None => match self.host_select(request).await {
                Ok(a) => a,
                Err(st) => return st,
            },
        };
        for (i, step) in steps.iter().enumerate() {
            let st = self.run_single_tier(0, request, &app, Some(step)).await;
            if st != SessionStatus::Finish {
                return st;
            }
            if i + 1 < steps.len() && self.max_step_reached() {
                return SessionStatus::Fail;
            }
        }
        SessionStatus::Finish
    }

    /// One HostAgent step to choose the application (follower without `app`).
    async fn host_select(&mut self, request: &str) -> Result<String, SessionStatus> {
        if let Err(e) = self.ensure_host() {
            return Err(self.fail_with(&e));
        }
        self.requests.push(request.to_owned());
        // The host may first start the application (run_shell, then CONTINUE).
        loop {
            let mut h = self
                .host_step(0, request)
                .await
                .ok_or(SessionStatus::Error)?;
            if let Some(command) = h.launch.clone() {
                self.launch(&mut h, &command).await?;
            }
            let (a, status) = (h.assignment.clone(), h.status);
            self.record(h.record).await?;
            match (a, status) {
                (Some(a), _) => return Ok(a.application),
                (None, HostAgentStatus::Continue) if !self.max_step_reached() => continue,
                _ => return Err(SessionStatus::Fail),
            }
        }
    }

    /// Follower with `actions`: replays them without a model.
    pub(super) async fn run_actions(
        &mut self,
        request: &str,
        actions: &[PlanAction],
    ) -> SessionStatus {
        self.requests.push(request.to_owned());
        let (mut app, mut window) = (String::new(), String::new());
        for a in actions {
            if self.max_step_reached() {
                return SessionStatus::Fail;
            }
            self.step += 1;
            let started = Instant::now();
            let kind = a.agent;
            let agent_name = match kind {
                AgentKind::HostAgent => "HostAgent".to_owned(),
                // Plans name only HostAgent and AppAgent steps.
                AgentKind::AppAgent | AgentKind::ThirdPartyAgent | AgentKind::OperatorAgent => {
                    ufo_agent::agent_name(self.app_role, &app, &window)
                }
            };
            let mut rec = StepRecord::new(kind, &agent_name, self.step);
            rec.request = request.to_owned();
            rec.application = app.clone();
            rec.thought = "replaying the plan".into();
            let outcome: Result<ufo_core::ActionResult, ErrorReport> =
                if kind == AgentKind::HostAgent {
                    let name = a
                        .parameters
                        .get("app_name")
                        .or_else(|| a.parameters.get("name"))
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    // An application still starting (LibreOffice on a busy
                    // machine) may not answer yet: look again for a few seconds.
                    let mut selected = self.select_app(&name).await;
                    for _ in 0..SELECT_RETRIES {
                        if selected.is_ok() {
                            break;
                        }
                        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                        selected = self.select_app(&name).await;
                    }
                    match selected {
                        Ok(title) => {
                            app = name.clone();
                            window.clone_from(&title);
                            rec.application = name;
                            Ok(ufo_core::ActionResult::success(json!({"window": title})))
                        }
                        Err(e) => Err(e),
                    }
                } else {
                    ReplayAgent::new(
                        self.s.dispatcher.clone(),
                        self.s.config.system.agent.clone(),
                    )
                    .act(&a.action, &a.parameters, &mut rec)
                    .await
                };
            let (result, ok) = match outcome {
                Ok(r) => {
                    let ok = r.is_success();
                    (r, ok)
                }
                Err(e) => (ufo_core::ActionResult::failure(e), false),
            };
            let status = if ok {
                StepStatus::Continue
            } else {
                StepStatus::Fail
            };
            rec.actions.push(ufo_agent::step::ActionLog::new(
                &a.action,
                &a.parameters,
                None,
                status,
                result,
            ));
            rec.status = status;
            rec.total_time = started.elapsed().as_secs_f64();
            if let Err(st) = self.record(rec).await {
                return st;
            }
            if !ok {
                self.error = Some(
                    SessionError::PlanActionFailed {
                        action: a.action.clone(),
                    }
                    .report(),
                );
                return SessionStatus::Fail;
            }
        }
        SessionStatus::Finish
    }
}
