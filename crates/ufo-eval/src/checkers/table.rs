//! `compare_table`: spreadsheets (OSWorld `table.py`).
//!
//! Sheets are loaded by `workbook`; the rules compare them.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use serde_json::{Map, Value};

use super::cellstyle;
use super::charts;
use super::condfmt::StyleError;
use super::frame::frames_equal;
use super::pivot;
use super::sheetprops;
use super::similarity::{indel_ratio, py_splitlines};
use super::structured::match_value;
use super::stylerule;
use super::workbook::{Book, Cell, Grid, cell_at, parse_cell, range_cells};
use super::{CheckError, Cx, Got, read_text};

/// Which workbook a sheet index refers to.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Side {
    Result,
    Expected,
}

/// OSWorld's sheet index: an integer (result sheet by position), `RI<n>` /
/// `EI<n>` (result / expected sheet by position, negative from the end),
/// `RN<name>` / `EN<name>` (by name).
fn parse_idx(cx: &Cx<'_>, v: Option<&Value>, key: &str) -> Result<(Side, SheetRef), CheckError> {
    let bad = || {
        cx.bad(format!(
            "{key} must be an integer or RI<n>, RN<name>, EI<n>, EN<name>"
        ))
    };
    match v {
        Some(Value::Number(n)) => n
            .as_i64()
            .map(|i| (Side::Result, SheetRef::Index(i)))
            .ok_or_else(bad),
        Some(Value::String(s)) => {
            let side = match s.get(..1) {
                Some("R") => Side::Result,
                Some("E") => Side::Expected,
                _ => return Err(bad()),
            };
            match (s.get(1..2), s.get(2..)) {
                (Some("I"), Some(n)) => n
                    .trim()
                    .parse()
                    .map(|i| (side, SheetRef::Index(i)))
                    .map_err(|_| bad()),
                (Some("N"), Some(n)) => Ok((side, SheetRef::Name(n.to_owned()))),
                _ => Err(bad()),
            }
        }
        _ => Err(bad()),
    }
}

enum SheetRef {
    Index(i64),
    Name(String),
}

/// The two workbooks of one call.
struct Books<'b> {
    result: &'b Book,
    expected: Option<&'b Book>,
    /// The cells earlier rules created in openpyxl's sheets (`check_cell`
    /// reads `sheet[coordinate]`, the style rule's passes call
    /// `ws.cell()`), which widen a later style rule's rectangle.
    created: RefCell<Created>,
}

/// Cells created per (book, sheet name).
type Created = HashMap<(Side, String), BTreeSet<(usize, usize)>>;

impl Books<'_> {
    /// The book and sheet name a rule's index names; `Ok(None)` when the
    /// sheet does not exist (which scores 0).
    fn resolve(
        &self,
        cx: &Cx<'_>,
        rule: &Map<String, Value>,
        key: &str,
    ) -> Result<Option<(&Book, String)>, CheckError> {
        Ok(self.locate(cx, rule, key)?.map(|(_, b, n)| (b, n)))
    }

    /// [`Books::resolve`], with the side the book is.
    fn locate(
        &self,
        cx: &Cx<'_>,
        rule: &Map<String, Value>,
        key: &str,
    ) -> Result<Option<(Side, &Book, String)>, CheckError> {
        let (side, r) = parse_idx(cx, rule.get(key), key)?;
        let book = match side {
            Side::Result => self.result,
            Side::Expected => self.expected.ok_or_else(|| {
                cx.bad(format!(
                    "{key} refers to the expected workbook, but there is none"
                ))
            })?,
        };
        let name = match r {
            SheetRef::Name(n) => n,
            SheetRef::Index(i) => {
                let len = book.names.len() as i64;
                let i = if i < 0 { i + len } else { i };
                match usize::try_from(i).ok().and_then(|i| book.names.get(i)) {
                    Some(n) => n.clone(),
                    None => return Ok(None),
                }
            }
        };
        Ok(Some((side, book, name)))
    }

    fn grid(
        &self,
        cx: &Cx<'_>,
        rule: &Map<String, Value>,
        key: &str,
    ) -> Result<Option<&Grid>, CheckError> {
        Ok(self.resolve(cx, rule, key)?.and_then(|(b, n)| b.sheet(&n)))
    }
}

/// The rule types implemented here.
const RULE_TYPES: &[&str] = &[
    "freeze",
    "zoom",
    "sheet_name",
    "sheet_data",
    "sheet_print",
    "sheet_fuzzy",
    "check_cell",
    "row_props",
    "data_validation",
    "pivot_table",
    "chart",
    "style",
];

