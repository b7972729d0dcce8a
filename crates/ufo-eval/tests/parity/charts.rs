//! `compare_table`'s `chart` rule (`utils.load_charts`): workbooks with
//! charts written by rust_xlsxwriter, varied in type, direction, series,
//! titles (rich text or a cell reference), axis titles and legend.

use std::path::Path;

use rust_xlsxwriter::{Chart, ChartLegendPosition, ChartType, Workbook};
use serde_json::{Value, json};
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};

/// A chart to write: its type, whether it has a second series, its title,
/// axis titles, legend (`None` hidden) and a value range.
#[derive(Clone)]
struct Spec {
    kind: ChartType,
    two_series: bool,
    title: Option<&'static str>,
    x: Option<&'static str>,
    y: Option<&'static str>,
    legend: Option<ChartLegendPosition>,
    values: &'static str,
}

fn base() -> Spec {
    Spec {
        kind: ChartType::Column,
        two_series: false,
        title: Some("Sales"),
        x: Some("Month"),
        y: Some("Amount"),
        legend: Some(ChartLegendPosition::Right),
        values: "Sheet1!$B$2:$B$7",
    }
}

fn book(dir: &Path, name: &str, specs: &[Spec]) -> Got {
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet();
    ws.write_string(0, 0, "Month").unwrap();
    ws.write_string(0, 1, "Sales").unwrap();
    ws.write_string(0, 2, "Costs").unwrap();
    for r in 1..7u32 {
        ws.write_string(r, 0, format!("M{r}")).unwrap();
        ws.write_number(r, 1, f64::from(r * 3)).unwrap();
        ws.write_number(r, 2, f64::from(r * 2)).unwrap();
    }
    for (i, s) in specs.iter().enumerate() {
        let mut chart = Chart::new(s.kind);
        chart
            .add_series()
            .set_categories("Sheet1!$A$2:$A$7")
            .set_values(s.values);
        if s.two_series {
            chart
                .add_series()
                .set_categories("Sheet1!$A$2:$A$7")
                .set_values("Sheet1!$C$2:$C$7");
        }
        if let Some(t) = s.title {
            chart.title().set_name(t);
        }
        if let Some(t) = s.x {
            chart.x_axis().set_name(t);
        }
        if let Some(t) = s.y {
            chart.y_axis().set_name(t);
        }
        match s.legend {
            Some(p) => {
                chart.legend().set_position(p);
            }
            None => {
                chart.legend().set_hidden();
            }
        }
        ws.insert_chart(1 + 16 * i as u32, 4, &chart).unwrap();
    }
    let p = dir.join(name);
    wb.save(&p).unwrap();
    Got::File(p)
}

fn variants() -> Vec<(&'static str, Vec<Spec>)> {
    let with = |f: &dyn Fn(&mut Spec)| {
        let mut s = base();
        f(&mut s);
        vec![s]
    };
    vec![
        ("same", vec![base()]),
        ("bar", with(&|s| s.kind = ChartType::Bar)),
        ("line", with(&|s| s.kind = ChartType::Line)),
        ("pie", with(&|s| s.kind = ChartType::Pie)),
        ("scatter", with(&|s| s.kind = ChartType::Scatter)),
        (
            "stacked column",
            with(&|s| s.kind = ChartType::ColumnStacked),
        ),
        ("two series", with(&|s| s.two_series = true)),
        ("other values", with(&|s| s.values = "Sheet1!$C$2:$C$7")),
        ("retitled", with(&|s| s.title = Some("Costs"))),
        (
            "title from a cell",
            with(&|s| s.title = Some("=Sheet1!$B$1")),
        ),
        ("untitled", with(&|s| s.title = None)),
        ("no x title", with(&|s| s.x = None)),
        ("other y title", with(&|s| s.y = Some("Total"))),
        (
            "legend at the bottom",
            with(&|s| s.legend = Some(ChartLegendPosition::Bottom)),
        ),
        ("no legend", with(&|s| s.legend = None)),
        ("none", vec![]),
        (
            "two charts",
            vec![base(), with(&|s| s.two_series = true).remove(0)],
        ),
        (
            "two charts, one key",
            vec![base(), with(&|s| s.title = Some("Later")).remove(0)],
        ),
    ]
}

#[test]
fn compare_table_chart() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base_book = book(d, "base.xlsx", &[base()]);
    let books: Vec<(&str, Got)> = variants()
        .iter()
        .enumerate()
        .map(|(i, (n, s))| (*n, book(d, &format!("c{i}.xlsx"), s)))
        .collect();
    let props: Vec<Value> = vec![
        json!(["type"]),
        json!(["type", "legend", "title"]),
        json!(["xtitle", "ytitle", "type"]),
        json!(["xtitle", "ytitle", "type", "legend", "title"]),
        json!(["type", "direction"]),
        json!(["ztitle"]),
        json!([]),
    ];
    let mut cases = Vec::new();
    for (name, other) in &books {
        for p in &props {
            for (label, result, expected) in [
                ("result", other, &base_book),
                ("expected", &base_book, other),
            ] {
                let rules = json!([{"type": "chart", "sheet_idx0": 0, "sheet_idx1": "EI0",
                                    "chart_props": p}]);
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
    let rules = json!([{"type": "chart", "sheet_idx0": "RNnope", "sheet_idx1": "EI3",
                        "chart_props": ["type"]}]);
    cases.push(
        Case::new("missing sheets", base_book.clone(), base_book.clone())
            .with(json!({"rules": rules})),
    );
    compare("table", "compare_table", &cases);
}
