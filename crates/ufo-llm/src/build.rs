//! Models from configuration: an agent section becomes an [`HttpModel`] (or a
//! [`ReplayModel`] for `API_TYPE: replay`), with its `BACKUP_AGENT` behind a
//! [`FallbackModel`].

use std::sync::Arc;

use crate::client::HttpModel;
use crate::config::{ApiType, LlmConfig};
use crate::cost::PriceTable;
use crate::error::LlmError;
use crate::model::{ChatModel, FallbackModel};
use crate::replay::ReplayModel;

/// The model for one agent section: [`HttpModel`] for providers (formatting
/// with the section's `FORMAT_STRATEGY`), [`ReplayModel`] for `API_TYPE: replay`.
pub fn build_model(
    cfg: &LlmConfig,
    prices: Option<Arc<PriceTable>>,
) -> Result<Arc<dyn ChatModel>, LlmError> {
    if cfg.api_type == ApiType::Replay {
        return Ok(Arc::new(ReplayModel::from_config(cfg)?));
    }
    let mut m = HttpModel::new(cfg.clone())?.with_strategy(cfg.strategy()?)?;
    if let Some(p) = prices {
        m = m.with_prices(p);
    }
    Ok(Arc::new(m))
}

/// The model for an agent with an optional `BACKUP_AGENT` section.
pub fn build_with_backup(
    primary: &LlmConfig,
    backup: Option<&LlmConfig>,
    prices: Option<Arc<PriceTable>>,
) -> Result<Arc<dyn ChatModel>, LlmError> {
    let p = build_model(primary, prices.clone())?;
    match backup {
        Some(b) => Ok(Arc::new(FallbackModel::new(p, build_model(b, prices)?))),
        None => Ok(p),
    }
}
