//! Word documents (OSWorld `docs.py`): `compare_docx_files` over the body's
//! paragraph texts and `compare_docx_tables` over the body's tables, read
//! the way python-docx reads them.
//!
//! A `.docx` is a zip whose root relationships name the main document part
//! (content type `…wordprocessingml.document.main+xml`). A paragraph's text
//! is its runs' and hyperlinks' runs' text: `w:t` as itself, `w:tab` and
//! `w:ptab` as a tab, `w:br` (a line break; page and column breaks are
//! empty) and `w:cr` as a newline, `w:noBreakHyphen` as `-`. Content inside
//! `w:ins`, `w:sdt`, fields and the like is not part of it, as in
//! python-docx.

use std::io::Read;
use std::path::Path;

use roxmltree::{Document, Node};

use super::odt;
use super::similarity::indel_ratio;
use super::{CheckError, Cx, Got, py_space, py_truthy};

pub(super) const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const REL: &str = "http://schemas.openxmlformats.org/package/2006/relationships";
const CT: &str = "http://schemas.openxmlformats.org/package/2006/content-types";
const OFFICE_DOCUMENT: &str =
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument";
const MAIN: &str =
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml";

/// Reads one part of a zip package (None: absent).
pub(super) fn zip_part(
    zip: &mut zip::ZipArchive<std::fs::File>,
    name: &str,
) -> Result<Option<String>, String> {
    let mut f = match zip.by_name(name) {
        Ok(f) => f,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(format!("{name}: {e}")),
    };
    let mut s = String::new();
    f.read_to_string(&mut s)
        .map_err(|e| format!("{name}: {e}"))?;
    Ok(Some(s))
}

/// The main document part's XML.
fn main_part(path: &Path) -> Result<String, String> {
    open_word(path).map(|(_, _, xml)| xml)
}

/// A Word package as python-docx's `Document(path)` opens it: the zip,
/// the main document part's name and its XML; an error where python-docx
/// raises (not a zip, not a Word document).
pub(super) fn open_word(
    path: &Path,
) -> Result<(zip::ZipArchive<std::fs::File>, String, String), String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    let rels = zip_part(&mut zip, "_rels/.rels")?.ok_or("no package relationships")?;
    let rels = Document::parse(&rels).map_err(|e| e.to_string())?;
    let target = rels
        .root_element()
        .children()
        .find(|n| {
            n.has_tag_name((REL, "Relationship")) && n.attribute("Type") == Some(OFFICE_DOCUMENT)
        })
        .and_then(|n| n.attribute("Target"))
        .ok_or("no main document relationship")?;
    let name = target.trim_start_matches('/').to_owned();
    let types = zip_part(&mut zip, "[Content_Types].xml")?.ok_or("no content types")?;
    let types = Document::parse(&types).map_err(|e| e.to_string())?;
    let part_name = format!("/{name}");
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    let overridden = types
        .root_element()
        .children()
        .find(|n| {
            n.has_tag_name((CT, "Override"))
                && n.attribute("PartName")
                    .is_some_and(|p| p.eq_ignore_ascii_case(&part_name))
        })
        .and_then(|n| n.attribute("ContentType"));
    let content_type = overridden.or_else(|| {
        types
            .root_element()
            .children()
            .find(|n| {
                n.has_tag_name((CT, "Default"))
                    && n.attribute("Extension")
                        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
            })
            .and_then(|n| n.attribute("ContentType"))
    });
    if content_type != Some(MAIN) {
        return Err(format!(
            "not a Word document (content type {content_type:?})"
        ));
    }
    let xml = zip_part(&mut zip, &name)?.ok_or_else(|| format!("{name} is missing"))?;
    Ok((zip, name, xml))
}

/// The `w:` children of `node` named `name`.
pub(super) fn w_children<'a, 'i>(
    node: Node<'a, 'i>,
    name: &'static str,
) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children().filter(move |n| n.has_tag_name((W, name)))
}

/// A `w:r`'s text.
pub(super) fn run_text(r: Node<'_, '_>) -> String {
    let mut s = String::new();
    for e in r.children().filter(Node::is_element) {
        if e.tag_name().namespace() != Some(W) {
            continue;
        }
        match e.tag_name().name() {
            "t" => s.push_str(e.text().unwrap_or("")),
            "tab" | "ptab" => s.push('\t'),
            "cr" => s.push('\n'),
            "br" if e.attribute((W, "type")).is_none_or(|t| t == "textWrapping") => {
                s.push('\n');
            }
            "noBreakHyphen" => s.push('-'),
            _ => {}
        }
    }
    s
}

