//! `compare_time_in_speedtest_results` (OSWorld `general.py`): the time of
//! day in the second row of a speed test's CSV export, against the clock.
//!
//! OSWorld reads the second line's second comma-separated field, takes its
//! last five characters as `%H:%M` and scores 1 when they are fewer than
//! `time_diff` minutes (its `int()`) from the time of day now, both on the
//! same day (no wrap at midnight); anything unreadable scores 0. "Now" is
//! the clock in UTC here, as the getters' dates (`time_suffix`) are: on a
//! machine whose local time is not UTC, OSWorld's `datetime.now()` differs.

use serde_json::Value;

use super::{CheckError, Cx, Got};

/// `compare_time_in_speedtest_results`.
pub(super) fn compare_time_in_speedtest_results(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(path) = cx.result_path().filter(|p| !p.as_os_str().is_empty()) else {
        return Ok(0.0);
    };
    let now = time::OffsetDateTime::now_utc();
    let now = i64::from(now.hour()) * 60 + i64::from(now.minute());
    let score = std::fs::read(&path)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| second_row_time(&text))
        .zip(cx.expected.and_then(python_int))
        .is_some_and(|(at, within)| (at - now).abs() < within);
    Ok(if score { 1.0 } else { 0.0 })
}

/// Minutes since midnight of the `%H:%M` that ends the second field of the
/// second line (Python's universal newlines), when `strptime` takes it:
/// the field's last five characters (all of a shorter one) must be
/// `(2[0-3]|[01]\d|\d):([0-5]\d|\d)` and nothing else.
fn second_row_time(text: &str) -> Option<i64> {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let line = text.split_inclusive('\n').nth(1)?;
    let field = line.split(',').nth(1)?;
    let chars: Vec<char> = field.chars().collect();
    let last: String = chars[chars.len().saturating_sub(5)..].iter().collect();
    let (h, m) = last.split_once(':')?;
    let number = |s: &str, max: i64| -> Option<i64> {
        let ok = matches!(s.len(), 1 | 2) && s.bytes().all(|b| b.is_ascii_digit());
        ok.then(|| s.parse::<i64>().ok())
            .flatten()
            .filter(|n| *n <= max)
    };
    Some(number(h, 23)? * 60 + number(m, 59)?)
}

/// Python's `int()` of what the `time_diff_range` getter gave: a number
/// (truncated) or a string of digits with an optional sign and spaces
/// around; `None` where `int()` raises.
fn python_int(g: &Got) -> Option<i64> {
    let from_text = |t: &str| {
        let t = t.trim();
        let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
        let clean: String = digits.chars().filter(|c| *c != '_').collect();
        let ok = !clean.is_empty()
            && clean.chars().all(|c| c.is_ascii_digit())
            && !digits.starts_with('_')
            && !digits.ends_with('_')
            && !digits.contains("__");
        let n: i64 = if ok { clean.parse().ok()? } else { return None };
        Some(if t.starts_with('-') { -n } else { n })
    };
    match g {
        Got::Text(t) => from_text(t),
        Got::Json(Value::String(t)) => from_text(t),
        Got::Json(Value::Number(n)) => n.as_i64().or_else(|| n.as_f64().map(|f| f.trunc() as i64)),
        Got::Json(Value::Bool(b)) => Some(i64::from(*b)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_rows_time_and_pythons_int() {
        let csv = "Date,Time,Down\r\n2024-01-01,2024-01-01 10:30,95\r\n";
        assert_eq!(second_row_time(csv), Some(630));
        assert_eq!(
            second_row_time("h\nx,9:05,1\n"),
            Some(545),
            "%H takes one digit"
        );
        assert_eq!(second_row_time("h\nx,12:5,1\n"), Some(725), "%M too");
        assert_eq!(second_row_time("h\nx,1:234,1\n"), None);
        assert_eq!(
            second_row_time("h\nx,23:59\n"),
            None,
            "the newline is in the field"
        );
        assert_eq!(second_row_time("h\nx,24:00,1\n"), None);
        assert_eq!(second_row_time("only one line"), None);
        assert_eq!(python_int(&Got::Text(" 60 ".into())), Some(60));
        assert_eq!(python_int(&Got::Text("6_0".into())), Some(60));
        assert_eq!(python_int(&Got::Text("60.5".into())), None);
        assert_eq!(python_int(&Got::Json(serde_json::json!(60.9))), Some(60));
        assert_eq!(python_int(&Got::Json(Value::Null)), None);
    }
}
