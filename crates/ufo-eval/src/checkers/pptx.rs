//! PowerPoint decks read the way python-pptx reads them, for
//! `compare_pptx_files` (`slides.rs`): slides in `p:sldIdLst` order, each
//! slide's background fill (its master's when the slide has none), notes
//! text, shapes with their effective positions (a placeholder without its
//! own takes its layout placeholder's, which takes its master's), text
//! frames down to run fonts, tables and the paragraph bullets of the whole
//! slide. What python-pptx would raise on (a scheme colour asked for its
//! RGB, an unknown enumeration value) is kept as an error where it is read,
//! so that it counts only if the comparison reaches it.

use std::path::Path;

use roxmltree::{Document, Node};

mod package;

use package::{Package, child, open_presentation, parse, path};

const P: &str = "http://schemas.openxmlformats.org/presentationml/2006/main";
const A: &str = "http://schemas.openxmlformats.org/drawingml/2006/main";
const R: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const REL: &str = "http://schemas.openxmlformats.org/package/2006/relationships";
const TABLE_URI: &str = "http://schemas.openxmlformats.org/drawingml/2006/table";
const CHART_URI: &str = "http://schemas.openxmlformats.org/drawingml/2006/chart";
const OLE_URI: &str = "http://schemas.openxmlformats.org/presentationml/2006/ole";

/// A value python-pptx computes, or the error it raises computing it.
pub(super) type Py<T> = Result<T, String>;

/// One deck.
pub(super) struct Deck {
    pub(super) slides: Vec<Slide>,
}

/// One slide.
pub(super) struct Slide {
    /// `get_slide_background_color`: the RGB of a solid fill (the master's
    /// when the slide's is "no fill" or absent), else `None`.
    pub(super) background: Py<Option<String>>,
    /// The notes' text ("" when the slide has no notes slide).
    pub(super) notes: Py<String>,
    pub(super) shapes: Vec<Shape>,
    /// Every `p:sp` of the slide, groups entered, in document order.
    pub(super) text_shapes: Vec<Shape>,
    /// `_extract_bullets` of the slide's XML (`None`: it raised).
    pub(super) bullets: Option<Vec<Bullet>>,
}

/// `(lvl, char, text, color)` of one paragraph with text.
#[derive(PartialEq)]
pub(super) struct Bullet {
    pub(super) level: Option<String>,
    pub(super) char: Option<String>,
    pub(super) text: String,
}

/// One shape as python-pptx proxies it.
pub(super) struct Shape {
    /// `shape_type` (an `MSO_SHAPE_TYPE` number; `None` for a graphic
    /// frame of another kind).
    pub(super) shape_type: Py<Option<u8>>,
    pub(super) left: Py<Option<i64>>,
    pub(super) top: Py<Option<i64>>,
    pub(super) width: Py<Option<i64>>,
    pub(super) height: Py<Option<i64>>,
    /// The text frame of a `p:sp` (one empty paragraph when it has none).
    pub(super) text: Option<Vec<Paragraph>>,
    /// The table of a table graphic frame.
    pub(super) table: Option<Py<Table>>,
    /// A `p:pic`'s embedded image relationship (`p:blipFill/a:blip/@r:embed`).
    pub(super) embed: Option<String>,
}

/// One text paragraph.
pub(super) struct Paragraph {
    pub(super) text: String,
    /// `algn`, `None` when absent.
    pub(super) align: Py<Option<String>>,
    pub(super) level: Py<i64>,
    pub(super) runs: Vec<Run>,
}

/// One `a:r`'s font.
pub(super) struct Run {
    pub(super) name: Option<String>,
    pub(super) size: Py<Option<i64>>,
    pub(super) bold: Py<Option<bool>>,
    pub(super) italic: Py<Option<bool>>,
    /// The RGB of a solid `a:srgbClr` fill (`None`: no `.rgb` to compare).
    pub(super) color: Py<Option<String>>,
    pub(super) underline: Py<Underline>,
    pub(super) strike: String,
}

