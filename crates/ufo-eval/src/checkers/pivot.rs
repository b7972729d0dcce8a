//! `compare_table`'s `pivot_table` rule: a sheet's pivot tables as
//! OSWorld's `utils.load_pivot_tables` summarises them from openpyxl's
//! reading (the sheet's `pivotTable` relationships in order, each table's
//! cache found through the workbook's `pivotCaches` by `cacheId`).
//!
//! Each table is keyed by its cache's source, `type;(row, col):(row,
//! col);sheet`, where the columns are narrowed by the leading and trailing
//! pivot fields that have no item with an index (`x`); a later table with
//! the same source replaces an earlier one. Field indices are shifted by
//! the leading count. Without `ordered`, each field's selection (its
//! items' `(h, x)`) is a set.

use std::collections::BTreeMap;
use std::path::Path;

use roxmltree::{Document, Node};
use serde_json::{Value, json};

use super::cellstyle::{child, children, parts};
use super::docx::zip_part;
use super::workbook::parse_cell;

const R: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const REL: &str = "http://schemas.openxmlformats.org/package/2006/relationships";

/// The properties this summarises (`location` is an object openpyxl
/// compares field by field, not read here).
const PROPS: &[&str] = &[
    "name",
    "show_total",
    "show_empty_row",
    "show_empty_col",
    "show_headers",
    "filter",
    "selection",
    "ordered",
    "col_fields",
    "row_fields",
    "data_fields",
    "data_fields_name",
];

pub(super) type Zip = zip::ZipArchive<std::fs::File>;

/// The package of workbook `book` and the part of its sheet `sheet`, once
/// every one of `props` is among `known` (what a `kind` object is read for).
pub(super) fn open_sheet(
    book: &Path,
    sheet: &str,
    props: &[String],
    known: &[&str],
    kind: &str,
) -> Result<(Zip, String), String> {
    if let Some(p) = props.iter().find(|p| !known.contains(&p.as_str())) {
        return Err(format!("{kind} property {p:?} is not read here"));
    }
    let file = std::fs::File::open(book).map_err(|e| e.to_string())?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    let (sheet_part, _) = parts(&mut zip, sheet)?;
    Ok((zip, sheet_part))
}

pub(super) fn read_part(zip: &mut Zip, name: &str) -> Result<String, String> {
    zip_part(zip, name)?.ok_or_else(|| format!("part {name} is missing"))
}

/// `posixpath.normpath(join(dir, target))`, or the target itself when
/// absolute.
fn resolve(dir: &str, target: &str) -> String {
    let joined = match target.strip_prefix('/') {
        Some(abs) => abs.to_owned(),
        None => format!("{dir}/{target}"),
    };
    let mut out: Vec<&str> = Vec::new();
    for seg in joined.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    out.join("/")
}

/// The relationships of `part`: (id, type, resolved target) in order.
pub(super) fn rels_of(zip: &mut Zip, part: &str) -> Result<Vec<(String, String, String)>, String> {
    let (dir, file) = part.rsplit_once('/').unwrap_or(("", part));
    let Some(xml) = zip_part(zip, &format!("{dir}/_rels/{file}.rels"))? else {
        return Ok(Vec::new());
    };
    let doc = Document::parse(&xml).map_err(|e| e.to_string())?;
    Ok(doc
        .root_element()
        .children()
        .filter(|n| n.has_tag_name((REL, "Relationship")))
        .map(|n| {
            let a = |k: &str| n.attribute(k).unwrap_or("").to_owned();
            (
                a("Id"),
                a("Type"),
                resolve(dir, n.attribute("Target").unwrap_or("")),
            )
        })
        .collect())
}

/// openpyxl's `Bool` of an attribute's text.
fn py_bool(v: &str) -> bool {
    !matches!(v, "false" | "f" | "0" | "")
}

fn int(n: Node<'_, '_>, name: &str) -> Result<Option<i64>, String> {
    n.attribute(name)
        .map(|v| v.trim().parse().map_err(|e| format!("{name} {v:?}: {e}")))
        .transpose()
}

fn need_int(n: Node<'_, '_>, name: &str) -> Result<i64, String> {
    int(n, name)?.ok_or_else(|| format!("{} without {name}", n.tag_name().name()))
}

/// The cache source (`type`, `ref`, `sheet`) of each `cacheId`.
/// A cache's source: its `type`, the worksheet source's `ref` and `sheet`.
type Source = (String, Option<String>, String);

fn caches(zip: &mut Zip) -> Result<BTreeMap<i64, Source>, String> {
    let wb_xml = read_part(zip, "xl/workbook.xml")?;
    let wb = Document::parse(&wb_xml).map_err(|e| e.to_string())?;
    let rels = rels_of(zip, "xl/workbook.xml")?;
    let mut out = BTreeMap::new();
    let Some(list) = child(wb.root_element(), "pivotCaches") else {
        return Ok(out);
    };
    for c in children(list, "pivotCache") {
        let id = need_int(c, "cacheId")?;
        let rid = c.attribute((R, "id")).unwrap_or("");
        let part = rels
            .iter()
            .find(|(i, _, _)| i == rid)
            .map(|(_, _, t)| t.clone())
            .ok_or_else(|| format!("pivot cache {rid:?} has no part"))?;
        let xml = read_part(zip, &part)?;
        let doc = Document::parse(&xml).map_err(|e| e.to_string())?;
        let src = child(doc.root_element(), "cacheSource").ok_or("a cache without cacheSource")?;
        let ws = child(src, "worksheetSource");
        out.insert(
            id,
            (
                src.attribute("type").unwrap_or("").to_owned(),
                ws.and_then(|w| w.attribute("ref")).map(str::to_owned),
                ws.and_then(|w| w.attribute("sheet"))
                    .unwrap_or("None")
                    .to_owned(),
            ),
        );
    }
    Ok(out)
}

