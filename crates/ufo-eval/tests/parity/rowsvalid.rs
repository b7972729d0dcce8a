//! `compare_table`'s `row_props` (`utils.load_rows_or_cols`) and
//! `data_validation` rules: workbooks written here with rust_xlsxwriter,
//! with hidden, resized and grouped rows, and with data validations of
//! each kind, compared under the rules OSWorld's tasks use and variants
//! of them.

use std::path::Path;

use rust_xlsxwriter::{
    DataValidation, DataValidationErrorStyle, DataValidationRule, Workbook, Worksheet,
};
use serde_json::{Value, json};
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};

fn book(dir: &Path, name: &str, edit: &dyn Fn(&mut Worksheet)) -> Got {
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet();
    for r in 0..8u32 {
        ws.write_string(r, 0, format!("row {r}")).unwrap();
        ws.write_number(r, 1, f64::from(r)).unwrap();
    }
    edit(ws);
    let p = dir.join(name);
    wb.save(&p).unwrap();
    Got::File(p)
}

#[test]
fn compare_table_row_props() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    type Edit = Box<dyn Fn(&mut Worksheet)>;
    let edits: Vec<(&str, Edit)> = vec![
        (
            "row 3 hidden",
            Box::new(|ws| {
                ws.set_row_hidden(2).unwrap();
            }),
        ),
        (
            "row 4 hidden",
            Box::new(|ws| {
                ws.set_row_hidden(3).unwrap();
            }),
        ),
        ("none hidden", Box::new(|_| {})),
        (
            "row 3 hidden, row 5 tall",
            Box::new(|ws| {
                ws.set_row_hidden(2).unwrap();
                ws.set_row_height(4, 30).unwrap();
            }),
        ),
        (
            "rows 2-4 grouped",
            Box::new(|ws| {
                ws.group_rows(1, 3).unwrap();
            }),
        ),
        (
            "rows 2-4 grouped, collapsed",
            Box::new(|ws| {
                ws.group_rows_collapsed(1, 3).unwrap();
            }),
        ),
    ];
    let books: Vec<(&str, Got)> = edits
        .iter()
        .enumerate()
        .map(|(i, (name, edit))| (*name, book(d, &format!("rows{i}.xlsx"), edit)))
        .collect();
    let props: Vec<Value> = vec![
        json!(["hidden"]),
        json!(["hidden", "ht"]),
        json!(["outlineLevel"]),
        json!(["collapsed", "hidden"]),
        json!(["customHeight"]),
        json!([]),
    ];
    let mut cases = Vec::new();
    for (rname, result) in &books {
        for (ename, expected) in &books {
            for p in &props {
                let rules = json!([{"type": "row_props", "sheet_idx0": 0, "sheet_idx1": "EI0",
                                    "props": p}]);
                cases.push(
                    Case::new(
                        format!("{rname} vs {ename} {p}"),
                        result.clone(),
                        expected.clone(),
                    )
                    .with(json!({"rules": rules})),
                );
            }
        }
        // A sheet that is not there has no rows.
        let rules = json!([{"type": "row_props", "sheet_idx0": "RI3", "sheet_idx1": "RNnope",
                            "props": ["hidden"]}]);
        cases.push(
            Case::new(
                format!("{rname} missing sheets"),
                result.clone(),
                result.clone(),
            )
            .with(json!({"rules": rules})),
        );
        let rules = json!([{"type": "row_props", "sheet_idx0": 0, "sheet_idx1": 7,
                            "props": ["hidden"]}]);
        cases.push(
            Case::new(
                format!("{rname} vs no sheet"),
                result.clone(),
                result.clone(),
            )
            .with(json!({"rules": rules})),
        );
    }
    compare("table", "compare_table", &cases);
}

fn list(items: &[&str]) -> DataValidation {
    DataValidation::new().allow_list_strings(items).unwrap()
}