/// python-pptx's `font.underline`.
#[derive(PartialEq, Clone, Debug)]
pub(super) enum Underline {
    /// Not set.
    Unset,
    /// `sng` (True) or `none` (False).
    Bool(bool),
    /// Another style, by its XML value.
    Style(String),
}

/// A table: rows × grid columns of cells' paragraphs.
pub(super) struct Table {
    pub(super) rows: usize,
    pub(super) columns: usize,
    /// `cells[r][c]`: `None` past a short row (python-pptx's IndexError).
    pub(super) cells: Vec<Vec<Vec<Paragraph>>>,
}

/// Reads a deck.
pub(super) fn read(path: &Path) -> Py<Deck> {
    let (mut pkg, pres, pres_xml) = open_presentation(path)?;
    let pres_doc = parse(&pres_xml)?;
    let rels = pkg.rels(&pres)?;
    let mut slides = Vec::new();
    if let Some(list) = child(pres_doc.root_element(), P, "sldIdLst") {
        for id in list.children().filter(|n| n.has_tag_name((P, "sldId"))) {
            let rid = id.attribute((R, "id")).ok_or("a slide id without r:id")?;
            let (_, part) = rels.get(rid).ok_or("a slide id naming no relationship")?;
            slides.push(read_slide(&mut pkg, part)?);
        }
    }
    Ok(Deck { slides })
}

/// A deck's first slide as `check_image_stretch_and_center` reads it.
pub(super) struct FirstSlide {
    /// `prs.slide_width` and `prs.slide_height` (`None` without `p:sldSz`).
    pub(super) size: (Option<i64>, Option<i64>),
    /// The slide's shapes, each picture with its image's bytes (an error
    /// where python-pptx's `image.blob` raises: no embedded image).
    pub(super) shapes: Vec<(Shape, Py<Vec<u8>>)>,
}

/// Reads a deck's size and its first slide (an error without slides, as
/// `prs.slides[0]` raises).
pub(super) fn first_slide(path: &Path) -> Py<FirstSlide> {
    let (mut pkg, pres, pres_xml) = open_presentation(path)?;
    let pres_doc = parse(&pres_xml)?;
    let size = child(pres_doc.root_element(), P, "sldSz").map_or(Ok((None, None)), |sz| {
        let dim = |a: &str| -> Py<Option<i64>> {
            let v = sz
                .attribute(a)
                .ok_or_else(|| format!("p:sldSz without {a}"))?;
            v.parse()
                .map(Some)
                .map_err(|_| format!("p:sldSz {a}={v:?}"))
        };
        Ok::<_, String>((dim("cx")?, dim("cy")?))
    })?;
    let rels = pkg.rels(&pres)?;
    let first = child(pres_doc.root_element(), P, "sldIdLst")
        .and_then(|l| l.children().find(|n| n.has_tag_name((P, "sldId"))))
        .ok_or("the deck has no slides")?;
    let rid = first
        .attribute((R, "id"))
        .ok_or("a slide id without r:id")?;
    let (_, part) = rels.get(rid).ok_or("a slide id naming no relationship")?;
    let part = part.clone();
    let slide = read_slide(&mut pkg, &part)?;
    let slide_rels = pkg.rels(&part)?;
    let mut shapes = Vec::new();
    for shape in slide.shapes {
        let blob = match &shape.embed {
            None => Err("no embedded image".to_owned()),
            Some(rid) => match slide_rels.get(rid) {
                None => Err(format!("no relationship {rid}")),
                Some((_, target)) => {
                    let mut f = pkg
                        .zip
                        .by_name(target)
                        .map_err(|e| format!("{target}: {e}"))?;
                    let mut bytes = Vec::new();
                    std::io::Read::read_to_end(&mut f, &mut bytes)
                        .map_err(|e| format!("{target}: {e}"))?;
                    Ok(bytes)
                }
            },
        };
        shapes.push((shape, blob));
    }
    Ok(FirstSlide { size, shapes })
}

