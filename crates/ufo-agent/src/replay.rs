//! The replay agent: a recorded tool call carried out without a model
//! (follower mode with `actions`). Plans name controls by name and type, not
//! by the ids of a past observation; the agent observes the window, resolves
//! the control, runs the tool and draws what it acted on into the step's
//! images.

use crate::app::AgentSettings;
use crate::error::AgentError;
use crate::step::StepRecord;
use serde_json::{Map, Value};
use std::sync::Arc;
use ufo_core::{ActionResult, Command, Control, Diagnostic, ErrorReport};
use ufo_desktop::dispatch::{CommandDispatcher, execute_one};
use ufo_desktop::names::names_match;
use ufo_desktop::observe::ObserveOptions;
use ufo_desktop::tools::ToolName;

/// Replays tool calls on the selected window.
pub struct ReplayAgent {
    dispatcher: Arc<dyn CommandDispatcher>,
    settings: AgentSettings,
}

impl ReplayAgent {
    /// A replay agent acting through `dispatcher`.
    pub fn new(dispatcher: Arc<dyn CommandDispatcher>, settings: AgentSettings) -> Self {
        Self {
            dispatcher,
            settings,
        }
    }

    /// Observes the selected window and runs `tool` with `parameters`. Unless
    /// the parameters carry an `id`, the target is the first control whose
    /// name matches `name` (or `label`) and whose type is one of
    /// `control_type` (`Edit|Document`); either may be left out. Fills `rec`'s
    /// control count, UI tree and images. `Err` when the window cannot be
    /// observed or no control matches.
    pub async fn act(
        &self,
        tool: &str,
        parameters: &Map<String, Value>,
        rec: &mut StepRecord,
    ) -> Result<ActionResult, ErrorReport> {
        let opts = ObserveOptions {
            ui_tree: self.settings.save_ui_tree,
            ..ObserveOptions::default()
        };
        let seen = (self.dispatcher.observe(opts).await)
            .map_err(|e| AgentError::Observation(e).report())?;
        let (controls, shot) = (seen.controls, seen.screenshot);
        rec.ui_tree = seen.ui_tree;
        rec.control_count = controls.len();
        let mut params = parameters.clone();
        let label = params.remove("label");
        let ctype = params.remove("control_type");
        let name = params.get("name").cloned().or(label);
        let mut target = None;
        if !params.contains_key("id") && (name.is_some() || ctype.is_some()) {
            let c = find(
                &controls,
                name.as_ref().and_then(Value::as_str),
                ctype.as_ref().and_then(Value::as_str),
            )?;
            params.insert("id".into(), Value::String(c.id.to_string()));
            params.insert("name".into(), Value::String(c.name.clone()));
            target = Some(c.id);
        }
        // UFO's older names (`click_element`) go out as the tool they name.
        let tool = ToolName::parse(tool);
        let r = execute_one(
            self.dispatcher.as_ref(),
            Command::action(tool.as_str(), Value::Object(params)),
        )
        .await;
        if let Some(shot) = &shot {
            let png = self.settings.png;
            rec.images.clean = ufo_desktop::encode::encode_png(&shot.image, png).ok();
            let img = ufo_desktop::compose::selected_controls_image(
                shot,
                &controls,
                &target.into_iter().collect::<Vec<_>>(),
            );
            rec.images.selected = ufo_desktop::encode::encode_png(&img, png).ok();
        }
        Ok(r)
    }
}

/// The first control named `name` (leniently) of one of the `|`-separated
/// types `types`.
fn find<'a>(
    controls: &'a [Control],
    name: Option<&str>,
    types: Option<&str>,
) -> Result<&'a Control, ErrorReport> {
    controls
        .iter()
        .find(|c| {
            name.is_none_or(|n| names_match(n, &c.name))
                && types.is_none_or(|t| {
                    t.split('|')
                        .any(|t| c.control_type.as_str().eq_ignore_ascii_case(t.trim()))
                })
        })
        .ok_or_else(|| {
            AgentError::PlanControlNotFound {
                name: name.unwrap_or("").to_owned(),
                types: types.unwrap_or("any").to_owned(),
                count: controls.len(),
            }
            .report()
        })
}
