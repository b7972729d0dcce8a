//! `compare_pptx_files` (OSWorld `slides.py`): two decks read as
//! python-pptx reads them (`pptx.rs`) are equal slide by slide — the
//! background colour, the notes, the number of shapes, each shape's
//! position and size (relative tolerance `approximately_tolerance`,
//! default 0.5%), tables cell by cell, text paragraph by paragraph and run
//! by run (font name, size, bold, italic, RGB colour, underline,
//! strike-through, the slide's bullets), and every text shape's
//! alignment, groups entered. Each `examine_*` option turns one property
//! off or, for the task-specific position checks, on; the checks run in
//! OSWorld's order, so a property python-pptx cannot read counts only
//! where OSWorld's function reaches it.

use std::path::Path;

use super::pptx::{Bullet, Paragraph, Py, Run, Shape, Underline, read};
use super::{CheckError, Cx, Got, py_truthy};

/// The options, with OSWorld's defaults.
struct Options {
    tolerance: f64,
    number_of_slides: bool,
    shape: bool,
    text: bool,
    indent: bool,
    font_name: bool,
    font_size: bool,
    font_bold: bool,
    font_italic: bool,
    color_rgb: bool,
    font_underline: bool,
    strike_through: bool,
    alignment: bool,
    title_bottom_position: bool,
    table_bottom_position: bool,
    right_position: bool,
    top_position: bool,
    shape_for_shift_size: bool,
    image_size: bool,
    modify_height: bool,
    bullets: bool,
    background_color: bool,
    note: bool,
}

impl Options {
    fn read(cx: &Cx<'_>) -> Result<Self, CheckError> {
        let o = |key: &str, default: bool| {
            cx.options
                .get(&format!("examine_{key}"))
                .map_or(default, py_truthy)
        };
        let tolerance = match cx.options.get("approximately_tolerance") {
            None => 0.005,
            Some(v) => v
                .as_f64()
                .ok_or_else(|| cx.bad("approximately_tolerance must be a number"))?,
        };
        Ok(Options {
            tolerance,
            number_of_slides: o("number_of_slides", true),
            shape: o("shape", true),
            text: o("text", true),
            indent: o("indent", true),
            font_name: o("font_name", true),
            font_size: o("font_size", true),
            font_bold: o("font_bold", true),
            font_italic: o("font_italic", true),
            color_rgb: o("color_rgb", true),
            font_underline: o("font_underline", true),
            strike_through: o("strike_through", true),
            alignment: o("alignment", true),
            title_bottom_position: o("title_bottom_position", false),
            table_bottom_position: o("table_bottom_position", false),
            right_position: o("right_position", false),
            top_position: o("top_position", false),
            shape_for_shift_size: o("shape_for_shift_size", false),
            image_size: o("image_size", false),
            modify_height: o("modify_height", false),
            bullets: o("bullets", true),
            background_color: o("background_color", true),
            note: o("note", true),
        })
    }
}

/// Why a comparison stopped early: a difference (score 0) or a value
/// python-pptx raises on.
enum Stop {
    Differs,
    Raises(String),
}

impl From<String> for Stop {
    fn from(m: String) -> Self {
        Stop::Raises(m)
    }
}

type Step = Result<(), Stop>;

/// Stops with "differs" when `cond` holds.
fn differs_if(cond: bool) -> Step {
    if cond { Err(Stop::Differs) } else { Ok(()) }
}

/// The path of a file input.
fn path_of(got: Option<&Got>) -> Option<String> {
    match got? {
        Got::File(p) => Some(p.display().to_string()),
        Got::Text(t) => Some(t.clone()),
        _ => None,
    }
}

