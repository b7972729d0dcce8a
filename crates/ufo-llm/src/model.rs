//! The interface agents call: [`ChatModel`] and its fallback wrapper
//! [`FallbackModel`]. Constructors from configuration are in [`crate::build`].

use std::sync::Arc;

use async_trait::async_trait;
use ufo_core::Diagnostic;

use crate::error::LlmError;
use crate::message::{ChatRequest, ChatResponse};

/// A chat model. Object-safe: agents hold `Arc<dyn ChatModel>`.
///
/// Contract of [`ChatModel::chat`]:
/// * `Ok` carries the reply text (possibly empty), the provider's usage, the cost
///   when the model has a price, the answering model's name and the latency with
///   retries included;
/// * `Err` is an [`LlmError`] after retries are exhausted; it never contains an
///   API key. Retryable failures have already been retried; configuration errors
///   (401/403/404, missing keys) are returned at once.
#[async_trait]
pub trait ChatModel: Send + Sync {
    /// Sends one request and waits for the whole reply.
    async fn chat(&self, request: ChatRequest) -> Result<ChatResponse, LlmError>;

    /// `provider/model`, for logs.
    fn describe(&self) -> String;
}

/// A primary model with a `BACKUP_AGENT` model: when the primary fails for any
/// reason (after its own retries), the same request goes to the backup once, as
/// UFO's `get_completions(use_backup_engine=True)` does.
pub struct FallbackModel {
    primary: Arc<dyn ChatModel>,
    backup: Arc<dyn ChatModel>,
}

impl FallbackModel {
    /// Wraps a primary and a backup model.
    pub fn new(primary: Arc<dyn ChatModel>, backup: Arc<dyn ChatModel>) -> Self {
        Self { primary, backup }
    }
}

#[async_trait]
impl ChatModel for FallbackModel {
    async fn chat(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        match self.primary.chat(request.clone()).await {
            Ok(r) => Ok(r),
            Err(primary) => {
                tracing::warn!(
                    target: "ufo_llm",
                    primary = %self.primary.describe(),
                    backup = %self.backup.describe(),
                    code = primary.code(),
                    "primary model failed, asking the BACKUP_AGENT model: {primary}"
                );
                match self.backup.chat(request).await {
                    Ok(mut r) => {
                        r.used_backup = true;
                        r.warnings.push(format!(
                            "answered by the backup model {} because {} failed: [{}] {primary}",
                            self.backup.describe(),
                            self.primary.describe(),
                            primary.code()
                        ));
                        Ok(r)
                    }
                    Err(backup) => Err(LlmError::Fallback {
                        primary: Box::new(primary),
                        backup: Box::new(backup),
                    }),
                }
            }
        }
    }

    fn describe(&self) -> String {
        format!(
            "{} (backup {})",
            self.primary.describe(),
            self.backup.describe()
        )
    }
}
