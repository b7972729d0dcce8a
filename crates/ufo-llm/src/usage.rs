//! Token usage: per call ([`Usage`]), summed per step or session
//! ([`UsageTotals`]), and estimated image tokens for OpenAI-style vision.

use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

/// Tokens of one call, as the provider reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens.
    pub prompt_tokens: u64,
    /// Output tokens (reasoning/thought tokens included).
    pub completion_tokens: u64,
    /// Total, as reported, or the sum when the provider does not report it.
    pub total_tokens: u64,
}

impl Usage {
    /// Usage from input and output counts; the total is their sum.
    pub fn new(prompt_tokens: u64, completion_tokens: u64) -> Self {
        Self {
            prompt_tokens,
            completion_tokens,
            total_tokens: prompt_tokens + completion_tokens,
        }
    }
}

impl Add for Usage {
    type Output = Self;

    fn add(self, o: Self) -> Self {
        Self {
            prompt_tokens: self.prompt_tokens + o.prompt_tokens,
            completion_tokens: self.completion_tokens + o.completion_tokens,
            total_tokens: self.total_tokens + o.total_tokens,
        }
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, o: Self) {
        *self = *self + o;
    }
}

/// Usage and cost summed over calls: one per step, merged into one per session.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageTotals {
    /// Calls recorded.
    pub calls: u32,
    /// Summed tokens.
    pub usage: Usage,
    /// Summed cost in USD of the calls that had a price.
    pub cost: f64,
    /// Calls whose model had no price (their cost is not in `cost`).
    pub unpriced_calls: u32,
    /// Calls to a model that costs nothing (a local model, or a price of 0).
    #[serde(default)]
    pub local_calls: u32,
}

impl UsageTotals {
    /// Adds another total (a step's into the session's).
    pub fn merge(&mut self, other: &UsageTotals) {
        self.calls += other.calls;
        self.usage += other.usage;
        self.cost += other.cost;
        self.unpriced_calls += other.unpriced_calls;
        self.local_calls += other.local_calls;
    }

    /// What was spent since `before` (an earlier reading of the same totals).
    pub fn since(&self, before: &UsageTotals) -> UsageTotals {
        UsageTotals {
            calls: self.calls.saturating_sub(before.calls),
            usage: Usage {
                prompt_tokens: self
                    .usage
                    .prompt_tokens
                    .saturating_sub(before.usage.prompt_tokens),
                completion_tokens: self
                    .usage
                    .completion_tokens
                    .saturating_sub(before.usage.completion_tokens),
                total_tokens: self
                    .usage
                    .total_tokens
                    .saturating_sub(before.usage.total_tokens),
            },
            cost: (self.cost - before.cost).max(0.0),
            unpriced_calls: self.unpriced_calls.saturating_sub(before.unpriced_calls),
            local_calls: self.local_calls.saturating_sub(before.local_calls),
        }
    }

    /// The cost as UFO prints it per step: `$0.0123`.
    pub fn cost_step_string(&self) -> String {
        format!("${:.4}", self.cost)
    }

    /// The cost as UFO prints it per session: `$0.01`.
    pub fn cost_session_string(&self) -> String {
        format!("${:.2}", self.cost)
    }
}

/// OpenAI's image `detail`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Detail {
    /// A fixed base cost.
    Low,
    /// Tiles of 512 px.
    High,
    /// Treated as high.
    #[default]
    Auto,
}

impl Detail {
    /// Parses `low`/`high`/`auto` (anything else is `auto`).
    pub(crate) fn parse(s: Option<&str>) -> Self {
        match s.map(str::to_ascii_lowercase).as_deref() {
            Some("low") => Self::Low,
            Some("high") => Self::High,
            _ => Self::Auto,
        }
    }
}

