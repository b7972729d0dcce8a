//! The catalog, one row per tool: its name, namespace, typed arguments
//! ([`super::params`]), whether it targets a listed control, whether it can
//! lose work, its description and examples. The JSON schema a model is shown,
//! the argument parsing and the executor's input all come from that row.

use super::params;
use serde_json::Value;
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
/// Namespace of the operator's coordinate tools (`click`, `type`, ...).
pub const OPERATOR_EXECUTOR: &str = "OperatorExecutor";
/// Namespace of the tools the session itself calls (closing a task's
/// application); no agent is shown them.
pub const SESSION_EXECUTOR: &str = "SessionExecutor";

macro_rules! tools {
    ($(
        $(#[$m:meta])*
        $v:ident => $s:literal {
            namespace: $ns:expr,
            args: $args:ty,
            control: $control:literal,
            destructive: $destructive:literal,
            description: $description:literal,
            examples: [$($ex:literal),* $(,)?] $(,)?
        }
    ),+ $(,)?) => {
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

            /// The tool's namespace.
            pub fn namespace(self) -> &'static str {
                match self {
                    $( Tool::$v => $ns, )+
                }
            }

            /// Whether its `id` (and `name`) designate a listed control.
            pub fn targets_control(self) -> bool {
                match self {
                    $( Tool::$v => $control, )+
                }
            }

            /// Whether a call can lose work (SAFE_GUARD reads its arguments;
            /// see [`super::guard`]).
            pub fn destructive(self) -> bool {
                match self {
                    $( Tool::$v => $destructive, )+
                }
            }

            /// The description a model reads.
            pub fn description(self) -> &'static str {
                match self {
                    $( Tool::$v => $description, )+
                }
            }

            /// Example calls.
            pub fn examples(self) -> &'static [&'static str] {
                match self {
                    $( Tool::$v => &[$($ex),*], )+
                }
            }

            /// The JSON schema of the arguments, derived from their type.
            pub fn parameters(self) -> Value {
                match self {
                    $( Tool::$v => params::schema_of::<$args>(), )+
                }
            }
        }

        impl FromStr for Tool {
            type Err = crate::error::DesktopError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s.trim() {
                    $( $s => Ok(Tool::$v), )+
                    other => LEGACY_NAMES
                        .iter()
                        .find(|(legacy, _)| *legacy == other)
                        .map(|(_, t)| *t)
                        .ok_or_else(|| crate::error::DesktopError::UnknownTool(other.to_owned())),
                }
            }
        }
    };
}

/// UFO's older names for tools of the catalog, accepted wherever a tool name
/// is parsed (recorded plans, model replies, remote commands) and read as the
/// tool they name; everything past parsing uses [`Tool::name`].
///
/// * `click_element`, `select_application`: the follower plan format of UFO's
///   session documentation;
/// * `set_text`, `type_keys`: the pywinauto calls behind `set_edit_text`
///   (UFO's `INPUT_TEXT_API`);
/// * `ClickInputCommand`, `SetEditTextCommand`, ...: UFO's command classes
///   (`ufo/automator/ui_control/controller.py`), as its older logs name
///   actions.
pub const LEGACY_NAMES: &[(&str, Tool)] = &[
    ("click_element", Tool::ClickInput),
    ("select_application", Tool::SelectApplicationWindow),
    ("set_text", Tool::SetEditText),
    ("type_keys", Tool::SetEditText),
    ("ClickInputCommand", Tool::ClickInput),
    ("ClickOnCoordinatesCommand", Tool::ClickOnCoordinates),
    ("DragOnCoordinatesCommand", Tool::DragOnCoordinates),
    ("SetEditTextCommand", Tool::SetEditText),
    ("keyboardInputCommand", Tool::KeyboardInput),
    ("KeyboardInputCommand", Tool::KeyboardInput),
    ("WheelMouseInputCommand", Tool::WheelMouseInput),
    ("GetTextsCommand", Tool::Texts),
    ("SummaryCommand", Tool::Summary),
];

