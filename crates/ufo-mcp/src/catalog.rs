//! Tool descriptions both ways: our catalog's rows as MCP tools, and an
//! external server's MCP tools as [`ToolSpec`]s an agent can be shown.
//!
//! Nothing here keeps a second list of tools: the MCP schema, description
//! and annotations of each of our tools come from its row in
//! `ufo_desktop::tools` (`readOnlyHint` for the data collectors,
//! `destructiveHint` from the same flag SAFE_GUARD reads).

use rmcp::model::{JsonObject, Tool as McpTool, ToolAnnotations};
use serde_json::Value;
use std::sync::Arc;
use ufo_core::{ToolSpec, ToolType};
use ufo_desktop::tools::Tool;

/// Separates an external server's namespace from its tool's name
/// (`fs.read_text_file`). A namespace never contains it, so the first one
/// splits a name unambiguously.
pub const SEPARATOR: char = '.';

/// Every tool of our catalog as an MCP tool, in catalog order (what
/// `ufo act --list` lists).
pub fn desktop_tools() -> Vec<McpTool> {
    Tool::ALL.iter().map(|t| mcp_tool(*t)).collect()
}

/// One tool of our catalog as an MCP tool: its name, description, input
/// schema and annotations.
pub fn mcp_tool(tool: Tool) -> McpTool {
    let schema = match tool.parameters() {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    };
    let read_only = tool.reads_only();
    let annotations = ToolAnnotations::with_title(title(tool.name()))
        .read_only(read_only)
        .destructive(tool.destructive())
        .open_world(false);
    let mut t = McpTool::new(tool.name(), tool.description(), Arc::new(schema));
    t.annotations = Some(annotations);
    t
}

/// `set_edit_text` → `Set edit text`.
fn title(name: &str) -> String {
    let mut s = name.replace('_', " ");
    if let Some(first) = s.get(..1) {
        let up = first.to_ascii_uppercase();
        s.replace_range(..1, &up);
    }
    s
}

/// Whether SAFE_GUARD treats an external tool as one that can lose work:
/// unless its server says it only reads (`readOnlyHint: true`) or that it
/// is not destructive (`destructiveHint: false`), it is — MCP's own
/// defaults, and a tool whose server says nothing is not trusted.
pub fn external_destructive(annotations: Option<&ToolAnnotations>) -> bool {
    match annotations {
        None => true,
        Some(a) if a.read_only_hint == Some(true) => false,
        Some(a) => a.destructive_hint.unwrap_or(true),
    }
}

/// An external server's tool as an agent sees it: named
/// `<namespace>.<tool>`, its description and input schema as the server
/// gave them, destructive as [`external_destructive`] says.
pub fn external_spec(namespace: &str, tool: &McpTool) -> ToolSpec {
    let read_only = tool
        .annotations
        .as_ref()
        .and_then(|a| a.read_only_hint)
        .unwrap_or(false);
    let description = tool
        .description
        .as_deref()
        .or(tool.title.as_deref())
        .unwrap_or_default()
        .trim()
        .to_owned();
    ToolSpec {
        name: format!("{namespace}{SEPARATOR}{}", tool.name),
        namespace: namespace.to_owned(),
        description,
        parameters: Value::Object((*tool.input_schema).clone()),
        tool_type: match read_only {
            true => ToolType::DataCollection,
            false => ToolType::Action,
        },
        destructive: external_destructive(tool.annotations.as_ref()),
        targets_control: false,
        examples: Vec::new(),
    }
}

/// What an agent is shown for an external server that did not start: one
/// entry `<namespace>.*` whose description is the error, so that the model
/// knows, and a call of any of its tools fails with that error.
pub fn unavailable_spec(namespace: &str, why: &ufo_core::ErrorReport) -> ToolSpec {
    let mut description = why.to_string();
    for c in &why.causes {
        description.push_str(&format!(" (caused by: {c})"));
    }
    if let Some(h) = &why.help {
        description.push_str(&format!(" (help: {h})"));
    }
    ToolSpec {
        name: format!("{namespace}{SEPARATOR}*"),
        namespace: namespace.to_owned(),
        description,
        parameters: serde_json::json!({"type": "object", "properties": {}}),
        tool_type: ToolType::Action,
        destructive: false,
        targets_control: false,
        examples: Vec::new(),
    }
}

/// Splits `fs.read_text_file` into (`fs`, `read_text_file`).
pub fn split(name: &str) -> Option<(&str, &str)> {
    name.split_once(SEPARATOR)
        .filter(|(ns, tool)| !ns.is_empty() && !tool.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_catalog_tool_is_served_with_its_schema_and_hints() {
        let tools = desktop_tools();
        assert_eq!(tools.len(), Tool::ALL.len());
        for (t, m) in Tool::ALL.iter().zip(&tools) {
            assert_eq!(m.name, t.name());
            assert_eq!(Value::Object((*m.input_schema).clone()), t.parameters());
            let a = m.annotations.as_ref().unwrap();
            assert_eq!(a.read_only_hint, Some(t.reads_only()), "{t}");
            assert_eq!(a.destructive_hint, Some(t.destructive()), "{t}");
        }
        // Running programs is never presented as harmless; reading the
        // system's description is.
        let hints = |name: &str| {
            let t = tools.iter().find(|t| t.name == name).unwrap();
            let a = t.annotations.as_ref().unwrap();
            (a.read_only_hint, a.destructive_hint)
        };
        assert_eq!(hints("execute_command"), (Some(false), Some(true)));
        assert_eq!(hints("get_system_info"), (Some(true), Some(false)));
        let set = tools.iter().find(|t| t.name == "set_edit_text").unwrap();
        assert_eq!(
            set.annotations.as_ref().unwrap().destructive_hint,
            Some(true)
        );
        assert_eq!(
            set.annotations.as_ref().unwrap().title.as_deref(),
            Some("Set edit text")
        );
        let shot = tools
            .iter()
            .find(|t| t.name == "capture_window_screenshot")
            .unwrap();
        assert_eq!(
            shot.annotations.as_ref().unwrap().read_only_hint,
            Some(true)
        );
    }

    #[test]
    fn external_tools_are_destructive_unless_their_server_says_otherwise() {
        assert!(external_destructive(None));
        assert!(external_destructive(Some(&ToolAnnotations::new())));
        assert!(!external_destructive(Some(
            &ToolAnnotations::new().read_only(true)
        )));
        assert!(!external_destructive(Some(
            &ToolAnnotations::new().destructive(false)
        )));
        assert!(external_destructive(Some(
            &ToolAnnotations::new().read_only(false).destructive(true)
        )));
    }

    #[test]
    fn external_specs_are_namespaced_and_keep_the_servers_schema() {
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
        let mut t = McpTool::new(
            "read_text_file",
            "Read a file.",
            Arc::new(schema.as_object().unwrap().clone()),
        );
        t.annotations = Some(ToolAnnotations::new().read_only(true));
        let s = external_spec("fs", &t);
        assert_eq!(s.name, "fs.read_text_file");
        assert_eq!(s.namespace, "fs");
        assert_eq!(s.parameters, schema);
        assert!(!s.destructive);
        assert_eq!(split(&s.name), Some(("fs", "read_text_file")));
        assert_eq!(split("a.b.c"), Some(("a", "b.c")));
        assert_eq!(split("click_input"), None);
        assert_eq!(split(".x"), None);
    }
}
