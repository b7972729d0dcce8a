//! `run_sqlite3` (OSWorld's `general.py`): one SQL query on the result, an
//! SQLite database, whose first row's first column is the score.
//!
//! The query runs on the system's SQLite (the library Python's `sqlite3`
//! module links), with the database opened for querying only: no file is
//! created (a missing file is queried as an empty database, as Python's
//! `connect` would create one) and no statement may write.

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use super::{CheckError, Cx};

/// `run_sqlite3`: `float(row[0] or 0)` for the first row of `rules.sql`:
/// NULL, 0 and empty text or blobs score 0, numbers score themselves (the
/// score is not clamped: a count of 3 scores 3), text (or UTF-8 blob) that
/// Python's `float` parses scores that number. A query that fails, returns
/// no row, or text that is not a number are refused (OSWorld's raises).
pub(super) fn run_sqlite3(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let sql = cx
        .rules()?
        .get("sql")
        .and_then(Value::as_str)
        .ok_or_else(|| cx.bad("rules need a string \"sql\""))?;
    let Some(path) = cx.result_path() else {
        return Err(cx.bad("the result is not a database file"));
    };
    let conn = if path.exists() {
        Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
    } else {
        Connection::open_in_memory()
    }
    .map_err(|e| cx.bad_because(format!("cannot open {}", path.display()), e))?;
    conn.pragma_update(None, "query_only", true)
        .map_err(|e| cx.bad_because("cannot make the connection query-only", e))?;
    let mut stmt = conn
        .prepare(sql)
        .map_err(|e| cx.bad_because("the query does not compile", e))?;
    let mut rows = stmt
        .query([])
        .map_err(|e| cx.bad_because("the query failed", e))?;
    let row = rows
        .next()
        .map_err(|e| cx.bad_because("the query failed", e))?
        .ok_or_else(|| cx.bad("the query returned no row"))?;
    let first = row
        .get_ref(0)
        .map_err(|e| cx.bad_because("the query returned no column", e))?;
    #[allow(clippy::cast_precision_loss)] // Python's float(int) rounds the same way
    let score = match first {
        ValueRef::Null => 0.0,
        ValueRef::Integer(i) => i as f64,
        ValueRef::Real(f) => f,
        ValueRef::Text(t) | ValueRef::Blob(t) if t.is_empty() => 0.0,
        ValueRef::Text(t) | ValueRef::Blob(t) => std::str::from_utf8(t)
            .ok()
            .and_then(py_float)
            .ok_or_else(|| cx.bad("the query's value is not a number"))?,
    };
    Ok(score)
}

/// Python's `float(str)`: surrounding whitespace, a sign, decimal or
/// exponent notation, `inf`/`infinity`/`nan` in any case, `_` between
/// digits.
fn py_float(s: &str) -> Option<f64> {
    let t = s.trim();
    let bytes = t.as_bytes();
    let mut plain = String::with_capacity(t.len());
    for (i, c) in t.char_indices() {
        if c == '_' {
            let digit_at = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_digit);
            if i == 0 || !digit_at(i - 1) || !digit_at(i + 1) {
                return None;
            }
        } else {
            plain.push(c);
        }
    }
    let unsigned = plain.trim_start_matches(['+', '-']);
    if plain.len() - unsigned.len() > 1 {
        return None;
    }
    let word = unsigned.to_ascii_lowercase();
    if matches!(word.as_str(), "inf" | "infinity" | "nan") {
        return plain.parse().ok();
    }
    if !unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    plain.parse().ok()
}
