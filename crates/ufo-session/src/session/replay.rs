//! Follower mode with `actions`: replaying a plan's tool calls without a model,
//! resolving controls by name and type at run time.

use super::*;

impl Session<'_> {
    /// Follower with `actions`: replays them without a model.
    pub(super) async fn run_actions(
        &mut self,
        request: &str,
        actions: &[PlanAction],
    ) -> SessionStatus {
        self.requests.push(request.to_owned());
        let mut app = String::new();
        for a in actions {
            if self.max_step_reached() {
                return SessionStatus::Fail;
            }
            self.step += 1;
            let started = Instant::now();
            let agent_name = if a.agent.eq_ignore_ascii_case("HostAgent") {
                "HostAgent".to_owned()
            } else {
                format!("AppAgent/{app}")
            };
            let mut rec = StepRecord::new(&a.agent, &agent_name, self.step);
            rec.request = request.to_owned();
            rec.application = app.clone();
            rec.thought = "replaying the plan".into();
            let outcome: Result<ufo_core::ActionResult, ErrorReport> =
                if a.agent.eq_ignore_ascii_case("HostAgent") {
                    let name = a
                        .parameters
                        .get("app_name")
                        .or_else(|| a.parameters.get("name"))
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    match self.select_app(&name).await {
                        Ok(title) => {
                            app = name.clone();
                            rec.application = name;
                            Ok(ufo_core::ActionResult::success(json!({"window": title})))
                        }
                        Err(e) => Err(e),
                    }
                } else {
                    self.replay_app_action(a, &mut rec).await
                };
            let (result, ok) = match outcome {
                Ok(r) => {
                    let ok = r.is_success();
                    (r, ok)
                }
                Err(e) => (ufo_core::ActionResult::failure(e), false),
            };
            let args = Value::Object(a.parameters.clone());
            let s = ufo_agent::response::action_string(&a.action, &a.parameters);
            rec.actions.push(ufo_agent::step::ActionLog {
                function: a.action.clone(),
                arguments: args,
                action_representation: ufo_agent::step::action_representation(&s, None, &result),
                action_string: s,
                target: None,
                status: if ok { "CONTINUE".into() } else { "FAIL".into() },
                result,
            });
            rec.status = if ok { "CONTINUE".into() } else { "FAIL".into() };
            rec.total_time = started.elapsed().as_secs_f64();
            if let Err(st) = self.record(rec).await {
                return st;
            }
            if !ok {
                self.error = Some(
                    ErrorReport::new(
                        "ufo::session::plan_action_failed",
                        format!("plan action {:?} failed", a.action),
                    )
                    .with_help("see the step's error in response.log; fix the plan or the application's state"),
                );
                return SessionStatus::Fail;
            }
        }
        SessionStatus::Finish
    }

    /// Observes the selected window, resolves the control named by the
    /// action's parameters, executes the tool.
    pub(super) async fn replay_app_action(
        &mut self,
        a: &PlanAction,
        rec: &mut StepRecord,
    ) -> Result<ufo_core::ActionResult, ErrorReport> {
        let seen = ufo_agent::observe_window(
            self.s.dispatcher.as_ref(),
            self.s.config.system.agent.save_ui_tree,
        )
        .await
        .map_err(|e| e.report())?;
        let (controls, shot) = (seen.controls, seen.screenshot);
        rec.ui_tree = seen.ui_tree;
        rec.control_count = controls.len();
        let mut params = a.parameters.clone();
        let label = params.remove("label");
        let ctype = params.remove("control_type");
        let name = params.get("name").cloned().or(label);
        let needs_control = !params.contains_key("id") && (name.is_some() || ctype.is_some());
        let mut target = None;
        if needs_control {
            let n = name.as_ref().and_then(Value::as_str);
            let t = ctype.as_ref().and_then(Value::as_str);
            let c = controls
                .iter()
                .find(|c| {
                    n.is_none_or(|n| names_match(n, &c.name))
                        && t.is_none_or(|t| {
                            t.split('|')
                                .any(|t| c.control_type.as_str().eq_ignore_ascii_case(t.trim()))
                        })
                })
                .ok_or_else(|| {
                    ErrorReport::new(
                        "ufo::session::plan_control_not_found",
                        format!(
                            "no control named {:?} of type {:?} in the window ({} controls)",
                            n.unwrap_or(""),
                            t.unwrap_or("any"),
                            controls.len()
                        ),
                    )
                })?;
            params.insert("id".into(), Value::String(c.id.to_string()));
            params.insert("name".into(), Value::String(c.name.clone()));
            target = Some(c.id);
        }
        let r = execute_one(
            self.s.dispatcher.as_ref(),
            Command::action(a.action.clone(), Value::Object(params)),
        )
        .await;
        if let Some(shot) = &shot {
            rec.images.clean =
                ufo_desktop::encode::encode_png(&shot.image, self.s.config.system.agent.png).ok();
            let img = ufo_desktop::compose::selected_controls_image(
                shot,
                &controls,
                &target.into_iter().collect::<Vec<_>>(),
            );
            rec.images.selected =
                ufo_desktop::encode::encode_png(&img, self.s.config.system.agent.png).ok();
        }
        Ok(r)
    }
}
