//! GIMP's image checks (OSWorld `gimp.py`): an edited image against the
//! original — darker, more saturated, more contrasted, mirrored, resized,
//! reduced to a palette, with a green background — or alone (a triangle in
//! the middle, text on the left, a file size), and `compare_image_list`.
//!
//! Images are read as Pillow holds them ([`Pil`]); the similarity tests are
//! OSWorld's two helpers:
//! - "same structure by SSIM": both images at least 7×7, converted to RGB,
//!   of one size, with scikit-image's SSIM (7×7 window, averaged over the
//!   three channels) at least a threshold (0.9 unless said);
//! - "same structure by MSE": the first image resized to the second's size
//!   (Lanczos, in its own mode), both converted to RGB, the mean squared
//!   difference of the samples scaled to 0..1 below a threshold.
//!
//! A file that cannot be opened is refused (`bad_checker_input`) where
//! OSWorld's function raises, and scores 0 where it catches the error.

use std::path::PathBuf;

use serde_json::Value;

use super::images::ssim;
use super::pil::{Filter, Gray, Mode, Pil};
use super::{CheckError, Cx, Got};

/// A getter's output as a file path (a file, or a path as text).
fn path_of(got: Option<&Got>) -> Option<PathBuf> {
    match got {
        Some(Got::File(p)) => Some(p.clone()),
        Some(Got::Text(t)) => Some(t.into()),
        _ => None,
    }
}

/// The result's and the expected image's paths; `None` when either is
/// missing (OSWorld scores 0).
fn paths(cx: &Cx<'_>) -> Result<Option<(PathBuf, PathBuf)>, CheckError> {
    only_options(
        cx,
        if cx.func == "check_brightness_decrease_and_structure_sim" {
            &["threshold"]
        } else {
            &[]
        },
    )?;
    Ok(path_of(Some(cx.result)).zip(path_of(cx.expected)))
}

/// Opens an image, refusing one that cannot be read.
fn open(cx: &Cx<'_>, path: &std::path::Path) -> Result<Pil, CheckError> {
    Pil::open(path).map_err(|m| cx.bad(format!("{}: {m}", path.display())))
}

/// An image's RGB planes.
fn rgb_planes(img: &Pil) -> [Gray; 3] {
    let rgb = img.to_rgb();
    let plane = |c: usize| Gray {
        w: img.w,
        h: img.h,
        px: rgb.iter().map(|p| p[c]).collect(),
    };
    [plane(0), plane(1), plane(2)]
}

/// OSWorld's `structure_check_by_ssim` on two images given as RGB planes.
fn planes_same(a: &[Gray; 3], b: &[Gray; 3], threshold: f64) -> bool {
    let (w1, h1, w2, h2) = (a[0].w, a[0].h, b[0].w, b[0].h);
    if w1 < 7 || h1 < 7 || w2 < 7 || h2 < 7 || (w1, h1) != (w2, h2) {
        return false;
    }
    let mut s = [0.0; 3];
    for (c, slot) in s.iter_mut().enumerate() {
        match ssim(&a[c], &b[c]) {
            Ok(v) => *slot = v,
            Err(_) => return false,
        }
    }
    (s[0] + s[1] + s[2]) / 3.0 >= threshold
}

/// OSWorld's `structure_check_by_ssim` on two images.
fn structure_same(a: &Pil, b: &Pil, threshold: f64) -> bool {
    if a.w < 7 || a.h < 7 || b.w < 7 || b.h < 7 || (a.w, a.h) != (b.w, b.h) {
        return false;
    }
    planes_same(&rgb_planes(a), &rgb_planes(b), threshold)
}

/// OSWorld's `structure_check_by_ssim` on two single-band images (each
/// converted to RGB: three equal channels).
fn band_same(a: &Gray, b: &Gray, threshold: f64) -> bool {
    if a.w < 7 || a.h < 7 || b.w < 7 || b.h < 7 || (a.w, a.h) != (b.w, b.h) {
        return false;
    }
    ssim(a, b).is_ok_and(|s| (s + s + s) / 3.0 >= threshold)
}

