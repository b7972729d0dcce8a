//! The typed replies of the agents (UFO's `response_schema.py`), validated
//! with `ufo_llm::validate::parse_reply`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A list the model may also write as one string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TextList {
    /// A list of strings.
    Many(Vec<String>),
    /// One string.
    One(String),
}

impl Default for TextList {
    fn default() -> Self {
        TextList::Many(Vec::new())
    }
}

impl TextList {
    /// The non-empty items.
    pub fn items(&self) -> Vec<String> {
        match self {
            TextList::Many(v) => v.iter().filter(|s| !s.trim().is_empty()).cloned().collect(),
            TextList::One(s) if s.trim().is_empty() => Vec::new(),
            TextList::One(s) => vec![s.clone()],
        }
    }
}

/// One tool call of an AppAgent reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ActionCall {
    /// Tool name, e.g. `click_input`.
    pub function: String,
    /// Tool arguments.
    #[serde(default)]
    pub arguments: Map<String, Value>,
    /// The status after this action (`CONTINUE`, `FINISH`, ...).
    #[serde(default)]
    pub status: Option<String>,
}

/// `action`: one call or a sequence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Actions {
    /// A sequence (`ACTION_SEQUENCE`).
    Many(Vec<ActionCall>),
    /// A single call.
    One(ActionCall),
}

impl Actions {
    /// The calls in order.
    pub fn calls(&self) -> Vec<ActionCall> {
        match self {
            Actions::Many(v) => v.clone(),
            Actions::One(a) => vec![a.clone()],
        }
    }
}

/// `save_screenshot`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SaveScreenshot {
    /// Whether to save the current screenshot to the blackboard.
    #[serde(default)]
    pub save: bool,
    /// Why.
    #[serde(default)]
    pub reason: String,
}

/// The AppAgent's reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AppResponse {
    /// What the model sees.
    pub observation: String,
    /// Its reasoning.
    pub thought: String,
    /// The action(s) to take.
    #[serde(default)]
    pub action: Option<Actions>,
    /// A step status when no action carries one.
    #[serde(default)]
    pub status: Option<String>,
    /// The remaining plan.
    #[serde(default)]
    pub plan: TextList,
    /// Questions for the user (PENDING).
    #[serde(default)]
    pub questions: TextList,
    /// A comment.
    #[serde(default)]
    pub comment: Option<String>,
    /// Save the screenshot to the blackboard.
    #[serde(default)]
    pub save_screenshot: Option<SaveScreenshot>,
    /// The sub-task's answer.
    #[serde(default)]
    pub result: Option<Value>,
}

/// The HostAgent's reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HostResponse {
    /// What the model sees.
    pub observation: String,
    /// Its reasoning.
    pub thought: String,
    /// `ASSIGN`, `CONTINUE`, `PENDING`, `FINISH`, `FAIL`.
    pub status: String,
    /// The sub-task for the AppAgent.
    #[serde(default)]
    pub current_subtask: Option<String>,
    /// Messages for the AppAgent.
    #[serde(default)]
    pub message: TextList,
    /// The remaining plan.
    #[serde(default)]
    pub plan: TextList,
    /// The tool (`select_application_window`).
    #[serde(default)]
    pub function: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Option<Map<String, Value>>,
    /// Questions for the user (PENDING).
    #[serde(default)]
    pub questions: TextList,
    /// A comment.
    #[serde(default)]
    pub comment: Option<String>,
    /// The final result.
    #[serde(default)]
    pub result: Option<Value>,
    /// The seed's `Bash`: a command run before the application the reply
    /// selects (alone, it is read as a `run_shell` call).
    #[serde(default, rename = "Bash", skip_serializing_if = "Option::is_none")]
    pub bash: Option<String>,
}

/// One judged sub-goal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SubScore {
    /// The sub-goal.
    pub name: String,
    /// Whether it was reached.
    pub evaluation: Verdict,
}

