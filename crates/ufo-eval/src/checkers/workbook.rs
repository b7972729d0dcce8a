//! Spreadsheets as grids of values, for `compare_table`.
//!
//! Workbooks (`.xlsx`, `.xlsm`, `.xls`, `.xlsb`, `.ods`) are read with
//! calamine, using the cached values of formula cells; a `.csv` file is one
//! sheet named `Sheet1` whose numeric-looking fields are numbers. A sheet is
//! a grid anchored at A1 with trailing empty rows and columns dropped.

use std::path::{Path, PathBuf};

use calamine::{Data, Reader};
use serde_json::Value;

use super::{py_float_repr, read_text};

/// One cell's value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Cell {
    Empty,
    Num(f64),
    Str(String),
    Bool(bool),
    Error(String),
}

impl Cell {
    fn from_data(d: &Data) -> Self {
        match d {
            Data::Int(i) => Cell::Num(*i as f64),
            Data::Float(f) => Cell::Num(*f),
            Data::String(s) if s.is_empty() => Cell::Empty,
            Data::String(s) | Data::DateTimeIso(s) | Data::DurationIso(s) => Cell::Str(s.clone()),
            Data::Bool(b) => Cell::Bool(*b),
            Data::DateTime(dt) => Cell::Num(dt.as_f64()),
            Data::Error(e) => Cell::Error(e.to_string()),
            Data::Empty => Cell::Empty,
        }
    }

    /// Python's `str()` of what OSWorld's `read_cell_value` returns: numbers
    /// as floats, text as itself, anything else as `None`.
    pub(super) fn py_text(&self) -> String {
        match self {
            Cell::Num(f) => py_float_repr(*f),
            Cell::Str(s) => s.clone(),
            _ => "None".to_owned(),
        }
    }

    /// The cell as a JSON value for `_match_value_to_rule`.
    pub(super) fn json(&self) -> Value {
        match self {
            Cell::Num(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Cell::Str(s) => Value::String(s.clone()),
            _ => Value::Null,
        }
    }
}

/// Rows of cells from A1; no trailing empty cells or rows.
pub(super) type Grid = Vec<Vec<Cell>>;

/// A loaded workbook.
pub(super) struct Book {
    pub(super) path: PathBuf,
    pub(super) names: Vec<String>,
    pub(super) sheets: Vec<Grid>,
}

impl Book {
    pub(super) fn load(path: &Path) -> Option<Book> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let (names, sheets) = if ext.as_deref() == Some("csv") {
            (
                vec!["Sheet1".to_owned()],
                vec![csv_grid(&read_text(path)?)?],
            )
        } else {
            let mut wb = match calamine::open_workbook_auto(path) {
                Ok(wb) => AnyBook::File(wb),
                // An unexpected extension: let calamine sniff the content.
                Err(_) => AnyBook::Mem(
                    calamine::open_workbook_auto_from_rs(std::io::Cursor::new(
                        std::fs::read(path).ok()?,
                    ))
                    .ok()?,
                ),
            };
            let names = wb.sheet_names();
            let mut sheets = Vec::with_capacity(names.len());
            for n in &names {
                let range = wb.worksheet_range(n)?;
                sheets.push(range_grid(&range));
            }
            (names, sheets)
        };
        Some(Book {
            path: path.to_owned(),
            names,
            sheets,
        })
    }

    pub(super) fn sheet(&self, name: &str) -> Option<&Grid> {
        self.names
            .iter()
            .position(|n| n == name)
            .and_then(|i| self.sheets.get(i))
    }
}

/// calamine's two reader flavours behind one `Reader`.
enum AnyBook {
    File(calamine::Sheets<std::io::BufReader<std::fs::File>>),
    Mem(calamine::Sheets<std::io::Cursor<Vec<u8>>>),
}

impl AnyBook {
    fn sheet_names(&self) -> Vec<String> {
        match self {
            AnyBook::File(b) => b.sheet_names(),
            AnyBook::Mem(b) => b.sheet_names(),
        }
    }

    fn worksheet_range(&mut self, name: &str) -> Option<calamine::Range<Data>> {
        match self {
            AnyBook::File(b) => b.worksheet_range(name).ok(),
            AnyBook::Mem(b) => b.worksheet_range(name).ok(),
        }
    }
}