/// A layout or master placeholder's position, by idx or type.
struct Placeholder {
    idx: i64,
    ph_type: String,
    xfrm: [Option<i64>; 4],
}

/// The top-level `p:sp` placeholders of a layout or master.
fn placeholders(doc: &Document<'_>) -> Vec<Placeholder> {
    let Some(tree) = path(doc.root_element(), &[(P, "cSld"), (P, "spTree")]) else {
        return Vec::new();
    };
    tree.children()
        .filter(|n| n.has_tag_name((P, "sp")))
        .filter_map(|sp| {
            let ph = ph_elm(sp)?;
            Some(Placeholder {
                idx: ph
                    .attribute("idx")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0),
                ph_type: ph.attribute("type").unwrap_or("obj").to_owned(),
                xfrm: xfrm(sp),
            })
        })
        .collect()
}

/// A shape's `p:ph`, under its non-visual properties.
fn ph_elm<'a, 'i>(shape: Node<'a, 'i>) -> Option<Node<'a, 'i>> {
    let nv = shape
        .children()
        .find(|c| c.is_element() && c.tag_name().name().starts_with("nv"))?;
    path(nv, &[(P, "nvPr"), (P, "ph")])
}

/// A shape's offset and extent: `[x, y, cx, cy]`.
fn xfrm(shape: Node<'_, '_>) -> [Option<i64>; 4] {
    let x = match shape.tag_name().name() {
        "graphicFrame" => child(shape, P, "xfrm"),
        "grpSp" => path(shape, &[(P, "grpSpPr"), (A, "xfrm")]),
        _ => path(shape, &[(P, "spPr"), (A, "xfrm")]),
    };
    let num = |n: Option<Node<'_, '_>>, a: &str| n.and_then(|n| n.attribute(a)?.parse().ok());
    let off = x.and_then(|x| child(x, A, "off"));
    let ext = x.and_then(|x| child(x, A, "ext"));
    [num(off, "x"), num(off, "y"), num(ext, "cx"), num(ext, "cy")]
}

/// What a slide placeholder inherits from: the layout placeholder of its
/// idx, whose own missing values come from the master's placeholder of
/// its base type.
struct Inherit {
    layout: Vec<Placeholder>,
    master: Vec<Placeholder>,
}

impl Inherit {
    fn value(&self, idx: i64, k: usize) -> Py<Option<i64>> {
        let Some(lp) = self.layout.iter().find(|p| p.idx == idx) else {
            return Ok(None);
        };
        if let Some(v) = lp.xfrm[k] {
            return Ok(Some(v));
        }
        let base = match lp.ph_type.as_str() {
            "body" | "chart" | "clipArt" | "dgm" | "media" | "obj" | "pic" | "subTitle" | "tbl" => {
                "body"
            }
            "ctrTitle" | "title" => "title",
            "dt" => "dt",
            "ftr" => "ftr",
            "sldNum" => "sldNum",
            other => return Err(format!("a layout placeholder of type {other} has no base")),
        };
        Ok(self
            .master
            .iter()
            .find(|p| p.ph_type == base)
            .and_then(|p| p.xfrm[k]))
    }
}

