//! Timestamps as UFO writes them (`datetime.now(timezone.utc).isoformat()`:
//! `2026-11-28T17:40:55.123456+00:00`), the compact stamp of generated
//! constellation ids (`20261128_174055`), and durations between two
//! timestamps.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;

/// `t` in UFO's ISO 8601 form, microseconds and `+00:00`.
pub(crate) fn iso(t: OffsetDateTime) -> String {
    let f = format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:6]+00:00"
    );
    t.to_offset(time::UtcOffset::UTC)
        .format(&f)
        .unwrap_or_default()
}

/// Now, in UFO's ISO 8601 form.
pub(crate) fn now() -> String {
    iso(OffsetDateTime::now_utc())
}

/// Now as `YYYYmmdd_HHMMSS` (UTC), for generated constellation ids.
pub(crate) fn stamp() -> String {
    let f = format_description!("[year][month][day]_[hour][minute][second]");
    OffsetDateTime::now_utc().format(&f).unwrap_or_default()
}

/// Seconds from `start` to `end`, both ISO 8601 (RFC 3339) timestamps;
/// `None` when either cannot be read.
pub(crate) fn seconds_between(start: &str, end: &str) -> Option<f64> {
    let a = OffsetDateTime::parse(start, &Rfc3339).ok()?;
    let b = OffsetDateTime::parse(end, &Rfc3339).ok()?;
    Some((b - a).as_seconds_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_look_like_python_isoformat_and_read_back() {
        let t = OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap()
            + time::Duration::microseconds(250);
        let text = iso(t);
        assert_eq!(text, "2023-11-14T22:13:20.000250+00:00");
        let later = iso(t + time::Duration::milliseconds(1500));
        assert_eq!(seconds_between(&text, &later), Some(1.5));
        assert_eq!(seconds_between("yesterday", &later), None);
        assert_eq!(stamp().len(), "20261128_174055".len());
        assert!(now().ends_with("+00:00"));
    }
}
