//! Retry policy: exponential backoff with jitter, honouring `Retry-After`.
//!
//! The loop itself lives in [`crate::client`]; this module only decides how long to
//! wait, so it can be tested without a clock.

use std::time::Duration;

/// Default retries after the first attempt (`MAX_RETRY`).
pub const DEFAULT_MAX_RETRY: u32 = 3;

/// How often and how long to retry a retryable failure (429, 5xx, timeouts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 = try once).
    pub max_retries: u32,
    /// The first backoff delay; doubled on each retry.
    pub base_delay: Duration,
    /// The longest wait, for backoff and for a server's `Retry-After` alike.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: DEFAULT_MAX_RETRY,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
        }
    }
}

impl RetryPolicy {
    /// A policy with tiny delays, for tests and demos.
    pub fn immediate(max_retries: u32) -> Self {
        Self {
            max_retries,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(5),
        }
    }

    /// The wait before retry number `retry` (0-based). A server's `Retry-After` wins
    /// over backoff; both are capped by `max_delay`. Backoff is
    /// `base · 2^retry` minus up to 25 % jitter (as UFO's Gemini client does).
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after {
            return after.min(self.max_delay);
        }
        let exp = self
            .base_delay
            .saturating_mul(1u32.checked_shl(retry.min(20)).unwrap_or(u32::MAX))
            .min(self.max_delay);
        let jitter: f64 = rand::random::<f64>() * 0.25;
        exp.mul_f64(1.0 - jitter)
    }
}

/// The longest `Retry-After` honoured, in seconds.
const MAX_RETRY_AFTER_SECS: f64 = 3600.0;

/// Parses a `Retry-After` header: delay-seconds (fractions allowed) or an HTTP date.
pub(crate) fn parse_retry_after(value: &str) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<f64>() {
        // A server may say anything: at most an hour is honoured.
        return (secs.is_finite() && secs >= 0.0)
            .then(|| Duration::from_secs_f64(secs.min(MAX_RETRY_AFTER_SECS)));
    }
    // An HTTP date in the past or unparseable: retry after the normal backoff.
    let when = httpdate_to_unix(v)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    Some(Duration::from_secs(when.saturating_sub(now)))
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) to Unix seconds.
fn httpdate_to_unix(v: &str) -> Option<u64> {
    let parts: Vec<&str> = v.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    let day: u64 = day.parse().ok()?;
    let year: i64 = year.parse().ok()?;
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| m == month)? as i64
        + 1;
    let hms: Vec<u64> = time.split(':').filter_map(|p| p.parse().ok()).collect();
    let [h, m, s] = hms.as_slice() else {
        return None;
    };
    // Days from civil (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days)
        .ok()
        .map(|d| d * 86_400 + h * 3600 + m * 60 + s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_retry_after_is_capped_not_a_panic() {
        assert_eq!(parse_retry_after("1e300"), Some(Duration::from_secs(3600)));
        assert_eq!(parse_retry_after("inf"), None);
        assert_eq!(parse_retry_after("-3"), None);
    }

    #[test]
    fn retry_after_wins_and_is_capped() {
        let p = RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(2),
        };
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(1))),
            Duration::from_secs(1)
        );
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(30))),
            Duration::from_secs(2)
        );
        let d = p.delay(2, None);
        assert!(
            d <= Duration::from_millis(400) && d >= Duration::from_millis(300),
            "{d:?}"
        );
        assert!(p.delay(30, None) <= Duration::from_secs(2));
    }

    #[test]
    fn parses_retry_after_forms() {
        assert_eq!(parse_retry_after("3"), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(
            httpdate_to_unix("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(parse_retry_after("soon"), None);
    }
}
