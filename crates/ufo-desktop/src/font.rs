//! The bundled label font and minimal text measuring/drawing on RGB images.
//!
//! The font is DejaVu Sans Mono Bold (Bitstream Vera license, see
//! `assets/LICENSE-DejaVu.txt`), compiled into the binary so annotation never
//! depends on fonts installed on the machine and output is identical everywhere.

use crate::error::{DesktopError, Result};
use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use image::{Rgb, RgbImage};

/// The font file's bytes.
pub const LABEL_FONT_TTF: &[u8] = include_bytes!("../assets/DejaVuSansMono-Bold.ttf");

/// The bundled label font, parsed (cheap: parsing is lazy).
pub fn label_font() -> Result<FontRef<'static>> {
    FontRef::try_from_slice(LABEL_FONT_TTF)
        .map_err(|e| DesktopError::image_by("cannot read the bundled label font", e))
}

/// The inked extent of a laid-out string, relative to the pen start on the
/// baseline (so `min_y` is negative for glyphs above the baseline).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InkBounds {
    /// Left edge.
    pub min_x: f32,
    /// Top edge.
    pub min_y: f32,
    /// Right edge.
    pub max_x: f32,
    /// Bottom edge.
    pub max_y: f32,
}

impl InkBounds {
    /// Width in whole pixels (rounded up).
    pub fn width(&self) -> u32 {
        (self.max_x - self.min_x).ceil().max(0.0) as u32
    }

    /// Height in whole pixels (rounded up).
    pub fn height(&self) -> u32 {
        (self.max_y - self.min_y).ceil().max(0.0) as u32
    }
}

fn glyphs<'f>(
    font: &'f FontRef<'static>,
    px: f32,
    text: &str,
) -> impl Iterator<Item = ab_glyph::OutlinedGlyph> + 'f {
    let scale = PxScale::from(px);
    let scaled = font.as_scaled(scale);
    let mut caret = 0.0f32;
    let mut prev: Option<ab_glyph::GlyphId> = None;
    let mut placed = Vec::new();
    for c in text.chars() {
        let id = font.glyph_id(c);
        if let Some(p) = prev {
            caret += scaled.kern(p, id);
        }
        placed.push(id.with_scale_and_position(scale, point(caret, 0.0)));
        caret += scaled.h_advance(id);
        prev = Some(id);
    }
    placed.into_iter().filter_map(|g| font.outline_glyph(g))
}

/// Measures the ink of `text` at `px` pixels; `None` for text without ink
/// (empty or spaces).
pub fn measure(font: &FontRef<'static>, px: f32, text: &str) -> Option<InkBounds> {
    glyphs(font, px, text).fold(None, |acc, g| {
        let b = g.px_bounds();
        Some(match acc {
            None => InkBounds {
                min_x: b.min.x,
                min_y: b.min.y,
                max_x: b.max.x,
                max_y: b.max.y,
            },
            Some(a) => InkBounds {
                min_x: a.min_x.min(b.min.x),
                min_y: a.min_y.min(b.min.y),
                max_x: a.max_x.max(b.max.x),
                max_y: a.max_y.max(b.max.y),
            },
        })
    })
}

/// Draws `text` so that its ink's top-left corner lands at `(x, y)` in `img`,
/// blending `color` by glyph coverage. Pixels outside the image are skipped.
pub fn draw_text(
    img: &mut RgbImage,
    font: &FontRef<'static>,
    px: f32,
    x: i32,
    y: i32,
    text: &str,
    color: Rgb<u8>,
) {
    let Some(ink) = measure(font, px, text) else {
        return;
    };
    let (w, h) = (i64::from(img.width()), i64::from(img.height()));
    for g in glyphs(font, px, text) {
        let b = g.px_bounds();
        let ox = i64::from(x) + (b.min.x - ink.min_x).round() as i64;
        let oy = i64::from(y) + (b.min.y - ink.min_y).round() as i64;
        g.draw(|gx, gy, cov| {
            let (px_, py_) = (ox + i64::from(gx), oy + i64::from(gy));
            if px_ < 0 || py_ < 0 || px_ >= w || py_ >= h {
                return;
            }
            let cov = cov.clamp(0.0, 1.0);
            let dst = img.get_pixel_mut(px_ as u32, py_ as u32);
            for (d, s) in dst.0.iter_mut().zip(color.0) {
                *d = (f32::from(*d) * (1.0 - cov) + f32::from(s) * cov).round() as u8;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn font_loads_and_digits_have_ink() {
        let f = label_font().unwrap();
        let one = measure(&f, 20.0, "1").unwrap();
        let two = measure(&f, 20.0, "12").unwrap();
        assert!(one.height() >= 12 && one.height() <= 20, "{one:?}");
        assert!(two.width() > one.width());
        assert!(measure(&f, 20.0, " ").is_none());
        let mut img = RgbImage::from_pixel(30, 30, Rgb([255, 255, 255]));
        draw_text(&mut img, &f, 20.0, 2, 2, "8", Rgb([0, 0, 0]));
        assert!(img.pixels().any(|p| p.0 == [0, 0, 0]));
        // Drawing partly outside the image is fine.
        draw_text(&mut img, &f, 20.0, -5, 25, "88", Rgb([0, 0, 0]));
    }
}
