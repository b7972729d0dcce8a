//! The template set used by the agents: the built-in defaults shipped under
//! `prompts/` (embedded in the binary, so it works from any directory) or the
//! user's files named in the config.

use crate::error::AgentError;
use crate::prompter::Template;
use std::path::PathBuf;

/// Built-in HostAgent template (`prompts/host_agent.yaml`).
pub const HOST_AGENT: &str = include_str!("../../../prompts/host_agent.yaml");
/// Built-in AppAgent template (`prompts/app_agent.yaml`).
pub const APP_AGENT: &str = include_str!("../../../prompts/app_agent.yaml");
/// Built-in EvaluationAgent template (`prompts/evaluation/evaluate.yaml`).
pub const EVALUATION: &str = include_str!("../../../prompts/evaluation/evaluate.yaml");
/// Built-in HostAgent examples.
pub const HOST_EXAMPLES: &str =
    include_str!("../../../prompts/examples/visual/host_agent_example.yaml");
/// Built-in AppAgent examples (single action).
pub const APP_EXAMPLES: &str =
    include_str!("../../../prompts/examples/visual/app_agent_example.yaml");
/// Built-in AppAgent examples (action sequence).
pub const APP_EXAMPLES_AS: &str =
    include_str!("../../../prompts/examples/visual/app_agent_example_as.yaml");
/// Built-in HostAgent examples without screenshots.
pub const HOST_EXAMPLES_NONVISUAL: &str =
    include_str!("../../../prompts/examples/nonvisual/host_agent_example.yaml");
/// Built-in AppAgent examples without screenshots (single action).
pub const APP_EXAMPLES_NONVISUAL: &str =
    include_str!("../../../prompts/examples/nonvisual/app_agent_example.yaml");
/// Built-in AppAgent examples without screenshots (action sequence).
pub const APP_EXAMPLES_AS_NONVISUAL: &str =
    include_str!("../../../prompts/examples/nonvisual/app_agent_example_as.yaml");

/// Paths of user templates; `None` keeps the built-in one. Config keys:
/// `HOST_AGENT.PROMPT`, `HOST_AGENT.EXAMPLE_PROMPT`, `APP_AGENT.PROMPT`,
/// `APP_AGENT.EXAMPLE_PROMPT`, `APP_AGENT.EXAMPLE_PROMPT_AS`,
/// `EVALUATION_AGENT.PROMPT`.
#[derive(Debug, Clone, Default)]
pub struct PromptPaths {
    /// HostAgent template.
    pub host: Option<PathBuf>,
    /// HostAgent examples.
    pub host_examples: Option<PathBuf>,
    /// AppAgent template.
    pub app: Option<PathBuf>,
    /// AppAgent examples.
    pub app_examples: Option<PathBuf>,
    /// AppAgent action-sequence examples.
    pub app_examples_as: Option<PathBuf>,
    /// EvaluationAgent template.
    pub evaluation: Option<PathBuf>,
    /// The HostAgent works without screenshots (`HOST_AGENT.VISUAL_MODE:
    /// false`): its built-in examples are the non-visual ones.
    pub host_nonvisual: bool,
    /// The same for the AppAgent.
    pub app_nonvisual: bool,
}

/// Every template the agents use.
#[derive(Debug, Clone)]
pub struct PromptSet {
    /// HostAgent template.
    pub host: Template,
    /// HostAgent examples.
    pub host_examples: Template,
    /// AppAgent template.
    pub app: Template,
    /// AppAgent examples.
    pub app_examples: Template,
    /// AppAgent action-sequence examples.
    pub app_examples_as: Template,
    /// EvaluationAgent template.
    pub evaluation: Template,
}

fn pick(path: &Option<PathBuf>, name: &str, builtin: &str) -> Result<Template, AgentError> {
    match path {
        Some(p) => Template::load(p),
        None => Template::parse(format!("built-in:{name}"), builtin),
    }
}

/// An agent's main template (`PROMPT`): without its `system` or `user` text
/// the agent would send an empty prompt, so a file missing either is an
/// error naming the key.
fn pick_main(path: &Option<PathBuf>, name: &str, builtin: &str) -> Result<Template, AgentError> {
    let t = pick(path, name, builtin)?;
    for key in ["system", "user"] {
        if t.opt(key).is_none_or(|v| v.trim().is_empty()) {
            return Err(AgentError::Template {
                source_name: t.source_name.clone(),
                message: format!(
                    "the key `{key}` is missing, empty or not a string; an agent's PROMPT template needs `system` and `user` texts (UFO's keys)"
                ),
            });
        }
    }
    Ok(t)
}

