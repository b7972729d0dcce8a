//! `compare_table`'s `chart` rule: a sheet's charts as OSWorld's
//! `utils.load_charts` summarises openpyxl's reading of them.
//!
//! Charts are found through the sheet's drawing (two-cell anchors first,
//! then one-cell, then absolute ones, as openpyxl lists them). A chart is
//! the first chart element of its plot area: its series (sorted by
//! `order`) give the key, `val,cat` formulas joined by `;`; a later chart
//! with the same key replaces an earlier one. Titles are the first run of
//! the first paragraph of a rich-text title (null otherwise); the x axis
//! is the chart's last category or date axis, the y axis its last value
//! axis (a scatter or bubble chart's first and second axes).

use std::collections::BTreeMap;
use std::path::Path;

use roxmltree::{Document, Node};
use serde_json::{Map, Value};

use super::pivot::{Zip, open_sheet, read_part, rels_of};

const C: &str = "http://schemas.openxmlformats.org/drawingml/2006/chart";
const A: &str = "http://schemas.openxmlformats.org/drawingml/2006/main";
const XDR: &str = "http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing";
const R: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/// The chart elements a plot area may hold.
const KINDS: &[&str] = &[
    "areaChart",
    "area3DChart",
    "lineChart",
    "line3DChart",
    "stockChart",
    "radarChart",
    "scatterChart",
    "pieChart",
    "pie3DChart",
    "doughnutChart",
    "barChart",
    "bar3DChart",
    "ofPieChart",
    "surfaceChart",
    "surface3DChart",
    "bubbleChart",
];

/// The properties this summarises (`anchor`, `width` and `height` are not
/// read here).
const PROPS: &[&str] = &[
    "title",
    "legend",
    "type",
    "direction",
    "xtitle",
    "ytitle",
    "ztitle",
];

fn ch<'a, 'i>(n: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name((C, name)))
}

fn val<'a>(n: Node<'a, '_>, name: &str) -> Option<&'a str> {
    ch(n, name).and_then(|v| v.attribute("val"))
}

/// `title.tx.rich.p[0].r[0].t`, null when any step is missing.
fn title_text(title: Option<Node<'_, '_>>) -> Value {
    let text = title
        .and_then(|t| ch(t, "tx"))
        .and_then(|tx| ch(tx, "rich"))
        .and_then(|rich| rich.children().find(|c| c.has_tag_name((A, "p"))))
        .and_then(|p| p.children().find(|c| c.has_tag_name((A, "r"))))
        .and_then(|r| r.children().find(|c| c.has_tag_name((A, "t"))))
        .map(|t| t.text().unwrap_or(""));
    text.map_or(Value::Null, |t| Value::String(t.to_owned()))
}

/// The formula of a data source's `numRef` (or, with `str_ref`, its
/// `strRef`), or `""`.
fn formula(src: Option<Node<'_, '_>>, str_ref: bool) -> String {
    let f = |kind: &str| {
        src.and_then(|s| ch(s, kind))
            .and_then(|r| ch(r, "f"))
            .map(|f| f.text().unwrap_or("").to_owned())
    };
    f("numRef")
        .or_else(|| if str_ref { f("strRef") } else { None })
        .unwrap_or_default()
}

/// The chart parts of the sheet's drawings, in openpyxl's order.
fn chart_parts(zip: &mut Zip, sheet_part: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let drawings: Vec<String> = rels_of(zip, sheet_part)?
        .into_iter()
        .filter(|(_, t, _)| t.ends_with("/drawing"))
        .map(|(_, _, p)| p)
        .collect();
    for drawing in drawings {
        let xml = read_part(zip, &drawing)?;
        let doc = Document::parse(&xml).map_err(|e| e.to_string())?;
        let rels = rels_of(zip, &drawing)?;
        for kind in ["twoCellAnchor", "oneCellAnchor", "absoluteAnchor"] {
            let anchors = doc
                .root_element()
                .children()
                .filter(|n| n.has_tag_name((XDR, kind)));
            for anchor in anchors {
                let chart = anchor
                    .children()
                    .find(|n| n.has_tag_name((XDR, "graphicFrame")))
                    .and_then(|g| g.descendants().find(|n| n.has_tag_name((C, "chart"))));
                let Some(id) = chart.and_then(|c| c.attribute((R, "id"))) else {
                    continue;
                };
                let part = rels
                    .iter()
                    .find(|(i, _, _)| i == id)
                    .map(|(_, _, t)| t.clone())
                    .ok_or_else(|| format!("chart relationship {id:?} is missing"))?;
                out.push(part);
            }
        }
    }
    Ok(out)
}