/// A `w:p`'s text: its runs and its hyperlinks' runs, in order.
pub(super) fn paragraph_text(p: Node<'_, '_>) -> String {
    let mut s = String::new();
    for c in p.children().filter(Node::is_element) {
        if c.has_tag_name((W, "r")) {
            s.push_str(&run_text(c));
        } else if c.has_tag_name((W, "hyperlink")) {
            for r in w_children(c, "r") {
                s.push_str(&run_text(r));
            }
        }
    }
    s
}

/// python-docx's `paragraph_format.line_spacing` of a `w:p`.
fn line_spacing(p: Node<'_, '_>) -> Result<Option<f64>, String> {
    let Some(spacing) = w_children(p, "pPr")
        .next()
        .and_then(|pr| w_children(pr, "spacing").next())
    else {
        return Ok(None);
    };
    let Some(line) = spacing.attribute((W, "line")) else {
        return Ok(None);
    };
    let twips: f64 = line
        .trim()
        .parse::<i64>()
        .map_err(|e| format!("w:line {line:?}: {e}"))? as f64;
    match spacing.attribute((W, "lineRule")) {
        // A multiple of single spacing (240 twips), as a float; python-docx
        // reads a line without a rule as a multiple too.
        None | Some("auto") => Ok(Some(twips * 635.0 / 152_400.0)),
        Some("exact" | "atLeast") => Ok(Some(twips * 635.0)),
        Some(other) => Err(format!("w:lineRule {other:?} is not a line spacing rule")),
    }
}

/// The body's paragraphs and tables (direct children only).
struct Body {
    paragraphs: Vec<String>,
    /// Each paragraph's `paragraph_format.line_spacing`: a multiple of
    /// lines (`lineRule` auto) or a length in EMU, `None` when unset; an
    /// unknown `lineRule` is python-docx's error.
    spacing: Vec<Result<Option<f64>, String>>,
    /// Each table as python-docx's cell grid: rows × grid columns of texts.
    tables: Vec<Table>,
}

/// A table as python-docx addresses it: what python-docx cannot read (no
/// grid, a merge with no cell above) is an error when it is first asked
/// for, as there.
struct Table {
    rows: usize,
    /// The grid's column count.
    columns: Result<usize, String>,
    /// The layout grid's cells, row by row.
    cells: Result<Vec<String>, String>,
}

/// python-docx's `Table._cells`: each `w:tc` repeated over its grid span;
/// a vertically merged continuation repeats the cell one row up.
fn read_table(tbl: Node<'_, '_>) -> Table {
    let rows: Vec<_> = w_children(tbl, "tr").collect();
    let columns = w_children(tbl, "tblGrid")
        .next()
        .map(|g| w_children(g, "gridCol").count())
        .ok_or_else(|| "a table without w:tblGrid".to_owned());
    Table {
        rows: rows.len(),
        cells: columns
            .clone()
            .and_then(|columns| grid_cells(&rows, columns)),
        columns,
    }
}

/// The cells of `rows` laid on a grid of `columns`.
fn grid_cells(rows: &[Node<'_, '_>], columns: usize) -> Result<Vec<String>, String> {
    let mut cells: Vec<String> = Vec::new();
    for tr in rows {
        for tc in w_children(*tr, "tc") {
            let pr = w_children(tc, "tcPr").next();
            let span = match pr.and_then(|p| w_children(p, "gridSpan").next()) {
                Some(g) => g
                    .attribute((W, "val"))
                    .ok_or("w:gridSpan without w:val")?
                    .trim()
                    .parse::<usize>()
                    .map_err(|e| format!("w:gridSpan: {e}"))?,
                None => 1,
            };
            let continues = pr
                .and_then(|p| w_children(p, "vMerge").next())
                .is_some_and(|v| v.attribute((W, "val")).unwrap_or("continue") == "continue");
            let text = w_children(tc, "p")
                .map(paragraph_text)
                .collect::<Vec<_>>()
                .join("\n");
            for k in 0..span {
                let cell = if continues {
                    let at = cells
                        .len()
                        .checked_sub(columns)
                        .filter(|_| columns > 0)
                        .ok_or("a merged cell with no cell above")?;
                    cells[at].clone()
                } else if k > 0 {
                    cells.last().cloned().unwrap_or_default()
                } else {
                    text.clone()
                };
                cells.push(cell);
            }
        }
    }
    Ok(cells)
}

