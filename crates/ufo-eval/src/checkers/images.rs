//! `compare_images` (OSWorld `vlc.py`): the structural similarity (SSIM)
//! of two images in grayscale, as Pillow and scikit-image compute it.
//!
//! - Grayscale is Pillow's `convert("L")`: `(19595·R + 38470·G + 7471·B +
//!   0x8000) >> 16`, alpha ignored; 16-bit channels keep their high byte
//!   (16-bit gray is clipped at 255, as Pillow's `I;16` to `L`).
//! - Both images are resized to the smaller size in Python's tuple order
//!   (`min((w1, h1), (w2, h2))`: the narrower, which may be the taller)
//!   with Pillow's Lanczos filter, reproduced to the bit: coefficients
//!   in double precision, rounded to 22-bit fixed point, horizontal pass
//!   then vertical, clipped to 0..=255. An image already that size is
//!   left as it is.
//! - SSIM is scikit-image's default: a 7×7 uniform window, sample
//!   covariance, data range 255, `K1` 0.01, `K2` 0.03, averaged over the
//!   pixels at least 3 from every edge; an image smaller than 7×7 is
//!   refused (scikit-image raises).
//! - With option `reference_base_result` `b`, a similarity `s ≥ b + 0.01`
//!   scores `(s − b) / (1 − b)`, anything less 0; without it the score is
//!   `s` itself, which can be negative.

use std::path::Path;

use image::DynamicImage;

use super::pil::{Filter, Gray, l24, resample};
use super::{CheckError, Cx, Got};

/// Opens an image as Pillow's `convert("L")` would have it.
fn open_gray(path: &Path) -> Result<Gray, String> {
    let img = image::ImageReader::open(path)
        .map_err(|e| e.to_string())?
        .with_guessed_format()
        .map_err(|e| e.to_string())?
        .decode()
        .map_err(|e| e.to_string())?;
    let (w, h) = (img.width() as usize, img.height() as usize);
    // 16-bit channels: their high bytes, as Pillow reads them.
    let l48 = |c: &[u16]| l24((c[0] >> 8) as u8, (c[1] >> 8) as u8, (c[2] >> 8) as u8);
    let px: Vec<u8> = match &img {
        DynamicImage::ImageLuma8(i) => i.as_raw().clone(),
        DynamicImage::ImageLumaA8(i) => i.pixels().map(|p| p.0[0]).collect(),
        DynamicImage::ImageRgb8(i) => i.pixels().map(|p| l24(p.0[0], p.0[1], p.0[2])).collect(),
        DynamicImage::ImageRgba8(i) => i.pixels().map(|p| l24(p.0[0], p.0[1], p.0[2])).collect(),
        DynamicImage::ImageLuma16(i) => i.pixels().map(|p| p.0[0].min(255) as u8).collect(),
        DynamicImage::ImageLumaA16(i) => i.pixels().map(|p| (p.0[0] >> 8) as u8).collect(),
        DynamicImage::ImageRgb16(i) => i.pixels().map(|p| l48(&p.0)).collect(),
        DynamicImage::ImageRgba16(i) => i.pixels().map(|p| l48(&p.0)).collect(),
        other => return Err(format!("{:?} images are not supported", other.color())),
    };
    Ok(Gray { w, h, px })
}

/// Opens an image as Pillow's `convert("RGB")` would have it: three
/// channel planes (alpha dropped, gray replicated, 16-bit high bytes).
fn open_rgb(path: &Path) -> Result<[Gray; 3], String> {
    let img = image::ImageReader::open(path)
        .map_err(|e| e.to_string())?
        .with_guessed_format()
        .map_err(|e| e.to_string())?
        .decode()
        .map_err(|e| e.to_string())?;
    let (w, h) = (img.width() as usize, img.height() as usize);
    let px: Vec<[u8; 3]> = match &img {
        DynamicImage::ImageLuma8(i) => i.pixels().map(|p| [p.0[0]; 3]).collect(),
        DynamicImage::ImageLumaA8(i) => i.pixels().map(|p| [p.0[0]; 3]).collect(),
        DynamicImage::ImageRgb8(i) => i.pixels().map(|p| p.0).collect(),
        DynamicImage::ImageRgba8(i) => i.pixels().map(|p| [p.0[0], p.0[1], p.0[2]]).collect(),
        DynamicImage::ImageRgb16(i) => i.pixels().map(|p| p.0.map(|v| (v >> 8) as u8)).collect(),
        DynamicImage::ImageRgba16(i) => i
            .pixels()
            .map(|p| [p.0[0], p.0[1], p.0[2]].map(|v| (v >> 8) as u8))
            .collect(),
        other => return Err(format!("{:?} images are not supported", other.color())),
    };
    let plane = |c: usize| Gray {
        w,
        h,
        px: px.iter().map(|p| p[c]).collect(),
    };
    Ok([plane(0), plane(1), plane(2)])
}

