//! `compare_table`'s `pivot_table` rule (`utils.load_pivot_tables`):
//! workbooks written by rust_xlsxwriter, with pivot tables and their caches
//! added here as OOXML parts (rust_xlsxwriter and openpyxl write no pivot
//! tables of their own), varied in each property the summary reads.

use std::io::{Cursor, Read, Write};
use std::path::Path;

use rust_xlsxwriter::Workbook;
use serde_json::{Value, json};
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};

const MAIN: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const RELS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/// A pivot field's items, `(x, h)`.
type Items = Vec<(i64, Option<&'static str>)>;

/// One pivot table: its pivot fields' items (`(x, h)`; `None` for a field
/// without `<items>`), row, column and page fields, data fields
/// (`fld`, `subtotal`, `showDataAs`), source range and name.
#[derive(Clone)]
struct Pivot {
    fields: Vec<Option<Items>>,
    rows: Vec<i64>,
    cols: Vec<i64>,
    pages: Vec<i64>,
    data: Vec<(i64, Option<&'static str>, Option<&'static str>)>,
    source: &'static str,
    name: &'static str,
    cache_id: u32,
}

fn base() -> Pivot {
    Pivot {
        fields: vec![
            Some(vec![(0, None), (1, None), (2, None)]),
            Some(vec![(0, None), (1, None)]),
            None,
            None,
        ],
        rows: vec![0],
        cols: vec![],
        pages: vec![1],
        data: vec![(3, None, None)],
        source: "A1:D9",
        name: "PivotTable1",
        cache_id: 1,
    }
}

fn table_xml(p: &Pivot) -> String {
    let mut x = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<pivotTableDefinition xmlns="{MAIN}" name="{}" cacheId="{}" dataCaption="Values" updatedVersion="3" minRefreshableVersion="3" createdVersion="3" outline="1" outlineData="1"><location ref="G3:H7" firstHeaderRow="1" firstDataRow="1" firstDataCol="1"/><pivotFields count="{}">"#,
        p.name,
        p.cache_id,
        p.fields.len()
    );
    for f in &p.fields {
        match f {
            None => x.push_str(r#"<pivotField showAll="0"/>"#),
            Some(items) => {
                x.push_str(&format!(
                    r#"<pivotField showAll="0"><items count="{}">"#,
                    items.len() + 1
                ));
                for (i, h) in items {
                    match h {
                        Some(h) => x.push_str(&format!(r#"<item x="{i}" h="{h}"/>"#)),
                        None => x.push_str(&format!(r#"<item x="{i}"/>"#)),
                    }
                }
                x.push_str(r#"<item t="default"/></items></pivotField>"#);
            }
        }
    }
    x.push_str("</pivotFields>");
    for (list, v) in [("rowFields", &p.rows), ("colFields", &p.cols)] {
        if !v.is_empty() {
            x.push_str(&format!(r#"<{list} count="{}">"#, v.len()));
            for f in v {
                x.push_str(&format!(r#"<field x="{f}"/>"#));
            }
            x.push_str(&format!("</{list}>"));
        }
    }
    if !p.pages.is_empty() {
        x.push_str(&format!(r#"<pageFields count="{}">"#, p.pages.len()));
        for f in &p.pages {
            x.push_str(&format!(r#"<pageField fld="{f}" hier="-1"/>"#));
        }
        x.push_str("</pageFields>");
    }
    x.push_str(&format!(r#"<dataFields count="{}">"#, p.data.len()));
    for (fld, sub, show) in &p.data {
        x.push_str(&format!(r#"<dataField name="Total {fld}" fld="{fld}""#));
        if let Some(s) = sub {
            x.push_str(&format!(r#" subtotal="{s}""#));
        }
        if let Some(s) = show {
            x.push_str(&format!(r#" showDataAs="{s}""#));
        }
        x.push_str(r#" baseField="0" baseItem="0"/>"#);
    }
    x.push_str("</dataFields></pivotTableDefinition>");
    x
}

fn cache_xml(p: &Pivot) -> String {
    let fields: String = ["Region", "Product", "Month", "Sales"]
        .iter()
        .map(|n| format!(r#"<cacheField name="{n}" numFmtId="0"><sharedItems/></cacheField>"#))
        .collect();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<pivotCacheDefinition xmlns="{MAIN}" xmlns:r="{RELS}" refreshOnLoad="1" recordCount="0"><cacheSource type="worksheet"><worksheetSource ref="{}" sheet="Sheet1"/></cacheSource><cacheFields count="4">{fields}</cacheFields></pivotCacheDefinition>"#,
        p.source
    )
}

/// A workbook with the data in `Sheet1!A1:D9` and `pivots` on that sheet.
fn book(dir: &Path, name: &str, pivots: &[Pivot]) -> Got {
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet();
    for (c, h) in ["Region", "Product", "Month", "Sales"].iter().enumerate() {
        ws.write_string(0, c as u16, *h).unwrap();
    }
    for r in 1..9u32 {
        ws.write_string(r, 0, ["East", "West", "North"][r as usize % 3])
            .unwrap();
        ws.write_string(r, 1, ["Pens", "Ink"][r as usize % 2])
            .unwrap();
        ws.write_number(r, 2, f64::from(r % 4 + 1)).unwrap();
        ws.write_number(r, 3, f64::from(r * 10)).unwrap();
    }
    let bytes = wb.save_to_buffer().unwrap();
    let mut src = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    let path = dir.join(name);
    let mut out = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    let mut caches = String::new();
    let mut wb_rels = String::new();
    let mut sheet_rels = String::new();
    let mut types = String::new();
    let ct = "application/vnd.openxmlformats-officedocument.spreadsheetml";
    for (i, p) in pivots.iter().enumerate() {
        let n = i + 1;
        caches.push_str(&format!(
            r#"<pivotCache cacheId="{}" r:id="rIdPc{n}"/>"#,
            p.cache_id
        ));
        wb_rels.push_str(&format!(
            r#"<Relationship Id="rIdPc{n}" Type="{RELS}/pivotCacheDefinition" Target="pivotCache/pivotCacheDefinition{n}.xml"/>"#
        ));
        sheet_rels.push_str(&format!(
            r#"<Relationship Id="rIdPt{n}" Type="{RELS}/pivotTable" Target="../pivotTables/pivotTable{n}.xml"/>"#
        ));
        types.push_str(&format!(
            r#"<Override PartName="/xl/pivotTables/pivotTable{n}.xml" ContentType="{ct}.pivotTable+xml"/><Override PartName="/xl/pivotCache/pivotCacheDefinition{n}.xml" ContentType="{ct}.pivotCacheDefinition+xml"/>"#
        ));
    }
    for i in 0..src.len() {
        let mut f = src.by_index(i).unwrap();
        let fname = f.name().to_owned();
        let mut text = String::new();
        f.read_to_string(&mut text).unwrap();
        let text = match fname.as_str() {
            "[Content_Types].xml" => text.replace("</Types>", &format!("{types}</Types>")),
            "xl/workbook.xml" if !pivots.is_empty() => text.replace(
                "</workbook>",
                &format!("<pivotCaches>{caches}</pivotCaches></workbook>"),
            ),
            "xl/_rels/workbook.xml.rels" => {
                text.replace("</Relationships>", &format!("{wb_rels}</Relationships>"))
            }
            _ => text,
        };
        out.start_file(fname, opts).unwrap();
        out.write_all(text.as_bytes()).unwrap();
    }
    if !pivots.is_empty() {
        out.start_file("xl/worksheets/_rels/sheet1.xml.rels", opts)
            .unwrap();
        out.write_all(
            format!(
                r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{sheet_rels}</Relationships>"#
            )
            .as_bytes(),
        )
        .unwrap();
    }
    for (i, p) in pivots.iter().enumerate() {
        let n = i + 1;
        out.start_file(format!("xl/pivotTables/pivotTable{n}.xml"), opts)
            .unwrap();
        out.write_all(table_xml(p).as_bytes()).unwrap();
        out.start_file(format!("xl/pivotCache/pivotCacheDefinition{n}.xml"), opts)
            .unwrap();
        out.write_all(cache_xml(p).as_bytes()).unwrap();
    }
    out.finish().unwrap();
    Got::File(path)
}

/// The tables compared with the base one, each a workbook.
fn variants() -> Vec<(&'static str, Vec<Pivot>)> {
    let b = base();
    let with = |f: &dyn Fn(&mut Pivot)| {
        let mut p = base();
        f(&mut p);
        vec![p]
    };
    vec![
        ("same", vec![b.clone()]),
        (
            "row and page swapped",
            with(&|p| {
                p.rows = vec![1];
                p.pages = vec![0];
            }),
        ),
        ("average", with(&|p| p.data[0].1 = Some("average"))),
        ("sum named", with(&|p| p.data[0].1 = Some("sum"))),
        (
            "percent of total",
            with(&|p| p.data[0].2 = Some("percentOfTotal")),
        ),
        (
            "an item hidden",
            with(&|p| p.fields[0] = Some(vec![(0, None), (1, Some("1")), (2, None)])),
        ),
        (
            "an item shown explicitly",
            with(&|p| p.fields[0] = Some(vec![(0, None), (1, Some("0")), (2, None)])),
        ),
        (
            "items reordered",
            with(&|p| p.fields[0] = Some(vec![(2, None), (0, None), (1, None)])),
        ),
        ("no page field", with(&|p| p.pages.clear())),
        ("longer source", with(&|p| p.source = "A1:D20")),
        (
            "two data fields by column",
            with(&|p| {
                p.cols = vec![-2];
                p.data.push((2, Some("count"), None));
            }),
        ),
        (
            "a leading empty field",
            with(&|p| {
                p.fields.insert(0, None);
                p.rows = vec![1];
                p.pages = vec![2];
                p.data = vec![(4, None, None)];
                p.source = "A1:E9";
            }),
        ),
        ("renamed", with(&|p| p.name = "Sales pivot")),
        ("none", vec![]),
        (
            "two tables",
            vec![b.clone(), {
                let mut p = base();
                p.source = "A1:D5";
                p.cache_id = 2;
                p
            }],
        ),
        (
            "two tables, one source",
            vec![b.clone(), {
                let mut p = base();
                p.rows = vec![1];
                p.cache_id = 2;
                p
            }],
        ),
    ]
}

#[test]
fn compare_table_pivot_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let b = base();
    let variants = variants();
    let base_book = book(d, "base.xlsx", &[b]);
    let books: Vec<(&str, Got)> = variants
        .iter()
        .enumerate()
        .map(|(i, (n, p))| (*n, book(d, &format!("p{i}.xlsx"), p)))
        .collect();
    let props: Vec<Value> = vec![
        json!(["col_fields", "filter", "row_fields", "data_fields"]),
        json!(["selection"]),
        json!(["selection", "ordered"]),
        json!([
            "name",
            "show_headers",
            "show_total",
            "data_fields",
            "data_fields_name"
        ]),
        json!([]),
    ];
    let mut cases = Vec::new();
    for (name, other) in &books {
        for p in &props {
            for (label, result, expected) in [
                ("result", other, &base_book),
                ("expected", &base_book, other),
            ] {
                let rules = json!([{"type": "pivot_table", "sheet_idx0": 0, "sheet_idx1": "EI0",
                                    "pivot_props": p}]);
                cases.push(
                    Case::new(
                        format!("{name} as {label} {p}"),
                        result.clone(),
                        expected.clone(),
                    )
                    .with(json!({"rules": rules})),
                );
            }
        }
    }
    // Sheets that are not there have no pivot tables.
    let rules = json!([{"type": "pivot_table", "sheet_idx0": "RNnope", "sheet_idx1": "EI4",
                        "pivot_props": ["filter"]}]);
    cases.push(
        Case::new("missing sheets", base_book.clone(), base_book.clone())
            .with(json!({"rules": rules})),
    );
    // Not a workbook, and no file at all.
    let junk = d.join("junk.xlsx");
    std::fs::write(&junk, "not a zip").unwrap();
    for (name, result) in [
        ("not a zip", Got::File(junk)),
        ("missing", Got::File(d.join("missing.xlsx"))),
    ] {
        let rules = json!([{"type": "pivot_table", "sheet_idx0": 0, "sheet_idx1": "EI0",
                            "pivot_props": ["filter"]}]);
        cases.push(Case::new(name, result, base_book.clone()).with(json!({"rules": rules})));
    }
    compare("table", "compare_table", &cases);
}