/// `compare_pptx_files`.
pub(super) fn compare_pptx_files(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let opts = Options::read(cx)?;
    let (Some(a), Some(b)) = (path_of(Some(cx.result)), path_of(cx.expected)) else {
        return Ok(0.0);
    };
    let deck = |p: &str| read(Path::new(p)).map_err(|m| cx.bad(format!("{p}: {m}")));
    let (a, b) = (deck(&a)?, deck(&b)?);
    if a.slides.len() != b.slides.len() && opts.number_of_slides {
        return Ok(0.0);
    }
    let mut outcome = Ok(());
    for (i, (s1, s2)) in a.slides.iter().zip(&b.slides).enumerate() {
        outcome = compare_slide(&opts, i + 1, s1, s2);
        if outcome.is_err() {
            break;
        }
    }
    match outcome {
        Ok(()) => Ok(1.0),
        Err(Stop::Differs) => Ok(0.0),
        Err(Stop::Raises(m)) => Err(cx.bad(format!("python-pptx cannot read this: {m}"))),
    }
}

fn compare_slide(
    o: &Options,
    idx: usize,
    s1: &super::pptx::Slide,
    s2: &super::pptx::Slide,
) -> Step {
    let (bg1, bg2) = (s1.background.clone()?, s2.background.clone()?);
    differs_if(bg1 != bg2 && o.background_color)?;
    let (n1, n2) = (s1.notes.clone()?, s2.notes.clone()?);
    differs_if(py_strip(&n1) != py_strip(&n2) && o.note)?;
    differs_if(s1.shapes.len() != s2.shapes.len())?;
    for (sh1, sh2) in s1.shapes.iter().zip(&s2.shapes) {
        compare_shape(
            o,
            idx,
            sh1,
            sh2,
            (s1.bullets.as_deref(), s2.bullets.as_deref()),
        )?;
    }
    let (t1, t2) = (&s1.text_shapes, &s2.text_shapes);
    if o.alignment && t1.len() == t2.len() {
        for (x, y) in t1.iter().zip(t2) {
            let (px, py) = (
                x.text.as_deref().unwrap_or(&[]),
                y.text.as_deref().unwrap_or(&[]),
            );
            differs_if(py_strip(&frame_text(px)) != py_strip(&frame_text(py)) && o.text)?;
            differs_if(px.len() != py.len())?;
            for (p, q) in px.iter().zip(py) {
                differs_if(align(p)? != align(q)?)?;
            }
        }
    } else if t1.len() != t2.len() {
        return Err(Stop::Differs);
    }
    Ok(())
}

