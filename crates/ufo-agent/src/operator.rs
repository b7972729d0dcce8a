//! The operator agent (UFO's `OpenAIOperatorAgent`): a computer-use model
//! that works from screenshots alone. Each step: a screenshot through the
//! dispatcher (the selected window, or the whole desktop), scaled to the
//! size the provider wants; the model's coordinate actions mapped back to the
//! screen through the screenshot's frame and executed as the catalog's
//! operator tools (`click`, `type`, ...) by the same dispatcher.
//!
//! A provider's safety check is never acknowledged silently: it becomes a
//! CONFIRM for the user (SAFE_GUARD), and a decline ends the sub-task with
//! nothing done. Calls SAFE_GUARD judges destructive (a `keypress` that
//! closes a window) are confirmed the same way.

use crate::app::{AgentSettings, AppStep, StepInput};
use crate::call::Call;
use crate::error::AgentError;
use crate::guards::{Gate, Selection, gate};
use crate::lifecycle::{Lifecycle, Resumable};
use crate::memory::{Blackboard, Memory};
use crate::prompter::Template;
use crate::step::{ActionLog, AgentKind, Phase, StepFailure, StepRecord};
use image::{Rgb, RgbImage};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Instant;
use ufo_core::geometry::Frame;
use ufo_core::{AppAgentStatus, Command, Diagnostic, Image, Point, StepStatus};
use ufo_desktop::dispatch::CommandDispatcher;
use ufo_desktop::tools::{ScreenshotInfo, Tool};
use ufo_llm::computer::{Action, ComputerModel, Display, SafetyCheck, Turn};

/// The operator's prompt template.
pub const OPERATOR: &str = include_str!("../../../prompts/operator/operator.yaml");
/// The operator agent's name (what the HostAgent assigns to in
/// `normal_operator` mode).
pub const OPERATOR_AGENT: &str = "OperatorAgent";

/// What a held turn does once the user confirms: its actions, mapped
/// through the frame of the screenshot they were chosen on.
pub(crate) struct Work {
    turn: Turn,
    frame: Frame,
    shot: RgbImage,
}

/// The operator agent.
pub struct OperatorAgent {
    /// Its name.
    pub name: String,
    /// Its steps.
    pub memory: Memory,
    /// The sub-task, a turn held for confirmation; the result and comment
    /// are the model's last words.
    pub(crate) life: Lifecycle<Work>,
    model: Arc<ComputerModel>,
    dispatcher: Arc<dyn CommandDispatcher>,
    settings: AgentSettings,
    template: Template,
    desktop: bool,
    acknowledged: Vec<SafetyCheck>,
    /// What earlier actions left selected, for SAFE_GUARD.
    selection: Selection,
}

/// The operator's template: `path`, or the built-in one.
pub fn operator_template(path: Option<&std::path::Path>) -> Result<Template, AgentError> {
    match path {
        Some(p) => Template::load(p),
        None => Template::parse("built-in:operator.yaml", OPERATOR),
    }
}

impl OperatorAgent {
    /// An operator on the selected window, or (`desktop`) the whole screen.
    pub fn new(
        model: Arc<ComputerModel>,
        dispatcher: Arc<dyn CommandDispatcher>,
        settings: AgentSettings,
        template: Template,
        desktop: bool,
    ) -> Self {
        Self {
            name: OPERATOR_AGENT.to_owned(),
            memory: Memory::default(),
            life: Lifecycle::default(),
            model,
            dispatcher,
            settings,
            template,
            desktop,
            acknowledged: Vec::new(),
            selection: Selection::default(),
        }
    }

    /// Starts a sub-task.
    pub fn assign(&mut self, subtask: &str, host_message: Vec<String>) {
        self.life.assign(subtask, host_message);
        self.acknowledged.clear();
    }

    fn task_text(&self) -> String {
        let messages = match self.life.host_message().is_empty() {
            true => String::new(),
            false => self.template.text_or(
                OPERATOR,
                "messages",
                &[("messages", &self.life.host_message().join(" "))],
            ),
        };
        self.template.text_or(
            OPERATOR,
            "task",
            &[("subtask", self.life.subtask()), ("messages", &messages)],
        )
    }

