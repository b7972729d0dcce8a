//! What the eval tests share.

use std::path::Path;
use ufo_session::config::UfoConfig;

/// A config for unattended eval runs (no EvaluationAgent, no SAFE_GUARD
/// questions, no sleeps), plus `extra` YAML lines.
pub(crate) fn config(extra: &str) -> UfoConfig {
    UfoConfig::parse(
        &format!("EVA_SESSION: false\nSAFE_GUARD: false\nSLEEP_TIME: 0\n{extra}"),
        Path::new("."),
        &|_| None,
    )
    .unwrap()
}
