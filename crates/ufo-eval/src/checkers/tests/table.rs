//! `compare_table` over `.xlsx` fixtures (written with rust_xlsxwriter) and
//! `.csv` fixtures.

use std::path::{Path, PathBuf};

use rust_xlsxwriter::Workbook;
use serde_json::{Value, json};

use super::{assert_bad, file, rules, score, text};
use crate::checkers::Got;

/// A cell to write: text or number.
enum C {
    S(&'static str),
    N(f64),
}

/// Writes an .xlsx with the given sheets (name, rows).
fn xlsx(dir: &Path, name: &str, sheets: &[(&str, Vec<Vec<C>>)]) -> PathBuf {
    let mut wb = Workbook::new();
    for (sheet, rows) in sheets {
        let ws = wb.add_worksheet();
        ws.set_name(*sheet).unwrap();
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let (r, c) = (r as u32, c as u16);
                match cell {
                    C::S(s) => ws.write(r, c, *s).unwrap(),
                    C::N(n) => ws.write(r, c, *n).unwrap(),
                };
            }
        }
    }
    let path = dir.join(name);
    wb.save(&path).unwrap();
    path
}

fn people(age: f64) -> Vec<Vec<C>> {
    vec![
        vec![C::S("Name"), C::S("Age"), C::S("Phone")],
        vec![C::S("Ann"), C::N(age), C::S("+1 (555) 010")],
        vec![C::S("Bob Rd"), C::N(41.0), C::S("555-011")],
    ]
}

fn f(p: &Path) -> Got {
    Got::File(p.to_owned())
}