    /// The screenshot for the model: captured, scaled to the provider's
    /// size, with the frame that maps its pixels back to the screen.
    async fn observe(&self) -> Result<(RgbImage, Frame, String, Display), AgentError> {
        let tool = match self.desktop {
            true => Tool::CaptureDesktopScreenshot,
            false => Tool::CaptureWindowScreenshot,
        };
        let r =
            ufo_desktop::dispatch::execute_one(self.dispatcher.as_ref(), tool.command(json!({})))
                .await;
        if !r.is_success() {
            return Err(AgentError::Observation(r.error.unwrap_or_else(|| {
                ufo_desktop::dispatch::DispatchError::NoResult {
                    tool: tool.name().to_owned(),
                }
                .report()
            })));
        }
        let info: ScreenshotInfo = serde_json::from_value(r.result).map_err(|e| {
            AgentError::Observation(ufo_core::ErrorReport::new(
                "ufo::agent::observation",
                format!("unreadable screenshot result: {e}"),
            ))
        })?;
        let shot = info
            .decode()
            .map_err(|e| AgentError::Observation(e.report()))?;
        let img = shot.image;
        let display = Display::fit(img.width(), img.height(), self.model.api().max_display());
        let (img, frame) = match display.width == img.width() {
            true => (img, info.frame),
            false => {
                let s = f64::from(display.width) / f64::from(img.width());
                let scaled = image::imageops::resize(
                    &img,
                    display.width,
                    display.height,
                    image::imageops::FilterType::Triangle,
                );
                let frame = Frame {
                    origin: info.frame.origin,
                    scale: info.frame.scale * s,
                };
                (scaled, frame)
            }
        };
        let url = ufo_desktop::encode::png_data_url(&img, self.settings.png)
            .map_err(|e| AgentError::Observation(e.report()))?;
        Ok((img, frame, url, display))
    }

    /// One step: screenshot → model → actions (or a confirmation request).
    pub async fn step(&mut self, input: StepInput<'_>) -> Result<AppStep, StepFailure> {
        let started = Instant::now();
        let application = match self.desktop {
            true => "Desktop",
            false => &self.name,
        };
        let mut rec = self.life.new_record(
            AgentKind::OperatorAgent,
            &self.name,
            &input,
            self.memory.len() + 1,
            application,
        );
        let t = Instant::now();
        let (shot, frame, url, display) = match self.observe().await {
            Ok(o) => o,
            Err(e) => return Err(rec.fail(e, AppAgentStatus::Error, started)),
        };
        rec.time(Phase::DataCollection, t);

        let t = Instant::now();
        let task = self.task_text();
        let acknowledged = std::mem::take(&mut self.acknowledged);
        let turn = match self.model.turn(&task, &url, display, &acknowledged).await {
            Ok(turn) => turn,
            Err(e) => {
                return Err(rec.fail(
                    AgentError::Model(e.report()),
                    AppAgentStatus::Error,
                    started,
                ));
            }
        };
        rec.time(Phase::LlmInteraction, t);
        rec.llm_attempts = 1;
        rec.usage.calls = 1;
        rec.usage.usage = turn.usage;
        // A computer-use turn carries no price: its cost is said to be not
        // available, never a misleading $0.
        rec.usage.unpriced_calls = 1;
        rec.thought = turn.text.clone();
        rec.parsed_response = json!({
            "thought": turn.text,
            "actions": turn.actions.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>(),
            "safety_checks": turn.safety_checks.iter().map(|c| json!({"id": c.id, "code": c.code, "message": c.message})).collect::<Vec<_>>(),
            "done": turn.done,
        });
        let commands = commands(&turn.actions, &frame);
        let calls: Vec<Call> = commands.iter().map(Call::of_command).collect();
        let guarded = crate::guards::guarded(
            &self.settings,
            AppAgentStatus::Continue,
            &calls,
            &mut self.selection,
        );
        // A provider's safety check always waits for the user, SAFE_GUARD or
        // not. The model has no CONFIRM or PENDING of its own here.
        let must_wait = !turn.safety_checks.is_empty() || !guarded.is_empty();
        if gate(AppAgentStatus::Continue, true, must_wait) == Gate::Hold {
            let actions = turn.actions.iter().map(|a| format!("{a:?}")).collect();
            let reasons = turn
                .safety_checks
                .iter()
                .map(|c| format!("the provider's safety check {}: {}", c.code, c.message))
                .collect();
            let work = Work { turn, frame, shot };
            return Ok(self
                .life
                .hold(rec, work, actions, &guarded, reasons, started));
        }
        let status = self.act(&mut rec, &turn, &frame, shot).await;
        self.remember(&mut rec, input.blackboard, status, None);
        Ok(AppStep::finished(rec, status, started))
    }

