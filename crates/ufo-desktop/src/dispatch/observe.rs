//! What an AppAgent step sees of the selected window, read through a
//! dispatcher's data-collection tools.

use super::{CommandDispatcher, DispatchError};
use crate::Screenshot;
use crate::tools::{ControlsInfo, ScreenshotInfo, Tool};
use serde_json::{Value, json};
use ufo_core::{Control, Diagnostic, ErrorReport};

/// What the data-collection phase sees of the selected window.
#[derive(Debug)]
pub struct Observation {
    /// The labelled controls (ids 1..N).
    pub controls: Vec<Control>,
    /// The window they belong to: the application's main window, or the
    /// dialog it has open.
    pub window: Option<ufo_core::WindowInfo>,
    /// The window's screenshot, when it could be taken.
    pub screenshot: Option<Screenshot>,
    /// The same screenshot as PNG when it came encoded (over the wire):
    /// saved and sent as is when PNG is what the model takes, never encoded
    /// again.
    pub screenshot_png: Option<Vec<u8>>,
    /// The full UI tree (`get_ui_tree`), when asked for and available.
    pub ui_tree: Option<Value>,
}

/// Observes the selected window through `dispatcher`'s tools:
/// `get_app_window_controls_target_info`, `capture_window_screenshot` and,
/// with `ui_tree`, `get_ui_tree`. Only a missing control list is an error; a
/// missing screenshot or tree leaves that part `None`. The error is the
/// device's report (or [`DispatchError`]'s) for the agent to wrap.
pub async fn observe_window<D: CommandDispatcher + ?Sized>(
    dispatcher: &D,
    ui_tree: bool,
) -> Result<Observation, ErrorReport> {
    let mut commands = vec![
        // UFO's devices require the field list (the fields its AppAgent asks for).
        Tool::GetAppWindowControlsTargetInfo.command(json!({
            "field_list": ["control_text", "control_type", "control_rect", "source"],
        })),
        Tool::CaptureWindowScreenshot.command(json!({})),
    ];
    if ui_tree {
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
    let info = it
        .next()
        .filter(|r| r.is_success())
        .and_then(|r| serde_json::from_value::<ScreenshotInfo>(r.result).ok());
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
        controls: controls_info.controls,
        window: Some(controls_info.window),
        screenshot,
        screenshot_png,
        ui_tree,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use async_trait::async_trait;
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
        let e = observe_window(&Answers(json!("no controls")), false)
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
