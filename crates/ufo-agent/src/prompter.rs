//! The prompter: YAML templates with UFO's keys, placeholder filling, tool
//! documentation from the tool catalog, examples, retrieved documents and the
//! blackboard.
//!
//! Templates are YAML maps whose string values may contain `{name}`
//! placeholders; as in UFO's Python `str.format`, `{{` and `}}` stand for
//! literal braces. Placeholders without a value are left as they are.

use crate::error::AgentError;
use serde_json::Value;
use std::path::Path;
use ufo_core::ToolSpec;

/// A parsed prompt template (any of UFO's template files).
#[derive(Debug, Clone)]
pub struct Template {
    /// Where it came from (path or `built-in:<name>`), for errors.
    pub source_name: String,
    /// The parsed YAML.
    pub value: Value,
}

impl Template {
    /// Parses YAML text.
    pub fn parse(source_name: impl Into<String>, yaml: &str) -> Result<Self, AgentError> {
        let source_name = source_name.into();
        let value: Value = serde_saphyr::from_str(yaml).map_err(|e| AgentError::Template {
            source_name: source_name.clone(),
            message: format!("not valid YAML: {e}"),
        })?;
        if !value.is_object() {
            return Err(AgentError::Template {
                source_name,
                message: "the template must be a YAML map".into(),
            });
        }
        Ok(Self { source_name, value })
    }

    /// Reads and parses a template file.
    pub fn load(path: &Path) -> Result<Self, AgentError> {
        let text = std::fs::read_to_string(path).map_err(|e| AgentError::Template {
            source_name: path.display().to_string(),
            message: format!("cannot read it: {e}"),
        })?;
        Self::parse(path.display().to_string(), &text)
    }

    /// The string under `key`, or an error naming the key.
    pub fn get(&self, key: &str) -> Result<&str, AgentError> {
        self.value
            .get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| AgentError::Template {
                source_name: self.source_name.clone(),
                message: format!("the key `{key}` is missing or not a string"),
            })
    }

    /// The string under `key`, if present.
    pub fn opt(&self, key: &str) -> Option<&str> {
        self.value.get(key).and_then(Value::as_str)
    }

    /// The text under `key` with `vars` filled in; a user template without
    /// the key falls back to the built-in template `builtin` (ufo-rs keys
    /// UFO's own templates do not have).
    pub fn text_or(&self, builtin: &str, key: &str, vars: &[(&str, &str)]) -> String {
        let own = self.opt(key).map(str::to_owned);
        let text = own.or_else(|| {
            Template::parse("built-in", builtin)
                .ok()
                .and_then(|t| t.opt(key).map(str::to_owned))
        });
        render(&text.unwrap_or_default(), vars)
    }

    /// The string under `section.key` (e.g. `images.clean`), if present.
    pub fn nested(&self, section: &str, key: &str) -> Option<&str> {
        self.value.get(section)?.get(key)?.as_str()
    }
}

/// Fills `{name}` placeholders from `vars`; `{{`/`}}` become `{`/`}`.
pub fn render(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(r) = tail.strip_prefix("{{") {
            out.push('{');
            rest = r;
        } else if let Some(r) = tail.strip_prefix("}}") {
            out.push('}');
            rest = r;
        } else if let Some(after) = tail.strip_prefix('{') {
            let hit = after.find('}').and_then(|c| {
                let name = &after[..c];
                vars.iter().find(|(k, _)| *k == name).map(|(_, v)| (c, *v))
            });
            match hit {
                Some((c, v)) => {
                    out.push_str(v);
                    rest = &after[c + 1..];
                }
                None => {
                    out.push('{');
                    rest = after;
                }
            }
        } else {
            out.push('}');
            rest = tail.strip_prefix('}').unwrap_or_default();
        }
    }
    out.push_str(rest);
    out
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

/// The built-in layout of the shared prompt parts
/// (`prompts/share/layout.yaml`): tool documentation, examples, blackboard.
pub const LAYOUT: &str = include_str!("../../../prompts/share/layout.yaml");

/// The layout template, parsed once.
pub fn layout() -> &'static Template {
    static PARSED: std::sync::LazyLock<Template> = std::sync::LazyLock::new(|| {
        Template::parse("built-in:share/layout.yaml", LAYOUT).unwrap_or(Template {
            source_name: "built-in:share/layout.yaml".into(),
            value: Value::Object(Default::default()),
        })
    });
    &PARSED
}

/// The layout's text under `key` (empty when missing).
pub(crate) fn words(key: &str) -> &'static str {
    layout().opt(key).unwrap_or_default()
}