fn read_slide(pkg: &mut Package, part: &str) -> Py<Slide> {
    let xml = pkg.part(part)?;
    let doc = parse(&xml)?;
    let layout_part = pkg
        .related(part, "slideLayout")?
        .ok_or("a slide without a layout")?;
    let layout_xml = pkg.part(&layout_part)?;
    let layout = parse(&layout_xml)?;
    let master_part = pkg
        .related(&layout_part, "slideMaster")?
        .ok_or("a layout without a master")?;
    let master_xml = pkg.part(&master_part)?;
    let master = parse(&master_xml)?;
    let inherit = Inherit {
        layout: placeholders(&layout),
        master: placeholders(&master),
    };
    let background = match fill_of(&doc) {
        Fill::Solid(c) => c.map(Some),
        Fill::Nothing => match fill_of(&master) {
            Fill::Solid(c) => c.map(Some),
            _ => Ok(None),
        },
        Fill::Other => Ok(None),
    };
    let notes = match pkg.related(part, "notesSlide")? {
        None => Ok(String::new()),
        Some(n) => {
            let nx = pkg.part(&n)?;
            let nd = parse(&nx)?;
            notes_text(&nd)
        }
    };
    let tree = path(doc.root_element(), &[(P, "cSld"), (P, "spTree")])
        .ok_or("a slide without p:spTree")?;
    let shapes = shape_elms(tree).map(|s| read_shape(s, &inherit)).collect();
    let mut text_shapes = Vec::new();
    collect_text_shapes(tree, &inherit, &mut text_shapes);
    Ok(Slide {
        background,
        notes,
        shapes,
        text_shapes,
        bullets: bullets(&doc),
    })
}

/// The shape elements of a shape tree or group, as python-pptx lists them.
fn shape_elms<'a, 'i>(tree: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    tree.children().filter(|c| {
        c.tag_name().namespace() == Some(P)
            && matches!(
                c.tag_name().name(),
                "sp" | "grpSp" | "graphicFrame" | "cxnSp" | "pic" | "contentPart"
            )
    })
}

fn collect_text_shapes(tree: Node<'_, '_>, inherit: &Inherit, out: &mut Vec<Shape>) {
    for s in shape_elms(tree) {
        if s.tag_name().name() == "sp" {
            out.push(read_shape(s, inherit));
        }
        if s.tag_name().name() == "grpSp" {
            collect_text_shapes(s, inherit, out);
        }
    }
}

/// A background fill as python-pptx's `slide.background.fill` sees it.
enum Fill {
    Solid(Py<String>),
    /// No fill, or no background (python-pptx adds a "no fill" one).
    Nothing,
    Other,
}

fn fill_of(doc: &Document<'_>) -> Fill {
    let Some(bg) = path(doc.root_element(), &[(P, "cSld"), (P, "bg")]) else {
        return Fill::Nothing;
    };
    let Some(pr) = child(bg, P, "bgPr") else {
        return Fill::Nothing;
    };
    let Some(fill) = pr.children().find(|c| {
        c.is_element()
            && c.tag_name().namespace() == Some(A)
            && c.tag_name().name().ends_with("Fill")
    }) else {
        return Fill::Other;
    };
    match fill.tag_name().name() {
        "solidFill" => Fill::Solid(
            srgb(fill).and_then(|c| c.ok_or_else(|| "no .rgb on this colour".to_owned())),
        ),
        "noFill" => Fill::Nothing,
        _ => Fill::Other,
    }
}

/// The RGB of a solid fill's `a:srgbClr` (`None` for another colour).
fn srgb(fill: Node<'_, '_>) -> Py<Option<String>> {
    match fill.children().find(|c| c.is_element()) {
        Some(c) if c.has_tag_name((A, "srgbClr")) => {
            let v = c.attribute("val").unwrap_or("");
            if v.len() == 6 && v.bytes().all(|b| b.is_ascii_hexdigit()) {
                Ok(Some(v.to_ascii_uppercase()))
            } else {
                Err(format!("{v:?} is not an RGB hex string"))
            }
        }
        _ => Ok(None),
    }
}

/// The notes slide's body placeholder text.
fn notes_text(doc: &Document<'_>) -> Py<String> {
    let tree =
        path(doc.root_element(), &[(P, "cSld"), (P, "spTree")]).ok_or("notes without p:spTree")?;
    let body = tree
        .children()
        .filter(|n| n.has_tag_name((P, "sp")))
        .find(|sp| ph_elm(*sp).is_some_and(|ph| ph.attribute("type") == Some("body")))
        .ok_or("notes without a body placeholder")?;
    let paras = text_frame(body);
    Ok(paras
        .iter()
        .map(|p| p.text.as_str())
        .collect::<Vec<_>>()
        .join("\n"))
}