/// `compare_table`: with option `rules` (a list of `{type, …}` checked in
/// order, all must pass), or without it every sheet's name and data must
/// equal the expected workbook's.
pub(super) fn compare_table(cx: &Cx<'_>) -> Result<bool, CheckError> {
    // OSWorld's function reads `options["rules"]` and raises without it;
    // ours then compares whole books (a ufo-rs extension, below).
    let rules: Vec<&Map<String, Value>> = match cx.options.get("rules") {
        None | Some(Value::Null) => return whole_books(cx),
        Some(Value::Array(items)) => items
            .iter()
            .map(|r| {
                r.as_object()
                    .ok_or_else(|| cx.bad("each rule must be an object"))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(cx.bad("option rules must be a list")),
    };
    for r in &rules {
        match r.get("type").and_then(Value::as_str) {
            Some(t) if RULE_TYPES.contains(&t) => {}
            Some(t) => return Err(cx.bad(format!("rule type {t:?} is not supported"))),
            None => return Err(cx.bad("each rule needs a string \"type\"")),
        }
    }
    // OSWorld opens the result first (a failure scores 0), then the
    // expected book (a failure raises), each with openpyxl and pandas.
    let Got::File(path) = cx.result else {
        return Ok(false);
    };
    if !openpyxl_opens(path) {
        return Ok(false);
    }
    // openpyxl fails on some conditional formats (checked where a style
    // rule reads them).
    let styled = rules
        .iter()
        .any(|r| r.get("type").and_then(Value::as_str) == Some("style"));
    if styled && !matches!(stylerule::load_failure(path), Ok(None)) {
        return Ok(false);
    }
    let Some(result) = Book::load(path) else {
        return Ok(false);
    };
    if styled
        && let Some(Got::File(p)) = cx.expected
        && openpyxl_opens(p)
    {
        match stylerule::load_failure(p) {
            Ok(None) => {}
            Ok(Some(why)) => {
                return Err(cx.bad(format!(
                    "openpyxl cannot load the expected workbook: {why} (OSWorld raises)"
                )));
            }
            Err(e) => return Err(cx.bad(format!("expected workbook {}: {e}", p.display()))),
        }
    }
    let expected =
        match cx.expected {
            Some(Got::File(p)) if openpyxl_opens(p) => Some(Book::load(p).ok_or_else(|| {
                cx.bad(format!("expected workbook {} cannot be read", p.display()))
            })?),
            Some(Got::File(p)) => {
                return Err(cx.bad(format!(
                "expected {} is not an .xlsx/.xlsm/.xltx/.xltm workbook (openpyxl opens no other)",
                p.display()
            )));
            }
            Some(Got::Missing) | None => None,
            Some(_) => return Err(cx.bad("expected must be a workbook file")),
        };
    let books = Books {
        result: &result,
        expected: expected.as_ref(),
        created: RefCell::default(),
    };
    for r in rules {
        if !check_rule(cx, &books, r)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Without rules — where OSWorld's function raises, and which none of its
/// tasks does — ufo-rs compares whole books: the same sheet names, and
/// each sheet equal as `sheet_data` compares them (precision 4). Any book
/// calamine reads takes part, a CSV file as one sheet `Sheet1`; the
/// `calc-column-total` task of `suites/linux-basic` relies on it.
fn whole_books(cx: &Cx<'_>) -> Result<bool, CheckError> {
    let expected = match cx.expected {
        Some(Got::File(p)) => Book::load(p)
            .ok_or_else(|| cx.bad(format!("expected workbook {} cannot be read", p.display())))?,
        _ => return Err(cx.bad("without rules, an expected workbook is needed")),
    };
    let Got::File(path) = cx.result else {
        return Ok(false);
    };
    let Some(result) = Book::load(path) else {
        return Ok(false);
    };
    Ok(result.names == expected.names
        && result
            .sheets
            .iter()
            .zip(&expected.sheets)
            .all(|(a, b)| frames_equal(a, b, 4)))
}

/// Whether openpyxl opens this file: it goes by the extension.
fn openpyxl_opens(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["xlsx", "xlsm", "xltx", "xltm"].contains(&e.to_ascii_lowercase().as_str())
    })
}

fn check_rule(cx: &Cx<'_>, books: &Books<'_>, r: &Map<String, Value>) -> Result<bool, CheckError> {
    match r.get("type").and_then(Value::as_str).unwrap_or_default() {
        "sheet_name" => Ok(books
            .expected
            .is_some_and(|e| e.names == books.result.names)),
        "sheet_data" => {
            let precision = match r.get("precision") {
                None | Some(Value::Null) => 4,
                Some(v) => v
                    .as_i64()
                    .and_then(|p| i32::try_from(p).ok())
                    .ok_or_else(|| cx.bad("precision must be an integer"))?,
            };
            let a = books.grid(cx, r, "sheet_idx0")?;
            let b = books.grid(cx, r, "sheet_idx1")?;
            Ok(matches!((a, b), (Some(a), Some(b)) if frames_equal(a, b, precision)))
        }
        "sheet_print" => {
            let ignore_case = match r.get("ignore_case") {
                None | Some(Value::Null) => false,
                Some(v) => v
                    .as_bool()
                    .ok_or_else(|| cx.bad("ignore_case must be a boolean"))?,
            };
            let a = books
                .resolve(cx, r, "sheet_idx0")?
                .and_then(|(b, n)| printed(&b.path, &n));
            let b = books
                .resolve(cx, r, "sheet_idx1")?
                .and_then(|(b, n)| printed(&b.path, &n));
            let fold = |v: &[String]| -> Vec<String> {
                if ignore_case {
                    v.iter().map(|l| l.to_lowercase()).collect()
                } else {
                    v.to_vec()
                }
            };
            Ok(matches!((a, b), (Some(a), Some(b)) if fold(&a) == fold(&b)))
        }
        "sheet_fuzzy" => sheet_fuzzy(cx, books, r),
        "freeze" => {
            let Some((b1, n1)) = books.resolve(cx, r, "sheet_idx0")? else {
                return Ok(false);
            };
            let (b2, n2) = books
                .resolve(cx, r, "sheet_idx1")?
                .ok_or_else(|| cx.bad("sheet_idx1 names no sheet (OSWorld's function raises)"))?;
            let view = |b: &Book, n: &str| {
                cellstyle::view(&b.path, n)
                    .map_err(|m| cx.bad(format!("{}: {m}", b.path.display())))
            };
            Ok(view(b1, &n1)?.0 == view(b2, &n2)?.0)
        }
        "zoom" => {
            let Some((b, n)) = books.resolve(cx, r, "sheet_idx")? else {
                return Ok(false);
            };
            let (_, zoom) = cellstyle::view(&b.path, &n)
                .map_err(|m| cx.bad(format!("{}: {m}", b.path.display())))?;
            match_value(cx, &zoom, r)
        }
        "check_cell" => {
            let coord = r
                .get("coordinate")
                .and_then(Value::as_str)
                .ok_or_else(|| cx.bad("check_cell needs a string coordinate"))?;
            let (row, col) = parse_cell(coord)
                .ok_or_else(|| cx.bad(format!("bad cell coordinate {coord:?}")))?;
            let props = r
                .get("props")
                .and_then(Value::as_object)
                .ok_or_else(|| cx.bad("check_cell needs props: {property: rule}"))?;
            let grid = books.grid(cx, r, "sheet_idx")?;
            let mut ok = grid.is_some();
            let sheet = books.resolve(cx, r, "sheet_idx")?;
            // `sheet[coordinate]` creates the cell in openpyxl's sheet.
            if let Some((side, b, n)) = books.locate(cx, r, "sheet_idx")?
                && b.names.contains(&n)
            {
                books
                    .created
                    .borrow_mut()
                    .entry((side, n))
                    .or_default()
                    .insert((row, col));
            }
            for (prop, rule) in props {
                let rule = rule
                    .as_object()
                    .ok_or_else(|| cx.bad("each check_cell prop needs a rule object"))?;
                let value = match prop.as_str() {
                    "value" => grid.map_or(Value::Null, |g| cell_at(g, row, col).json()),
                    p if cellstyle::PROPS.contains(&p) => sheet
                        .as_ref()
                        .and_then(|(book, name)| cellstyle::read(&book.path, name, coord, p).ok())
                        .unwrap_or(Value::Null),
                    // OSWorld's reader raises on other names and reads None.
                    _ => Value::Null,
                };
                ok = match_value(cx, &value, rule)? && ok;
            }
            Ok(ok)
        }
        "row_props" => row_props(cx, books, r),
        "data_validation" => data_validation(cx, books, r),
        "style" => style(cx, books, r),
        "pivot_table" => objects(cx, books, r, "pivot_props", pivot::load),
        "chart" => objects(cx, books, r, "chart_props", charts::load),
        other => Err(cx.bad(format!("rule type {other:?} is not supported"))),
    }
}

/// `style`: the two sheets' styles (`load_xlsx_styles`: each cell's
/// `props`, conditional formats applied) are equal. Where OSWorld's
/// function raises, a checker error; outside what is reproduced, the rule
/// is refused (`Unsupported`, saying why).
fn style(cx: &Cx<'_>, books: &Books<'_>, r: &Map<String, Value>) -> Result<bool, CheckError> {
    let props = stylerule::props(r.get("props")).map_err(|m| cx.bad(m))?;
    let load = |key: &str| -> Result<stylerule::Styles, CheckError> {
        let Some((side, book, name)) = books.locate(cx, r, key)? else {
            return Ok(stylerule::Styles::new());
        };
        let mut created = books.created.borrow_mut();
        let cells = created.entry((side, name.clone())).or_default();
        stylerule::load(&book.path, &name, &props, cells).map_err(|e| match e {
            StyleError::Raises(m) => cx.bad(format!("style: {m} (OSWorld raises)")),
            StyleError::Refuse(m) => {
                CheckError::Unsupported(format!("compare_table rule style: {m}"))
            }
            StyleError::Bad(m) => cx.bad(format!("{}: {m}", book.path.display())),
        })
    };
    let a = load("sheet_idx0")?;
    let b = load("sheet_idx1")?;
    Ok(a == b)
}

/// `row_props`: the rows openpyxl keeps a dimension for, with `props`, are
/// the same in both sheets.
fn row_props(cx: &Cx<'_>, books: &Books<'_>, r: &Map<String, Value>) -> Result<bool, CheckError> {
    let props: Vec<String> = match r.get("props") {
        None => Vec::new(),
        Some(v) => v
            .as_array()
            .and_then(|a| a.iter().map(|p| p.as_str().map(str::to_owned)).collect())
            .ok_or_else(|| cx.bad("row_props needs props: a list of strings"))?,
    };
    // A sheet openpyxl does not find has no rows.
    let load = |key: &str| -> Result<_, CheckError> {
        match books.resolve(cx, r, key)? {
            Some((b, n)) if b.names.contains(&n) => sheetprops::rows(&b.path, &n, &props)
                .map_err(|m| cx.bad(format!("{}: {m}", b.path.display()))),
            _ => Ok(Default::default()),
        }
    };
    Ok(load("sheet_idx0")? == load("sheet_idx1")?)
}

/// A loader of a sheet's pivot tables or charts, summarised by the
/// properties named.
type Loader = fn(&Path, &str, &[String]) -> Result<BTreeMap<String, Value>, String>;

/// `pivot_table` and `chart`: the two sheets' pivot tables (charts),
/// summarised by the properties `key` lists, are the same.
fn objects(
    cx: &Cx<'_>,
    books: &Books<'_>,
    r: &Map<String, Value>,
    key: &str,
    load: Loader,
) -> Result<bool, CheckError> {
    let props: Vec<String> = match r.get(key) {
        None => Vec::new(),
        Some(v) => v
            .as_array()
            .and_then(|a| a.iter().map(|p| p.as_str().map(str::to_owned)).collect())
            .ok_or_else(|| cx.bad(format!("{key} must be a list of strings")))?,
    };
    // A sheet openpyxl does not find has none.
    let read = |idx: &str| -> Result<_, CheckError> {
        match books.resolve(cx, r, idx)? {
            Some((b, n)) if b.names.contains(&n) => {
                load(&b.path, &n, &props).map_err(|m| cx.bad(format!("{}: {m}", b.path.display())))
            }
            _ => Ok(BTreeMap::new()),
        }
    };
    Ok(read("sheet_idx0")? == read("sheet_idx1")?)
}

/// `data_validation`: the sheet's validations against `dv_props`; a sheet
/// that is not there scores 0.
fn data_validation(
    cx: &Cx<'_>,
    books: &Books<'_>,
    r: &Map<String, Value>,
) -> Result<bool, CheckError> {
    let Some((b, n)) = books.resolve(cx, r, "sheet_idx")? else {
        return Ok(false);
    };
    if !b.names.contains(&n) {
        return Ok(false);
    }
    let dv_props = r
        .get("dv_props")
        .and_then(Value::as_array)
        .ok_or_else(|| cx.bad("data_validation needs dv_props: a list"))?;
    let dvs = sheetprops::validations(&b.path, &n)
        .map_err(|m| cx.bad(format!("{}: {m}", b.path.display())))?;
    sheetprops::data_validation(cx, &dvs, dv_props)
}

/// The sheet's printed form OSWorld exports next to the workbook as
/// `<book without extension>-<sheet>.csv`: lines trimmed, trailing blank
/// lines dropped.
fn printed(book: &Path, sheet: &str) -> Option<Vec<String>> {
    let stem = book.with_extension("");
    let mut file = stem.into_os_string();
    file.push(format!("-{sheet}.csv"));
    let text = read_text(Path::new(&file))?;
    let mut lines: Vec<String> = py_splitlines(&text)
        .iter()
        .map(|l| l.trim().to_owned())
        .collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    Some(lines)
}

/// A string option of a `sheet_fuzzy` sub-rule.
fn opt_str<'v>(
    cx: &Cx<'_>,
    rl: &'v Map<String, Value>,
    key: &str,
) -> Result<Option<&'v str>, CheckError> {
    match rl.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(cx.bad(format!("sheet_fuzzy: {key} must be a string"))),
    }
}