/// `(row, column)` of an `A1` reference, 1-based.
fn coord(s: &str) -> Result<(i64, i64), String> {
    let (r, c) = parse_cell(s).ok_or_else(|| format!("bad cell {s:?}"))?;
    Ok((r as i64 + 1, c as i64 + 1))
}

/// `load_pivot_tables` of sheet `sheet` with `props`: each table's
/// source and summary.
pub(super) fn load(
    book: &Path,
    sheet: &str,
    props: &[String],
) -> Result<BTreeMap<String, Value>, String> {
    let (mut zip, sheet_part) = open_sheet(book, sheet, props, PROPS, "pivot")?;
    let has = |p: &str| props.iter().any(|q| q == p);
    let tables: Vec<String> = rels_of(&mut zip, &sheet_part)?
        .into_iter()
        .filter(|(_, t, _)| t.ends_with("/pivotTable"))
        .map(|(_, _, p)| p)
        .collect();
    let mut out = BTreeMap::new();
    if tables.is_empty() {
        return Ok(out);
    }
    let caches = caches(&mut zip)?;
    for part in tables {
        let xml = read_part(&mut zip, &part)?;
        let doc = Document::parse(&xml).map_err(|e| e.to_string())?;
        let t = doc.root_element();
        let cache_id = need_int(t, "cacheId")?;
        let (kind, range, src_sheet) = caches
            .get(&cache_id)
            .ok_or_else(|| format!("no pivot cache {cache_id}"))?;
        let mut raw: Vec<Vec<(Option<bool>, i64)>> = Vec::new();
        if let Some(fields) = child(t, "pivotFields") {
            for f in children(fields, "pivotField") {
                let mut sel = Vec::new();
                for it in child(f, "items")
                    .into_iter()
                    .flat_map(|i| children(i, "item"))
                {
                    if let Some(x) = int(it, "x")? {
                        sel.push((it.attribute("h").map(py_bool), x));
                    }
                }
                raw.push(sel);
            }
        }
        let left = raw.iter().take_while(|s| s.is_empty()).count();
        let right = raw[left..]
            .iter()
            .rev()
            .take_while(|s| s.is_empty())
            .count();
        let selection = &raw[left..raw.len() - right];
        let range = range.as_deref().ok_or("a worksheet source without ref")?;
        let ends: Vec<&str> = range.split(':').collect();
        let [a, b] = ends.as_slice() else {
            return Err(format!("source range {range:?} is not A1:B2"));
        };
        let (r1, c1) = coord(a)?;
        let (r2, c2) = coord(b)?;
        let key = format!(
            "{kind};({r1}, {}):({r2}, {});{src_sheet}",
            c1 + left as i64,
            c2 - right as i64
        );
        let info = summarise(t, selection, left as i64, &has)?;
        out.insert(key, Value::Object(info));
    }
    Ok(out)
}

/// The summary of one table `t` for the properties `has` names.
fn summarise(
    t: Node<'_, '_>,
    selection: &[Vec<(Option<bool>, i64)>],
    left: i64,
    has: &dyn Fn(&str) -> bool,
) -> Result<serde_json::Map<String, Value>, String> {
    let mut info = serde_json::Map::new();
    let flag = |name: &str, default: bool| Value::Bool(t.attribute(name).map_or(default, py_bool));
    if has("name") {
        info.insert("name".into(), json!(t.attribute("name")));
    }
    for (prop, attr, default) in [
        ("show_total", "visualTotals", true),
        ("show_empty_row", "showEmptyRow", false),
        ("show_empty_col", "showEmptyCol", false),
        ("show_headers", "showHeaders", true),
    ] {
        if has(prop) {
            info.insert(prop.into(), flag(attr, default));
        }
    }
    if has("filter") || has("selection") {
        let sel: Vec<Value> = selection
            .iter()
            .map(|s| {
                let mut s = s.clone();
                if !has("ordered") {
                    s.sort_unstable();
                    s.dedup();
                }
                Value::Array(s.into_iter().map(|(h, x)| json!([h, x])).collect())
            })
            .collect();
        info.insert("selection".into(), Value::Array(sel));
    }
    let shifted = |list: &str, item: &'static str, attr: &str| -> Result<Vec<i64>, String> {
        child(t, list)
            .into_iter()
            .flat_map(|l| children(l, item))
            .map(|f| need_int(f, attr).map(|x| x - left))
            .collect()
    };
    if has("filter") {
        let mut flds: Vec<i64> = child(t, "pageFields")
            .into_iter()
            .flat_map(|l| children(l, "pageField"))
            .map(|f| need_int(f, "fld"))
            .collect::<Result<_, _>>()?;
        flds.sort_unstable();
        flds.dedup();
        info.insert("filter_fields".into(), json!(flds));
    }
    if has("col_fields") {
        info.insert(
            "col_fields".into(),
            json!(shifted("colFields", "field", "x")?),
        );
    }
    if has("row_fields") {
        info.insert(
            "row_fields".into(),
            json!(shifted("rowFields", "field", "x")?),
        );
    }
    if has("data_fields") {
        let mut data = Vec::new();
        for f in child(t, "dataFields")
            .into_iter()
            .flat_map(|l| children(l, "dataField"))
        {
            let name = if has("data_fields_name") {
                f.attribute("name").unwrap_or("None")
            } else {
                ""
            };
            data.push(Value::String(format!(
                "{};{name};{};{}",
                need_int(f, "fld")? - left,
                f.attribute("subtotal").unwrap_or("sum"),
                f.attribute("showDataAs").unwrap_or("normal"),
            )));
        }
        info.insert("data_fields".into(), Value::Array(data));
    }
    Ok(info)
}
