//! `compare_conference_city_in_order` (OSWorld `table.py`): the cities in
//! cells C2:C22 of a workbook's active sheet, read as openpyxl reads them
//! (`load_workbook` without `data_only`: a formula cell's value is its
//! formula, `=` included), each containing its expected city (or one of a
//! list of them), in order.

use std::io::Read;
use std::path::Path;

use calamine::{Data, Reader};
use roxmltree::Document;
use serde_json::Value;

use super::{CheckError, Cx, Got};

const SHEET_MAIN: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";

/// openpyxl's `wb.active` index: the first workbook view's `activeTab`
/// (0 without one).
fn active_tab(path: &Path) -> Result<usize, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    let mut xml = String::new();
    zip.by_name("xl/workbook.xml")
        .map_err(|e| e.to_string())?
        .read_to_string(&mut xml)
        .map_err(|e| e.to_string())?;
    let doc = Document::parse(&xml).map_err(|e| e.to_string())?;
    let view = doc
        .descendants()
        .find(|n| n.has_tag_name((SHEET_MAIN, "workbookView")));
    Ok(view
        .and_then(|v| v.attribute("activeTab"))
        .and_then(|t| t.parse().ok())
        .unwrap_or(0))
}

/// The values of C2:C22 as openpyxl gives them: text as a string, a
/// formula as `=` and its text, anything else (numbers, dates, booleans,
/// empty cells) as `None`, which no city is in.
fn cities(path: &Path) -> Result<Vec<Option<String>>, String> {
    let index = active_tab(path)?;
    let mut wb = calamine::open_workbook_auto(path).map_err(|e| e.to_string())?;
    let names = wb.sheet_names();
    let name = names
        .get(index)
        .ok_or("the active sheet is not a worksheet")?
        .clone();
    let values = wb.worksheet_range(&name).map_err(|e| e.to_string())?;
    let formulas = wb.worksheet_formula(&name).map_err(|e| e.to_string())?;
    Ok((1..22u32)
        .map(|row| {
            if let Some(f) = formulas.get_value((row, 2)).filter(|f| !f.is_empty()) {
                return Some(format!("={f}"));
            }
            match values.get_value((row, 2)) {
                Some(Data::String(s)) => Some(s.clone()),
                _ => None,
            }
        })
        .collect())
}

/// `compare_conference_city_in_order`: `rules.expected` lists 21 cities
/// (or lists of acceptable names); each must be a substring of its cell
/// in C2:C22 of the active sheet. Fewer than 21, a cell that is not text,
/// or an entry that is neither a string nor a list of strings scores 0 (OSWorld
/// catches the error); a workbook openpyxl cannot open is refused.
pub(super) fn compare_conference_city_in_order(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let expected = cx
        .rules()?
        .get("expected")
        .ok_or_else(|| cx.bad("rules have no \"expected\""))?;
    let path = match cx.result {
        Got::File(p) => p.clone(),
        Got::Text(t) => t.into(),
        _ => return Err(cx.bad("the result must be a workbook")),
    };
    let actual = cities(&path).map_err(|m| cx.bad(format!("{}: {m}", path.display())))?;
    let Some(expected) = expected.as_array() else {
        return Ok(0.0);
    };
    for (i, got) in actual.iter().enumerate() {
        let Some(want) = expected.get(i) else {
            return Ok(0.0);
        };
        let Some(got) = got else {
            return Ok(0.0);
        };
        let found = match want {
            Value::String(w) => got.contains(w.as_str()),
            Value::Array(options) => {
                let mut any = false;
                for o in options {
                    match o.as_str() {
                        Some(o) if got.contains(o) => {
                            any = true;
                            break;
                        }
                        Some(_) => {}
                        None => return Ok(0.0),
                    }
                }
                any
            }
            _ => false,
        };
        if !found {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}
