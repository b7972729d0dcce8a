//! Word documents' layout and colours (OSWorld `docs.py`): tab stops
//! (`check_tabstops`) and the colours of the words in tables
//! (`evaluate_colored_words_in_tables`, CIEDE2000 as scikit-image
//! computes it), read as python-docx reads them (see `wordfmt`).

use roxmltree::Node;
use serde_json::Value;

use super::docx::{W, paragraph_text, path_of, run_text, w_children};
use super::wordfmt::{
    num_opt, open, open_pair, paragraphs, parsed, rpr, runs, same_text, sections, val,
};
use super::{CheckError, Cx, py_eq, py_space};

/// sRGB (0..=255) to CIE L*a*b* (D65, 2°), as scikit-image's `rgb2lab`.
fn rgb2lab(rgb: [u8; 3]) -> [f64; 3] {
    const M: [[f64; 3]; 3] = [
        [0.412453, 0.357580, 0.180423],
        [0.212671, 0.715160, 0.072169],
        [0.019334, 0.119193, 0.950227],
    ];
    const WHITE: [f64; 3] = [0.95047, 1.0, 1.08883];
    let lin = rgb.map(|v| {
        let c = f64::from(v) / 255.0;
        if c > 0.04045 {
            ((c + 0.055) / 1.055).powf(2.4)
        } else {
            c / 12.92
        }
    });
    let mut f = [0.0; 3];
    for (i, row) in M.iter().enumerate() {
        let v = (lin[0] * row[0] + lin[1] * row[1] + lin[2] * row[2]) / WHITE[i];
        f[i] = if v > 0.008856 {
            v.cbrt()
        } else {
            7.787 * v + 16.0 / 116.0
        };
    }
    [
        116.0 * f[1] - 16.0,
        500.0 * (f[0] - f[1]),
        200.0 * (f[1] - f[2]),
    ]
}

/// scikit-image's `deltaE_ciede2000` (kL = kC = kH = 1).
fn ciede2000(lab1: [f64; 3], lab2: [f64; 3]) -> f64 {
    use std::f64::consts::PI;
    let [l1, a1, b1] = lab1;
    let [l2, a2, b2] = lab2;
    let polar = |x: f64, y: f64| {
        let t = y.atan2(x);
        (x.hypot(y), if t < 0.0 { t + 2.0 * PI } else { t })
    };
    let cbar = 0.5 * (a1.hypot(b1) + a2.hypot(b2));
    let c7 = cbar.powi(7);
    let g = 0.5 * (1.0 - (c7 / (c7 + 25f64.powi(7))).sqrt());
    let scale = 1.0 + g;
    let (c1, h1) = polar(a1 * scale, b1);
    let (c2, h2) = polar(a2 * scale, b2);
    let lbar = 0.5 * (l1 + l2);
    let tmp = (lbar - 50.0).powi(2);
    let sl = 1.0 + 0.015 * tmp / (20.0 + tmp).sqrt();
    let l_term = (l2 - l1) / sl;
    let cbar = 0.5 * (c1 + c2);
    let sc = 1.0 + 0.045 * cbar;
    let c_term = (c2 - c1) / sc;
    let h_diff = h2 - h1;
    let h_sum = h1 + h2;
    let cc = c1 * c2;
    let mut dh = h_diff;
    if h_diff > PI {
        dh -= 2.0 * PI;
    }
    if h_diff < -PI {
        dh += 2.0 * PI;
    }
    if cc == 0.0 {
        dh = 0.0;
    }
    let dh_term = 2.0 * cc.sqrt() * (dh / 2.0).sin();
    let mut hbar = h_sum;
    if cc != 0.0 && h_diff.abs() > PI {
        if h_sum < 2.0 * PI {
            hbar += 2.0 * PI;
        } else {
            hbar -= 2.0 * PI;
        }
    }
    if cc == 0.0 {
        hbar *= 2.0;
    }
    hbar *= 0.5;
    let t = 1.0 - 0.17 * (hbar - 30f64.to_radians()).cos()
        + 0.24 * (2.0 * hbar).cos()
        + 0.32 * (3.0 * hbar + 6f64.to_radians()).cos()
        - 0.20 * (4.0 * hbar - 63f64.to_radians()).cos();
    let sh = 1.0 + 0.015 * cbar * t;
    let h_term = dh_term / sh;
    let c7 = cbar.powi(7);
    let rc = 2.0 * (c7 / (c7 + 25f64.powi(7))).sqrt();
    let dtheta = 30f64.to_radians() * (-((hbar.to_degrees() - 275.0) / 25.0).powi(2)).exp();
    let r_term = -(2.0 * dtheta).sin() * rc * c_term * h_term;
    let de2 = l_term.powi(2) + c_term.powi(2) + h_term.powi(2) + r_term;
    de2.max(0.0).sqrt()
}

