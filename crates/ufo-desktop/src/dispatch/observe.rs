//! The [`Observation`] of the selected window read through any
//! dispatcher's data-collection tools (the screenshot travels as PNG): the
//! default of [`CommandDispatcher::observe`].

use super::{CommandDispatcher, DispatchError};
use crate::Screenshot;
use crate::observe::{Observation, ObserveOptions, PhaseTimes};
use crate::tools::{ControlsInfo, ScreenshotInfo, Tool};
use serde_json::json;
use ufo_core::{Diagnostic, ErrorReport, UiTree};

/// Observes the selected window through `dispatcher`'s tools:
/// `get_app_window_controls_target_info` and, as `opts` asks,
/// `capture_window_screenshot` and `get_ui_tree`. Only a missing control
/// list is an error; a missing screenshot or tree leaves that part `None`.
/// The error is the device's report (or [`DispatchError`]'s) for the agent
/// to wrap.
pub(super) async fn observe_window<D: CommandDispatcher + ?Sized>(
    dispatcher: &D,
    opts: ObserveOptions,
) -> Result<Observation, ErrorReport> {
    let mut commands = vec![
        // UFO's devices require the field list (the fields its AppAgent asks for).
        Tool::GetAppWindowControlsTargetInfo.command(json!({
            "field_list": ["control_text", "control_type", "control_rect", "source"],
        })),
    ];
    if opts.screenshot {
        commands.push(Tool::CaptureWindowScreenshot.command(json!({})));
    }
    if opts.ui_tree {
        commands.push(Tool::GetUiTree.command(json!({})));
    }
    let mut it = dispatcher.execute(commands).await.into_iter();
    let tool = Tool::GetAppWindowControlsTargetInfo.name();
    let no_controls = || {
        DispatchError::NoResult {
            tool: tool.to_owned(),
        }
        .report()
    };
    let controls_info = match it.next() {
        Some(r) if r.is_success() => {
            serde_json::from_value::<ControlsInfo>(r.result).map_err(|e| {
                DispatchError::BadResult {
                    tool: tool.to_owned(),
                    source: e,
                }
                .report()
            })?
        }
        Some(r) => return Err(r.error.unwrap_or_else(no_controls)),
        None => return Err(no_controls()),
    };
    let shot = match opts.screenshot {
        true => it.next(),
        false => None,
    };
    let (info, screenshot_error) = match shot {
        Some(r) if r.is_success() => (
            serde_json::from_value::<ScreenshotInfo>(r.result).ok(),
            None,
        ),
        Some(r) => (None, r.error),
        None => (None, None),
    };
    // One base64 decoding and one PNG decoding; the PNG bytes are kept.
    let (screenshot, screenshot_png) = match info.and_then(|i| {
        let (_, png) = crate::encode::decode_data_url(&i.image_url).ok()?;
        Some((i.frame, png))
    }) {
        Some((frame, png)) => match image::load_from_memory(&png) {
            Ok(img) => (
                Some(Screenshot {
                    image: img.to_rgb8(),
                    frame,
                }),
                Some(png),
            ),
            Err(_) => (None, None),
        },
        None => (None, None),
    };
    let ui_tree = it.next().filter(|r| r.is_success()).map(|r| r.result);
    Ok(Observation {
        // The device sends its labelled controls, not its tree.
        tree: UiTree {
            window: controls_info.window,
            nodes: Vec::new(),
            truncated: controls_info.truncated,
            truncation: None,
        },
        controls: controls_info.controls,
        screenshot,
        screenshot_png,
        screenshot_error,
        ui_tree,
        times: PhaseTimes::default(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use async_trait::async_trait;
    use serde_json::Value;
    use ufo_core::{ActionResult, Command};

    /// Answers every command with a success whose result is `result`.
    struct Answers(Value);

    #[async_trait]
    impl CommandDispatcher for Answers {
        async fn execute(&self, commands: Vec<Command>) -> Vec<ActionResult> {
            commands
                .iter()
                .map(|_| ActionResult::success(self.0.clone()))
                .collect()
        }
        fn describe(&self) -> String {
            "answers".into()
        }
    }

    /// A control list in the wrong shape: the parser's error is the cause.
    #[tokio::test]
    async fn an_unreadable_control_list_keeps_the_parsers_error() {
        let e = observe_window(&Answers(json!("no controls")), ObserveOptions::default())
            .await
            .unwrap_err();
        assert_eq!(e.code, "ufo::dispatch::bad_result");
        assert_eq!(
            e.message,
            "get_app_window_controls_target_info returned something unreadable"
        );
        assert_eq!(e.causes.len(), 1, "{e:?}");
        assert!(e.causes[0].starts_with("invalid type: string"), "{e:?}");
        assert!(e.rendered().contains("\n  caused by: invalid type"));
        assert!(e.rendered().contains("\n  help: check the desktop"));
    }
}