    /// Continues after CONFIRM: acknowledges the checks and acts when
    /// `confirmed`; otherwise nothing runs and the sub-task fails.
    pub async fn resume(
        &mut self,
        confirmed: bool,
        blackboard: &mut Blackboard,
    ) -> Option<AppStep> {
        crate::lifecycle::resume(self, confirmed, blackboard).await
    }

    /// Executes the turn's actions; draws them on the step's screenshot.
    async fn act(
        &mut self,
        rec: &mut StepRecord,
        turn: &Turn,
        frame: &Frame,
        mut shot: RgbImage,
    ) -> AppAgentStatus {
        let t = Instant::now();
        let mut commands = commands(&turn.actions, frame);
        for (i, c) in commands.iter_mut().enumerate() {
            c.call_id = format!("{}-{}", rec.session_step, i + 1);
        }
        for a in &turn.actions {
            if let Some(p) = image_point(a) {
                mark(&mut shot, p);
            }
        }
        rec.images.clean = ufo_desktop::encode::encode_png(&shot, self.settings.png).ok();
        let results = match commands.is_empty() {
            true => Vec::new(),
            false => self.dispatcher.execute(commands.clone()).await,
        };
        let mut failed = None;
        for (c, r) in commands.iter().zip(results) {
            if !r.is_success() && failed.is_none() {
                failed = r.error.clone();
            }
            let args: Map<String, Value> = c.parameters.as_object().cloned().unwrap_or_default();
            rec.actions.push(ActionLog::new(
                &c.tool_name,
                &args,
                None,
                StepStatus::Continue,
                r,
            ));
        }
        rec.time(Phase::ActionExecution, t);
        self.life.set_comment(turn.text.clone());
        rec.comment = turn.text.clone();
        if let Some(e) = failed {
            rec.error = Some(e);
            return AppAgentStatus::Continue;
        }
        match (turn.done, turn.failed) {
            (true, true) => AppAgentStatus::Fail,
            (true, false) => {
                self.life.set_result(turn.text.clone());
                AppAgentStatus::Finish
            }
            _ => AppAgentStatus::Continue,
        }
    }
}

impl Resumable for OperatorAgent {
    type Work = Work;

    fn lifecycle(&mut self) -> &mut Lifecycle<Work> {
        &mut self.life
    }

    async fn carry_out(&mut self, rec: &mut StepRecord, work: Work) -> AppAgentStatus {
        self.acknowledged = work.turn.safety_checks.clone();
        self.act(rec, &work.turn, &work.frame, work.shot).await
    }

    fn decline(&mut self, rec: &mut StepRecord, work: Work) -> AppAgentStatus {
        let checks = work
            .turn
            .safety_checks
            .iter()
            .map(|c| c.code.clone())
            .collect::<Vec<_>>()
            .join(", ");
        rec.comment = self
            .template
            .text_or(OPERATOR, "declined", &[("checks", &checks)]);
        self.life.set_comment(rec.comment.clone());
        rec.error = Some(AgentError::Declined.report());
        AppAgentStatus::Fail
    }