/// OSWorld's `structure_check_by_mse`, in numpy's single precision (the
/// threshold too, as numpy 1.x compares a `float32` with a Python float).
fn mse_same(a: &Pil, b: &Pil, threshold: f64) -> bool {
    let a = a.resize(b.w, b.h, Filter::Lanczos);
    let (x, y) = (a.to_rgb(), b.to_rgb());
    let sq: Vec<f32> = x
        .iter()
        .zip(&y)
        .flat_map(|(p, q)| {
            (0..3).map(move |c| {
                let d = f32::from(p[c]) / 255.0 - f32::from(q[c]) / 255.0;
                d * d
            })
        })
        .collect();
    let mse = np_sum(&sq) / sq.len() as f32;
    mse < threshold as f32
}

/// Refuses options other than `allowed` (OSWorld's function takes no
/// others: Python raises on an unexpected keyword).
fn only_options(cx: &Cx<'_>, allowed: &[&str]) -> Result<(), CheckError> {
    match cx.options.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(cx.bad(format!("unexpected option {k:?}"))),
        None => Ok(()),
    }
}

/// A 0/1 score.
fn score(passed: bool) -> Result<f64, CheckError> {
    Ok(f64::from(u8::from(passed)))
}

/// The mean of an image's gray values (`ImageStat.Stat(img.convert("L"))`).
fn brightness(img: &Pil) -> f64 {
    let l = img.to_l();
    let sum: u64 = l.iter().map(|&v| u64::from(v)).sum();
    sum as f64 / l.len() as f64
}

/// OSWorld's `normalize_brightness(img, 128)`: every band (palette
/// indices for `P`) scaled by `128 / brightness`, truncated, clipped.
fn normalize_brightness(cx: &Cx<'_>, img: &Pil) -> Result<Pil, CheckError> {
    let current = brightness(img);
    if current == 0.0 {
        return Err(cx.bad("a black image (brightness 0) cannot be normalised"));
    }
    let factor = 128.0 / current;
    let mut lut = [0u8; 256];
    for (i, v) in lut.iter_mut().enumerate() {
        *v = ((i as f64 * factor) as i64).clamp(0, 255) as u8;
    }
    Ok(img.point(&lut))
}

/// `check_brightness_decrease_and_structure_sim`: the result is darker
/// than the original (mean gray) and, both normalised to a mean of 128,
/// the same by MSE (option `threshold`, default 0.03).
pub(super) fn check_brightness_decrease_and_structure_sim(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((src, tgt)) = paths(cx)? else {
        return Ok(0.0);
    };
    let threshold = match cx.options.get("threshold") {
        None => 0.03,
        Some(v) => v
            .as_f64()
            .ok_or_else(|| cx.bad("option threshold must be a number"))?,
    };
    let (src, tgt) = (open(cx, &src)?, open(cx, &tgt)?);
    let reduced = brightness(&tgt) > brightness(&src);
    let (src, tgt) = (
        normalize_brightness(cx, &src)?,
        normalize_brightness(cx, &tgt)?,
    );
    score(reduced && mse_same(&src, &tgt, threshold))
}

/// The mean of an HSV band.
fn band_mean(band: &Gray) -> f64 {
    let sum: u64 = band.px.iter().map(|&v| u64::from(v)).sum();
    sum as f64 / band.px.len() as f64
}

/// `check_saturation_increase_and_structure_sim`: the result's mean HSV
/// saturation is above the original's and its hue and value bands are
/// each the same by SSIM.
pub(super) fn check_saturation_increase_and_structure_sim(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((src, tgt)) = paths(cx)? else {
        return Ok(0.0);
    };
    let (src, tgt) = (open(cx, &src)?.to_hsv(), open(cx, &tgt)?.to_hsv());
    let increased = band_mean(&tgt[1]) < band_mean(&src[1]);
    let same = band_same(&src[0], &tgt[0], 0.9) && band_same(&src[2], &tgt[2], 0.9);
    score(increased && same)
}

