//! A cell's style and a sheet's view as openpyxl reports them, for
//! `compare_table`'s `check_cell` properties other than `value` (OSWorld
//! `utils._read_cell_style`) and its `freeze` and `zoom` rules. Styles: the cell's `s` index picks an `xf` of
//! `styles.xml`'s `cellXfs`, whose `fontId` and `fillId` pick a font and a
//! fill.
//!
//! openpyxl's answers, reproduced: `font_bold`/`font_italic` are false when
//! unset; `font_underline` is `single` for a bare `<u/>` and null when
//! unset; `font_size` is a float; a colour given by theme, index or
//! `auto` has no RGB, and openpyxl answers with a descriptor object that
//! equals no rule's `ref` (its repr is `Values must be of type <class
//! 'str'>`, which is not a string); a font without a colour gives null. Font properties of an empty cell are null; `bgcolor`/`fgcolor` is
//! the pattern fill's foreground colour (`00000000` when unset);
//! `fill_type` is the fill's element name; `number_format` is the format
//! code of a number cell (not a formula, not under a date format: openpyxl
//! reads those as dates) and null for others; `font_family` a float;
//! `hyperlink` a `Hyperlink` object (modelled as an object no rule writes)
//! or `""`; `merge` whether the cell is a merged range's but not its
//! top-left one (openpyxl's `MergedCell`: no value, the default style).

use std::path::Path;

use roxmltree::{Document, Node};
use serde_json::Value;

use super::docx::zip_part;
use super::numfmt;
use super::workbook::parse_cell;

const S: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const R: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const REL: &str = "http://schemas.openxmlformats.org/package/2006/relationships";

/// What openpyxl's `Color.rgb` answers for a colour that is not RGB: an
/// object (its repr reads `Values must be of type <class 'str'>`) equal to
/// no rule's `ref`, modelled as an object no rule writes.
pub(super) fn not_rgb() -> Value {
    serde_json::json!({"openpyxl": "Values must be of type <class 'str'>"})
}

/// The properties this reads; others are not implemented here.
pub(super) const PROPS: &[&str] = &[
    "font_name",
    "font_color",
    "font_bold",
    "font_italic",
    "font_underline",
    "font_size",
    "fill_type",
    "bgcolor",
    "fgcolor",
    "number_format",
    "font_family",
    "hyperlink",
    "merge",
];

pub(super) fn child<'a, 'i>(n: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name((S, name)))
}

pub(super) fn children<'a, 'i>(
    n: Node<'a, 'i>,
    name: &'static str,
) -> impl Iterator<Item = Node<'a, 'i>> {
    n.children().filter(move |c| c.has_tag_name((S, name)))
}

/// A relationship target of `part` (under `dir`) by id or by type suffix.
fn rel_target(
    rels: &Document<'_>,
    dir: &str,
    pick: &dyn Fn(Node<'_, '_>) -> bool,
) -> Option<String> {
    let r = rels
        .root_element()
        .children()
        .filter(|n| n.has_tag_name((REL, "Relationship")))
        .find(|n| pick(*n))?;
    let target = r.attribute("Target")?;
    Some(match target.strip_prefix('/') {
        Some(abs) => abs.to_owned(),
        None => format!("{dir}/{target}"),
    })
}

/// What `cell.hyperlink` is when the cell has one: a `Hyperlink` object,
/// equal to no rule's `ref`, modelled as an object no rule writes.
pub(super) fn hyperlink_object() -> Value {
    serde_json::json!({"openpyxl": "Hyperlink"})
}

/// A rectangle of cells, `(top-left, bottom-right)` as (row, column).
pub(super) struct Area(pub(super) (usize, usize), pub(super) (usize, usize));

impl Area {
    /// `A1` or `A1:B2` (either corner first).
    pub(super) fn parse(r: &str) -> Option<Area> {
        let (a, b) = r.split_once(':').unwrap_or((r, r));
        let (a, b) = (parse_cell(a)?, parse_cell(b)?);
        Some(Area(
            (a.0.min(b.0), a.1.min(b.1)),
            (a.0.max(b.0), a.1.max(b.1)),
        ))
    }

    /// Whether the cell at (row, column) is inside.
    pub(super) fn contains(&self, (r, c): (usize, usize)) -> bool {
        (self.0.0..=self.1.0).contains(&r) && (self.0.1..=self.1.1).contains(&c)
    }
}