fn read_shape(s: Node<'_, '_>, inherit: &Inherit) -> Shape {
    let tag = s.tag_name().name();
    let ph = ph_elm(s);
    let own = xfrm(s);
    let inherits = ph.is_some() && matches!(tag, "sp" | "pic");
    let idx = ph
        .and_then(|p| p.attribute("idx"))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let dim = |k: usize| -> Py<Option<i64>> {
        match own[k] {
            Some(v) => Ok(Some(v)),
            None if inherits => inherit.value(idx, k),
            None => Ok(None),
        }
    };
    let uri = path(s, &[(A, "graphic"), (A, "graphicData")]).and_then(|g| g.attribute("uri"));
    let shape_type: Py<Option<u8>> = match tag {
        "sp" | "pic" if ph.is_some() => Ok(Some(14)),
        "sp" => {
            let sp_pr = child(s, P, "spPr");
            let text_box = path(s, &[(P, "nvSpPr"), (P, "cNvSpPr")])
                .and_then(|n| n.attribute("txBox"))
                .is_some_and(|v| v == "1" || v == "true");
            if sp_pr.and_then(|p| child(p, A, "custGeom")).is_some() {
                Ok(Some(5))
            } else if sp_pr.and_then(|p| child(p, A, "prstGeom")).is_some() && !text_box {
                Ok(Some(1))
            } else if text_box {
                Ok(Some(17))
            } else {
                Err("a shape of unrecognized type".into())
            }
        }
        "pic" => {
            let video = path(s, &[(P, "nvPicPr"), (P, "nvPr"), (A, "videoFile")]).is_some();
            Ok(Some(if video { 16 } else { 13 }))
        }
        "grpSp" => Ok(Some(6)),
        "cxnSp" => Ok(Some(9)),
        "graphicFrame" => Ok(match uri {
            Some(TABLE_URI) => Some(19),
            Some(CHART_URI) => Some(3),
            Some(OLE_URI) => {
                let embedded = s.descendants().any(|d| d.has_tag_name((P, "embed")));
                Some(if embedded { 7 } else { 10 })
            }
            _ => None,
        }),
        _ => Err(format!("{tag} does not implement shape_type")),
    };
    let table = (tag == "graphicFrame" && uri == Some(TABLE_URI)).then(|| {
        let tbl = path(s, &[(A, "graphic"), (A, "graphicData"), (A, "tbl")]).ok_or("no a:tbl")?;
        let columns = child(tbl, A, "tblGrid")
            .map(|g| {
                g.children()
                    .filter(|c| c.has_tag_name((A, "gridCol")))
                    .count()
            })
            .ok_or("a table without a:tblGrid")?;
        let cells: Vec<Vec<Vec<Paragraph>>> = tbl
            .children()
            .filter(|c| c.has_tag_name((A, "tr")))
            .map(|tr| {
                tr.children()
                    .filter(|c| c.has_tag_name((A, "tc")))
                    .map(text_frame)
                    .collect()
            })
            .collect();
        Ok(Table {
            rows: cells.len(),
            columns,
            cells,
        })
    });
    Shape {
        shape_type,
        left: dim(0),
        top: dim(1),
        width: dim(2),
        height: dim(3),
        text: (tag == "sp").then(|| text_frame(s)),
        table,
        embed: (tag == "pic")
            .then(|| path(s, &[(P, "blipFill"), (A, "blip")])?.attribute((R, "embed")))
            .flatten()
            .map(str::to_owned),
    }
}

/// The paragraphs of an element's `txBody` (one empty paragraph without).
fn text_frame(owner: Node<'_, '_>) -> Vec<Paragraph> {
    let body = owner
        .children()
        .find(|c| c.is_element() && c.tag_name().name() == "txBody");
    let Some(body) = body else {
        return vec![Paragraph {
            text: String::new(),
            align: Ok(None),
            level: Ok(0),
            runs: Vec::new(),
        }];
    };
    body.children()
        .filter(|c| c.has_tag_name((A, "p")))
        .map(paragraph)
        .collect()
}