/// `check_structure_sim` (OSWorld `gimp.py`): two images of the same size
/// whose RGB structural similarity (scikit-image's, per channel, averaged)
/// is at least 0.9 score 1; different sizes, images under 7×7 or files
/// that cannot be read score 0 (OSWorld's function catches every error).
pub(super) fn check_structure_sim(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let path = |g: Option<&Got>| match g {
        Some(Got::File(p)) => Some(p.clone()),
        Some(Got::Text(t)) => Some(t.into()),
        _ => None,
    };
    let (Some(p1), Some(p2)) = (path(Some(cx.result)), path(cx.expected)) else {
        return Ok(0.0);
    };
    let (Ok(a), Ok(b)) = (open_rgb(&p1), open_rgb(&p2)) else {
        return Ok(0.0);
    };
    if (a[0].w, a[0].h) != (b[0].w, b[0].h) {
        return Ok(0.0);
    }
    let mut total = 0.0;
    for (x, y) in a.iter().zip(&b) {
        match ssim(x, y) {
            Ok(s) => total += s,
            Err(_) => return Ok(0.0),
        }
    }
    Ok(f64::from(u8::from(total / 3.0 >= 0.9)))
}

/// A PNG's colour type (IHDR byte) and whether it has a `tRNS` chunk
/// (Pillow's `'transparency' in img.info`); `None` for other formats.
fn png_header(bytes: &[u8]) -> Option<(u8, bool)> {
    const SIG: &[u8] = b"\x89PNG\r\n\x1a\n";
    let rest = bytes.strip_prefix(SIG)?;
    let color_type = *rest.get(8 + 9)?;
    let mut at = 0;
    let mut trns = false;
    while let Some(head) = rest.get(at..at + 8) {
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        match &head[4..8] {
            b"tRNS" => trns = true,
            b"IDAT" | b"IEND" => break,
            _ => {}
        }
        at += 12 + len;
    }
    Some((color_type, trns))
}

/// `check_image_size` (OSWorld `gimp.py`): the image's width and height
/// equal `rules.width` and `rules.height` (each checked only when given).
/// With `rules.ignore_transparent` on an image with an alpha channel — and
/// always for an image with a transparency key (a PNG `tRNS` chunk), as
/// OSWorld's condition reads — the size is that of the box around the
/// pixels whose alpha is not 0 (0×0 when there are none).
pub(super) fn check_image_size(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let Some(path) = cx.result_path() else {
        return Ok(0.0);
    };
    let rules = cx.rules()?;
    let bytes = std::fs::read(&path)
        .map_err(|e| cx.bad_because(format!("cannot read {}", path.display()), e))?;
    let img = image::ImageReader::new(std::io::Cursor::new(&bytes))
        .with_guessed_format()
        .map_err(|e| cx.bad_because("cannot read the image", e))?
        .decode()
        .map_err(|e| cx.bad_because("cannot decode the image", e))?;
    let (color_type, trns) = png_header(&bytes).unwrap_or((0, false));
    let alpha_mode = matches!(color_type, 4 | 6);
    let ignore = rules
        .get("ignore_transparent")
        .is_some_and(super::py_truthy);
    let (w, h) = if (ignore && alpha_mode) || trns {
        let rgba = img.to_rgba16();
        let mut bbox: Option<(u32, u32, u32, u32)> = None;
        for (x, y, p) in rgba.enumerate_pixels() {
            if p.0[3] >> 8 != 0 {
                bbox = Some(match bbox {
                    None => (x, y, x, y),
                    Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
                });
            }
        }
        bbox.map_or((0, 0), |(x0, y0, x1, y1)| (x1 + 1 - x0, y1 + 1 - y0))
    } else {
        (img.width(), img.height())
    };
    let same = |key: &str, v: u32| match rules.get(key) {
        None | Some(serde_json::Value::Null) => true,
        Some(want) => super::py_eq(&serde_json::Value::from(v), want),
    };
    Ok(f64::from(u8::from(same("height", h) && same("width", w))))
}