#[test]
fn compare_table_data_validation() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    type Edit = Box<dyn Fn(&mut Worksheet)>;
    let pfh = ["Pass", "Fail", "Held"];
    let edits: Vec<(&str, Edit)> = vec![
        (
            "D2:D29 list",
            Box::new(move |ws| {
                ws.add_data_validation(1, 3, 28, 3, &list(&pfh)).unwrap();
            }),
        ),
        (
            "D2:D100 list",
            Box::new(move |ws| {
                ws.add_data_validation(1, 3, 99, 3, &list(&pfh)).unwrap();
            }),
        ),
        (
            "D2:D29 two items",
            Box::new(|ws| {
                ws.add_data_validation(1, 3, 28, 3, &list(&["Pass", "Fail"]))
                    .unwrap();
            }),
        ),
        (
            "C2:C29 list",
            Box::new(move |ws| {
                ws.add_data_validation(1, 2, 28, 2, &list(&pfh)).unwrap();
            }),
        ),
        (
            "D2:D29 whole between",
            Box::new(|ws| {
                let dv = DataValidation::new()
                    .allow_whole_number(DataValidationRule::Between(1, 10))
                    .set_input_title("Pick")
                    .unwrap()
                    .set_input_message("1 to 10")
                    .unwrap()
                    .set_error_style(DataValidationErrorStyle::Warning)
                    .ignore_blank(false);
                ws.add_data_validation(1, 3, 28, 3, &dv).unwrap();
            }),
        ),
        (
            "list and decimal",
            Box::new(move |ws| {
                ws.add_data_validation(1, 3, 28, 3, &list(&pfh)).unwrap();
                let dv = DataValidation::new()
                    .allow_decimal_number(DataValidationRule::GreaterThan(0.0));
                ws.add_data_validation(1, 4, 9, 4, &dv).unwrap();
            }),
        ),
        ("none", Box::new(|_| {})),
        (
            "two ranges",
            Box::new(move |ws| {
                let dv = list(&pfh).set_multi_range("D2:D10 D12:D29");
                ws.add_data_validation(1, 3, 9, 3, &dv).unwrap();
            }),
        ),
    ];
    let books: Vec<(&str, Got)> = edits
        .iter()
        .enumerate()
        .map(|(i, (name, edit))| (*name, book(d, &format!("dv{i}.xlsx"), edit)))
        .collect();
    let task = json!({
        "ranges": {"method": "spreadsheet_range", "ref": ["D2:D29", "D2:D1048576"]},
        "type": {"method": "eq", "ref": "list"},
        "formula1": {"method": "str_set_eq", "ref": ["Pass", "Fail", "Held"]},
    });
    let eq = |v: Value| json!({"method": "eq", "ref": v});
    let dv_props: Vec<Value> = vec![
        json!([task]),
        json!([{"type": eq(json!("list")), "formula1":
                 {"method": "str_list_eq", "ref": ["Pass", "Fail", "Held"]}}]),
        json!([{"ranges": eq(json!("D2:D29"))}]),
        json!([{"ranges": {"method": "ne", "ref": "D2:D29"}}]),
        json!([{"type": eq(json!("whole")), "operator": eq(json!("between")),
                "formula1": eq(json!("1")), "formula2": eq(json!("10"))}]),
        json!([{"allowBlank": eq(json!(true)), "showDropDown": eq(json!(false))}]),
        json!([{"promptTitle": eq(json!("Pick")), "prompt": eq(json!("1 to 10")),
                "errorStyle": eq(json!("warning"))}]),
        json!([{"showErrorMessage": eq(json!(true)), "showInputMessage": eq(json!(true)),
                "imeMode": eq(json!(null)), "error": eq(json!(null))}]),
        json!([task, {"type": eq(json!("decimal")), "operator": eq(json!("greaterThan"))}]),
        json!([{"validation_type": eq(json!("list")), "allow_blank": eq(json!(true))}]),
        json!([]),
        json!([{}]),
    ];
    let mut cases = Vec::new();
    for (name, result) in &books {
        for p in &dv_props {
            let rules = json!([{"type": "data_validation", "sheet_idx": 0, "dv_props": p}]);
            cases.push(
                Case::new(format!("{name} {p}"), result.clone(), result.clone())
                    .with(json!({"rules": rules})),
            );
        }
        // A sheet that is not there scores 0.
        let rules = json!([{"type": "data_validation", "sheet_idx": "RNnope",
                            "dv_props": [task]}]);
        cases.push(
            Case::new(format!("{name} no sheet"), result.clone(), result.clone())
                .with(json!({"rules": rules})),
        );
    }
    compare("table", "compare_table", &cases);
}