/// `check_file_exists_and_structure_sim`: the result is a file and the
/// same as the original by SSIM.
pub(super) fn check_file_exists_and_structure_sim(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((src, tgt)) = paths(cx)? else {
        return Ok(0.0);
    };
    if !src.is_file() {
        return Ok(0.0);
    }
    let (src, tgt) = (open(cx, &src)?, open(cx, &tgt)?);
    score(structure_same(&src, &tgt, 0.9))
}

/// `check_structure_sim_resized`: the result (cropped to its
/// non-transparent pixels when it has alpha or a transparency key; all
/// transparent scores 0) resized to the original's size (bicubic) is the
/// same as the original by SSIM.
pub(super) fn check_structure_sim_resized(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((src, tgt)) = paths(cx)? else {
        return Ok(0.0);
    };
    let (src, tgt) = (open(cx, &src)?, open(cx, &tgt)?);
    let resized = if matches!(src.mode, Mode::Rgba | Mode::La) || src.key.is_some() {
        let rgba = src.rgba();
        let Some(bbox) = Pil::band_bbox(&rgba.px, rgba.w, 4, 3) else {
            return Ok(0.0);
        };
        let content = rgba.crop(bbox);
        let rgb = content.convert(Mode::Rgb).unwrap_or(content);
        rgb.resize(tgt.w, tgt.h, Filter::Bicubic)
    } else {
        src.resize(tgt.w, tgt.h, Filter::Bicubic)
    };
    score(structure_same(&resized, &tgt, 0.9))
}

/// `check_palette_and_structure_sim`: the result is a palette image and,
/// in RGB, the same as the original by SSIM. A file that is missing, empty
/// or not an image scores 0 (OSWorld's function catches it).
pub(super) fn check_palette_and_structure_sim(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((src, tgt)) = paths(cx)? else {
        return Ok(0.0);
    };
    let (Ok(src), Ok(tgt)) = (Pil::open(&src), Pil::open(&tgt)) else {
        return Ok(0.0);
    };
    score(src.mode == Mode::P && structure_same(&src, &tgt, 0.9))
}

/// `check_contrast_increase_and_structure_sim`: the standard deviation
/// of the result's samples (every band of its own mode, palette indices
/// for `P`) is above the original's and the two are the same by SSIM at
/// 0.65.
pub(super) fn check_contrast_increase_and_structure_sim(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((src, tgt)) = paths(cx)? else {
        return Ok(0.0);
    };
    let (src, tgt) = (open(cx, &src)?, open(cx, &tgt)?);
    let higher = contrast(&tgt) < contrast(&src);
    score(higher && structure_same(&src, &tgt, 0.65))
}

/// numpy's `np.std(np.asarray(img, dtype=np.float32))`, in single
/// precision as numpy computes it.
fn contrast(img: &Pil) -> f32 {
    let x: Vec<f32> = img.px.iter().map(|&v| f32::from(v)).collect();
    let n = x.len() as f32;
    let mean = np_sum(&x) / n;
    let sq: Vec<f32> = x.iter().map(|v| (v - mean) * (v - mean)).collect();
    (np_sum(&sq) / n).sqrt()
}

/// numpy's `np.sum` of a contiguous `float32` array: pairwise within
/// blocks of 8192 values (its buffer), the blocks' sums added in turn.
fn np_sum(a: &[f32]) -> f32 {
    a.chunks(8192).fold(0.0f32, |s, b| s + pairwise_sum(b))
}