#[test]
fn compare_table_sheet_data_xlsx() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Ages with fractions: pandas types the column float64 on both sides.
    let gold = xlsx(
        d,
        "gold.xlsx",
        &[("Sheet1", people(30.5)), ("Notes", vec![vec![C::S("x")]])],
    );
    let same = xlsx(
        d,
        "same.xlsx",
        &[
            ("Sheet1", people(30.50001)),
            ("Notes", vec![vec![C::S("x")]]),
        ],
    );
    let other = xlsx(
        d,
        "other.xlsx",
        &[("Sheet1", people(31.5)), ("Notes", vec![vec![C::S("x")]])],
    );
    // A whole number against a near one: int64 against float64 columns,
    // unequal for pandas however they round.
    let whole = xlsx(
        d,
        "whole.xlsx",
        &[("Sheet1", people(30.0)), ("Notes", vec![vec![C::S("x")]])],
    );
    let near = xlsx(
        d,
        "near.xlsx",
        &[
            ("Sheet1", people(30.00001)),
            ("Notes", vec![vec![C::S("x")]]),
        ],
    );
    let renamed = xlsx(
        d,
        "renamed.xlsx",
        &[("Data", people(30.0)), ("Notes", vec![vec![C::S("x")]])],
    );

    let data = json!({"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]});
    assert_eq!(
        score("compare_table", &f(&same), Some(&f(&gold)), data.clone()),
        1.0
    );
    assert_eq!(
        score("compare_table", &f(&other), Some(&f(&gold)), data.clone()),
        0.0
    );
    assert_eq!(
        score("compare_table", &f(&near), Some(&f(&whole)), data.clone()),
        0.0
    );
    // precision 6 sees the 0.00001 difference.
    let precise = json!({"rules": [{"type": "sheet_data", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "precision": 6}]});
    assert_eq!(
        score("compare_table", &f(&same), Some(&f(&gold)), precise),
        0.0
    );
    // By name; a sheet that does not exist scores 0.
    let by_name = json!({"rules": [{"type": "sheet_data", "sheet_idx0": "RNNotes", "sheet_idx1": "ENNotes"}]});
    assert_eq!(
        score("compare_table", &f(&renamed), Some(&f(&gold)), by_name),
        1.0
    );
    let absent =
        json!({"rules": [{"type": "sheet_data", "sheet_idx0": "RNSheet1", "sheet_idx1": "EI0"}]});
    assert_eq!(
        score("compare_table", &f(&renamed), Some(&f(&gold)), absent),
        0.0
    );
    let names = json!({"rules": [{"type": "sheet_name"}, {"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]});
    assert_eq!(
        score(
            "compare_table",
            &f(&renamed),
            Some(&f(&gold)),
            names.clone()
        ),
        0.0
    );
    assert_eq!(
        score("compare_table", &f(&same), Some(&f(&gold)), names),
        1.0
    );

    // No rules (OSWorld's function raises; ours compares whole books).
    assert_eq!(
        score("compare_table", &f(&same), Some(&f(&gold)), Value::Null),
        1.0
    );
    assert_eq!(
        score("compare_table", &f(&other), Some(&f(&gold)), Value::Null),
        0.0
    );
    assert_eq!(
        score("compare_table", &f(&renamed), Some(&f(&gold)), Value::Null),
        0.0
    );

    // An unreadable result scores 0; a missing one too.
    let junk = file(d, "junk.xlsx", "not a workbook");
    assert_eq!(
        score("compare_table", &junk, Some(&f(&gold)), data.clone()),
        0.0
    );
    assert_eq!(
        score(
            "compare_table",
            &f(&d.join("absent.xlsx")),
            Some(&f(&gold)),
            data.clone()
        ),
        0.0
    );
    assert_eq!(
        score("compare_table", &Got::Missing, Some(&f(&gold)), data),
        0.0
    );
}

#[test]
fn compare_table_opens_only_what_openpyxl_opens() {
    // OSWorld's function opens both books with openpyxl, which takes
    // .xlsx/.xlsm/.xltx/.xltm only: a CSV result scores 0, a CSV expected
    // book makes it raise.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let gold = xlsx(d, "gold.xlsx", &[("Sheet1", people(30.0))]);
    let csv = file(
        d,
        "out.csv",
        "Name,Age,Phone\nAnn,30,+1 (555) 010\nBob Rd,41,555-011\n\n",
    );
    let data = json!({"rules": [{"type": "sheet_data", "sheet_idx0": "RI0", "sheet_idx1": "EI0"}]});
    assert_eq!(
        score("compare_table", &csv, Some(&f(&gold)), data.clone()),
        0.0
    );
    assert_bad("compare_table", &f(&gold), Some(&csv), data.clone());
    // Without rules (a ufo-rs extension), CSV files take part.
    let gold_csv = file(
        d,
        "gold.csv",
        "Name,Age,Phone\nAnn,30.0,+1 (555) 010\nBob Rd,41,555-011",
    );
    assert_eq!(
        score("compare_table", &csv, Some(&gold_csv), Value::Null),
        1.0
    );
    let wrong = file(
        d,
        "wrong.csv",
        "Name,Age,Phone\nAnn,31,+1 (555) 010\nBob Rd,41,555-011",
    );
    assert_eq!(
        score("compare_table", &wrong, Some(&gold_csv), Value::Null),
        0.0
    );
    let upper = xlsx(d, "GOLD.XLSX", &[("Sheet1", people(30.0))]);
    assert_eq!(
        score("compare_table", &f(&upper), Some(&f(&gold)), data),
        1.0
    );
}

#[test]
fn compare_table_sheet_fuzzy_and_check_cell() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let gold = xlsx(
        d,
        "gold.xlsx",
        &[(
            "Sheet1",
            vec![
                vec![C::S("Name"), C::S("Age"), C::S("Phone")],
                vec![C::S("ann"), C::N(30.0), C::S("5550")],
                vec![C::S("Bob Road"), C::N(41.0), C::S("555011")],
            ],
        )],
    );
    let result = xlsx(d, "result.xlsx", &[("Sheet1", people(30.0))]);
    let fuzzy = json!({"rules": [{"type": "sheet_fuzzy", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1", "rules": [
        {"range": ["B1:B3"], "type": "exact_match"},
        {"range": ["A2:A3"], "type": "fuzzy_match", "threshold": 85, "normalization": [["Rd", "Road"]], "ignore_case": true},
        {"range": "C2:C3", "type": "includes", "trim_leadings": "+ ", "ignore_chars": " ()-"}
    ]}]});
    assert_eq!(
        score("compare_table", &f(&result), Some(&f(&gold)), fuzzy),
        1.0
    );
    let strict = json!({"rules": [{"type": "sheet_fuzzy", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "rules": [
        {"range": ["A1:A3"], "type": "exact_match"}
    ]}]});
    assert_eq!(
        score("compare_table", &f(&result), Some(&f(&gold)), strict),
        0.0
    );

    let cell = json!({"rules": [{"type": "check_cell", "sheet_idx": 0, "coordinate": "B3", "props": {"value": {"method": "eq", "ref": 41}}}]});
    assert_eq!(score("compare_table", &f(&result), None, cell), 1.0);
    let cell = json!({"rules": [{"type": "check_cell", "sheet_idx": 0, "coordinate": "A2", "props": {"value": {"method": "eq", "ref": "Bob"}}}]});
    assert_eq!(score("compare_table", &f(&result), None, cell), 0.0);
}

#[test]
fn compare_table_sheet_print() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let gold = xlsx(d, "gold.xlsx", &[("Sheet1", people(30.0))]);
    let result = xlsx(d, "result.xlsx", &[("Sheet1", people(30.0))]);
    file(d, "gold-Sheet1.csv", "Name,Age\nAnn,30\n\n");
    file(d, "result-Sheet1.csv", "  name,age\nANN,30  \n");
    let print = |ic: bool| json!({"rules": [{"type": "sheet_print", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "ignore_case": ic}]});
    assert_eq!(
        score("compare_table", &f(&result), Some(&f(&gold)), print(true)),
        1.0
    );
    assert_eq!(
        score("compare_table", &f(&result), Some(&f(&gold)), print(false)),
        0.0
    );
}

#[test]
fn compare_table_bad_rules() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let gold = xlsx(d, "gold.xlsx", &[("Sheet1", people(30.0))]);
    let (r, e) = (f(&gold), f(&gold));
    let t = "compare_table";
    // The style rule: equal books without conditional formats pass; an
    // unknown style name raises in OSWorld (a bad input here).
    let style = |props: Value| {
        json!({"rules": [{"type": "style", "sheet_idx0": 0, "sheet_idx1": "EI0",
                          "props": props}]})
    };
    assert_eq!(
        score(t, &r, Some(&e), style(json!(["bgcolor", "font_bold"]))),
        1.0
    );
    assert_bad(t, &r, Some(&e), style(json!(["font_shadow"])));
    assert_bad(t, &r, Some(&e), style(json!("bgcolor")));
    assert_bad(t, &r, Some(&e), json!({"rules": [{"sheet_idx0": 0}]}));
    assert_bad(t, &r, Some(&e), json!({"rules": {"type": "sheet_data"}}));
    assert_bad(
        t,
        &r,
        Some(&e),
        json!({"rules": [{"type": "sheet_data", "sheet_idx0": "XX0", "sheet_idx1": "EI0"}]}),
    );
    assert_bad(
        t,
        &r,
        Some(&e),
        json!({"rules": [{"type": "sheet_data", "sheet_idx0": "RIx", "sheet_idx1": "EI0"}]}),
    );
    assert_bad(
        t,
        &r,
        None,
        json!({"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]}),
    );
    assert_bad(t, &r, None, Value::Null);
    let data = json!({"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]});
    assert_bad(t, &r, Some(&f(&d.join("absent.xlsx"))), data.clone());
    assert_bad(t, &r, Some(&rules(json!({}))), data.clone());
    assert_bad(
        t,
        &r,
        Some(&e),
        json!({"rules": [{"type": "sheet_fuzzy", "sheet_idx0": 0, "sheet_idx1": "EI0", "rules": [{"range": "A1", "type": "similar"}]}]}),
    );
    // A chart property not read here is refused, not guessed.
    assert_bad(
        t,
        &r,
        Some(&e),
        json!({"rules": [{"type": "chart", "sheet_idx0": 0, "sheet_idx1": "EI0", "chart_props": ["anchor"]}]}),
    );
    assert_eq!(score(t, &text("a,b"), Some(&e), data), 0.0);
}
