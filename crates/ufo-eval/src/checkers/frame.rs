//! A sheet as pandas' `read_excel` makes it a DataFrame, for
//! `compare_table`'s `sheet_data` rule (OSWorld rounds both frames and
//! compares them with `DataFrame.equals`).
//!
//! - The first row is the header: an empty header cell is named
//!   `Unnamed: <i>`, a repeated name gets `.1`, `.2`…; empty rows inside
//!   the sheet stay (as rows of missing values).
//! - Each column gets one type, as pandas' parser infers it: empty cells
//!   and the NA strings (`NA`, `N/A`, `null`, `nan`, …) are missing; if
//!   every other value is a number, a boolean or text that parses as a
//!   number, the column is numeric — `float64` if any value is missing or
//!   fractional, else `int64` if any is a number, else `bool`; otherwise
//!   it is `object` (or `bool` when every value is a boolean or
//!   `True`/`false`-style text), keeping its values as they are.
//! - `round(precision)` rounds `float64` columns only (half to even on
//!   the scaled value, as numpy does).
//! - Two frames are equal when their column names are equal (Python `==`),
//!   they have as many rows, and each column has the same type and equal
//!   values (missing equal to missing).

use super::workbook::{Cell, Grid};

/// A value in a column or a column name (Python's view of it).
#[derive(Debug, Clone)]
enum V {
    Missing,
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
}