fn paragraph(p: Node<'_, '_>) -> Paragraph {
    let pr = child(p, A, "pPr");
    let mut text = String::new();
    let mut runs = Vec::new();
    for c in p.children().filter(Node::is_element) {
        match (c.tag_name().namespace(), c.tag_name().name()) {
            (Some(A), "r") => {
                text.push_str(child(c, A, "t").and_then(|t| t.text()).unwrap_or(""));
                runs.push(run(c));
            }
            (Some(A), "fld") => {
                text.push_str(child(c, A, "t").and_then(|t| t.text()).unwrap_or(""));
            }
            (Some(A), "br") => text.push('\u{b}'),
            _ => {}
        }
    }
    const ALIGNS: &[&str] = &["ctr", "dist", "just", "justLow", "l", "r", "thaiDist"];
    let align = match pr.and_then(|p| p.attribute("algn")) {
        None => Ok(None),
        Some(a) if ALIGNS.contains(&a) => Ok(Some(a.to_owned())),
        Some(a) => Err(format!("{a:?} is not a paragraph alignment")),
    };
    let level = match pr.and_then(|p| p.attribute("lvl")) {
        None => Ok(0),
        Some(v) => v
            .parse()
            .map_err(|_| format!("lvl {v:?} is not an integer")),
    };
    Paragraph {
        text,
        align,
        level,
        runs,
    }
}

/// An XML schema boolean attribute.
fn xsd_bool(n: Option<Node<'_, '_>>, name: &str) -> Py<Option<bool>> {
    match n.and_then(|n| n.attribute(name)) {
        None => Ok(None),
        Some("1" | "true") => Ok(Some(true)),
        Some("0" | "false") => Ok(Some(false)),
        Some(v) => Err(format!("{name}={v:?} is not a boolean")),
    }
}

fn run(r: Node<'_, '_>) -> Run {
    let pr = child(r, A, "rPr");
    const UNDERLINES: &[&str] = &[
        "dash",
        "dashHeavy",
        "dashLong",
        "dashLongHeavy",
        "dbl",
        "dotDash",
        "dotDashHeavy",
        "dotDotDash",
        "dotDotDashHeavy",
        "dotted",
        "dottedHeavy",
        "heavy",
        "wavy",
        "wavyDbl",
        "wavyHeavy",
        "words",
    ];
    let underline = match pr.and_then(|p| p.attribute("u")) {
        None => Ok(Underline::Unset),
        Some("none") => Ok(Underline::Bool(false)),
        Some("sng") => Ok(Underline::Bool(true)),
        Some(u) if UNDERLINES.contains(&u) => Ok(Underline::Style(u.to_owned())),
        Some(u) => Err(format!("{u:?} is not an underline type")),
    };
    let color = match pr.and_then(|p| {
        p.children().find(|c| {
            c.is_element()
                && c.tag_name().namespace() == Some(A)
                && c.tag_name().name().ends_with("Fill")
        })
    }) {
        Some(f) if f.tag_name().name() == "solidFill" => srgb(f),
        _ => Ok(None),
    };
    Run {
        name: pr
            .and_then(|p| child(p, A, "latin"))
            .and_then(|l| l.attribute("typeface"))
            .map(str::to_owned),
        size: match pr.and_then(|p| p.attribute("sz")) {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| format!("sz {v:?} is not an integer")),
        },
        bold: xsd_bool(pr, "b"),
        italic: xsd_bool(pr, "i"),
        color,
        underline,
        strike: pr
            .and_then(|p| p.attribute("strike"))
            .unwrap_or("noStrike")
            .to_owned(),
    }
}

