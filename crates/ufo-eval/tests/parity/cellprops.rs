//! `compare_table`'s `check_cell` properties `number_format`,
//! `font_family`, `hyperlink` and `merge` (`utils._read_cell_style`): one
//! workbook written here with rust_xlsxwriter, each property read at
//! every kind of cell (text, numbers under built-in, custom and date
//! formats, a formula, a boolean, links, a merged range, an empty cell).

use rust_xlsxwriter::{Format, Formula, Url, Workbook};
use serde_json::{Value, json};
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};

#[test]
fn compare_table_check_cell_formats_links_merges() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet();
    let fmt = |code: &str| Format::new().set_num_format(code);
    ws.write_string(0, 0, "text").unwrap();
    ws.write_number(1, 0, 1.5).unwrap();
    ws.write_number_with_format(2, 0, 1.5, &fmt("0.00"))
        .unwrap();
    ws.write_number_with_format(3, 0, 1.5, &fmt("0.000"))
        .unwrap();
    ws.write_number_with_format(4, 0, 45000.0, &fmt("yyyy-mm-dd"))
        .unwrap();
    ws.write_formula_with_format(5, 0, Formula::new("=A2*2"), &fmt("0.00"))
        .unwrap();
    ws.write_boolean(6, 0, true).unwrap();
    ws.write_url(7, 0, Url::new("https://example.com/"))
        .unwrap();
    ws.write_url_with_text(8, 0, Url::new("internal:Sheet1!A1"), "go")
        .unwrap();
    ws.write_number_with_format(9, 0, 2.25, &fmt("#,##0.00"))
        .unwrap();
    ws.write_number_with_format(10, 0, -0.5, &fmt("0.0%;[Red]-0.0%"))
        .unwrap();
    ws.write_number_with_format(11, 0, 3.0, &fmt("\"days\" 0"))
        .unwrap();
    ws.write_string_with_format(0, 1, "family", &Format::new().set_font_family(3))
        .unwrap();
    ws.write_number_with_format(1, 1, 7.0, &Format::new().set_bold().set_num_format("0.000"))
        .unwrap();
    ws.merge_range(0, 2, 1, 3, "merged", &Format::new().set_bold())
        .unwrap();
    ws.merge_range(3, 2, 3, 3, "", &Format::new()).unwrap();
    ws.write_url(3, 2, Url::new("https://example.org/"))
        .unwrap();
    let path = d.join("formats.xlsx");
    wb.save(&path).unwrap();
    let book = Got::File(path);

    let eq = |v: Value| json!({"method": "eq", "ref": v});
    let props: Vec<(&str, Vec<Value>)> = vec![
        (
            "number_format",
            [
                json!("General"),
                json!("0.00"),
                json!("0.000"),
                json!("#,##0.00"),
                json!("0.0%;[Red]-0.0%"),
                json!("\"days\" 0"),
                json!("yyyy-mm-dd"),
                json!(null),
            ]
            .into_iter()
            .map(eq)
            .collect(),
        ),
        (
            "font_family",
            vec![eq(json!(2)), eq(json!(3.0)), eq(json!(null))],
        ),
        (
            "hyperlink",
            vec![
                eq(json!("")),
                eq(json!(null)),
                eq(json!("https://example.com/")),
                json!({"method": "ne", "ref": ""}),
            ],
        ),
        ("merge", vec![eq(json!(true)), eq(json!(false))]),
    ];
    let coords: Vec<String> = (1..=12)
        .map(|r| format!("A{r}"))
        .chain(["B1", "B2", "C1", "D1", "C2", "D2", "C4", "D4", "E9"].map(str::to_owned))
        .collect();
    let mut cases = Vec::new();
    for coord in &coords {
        for (prop, rules) in &props {
            for rule in rules {
                let rules = json!([{"type": "check_cell", "sheet_idx": 0, "coordinate": coord,
                                    "props": {*prop: rule}}]);
                cases.push(
                    Case::new(format!("{coord} {prop} {rule}"), book.clone(), book.clone())
                        .with(json!({"rules": rules})),
                );
            }
        }
    }
    compare("table", "compare_table", &cases);
}