/// `sheet_fuzzy`: per cell of each sub-rule's ranges, normalise both values
/// (`normalization` replacements, `trim_leadings`, `trim_trailings`,
/// `ignore_chars`, `ignore_case`) then compare by `type`: `exact_match`,
/// `includes` (value 0 contains value 1), `included_by`, `fuzzy_match`
/// (ratio ≥ `threshold`, default 85).
fn sheet_fuzzy(cx: &Cx<'_>, books: &Books<'_>, r: &Map<String, Value>) -> Result<bool, CheckError> {
    let a = books.grid(cx, r, "sheet_idx0")?;
    let b = books.grid(cx, r, "sheet_idx1")?;
    let subrules = r
        .get("rules")
        .and_then(Value::as_array)
        .ok_or_else(|| cx.bad("sheet_fuzzy needs rules: a list"))?;
    let mut ok = a.is_some() && b.is_some();
    let empty = Vec::new();
    let (a, b) = (a.unwrap_or(&empty), b.unwrap_or(&empty));
    for rl in subrules {
        let rl = rl
            .as_object()
            .ok_or_else(|| cx.bad("each sheet_fuzzy rule must be an object"))?;
        let cells = rl
            .get("range")
            .and_then(range_cells)
            .ok_or_else(|| cx.bad("sheet_fuzzy rule needs range: cell ranges like \"A1:B6\""))?;
        let kind = rl.get("type").and_then(Value::as_str).unwrap_or_default();
        if !matches!(
            kind,
            "includes" | "included_by" | "fuzzy_match" | "exact_match"
        ) {
            return Err(cx.bad(format!("sheet_fuzzy type {kind:?} is not supported")));
        }
        let threshold = match rl.get("threshold") {
            None | Some(Value::Null) => 85.0,
            Some(v) => v
                .as_f64()
                .ok_or_else(|| cx.bad("sheet_fuzzy threshold must be a number"))?,
        };
        let mut pairs = Vec::new();
        if let Some(norm) = rl.get("normalization") {
            for p in norm.as_array().into_iter().flatten() {
                match p.as_array().map(Vec::as_slice) {
                    Some([Value::String(x), Value::String(y)]) => {
                        pairs.push((x.as_str(), y.as_str()))
                    }
                    _ => return Err(cx.bad("sheet_fuzzy normalization must be [[from, to], …]")),
                }
            }
        }
        let lead: Vec<char> = opt_str(cx, rl, "trim_leadings")?
            .unwrap_or("")
            .chars()
            .collect();
        let trail: Vec<char> = opt_str(cx, rl, "trim_trailings")?
            .unwrap_or("")
            .chars()
            .collect();
        let drop: Vec<char> = opt_str(cx, rl, "ignore_chars")?
            .unwrap_or("")
            .chars()
            .collect();
        let fold = rl
            .get("ignore_case")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let norm = |cell: &Cell| {
            let mut s = cell.py_text();
            for (x, y) in &pairs {
                s = s.replace(x, y);
            }
            let mut s: String = s
                .trim_start_matches(lead.as_slice())
                .trim_end_matches(trail.as_slice())
                .to_owned();
            s.retain(|c| !drop.contains(&c));
            if fold { s.to_lowercase() } else { s }
        };
        for &(row, col) in &cells {
            let (x, y) = (norm(cell_at(a, row, col)), norm(cell_at(b, row, col)));
            let hit = match kind {
                "includes" => x.contains(&y),
                "included_by" => y.contains(&x),
                "fuzzy_match" => indel_ratio(&x, &y) * 100.0 >= threshold,
                _ => x == y,
            };
            ok = ok && hit;
        }
    }
    Ok(ok)
}
