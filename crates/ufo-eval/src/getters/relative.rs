//! `rule_relativeTime` (OSWorld `misc.py`): the rules with the expected
//! date(s) written out for today — `relativeTime.from` (and `to`) name a
//! day relative to now ("tomorrow", "next Monday", "10th next month", ...)
//! and `expected.time` (or `from`/`to`) is a pattern (`{DoW}, {Month}
//! {DayD}, {Year}`) the day is written into.
//!
//! Today is the system clock's date in UTC (OSWorld: `datetime.now()`, the
//! host's local time). A name OSWorld does not know, or a day its code
//! cannot compute (it raises: "first monday four months later" from August,
//! an unhandled special day), gives nothing.

use serde_json::{Map, Value};
use time::{Date, Duration, Month};

/// Which of OSWorld's three branches a day is computed in: each knows
/// its own special days.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Branch {
    /// `from` alone (the pattern is `expected.time`).
    Only,
    /// `from` with a `to`.
    From,
    /// `to` (knows the `from` day's name).
    To,
}

/// The day `name` means, seen from `now` (OSWorld's table and special
/// cases of the branch).
fn day(name: &str, now: Date, branch: Branch, from: &str) -> Option<Date> {
    use Branch::{From, Only, To};
    let wd = i64::from(now.weekday().number_days_from_monday());
    let next_month = |d: u8| {
        let (y, m) = match now.month() {
            Month::December => (now.year() + 1, Month::January),
            m => (now.year(), m.next()),
        };
        Date::from_calendar_date(y, m, d).ok()
    };
    match (name, branch) {
        ("tomorrow", _) => now.checked_add(Duration::days(1)),
        ("5th next month", Only) => next_month(5),
        ("10th next month", Only | From) => next_month(10),
        ("11th next month", To) => next_month(11),
        ("this month", Only) => Some(now),
        ("next Monday", Only | From) => now.checked_add(Duration::days((6 - wd) + 1)),
        ("this Saturday", From) => now.checked_add(Duration::days(5 - wd)),
        ("this Sunday", To) => now.checked_add(Duration::days(6 - wd)),
        ("next Friday", To) => {
            let days = if wd < 4 && from == "next Monday" {
                (4 - wd) + 7
            } else if wd < 4 {
                4 - wd
            } else {
                (6 - wd) + 5
            };
            now.checked_add(Duration::days(days))
        }
        ("first monday four months later", Only) => {
            let year = if u8::from(now.month()) >= 9 {
                now.year() + 1
            } else {
                now.year()
            };
            // `(month + 4) % 12` is 0 from August: Python raises.
            let m = Month::try_from((u8::from(now.month()) + 4) % 12).ok()?;
            let first = Date::from_calendar_date(year, m, 1).ok()?;
            let wd = i64::from(first.weekday().number_days_from_monday());
            first.checked_add(Duration::days(((6 - wd) + 1) % 7))
        }
        _ => None,
    }
}

/// OSWorld's `apply_rules_to_timeFormat`: each placeholder's first
/// occurrence replaced, in its order.
fn format(pattern: &str, d: Date) -> String {
    const DOW: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let m = usize::from(u8::from(d.month()));
    let month = Month::try_from(u8::from(d.month())).map_or(String::new(), |m| m.to_string());
    let abbr: String = month.chars().take(3).collect();
    let reps = [
        (
            "{DoW}",
            DOW[usize::from(d.weekday().number_days_from_monday())].to_owned(),
        ),
        ("{Month}", abbr),
        ("{DayD}", d.day().to_string()),
        ("{Year}", d.year().to_string()),
        ("{Month0D}", format!("{m:02}")),
        ("{month}", month.to_lowercase()),
        ("{MonthFull}", month),
        ("{Day0D}", format!("{:02}", d.day())),
    ];
    reps.iter()
        .fold(pattern.to_owned(), |s, (k, v)| s.replacen(k, v, 1))
}

/// The rules with their expected dates written out for `now`; `None`
/// where OSWorld raises (see the module docs). An error names what the
/// task file lacks.
pub(super) fn relative_rules(rules: &Value, now: Date) -> Result<Option<Value>, String> {
    let mut rules = rules.clone();
    let rel = rules
        .get("relativeTime")
        .and_then(Value::as_object)
        .ok_or("rule_relativeTime needs `rules.relativeTime` ({from, to?})")?;
    let name = |k: &str| rel.get(k).and_then(Value::as_str).map(str::to_owned);
    let from = name("from").ok_or("`rules.relativeTime.from` must name a day")?;
    let keys: Vec<(&str, Option<Date>)> = match name("to") {
        None => vec![("time", day(&from, now, Branch::Only, &from))],
        Some(to) => vec![
            ("from", day(&from, now, Branch::From, &from)),
            ("to", day(&to, now, Branch::To, &from)),
        ],
    };
    let Some(expected) = rules.get_mut("expected").and_then(Value::as_object_mut) else {
        return Err("rule_relativeTime needs `rules.expected`".into());
    };
    for (key, date) in keys {
        let pattern = pattern(expected, key)?;
        let Some(date) = date else { return Ok(None) };
        expected.insert(key.into(), Value::String(format(&pattern, date)));
    }
    Ok(Some(rules))
}

fn pattern(expected: &Map<String, Value>, key: &str) -> Result<String, String> {
    expected
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("`rules.expected.{key}` must be a date pattern"))
}

/// Today's date (UTC).
pub(super) fn today() -> Date {
    time::OffsetDateTime::now_utc().date()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;
    use time::macros::date;

    #[test]
    fn relative_days_are_written_into_the_patterns() {
        // A Wednesday.
        let now = date!(2024 - 01 - 31);
        let r = json!({"relativeTime": {"from": "tomorrow"},
                       "expected": {"time": "{DoW}, {Month} {DayD}, {Year}"}});
        assert_eq!(
            relative_rules(&r, now).unwrap().unwrap()["expected"]["time"],
            "Thu, Feb 1, 2024"
        );
        let r = json!({"relativeTime": {"from": "next Monday", "to": "next Friday"},
                       "expected": {"from": "{Year}-{Month0D}-{Day0D}", "to": "{MonthFull} {DayD} {month}"}});
        let got = relative_rules(&r, now).unwrap().unwrap();
        assert_eq!(got["expected"]["from"], "2024-02-05");
        assert_eq!(got["expected"]["to"], "February 9 february");
        let r = json!({"relativeTime": {"from": "10th next month"}, "expected": {"time": "{DayD} {Month}"}});
        assert_eq!(
            relative_rules(&r, date!(2024 - 12 - 03)).unwrap().unwrap()["expected"]["time"],
            "10 Jan"
        );
        let r = json!({"relativeTime": {"from": "first monday four months later"}, "expected": {"time": "{Day0D}/{Month0D}/{Year}"}});
        assert_eq!(
            relative_rules(&r, now).unwrap().unwrap()["expected"]["time"],
            "06/05/2024"
        );
        assert_eq!(relative_rules(&r, date!(2024 - 08 - 01)).unwrap(), None);
        let r = json!({"relativeTime": {"from": "this Saturday"}, "expected": {"time": "{DayD}"}});
        assert_eq!(relative_rules(&r, now).unwrap(), None);
        let r = json!({"relativeTime": {"from": "someday"}, "expected": {"time": "{DayD}"}});
        assert_eq!(relative_rules(&r, now).unwrap(), None);
        assert!(relative_rules(&json!({"expected": {}}), now).is_err());
    }
}
