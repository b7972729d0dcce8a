//! A tool name read once: a tool of the catalog ([`Tool`], UFO's older
//! names included) or a name the catalog does not have (an external MCP
//! server's `<namespace>.<tool>`, or a tool a remote device offers).
//!
//! Model replies, plans and commands carry tool names as strings; past
//! parsing, code asks the [`ToolName`] what it is instead of comparing
//! strings, so an alias (`click_element`) and the canonical name
//! (`click_input`) can never be told apart by accident.

use super::Tool;
use serde_json::Value;
use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;

/// A parsed tool name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ToolName {
    /// A tool of the catalog.
    Builtin(Tool),
    /// A name the catalog does not have, trimmed, as given: an external
    /// tool (`fs.read_text_file`) or a device's own tool. It is routed as
    /// is; whoever executes it decides whether it exists.
    External(String),
}

impl ToolName {
    /// Reads `name`: a catalog name or one of its older names
    /// ([`super::LEGACY_NAMES`]) is [`ToolName::Builtin`], anything else
    /// [`ToolName::External`]. Surrounding whitespace is ignored.
    pub fn parse(name: &str) -> Self {
        let name = name.trim();
        match name.parse::<Tool>() {
            Ok(t) => ToolName::Builtin(t),
            Err(_) => ToolName::External(name.to_owned()),
        }
    }

    /// The name as it goes out: the catalog's name of a builtin
    /// (`click_input` for `click_element`), an external name as given.
    pub fn as_str(&self) -> &str {
        match self {
            ToolName::Builtin(t) => t.name(),
            ToolName::External(s) => s,
        }
    }

    /// The catalog tool, when it is one.
    pub fn builtin(&self) -> Option<Tool> {
        match self {
            ToolName::Builtin(t) => Some(*t),
            ToolName::External(_) => None,
        }
    }

    /// Whether it names `tool`.
    pub fn is(&self, tool: Tool) -> bool {
        self.builtin() == Some(tool)
    }

    /// Whether it is the empty name (UFO's "no action").
    pub fn is_empty(&self) -> bool {
        matches!(self, ToolName::External(s) if s.is_empty())
    }

    /// A command calling this tool with `arguments` (a JSON object): a
    /// builtin with its own tool type, an external name as an action.
    pub fn command(&self, arguments: Value) -> ufo_core::Command {
        match self {
            ToolName::Builtin(t) => t.command(arguments),
            ToolName::External(s) => ufo_core::Command::action(s.clone(), arguments),
        }
    }
}

impl From<Tool> for ToolName {
    fn from(t: Tool) -> Self {
        ToolName::Builtin(t)
    }
}

impl FromStr for ToolName {
    type Err = Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(ToolName::parse(s))
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use ufo_core::ToolType;

    #[test]
    fn catalog_and_older_names_are_builtins_the_rest_external() {
        for (given, want) in [
            ("click_input", ToolName::Builtin(Tool::ClickInput)),
            (" click_element ", ToolName::Builtin(Tool::ClickInput)),
            ("SetEditTextCommand", ToolName::Builtin(Tool::SetEditText)),
            ("summary", ToolName::Builtin(Tool::Summary)),
            (
                "fs.read_text_file",
                ToolName::External("fs.read_text_file".into()),
            ),
            (" fly ", ToolName::External("fly".into())),
            ("", ToolName::External(String::new())),
        ] {
            assert_eq!(ToolName::parse(given), want, "{given:?}");
        }
        assert_eq!(ToolName::parse("type_keys").as_str(), "set_edit_text");
        assert!(ToolName::parse("type_keys").is(Tool::SetEditText));
        assert!(!ToolName::parse("fs.x").is(Tool::SetEditText));
        assert!(ToolName::parse("  ").is_empty());
        assert_eq!(
            "Click_Input".parse(),
            Ok(ToolName::External("Click_Input".into()))
        );
    }

    #[test]
    fn commands_keep_the_tool_type() {
        let c = ToolName::parse("capture_window_screenshot").command(json!({}));
        assert_eq!(c.tool_type, ToolType::DataCollection);
        let c = ToolName::parse("click_element").command(json!({"id": "1"}));
        assert_eq!(
            (c.tool_name.as_str(), c.tool_type),
            ("click_input", ToolType::Action)
        );
        let c = ToolName::parse("fs.write_file").command(json!({}));
        assert_eq!(
            (c.tool_name.as_str(), c.tool_type),
            ("fs.write_file", ToolType::Action)
        );
    }
}