/// Opens a `.docx` and reads its body.
fn read_body(path: &Path) -> Result<Body, String> {
    let xml = main_part(path)?;
    let doc = Document::parse_with_options(
        &xml,
        roxmltree::ParsingOptions {
            allow_dtd: false,
            ..Default::default()
        },
    )
    .map_err(|e| e.to_string())?;
    let body = w_children(doc.root_element(), "body")
        .next()
        .ok_or("a document without w:body")?;
    Ok(Body {
        paragraphs: w_children(body, "p").map(paragraph_text).collect(),
        spacing: w_children(body, "p").map(line_spacing).collect(),
        tables: w_children(body, "tbl").map(read_table).collect(),
    })
}

/// The path of a file input (`None`: a missing or empty one).
pub(super) fn path_of(got: Option<&Got>) -> Option<String> {
    match got? {
        Got::File(p) => Some(p.display().to_string()),
        Got::Text(t) if !t.is_empty() => Some(t.clone()),
        _ => None,
    }
}

/// `re.sub(r'\s+', ' ', s).strip()` as Python does it on `str`.
pub(super) fn squash(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_space = false;
    for c in s.chars() {
        if py_space(c) {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    out.trim_matches(' ').to_owned()
}

/// A truthy option (Python `if options.get(key, default)`).
fn opt(cx: &Cx<'_>, key: &str, default: bool) -> bool {
    cx.options.get(key).map_or(default, py_truthy)
}

/// `compare_docx_files`: both `.docx` files' body paragraph texts, compared
/// by the options — `ignore_blanks` (default on: the texts joined by
/// newlines with white space runs squashed must be equal), `ignore_case`,
/// `ignore_order` (paragraphs sorted), `delete_empty_lines`,
/// `content_only` and `fuzzy_match` (rapidfuzz ratio of the texts, or the
/// mean ratio of paired paragraphs). Two `.odt` files are compared by
/// their paragraphs as odfpy reads them (`odt.rs`). A file that cannot be
/// read, or a pair that is not both `.docx` or both `.odt`, scores 0.
pub(super) fn compare_docx_files(cx: &Cx<'_>) -> Result<f64, CheckError> {
    docx_files(cx, |key, default| opt(cx, key, default))
}

/// `check_highlighted_words`: 0 unless the two files pass
/// `compare_docx_files` with its default options; then 1 when no span of
/// the result has a yellow-highlighted automatic style, 0 when one has.
/// A result that odfpy cannot load or whose styles make it raise (it has
/// passed the comparison: two `.docx` files) is refused.
pub(super) fn check_highlighted_words(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(a) = path_of(Some(cx.result)) else {
        return Ok(0.0);
    };
    if path_of(cx.expected).is_none() {
        return Ok(0.0);
    }
    if docx_files(cx, |_, default| default)? == 0.0 {
        return Ok(0.0);
    }
    let doc = odt::read(Path::new(&a)).map_err(|e| cx.bad(format!("cannot load {a}: {e}")))?;
    let highlighted = doc.highlighted().map_err(|e| cx.bad(format!("{a}: {e}")))?;
    Ok(if highlighted { 0.0 } else { 1.0 })
}

/// `compare_docx_files` with the options `opt` gives.
pub(super) fn docx_files(cx: &Cx<'_>, opt: impl Fn(&str, bool) -> bool) -> Result<f64, CheckError> {
    let ignore_blanks = opt("ignore_blanks", true);
    let ignore_case = opt("ignore_case", false);
    let ignore_order = opt("ignore_order", false);
    let content_only = opt("content_only", false);
    let fuzzy = opt("fuzzy_match", false);
    let delete_empty = opt("delete_empty_lines", false);
    let (Some(a), Some(b)) = (path_of(Some(cx.result)), path_of(cx.expected)) else {
        return Ok(0.0);
    };
    let (da, db) = if a.ends_with(".docx") && b.ends_with(".docx") {
        let (Ok(da), Ok(db)) = (read_body(Path::new(&a)), read_body(Path::new(&b))) else {
            return Ok(0.0);
        };
        (da.paragraphs, db.paragraphs)
    } else if a.ends_with(".odt") && b.ends_with(".odt") {
        let (Ok(da), Ok(db)) = (odt::read(Path::new(&a)), odt::read(Path::new(&b))) else {
            return Ok(0.0);
        };
        (da.paragraphs, db.paragraphs)
    } else {
        return Ok(0.0);
    };
    let prepare = |mut ps: Vec<String>| {
        if ignore_order {
            ps.sort();
        }
        if delete_empty {
            ps.retain(|p| !p.trim_matches(py_space).is_empty());
        }
        ps
    };
    let (pa, pb) = (prepare(da), prepare(db));
    let lower = |s: String| if ignore_case { s.to_lowercase() } else { s };
    if content_only || ignore_blanks {
        let ta = lower(squash(&pa.join("\n")));
        let tb = lower(squash(&pb.join("\n")));
        if content_only || fuzzy {
            return Ok(indel_ratio(&ta, &tb));
        }
        return Ok(f64::from(u8::from(ta == tb)));
    }
    if pa.len() != pb.len() {
        return Ok(0.0);
    }
    if fuzzy {
        if pa.is_empty() {
            return Ok(1.0);
        }
        let total: f64 = pa
            .iter()
            .zip(&pb)
            .map(|(x, y)| indel_ratio(&lower(x.clone()), &lower(y.clone())))
            .sum();
        return Ok(total / pa.len() as f64);
    }
    let same = pa.into_iter().zip(pb).all(|(x, y)| lower(x) == lower(y));
    Ok(f64::from(u8::from(same)))
}

/// `compare_line_spacing`: the documents pass `compare_docx_files` with
/// its default options, have as many body paragraphs, and each pair has
/// the same line spacing (python-docx's `line_spacing`: a multiple, a
/// length, or unset).
pub(super) fn compare_line_spacing(cx: &Cx<'_>) -> Result<f64, CheckError> {
    if docx_files(cx, |_, default| default)? == 0.0 {
        return Ok(0.0);
    }
    let (Some(a), Some(b)) = (path_of(Some(cx.result)), path_of(cx.expected)) else {
        return Ok(0.0);
    };
    let (Ok(da), Ok(db)) = (read_body(Path::new(&a)), read_body(Path::new(&b))) else {
        return Ok(0.0);
    };
    if da.spacing.len() != db.spacing.len() {
        return Ok(0.0);
    }
    for (x, y) in da.spacing.iter().zip(&db.spacing) {
        let x = x.as_ref().map_err(|m| cx.bad(m.clone()))?;
        let y = y.as_ref().map_err(|m| cx.bad(m.clone()))?;
        if x != y {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}

/// `compare_docx_tables`: both documents have as many body tables, each
/// pair has as many rows and grid columns, and every cell's text (its
/// paragraphs joined by newlines) is equal once stripped. An unreadable
/// file scores 0; a table python-docx cannot address (no grid, a cell
/// index past the cells) is refused, as OSWorld's function raises on it.
pub(super) fn compare_docx_tables(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let (Some(a), Some(b)) = (path_of(Some(cx.result)), path_of(cx.expected)) else {
        return Ok(0.0);
    };
    let (Ok(da), Ok(db)) = (read_body(Path::new(&a)), read_body(Path::new(&b))) else {
        return Ok(0.0);
    };
    if da.tables.len() != db.tables.len() {
        return Ok(0.0);
    }
    let refuse = |m: &String| cx.bad(m.clone());
    for (ta, tb) in da.tables.iter().zip(&db.tables) {
        if ta.rows != tb.rows {
            return Ok(0.0);
        }
        let columns = ta.columns.as_ref().map_err(refuse)?;
        if columns != tb.columns.as_ref().map_err(refuse)? {
            return Ok(0.0);
        }
        for i in 0..ta.rows {
            for j in 0..*columns {
                let ca = ta.cells.as_ref().map_err(refuse)?;
                let cb = tb.cells.as_ref().map_err(refuse)?;
                let at = j + i * columns;
                let (Some(x), Some(y)) = (ca.get(at), cb.get(at)) else {
                    return Err(cx.bad(format!("cell ({i}, {j}) is past the table's cells")));
                };
                if x.trim_matches(py_space) != y.trim_matches(py_space) {
                    return Ok(0.0);
                }
            }
        }
    }
    Ok(1.0)
}