/// scikit-image's `structural_similarity` with its defaults on two 8-bit
/// images of one size.
pub(super) fn ssim(a: &Gray, b: &Gray) -> Result<f64, String> {
    const WIN: usize = 7;
    if a.w < WIN || a.h < WIN {
        return Err("win_size exceeds image extent (images must be at least 7×7)".into());
    }
    let (w, h) = (a.w, a.h);
    let np = (WIN * WIN) as f64;
    let cov_norm = np / (np - 1.0);
    let c1 = (0.01f64 * 255.0).powi(2);
    let c2 = (0.03f64 * 255.0).powi(2);
    // Exact integer sums of x, y, x², y², xy over each 7×7 window: column
    // sums over the window's rows, slid down row by row and across.
    let pad = WIN / 2;
    let sample = |img: &Gray, x: usize, y: usize| u64::from(img.px[y * w + x]);
    let mut cols = vec![[0u64; 5]; w];
    let add_row = |cols: &mut Vec<[u64; 5]>, y: usize, sign: bool| {
        for (x, c) in cols.iter_mut().enumerate() {
            let (p, q) = (sample(a, x, y), sample(b, x, y));
            for (slot, v) in c.iter_mut().zip([p, q, p * p, q * q, p * q]) {
                if sign {
                    *slot += v;
                } else {
                    *slot -= v;
                }
            }
        }
    };
    for y in 0..WIN {
        add_row(&mut cols, y, true);
    }
    let mut total = 0.0;
    let mut count = 0usize;
    for cy in pad..h - pad {
        if cy > pad {
            add_row(&mut cols, cy - pad - 1, false);
            add_row(&mut cols, cy + pad, true);
        }
        let mut win = [0u64; 5];
        for c in &cols[..WIN] {
            for (s, v) in win.iter_mut().zip(c) {
                *s += v;
            }
        }
        for cx in pad..w - pad {
            if cx > pad {
                for k in 0..5 {
                    win[k] = win[k] + cols[cx + pad][k] - cols[cx - pad - 1][k];
                }
            }
            let [sx, sy, sxx, syy, sxy] = win.map(|v| v as f64);
            let (ux, uy) = (sx / np, sy / np);
            let (uxx, uyy, uxy) = (sxx / np, syy / np, sxy / np);
            let vx = cov_norm * (uxx - ux * ux);
            let vy = cov_norm * (uyy - uy * uy);
            let vxy = cov_norm * (uxy - ux * uy);
            let a1 = 2.0 * ux * uy + c1;
            let a2 = 2.0 * vxy + c2;
            let b1 = ux * ux + uy * uy + c1;
            let b2 = vx + vy + c2;
            total += (a1 * a2) / (b1 * b2);
            count += 1;
        }
    }
    Ok(total / count as f64)
}

/// `compare_images`.
pub(super) fn compare_images(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let path = |g: Option<&Got>| match g {
        Some(Got::File(p)) => Some(p.clone()),
        Some(Got::Text(t)) if !t.is_empty() => Some(t.into()),
        _ => None,
    };
    let (Some(p1), Some(p2)) = (path(Some(cx.result)), path(cx.expected)) else {
        return Ok(0.0);
    };
    let base = match cx.options.get("reference_base_result") {
        None | Some(serde_json::Value::Null) => None,
        Some(v) => Some(
            v.as_f64()
                .ok_or_else(|| cx.bad("reference_base_result must be a number"))?,
        ),
    };
    let open = |p: &Path| open_gray(p).map_err(|m| cx.bad(format!("{}: {m}", p.display())));
    let (a, b) = (open(&p1)?, open(&p2)?);
    let (w, h) = std::cmp::min((a.w, a.h), (b.w, b.h));
    if w == 0 || h == 0 {
        return Err(cx.bad("an empty image"));
    }
    let (a, b) = (
        resample(&a, w, h, Filter::Lanczos),
        resample(&b, w, h, Filter::Lanczos),
    );
    let s = ssim(&a, &b).map_err(|m| cx.bad(m))?;
    Ok(match base {
        None => s,
        Some(base) if s >= base + 0.01 => (s - base) / (1.0 - base),
        Some(_) => 0.0,
    })
}