/// The sheet's merged ranges (`mergeCells`).
fn merged_ranges(sheet: Node<'_, '_>) -> Result<Vec<Area>, String> {
    let Some(list) = child(sheet, "mergeCells") else {
        return Ok(Vec::new());
    };
    children(list, "mergeCell")
        .filter_map(|m| m.attribute("ref"))
        .map(|r| Area::parse(r).ok_or_else(|| format!("bad merged range {r:?}")))
        .collect()
}

/// Whether openpyxl binds a hyperlink to the cell at `at` (not a merged
/// one): `None` if not, else whether a link covering it has a target or
/// location (which an empty cell takes as its value). A range link binds
/// to each of its cells; a one-cell link to a merged cell binds to the
/// top-left cell of that merged range. `rels` is the sheet part's
/// relationships.
fn link_at(
    rels: Option<&Document<'_>>,
    sheet: Node<'_, '_>,
    merges: &[Area],
    at: (usize, usize),
) -> Result<Option<bool>, String> {
    let Some(list) = child(sheet, "hyperlinks") else {
        return Ok(None);
    };
    let mut found: Option<bool> = None;
    for link in children(list, "hyperlink") {
        let r = link.attribute("ref").ok_or("a hyperlink without ref")?;
        let target = match link.attribute((R, "id")).filter(|id| !id.is_empty()) {
            Some(id) => rels
                .and_then(|d| {
                    d.root_element().children().find(|n| {
                        n.has_tag_name((REL, "Relationship")) && n.attribute("Id") == Some(id)
                    })
                })
                .ok_or_else(|| format!("hyperlink relationship {id:?} is missing"))?
                .attribute("Target")
                .unwrap_or(""),
            None => "",
        };
        let full = !target.is_empty() || link.attribute("location").is_some_and(|l| !l.is_empty());
        let area = Area::parse(r).ok_or_else(|| format!("bad hyperlink ref {r:?}"))?;
        let binds = if r.contains(':') {
            area.contains(at)
        } else {
            let cell = area.0;
            match merges.iter().find(|m| m.contains(cell) && m.0 != cell) {
                Some(m) => m.0 == at,
                None => cell == at,
            }
        };
        if binds {
            found = Some(found == Some(true) || full);
        }
    }
    Ok(found)
}

/// Whether openpyxl reads a value (not None) from cell element `c`: a
/// formula, an inline string, or a non-empty `<v>`.
fn has_own_value(c: Node<'_, '_>) -> bool {
    if child(c, "f").is_some() {
        true
    } else if c.attribute("t") == Some("inlineStr") {
        child(c, "is").is_some()
    } else {
        child(c, "v")
            .and_then(|v| v.text())
            .is_some_and(|t| !t.is_empty())
    }
}

/// An openpyxl colour's `.rgb`: an `indexed`, `theme` or `auto`
/// attribute wins over `rgb` (no RGB, [`not_rgb`]); without any, the
/// default `00000000`.
pub(super) fn color_rgb(c: Node<'_, '_>) -> Value {
    if ["indexed", "index", "theme", "auto"]
        .iter()
        .any(|a| c.attribute(*a).is_some())
    {
        return not_rgb();
    }
    match c.attribute("rgb") {
        Some(v) if v.len() == 6 => Value::String(format!("00{v}")),
        Some(v) => Value::String(v.to_owned()),
        None => Value::String("00000000".to_owned()),
    }
}

/// A nested boolean (`<b/>`, `<b val="0"/>`), false when absent.
pub(super) fn nested_bool(font: Option<Node<'_, '_>>, name: &str) -> Value {
    Value::Bool(
        font.and_then(|f| child(f, name))
            .is_some_and(|b| !matches!(b.attribute("val"), Some("0" | "false"))),
    )
}

/// The first sheet view of sheet `sheet`, as openpyxl's `freeze_panes`
/// (the pane's top-left cell; `None` without a pane) and
/// `sheet_view.zoomScale or 100.0`.
pub(super) fn view(book: &Path, sheet: &str) -> Result<(Option<String>, Value), String> {
    let file = std::fs::File::open(book).map_err(|e| e.to_string())?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    let (sheet_part, _) = parts(&mut zip, sheet)?;
    let xml = zip_part(&mut zip, &sheet_part)?.ok_or("the sheet part is missing")?;
    let doc = Document::parse(&xml).map_err(|e| e.to_string())?;
    let view = child(doc.root_element(), "sheetViews").and_then(|v| child(v, "sheetView"));
    let freeze = view
        .and_then(|v| child(v, "pane"))
        .and_then(|p| p.attribute("topLeftCell"))
        .map(str::to_owned);
    let zoom = match view.and_then(|v| v.attribute("zoomScale")) {
        Some(z) => {
            let z: i64 = z.parse().map_err(|e| format!("zoomScale: {e}"))?;
            if z == 0 {
                serde_json::json!(100.0)
            } else {
                Value::from(z)
            }
        }
        None => serde_json::json!(100.0),
    };
    Ok((freeze, zoom))
}

