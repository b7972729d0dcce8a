//! An in-process desktop for tests that are not about the desktop: a
//! [`CommandDispatcher`] answering from a fixture (one application window with
//! a few controls and a small screenshot), recording every [`Command`] it is
//! given, failing the tools it is told to fail.
//!
//! Session and agent state machines (CONFIRM, PENDING, re-ask, MAX_STEP, ...)
//! are tested with it and the scripted model in milliseconds, without Xvfb.
//! What the tools do to a real application is tested elsewhere, on real
//! applications.
//!
//! ```
//! # async fn t() {
//! use ufo_core::{Command, ControlType};
//! use ufo_testkit::fake::FakeDesktop;
//! use ufo_desktop::dispatch::CommandDispatcher;
//! let d = FakeDesktop::new("gedit", "notes.txt", &[(ControlType::Edit, "Text")]);
//! let r = d.execute(vec![Command::action("click_input", serde_json::json!({"id": "1"}))]).await;
//! assert!(r[0].is_success());
//! assert_eq!(d.actions()[0].0, "click_input");
//! # }
//! ```

use async_trait::async_trait;
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use ufo_core::geometry::Frame;
use ufo_core::ui::Capabilities;
use ufo_core::{
    ActionResult, Command, Control, ControlType, ElementHandle, ErrorReport, Point, Rect, ToolType,
    WindowInfo,
};
use ufo_desktop::dispatch::CommandDispatcher;
use ufo_desktop::tools::{ControlsInfo, ScreenshotInfo, Tool, ToolName, WindowEntry};

/// A desktop of one application window, answered in process.
#[derive(Debug)]
pub struct FakeDesktop {
    window: WindowInfo,
    controls: Vec<Control>,
    screenshot: String,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    commands: Vec<Command>,
    failures: HashMap<String, VecDeque<ErrorReport>>,
}

impl FakeDesktop {
    /// A window `title` of application `app` holding `controls` (ids 1..N, in
    /// order, each 40×20 pixels in a column).
    pub fn new(app: &str, title: &str, controls: &[(ControlType, &str)]) -> Self {
        let window = WindowInfo {
            id: "0x400001".into(),
            app_name: app.into(),
            pid: Some(4242),
            title: title.into(),
            rect: Some(Rect::new(0, 0, 200, 40 + 24 * controls.len() as i32)),
            focused: true,
            handle: ElementHandle(format!(":1.1|/{app}/window")),
            native_id: Some(0x400001),
            dialog: false,
            modal: false,
            owner: None,
        };
        let controls = controls
            .iter()
            .enumerate()
            .map(|(i, (t, name))| Control {
                id: i as u32 + 1,
                name: (*name).into(),
                control_type: t.clone(),
                value: None,
                column: None,
                rect: Rect::new(10, 30 + 24 * i as i32, 40, 20),
                handle: ElementHandle(format!(":1.1|/{app}/{i}")),
                role: t.as_str().to_ascii_lowercase(),
                states: ufo_core::States::ENABLED
                    | ufo_core::States::SHOWING
                    | ufo_core::States::VISIBLE,
                actions: vec!["click".into()],
                capabilities: Capabilities {
                    component: true,
                    action: true,
                    text: *t == ControlType::Edit,
                    editable_text: *t == ControlType::Edit,
                    ..Capabilities::default()
                },
            })
            .collect();
        let png = image::RgbImage::from_pixel(8, 8, image::Rgb([200, 200, 200]));
        let screenshot =
            ufo_desktop::encode::png_data_url(&png, ufo_desktop::encode::PngCompression::Fast)
                .unwrap_or_default();
        Self {
            window,
            controls,
            screenshot,
            state: Mutex::new(State::default()),
        }
    }

    /// The next call of `tool` fails with `error` (calls queue up).
    pub fn fail_next(&self, tool: &str, error: ErrorReport) {
        if let Ok(mut s) = self.state.lock() {
            s.failures
                .entry(tool.to_owned())
                .or_default()
                .push_back(error);
        }
    }

    /// Every command received, in order.
    pub fn commands(&self) -> Vec<Command> {
        self.state
            .lock()
            .map(|s| s.commands.clone())
            .unwrap_or_default()
    }

    /// The action commands (tools that change the application) received, as
    /// `(tool, arguments)`.
    pub fn actions(&self) -> Vec<(String, Value)> {
        self.commands()
            .into_iter()
            .filter(|c| {
                c.tool_type == ToolType::Action
                    && !ToolName::parse(&c.tool_name).is(Tool::SelectApplicationWindow)
            })
            .map(|c| (c.tool_name, c.parameters))
            .collect()
    }

    fn shot(&self) -> Value {
        let info = ScreenshotInfo {
            image_url: self.screenshot.clone(),
            frame: Frame::at(Point::new(0, 0)),
            width: 8,
            height: 8,
        };
        serde_json::to_value(info).unwrap_or_default()
    }

    fn answer(&self, c: &Command) -> ActionResult {
        let failure = self.state.lock().ok().and_then(|mut s| {
            s.failures
                .get_mut(&c.tool_name)
                .and_then(VecDeque::pop_front)
        });
        if let Some(e) = failure {
            return ActionResult::failure(e);
        }
        let result = match ToolName::parse(&c.tool_name).builtin() {
            Some(Tool::GetDesktopAppInfo) => json!([WindowEntry {
                id: "1".into(),
                name: self.window.title.clone(),
                control_type: "Window".into(),
                app_name: self.window.app_name.clone(),
                window: self.window.clone(),
            }]),
            Some(Tool::SelectApplicationWindow) => json!({"window": self.window}),
            Some(Tool::GetAppWindowControlsTargetInfo) => json!(ControlsInfo {
                window: self.window.clone(),
                controls: self.controls.clone(),
                truncated: false,
            }),
            Some(Tool::CaptureWindowScreenshot | Tool::CaptureDesktopScreenshot) => self.shot(),
            _ => json!({}),
        };
        ActionResult::success(result)
    }
}

#[async_trait]
impl CommandDispatcher for FakeDesktop {
    async fn execute(&self, commands: Vec<Command>) -> Vec<ActionResult> {
        let mut out = Vec::new();
        let mut failed = false;
        for c in commands {
            if let Ok(mut s) = self.state.lock() {
                s.commands.push(c.clone());
            }
            let r = if failed {
                ActionResult::skipped("an earlier command failed")
            } else {
                self.answer(&c)
            };
            failed |= !r.is_success();
            out.push(r.with_call_id(c.call_id.clone()));
        }
        out
    }

    fn describe(&self) -> String {
        "fake".into()
    }
}
