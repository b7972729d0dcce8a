//! `compare_table`'s `row_props` and `data_validation` rules: a sheet's
//! row dimensions and data validations as openpyxl reads them (OSWorld
//! `utils.load_rows_or_cols`, `table.py`).
//!
//! Rows: openpyxl keeps a row dimension only for a `<row>` with an
//! attribute other than `r`, `spans` and namespaced ones (a later
//! `<row>` of the same number replaces it); a row without `r` follows the
//! previous one. Validations: the `dataValidation`s of `dataValidations`
//! (not those of an extension list, which openpyxl drops).

use std::collections::BTreeMap;
use std::path::Path;

use roxmltree::{Document, Node};
use serde_json::{Map, Value};

use super::cellstyle::{Area, child, children, parts};
use super::docx::zip_part;
use super::structured::match_value;
use super::{CheckError, Cx};

/// The XML of sheet `sheet`'s part.
fn sheet_xml(book: &Path, sheet: &str) -> Result<String, String> {
    let file = std::fs::File::open(book).map_err(|e| e.to_string())?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    let (part, _) = parts(&mut zip, sheet)?;
    zip_part(&mut zip, &part)?.ok_or_else(|| "the sheet part is missing".to_owned())
}

/// openpyxl's `Bool` of an attribute's text: `false`, `f`, `0` and the
/// empty string are false, any other text true.
fn py_bool(v: &str) -> bool {
    !matches!(v, "false" | "f" | "0" | "")
}

/// The properties `row_props` reads here.
const ROW_PROPS: &[&str] = &[
    "hidden",
    "ht",
    "height",
    "customHeight",
    "outlineLevel",
    "outline_level",
    "collapsed",
    "r",
    "index",
];

/// `load_rows_or_cols(obj="row")`: each kept row's number and the values
/// of `props` (a set: sorted and without repeats) on it.
pub(super) fn rows(
    book: &Path,
    sheet: &str,
    props: &[String],
) -> Result<BTreeMap<i64, Vec<Value>>, String> {
    let mut props: Vec<&str> = props.iter().map(String::as_str).collect();
    props.sort_unstable();
    props.dedup();
    if let Some(p) = props.iter().find(|p| !ROW_PROPS.contains(p)) {
        return Err(format!("row property {p:?} is not read here"));
    }
    let xml = sheet_xml(book, sheet)?;
    let doc = Document::parse(&xml).map_err(|e| e.to_string())?;
    let mut kept: BTreeMap<i64, Node<'_, '_>> = BTreeMap::new();
    let mut counter: i64 = 0;
    if let Some(data) = child(doc.root_element(), "sheetData") {
        for row in children(data, "row") {
            counter = match row.attribute("r") {
                Some(r) => r
                    .trim()
                    .parse()
                    .map_err(|e| format!("row number {r:?}: {e}"))?,
                None => counter + 1,
            };
            if row
                .attributes()
                .any(|a| a.namespace().is_none() && !matches!(a.name(), "r" | "spans"))
            {
                kept.insert(counter, row);
            }
        }
    }
    let mut out = BTreeMap::new();
    for (no, row) in kept {
        let attr = |n: &str| row.attribute(n);
        let ht = match attr("ht") {
            Some(h) => Some(
                h.trim()
                    .parse::<f64>()
                    .map_err(|e| format!("row height {h:?}: {e}"))?,
            ),
            None => None,
        };
        let outline = match attr("outlineLevel") {
            Some(o) => o
                .trim()
                .parse::<i64>()
                .map_err(|e| format!("outline level {o:?}: {e}"))?,
            None => 0,
        };
        let values = props
            .iter()
            .map(|p| match *p {
                // `hidden = not visible` of the attribute's raw text.
                "hidden" => Value::Bool(match attr("visible") {
                    Some(v) => v.is_empty(),
                    None => attr("hidden").is_some_and(py_bool),
                }),
                "ht" | "height" => ht.map_or(Value::Null, Value::from),
                "customHeight" => Value::Bool(ht.is_some()),
                "outlineLevel" | "outline_level" => Value::from(outline),
                "collapsed" => Value::Bool(attr("collapsed").is_some_and(py_bool)),
                _ => Value::from(no),
            })
            .collect();
        out.insert(no, values);
    }
    Ok(out)
}