/// The part names of sheet `sheet` and of the styles.
pub(super) fn parts(
    zip: &mut zip::ZipArchive<std::fs::File>,
    sheet: &str,
) -> Result<(String, Option<String>), String> {
    let wb_xml = zip_part(zip, "xl/workbook.xml")?.ok_or("no xl/workbook.xml")?;
    let wb = Document::parse(&wb_xml).map_err(|e| e.to_string())?;
    let rid = child(wb.root_element(), "sheets")
        .and_then(|s| children(s, "sheet").find(|n| n.attribute("name") == Some(sheet)))
        .and_then(|n| n.attribute((R, "id")))
        .ok_or_else(|| format!("no sheet {sheet:?}"))?
        .to_owned();
    let rels_xml = zip_part(zip, "xl/_rels/workbook.xml.rels")?.ok_or("no workbook rels")?;
    let rels = Document::parse(&rels_xml).map_err(|e| e.to_string())?;
    let sheet_part = rel_target(&rels, "xl", &|n| n.attribute("Id") == Some(rid.as_str()))
        .ok_or("the sheet has no part")?;
    let styles_part = rel_target(&rels, "xl", &|n| {
        n.attribute("Type").is_some_and(|t| t.ends_with("/styles"))
    });
    Ok((sheet_part, styles_part))
}

/// Why a property has no value.
#[derive(Debug)]
pub(super) enum PropError {
    /// openpyxl raises reading it (`font_color` of a valued cell whose font
    /// has no colour: `None.rgb`); `check_cell` catches that (null),
    /// `load_xlsx_styles` does not.
    Raises(String),
    /// The workbook cannot be read here.
    Bad(String),
}

/// `prop` of the cell at `coord` (e.g. `B3`) of sheet `sheet`, as
/// `check_cell` reads it (what openpyxl raises on reads null).
pub(super) fn read(book: &Path, sheet: &str, coord: &str, prop: &str) -> Result<Value, String> {
    let want = coord.to_ascii_uppercase().replace('$', "");
    let at = parse_cell(&want).ok_or_else(|| format!("bad coordinate {coord:?}"))?;
    with_sheet(book, sheet, |s| match s.prop(at, prop) {
        Ok(v) => Ok(v),
        Err(PropError::Raises(_)) => Ok(Value::Null),
        Err(PropError::Bad(m)) => Err(m),
    })
}

/// Runs `f` on sheet `sheet` of `book` with its parts parsed once.
pub(super) fn with_sheet<T>(
    book: &Path,
    sheet: &str,
    f: impl FnOnce(&SheetStyles<'_, '_>) -> Result<T, String>,
) -> Result<T, String> {
    let file = std::fs::File::open(book).map_err(|e| e.to_string())?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    let (sheet_part, styles_part) = parts(&mut zip, sheet)?;
    let sheet_xml = zip_part(&mut zip, &sheet_part)?.ok_or("the sheet part is missing")?;
    let (dir, file) = sheet_part.rsplit_once('/').unwrap_or(("", &sheet_part));
    let rels_xml = zip_part(&mut zip, &format!("{dir}/_rels/{file}.rels"))?;
    let styles_xml = match styles_part {
        Some(p) => zip_part(&mut zip, &p)?,
        None => None,
    };
    fn parse(x: Option<&str>) -> Result<Option<Document<'_>>, String> {
        x.map(Document::parse)
            .transpose()
            .map_err(|e| e.to_string())
    }
    let sheet_doc = Document::parse(&sheet_xml).map_err(|e| e.to_string())?;
    let rels = parse(rels_xml.as_deref())?;
    let styles = parse(styles_xml.as_deref())?;
    // Legacy comments: openpyxl creates each one's cell.
    let mut comment_cells = Vec::new();
    if let Some(rels) = &rels {
        let target = rel_target(rels, dir, &|n| {
            n.attribute("Type")
                .is_some_and(|t| t.ends_with("/comments"))
        });
        if let Some(xml) = match target {
            Some(t) => zip_part(&mut zip, &normalise(&t))?,
            None => None,
        } {
            let doc = Document::parse(&xml).map_err(|e| e.to_string())?;
            for c in doc.descendants().filter(|n| n.has_tag_name((S, "comment"))) {
                if let Some(at) = c.attribute("ref").and_then(parse_cell) {
                    comment_cells.push(at);
                }
            }
        }
    }
    let root = sheet_doc.root_element();
    let mut cells = std::collections::HashMap::new();
    for c in sheet_doc.descendants().filter(|n| n.has_tag_name((S, "c"))) {
        if let Some(at) = c.attribute("r").and_then(parse_cell) {
            cells.entry(at).or_insert(c);
        }
    }
    let s = SheetStyles {
        root,
        styles: styles.as_ref().map(Document::root_element),
        rels: rels.as_ref(),
        cells,
        merges: merged_ranges(root)?,
        comment_cells,
    };
    f(&s)
}