/// One tool documented for a model, in the layout of UFO's
/// `tool_to_llm_prompt` (`tool`, `tool_parameter`, `tool_example` of the
/// layout): name, description, parameters (type, required or optional,
/// description, default), returns and an example call.
pub fn tool_to_llm_prompt(spec: &ToolSpec, generate_example: bool) -> String {
    let props = spec
        .parameters
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let required: Vec<&str> = spec
        .parameters
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let params: Vec<String> = props
        .iter()
        .map(|(k, v)| {
            let ty = v.get("type").and_then(Value::as_str).unwrap_or("unknown");
            let need = match required.contains(&k.as_str()) {
                true => words("tool_required"),
                false => words("tool_optional"),
            };
            let desc = v.get("description").and_then(Value::as_str).unwrap_or("");
            let default = v
                .get("default")
                .map(value_text)
                .unwrap_or_else(|| words("tool_no_default").to_owned());
            render(
                words("tool_parameter"),
                &[
                    ("name", k),
                    ("type", ty),
                    ("need", need),
                    ("description", desc),
                    ("default", &default),
                ],
            )
        })
        .collect();
    let parameters = match params.is_empty() {
        true => words("tool_no_parameters").to_owned(),
        false => params.join("\n"),
    };
    let returns = spec
        .parameters
        .get("returns")
        .and_then(Value::as_str)
        .unwrap_or(words("tool_returns"));
    let mut s = render(
        words("tool"),
        &[
            ("name", &spec.name),
            ("description", spec.description.trim()),
            ("parameters", &parameters),
            ("returns", returns),
        ],
    );
    if generate_example {
        let example = spec.examples.first().cloned().unwrap_or_else(|| {
            let args: Vec<String> = props
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{k}={}",
                        v.get("default")
                            .map(value_text)
                            .unwrap_or_else(|| "\"\"".into())
                    )
                })
                .collect();
            format!("{}({})", spec.name, args.join(", "))
        });
        s.push_str(&render(words("tool_example"), &[("example", &example)]));
    }
    s
}

/// Every tool documented, joined with the layout's `tool_separator` (UFO's
/// `tools_to_llm_prompt`).
pub fn tools_to_llm_prompt(specs: &[ToolSpec], generate_example: bool) -> String {
    specs
        .iter()
        .map(|s| tool_to_llm_prompt(s, generate_example))
        .collect::<Vec<_>>()
        .join(words("tool_separator"))
}

/// UFO's `retrieved_documents_prompt_helper`: an optional `<header:>` line and
/// each document, optionally preceded by `[separator i:]`.
pub fn retrieved_documents_prompt_helper(
    header: &str,
    separator: &str,
    documents: &[String],
) -> String {
    let mut prompt = if header.is_empty() {
        String::new()
    } else {
        format!("\n<{header}:>\n")
    };
    for (i, d) in documents.iter().enumerate() {
        if !separator.is_empty() {
            prompt.push_str(&format!("[{separator} {}:]\n", i + 1));
        }
        prompt.push_str(d);
        prompt.push_str("\n\n");
    }
    prompt
}

/// The `example1..N` entries of an example template rendered as
/// the layout's `example` blocks under a header. The header and separator can
/// be set in the file (`header`, `separator`).
pub fn examples_prompt(examples: &Template) -> String {
    examples_prompt_with(examples, &[])
}

/// [`examples_prompt`] followed by `extra` examples `{Request, Sub-task,
/// Tips, Response}` (retrieved experiences and demonstrations, UFO's
/// additional examples), numbered after the template's own.
pub fn examples_prompt_with(examples: &Template, extra: &[Value]) -> String {
    let docs: Vec<String> = numbered_examples(&examples.value)
        .into_iter()
        .chain(extra.iter())
        .map(|v| {
            render(
                words("example"),
                &[
                    ("request", &field(v, "Request")),
                    ("subtask", &field(v, "Sub-task")),
                    ("tips", &field(v, "Tips")),
                    (
                        "response",
                        &v.get("Response").map(Value::to_string).unwrap_or_default(),
                    ),
                ],
            )
        })
        .collect();
    if docs.is_empty() {
        return String::new();
    }
    retrieved_documents_prompt_helper(
        examples.opt("header").unwrap_or(words("examples_header")),
        examples
            .opt("separator")
            .unwrap_or(words("examples_separator")),
        &docs,
    )
}

/// The `example1..N` entries of an example file's map, in number order
/// (`example10` after `example9`; an entry not numbered last).
pub(crate) fn numbered_examples(map: &Value) -> Vec<&Value> {
    let Some(map) = map.as_object() else {
        return Vec::new();
    };
    let mut keys: Vec<(&String, &Value)> = map
        .iter()
        .filter(|(k, _)| k.starts_with("example"))
        .collect();
    keys.sort_by_key(|(k, _)| {
        k.trim_start_matches("example")
            .parse::<u32>()
            .unwrap_or(u32::MAX)
    });
    keys.into_iter().map(|(_, v)| v).collect()
}