/// Python's `==` between two values (missing equal to missing, as pandas'
/// `equals` takes them).
fn py_eq(a: &V, b: &V) -> bool {
    let num = |v: &V| match v {
        V::Int(i) => Some(*i as f64),
        V::Float(f) => Some(*f),
        V::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    };
    match (a, b) {
        (V::Missing, V::Missing) => true,
        (V::Float(x), V::Float(y)) if x.is_nan() && y.is_nan() => true,
        (V::Str(x), V::Str(y)) => x == y,
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// A column's dtype.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Dtype {
    Int,
    Float,
    Bool,
    Object,
}

/// pandas' default NA strings.
const NA: &[&str] = &[
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
];

/// A cell as pandas' openpyxl reader returns it (whole floats as ints).
fn value(c: &Cell) -> V {
    match c {
        Cell::Empty | Cell::Error(_) => V::Missing,
        Cell::Num(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => V::Int(*f as i64),
        Cell::Num(f) => V::Float(*f),
        Cell::Bool(b) => V::Bool(*b),
        Cell::Str(s) => V::Str(s.clone()),
    }
}

/// Text as pandas' numeric conversion reads it.
fn parse_number(s: &str) -> Option<V> {
    let t = s.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return t.parse::<i64>().ok().map(V::Int);
    }
    if t.is_empty() || t.contains('_') {
        return None;
    }
    t.parse::<f64>().ok().map(V::Float)
}

/// One column's dtype and values.
fn infer(raw: Vec<V>) -> (Dtype, Vec<V>) {
    let vals: Vec<V> = raw
        .into_iter()
        .map(|v| match v {
            V::Str(s) if NA.contains(&s.as_str()) => V::Missing,
            other => other,
        })
        .collect();
    if vals.is_empty() {
        return (Dtype::Object, vals);
    }
    let numeric: Option<Vec<V>> = vals
        .iter()
        .map(|v| match v {
            V::Str(s) => parse_number(s),
            other => Some(other.clone()),
        })
        .collect();
    if let Some(nums) = numeric {
        let missing = nums.iter().any(|v| matches!(v, V::Missing));
        let float = nums.iter().any(|v| matches!(v, V::Float(_)));
        let int = nums.iter().any(|v| matches!(v, V::Int(_)));
        let as_f = |v: &V| match v {
            V::Int(i) => V::Float(*i as f64),
            V::Bool(b) => V::Float(f64::from(u8::from(*b))),
            V::Missing => V::Float(f64::NAN),
            other => other.clone(),
        };
        return if missing || float {
            (Dtype::Float, nums.iter().map(as_f).collect())
        } else if int {
            let as_i = |v: &V| match v {
                V::Bool(b) => V::Int(i64::from(*b)),
                other => other.clone(),
            };
            (Dtype::Int, nums.iter().map(as_i).collect())
        } else {
            (Dtype::Bool, nums)
        };
    }
    let bools: Option<Vec<V>> = vals
        .iter()
        .map(|v| match v {
            V::Bool(b) => Some(V::Bool(*b)),
            V::Str(s) if ["True", "TRUE", "true"].contains(&s.as_str()) => Some(V::Bool(true)),
            V::Str(s) if ["False", "FALSE", "false"].contains(&s.as_str()) => Some(V::Bool(false)),
            _ => None,
        })
        .collect();
    match bools {
        Some(b) => (Dtype::Bool, b),
        None => (Dtype::Object, vals),
    }
}

/// A DataFrame: column names and typed columns.
struct Frame {
    names: Vec<V>,
    rows: usize,
    columns: Vec<(Dtype, Vec<V>)>,
}

/// `pd.read_excel(book, sheet)` of a sheet's grid.
fn frame(grid: &Grid) -> Frame {
    let width = grid.iter().map(Vec::len).max().unwrap_or(0);
    let mut rows: Vec<Vec<V>> = grid
        .iter()
        .map(|r| {
            let mut row: Vec<V> = r.iter().map(value).collect();
            row.resize(width, V::Missing);
            row
        })
        .collect();
    if rows.is_empty() {
        return Frame {
            names: Vec::new(),
            rows: 0,
            columns: Vec::new(),
        };
    }
    let header = rows.remove(0);
    let mut names: Vec<V> = header
        .into_iter()
        .enumerate()
        .map(|(i, v)| match v {
            V::Missing => V::Str(format!("Unnamed: {i}")),
            other => other,
        })
        .collect();
    // pandas' de-duplication: a repeated name becomes `name.1`, `name.2`…
    let mut seen: Vec<(V, usize)> = Vec::new();
    for name in &mut names {
        let mut col = name.clone();
        loop {
            match seen.iter_mut().find(|(n, _)| py_eq(n, &col)) {
                Some((_, count)) if *count > 0 => {
                    let c = *count;
                    *count += 1;
                    col = V::Str(format!("{}.{c}", label(&col)));
                }
                _ => break,
            }
        }
        seen.push((col.clone(), 1));
        *name = col;
    }
    let columns = (0..width)
        .map(|c| infer(rows.iter().map(|r| r[c].clone()).collect()))
        .collect();
    Frame {
        names,
        rows: rows.len(),
        columns,
    }
}

/// `pd.read_excel(path).iloc[-1].astype(str).tolist()` (OSWorld's
/// `content_from_vm_file` with `last_row`): the first sheet's last row,
/// each value as its column's dtype writes it (`5`, `5.0`, `nan`, `True`).
/// `Ok(None)` where pandas raises (no rows, a file it cannot read); an
/// error for a sheet with dates, which pandas holds as Timestamps
/// (`2024-01-31 00:00:00`) and this reader as serial numbers.
pub(crate) fn last_row_strings(path: &std::path::Path) -> Result<Option<Vec<String>>, String> {
    use calamine::{Data, Reader};
    if let Ok(mut wb) = calamine::open_workbook_auto(path)
        && let Some(first) = wb.sheet_names().first().cloned()
        && let Ok(range) = wb.worksheet_range(&first)
        && range
            .used_cells()
            .any(|(_, _, d)| matches!(d, Data::DateTime(_) | Data::DateTimeIso(_)))
    {
        return Err(
            "the sheet has dates, which pandas writes as Timestamps; not reproduced".into(),
        );
    }
    let Some(book) = super::workbook::Book::load(path) else {
        return Ok(None);
    };
    let Some(grid) = book.sheets.first() else {
        return Ok(None);
    };
    let f = frame(grid);
    let Some(last) = f.rows.checked_sub(1) else {
        return Ok(None);
    };
    Ok(Some(
        f.columns
            .iter()
            .map(|(_, vals)| vals.get(last).map_or_else(|| "nan".to_owned(), label))
            .collect(),
    ))
}

/// Python's `str()` of a column name.
fn label(v: &V) -> String {
    match v {
        V::Missing => "nan".to_owned(),
        V::Int(i) => i.to_string(),
        V::Float(f) => super::py_float_repr(*f),
        V::Bool(true) => "True".to_owned(),
        V::Bool(false) => "False".to_owned(),
        V::Str(s) => s.clone(),
    }
}

/// numpy's `round(x, decimals)`.
fn np_round(x: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    let y = (x * scale).round_ties_even() / scale;
    if y.is_finite() { y } else { x }
}

/// OSWorld's `sheet1.round(p).equals(sheet2.round(p))` on two grids.
pub(super) fn frames_equal(a: &Grid, b: &Grid, precision: i32) -> bool {
    let (fa, fb) = (frame(a), frame(b));
    if fa.names.len() != fb.names.len()
        || !fa.names.iter().zip(&fb.names).all(|(x, y)| py_eq(x, y))
        || fa.rows != fb.rows
    {
        return false;
    }
    let round = |v: &V| match v {
        V::Float(f) => V::Float(np_round(*f, precision)),
        other => other.clone(),
    };
    fa.columns
        .iter()
        .zip(&fb.columns)
        .all(|((ta, va), (tb, vb))| {
            ta == tb
                && va.iter().zip(vb).all(|(x, y)| {
                    if *ta == Dtype::Float {
                        py_eq(&round(x), &round(y))
                    } else {
                        py_eq(x, y)
                    }
                })
        })
}
