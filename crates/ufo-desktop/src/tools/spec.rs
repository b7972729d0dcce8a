//! The catalog: every tool's name, namespace, description and JSON schema.

use serde_json::{Value, json};
use std::fmt;
use std::str::FromStr;
use ufo_core::{ToolSpec, ToolType};

/// Namespace of the AppAgent's UI actions.
pub const APP_UI_EXECUTOR: &str = "AppUIExecutor";
/// Namespace of the HostAgent's UI actions.
pub const HOST_UI_EXECUTOR: &str = "HostUIExecutor";
/// Namespace of the observation (data-collection) tools.
pub const UI_COLLECTOR: &str = "UICollector";
/// Namespace of the HostAgent's application launcher (`run_shell`).
pub const COMMAND_LINE_EXECUTOR: &str = "CommandLineExecutor";
/// Namespace of the command-line agent's tools (`execute_command`).
pub const BASH_EXECUTOR: &str = "BashExecutor";

macro_rules! tools {
    ($( $(#[$m:meta])* $v:ident => $s:literal ),+ $(,)?) => {
        /// A tool of the catalog, named as in UFO.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Tool {
            $( $(#[$m])* $v, )+
        }

        impl Tool {
            /// Every tool, in catalog order.
            pub const ALL: &'static [Tool] = &[ $( Tool::$v ),+ ];

            /// The tool name as a model writes it (`click_input`).
            pub fn name(self) -> &'static str {
                match self {
                    $( Tool::$v => $s, )+
                }
            }
        }

        impl FromStr for Tool {
            type Err = crate::error::DesktopError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s.trim() {
                    $( $s => Ok(Tool::$v), )+
                    other => Err(crate::error::DesktopError::UnknownTool(other.to_owned())),
                }
            }
        }
    };
}

tools! {
    /// Click a listed control.
    ClickInput => "click_input",
    /// Click at window-relative fractions.
    ClickOnCoordinates => "click_on_coordinates",
    /// Drag between window-relative fractions.
    DragOnCoordinates => "drag_on_coordinates",
    /// Set or append an edit control's text (verified).
    SetEditText => "set_edit_text",
    /// Send a pywinauto key sequence.
    KeyboardInput => "keyboard_input",
    /// Scroll over a control.
    WheelMouseInput => "wheel_mouse_input",
    /// Read a control's text.
    Texts => "texts",
    /// Sleep.
    Wait => "wait",
    /// Return a text answer.
    Summary => "summary",
    /// HostAgent: choose the window to work on.
    SelectApplicationWindow => "select_application_window",
    /// Screenshot of the selected window.
    CaptureWindowScreenshot => "capture_window_screenshot",
    /// Labelled controls of the selected window.
    GetAppWindowControlsTargetInfo => "get_app_window_controls_target_info",
    /// The numbered list of open windows.
    GetDesktopAppInfo => "get_desktop_app_info",
    /// Screenshot of the whole desktop (the HostAgent's view).
    CaptureDesktopScreenshot => "capture_desktop_screenshot",
    /// The full accessibility tree of the selected window (for `ui_trees/` logs).
    GetUiTree => "get_ui_tree",
    /// HostAgent: start an allowlisted application (no shell).
    RunShell => "run_shell",
    /// Command-line agent: run one allowlisted read-only command (no shell).
    ExecuteCommand => "execute_command",
    /// Command-line agent: the operating system, host and user.
    GetSystemInfo => "get_system_info",
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Tool {
    /// The tool's namespace.
    pub fn namespace(self) -> &'static str {
        match self {
            Tool::SelectApplicationWindow => HOST_UI_EXECUTOR,
            Tool::RunShell => COMMAND_LINE_EXECUTOR,
            Tool::ExecuteCommand | Tool::GetSystemInfo => BASH_EXECUTOR,
            Tool::CaptureWindowScreenshot
            | Tool::GetAppWindowControlsTargetInfo
            | Tool::GetDesktopAppInfo
            | Tool::CaptureDesktopScreenshot
            | Tool::GetUiTree => UI_COLLECTOR,
            Tool::ClickInput
            | Tool::ClickOnCoordinates
            | Tool::DragOnCoordinates
            | Tool::SetEditText
            | Tool::KeyboardInput
            | Tool::WheelMouseInput
            | Tool::Texts
            | Tool::Wait
            | Tool::Summary => APP_UI_EXECUTOR,
        }
    }

    /// A command calling this tool with `arguments` (a JSON object).
    pub fn command(self, arguments: Value) -> ufo_core::Command {
        match self.tool_type() {
            ToolType::DataCollection => ufo_core::Command::data(self.name(), arguments),
            ToolType::Action => ufo_core::Command::action(self.name(), arguments),
        }
    }

    /// Observation or action.
    pub fn tool_type(self) -> ToolType {
        match self.namespace() {
            UI_COLLECTOR => ToolType::DataCollection,
            _ => ToolType::Action,
        }
    }

    /// The full specification.
    pub fn spec(self) -> ToolSpec {
        let (description, parameters, destructive, examples): (&str, Value, bool, &[&str]) =
            match self {
                Tool::ClickInput => (
                    "Click a control from the current control list. `id` and `name` must be the id and the name of the same listed control. Use button=\"right\" for a context menu and double=true to open an item.",
                    object(
                        &[
                            ID,
                            NAME,
                            BUTTON,
                            (
                                "double",
                                json!({"type": "boolean", "description": "Double-click instead of a single click.", "default": false}),
                            ),
                        ],
                        &["id", "name"],
                    ),
                    false,
                    &[r#"click_input(id="12", name="Save", button="left", double=false)"#],
                ),
                Tool::ClickOnCoordinates => (
                    "Click a point of the application window given as fractions of its size: x and y from 0 (left/top edge) to 1 (right/bottom edge). Use only for targets that are not in the control list.",
                    object(
                        &[
                            (
                                "x",
                                frac("Horizontal position, 0 = left edge, 1 = right edge."),
                            ),
                            (
                                "y",
                                frac("Vertical position, 0 = top edge, 1 = bottom edge."),
                            ),
                            BUTTON,
                            (
                                "double",
                                json!({"type": "boolean", "description": "Double-click instead of a single click.", "default": false}),
                            ),
                        ],
                        &["x", "y"],
                    ),
                    false,
                    &[r#"click_on_coordinates(x=0.5, y=0.25, button="left", double=false)"#],
                ),
                Tool::DragOnCoordinates => (
                    "Drag with the mouse from (start_x, start_y) to (end_x, end_y), each a fraction of the application window (0 = left/top edge, 1 = right/bottom edge), optionally holding a key such as \"shift\" or \"ctrl\".",
                    object(
                        &[
                            ("start_x", frac("Start, horizontal fraction of the window.")),
                            ("start_y", frac("Start, vertical fraction of the window.")),
                            ("end_x", frac("End, horizontal fraction of the window.")),
                            ("end_y", frac("End, vertical fraction of the window.")),
                            BUTTON,
                            (
                                "duration",
                                json!({"type": "number", "description": "Seconds the drag takes (0 to 10).", "default": 1.0, "minimum": 0, "maximum": 10}),
                            ),
                            (
                                "key_hold",
                                json!({"type": "string", "description": "A key held during the drag: shift, ctrl, alt or win. Omit for none."}),
                            ),
                        ],
                        &["start_x", "start_y", "end_x", "end_y"],
                    ),
                    false,
                    &[
                        r#"drag_on_coordinates(start_x=0.1, start_y=0.5, end_x=0.6, end_y=0.5, button="left", duration=1.0)"#,
                    ],
                ),
                Tool::SetEditText => (
                    "Enter text into an edit control. With clear_current_text=true the control's whole text is replaced by `text`; otherwise `text` is appended at the end of what is there. The text is read back afterwards and the call fails if it did not take effect. `text` is literal: no key syntax.",
                    object(
                        &[
                            ID,
                            NAME,
                            (
                                "text",
                                json!({"type": "string", "description": "The text to enter, literally."}),
                            ),
                            (
                                "clear_current_text",
                                json!({"type": "boolean", "description": "Replace the current text instead of appending to it.", "default": false}),
                            ),
                        ],
                        &["id", "name", "text"],
                    ),
                    true,
                    &[
                        r#"set_edit_text(id="3", name="File name", text="report.txt", clear_current_text=true)"#,
                    ],
                ),
                Tool::KeyboardInput => (
                    "Press keys, focusing the control first (control_focus=true) or sending them to whatever has focus (control_focus=false; id and name may then be omitted). `keys` uses pywinauto syntax: literal text, {ENTER}, {TAB 3} (repeat), {F5}, {ESC}, {BACKSPACE}, {DELETE}, {HOME}, {END}, {LEFT}, {PGDN}; ^x = Ctrl+x, %x = Alt+x, +x = Shift+x, #x = Win+x; +(abc) holds Shift for a group; ~ = Enter; {{}, {}}, {+}, {^}, {%}, {~} type those characters; {SHIFT down}...{SHIFT up} holds a key.",
                    object(
                        &[
                            ID,
                            NAME,
                            (
                                "keys",
                                json!({"type": "string", "description": "Key sequence in pywinauto syntax, e.g. \"^a{DELETE}hello{ENTER}\"."}),
                            ),
                            (
                                "control_focus",
                                json!({"type": "boolean", "description": "Focus the control before pressing the keys.", "default": true}),
                            ),
                        ],
                        &["keys"],
                    ),
                    true,
                    &[
                        r#"keyboard_input(id="5", name="Search", keys="hello{ENTER}", control_focus=true)"#,
                        r#"keyboard_input(keys="^s", control_focus=false)"#,
                    ],
                ),
                Tool::WheelMouseInput => (
                    "Scroll the mouse wheel over a control. wheel_dist is the number of wheel notches: positive scrolls up, negative scrolls down.",
                    object(
                        &[
                            ID,
                            NAME,
                            (
                                "wheel_dist",
                                json!({"type": "integer", "description": "Notches to scroll; positive = up, negative = down.", "default": 0}),
                            ),
                        ],
                        &["id", "name", "wheel_dist"],
                    ),
                    false,
                    &[r#"wheel_mouse_input(id="2", name="Document", wheel_dist=-5)"#],
                ),
                Tool::Texts => (
                    "Read the full text of a control (useful for long documents whose text is cut in the control list).",
                    object(&[ID, NAME], &["id", "name"]),
                    false,
                    &[r#"texts(id="2", name="Document")"#],
                ),
                Tool::Wait => (
                    "Wait a number of seconds (at most 300), e.g. while an application loads.",
                    object(
                        &[(
                            "seconds",
                            json!({"type": "number", "description": "Seconds to wait, 0 to 300.", "minimum": 0, "maximum": 300}),
                        )],
                        &["seconds"],
                    ),
                    false,
                    &["wait(seconds=2)"],
                ),
                Tool::Summary => (
                    "Give a text answer or summary of what you observed; does not touch the application.",
                    object(
                        &[(
                            "text",
                            json!({"type": "string", "description": "The answer or summary."}),
                        )],
                        &["text"],
                    ),
                    false,
                    &[r#"summary(text="The total is 42.")"#],
                ),
                Tool::SelectApplicationWindow => (
                    "Select the application window to work on, by the id and name shown in the window list. The window is raised and focused.",
                    object(
                        &[
                            (
                                "id",
                                json!({"type": "string", "description": "The window's id in the window list, e.g. \"2\"."}),
                            ),
                            (
                                "name",
                                json!({"type": "string", "description": "The window's title as listed (or its application name)."}),
                            ),
                        ],
                        &["id", "name"],
                    ),
                    false,
                    &[r#"select_application_window(id="2", name="Calculator")"#],
                ),
                Tool::RunShell => (
                    "Start an application that is not open yet, by its program name and plain arguments (no shell: no pipes, redirections, quotes or variables). It returns once the application is running; its window then appears in the window list, to be assigned with select_application_window.",
                    object(
                        &[(
                            "bash_command",
                            json!({"type": "string", "description": "The program and its arguments, e.g. \"mousepad\" or \"gedit /tmp/notes.txt\"."}),
                        )],
                        &["bash_command"],
                    ),
                    true,
                    &[r#"run_shell(bash_command="mousepad")"#],
                ),
                Tool::ExecuteCommand => (
                    "Run one read-only command-line program with its arguments and return its exit code, standard output and standard error. There is no shell: no pipes, redirections, command lists, substitutions or variables; quote an argument that holds spaces. Only the allowed programs run, with options that do not write, delete or execute.",
                    object(
                        &[
                            (
                                "command",
                                json!({"type": "string", "description": "The program and its arguments, e.g. \"ls -l /tmp\" or \"grep -n 'total' report.txt\"."}),
                            ),
                            (
                                "timeout",
                                json!({"type": "number", "description": "Seconds before the command is stopped (1 to 120).", "default": 30, "minimum": 1, "maximum": 120}),
                            ),
                            (
                                "cwd",
                                json!({"type": "string", "description": "The directory to run in. Omit for the default."}),
                            ),
                        ],
                        &["command"],
                    ),
                    false,
                    &[
                        r#"execute_command(command="ls -l /tmp")"#,
                        r#"execute_command(command="wc -l notes.txt", cwd="/home/user")"#,
                    ],
                ),
                Tool::GetSystemInfo => (
                    "The operating system, kernel, architecture, host name, user and default working directory.",
                    object(&[], &[]),
                    false,
                    &["get_system_info()"],
                ),
                Tool::CaptureWindowScreenshot => (
                    "Screenshot of the selected application window, as a PNG data URL with the frame (screen origin and scale) of its pixels.",
                    object(&[], &[]),
                    false,
                    &[],
                ),
                Tool::GetAppWindowControlsTargetInfo => (
                    "The interactive controls of the selected application window, filtered and numbered 1..N in reading order; these ids are what the other tools accept.",
                    object(&[], &[]),
                    false,
                    &[],
                ),
                Tool::GetDesktopAppInfo => (
                    "The open application windows, numbered 1..N; select_application_window accepts these ids.",
                    object(&[], &[]),
                    false,
                    &[],
                ),
                Tool::CaptureDesktopScreenshot => (
                    "A screenshot of the whole desktop, as a PNG data URL with the frame that maps it to screen coordinates.",
                    object(&[], &[]),
                    false,
                    &[],
                ),
                Tool::GetUiTree => (
                    "The full accessibility tree of the selected window (every node, not only the listed controls), as JSON.",
                    object(&[], &[]),
                    false,
                    &[],
                ),
            };
        ToolSpec {
            name: self.name().to_owned(),
            namespace: self.namespace().to_owned(),
            description: description.to_owned(),
            parameters,
            tool_type: self.tool_type(),
            destructive,
            examples: examples.iter().map(|s| (*s).to_owned()).collect(),
        }
    }
}

const ID: (&str, Value) = ("id", Value::Null);
const NAME: (&str, Value) = ("name", Value::Null);
const BUTTON: (&str, Value) = ("button", Value::Null);

/// Fills in the shared properties (`id`, `name`, `button`) marked by a null
/// schema, and builds the object schema.
fn object(props: &[(&str, Value)], required: &[&str]) -> Value {
    let mut properties = serde_json::Map::new();
    for (k, v) in props {
        let v = match (*k, v) {
            ("id", Value::Null) => {
                json!({"type": "string", "description": "The control's id in the current control list, e.g. \"4\"."})
            }
            ("name", Value::Null) => {
                json!({"type": "string", "description": "The control's name exactly as listed with that id."})
            }
            ("button", Value::Null) => {
                json!({"type": "string", "enum": ["left", "right", "middle"], "description": "Mouse button.", "default": "left"})
            }
            (_, v) => v.clone(),
        };
        properties.insert((*k).to_owned(), v);
    }
    json!({"type": "object", "properties": properties, "required": required})
}

fn frac(description: &str) -> Value {
    json!({"type": "number", "minimum": 0, "maximum": 1, "description": description})
}

/// The specifications of every tool, in catalog order.
pub fn catalog() -> Vec<ToolSpec> {
    Tool::ALL.iter().map(|t| t.spec()).collect()
}

/// The specifications of one namespace's tools (e.g. [`APP_UI_EXECUTOR`]).
pub fn catalog_for(namespace: &str) -> Vec<ToolSpec> {
    Tool::ALL
        .iter()
        .filter(|t| t.namespace() == namespace)
        .map(|t| t.spec())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const TYPES: &[&str] = &["string", "integer", "number", "boolean", "array", "object"];

    #[test]
    fn every_spec_has_a_valid_object_schema() {
        let specs = catalog();
        assert_eq!(specs.len(), Tool::ALL.len());
        let mut names = HashSet::new();
        for s in &specs {
            assert!(names.insert(s.name.clone()), "duplicate {}", s.name);
            assert_eq!(s.name.parse::<Tool>().unwrap().name(), s.name);
            assert!(
                [
                    APP_UI_EXECUTOR,
                    HOST_UI_EXECUTOR,
                    UI_COLLECTOR,
                    COMMAND_LINE_EXECUTOR,
                    BASH_EXECUTOR
                ]
                .contains(&s.namespace.as_str())
            );
            assert!(s.description.len() > 20, "{}", s.name);
            let p = &s.parameters;
            assert_eq!(p["type"], "object", "{}", s.name);
            let props = p["properties"].as_object().unwrap();
            for (k, v) in props {
                let t = v["type"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{}.{k} has no type", s.name));
                assert!(TYPES.contains(&t), "{}.{k}: {t}", s.name);
                assert!(
                    v["description"].as_str().is_some_and(|d| !d.is_empty()),
                    "{}.{k}",
                    s.name
                );
                if let Some(e) = v.get("enum") {
                    assert!(e.as_array().is_some_and(|a| !a.is_empty()));
                }
            }
            for r in p["required"].as_array().unwrap() {
                assert!(
                    props.contains_key(r.as_str().unwrap()),
                    "{}: required {r}",
                    s.name
                );
            }
            // Round-trips through the ToolSpec wire form.
            let back: ToolSpec = serde_json::from_value(serde_json::to_value(s).unwrap()).unwrap();
            assert_eq!(&back, s);
        }
    }

    #[test]
    fn namespaces_and_types_match_ufo() {
        let app: Vec<String> = catalog_for(APP_UI_EXECUTOR)
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(
            app,
            [
                "click_input",
                "click_on_coordinates",
                "drag_on_coordinates",
                "set_edit_text",
                "keyboard_input",
                "wheel_mouse_input",
                "texts",
                "wait",
                "summary"
            ]
        );
        assert_eq!(Tool::SelectApplicationWindow.namespace(), HOST_UI_EXECUTOR);
        assert_eq!(
            Tool::GetDesktopAppInfo.tool_type(),
            ToolType::DataCollection
        );
        assert_eq!(Tool::ClickInput.tool_type(), ToolType::Action);
        assert!(matches!(
            "nope".parse::<Tool>(),
            Err(crate::error::DesktopError::UnknownTool(n)) if n == "nope"
        ));
    }
}