/// An example's field as prompt text: a string trimmed, anything else as
/// JSON, nothing when absent.
pub(crate) fn field(v: &Value, k: &str) -> String {
    match v.get(k) {
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// The retrieved knowledge of the user prompt's `{retrieved_docs}`, in UFO's
/// layout (the layout's `help_documents*` and `online_search*` keys): help
/// documents under "[Help Documents]" as `[Similar Requests]: …` / `Step: …`,
/// then online search results. Empty when nothing was retrieved.
pub fn knowledge_prompt(help_docs: &[Value], online: &[Value]) -> String {
    let s = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let mut out = String::new();
    if !help_docs.is_empty() {
        let docs: Vec<String> = help_docs
            .iter()
            .map(|d| {
                render(
                    words("help_document"),
                    &[("title", &s(d, "title")), ("text", &s(d, "text"))],
                )
            })
            .collect();
        out.push_str(&retrieved_documents_prompt_helper(
            words("help_documents_header"),
            words("help_documents_separator"),
            &docs,
        ));
    }
    if !online.is_empty() {
        let docs: Vec<String> = online
            .iter()
            .map(|d| {
                render(
                    words("online_search_result"),
                    &[
                        ("title", &s(d, "title")),
                        ("url", &s(d, "url")),
                        ("text", &s(d, "text")),
                    ],
                )
            })
            .collect();
        out.push_str(&retrieved_documents_prompt_helper(
            words("online_search_header"),
            words("online_search_separator"),
            &docs,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_fills_known_placeholders_and_unescapes_braces() {
        let t = "a {x} {{\"k\": 1}} {unknown} }";
        assert_eq!(render(t, &[("x", "X")]), "a X {\"k\": 1} {unknown} }");
    }

    #[test]
    fn tool_docs_have_ufo_layout() {
        let spec = ufo_desktop::tools::Tool::ClickInput.spec();
        let s = tool_to_llm_prompt(&spec, true);
        assert!(
            s.starts_with("Tool name: click_input\nDescription: "),
            "{s}"
        );
        assert!(s.contains("- id (string, required): "), "{s}");
        assert!(
            s.contains("- button (string, optional): Mouse button. Default: \"left\""),
            "{s}"
        );
        assert!(s.contains("Example usage:\nclick_input("), "{s}");
        let all = tools_to_llm_prompt(&ufo_desktop::tools::catalog()[..2], false);
        assert!(all.contains("\n\n---\n\n"));
        // The whole layout, from prompts/share/layout.yaml.
        assert_eq!(
            tool_to_llm_prompt(&ufo_desktop::tools::Tool::Wait.spec(), true),
            "Tool name: wait\nDescription: Wait a number of seconds (at most 300), e.g. while an application loads.\n\nParameters:\n- seconds (number, required): Seconds to wait, 0 to 300. Default: N/A\n\nReturns: the result of the call\n\nExample usage:\nwait(seconds=2)\n"
        );
        assert_eq!(layout().source_name, "built-in:share/layout.yaml");
    }

    #[test]
    fn texts_fall_back_to_the_built_in_template() {
        let user = Template::parse("mine.yaml", "gave_up: \"stop after {times}\"\n").unwrap();
        let builtin = crate::prompts::APP_AGENT;
        assert_eq!(
            user.text_or(builtin, "gave_up", &[("times", "3")]),
            "stop after 3"
        );
        assert!(
            user.text_or(builtin, "declined", &[])
                .contains("declined by the user")
        );
    }

    #[test]
    fn retrieved_knowledge_has_ufo_layout() {
        let docs =
            [serde_json::json!({"title": "Change the font", "text": "Open View\nChoose Font"})];
        let web = [serde_json::json!({"title": "T", "url": "https://x.example/", "text": "body"})];
        assert_eq!(
            knowledge_prompt(&docs, &[]),
            "\n<[Help Documents]:>\n[Similar Requests]: Change the font\nStep: Open View\nChoose Font\n\n"
        );
        let both = knowledge_prompt(&docs, &web);
        assert!(both.contains("<Online Search Results:>\n[Search Result 1:]\n[Title]: T\n[URL]: https://x.example/\nbody"), "{both}");
        assert_eq!(knowledge_prompt(&[], &[]), "");
        // Retrieved experiences follow the template's own examples.
        let t = Template::parse("t", "example1:\n  Request: own\n  Response: {a: 1}\n").unwrap();
        let extra = [
            serde_json::json!({"Request": "saved", "Sub-task": "s", "Tips": "tip", "Response": {"Function": "f"}}),
        ];
        let e = examples_prompt_with(&t, &extra);
        assert!(
            e.find("own").unwrap() < e.find("[Example 2:]\n[User Request]:\n    saved").unwrap(),
            "{e}"
        );
    }

    #[test]
    fn retrieved_docs_and_examples() {
        let s = retrieved_documents_prompt_helper("Docs", "Document", &["a".into(), "b".into()]);
        assert_eq!(s, "\n<Docs:>\n[Document 1:]\na\n\n[Document 2:]\nb\n\n");
        let t = Template::parse(
            "t",
            "example2:\n  Request: r2\n  Response: {status: FINISH}\nexample1:\n  Request: r1\n  Sub-task: s1\n  Tips: tip\n  Response: {a: 1}\n",
        )
        .unwrap();
        let e = examples_prompt(&t);
        let i1 = e.find("r1").unwrap();
        let i2 = e.find("r2").unwrap();
        assert!(i1 < i2);
        assert!(e.contains("[Example 1:]") && e.contains("{\"a\":1}") && e.contains("tip"));
    }
}
