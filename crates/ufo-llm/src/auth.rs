//! Azure AD (Entra ID) bearer tokens for `API_TYPE: azure_ad`.
//!
//! Where the token comes from, first match wins:
//! 1. `AAD_TOKEN_ENV`: the named environment variable (an error if it is unset);
//! 2. `AAD_TOKEN_COMMAND`: a shell command whose stdout is the token;
//! 3. the `AZURE_OPENAI_AD_TOKEN` environment variable, if set;
//! 4. `az account get-access-token --scope api://{AAD_API_SCOPE_BASE}/.default
//!    --query accessToken -o tsv` (scope `https://cognitiveservices.azure.com/.default`
//!    without `AAD_API_SCOPE_BASE`; `--tenant AAD_TENANT_ID` when set).
//!
//! The token is cached for [`TOKEN_TTL`]. It never appears in logs or errors.

use std::time::{Duration, Instant};

use tokio::sync::Mutex;

use crate::config::LlmConfig;
use crate::error::LlmError;
use crate::redact::{Secret, scrub};

/// How long a fetched token is reused (Entra tokens live 60–90 minutes).
pub(crate) const TOKEN_TTL: Duration = Duration::from_secs(30 * 60);

/// The default environment variable checked for a token.
pub(crate) const DEFAULT_TOKEN_ENV: &str = "AZURE_OPENAI_AD_TOKEN";

/// A cached token source.
#[derive(Debug, Default)]
pub(crate) struct TokenCache {
    cached: Mutex<Option<(Secret, Instant)>>,
}

impl TokenCache {
    /// The current token, fetched when missing or stale.
    pub(crate) async fn token(&self, cfg: &LlmConfig) -> Result<Secret, LlmError> {
        let mut guard = self.cached.lock().await;
        if let Some((t, at)) = guard.as_ref()
            && at.elapsed() < TOKEN_TTL
        {
            return Ok(t.clone());
        }
        let token = fetch(cfg).await?;
        *guard = Some((token.clone(), Instant::now()));
        Ok(token)
    }
}

/// The command used when neither `AAD_TOKEN_ENV` nor `AAD_TOKEN_COMMAND` is set.
pub(crate) fn default_command(cfg: &LlmConfig) -> String {
    let scope = match cfg
        .aad_api_scope_base
        .as_deref()
        .filter(|s| !s.trim().is_empty())
    {
        Some(base) => format!("api://{base}/.default"),
        None => "https://cognitiveservices.azure.com/.default".to_owned(),
    };
    let mut cmd = format!("az account get-access-token --scope {scope} --query accessToken -o tsv");
    if let Some(t) = cfg
        .aad_tenant_id
        .as_deref()
        .filter(|s| !s.trim().is_empty())
    {
        cmd.push_str(&format!(" --tenant {t}"));
    }
    cmd
}

async fn fetch(cfg: &LlmConfig) -> Result<Secret, LlmError> {
    if let Some(var) = cfg.aad_token_env.as_deref().filter(|s| !s.is_empty()) {
        return match std::env::var(var) {
            Ok(t) if !t.trim().is_empty() => Ok(Secret::new(t.trim())),
            _ => Err(LlmError::Token {
                message: format!("environment variable {var} (AAD_TOKEN_ENV) is not set"),
            }),
        };
    }
    let command = match cfg
        .aad_token_command
        .as_deref()
        .filter(|s| !s.trim().is_empty())
    {
        Some(c) => c.to_owned(),
        None => {
            if let Ok(t) = std::env::var(DEFAULT_TOKEN_ENV)
                && !t.trim().is_empty()
            {
                return Ok(Secret::new(t.trim()));
            }
            default_command(cfg)
        }
    };
    let (shell, flag) = if cfg!(windows) {
        ("cmd", "/C")
    } else {
        ("sh", "-c")
    };
    let out = tokio::process::Command::new(shell)
        .arg(flag)
        .arg(&command)
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| LlmError::Token {
            message: format!("cannot run `{command}`: {e}"),
        })?;
    let token = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if !out.status.success() || token.is_empty() {
        let secret = Secret::new(token);
        let stderr: String = String::from_utf8_lossy(&out.stderr)
            .chars()
            .take(300)
            .collect();
        return Err(LlmError::Token {
            message: format!(
                "`{command}` failed ({}): {}",
                out.status,
                scrub(stderr.trim(), &[&secret])
            ),
        });
    }
    Ok(Secret::new(token))
}