/// Python's `str.strip()`.
fn py_strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// A text frame's text: paragraphs joined by newlines.
fn frame_text(ps: &[Paragraph]) -> String {
    ps.iter()
        .map(|p| p.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A paragraph's alignment, unset read as left.
fn align(p: &Paragraph) -> Py<String> {
    Ok(p.align.clone()?.unwrap_or_else(|| "l".to_owned()))
}

/// OSWorld's `is_approximately_equal` on two lengths (`None` is Python's
/// None: equal to None, unequal to 0, and a TypeError otherwise).
fn approx(tol: f64, a: Py<Option<i64>>, b: Py<Option<i64>>) -> Result<bool, Stop> {
    let (a, b) = (a?, b?);
    if a == b {
        return Ok(true);
    }
    if a == Some(0) || b == Some(0) {
        return Ok(false);
    }
    match (a, b) {
        (Some(x), Some(y)) => {
            let (x, y) = (x as f64, y as f64);
            Ok((x - y).abs() / x.abs().max(y.abs()) <= tol)
        }
        _ => Err(Stop::Raises(
            "a position of None compared with a number".into(),
        )),
    }
}

/// Whether left, top, width or height differ (Python's `or` stops at the
/// first difference).
fn dims_differ(tol: f64, a: &Shape, b: &Shape) -> Result<bool, Stop> {
    Ok(!approx(tol, a.left.clone(), b.left.clone())?
        || !approx(tol, a.top.clone(), b.top.clone())?
        || !approx(tol, a.width.clone(), b.width.clone())?
        || !approx(tol, a.height.clone(), b.height.clone())?)
}

/// A length Python compares with `<`/`<=`: None raises.
fn num(v: &Py<Option<i64>>) -> Result<i64, Stop> {
    v.clone()?
        .ok_or_else(|| Stop::Raises("a position of None compared with a number".into()))
}

fn shape_type(s: &Shape) -> Result<Option<u8>, Stop> {
    Ok(s.shape_type.clone()?)
}

fn compare_shape(
    o: &Options,
    slide: usize,
    a: &Shape,
    b: &Shape,
    bullets: (Option<&[Bullet]>, Option<&[Bullet]>),
) -> Step {
    let tol = o.tolerance;
    let text = |s: &Shape| s.text.as_deref().map(frame_text);
    let (ta, tb) = (text(a), text(b));
    if o.title_bottom_position {
        if ta.is_some() && tb.is_some() && ta == tb {
            if ta.as_deref() == Some("Product Comparison") {
                let (t1, t2) = (num(&a.top)?, num(&b.top)?);
                differs_if(t1 <= t2 || t1 < 3_600_000)?;
            }
        } else {
            differs_if(dims_differ(tol, a, b)?)?;
        }
    }
    if o.table_bottom_position
        && slide == 3
        && shape_type(a)? == Some(19)
        && shape_type(b)? == Some(19)
    {
        let (t1, t2) = (num(&a.top)?, num(&b.top)?);
        differs_if(t1 <= t2 || t1 < 3_600_000)?;
    } else if o.table_bottom_position {
        differs_if(dims_differ(tol, a, b)?)?;
    }
    if o.right_position && slide == 2 && ta.is_none() && tb.is_none() {
        let (l1, l2) = (num(&a.left)?, num(&b.left)?);
        differs_if(l1 <= l2 || l1 < 4_320_000)?;
    }
    if o.top_position && slide == 2 && shape_type(a)? == Some(13) && shape_type(b)? == Some(13) {
        let (t1, t2) = (num(&a.top)?, num(&b.top)?);
        differs_if(t1 >= t2 || t1 > 1_980_000)?;
    }
    if o.shape_for_shift_size && dims_differ(tol, a, b)? {
        let exempt = ta.is_some()
            && tb.is_some()
            && ta == tb
            && ta.as_deref() == Some("Elaborate on what you want to discuss.");
        differs_if(!exempt)?;
    }
    differs_if(dims_differ(tol, a, b)? && o.shape)?;
    if o.image_size {
        if shape_type(a)? == Some(13) && shape_type(b)? == Some(13) {
            differs_if(
                !approx(tol, a.width.clone(), b.width.clone())?
                    || !approx(tol, a.height.clone(), b.height.clone())?,
            )?;
        } else {
            differs_if(dims_differ(tol, a, b)?)?;
        }
    }
    if o.modify_height {
        let heights_only = (ta.is_none() && tb.is_none())
            || (shape_type(a)? == Some(5) && shape_type(b)? == Some(5));
        if heights_only {
            differs_if(!approx(tol, a.height.clone(), b.height.clone())?)?;
        } else {
            differs_if(dims_differ(tol, a, b)?)?;
        }
    }
    if shape_type(a)? == Some(19) {
        compare_tables(o, a, b)?;
    }
    if let (Some(pa), Some(pb)) = (&a.text, &b.text) {
        compare_text(o, pa, pb, bullets)?;
    }
    Ok(())
}

/// Both None or False ("not set" and "off" are the same here).
fn both_off(x: Option<bool>, y: Option<bool>) -> bool {
    x != Some(true) && y != Some(true)
}

/// The underline rule: two set values that differ, or unset against
/// True, differ.
fn underline_differs(x: &Underline, y: &Underline) -> bool {
    if x == y {
        return false;
    }
    let t = Underline::Bool(true);
    (*x != Underline::Unset && *y != Underline::Unset)
        || (*x == Underline::Unset && *y == t)
        || (*x == t && *y == Underline::Unset)
}

/// `hasattr(font.color, "rgb")` for both runs, then their RGB values.
fn colors(x: &Run, y: &Run) -> Result<Option<(String, String)>, Stop> {
    let Some(cx) = x.color.clone()? else {
        return Ok(None);
    };
    Ok(y.color.clone()?.map(|cy| (cx, cy)))
}

/// `table.cell(r, c)`'s paragraphs (a short row is python-pptx's IndexError).
fn cell(t: &super::pptx::Table, r: usize, c: usize) -> Result<&[Paragraph], Stop> {
    t.cells[r]
        .get(c)
        .map(Vec::as_slice)
        .ok_or_else(|| Stop::Raises(format!("no cell ({r}, {c})")))
}

fn compare_tables(o: &Options, a: &Shape, b: &Shape) -> Step {
    let ta = a
        .table
        .as_ref()
        .ok_or_else(|| Stop::Raises("a table shape without a table".into()))?
        .as_ref()
        .map_err(|m| Stop::Raises(m.clone()))?;
    let tb = b
        .table
        .as_ref()
        .ok_or_else(|| Stop::Raises("the other shape has no table".into()))?
        .as_ref()
        .map_err(|m| Stop::Raises(m.clone()))?;
    differs_if(ta.rows != tb.rows || ta.columns != tb.columns)?;
    for r in 0..ta.rows {
        for c in 0..ta.columns {
            let (pa, pb) = (cell(ta, r, c)?, cell(tb, r, c)?);
            differs_if(pa.len() != pb.len())?;
            for (p, q) in pa.iter().zip(pb) {
                differs_if(p.runs.len() != q.runs.len())?;
                for (x, y) in p.runs.iter().zip(&q.runs) {
                    if let Some((cx, cy)) = colors(x, y)? {
                        differs_if(cx != cy && o.color_rgb)?;
                    }
                    let (bx, by) = (x.bold.clone()?, y.bold.clone()?);
                    differs_if(bx != by && !both_off(bx, by))?;
                    let (ix, iy) = (x.italic.clone()?, y.italic.clone()?);
                    differs_if(ix != iy && !both_off(ix, iy))?;
                    let (ux, uy) = (x.underline.clone()?, y.underline.clone()?);
                    differs_if(underline_differs(&ux, &uy))?;
                }
            }
        }
    }
    Ok(())
}

/// OSWorld's bullet comparison: same count, text and character; levels
/// equal with an absent level read as "0".
fn bullets_differ(x: &[Bullet], y: &[Bullet]) -> bool {
    let lvl = |l: &Option<String>| l.clone().unwrap_or_else(|| "0".to_owned());
    x.len() != y.len()
        || x.iter()
            .zip(y)
            .any(|(p, q)| p.text != q.text || p.char != q.char || lvl(&p.level) != lvl(&q.level))
}

fn compare_text(
    o: &Options,
    pa: &[Paragraph],
    pb: &[Paragraph],
    bullets: (Option<&[Bullet]>, Option<&[Bullet]>),
) -> Step {
    differs_if(py_strip(&frame_text(pa)) != py_strip(&frame_text(pb)) && o.text)?;
    differs_if(pa.len() != pb.len())?;
    for (p, q) in pa.iter().zip(pb) {
        if o.alignment {
            differs_if(align(p)? != align(q)?)?;
        }
        differs_if(p.text != q.text && o.text)?;
        differs_if(p.level.clone()? != q.level.clone()? && o.indent)?;
        differs_if(p.runs.len() != q.runs.len())?;
        for (x, y) in p.runs.iter().zip(&q.runs) {
            differs_if(x.name != y.name && o.font_name)?;
            differs_if(x.size.clone()? != y.size.clone()? && o.font_size)?;
            let (bx, by) = (x.bold.clone()?, y.bold.clone()?);
            differs_if(bx != by && o.font_bold && !both_off(bx, by))?;
            let (ix, iy) = (x.italic.clone()?, y.italic.clone()?);
            differs_if(ix != iy && o.font_italic && !both_off(ix, iy))?;
            if let Some((cx, cy)) = colors(x, y)? {
                differs_if(cx != cy && o.color_rgb)?;
            }
            let (ux, uy) = (x.underline.clone()?, y.underline.clone()?);
            differs_if(o.font_underline && underline_differs(&ux, &uy))?;
            differs_if(x.strike != y.strike && o.strike_through)?;
            if o.bullets
                && let (Some(bx), Some(by)) = bullets
            {
                differs_if(bullets_differ(bx, by))?;
            }
        }
    }
    Ok(())
}