/// `load_charts` of sheet `sheet` with `props`.
pub(super) fn load(
    book: &Path,
    sheet: &str,
    props: &[String],
) -> Result<BTreeMap<String, Value>, String> {
    let (mut zip, sheet_part) = open_sheet(book, sheet, props, PROPS, "chart")?;
    let has = |p: &str| props.iter().any(|q| q == p);
    let mut out = BTreeMap::new();
    for part in chart_parts(&mut zip, &sheet_part)? {
        let xml = read_part(&mut zip, &part)?;
        let doc = Document::parse(&xml).map_err(|e| e.to_string())?;
        let chart = ch(doc.root_element(), "chart").ok_or("a chart part without c:chart")?;
        let plot = ch(chart, "plotArea").ok_or("a chart without plotArea")?;
        let first = plot
            .children()
            .find(|n| n.tag_name().namespace() == Some(C) && KINDS.contains(&n.tag_name().name()))
            .ok_or("a plot area without a chart")?;
        let kind = first.tag_name().name();
        let mut series: Vec<(i64, Node<'_, '_>)> = Vec::new();
        for s in first.children().filter(|n| n.has_tag_name((C, "ser"))) {
            let order = val(s, "order")
                .map(|v| v.parse::<i64>().map_err(|e| format!("series order: {e}")))
                .transpose()?
                .unwrap_or(0);
            series.push((order, s));
        }
        series.sort_by_key(|(o, _)| *o);
        let key = series
            .iter()
            .map(|(_, s)| {
                format!(
                    "{},{}",
                    formula(ch(*s, "val"), false),
                    formula(ch(*s, "cat"), true)
                )
            })
            .collect::<Vec<_>>()
            .join(";");
        let mut info = Map::new();
        if has("title") {
            info.insert("title".into(), title_text(ch(chart, "title")));
        }
        if has("legend") {
            let legend = ch(chart, "legend").map_or(Value::Null, |l| {
                Value::String(val(l, "legendPos").unwrap_or("r").to_owned())
            });
            info.insert("legend".into(), legend);
        }
        if has("type") {
            info.insert("type".into(), Value::String(kind.to_owned()));
        }
        if has("direction") {
            if !matches!(kind, "barChart" | "bar3DChart") {
                return Err(format!(
                    "a {kind} has no barDir (OSWorld's function raises)"
                ));
            }
            info.insert(
                "direction".into(),
                Value::String(val(first, "barDir").unwrap_or("col").to_owned()),
            );
        }
        let (x, y, z) = axes(plot, first, kind)?;
        for (prop, axis) in [("xtitle", x), ("ytitle", y), ("ztitle", z)] {
            if has(prop) {
                info.insert(prop.into(), title_text(axis.and_then(|a| ch(a, "title"))));
            }
        }
        out.insert(key, Value::Object(info));
    }
    Ok(out)
}

type Axis<'a, 'i> = Option<Node<'a, 'i>>;

/// The chart's x, y and z axes as openpyxl's `PlotArea.from_tree` assigns
/// them.
fn axes<'a, 'i>(
    plot: Node<'a, 'i>,
    chart: Node<'a, 'i>,
    kind: &str,
) -> Result<(Axis<'a, 'i>, Axis<'a, 'i>, Axis<'a, 'i>), String> {
    let all: Vec<Node<'a, 'i>> = plot
        .children()
        .filter(|n| {
            n.tag_name().namespace() == Some(C)
                && matches!(n.tag_name().name(), "valAx" | "catAx" | "dateAx" | "serAx")
        })
        .collect();
    let find = |id: &str| {
        // openpyxl's dict of axes by id: the last one of an id wins.
        all.iter().copied().rfind(|a| val(*a, "axId") == Some(id))
    };
    let ids: Vec<&str> = chart
        .children()
        .filter(|n| n.has_tag_name((C, "axId")))
        .filter_map(|n| n.attribute("val"))
        .collect();
    let (mut x, mut y, mut z) = (None, None, None);
    if matches!(kind, "scatterChart" | "bubbleChart") {
        let [a, b] = ids.as_slice() else {
            return Err(format!("a {kind} without two axes"));
        };
        let (a, b) = (find(a), find(b));
        if a.is_none() || b.is_none() {
            return Err("an axis id names no axis".into());
        }
        return Ok((a, b, None));
    }
    for id in ids {
        let Some(axis) = find(id) else {
            if kind.contains("3D") || kind == "surfaceChart" {
                continue;
            }
            return Err(format!("axis {id} names no axis"));
        };
        match axis.tag_name().name() {
            "catAx" | "dateAx" => x = Some(axis),
            "valAx" => y = Some(axis),
            _ => z = Some(axis),
        }
    }
    Ok((x, y, z))
}