/// Estimated input tokens of one image of `width`×`height` for an OpenAI vision
/// model.
///
/// Tile models: fit within 2048×2048, scale the shortest side down to 768, then
/// `base + tile × ⌈w/512⌉·⌈h/512⌉` (`low`: `base`). Small images are not scaled up
/// (OpenAI's documentation; AgentScope's counter scales up). Constants: gpt-4o and
/// most models 85/170, o1/o3 75/150, gpt-4o-mini 2833/5667. Patch models
/// (gpt-4.1-mini, gpt-4.1-nano, o4-mini): `⌈min(⌈w/32⌉·⌈h/32⌉, 1536) × m⌉` with
/// m = 1.62, 2.46, 1.72.
pub(crate) fn openai_image_tokens(model: &str, width: u32, height: u32, detail: Detail) -> u64 {
    let m = model.to_ascii_lowercase();
    let patch = [
        ("gpt-4.1-mini", 1.62),
        ("gpt-4.1-nano", 2.46),
        ("o4-mini", 1.72),
    ]
    .into_iter()
    .find(|(name, _)| m.contains(name));
    if let Some((_, mult)) = patch {
        let patches = (u64::from(width).div_ceil(32) * u64::from(height).div_ceil(32)).min(1536);
        return (patches as f64 * mult).ceil() as u64;
    }
    let (base, tile) = if m.contains("gpt-4o-mini") {
        (2833, 5667)
    } else if m.starts_with("o1") || m.starts_with("o3") {
        (75, 150)
    } else {
        (85, 170)
    };
    if detail == Detail::Low || width == 0 || height == 0 {
        return base;
    }
    let (mut w, mut h) = (f64::from(width), f64::from(height));
    let longest = w.max(h);
    if longest > 2048.0 {
        let s = 2048.0 / longest;
        w *= s;
        h *= s;
    }
    let shortest = w.min(h);
    if shortest > 768.0 {
        let s = 768.0 / shortest;
        w *= s;
        h *= s;
    }
    let tiles = ((w / 512.0).ceil() as u64) * ((h / 512.0).ceil() as u64);
    base + tile * tiles
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ChatResponse;

    #[test]
    fn image_token_vectors() {
        assert_eq!(openai_image_tokens("gpt-4o", 1024, 1024, Detail::High), 765);
        assert_eq!(
            openai_image_tokens("gpt-4o", 2048, 4096, Detail::High),
            1105
        );
        assert_eq!(openai_image_tokens("gpt-4o", 4096, 8192, Detail::Low), 85);
        assert_eq!(openai_image_tokens("gpt-4o", 512, 512, Detail::High), 255);
        assert_eq!(
            openai_image_tokens("o1", 1024, 1024, Detail::Auto),
            75 + 150 * 4
        );
        assert_eq!(
            openai_image_tokens("gpt-4o-mini", 1024, 1024, Detail::High),
            2833 + 5667 * 4
        );
        // 1024x1024 → 32·32 = 1024 patches × 1.62 = 1658.88 → 1659
        assert_eq!(
            openai_image_tokens("gpt-4.1-mini", 1024, 1024, Detail::High),
            1659
        );
        assert_eq!(
            openai_image_tokens("o4-mini", 4096, 4096, Detail::High),
            (1536.0f64 * 1.72).ceil() as u64
        );
    }

    #[test]
    fn totals_sum_steps_into_session() {
        let r = |p, c, cost| ChatResponse {
            usage: Usage::new(p, c),
            cost,
            ..ChatResponse::default()
        };
        let mut step1 = UsageTotals::default();
        step1.record(&r(100, 10, Some(0.5)));
        step1.record(&r(50, 5, None));
        let mut step2 = UsageTotals::default();
        step2.record(&r(1, 1, Some(0.25)));
        let mut session = UsageTotals::default();
        session.merge(&step1);
        session.merge(&step2);
        assert_eq!(session.calls, 3);
        assert_eq!(
            session.usage,
            Usage {
                prompt_tokens: 151,
                completion_tokens: 16,
                total_tokens: 167
            }
        );
        assert_eq!(session.cost, 0.75);
        assert_eq!(session.unpriced_calls, 1);
        assert_eq!(session.cost_session_string(), "$0.75");
        assert_eq!(step1.cost_step_string(), "$0.5000");
    }
}
