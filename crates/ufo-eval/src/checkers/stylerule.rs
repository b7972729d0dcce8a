//! `compare_table`'s `style` rule: OSWorld's `load_xlsx_styles` for each
//! of two sheets, compared as dicts `{coordinate: [prop values]}`.
//!
//! The keys are every cell of the rectangle A1 .. (largest row, largest
//! column) of the cells openpyxl holds (each `<c>`, merged ranges'
//! cells, hyperlink and comment cells, and cells an earlier rule of the
//! same call created), with each cell's own style values
//! (`cellstyle`); then the conditional-formatting pass (`condfmt`)
//! overwrites active cells with their dxf's values.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use roxmltree::Document;
use serde_json::Value;

use super::cellstyle::{self, PROPS, child, children};
use super::cellvalue;
use super::condfmt::{self, StyleError};
use super::docx::zip_part;

/// A sheet's styles: `{(row, column): [value per prop]}`.
pub(super) type Styles = BTreeMap<(usize, usize), Vec<Value>>;

/// `load_xlsx_styles(book, sheet, props=props)`; `created` holds the cells
/// earlier rules created in this sheet and receives those this one
/// creates. A sheet the book does not have gives an empty map.
pub(super) fn load(
    book: &Path,
    sheet: &str,
    props: &[String],
    created: &mut BTreeSet<(usize, usize)>,
) -> Result<Styles, StyleError> {
    if !has_sheet(book, sheet).map_err(StyleError::Bad)? {
        return Ok(Styles::new());
    }
    let values = cellvalue::load(book, sheet).map_err(StyleError::Bad)?;
    cellstyle::with_sheet(book, sheet, |ss| {
        Ok((|| {
            if ss.has_unaddressed_cells() {
                return Err(StyleError::Refuse(
                    "a <c> without an r attribute (openpyxl's positions are not reproduced)".into(),
                ));
            }
            let mut cells = ss.loaded_cells().map_err(StyleError::Bad)?;
            cells.extend(created.iter().copied());
            let mut styles = Styles::new();
            if let Some(rows) = cells.iter().map(|c| c.0).max() {
                let cols = cells.iter().map(|c| c.1).max().unwrap_or(0);
                if let Some(p) = props.iter().find(|p| !PROPS.contains(&p.as_str())) {
                    return Err(StyleError::Raises(format!(
                        "NotImplementedError: Unsupported Style: {p}"
                    )));
                }
                if (rows + 1) * (cols + 1) > 2_000_000 {
                    return Err(StyleError::Refuse(
                        "a sheet of more than two million cells".into(),
                    ));
                }
                for col in 0..=cols {
                    for row in 0..=rows {
                        let vals = props
                            .iter()
                            .map(|p| ss.prop((row, col), p))
                            .collect::<Result<_, _>>()?;
                        styles.insert((row, col), vals);
                        created.insert((row, col));
                    }
                }
            }
            condfmt::apply(ss, &values, props, created, &mut styles)?;
            Ok(styles)
        })())
    })
    .map_err(StyleError::Bad)?
}

/// Whether the workbook lists sheet `sheet` (openpyxl's `book[sheet]`).
fn has_sheet(book: &Path, sheet: &str) -> Result<bool, String> {
    let file = std::fs::File::open(book).map_err(|e| e.to_string())?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    let xml = zip_part(&mut zip, "xl/workbook.xml")?.ok_or("no xl/workbook.xml")?;
    let doc = Document::parse(&xml).map_err(|e| e.to_string())?;
    Ok(child(doc.root_element(), "sheets")
        .is_some_and(|s| children(s, "sheet").any(|n| n.attribute("name") == Some(sheet))))
}

/// Why openpyxl cannot load `book` because of a worksheet's conditional
/// formats (see `condfmt::load_failure`), or `None`.
pub(super) fn load_failure(book: &Path) -> Result<Option<String>, String> {
    let file = std::fs::File::open(book).map_err(|e| e.to_string())?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    let xml = zip_part(&mut zip, "xl/workbook.xml")?.ok_or("no xl/workbook.xml")?;
    let doc = Document::parse(&xml).map_err(|e| e.to_string())?;
    let names: Vec<String> = child(doc.root_element(), "sheets")
        .map(|s| {
            children(s, "sheet")
                .filter_map(|n| n.attribute("name").map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    for name in names {
        let failure = cellstyle::with_sheet(book, &name, |ss| {
            let dxfs = ss
                .stylesheet()
                .and_then(|s| child(s, "dxfs"))
                .map_or(0, |d| children(d, "dxf").count());
            Ok(condfmt::load_failure(ss.root(), dxfs))
        });
        // A sheet this cannot read is left to the rules that read it.
        if let Ok(Some(why)) = failure {
            return Ok(Some(format!("sheet {name:?}: {why}")));
        }
    }
    Ok(None)
}

/// The rule's `props` as OSWorld's `options.get("props", [])` iterates
/// them: a list of strings (a string would iterate its characters, each
/// an unknown style).
pub(super) fn props(v: Option<&Value>) -> Result<Vec<String>, String> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|p| {
                p.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| "style props must be strings".to_owned())
            })
            .collect(),
        Some(_) => Err("style props must be a list of strings".into()),
    }
}