/// `xl/worksheets/../comments1.xml` → `xl/comments1.xml`.
fn normalise(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            ".." => {
                out.pop();
            }
            "." | "" => {}
            p => out.push(p),
        }
    }
    out.join("/")
}

/// A sheet's parts, parsed: the cells, merged ranges, links and styles
/// openpyxl reads.
pub(super) struct SheetStyles<'a, 'i> {
    root: Node<'a, 'i>,
    styles: Option<Node<'a, 'i>>,
    rels: Option<&'a Document<'i>>,
    cells: std::collections::HashMap<(usize, usize), Node<'a, 'i>>,
    merges: Vec<Area>,
    comment_cells: Vec<(usize, usize)>,
}

/// One cell as openpyxl holds it.
struct CellFacts {
    merged: bool,
    link: Option<bool>,
    has_value: bool,
    numeric: bool,
    style: usize,
}

impl<'a, 'i> SheetStyles<'a, 'i> {
    /// The sheet's `<worksheet>` element.
    pub(super) fn root(&self) -> Node<'a, 'i> {
        self.root
    }

    /// The `<cellXfs>`… `<dxfs>` stylesheet, when the book has one.
    pub(super) fn stylesheet(&self) -> Option<Node<'a, 'i>> {
        self.styles
    }

    /// Every cell openpyxl creates when loading the sheet: each `<c r>`,
    /// every cell of a merged range, each hyperlink's cells, each
    /// comment's cell.
    pub(super) fn loaded_cells(&self) -> Result<Vec<(usize, usize)>, String> {
        let mut out: Vec<(usize, usize)> = self.cells.keys().copied().collect();
        let mut area = |a: &Area| {
            for r in a.0.0..=a.1.0 {
                for c in a.0.1..=a.1.1 {
                    out.push((r, c));
                }
            }
        };
        for m in &self.merges {
            area(m);
        }
        if let Some(list) = child(self.root, "hyperlinks") {
            for link in children(list, "hyperlink") {
                if let Some(r) = link.attribute("ref") {
                    area(&Area::parse(r).ok_or_else(|| format!("bad hyperlink ref {r:?}"))?);
                }
            }
        }
        out.extend(&self.comment_cells);
        Ok(out)
    }

    /// Whether a `<c>` of the sheet has no `r` attribute.
    pub(super) fn has_unaddressed_cells(&self) -> bool {
        self.root
            .descendants()
            .any(|n| n.has_tag_name((S, "c")) && n.attribute("r").is_none())
    }

    fn facts(&self, at: (usize, usize)) -> Result<CellFacts, String> {
        let cell = self.cells.get(&at).copied();
        // openpyxl replaces every cell of a merged range but its top-left
        // one by a `MergedCell`: no value, default style.
        let merged = self.merges.iter().any(|m| m.contains(at) && m.0 != at);
        let link = if merged {
            None
        } else {
            link_at(self.rels, self.root, &self.merges, at)?
        };
        let own_value = cell.is_some_and(has_own_value);
        // Setting a hyperlink on an empty cell gives it the link's target
        // (or location) as its value.
        let has_value = !merged && (own_value || link == Some(true));
        let numeric = !merged
            && own_value
            && cell.is_some_and(|c| {
                child(c, "f").is_none() && matches!(c.attribute("t"), None | Some("n"))
            });
        let style: usize = match cell.and_then(|c| c.attribute("s")) {
            _ if merged => usize::MAX,
            Some(s) => s.parse().map_err(|e| format!("style index: {e}"))?,
            None => 0,
        };
        Ok(CellFacts {
            merged,
            link,
            has_value,
            numeric,
            style,
        })
    }