impl PromptSet {
    /// The built-in templates.
    pub fn builtin() -> Result<Self, AgentError> {
        Self::load(&PromptPaths::default())
    }

    /// User templates where given, built-ins elsewhere.
    pub fn load(paths: &PromptPaths) -> Result<Self, AgentError> {
        Ok(Self {
            host: pick_main(&paths.host, "host_agent.yaml", HOST_AGENT)?,
            host_examples: match paths.host_nonvisual {
                false => pick(
                    &paths.host_examples,
                    "host_agent_example.yaml",
                    HOST_EXAMPLES,
                )?,
                true => pick(
                    &paths.host_examples,
                    "nonvisual/host_agent_example.yaml",
                    HOST_EXAMPLES_NONVISUAL,
                )?,
            },
            app: pick_main(&paths.app, "app_agent.yaml", APP_AGENT)?,
            app_examples: match paths.app_nonvisual {
                false => pick(&paths.app_examples, "app_agent_example.yaml", APP_EXAMPLES)?,
                true => pick(
                    &paths.app_examples,
                    "nonvisual/app_agent_example.yaml",
                    APP_EXAMPLES_NONVISUAL,
                )?,
            },
            app_examples_as: match paths.app_nonvisual {
                false => pick(
                    &paths.app_examples_as,
                    "app_agent_example_as.yaml",
                    APP_EXAMPLES_AS,
                )?,
                true => pick(
                    &paths.app_examples_as,
                    "nonvisual/app_agent_example_as.yaml",
                    APP_EXAMPLES_AS_NONVISUAL,
                )?,
            },
            evaluation: pick_main(&paths.evaluation, "evaluate.yaml", EVALUATION)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_have_ufo_keys() {
        let p = PromptSet::builtin().unwrap();
        for k in ["system", "system_nonvisual", "user"] {
            p.host.get(k).unwrap();
            p.app.get(k).unwrap();
        }
        p.app.get("system_as").unwrap();
        p.evaluation.get("system").unwrap();
        assert!(p.host.get("system").unwrap().contains("{apis}"));
        assert!(p.app.get("user").unwrap().contains("{control_item}"));
        assert!(crate::prompter::examples_prompt(&p.app_examples_as).contains("Example 1"));
        // Without screenshots, the examples speak of the control list.
        let blind = PromptSet::load(&PromptPaths {
            host_nonvisual: true,
            app_nonvisual: true,
            ..PromptPaths::default()
        })
        .unwrap();
        for t in [&blind.app_examples, &blind.app_examples_as] {
            let text = crate::prompter::examples_prompt(t);
            assert!(text.contains("control list"), "{text}");
            assert!(!text.contains("screenshot"), "{text}");
        }
        assert!(crate::prompter::examples_prompt(&blind.host_examples).contains("run_shell"));
        assert!(crate::prompter::examples_prompt(&p.host_examples).contains("run_shell"));
    }

    #[test]
    fn a_user_prompt_without_system_or_user_is_an_error_not_an_empty_prompt() {
        use ufo_core::Diagnostic;
        let dir = std::env::temp_dir().join(format!("ufo-prompts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (text, key) in [
            ("user: \"{user_request}\"\n", "system"),
            ("system: \"You are an agent.\"\n", "user"),
            ("system: \"\"\nuser: \"x\"\n", "system"),
        ] {
            let f = dir.join("app.yaml");
            std::fs::write(&f, text).unwrap();
            for paths in [
                PromptPaths {
                    app: Some(f.clone()),
                    ..PromptPaths::default()
                },
                PromptPaths {
                    host: Some(f.clone()),
                    ..PromptPaths::default()
                },
            ] {
                let e = PromptSet::load(&paths).unwrap_err();
                assert_eq!(e.code(), "ufo::agent::template");
                let shown = e.to_string();
                assert!(shown.contains(&format!("`{key}`")), "{shown}");
                assert!(shown.contains("app.yaml"), "{shown}");
                assert!(e.help().unwrap().contains("PROMPT"), "{e:?}");
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