    fn memory_and_who(&mut self) -> (&mut Memory, (&'static str, &str)) {
        (&mut self.memory, ("agent", &self.name))
    }
}

/// The screenshot pixel an action acts at, for drawing.
fn image_point(a: &Action) -> Option<Point<Image>> {
    let p = |x: f64, y: f64| Some(Point::new(x.round() as i32, y.round() as i32));
    match a {
        Action::Click { x, y, .. }
        | Action::DoubleClick { x, y }
        | Action::Move { x, y }
        | Action::Scroll { x, y, .. } => p(*x, *y),
        Action::Drag { path } => path.first().and_then(|(x, y)| p(*x, *y)),
        _ => None,
    }
}

/// A red ring with a dot where the model acted.
fn mark(img: &mut RgbImage, p: Point<Image>) {
    let red = Rgb([230, 20, 20]);
    let (w, h) = (img.width() as i32, img.height() as i32);
    for dy in -12i32..=12 {
        for dx in -12i32..=12 {
            let d2 = dx * dx + dy * dy;
            let ring = (81..=144).contains(&d2);
            if (ring || d2 <= 4) && (0..w).contains(&(p.x + dx)) && (0..h).contains(&(p.y + dy)) {
                img.put_pixel((p.x + dx) as u32, (p.y + dy) as u32, red);
            }
        }
    }
}

/// The catalog commands of `actions`, screenshot pixels mapped to the screen
/// through `frame`.
pub fn commands(actions: &[Action], frame: &Frame) -> Vec<Command> {
    let at = |x: f64, y: f64| {
        let s = frame.image_to_screen(Point::new(x.round() as i32, y.round() as i32));
        (s.x, s.y)
    };
    actions
        .iter()
        .filter_map(|a| {
            Some(match a {
                Action::Click { x, y, button } => {
                    let (sx, sy) = at(*x, *y);
                    Tool::Click.command(json!({"x": sx, "y": sy, "button": button}))
                }
                Action::DoubleClick { x, y } => {
                    let (sx, sy) = at(*x, *y);
                    Tool::DoubleClick.command(json!({"x": sx, "y": sy}))
                }
                Action::Move { x, y } => {
                    let (sx, sy) = at(*x, *y);
                    Tool::Move.command(json!({"x": sx, "y": sy}))
                }
                Action::Drag { path } => {
                    let path: Vec<Value> = path
                        .iter()
                        .map(|(x, y)| {
                            let (sx, sy) = at(*x, *y);
                            json!({"x": sx, "y": sy})
                        })
                        .collect();
                    Tool::Drag.command(json!({ "path": path }))
                }
                Action::Scroll { x, y, scroll_y } => {
                    let (sx, sy) = at(*x, *y);
                    Tool::Scroll.command(json!({"x": sx, "y": sy, "scroll_y": scroll_y}))
                }
                Action::Keypress { keys } => Tool::Keypress.command(json!({ "keys": keys })),
                Action::Type { text } => Tool::Type.command(json!({ "text": text })),
                Action::Wait { seconds } => {
                    Tool::Wait.command(json!({"seconds": seconds.clamp(0.0, 30.0)}))
                }
                Action::Screenshot => return None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ufo_core::Screen;

    #[test]
    fn image_points_map_back_through_the_frame() {
        // A window at (100, 50) captured at 1:1, then scaled to half.
        let frame = Frame {
            origin: Point::<Screen>::new(100, 50),
            scale: 0.5,
        };
        let c = commands(
            &[
                Action::Click {
                    x: 10.0,
                    y: 20.0,
                    button: "left".into(),
                },
                Action::Keypress {
                    keys: vec!["ctrl".into(), "a".into()],
                },
                Action::Screenshot,
            ],
            &frame,
        );
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].tool_name, "click");
        assert_eq!(
            c[0].parameters,
            json!({"x": 120, "y": 90, "button": "left"})
        );
        assert_eq!(c[1].parameters, json!({"keys": ["ctrl", "a"]}));
    }
}
