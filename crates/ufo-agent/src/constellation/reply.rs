//! The ConstellationAgent's reply (brief §2.3): `{thought, status,
//! constellation?, action?, results?}`, read as the other agents read
//! theirs (fences and extra text tolerated, JSON repaired, keys in another
//! case accepted) and checked before use.

use crate::normalize::Normalize;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ufo_galaxy::edit::Action;

/// The agent's status: what its model said, or what the agent decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AgentStatus {
    /// The plan has work left.
    Continue,
    /// The request is done.
    Finish,
    /// The request cannot be done.
    Fail,
}

impl AgentStatus {
    /// Reads a status in any case; UFO's own spelling `FAILED` is `FAIL`.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_uppercase().as_str() {
            "CONTINUE" => Some(Self::Continue),
            "FINISH" | "FINISHED" => Some(Self::Finish),
            "FAIL" | "FAILED" => Some(Self::Fail),
            _ => None,
        }
    }

    /// `CONTINUE`, `FINISH` or `FAIL`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Continue => "CONTINUE",
            Self::Finish => "FINISH",
            Self::Fail => "FAIL",
        }
    }
}

impl std::fmt::Display for AgentStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One edit of a reply's `action` list.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ReplyAction {
    /// The edit function (`add_task`, …).
    #[serde(default)]
    pub function: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Value,
}

impl From<&ReplyAction> for Action {
    fn from(a: &ReplyAction) -> Self {
        Action {
            function: a.function.clone(),
            arguments: a.arguments.clone(),
        }
    }
}

/// The model's reply, as read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConstellationReply {
    /// Its reasoning (required, not empty).
    pub thought: String,
    /// `CONTINUE`, `FINISH` or `FAIL` (any case).
    pub status: String,
    /// The plan (creation): UFO's constellation JSON, either shape.
    #[serde(default)]
    pub constellation: Option<Value>,
    /// The edits (editing), in order; empty or absent: no change.
    #[serde(default)]
    pub action: Option<Vec<ReplyAction>>,
    /// Progress, the answer (FINISH) or the reason (FAIL).
    #[serde(default)]
    pub results: Option<Value>,
}

impl ConstellationReply {
    /// The status, checked, and the reply's own contradictions: an empty
    /// thought or an unknown status is an error to re-ask with.
    pub fn check(&self) -> Result<AgentStatus, String> {
        if self.thought.trim().is_empty() {
            return Err("`thought` is empty; explain your decision in it".into());
        }
        AgentStatus::parse(&self.status).ok_or_else(|| {
            format!(
                "`status` is {:?}; it must be one of CONTINUE, FINISH, FAIL",
                self.status
            )
        })
    }

    /// The edits as the editor reads them.
    pub fn actions(&self) -> Vec<Action> {
        self.action.iter().flatten().map(Action::from).collect()
    }

    /// `results` as text (a string as is, anything else as JSON; empty
    /// when absent).
    pub fn results_text(&self) -> String {
        match &self.results {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        }
    }
}

/// Canonical top-level keys by their squashed spelling.
const KEYS: &[(&str, &str)] = &[
    ("thought", "thought"),
    ("thoughts", "thought"),
    ("status", "status"),
    ("constellation", "constellation"),
    ("action", "action"),
    ("actions", "action"),
    ("results", "results"),
    ("result", "results"),
];

impl Normalize for ConstellationReply {
    fn normalize(reply: &mut Value, repairs: &mut Vec<String>) {
        let Some(map) = reply.as_object_mut() else {
            return;
        };
        let keys: Vec<String> = map.keys().cloned().collect();
        for key in keys {
            let squashed: String = key
                .chars()
                .filter(|c| !matches!(c, '_' | '-' | ' '))
                .flat_map(char::to_lowercase)
                .collect();
            let Some((_, canonical)) = KEYS.iter().find(|(k, _)| *k == squashed) else {
                continue;
            };
            if key != *canonical
                && !map.contains_key(*canonical)
                && let Some(v) = map.remove(&key)
            {
                repairs.push(format!("key `{key}` read as `{canonical}`"));
                map.insert((*canonical).to_owned(), v);
            }
        }
        // One action given as an object, not a list.
        if let Some(one) = map.get_mut("action").filter(|a| a.is_object()) {
            *one = Value::Array(vec![one.take()]);
            repairs.push("a single `action` object read as a list of one".into());
        }
        // A status given as a non-string (rare): left for the schema to name.
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn statuses_read_in_any_case_and_ufos_failed() {
        assert_eq!(AgentStatus::parse("continue"), Some(AgentStatus::Continue));
        assert_eq!(AgentStatus::parse(" FAILED"), Some(AgentStatus::Fail));
        assert_eq!(AgentStatus::parse("START"), None);
    }

    #[test]
    fn keys_are_brought_into_shape() {
        let mut v = json!({"Thought": "t", "STATUS": "FINISH", "Actions": {"function": "remove_task", "arguments": {"task_id": "a"}}, "result": "ok"});
        let mut repairs = Vec::new();
        ConstellationReply::normalize(&mut v, &mut repairs);
        let r: ConstellationReply = serde_json::from_value(v).unwrap();
        assert_eq!(r.check(), Ok(AgentStatus::Finish));
        assert_eq!(r.actions().len(), 1);
        assert_eq!(r.results_text(), "ok");
        assert_eq!(repairs.len(), 5, "{repairs:?}");
    }

    #[test]
    fn an_empty_thought_or_unknown_status_is_named() {
        let r = ConstellationReply {
            thought: " ".into(),
            status: "FINISH".into(),
            constellation: None,
            action: None,
            results: None,
        };
        assert!(r.check().unwrap_err().contains("thought"));
        let r = ConstellationReply {
            thought: "t".into(),
            status: "DONE".into(),
            ..r
        };
        assert!(r.check().unwrap_err().contains("CONTINUE, FINISH, FAIL"));
    }
}
