//! `check_image_stretch_and_center` (OSWorld's `slides.py`): the original
//! deck's picture, found again in the modified deck, stretched over the
//! whole slide and centred on it.
//!
//! Both decks are read by python-pptx's rules (`pptx.rs`): the first
//! slide's top-level shapes of type picture (13; not a placeholder, not a
//! video). The original's first picture is looked for among the modified
//! slide's pictures by its image's bytes (the last one with equal bytes
//! wins); its size must be the original deck's slide size, and its offset
//! half the difference, each within half an inch.

use super::pptx::{FirstSlide, Py, Shape, first_slide};
use super::{CheckError, Cx, Got};

/// Half an inch in EMU, python-pptx's `Inches(0.5)`.
const HALF_INCH: f64 = 457_200.0;

/// `check_image_stretch_and_center`: `result` is the modified deck,
/// `expected` the original. A deck that cannot be read or has no slide,
/// and a size or offset missing where it is compared, are refused
/// (OSWorld's raises).
pub(super) fn check_image_stretch_and_center(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let path = |g: Option<&Got>| match g {
        Some(Got::File(p)) => Some(p.clone()),
        Some(Got::Text(t)) => Some(std::path::PathBuf::from(t)),
        _ => None,
    };
    let (Some(modified), Some(original)) = (path(Some(cx.result)), path(cx.expected)) else {
        return Err(cx.bad("both decks must be files"));
    };
    let read = |p: &std::path::Path| {
        first_slide(p).map_err(|e| cx.bad(format!("cannot read {}: {e}", p.display())))
    };
    let original = read(&original)?;
    let modified = read(&modified)?;
    let pictures = |s: &FirstSlide| -> Result<Vec<(usize, bool)>, CheckError> {
        let mut out = Vec::new();
        for (i, (shape, _)) in s.shapes.iter().enumerate() {
            let t = shape
                .shape_type
                .clone()
                .map_err(|e| cx.bad(format!("a shape's type: {e}")))?;
            out.push((i, t == Some(13)));
        }
        Ok(out.into_iter().filter(|(_, p)| *p).collect())
    };
    let original_pics = pictures(&original)?;
    let modified_pics = pictures(&modified)?;
    let Some(&(first, _)) = original_pics.first() else {
        return Ok(0.0);
    };
    let blob = |s: &FirstSlide, i: usize| -> Result<Vec<u8>, CheckError> {
        s.shapes[i]
            .1
            .clone()
            .map_err(|e| cx.bad(format!("a picture's image: {e}")))
    };
    let mut found = None;
    for &(i, _) in &modified_pics {
        if blob(&original, first)? == blob(&modified, i)? {
            found = Some(i);
        }
    }
    let Some(i) = found else {
        return Ok(0.0);
    };
    let pic: &Shape = &modified.shapes[i].0;
    let (sw, sh) = original.size;
    let num = |v: &Py<Option<i64>>, what: &str| -> Result<f64, CheckError> {
        match v {
            #[allow(clippy::cast_precision_loss)] // EMU lengths are far below 2^53
            Ok(Some(n)) => Ok(*n as f64),
            Ok(None) => Err(cx.bad(format!("the picture's {what} is not set"))),
            Err(e) => Err(cx.bad(format!("the picture's {what}: {e}"))),
        }
    };
    #[allow(clippy::cast_precision_loss)] // EMU lengths are far below 2^53
    let slide = |v: Option<i64>, what: &str| -> Result<f64, CheckError> {
        v.map(|n| n as f64)
            .ok_or_else(|| cx.bad(format!("the original deck's slide {what} is not set")))
    };
    // Python's `or` chain: each test reads its values only when reached.
    let (w, sw) = (num(&pic.width, "width")?, slide(sw, "width")?);
    if (w - sw).abs() > HALF_INCH {
        return Ok(0.0);
    }
    let (h, sh) = (num(&pic.height, "height")?, slide(sh, "height")?);
    if (h - sh).abs() > HALF_INCH {
        return Ok(0.0);
    }
    if (num(&pic.left, "left")? - (sw - w) / 2.0).abs() > HALF_INCH {
        return Ok(0.0);
    }
    if (num(&pic.top, "top")? - (sh - h) / 2.0).abs() > HALF_INCH {
        return Ok(0.0);
    }
    Ok(1.0)
}