    /// Whether openpyxl's `cell.value` is not None and `cell.data_type`
    /// is `n` (a number not under a date format), for the cell at `at`.
    pub(super) fn value_kind(&self, at: (usize, usize)) -> Result<(bool, bool), String> {
        let f = self.facts(at)?;
        let date = match self.styles {
            Some(r) if f.style != usize::MAX && f.numeric => numfmt::of_xf(r, f.style).1,
            _ => false,
        };
        Ok((f.has_value, f.numeric && !date))
    }

    /// `prop` of the cell at `at` (zero-based row, column), as
    /// `_read_cell_style(prop, cell)` answers without a dxf.
    pub(super) fn prop(&self, at: (usize, usize), prop: &str) -> Result<Value, PropError> {
        let f = self.facts(at).map_err(PropError::Bad)?;
        let root = self.styles;
        let xf = root
            .and_then(|r| child(r, "cellXfs"))
            .and_then(|x| children(x, "xf").nth(f.style));
        let pick = |list: &str, item: &'static str, id: &str| {
            let i: usize = xf
                .and_then(|x| x.attribute(id))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            root.and_then(|r| child(r, list))
                .and_then(|l| children(l, item).nth(i))
        };
        let font = pick("fonts", "font", "fontId");
        let fill = pick("fills", "fill", "fillId");
        match prop {
            "merge" => return Ok(Value::Bool(f.merged)),
            "hyperlink" => {
                return Ok(match (f.has_value, f.link.is_some()) {
                    (false, _) => Value::Null,
                    (true, true) => hyperlink_object(),
                    (true, false) => Value::String(String::new()),
                });
            }
            "number_format" => {
                let (code, date) = match root {
                    Some(r) if f.style != usize::MAX => numfmt::of_xf(r, f.style),
                    _ => (Some("General".to_owned()), false),
                };
                return Ok(if f.numeric && !date {
                    code.map_or(Value::Null, Value::String)
                } else {
                    Value::Null
                });
            }
            "fill_type" => {
                return Ok(fill
                    .and_then(|f| f.children().find(Node::is_element))
                    .map_or(Value::String("patternFill".into()), |n| {
                        Value::String(n.tag_name().name().to_owned())
                    }));
            }
            "bgcolor" | "fgcolor" => {
                return Ok(
                    match fill.and_then(|f| f.children().find(Node::is_element)) {
                        Some(p) if p.has_tag_name((S, "patternFill")) => {
                            child(p, "fgColor").map_or(Value::String("00000000".into()), color_rgb)
                        }
                        Some(_) => Value::Null,
                        None => Value::String("00000000".into()),
                    },
                );
            }
            _ => {}
        }
        if !PROPS.contains(&prop) {
            return Err(PropError::Bad(format!("style {prop:?} is not read here")));
        }
        if !f.has_value {
            return Ok(Value::Null);
        }
        font_prop(font, prop, "the cell's font")
    }
}

/// A font property (`font_name`, `font_color`, …) of a `<font>` element
/// (a cell's or a dxf's), as openpyxl's `Font` answers it.
pub(super) fn font_prop(
    font: Option<Node<'_, '_>>,
    prop: &str,
    what: &str,
) -> Result<Value, PropError> {
    let val = |name: &str| {
        font.and_then(|f| child(f, name))
            .and_then(|n| n.attribute("val"))
    };
    let float = |s: Option<&str>| {
        s.and_then(|s| s.trim().parse::<f64>().ok())
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number)
    };
    Ok(match prop {
        "font_family" => float(val("family")),
        "font_name" => val("name").map_or(Value::Null, |s| Value::String(s.to_owned())),
        "font_size" => float(val("sz")),
        "font_bold" => nested_bool(font, "b"),
        "font_italic" => nested_bool(font, "i"),
        "font_underline" => match font.and_then(|f| child(f, "u")) {
            None => Value::Null,
            Some(u) => Value::String(u.attribute("val").unwrap_or("single").to_owned()),
        },
        "font_color" => match font.and_then(|f| child(f, "color")) {
            Some(c) => color_rgb(c),
            None => {
                return Err(PropError::Raises(format!(
                    "font_color: {what} has no colour (None.rgb)"
                )));
            }
        },
        other => return Err(PropError::Bad(format!("style {other:?} is not read here"))),
    })
}