tools! {
    /// Click a listed control.
    ClickInput => "click_input" {
        namespace: APP_UI_EXECUTOR,
        args: params::ClickInput,
        control: true,
        destructive: false,
        description: "Click a control from the current control list. `id` and `name` must be the id and the name of the same listed control. Use button=\"right\" for a context menu and double=true to open an item.",
        examples: [r#"click_input(id="12", name="Save", button="left", double=false)"#],
    },
    /// Click at window-relative fractions.
    ClickOnCoordinates => "click_on_coordinates" {
        namespace: APP_UI_EXECUTOR,
        args: params::ClickOnCoordinates,
        control: false,
        destructive: false,
        description: "Click a point of the application window given as fractions of its size: x and y from 0 (left/top edge) to 1 (right/bottom edge). Use only for targets that are not in the control list.",
        examples: [r#"click_on_coordinates(x=0.5, y=0.25, button="left", double=false)"#],
    },
    /// Drag between window-relative fractions.
    DragOnCoordinates => "drag_on_coordinates" {
        namespace: APP_UI_EXECUTOR,
        args: params::DragOnCoordinates,
        control: false,
        destructive: false,
        description: "Drag with the mouse from (start_x, start_y) to (end_x, end_y), each a fraction of the application window (0 = left/top edge, 1 = right/bottom edge), optionally holding a key such as \"shift\" or \"ctrl\".",
        examples: [r#"drag_on_coordinates(start_x=0.1, start_y=0.5, end_x=0.6, end_y=0.5, button="left", duration=1.0)"#],
    },
    /// Set or append an edit control's text (verified).
    SetEditText => "set_edit_text" {
        namespace: APP_UI_EXECUTOR,
        args: params::SetEditText,
        control: true,
        destructive: true,
        description: "Enter text into an edit control. With clear_current_text=true the control's whole text is replaced by `text`; otherwise `text` is appended at the end of what is there. The text is read back afterwards and the call fails if it did not take effect. `text` is literal: no key syntax.",
        examples: [r#"set_edit_text(id="3", name="File name", text="report.txt", clear_current_text=true)"#],
    },
    /// Send a pywinauto key sequence.
    KeyboardInput => "keyboard_input" {
        namespace: APP_UI_EXECUTOR,
        args: params::KeyboardInput,
        control: true,
        destructive: true,
        description: "Press keys, focusing the control first (control_focus=true) or sending them to whatever has focus (control_focus=false; id and name may then be omitted). `keys` uses pywinauto syntax: literal text, {ENTER}, {TAB 3} (repeat), {F5}, {ESC}, {BACKSPACE}, {DELETE}, {HOME}, {END}, {LEFT}, {PGDN}; ^x = Ctrl+x, %x = Alt+x, +x = Shift+x, #x = Win+x; +(abc) holds Shift for a group; ~ = Enter; {{}, {}}, {+}, {^}, {%}, {~} type those characters; {SHIFT down}...{SHIFT up} holds a key.",
        examples: [
            r#"keyboard_input(id="5", name="Search", keys="hello{ENTER}", control_focus=true)"#,
            r#"keyboard_input(keys="^s", control_focus=false)"#,
        ],
    },
    /// Scroll over a control.
    WheelMouseInput => "wheel_mouse_input" {
        namespace: APP_UI_EXECUTOR,
        args: params::WheelMouseInput,
        control: true,
        destructive: false,
        description: "Scroll the mouse wheel over a control. wheel_dist is the number of wheel notches: positive scrolls up, negative scrolls down.",
        examples: [r#"wheel_mouse_input(id="2", name="Document", wheel_dist=-5)"#],
    },
    /// Read a control's text.
    Texts => "texts" {
        namespace: APP_UI_EXECUTOR,
        args: params::Texts,
        control: true,
        destructive: false,
        description: "Read the full text of a control (useful for long documents whose text is cut in the control list).",
        examples: [r#"texts(id="2", name="Document")"#],
    },
    /// Sleep.
    Wait => "wait" {
        namespace: APP_UI_EXECUTOR,
        args: params::Wait,
        control: false,
        destructive: false,
        description: "Wait a number of seconds (at most 300), e.g. while an application loads.",
        examples: ["wait(seconds=2)"],
    },
    /// Return a text answer.
    Summary => "summary" {
        namespace: APP_UI_EXECUTOR,
        args: params::Summary,
        control: false,
        destructive: false,
        description: "Give a text answer or summary of what you observed; does not touch the application.",
        examples: [r#"summary(text="The total is 42.")"#],
    },
    /// HostAgent: choose the window to work on.
    SelectApplicationWindow => "select_application_window" {
        namespace: HOST_UI_EXECUTOR,
        args: params::SelectApplicationWindow,
        control: false,
        destructive: false,
        description: "Select the application window to work on, by the id and name shown in the window list. The window is raised and focused.",
        examples: [r#"select_application_window(id="2", name="Calculator")"#],
    },
    /// Screenshot of the selected window.
    CaptureWindowScreenshot => "capture_window_screenshot" {
        namespace: UI_COLLECTOR,
        args: params::NoArgs,
        control: false,
        destructive: false,
        description: "Screenshot of the selected application window, as a PNG data URL with the frame (screen origin and scale) of its pixels.",
        examples: [],
    },
    /// Labelled controls of the selected window.
    GetAppWindowControlsTargetInfo => "get_app_window_controls_target_info" {
        namespace: UI_COLLECTOR,
        args: params::FieldList,
        control: false,
        destructive: false,
        description: "The interactive controls of the selected application window, filtered and numbered 1..N in reading order; these ids are what the other tools accept.",
        examples: [],
    },
    /// The numbered list of open windows.
    GetDesktopAppInfo => "get_desktop_app_info" {
        namespace: UI_COLLECTOR,
        args: params::NoArgs,
        control: false,
        destructive: false,
        description: "The open application windows, numbered 1..N; select_application_window accepts these ids.",
        examples: [],
    },
    /// Screenshot of the whole desktop (the HostAgent's view).
    CaptureDesktopScreenshot => "capture_desktop_screenshot" {
        namespace: UI_COLLECTOR,
        args: params::NoArgs,
        control: false,
        destructive: false,
        description: "A screenshot of the whole desktop, as a PNG data URL with the frame that maps it to screen coordinates.",
        examples: [],
    },
    /// The full accessibility tree of the selected window (for `ui_trees/` logs).
    GetUiTree => "get_ui_tree" {
        namespace: UI_COLLECTOR,
        args: params::NoArgs,
        control: false,
        destructive: false,
        description: "The full accessibility tree of the selected window (every node, not only the listed controls), as JSON.",
        examples: [],
    },
    /// HostAgent: start an allowlisted application (no shell).
    RunShell => "run_shell" {
        namespace: COMMAND_LINE_EXECUTOR,
        args: params::RunShell,
        control: false,
        destructive: true,
        description: "Start an application that is not open yet, by its program name and plain arguments (no shell: no pipes, redirections, quotes or variables). It returns once the application is running; its window then appears in the window list, to be assigned with select_application_window.",
        examples: [r#"run_shell(bash_command="mousepad")"#],
    },
    /// The session: close an application when its task is done (a task
    /// file's `close`).
    CloseApplication => "close_application" {
        namespace: SESSION_EXECUTOR,
        args: params::CloseApplication,
        control: false,
        destructive: false,
        description: "Close an application the way a person does: each of its windows is asked to close, and the call returns once none is open. Nothing is forced: an application that asks whether to save stays open, and the call says so.",
        examples: [r#"close_application(name="mousepad")"#],
    },
    /// Command-line agent: run one allowlisted read-only command (no shell).
    /// Destructive to MCP clients, which auto-approve what is not: it runs
    /// programs, however narrowly (SAFE_GUARD's default rule leaves it to
    /// the command policy; `SAFE_GUARD_TOOLS` can list it).
    ExecuteCommand => "execute_command" {
        namespace: BASH_EXECUTOR,
        args: params::ExecuteCommand,
        control: false,
        destructive: true,
        description: "Run one read-only command-line program with its arguments and return its exit code, standard output and standard error. There is no shell: no pipes, redirections, command lists, substitutions or variables; quote an argument that holds spaces. Only the allowed programs run, with options that do not write, delete or execute.",
        examples: [
            r#"execute_command(command="ls -l /tmp")"#,
            r#"execute_command(command="wc -l notes.txt", cwd="/home/user")"#,
        ],
    },
    /// Command-line agent: the operating system, host and user.
    GetSystemInfo => "get_system_info" {
        namespace: BASH_EXECUTOR,
        args: params::NoArgs,
        control: false,
        destructive: false,
        description: "The operating system, kernel, architecture, host name, user and default working directory.",
        examples: ["get_system_info()"],
    },
    /// Operator: click at a screen point.
    Click => "click" {
        namespace: OPERATOR_EXECUTOR,
        args: params::operator::Click,
        control: false,
        destructive: false,
        description: "Click at a point of the screen, in screen pixels.",
        examples: [r#"click(x=120, y=340, button="left")"#],
    },
    /// Operator: double-click at a screen point.
    DoubleClick => "double_click" {
        namespace: OPERATOR_EXECUTOR,
        args: params::operator::At,
        control: false,
        destructive: false,
        description: "Double-click at a point of the screen, in screen pixels.",
        examples: ["double_click(x=120, y=340)"],
    },
    /// Operator: drag along a path of screen points.
    Drag => "drag" {
        namespace: OPERATOR_EXECUTOR,
        args: params::operator::Drag,
        control: false,
        destructive: false,
        description: "Press the left button at the path's first point, move through it and release at its last (screen pixels).",
        examples: [r#"drag(path=[{"x": 10, "y": 20}, {"x": 200, "y": 20}])"#],
    },
    /// Operator: press keys together.
    Keypress => "keypress" {
        namespace: OPERATOR_EXECUTOR,
        args: params::operator::Keypress,
        control: false,
        destructive: true,
        description: "Press keys together and release them, e.g. [\"ctrl\", \"s\"] or [\"enter\"].",
        examples: [r#"keypress(keys=["ctrl", "a"])"#],
    },
    /// Operator: move the pointer.
    Move => "move" {
        namespace: OPERATOR_EXECUTOR,
        args: params::operator::At,
        control: false,
        destructive: false,
        description: "Move the mouse pointer to a point of the screen (screen pixels), without clicking.",
        examples: ["move(x=300, y=200)"],
    },
    /// Operator: scroll the wheel at a screen point.
    Scroll => "scroll" {
        namespace: OPERATOR_EXECUTOR,
        args: params::operator::Scroll,
        control: false,
        destructive: false,
        description: "Scroll the mouse wheel at a point of the screen: scroll_y notches, positive down, negative up.",
        examples: ["scroll(x=300, y=200, scroll_y=3)"],
    },
    /// Operator: type text.
    Type => "type" {
        namespace: OPERATOR_EXECUTOR,
        args: params::operator::TypeText,
        control: false,
        destructive: false,
        description: "Type text into the focused control, as it is.",
        examples: [r#"type(text="hello")"#],
    },
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Tool {
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

    /// True when the tool only reads (an MCP client may call it without
    /// asking): the data collectors and `get_system_info`.
    pub fn reads_only(self) -> bool {
        self.tool_type() == ToolType::DataCollection || self == Self::GetSystemInfo
    }

    /// The full specification.
    pub fn spec(self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_owned(),
            namespace: self.namespace().to_owned(),
            description: self.description().to_owned(),
            parameters: self.parameters(),
            tool_type: self.tool_type(),
            destructive: self.destructive(),
            targets_control: self.targets_control(),
            examples: self.examples().iter().map(|s| (*s).to_owned()).collect(),
        }
    }
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
                    BASH_EXECUTOR,
                    OPERATOR_EXECUTOR,
                    SESSION_EXECUTOR
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
        // UFO's older names read as the tool they name, and only as that.
        for (legacy, tool) in LEGACY_NAMES {
            assert_eq!(legacy.parse::<Tool>().unwrap(), *tool, "{legacy}");
            assert!(Tool::ALL.iter().all(|t| t.name() != *legacy), "{legacy}");
        }
        assert_eq!(
            "click_element".parse::<Tool>().unwrap().name(),
            "click_input"
        );
        assert!(matches!(
            "nope".parse::<Tool>(),
            Err(crate::error::DesktopError::UnknownTool(n)) if n == "nope"
        ));
    }
}