/// Drops trailing empty cells and rows.
fn trimmed(mut grid: Grid) -> Grid {
    for row in &mut grid {
        while row.last() == Some(&Cell::Empty) {
            row.pop();
        }
    }
    while grid.last().is_some_and(Vec::is_empty) {
        grid.pop();
    }
    grid
}

fn range_grid(range: &calamine::Range<Data>) -> Grid {
    let Some((rows, cols)) = range.end() else {
        return Vec::new();
    };
    let grid = (0..=rows)
        .map(|r| {
            (0..=cols)
                .map(|c| range.get_value((r, c)).map_or(Cell::Empty, Cell::from_data))
                .collect()
        })
        .collect();
    trimmed(grid)
}

fn csv_grid(text: &str) -> Option<Grid> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut grid = Vec::new();
    for record in reader.records() {
        let record = record.ok()?;
        grid.push(
            record
                .iter()
                .map(|f| {
                    if f.is_empty() {
                        Cell::Empty
                    } else if let Ok(n) = f.trim().parse::<f64>() {
                        Cell::Num(n)
                    } else {
                        Cell::Str(f.to_owned())
                    }
                })
                .collect(),
        );
    }
    Some(trimmed(grid))
}

pub(super) fn cell_at(grid: &Grid, row: usize, col: usize) -> &Cell {
    grid.get(row)
        .and_then(|r| r.get(col))
        .unwrap_or(&Cell::Empty)
}

/// `A1` → zero-based `(row, column)`.
pub(super) fn parse_cell(s: &str) -> Option<(usize, usize)> {
    let s = s.trim().replace('$', "");
    let split = s.find(|c: char| c.is_ascii_digit())?;
    let (letters, digits) = s.split_at(split);
    if letters.is_empty() || !letters.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let col = letters.chars().try_fold(0usize, |acc, c| {
        acc.checked_mul(26)?
            .checked_add(c.to_ascii_uppercase() as usize - 'A' as usize + 1)
    })?;
    let row: usize = digits.parse().ok()?;
    Some((row.checked_sub(1)?, col.checked_sub(1)?))
}

/// Every cell of `A1:B6`-style ranges (a string may hold several, space
/// separated; a list holds one or more such strings).
pub(super) fn range_cells(v: &Value) -> Option<Vec<(usize, usize)>> {
    let parts: Vec<&str> = match v {
        Value::String(s) => s.split_whitespace().collect(),
        Value::Array(items) => {
            let mut out = Vec::new();
            for i in items {
                out.extend(i.as_str()?.split_whitespace());
            }
            out
        }
        _ => return None,
    };
    let mut cells = Vec::new();
    for part in parts {
        let (a, b) = part.split_once(':').unwrap_or((part, part));
        let (r0, c0) = parse_cell(a)?;
        let (r1, c1) = parse_cell(b)?;
        for r in r0.min(r1)..=r0.max(r1) {
            for c in c0.min(c1)..=c0.max(c1) {
                cells.push((r, c));
            }
        }
    }
    Some(cells)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_ranges_parse() {
        assert_eq!(parse_cell("A1"), Some((0, 0)));
        assert_eq!(parse_cell("$AB$12"), Some((11, 27)));
        assert_eq!(parse_cell("A0"), None);
        assert_eq!(parse_cell("12"), None);
        let cells = range_cells(&serde_json::json!(["A1:B2", "D4"])).unwrap();
        assert_eq!(cells, vec![(0, 0), (0, 1), (1, 0), (1, 1), (3, 3)]);
        assert!(range_cells(&serde_json::json!("A1:??")).is_none());
    }

    #[test]
    fn csv_grids() {
        let g = csv_grid("a,1\n,2.5,,\n\n,,\n").unwrap();
        assert_eq!(
            g,
            vec![
                vec![Cell::Str("a".into()), Cell::Num(1.0)],
                vec![Cell::Empty, Cell::Num(2.5)],
            ]
        );
        assert_eq!(Cell::Num(3.0).py_text(), "3.0");
        assert_eq!(Cell::Empty.py_text(), "None");
    }
}
