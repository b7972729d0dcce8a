//! The `OPERATOR` section (UFO's key): the computer-use model of the
//! operator modes. `API_TYPE` names a computer-use format (`operator` for
//! OpenAI's Responses API, `claude`, or `ollama`/`custom` for a vision model
//! answering JSON actions); the other keys are an agent section's.

use super::Keys;
use crate::error::SessionError;
use serde_json::Value;
use ufo_llm::LlmConfig;
use ufo_llm::computer::ComputerApi;

/// Reads `OPERATOR`, if present.
pub(super) fn section(keys: &Keys<'_>) -> Result<Option<LlmConfig>, SessionError> {
    let m = match keys.top.get("OPERATOR") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(m)) => m.clone(),
        Some(other) => {
            return Err(SessionError::BadKey {
                key: "OPERATOR".into(),
                message: format!("must be a map of keys (API_TYPE, API_MODEL, ...), got {other}"),
            });
        }
    };
    let cfg: LlmConfig =
        serde_json::from_value(Value::Object(m)).map_err(|e| SessionError::BadKey {
            key: "OPERATOR".into(),
            message: e.to_string(),
        })?;
    if cfg.api_type.trim().is_empty() {
        return Err(SessionError::MissingKey {
            key: "OPERATOR.API_TYPE".into(),
            message: "operator (OpenAI Responses), claude, or ollama/custom".into(),
        });
    }
    ComputerApi::from_api_type(&cfg.api_type).map_err(|e| SessionError::BadKey {
        key: "OPERATOR.API_TYPE".into(),
        message: e.to_string(),
    })?;
    Ok(Some(cfg))
}