/// numpy's `pairwise_sum_FLOAT`.
fn pairwise_sum(a: &[f32]) -> f32 {
    let n = a.len();
    if n < 8 {
        a.iter().fold(0.0f32, |s, v| s + v)
    } else if n <= 128 {
        let mut r = [0.0f32; 8];
        r.copy_from_slice(&a[..8]);
        let full = n - n % 8;
        for chunk in a[8..full].chunks_exact(8) {
            for (s, v) in r.iter_mut().zip(chunk) {
                *s += v;
            }
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for v in &a[full..] {
            res += v;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// `check_image_mirror`: the original flipped left to right is the same
/// as the result by SSIM at 0.99.
pub(super) fn check_image_mirror(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((src, tgt)) = paths(cx)? else {
        return Ok(0.0);
    };
    let (src, tgt) = (open(cx, &src)?, open(cx, &tgt)?);
    score(structure_same(&src.flip_left_right(), &tgt, 0.99))
}

/// `check_textbox_on_leftside`: the leftmost dark pixel (gray below 128)
/// lies in the left 5% of the image.
pub(super) fn check_textbox_on_leftside(cx: &Cx<'_>) -> Result<f64, CheckError> {
    only_options(cx, &[])?;
    let Some(src) = path_of(Some(cx.result)) else {
        return Ok(0.0);
    };
    let img = open(cx, &src)?;
    let l = img.to_l();
    let left = (0..img.h)
        .filter_map(|y| (0..img.w).find(|&x| l[y * img.w + x] < 128))
        .min()
        .unwrap_or(img.w);
    score((left as f64) < img.w as f64 * 0.05)
}

/// `check_green_background`: every pixel of the result that is not black
/// in the original is green (G above R and above B) — OSWorld indexes
/// both images as `[x, y]` on numpy's `[row, column]`, so a non-square
/// image is read transposed and raises (refused here) once out of bounds;
/// gray and palette images, read as single values, raise too.
pub(super) fn check_green_background(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some((src, tgt)) = paths(cx)? else {
        return Ok(0.0);
    };
    let (src, tgt) = (open(cx, &src)?, open(cx, &tgt)?);
    let flat = |img: &Pil| matches!(img.mode, Mode::L | Mode::P);
    let out = || cx.bad("OSWorld's [x, y] indexing goes out of the image (it raises)");
    for x in 0..tgt.w {
        for y in 0..tgt.h {
            // numpy's [x, y] is row x, column y.
            if x >= tgt.h || y >= tgt.w {
                return Err(out());
            }
            if flat(&tgt) {
                return Err(cx.bad("a single-band image has no [:3] (OSWorld raises)"));
            }
            let n = tgt.mode.bands();
            let t = &tgt.px[(x * tgt.w + y) * n..(x * tgt.w + y + 1) * n];
            let black = n >= 3 && t[..3] == [0, 0, 0];
            if black {
                continue;
            }
            if x >= src.h || y >= src.w {
                return Err(out());
            }
            if src.mode.bands() < 3 {
                return Err(cx.bad("the result has fewer than three bands (OSWorld raises)"));
            }
            let m = src.mode.bands();
            let s = &src.px[(x * src.w + y) * m..(x * src.w + y) * m + 3];
            if !(s[1] > s[0] && s[1] > s[2]) {
                return Ok(0.0);
            }
        }
    }
    Ok(1.0)
}

/// `check_triangle_position`: the pixels of the image's second *least*
/// common colour (OSWorld's `unique_colors_sorted[1]` on counts sorted
/// ascending: with two colours, the background) have their centroid
/// within 5% of the image's centre on both axes. Gray and palette images
/// (two-dimensional arrays) and one-colour images are refused, as
/// OSWorld's function raises on them. Equal counts keep numpy's colour
/// order (the lower colour first).
pub(super) fn check_triangle_position(cx: &Cx<'_>) -> Result<f64, CheckError> {
    only_options(cx, &[])?;
    let Some(src) = path_of(Some(cx.result)) else {
        return Ok(0.0);
    };
    let img = open(cx, &src)?;
    if matches!(img.mode, Mode::L | Mode::P) {
        return Err(cx.bad("a single-band image has no colour axis (OSWorld raises)"));
    }
    let mut counts: std::collections::BTreeMap<&[u8], usize> = std::collections::BTreeMap::new();
    for p in img.rows() {
        *counts.entry(p).or_default() += 1;
    }
    let mut colours: Vec<(&[u8], usize)> = counts.into_iter().collect();
    colours.sort_by_key(|&(_, n)| n);
    let Some(&(colour, _)) = colours.get(1) else {
        return Err(cx.bad("a one-colour image has no second colour (OSWorld raises)"));
    };
    let (mut sy, mut sx, mut n) = (0u64, 0u64, 0u64);
    for (i, p) in img.rows().enumerate() {
        if p == colour {
            sy += (i / img.w) as u64;
            sx += (i % img.w) as u64;
            n += 1;
        }
    }
    let (cy, cx_) = (sy as f64 / n as f64, sx as f64 / n as f64);
    let (h, w) = (img.h as f64, img.w as f64);
    score((cy - h / 2.0).abs() < 0.05 * h && (cx_ - w / 2.0).abs() < 0.05 * w)
}

/// `check_image_file_size`: the result file is smaller than
/// `rules.max_size` bytes.
pub(super) fn check_image_file_size(cx: &Cx<'_>) -> Result<f64, CheckError> {
    only_options(cx, &[])?;
    let Some(src) = path_of(Some(cx.result)) else {
        return Ok(0.0);
    };
    let size = std::fs::metadata(&src)
        .map_err(|e| cx.bad_because(format!("cannot read {}", src.display()), e))?
        .len();
    let max = match cx.rules()?.get("max_size") {
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        Some(v) => v
            .as_f64()
            .ok_or_else(|| cx.bad("rules.max_size must be a number"))?,
        None => return Err(cx.bad("rules have no \"max_size\"")),
    };
    score((size as f64) < max)
}

/// `compare_image_list`: each result image (a path, or a list of paths
/// paired with the expected list, the shorter deciding) resized to its
/// expected image's size (Lanczos) and converted to its mode differs from
/// it nowhere — for images with alpha, Pillow's `getbbox` looks at the
/// alpha difference only. An empty path scores 0.
pub(super) fn compare_image_list(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let list = |g: Option<&Got>| -> Option<Vec<Value>> {
        match g {
            Some(Got::Json(Value::Array(a))) => Some(a.clone()),
            Some(Got::Json(v)) => Some(vec![v.clone()]),
            Some(Got::File(p)) => Some(vec![Value::String(p.display().to_string())]),
            Some(Got::Text(t)) => Some(vec![Value::String(t.clone())]),
            _ => None,
        }
    };
    only_options(cx, &[])?;
    let (Some(pred), Some(gold)) = (list(Some(cx.result)), list(cx.expected)) else {
        return Ok(0.0);
    };
    for (p, g) in pred.iter().zip(&gold) {
        let (Some(p), Some(g)) = (path_value(p), path_value(g)) else {
            return Ok(0.0);
        };
        let (p, g) = (open(cx, p.as_ref())?, open(cx, g.as_ref())?);
        let p = p.resize(g.w, g.h, Filter::Lanczos);
        // Converting to a palette quantizes (Pillow's web palette,
        // dithered): not reproduced, refused.
        let p = p.convert(g.mode).ok_or_else(|| {
            cx.bad("converting an image to the expected palette image is not supported")
        })?;
        let n = g.mode.bands();
        let differs = if n == 2 || n == 4 {
            p.px.chunks_exact(n)
                .zip(g.px.chunks_exact(n))
                .any(|(a, b)| a[n - 1] != b[n - 1])
        } else {
            p.px != g.px
        };
        if differs {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}

/// A list item as a path: a non-empty string (Python's falsy values, an
/// empty string or null, score 0).
fn path_value(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}