/// OSWorld's `_extract_bullets` over a slide's XML: each `a:p` whose text
/// is not blank, with its `lvl` (`None` when `a:pPr` has none, "No Level"
/// without `a:pPr`) and `a:buChar` character. An empty `a:t` makes the
/// Python raise, which the caller treats as "skip the bullets".
fn bullets(doc: &Document<'_>) -> Option<Vec<Bullet>> {
    let mut out = Vec::new();
    for p in doc.descendants().filter(|n| n.has_tag_name((A, "p"))) {
        let (level, char) = match child(p, A, "pPr") {
            Some(pr) => (
                pr.attribute("lvl").map(str::to_owned),
                match child(pr, A, "buChar") {
                    Some(b) => b.attribute("char").map(str::to_owned),
                    None => Some("No Bullet".to_owned()),
                },
            ),
            None => (Some("No Level".to_owned()), Some("No Bullet".to_owned())),
        };
        let mut text = String::new();
        for t in p.descendants().filter(|n| n.has_tag_name((A, "t"))) {
            text.push_str(t.text()?);
        }
        if !text
            .trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
            .is_empty()
        {
            out.push(Bullet { level, char, text });
        }
    }
    Some(out)
}

/// A background's fill as python-pptx types it (`background.fill.type`).
pub(super) enum BgFill {
    /// `MSO_FILL.SOLID`, with the colour's RGB when it is an `a:srgbClr`
    /// (python-pptx has no `.rgb` for other colours).
    Solid(Option<[u8; 3]>),
    /// `MSO_FILL.BACKGROUND`: "no fill", or no background at all (which
    /// python-pptx replaces with "no fill").
    NoFill,
    /// Another fill type, or none.
    Other,
}

/// A deck's slide size (`p:sldSz`) and each slide's background fill with
/// its master's.
pub(super) struct Backgrounds {
    /// `presentation.slide_width`.
    pub(super) width: Option<i64>,
    /// `presentation.slide_height`.
    pub(super) height: Option<i64>,
    /// (slide fill, master fill) per slide, in `p:sldIdLst` order.
    pub(super) slides: Vec<(BgFill, BgFill)>,
}

/// A background fill of a slide or master.
fn bg_fill(doc: &Document<'_>) -> BgFill {
    match fill_of(doc) {
        Fill::Solid(c) => BgFill::Solid(c.ok().and_then(|hex| {
            let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
            Some([byte(0)?, byte(2)?, byte(4)?])
        })),
        Fill::Nothing => BgFill::NoFill,
        Fill::Other => BgFill::Other,
    }
}

/// Reads a deck's size and backgrounds.
pub(super) fn backgrounds(path: &Path) -> Py<Backgrounds> {
    let (mut pkg, pres, pres_xml) = open_presentation(path)?;
    let pres_doc = parse(&pres_xml)?;
    let size = child(pres_doc.root_element(), P, "sldSz");
    let dim = |name: &str| size.and_then(|s| s.attribute(name)?.parse::<i64>().ok());
    let rels = pkg.rels(&pres)?;
    let mut slides = Vec::new();
    if let Some(list) = child(pres_doc.root_element(), P, "sldIdLst") {
        for id in list.children().filter(|n| n.has_tag_name((P, "sldId"))) {
            let rid = id.attribute((R, "id")).ok_or("a slide id without r:id")?;
            let (_, part) = rels.get(rid).ok_or("a slide id naming no relationship")?;
            let part = part.clone();
            let xml = pkg.part(&part)?;
            let slide = bg_fill(&parse(&xml)?);
            let layout = pkg
                .related(&part, "slideLayout")?
                .ok_or("a slide without a layout")?;
            let master = pkg
                .related(&layout, "slideMaster")?
                .ok_or("a layout without a master")?;
            let master_xml = pkg.part(&master)?;
            slides.push((slide, bg_fill(&parse(&master_xml)?)));
        }
    }
    Ok(Backgrounds {
        width: dim("cx"),
        height: dim("cy"),
        slides,
    })
}