/// An evaluation verdict, written `yes`, `no` or `unsure` (read in any case;
/// `true`/`false` too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Done.
    Yes,
    /// Not done.
    No,
    /// Cannot tell.
    Unsure,
}

impl Verdict {
    /// `yes`, `no` or `unsure`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Yes => "yes",
            Verdict::No => "no",
            Verdict::Unsure => "unsure",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Verdict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = Value::deserialize(d)?;
        let text = match &v {
            Value::String(s) => s.trim().to_ascii_lowercase(),
            Value::Bool(true) => "yes".into(),
            Value::Bool(false) => "no".into(),
            _ => String::new(),
        };
        match text.as_str() {
            "yes" | "true" => Ok(Verdict::Yes),
            "no" | "false" => Ok(Verdict::No),
            "unsure" => Ok(Verdict::Unsure),
            _ => Err(D::Error::custom(format!(
                "verdicts must be yes, no or unsure, got {v}"
            ))),
        }
    }
}

/// The EvaluationAgent's reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EvaluationResponse {
    /// Why.
    pub reason: String,
    /// Per sub-goal verdicts.
    #[serde(default)]
    pub sub_scores: Vec<SubScore>,
    /// Whether the request was completed.
    pub complete: Verdict,
}

/// Text of a JSON value without quotes for strings.
pub fn plain(v: &Option<Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// `fn(k="v", n=1)`: UFO's `action_string`.
pub fn action_string(function: &str, arguments: &Map<String, Value>) -> String {
    let args: Vec<String> = arguments
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s:?}"),
            other => format!("{k}={other}"),
        })
        .collect();
    format!("{function}({})", args.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ufo_llm::{ExtractOptions, parse_reply};

    #[test]
    fn app_reply_single_and_sequence() {
        let (r, _) = parse_reply::<AppResponse>(
            "```json\n{\"observation\":\"o\",\"thought\":\"t\",\"action\":{\"function\":\"click_input\",\"arguments\":{\"id\":\"3\",\"name\":\"7\"},\"status\":\"CONTINUE\"},\"plan\":\"next\"}\n```",
            ExtractOptions::lenient(),
        )
        .unwrap();
        assert_eq!(r.action.unwrap().calls().len(), 1);
        assert_eq!(r.plan.items(), vec!["next".to_owned()]);
        let (r, _) = parse_reply::<AppResponse>(
            "Sure! {\"observation\":\"o\",\"thought\":\"t\",\"action\":[{\"function\":\"a\",\"arguments\":{}},{\"function\":\"b\"}]} hope it helps",
            ExtractOptions::lenient(),
        )
        .unwrap();
        assert_eq!(r.action.unwrap().calls().len(), 2);
        let e = parse_reply::<AppResponse>("{\"observation\":\"o\"}", ExtractOptions::lenient())
            .unwrap_err();
        assert!(e.to_string().contains("thought"), "{e}");
    }

    #[test]
    fn action_string_is_ufo_style() {
        let mut m = Map::new();
        m.insert("id".into(), Value::String("3".into()));
        m.insert("double".into(), Value::Bool(false));
        assert_eq!(
            action_string("click_input", &m),
            "click_input(double=false, id=\"3\")"
        );
    }
}

/// The fields every agent reply has, copied into its step record.
pub trait AgentReply {
    /// What the model sees.
    fn observation(&self) -> &str;
    /// Its reasoning.
    fn thought(&self) -> &str;
    /// The remaining plan.
    fn plan(&self) -> Vec<String>;
    /// The comment, empty when none.
    fn comment(&self) -> String;
}

macro_rules! agent_reply {
    ($($t:ty),+) => {$(
        impl AgentReply for $t {
            fn observation(&self) -> &str {
                &self.observation
            }
            fn thought(&self) -> &str {
                &self.thought
            }
            fn plan(&self) -> Vec<String> {
                self.plan.items()
            }
            fn comment(&self) -> String {
                self.comment.clone().unwrap_or_default()
            }
        }
    )+};
}

agent_reply!(AppResponse, HostResponse);