/// One data validation: its cell ranges (`sqref`) and its other
/// attributes as openpyxl's `DataValidation` holds them.
pub(super) struct Validation {
    /// The ranges, each a rectangle.
    pub(super) ranges: Vec<Area>,
    /// `type`, `formula1`, `allowBlank`, … (null when unset; booleans
    /// false when unset).
    pub(super) attrs: Map<String, Value>,
}

/// openpyxl's `NoneSet` attributes and their allowed values.
const CHOICES: &[(&str, &[&str])] = &[
    (
        "type",
        &[
            "whole",
            "decimal",
            "list",
            "date",
            "time",
            "textLength",
            "custom",
        ],
    ),
    ("errorStyle", &["stop", "warning", "information"]),
    (
        "imeMode",
        &[
            "noControl",
            "off",
            "on",
            "disabled",
            "hiragana",
            "fullKatakana",
            "halfKatakana",
            "fullAlpha",
            "halfAlpha",
            "fullHangul",
            "halfHangul",
        ],
    ),
    (
        "operator",
        &[
            "between",
            "notBetween",
            "equal",
            "notEqual",
            "lessThan",
            "lessThanOrEqual",
            "greaterThan",
            "greaterThanOrEqual",
        ],
    ),
];

/// The attribute a name (or openpyxl alias) of `DataValidation` reads;
/// `sqref` for the ranges.
pub(super) fn dv_attribute(name: &str) -> Option<&'static str> {
    Some(match name {
        "sqref" | "cells" | "ranges" => "sqref",
        "allow_blank" | "allowBlank" => "allowBlank",
        "hide_drop_down" | "showDropDown" => "showDropDown",
        "validation_type" | "type" => "type",
        "showInputMessage" => "showInputMessage",
        "showErrorMessage" => "showErrorMessage",
        "errorTitle" => "errorTitle",
        "error" => "error",
        "promptTitle" => "promptTitle",
        "prompt" => "prompt",
        "formula1" => "formula1",
        "formula2" => "formula2",
        "errorStyle" => "errorStyle",
        "imeMode" => "imeMode",
        "operator" => "operator",
        _ => return None,
    })
}

/// A space-separated list of `A1` / `A1:B2` ranges (openpyxl's
/// `MultiCellRange`).
pub(super) fn parse_ranges(s: &str) -> Result<Vec<Area>, String> {
    s.split_whitespace()
        .map(|r| Area::parse(r).ok_or_else(|| format!("range {r:?} is not read here")))
        .collect()
}

/// The sheet's data validations.
pub(super) fn validations(book: &Path, sheet: &str) -> Result<Vec<Validation>, String> {
    let xml = sheet_xml(book, sheet)?;
    let doc = Document::parse(&xml).map_err(|e| e.to_string())?;
    let Some(list) = child(doc.root_element(), "dataValidations") else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for dv in children(list, "dataValidation") {
        let mut attrs = Map::new();
        for (name, allowed) in CHOICES {
            let v = match dv.attribute(*name) {
                None | Some("none") => Value::Null,
                Some(v) if allowed.contains(&v) => Value::String(v.to_owned()),
                Some(v) => return Err(format!("data validation {name} {v:?} is not allowed")),
            };
            attrs.insert((*name).to_owned(), v);
        }
        for name in [
            "showDropDown",
            "showInputMessage",
            "showErrorMessage",
            "allowBlank",
        ] {
            let v = dv.attribute(name).is_some_and(py_bool);
            attrs.insert(name.to_owned(), Value::Bool(v));
        }
        for name in ["errorTitle", "error", "promptTitle", "prompt"] {
            let v = dv
                .attribute(name)
                .map_or(Value::Null, |s| Value::String(s.to_owned()));
            attrs.insert(name.to_owned(), v);
        }
        for name in ["formula1", "formula2"] {
            let v = child(dv, name)
                .and_then(|f| f.text())
                .map_or(Value::Null, |s| Value::String(s.to_owned()));
            attrs.insert(name.to_owned(), v);
        }
        let ranges = parse_ranges(dv.attribute("sqref").unwrap_or(""))?;
        out.push(Validation { ranges, attrs });
    }
    Ok(out)
}