/// A run's colour (`w:color/@w:val` as python-docx's `font.color.rgb`);
/// unset or `auto` (None in python-docx, on which OSWorld's function
/// raises) and malformed values are refused.
fn run_rgb(cx: &Cx<'_>, r: Node<'_, '_>) -> Result<[u8; 3], CheckError> {
    let v = rpr(r, "color")
        .and_then(val)
        .filter(|v| *v != "auto")
        .ok_or_else(|| cx.bad("a table word without an RGB colour (OSWorld raises)"))?;
    let byte = |i: usize| {
        v.get(i..i + 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .ok_or_else(|| cx.bad(format!("colour {v:?}")))
    };
    if v.len() != 6 {
        return Err(cx.bad(format!("colour {v:?}")));
    }
    Ok([byte(0)?, byte(2)?, byte(4)?])
}

/// `evaluate_colored_words_in_tables`: the documents' texts are the same
/// and, in the result's body tables, every run whose text starts with a
/// vowel is red and every other non-empty run blue (CIEDE2000 distance at
/// most the option `threshold`, default 3.5).
pub(super) fn evaluate_colored_words_in_tables(cx: &Cx<'_>) -> Result<f64, CheckError> {
    if !same_text(cx) {
        return Ok(0.0);
    }
    let Some(word) = path_of(Some(cx.result)).and_then(|p| open(&p)) else {
        return Ok(0.0);
    };
    let threshold = num_opt(cx, "threshold", 3.5)?;
    let doc = parsed(cx, &word.xml)?;
    let (red, blue) = (rgb2lab([255, 0, 0]), rgb2lab([0, 0, 255]));
    let Some(body) = w_children(doc.root_element(), "body").next() else {
        return Ok(1.0);
    };
    for tbl in w_children(body, "tbl") {
        for tr in w_children(tbl, "tr") {
            // A vertically merged continuation repeats the cell above,
            // already judged.
            let cells = w_children(tr, "tc").filter(|tc| {
                let vmerge = w_children(*tc, "tcPr")
                    .next()
                    .and_then(|pr| w_children(pr, "vMerge").next());
                vmerge.is_none_or(|m| val(m).is_some_and(|v| v != "continue"))
            });
            for tc in cells {
                for p in w_children(tc, "p") {
                    for r in runs(p) {
                        let text = run_text(r);
                        let Some(first) = text.chars().next() else {
                            continue;
                        };
                        let lower: String = first.to_lowercase().collect();
                        let vowel = lower.chars().count() == 1 && "aeiou".contains(lower.as_str());
                        let want = if vowel { red } else { blue };
                        if ciede2000(rgb2lab(run_rgb(cx, r)?), want) > threshold {
                            return Ok(0.0);
                        }
                    }
                }
            }
        }
    }
    Ok(1.0)
}

/// A tab stop: its alignment (`w:val`) and position in EMU.
type Tab = (String, i64);

/// A paragraph's own tab stops, without `clear` ones and a `left` one at 0.
fn tab_stops(cx: &Cx<'_>, p: Node<'_, '_>) -> Result<Vec<Tab>, CheckError> {
    let Some(tabs) = w_children(p, "pPr")
        .next()
        .and_then(|pr| w_children(pr, "tabs").next())
    else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for t in w_children(tabs, "tab") {
        let align = val(t).ok_or_else(|| cx.bad("a tab stop without w:val"))?;
        let pos = t
            .attribute((W, "pos"))
            .and_then(|v| v.trim_matches(py_space).parse::<f64>().ok())
            .ok_or_else(|| cx.bad("a tab stop without a position in twips"))?;
        let emu = (pos.round_ties_even() as i64) * 635;
        if align == "clear" || (align == "left" && emu == 0) {
            continue;
        }
        out.push((align.to_owned(), emu));
    }
    Ok(out)
}

/// A twips attribute of a section child, in EMU.
fn twips(
    cx: &Cx<'_>,
    sect: Node<'_, '_>,
    child: &'static str,
    attr: &str,
) -> Result<i64, CheckError> {
    w_children(sect, child)
        .next()
        .and_then(|n| n.attribute((W, attr)))
        .and_then(|v| v.trim_matches(py_space).parse::<i64>().ok())
        .map(|t| t * 635)
        .ok_or_else(|| {
            cx.bad(format!(
                "the first section has no {child} {attr} (OSWorld raises)"
            ))
        })
}

/// `check_tabstops`: the documents have as many non-blank paragraphs and
/// each pair has the same tab stops (`clear` ones and a left one at 0
/// ignored) of the same alignments; the score is 1 minus the mean, over
/// the paragraphs, of the summed position differences over the expected
/// document's text width (first section's page width minus its margins).
/// With option `word_number_split_by_tabstop` `n`, every result paragraph's
/// `index`-th (default 0) tab-separated part must have `n` words.
pub(super) fn check_tabstops(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((a, b)) = open_pair(cx) else {
        return Ok(0.0);
    };
    let (da, db) = (parsed(cx, &a.xml)?, parsed(cx, &b.xml)?);
    let blank = |p: &Node<'_, '_>| paragraph_text(*p).trim_matches(py_space).is_empty();
    let pa: Vec<Node<'_, '_>> = paragraphs(&da).into_iter().filter(|p| !blank(p)).collect();
    let pb: Vec<Node<'_, '_>> = paragraphs(&db).into_iter().filter(|p| !blank(p)).collect();
    if pa.len() != pb.len() {
        return Ok(0.0);
    }
    if let Some(number) = cx
        .options
        .get("word_number_split_by_tabstop")
        .filter(|v| !v.is_null())
    {
        let index = match cx.options.get("index") {
            None => 0,
            Some(v) => v
                .as_i64()
                .ok_or_else(|| cx.bad("option index must be an integer"))?,
        };
        for p in &pa {
            let text = paragraph_text(*p);
            let splits: Vec<&str> = text.split('\t').collect();
            let at = if index < 0 {
                splits.len() as i64 + index
            } else {
                index
            };
            let part = usize::try_from(at)
                .ok()
                .and_then(|i| splits.get(i))
                .ok_or_else(|| {
                    cx.bad("option index is past the paragraph's parts (OSWorld raises)")
                })?;
            let words = part
                .split(py_space)
                .filter(|w| !w.trim_matches(py_space).is_empty())
                .count();
            if !py_eq(&Value::from(words), number) {
                return Ok(0.0);
            }
        }
    }
    let sect = *sections(&db)
        .first()
        .ok_or_else(|| cx.bad("the expected document has no section (OSWorld raises)"))?;
    let width = twips(cx, sect, "pgSz", "w")?
        - twips(cx, sect, "pgMar", "left")?
        - twips(cx, sect, "pgMar", "right")?;
    let mut minus = 0.0;
    for (p, q) in pa.iter().zip(&pb) {
        let (ta, tb) = (tab_stops(cx, *p)?, tab_stops(cx, *q)?);
        if ta.len() != tb.len() {
            return Ok(0.0);
        }
        let mut difference = 0.0;
        for (x, y) in ta.iter().zip(&tb) {
            if x.0 != y.0 {
                return Ok(0.0);
            }
            difference += (x.1 - y.1).abs() as f64;
        }
        if width == 0 {
            return Err(cx.bad("a text width of 0 (OSWorld divides by zero)"));
        }
        minus += difference / width as f64;
    }
    if pa.is_empty() {
        return Err(cx.bad("no non-blank paragraphs (OSWorld divides by zero)"));
    }
    Ok(1.0 - minus / pa.len() as f64)
}