/// OSWorld's `_multicellrange_containsby`: each range of `sub` lies
/// within one range of `sup`.
fn contained(sub: &[Area], sup: &[Area]) -> bool {
    sub.iter()
        .all(|r| sup.iter().any(|s| s.contains(r.0) && s.contains(r.1)))
}

/// `_match_value_to_rule` on a validation's ranges: `spreadsheet_range`
/// (`ref` = [subset, superset]: the ranges contain the first and lie
/// within the second) or `eq`/`ne` with a range string (the ranges as a
/// set). Other methods are refused.
fn ranges_match(
    cx: &Cx<'_>,
    value: &[Area],
    rule: &Map<String, Value>,
) -> Result<bool, CheckError> {
    let method = rule.get("method").and_then(Value::as_str).unwrap_or("");
    let parse = |v: Option<&Value>| -> Result<Vec<Area>, CheckError> {
        let s = v
            .and_then(Value::as_str)
            .ok_or_else(|| cx.bad(format!("ranges {method}: ref must hold range strings")))?;
        parse_ranges(s).map_err(|m| cx.bad(m))
    };
    let bounds = |a: &[Area]| -> Vec<((usize, usize), (usize, usize))> {
        let mut b: Vec<_> = a.iter().map(|r| (r.0, r.1)).collect();
        b.sort_unstable();
        b.dedup();
        b
    };
    match method {
        "spreadsheet_range" => {
            let refs = rule.get("ref").and_then(Value::as_array);
            let (Some(sub), Some(sup)) =
                (refs.and_then(|a| a.first()), refs.and_then(|a| a.get(1)))
            else {
                return Err(cx.bad("spreadsheet_range needs ref [subset, superset]"));
            };
            let (sub, sup) = (parse(Some(sub))?, parse(Some(sup))?);
            Ok(contained(&sub, value) && contained(value, &sup))
        }
        "eq" | "ne" => {
            let want = parse(rule.get("ref"))?;
            Ok((bounds(value) == bounds(&want)) == (method == "eq"))
        }
        other => Err(cx.bad(format!(
            "method {other:?} on a data validation's ranges is not supported"
        ))),
    }
}

/// `data_validation`: at least as many validations as `dv_props`, and
/// each validation matching every rule of one of them.
pub(super) fn data_validation(
    cx: &Cx<'_>,
    dvs: &[Validation],
    dv_props: &[Value],
) -> Result<bool, CheckError> {
    let mut total = dvs.len() >= dv_props.len();
    for dv in dvs {
        let mut metric = false;
        for prpt in dv_props {
            let prpt = prpt
                .as_object()
                .ok_or_else(|| cx.bad("each dv_props item must be {attribute: rule}"))?;
            let mut all = true;
            for (name, rule) in prpt {
                let rule = rule
                    .as_object()
                    .ok_or_else(|| cx.bad("each data validation rule must be an object"))?;
                let attr = dv_attribute(name).ok_or_else(|| {
                    cx.bad(format!("a data validation has no attribute {name:?}"))
                })?;
                let ok = if attr == "sqref" {
                    ranges_match(cx, &dv.ranges, rule)?
                } else {
                    match_value(cx, dv.attrs.get(attr).unwrap_or(&Value::Null), rule)?
                };
                if !ok {
                    all = false;
                    break;
                }
            }
            if all {
                metric = true;
                break;
            }
        }
        total = total && metric;
        if !total {
            break;
        }
    }
    Ok(total)
}
