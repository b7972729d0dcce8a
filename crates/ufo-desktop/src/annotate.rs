//! Set-of-marks annotation: a numbered label and an outline per control.
//!
//! [`annotate`] draws, on a copy of a [`Screenshot`], an outline around each
//! control (its [`Control::rect`] converted through the screenshot's frame) and
//! a label box with the control's `id`, coloured by control type as UFO's
//! `ANNOTATION_COLORS`. Label boxes stay inside the image and are moved off
//! each other where possible (see [`place_labels`]). The placed boxes are
//! returned, so callers and tests can check what was drawn where.
//!
//! Output is deterministic: the same screenshot, controls and style always give
//! the same pixels (and, through [`crate::encode`], the same PNG bytes).

use crate::error::{DesktopError, Result};
use crate::font::{draw_text, label_font, measure};
use crate::screenshot::Screenshot;
use image::{Rgb, RgbImage};
use imageproc::drawing::{draw_filled_rect_mut, draw_hollow_rect_mut};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use ufo_core::{Control, ControlType, Image, Rect};

/// An RGB colour, written `"#RRGGBB"` in configs (as UFO's `ANNOTATION_COLORS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Color(pub [u8; 3]);

impl Color {
    /// Black.
    pub const BLACK: Color = Color([0, 0, 0]);
    /// Pure red (selected-control boxes).
    pub const RED: Color = Color([255, 0, 0]);
    /// White.
    pub const WHITE: Color = Color([255, 255, 255]);

    /// The `image` pixel.
    pub fn rgb(self) -> Rgb<u8> {
        Rgb(self.0)
    }

    /// The same hue scaled towards black by `factor` (0 = black, 1 = same).
    pub fn darker(self, factor: f32) -> Color {
        let f = factor.clamp(0.0, 1.0);
        Color(self.0.map(|c| (f32::from(c) * f).round() as u8))
    }
}

impl FromStr for Color {
    type Err = DesktopError;
    fn from_str(s: &str) -> Result<Self> {
        let hex = s.trim().trim_start_matches('#');
        let bad = || DesktopError::image(format!("colour {s:?} is not #RRGGBB"));
        if hex.len() != 6 || !hex.is_ascii() {
            return Err(bad());
        }
        let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2).unwrap_or("zz"), 16);
        match (byte(0), byte(2), byte(4)) {
            (Ok(r), Ok(g), Ok(b)) => Ok(Color([r, g, b])),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [r, g, b] = self.0;
        write!(f, "#{r:02X}{g:02X}{b:02X}")
    }
}

impl Serialize for Color {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Color {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// UFO's default `ANNOTATION_COLORS` (control type → label colour).
pub const UFO_ANNOTATION_COLORS: &[(&str, [u8; 3])] = &[
    ("Button", [0xFF, 0xF6, 0x8F]),
    ("Edit", [0xA5, 0xF0, 0xB5]),
    ("TabItem", [0xA5, 0xE7, 0xF0]),
    ("Document", [0xFF, 0xD1, 0x8A]),
    ("ListItem", [0xD9, 0xC3, 0xFE]),
    ("MenuItem", [0xE7, 0xFE, 0xC3]),
    ("ScrollBar", [0xFE, 0xC3, 0xF8]),
    ("TreeItem", [0xD6, 0xD6, 0xD6]),
    ("Hyperlink", [0x91, 0xFF, 0xEB]),
    ("ComboBox", [0xD8, 0xB6, 0xD4]),
];

/// UFO's `ANNOTATION_FONT_SIZE`, the largest automatic label font size.
pub const UFO_ANNOTATION_FONT_SIZE: f32 = 22.0;

/// How annotations look. Deserialises from config with defaults for missing
/// fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AnnotationStyle {
    /// Label colour per control type name (`"Button"`); default
    /// [`UFO_ANNOTATION_COLORS`].
    pub colors: BTreeMap<String, Color>,
    /// Label colour for types not in `colors` (UFO's `#FFF68F`).
    pub default_color: Color,
    /// Label text and label border colour.
    pub text_color: Color,
    /// Label font size in image pixels; `None` scales with the image (see
    /// [`auto_font_size`]).
    pub font_size: Option<f32>,
    /// Draw an outline around each control (UFO's `HIGHLIGHT_BBOX`).
    pub outline: bool,
    /// Outline thickness in pixels.
    pub outline_width: u32,
    /// Outline colour = label colour darkened by this factor (0..1), so pastel
    /// label colours still show on light windows.
    pub outline_darken: f32,
}

impl Default for AnnotationStyle {
    fn default() -> Self {
        Self {
            colors: UFO_ANNOTATION_COLORS
                .iter()
                .map(|(k, v)| ((*k).to_owned(), Color(*v)))
                .collect(),
            default_color: Color([0xFF, 0xF6, 0x8F]),
            text_color: Color::BLACK,
            font_size: None,
            outline: true,
            outline_width: 2,
            outline_darken: 0.55,
        }
    }
}

impl AnnotationStyle {
    /// The label colour of a control type.
    pub fn color_for(&self, t: &ControlType) -> Color {
        self.colors
            .get(t.as_str())
            .copied()
            .unwrap_or(self.default_color)
    }
}

/// The label font size for an image: a 22nd of its shorter side, between 16
/// and [`UFO_ANNOTATION_FONT_SIZE`] (22) pixels.
pub fn auto_font_size(width: u32, height: u32) -> f32 {
    (width.min(height) as f32 / 22.0)
        .round()
        .clamp(16.0, UFO_ANNOTATION_FONT_SIZE)
}

/// One drawn label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelBox {
    /// The control's id (the number drawn).
    pub id: u32,
    /// The label box, in image pixels (inside the image).
    pub rect: Rect<Image>,
    /// The control's rectangle in image pixels, clipped to the image.
    pub target: Rect<Image>,
}

/// An annotated image and where its labels went.
#[derive(Debug, Clone)]
pub struct Annotated {
    /// The screenshot with outlines and labels.
    pub image: RgbImage,
    /// One entry per drawn control, in the order of the input controls.
    /// Controls outside the image get no label and no entry.
    pub labels: Vec<LabelBox>,
}

/// A control to label: the control, its clipped image rectangle, the label
/// text and the label box size.
type Item<'a> = (&'a Control, Rect<Image>, String, (i32, i32));

/// Draws set-of-marks annotations for `controls` on a copy of `shot`.
///
/// Fails only if the bundled font cannot be parsed (it always can).
pub fn annotate(
    shot: &Screenshot,
    controls: &[Control],
    style: &AnnotationStyle,
) -> Result<Annotated> {
    let font = label_font()?;
    let mut img = shot.image.clone();
    let bounds = shot.bounds();
    let px = style
        .font_size
        .filter(|s| s.is_finite() && *s > 0.0)
        .unwrap_or_else(|| auto_font_size(img.width(), img.height()));
    let pad = (px / 6.0).round().max(1.0) as i32;

    // Controls visible in the image, with their label text and label size.
    let mut items: Vec<Item<'_>> = Vec::new();
    for c in controls {
        let Some(target) = shot.to_image_rect(&c.rect).intersection(&bounds) else {
            continue;
        };
        let text = c.id.to_string();
        let (w, h) = measure(&font, px, &text)
            .map(|ink| (ink.width() as i32, ink.height() as i32))
            .unwrap_or((0, 0));
        items.push((c, target, text, (w + 2 * pad, h + 2 * pad)));
    }

    let targets: Vec<Rect<Image>> = items.iter().map(|i| i.1).collect();
    let sizes: Vec<(i32, i32)> = items.iter().map(|i| i.3).collect();
    let placed = place_labels(bounds, &targets, &sizes, Some(&shot.image));

    if style.outline && style.outline_width > 0 {
        for (c, t, _, _) in &items {
            let color = style
                .color_for(&c.control_type)
                .darker(style.outline_darken)
                .rgb();
            outline(&mut img, t, style.outline_width, color);
        }
    }
    let mut labels = Vec::with_capacity(items.len());
    for ((c, target, text, _), rect) in items.iter().zip(&placed) {
        if let Some(r) = to_imageproc(rect) {
            draw_filled_rect_mut(&mut img, r, style.color_for(&c.control_type).rgb());
            draw_hollow_rect_mut(&mut img, r, style.text_color.rgb());
        }
        draw_text(
            &mut img,
            &font,
            px,
            rect.x + pad,
            rect.y + pad,
            text,
            style.text_color.rgb(),
        );
        labels.push(LabelBox {
            id: c.id,
            rect: *rect,
            target: *target,
        });
    }
    Ok(Annotated { image: img, labels })
}

/// Draws a rectangle outline `width` pixels thick, inside `r`.
pub(crate) fn outline(img: &mut RgbImage, r: &Rect<Image>, width: u32, color: Rgb<u8>) {
    let w = i32::try_from(width).unwrap_or(i32::MAX);
    for k in 0..w.min(r.width / 2).min(r.height / 2).max(1) {
        let inner = Rect::<Image>::new(r.x + k, r.y + k, r.width - 2 * k, r.height - 2 * k);
        if let Some(ir) = to_imageproc(&inner) {
            draw_hollow_rect_mut(img, ir, color);
        }
    }
}

fn to_imageproc(r: &Rect<Image>) -> Option<imageproc::rect::Rect> {
    let w = u32::try_from(r.width).ok().filter(|w| *w > 0)?;
    let h = u32::try_from(r.height).ok().filter(|h| *h > 0)?;
    Some(imageproc::rect::Rect::at(r.x, r.y).of_size(w, h))
}

/// Chooses a box for each label.
///
/// `targets[i]` is control *i*'s rectangle and `sizes[i]` its label's
/// `(width, height)`. Labels are placed greedily in input order. Candidate
/// positions, in order of preference: inside top-left (UFO's position),
/// outside above-left, outside left, inside top-right, outside above-right,
/// outside right, inside bottom-left, outside below-left, inside bottom-right,
/// outside below-right. Each candidate is shifted to lie inside `bounds`; the
/// cheapest wins, where cost is 100× the area overlapping labels already placed
/// plus 1× the area covering other controls (except controls that contain this
/// one, such as a group around it), plus, with the screenshot given, the
/// pixels of what is drawn there ([`ink`]: a label over a control's first
/// letters hides what a person reads it by; an empty corner is free), plus a
/// quarter of the label's area for a place outside the control (a label
/// outside sits nearer a neighbour, and may be read as the neighbour's).
/// Ties go to the earlier candidate.
///
/// Every returned box lies inside `bounds` when the label fits in it at all.
pub fn place_labels(
    bounds: Rect<Image>,
    targets: &[Rect<Image>],
    sizes: &[(i32, i32)],
    image: Option<&RgbImage>,
) -> Vec<Rect<Image>> {
    let mut placed: Vec<Rect<Image>> = Vec::with_capacity(targets.len());
    for (i, (t, &(w, h))) in targets.iter().zip(sizes).enumerate() {
        let (l, tp, r, b) = (t.x, t.y, t.right(), t.bottom());
        // (x, y, inside the control)
        let candidates = [
            (l, tp, true),
            (l, tp - h, false),
            (l - w, tp, false),
            (r - w, tp, true),
            (r - w, tp - h, false),
            (r, tp, false),
            (l, b - h, true),
            (l, b, false),
            (r - w, b - h, true),
            (r - w, b, false),
        ];
        let outside_cost = i64::from(w) * i64::from(h) / 4;
        let mut best: Option<(i64, Rect<Image>)> = None;
        for (x, y, inside) in candidates {
            let cand = clamp_into(Rect::new(x, y, w, h), &bounds);
            let mut cost = if inside { 0 } else { outside_cost };
            for p in &placed {
                cost += 100 * overlap(&cand, p);
            }
            for (j, other) in targets.iter().enumerate() {
                if j != i && !contains(other, t) {
                    cost += overlap(&cand, other);
                }
            }
            if let Some(img) = image {
                cost += ink(img, &cand);
            }
            if best.as_ref().is_none_or(|(c, _)| cost < *c) {
                best = Some((cost, cand));
            }
            if cost == 0 {
                break;
            }
        }
        let chosen = best.map_or_else(|| clamp_into(Rect::new(l, tp, w, h), &bounds), |(_, r)| r);
        placed.push(chosen);
    }
    placed
}

/// How much is drawn in `r` of `img`: the pixels whose brightness is far
/// (more than a quarter of the range) from the area's mean — the strokes of
/// text and icons; a flat background or a gentle gradient counts nothing.
pub fn ink(img: &RgbImage, r: &Rect<Image>) -> i64 {
    let (iw, ih) = (img.width() as i32, img.height() as i32);
    let (x0, y0) = (r.x.max(0), r.y.max(0));
    let (x1, y1) = (r.right().min(iw), r.bottom().min(ih));
    if x0 >= x1 || y0 >= y1 {
        return 0;
    }
    let luma = |x: i32, y: i32| {
        let [red, g, b] = img.get_pixel(x as u32, y as u32).0;
        (299 * i64::from(red) + 587 * i64::from(g) + 114 * i64::from(b)) / 1000
    };
    let n = i64::from((x1 - x0) * (y1 - y0));
    let mut sum = 0;
    for y in y0..y1 {
        for x in x0..x1 {
            sum += luma(x, y);
        }
    }
    let mean = sum / n;
    let mut far = 0;
    for y in y0..y1 {
        for x in x0..x1 {
            if (luma(x, y) - mean).abs() > 64 {
                far += 1;
            }
        }
    }
    far
}

fn overlap(a: &Rect<Image>, b: &Rect<Image>) -> i64 {
    a.intersection(b).map_or(0, |r| r.area())
}

fn contains(outer: &Rect<Image>, inner: &Rect<Image>) -> bool {
    outer.x <= inner.x
        && outer.y <= inner.y
        && outer.right() >= inner.right()
        && outer.bottom() >= inner.bottom()
}

/// Shifts `r` to lie inside `bounds`; if it is larger, it is cut to `bounds`.
fn clamp_into(r: Rect<Image>, bounds: &Rect<Image>) -> Rect<Image> {
    let w = r.width.min(bounds.width);
    let h = r.height.min(bounds.height);
    let x = r.x.clamp(bounds.x, bounds.right() - w);
    let y = r.y.clamp(bounds.y, bounds.bottom() - h);
    Rect::new(x, y, w, h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{PngCompression, encode_png};
    use ufo_core::geometry::Frame;
    use ufo_core::ui::Capabilities;
    use ufo_core::{ElementHandle, Point, Screen};

    fn control(id: u32, ty: ControlType, x: i32, y: i32, w: i32, h: i32) -> Control {
        Control {
            id,
            name: format!("c{id}"),
            control_type: ty,
            value: None,
            column: None,
            rect: Rect::<Screen>::new(x, y, w, h),
            handle: ElementHandle(format!("h{id}")),
            role: String::new(),
            states: ufo_core::States::empty(),
            actions: vec![],
            capabilities: Capabilities::default(),
        }
    }

    fn shot(w: u32, h: u32, origin: (i32, i32), scale: f64) -> Screenshot {
        Screenshot {
            image: RgbImage::from_fn(w, h, |x, y| {
                Rgb([200 + (x % 50) as u8, 210, 220 + (y % 30) as u8])
            }),
            frame: Frame {
                origin: Point::new(origin.0, origin.1),
                scale,
            },
        }
    }

    /// A calculator-like grid: 4×5 buttons, a display and a group around all.
    fn grid(origin: (i32, i32)) -> Vec<Control> {
        let (ox, oy) = origin;
        let mut cs = vec![
            control(1, ControlType::Group, ox, oy + 40, 300, 260),
            control(2, ControlType::Edit, ox + 5, oy + 5, 290, 30),
        ];
        for row in 0..5 {
            for col in 0..4 {
                let id = 3 + row * 4 + col;
                cs.push(control(
                    id as u32,
                    ControlType::Button,
                    ox + 5 + col * 74,
                    oy + 45 + row * 50,
                    70,
                    45,
                ));
            }
        }
        // One control partly outside the window and one entirely outside.
        cs.push(control(
            23,
            ControlType::MenuItem,
            ox + 280,
            oy + 290,
            60,
            30,
        ));
        cs.push(control(24, ControlType::Button, ox + 1000, oy, 10, 10));
        cs
    }

    #[test]
    fn labels_lie_inside_and_map_to_ids() {
        for (w, h, origin, scale) in [
            (300, 300, (100, 50), 1.0),
            (150, 150, (0, 0), 0.5),
            (600, 600, (10, 10), 2.0),
        ] {
            let s = shot(w, h, origin, scale);
            let cs = grid(origin);
            let a = annotate(&s, &cs, &AnnotationStyle::default()).unwrap();
            let ids: Vec<u32> = a.labels.iter().map(|l| l.id).collect();
            assert_eq!(ids, (1..=23).collect::<Vec<_>>(), "scale {scale}");
            let b = s.bounds();
            for l in &a.labels {
                assert_eq!(
                    l.rect.intersection(&b),
                    Some(l.rect),
                    "label {} outside",
                    l.id
                );
                assert!(l.rect.width > 0 && l.rect.height > 0);
                let c = cs.iter().find(|c| c.id == l.id).unwrap();
                assert_eq!(Some(l.target), s.to_image_rect(&c.rect).intersection(&b));
            }
            // Button labels never overlap each other in the grid.
            for x in &a.labels {
                for y in &a.labels {
                    if x.id < y.id && x.id >= 3 && y.id <= 22 {
                        assert_eq!(x.rect.intersection(&y.rect), None, "{} vs {}", x.id, y.id);
                    }
                }
            }
            assert_ne!(a.image, s.image);
        }
    }

    #[test]
    fn crowded_labels_move_apart() {
        let b = Rect::<Image>::new(0, 0, 200, 200);
        // Three identical targets: the same spot would be picked without
        // overlap avoidance.
        let t = Rect::new(50, 50, 40, 40);
        let placed = place_labels(b, &[t, t, t], &[(20, 20); 3], None);
        assert_eq!(placed[0], Rect::new(50, 50, 20, 20));
        // The other corners inside come before places outside.
        assert_eq!(placed[1], Rect::new(70, 50, 20, 20));
        assert_eq!(placed[2], Rect::new(50, 70, 20, 20));
        // A target in the corner: outside positions are clamped back in.
        let placed = place_labels(b, &[Rect::new(0, 0, 10, 10)], &[(30, 30)], None);
        assert_eq!(placed[0], Rect::new(0, 0, 30, 30));
        // A label larger than the image is cut to it.
        let placed = place_labels(
            Rect::new(0, 0, 10, 10),
            &[Rect::new(0, 0, 5, 5)],
            &[(30, 30)],
            None,
        );
        assert_eq!(placed[0], Rect::new(0, 0, 10, 10));
    }

    #[test]
    fn a_label_keeps_off_the_text_it_would_hide() {
        // A white screen; a list row whose text starts at its left edge.
        let mut img = RgbImage::from_pixel(200, 100, Rgb([255, 255, 255]));
        draw_filled_rect_mut(
            &mut img,
            imageproc::rect::Rect::at(12, 14).of_size(40, 12),
            Rgb([20, 20, 20]),
        );
        let b = Rect::<Image>::new(0, 0, 200, 100);
        let row = Rect::new(10, 10, 120, 30);
        // Without the screenshot: UFO's place, over the text.
        assert_eq!(
            place_labels(b, &[row], &[(16, 16)], None)[0],
            Rect::new(10, 10, 16, 16)
        );
        // With it: the empty corner inside the row, not a place outside it.
        let placed = place_labels(b, &[row], &[(16, 16)], Some(&img))[0];
        assert_eq!(placed, Rect::new(114, 10, 16, 16));
        assert_eq!(ink(&img, &placed), 0);
        assert!(ink(&img, &Rect::new(10, 10, 16, 16)) > 0);
        // Something drawn in every corner and room above: the label goes
        // outside, just above the row.
        let mut img = RgbImage::from_pixel(200, 100, Rgb([255, 255, 255]));
        for (x, y) in [(12, 32), (116, 32), (12, 46), (116, 46)] {
            draw_filled_rect_mut(
                &mut img,
                imageproc::rect::Rect::at(x, y).of_size(10, 10),
                Rgb([20, 20, 20]),
            );
        }
        let row = Rect::new(10, 30, 120, 30);
        let placed = place_labels(b, &[row], &[(16, 16)], Some(&img))[0];
        assert_eq!(placed, Rect::new(10, 14, 16, 16));
    }

    #[test]
    fn deterministic_png() {
        let s = shot(300, 300, (100, 50), 1.0);
        let cs = grid((100, 50));
        let style = AnnotationStyle::default();
        let a = encode_png(
            &annotate(&s, &cs, &style).unwrap().image,
            PngCompression::Fast,
        )
        .unwrap();
        let b = encode_png(
            &annotate(&s, &cs, &style).unwrap().image,
            PngCompression::Fast,
        )
        .unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn style_and_colours() {
        assert_eq!(auto_font_size(300, 2000), 16.0);
        assert_eq!(auto_font_size(400, 400), 18.0);
        assert_eq!(auto_font_size(1920, 1080), 22.0);
        let c: Color = "#A5f0B5".parse().unwrap();
        assert_eq!(c, Color([0xA5, 0xF0, 0xB5]));
        assert_eq!(c.to_string(), "#A5F0B5");
        for bad in ["#12345", "zzzzzz", "#1234567", "#ééé"] {
            assert!(bad.parse::<Color>().is_err(), "{bad}");
        }
        let style: AnnotationStyle =
            serde_json::from_str(r##"{"colors":{"Button":"#000001"},"font_size":18}"##).unwrap();
        assert_eq!(style.color_for(&ControlType::Button), Color([0, 0, 1]));
        assert_eq!(style.color_for(&ControlType::Slider), style.default_color);
        assert_eq!(style.font_size, Some(18.0));
        assert_eq!(
            AnnotationStyle::default().color_for(&ControlType::Edit),
            Color([0xA5, 0xF0, 0xB5])
        );
        // Label pixels use the type colour.
        let s = shot(200, 200, (0, 0), 1.0);
        let a = annotate(
            &s,
            &[control(1, ControlType::Edit, 20, 20, 100, 40)],
            &AnnotationStyle::default(),
        )
        .unwrap();
        let l = &a.labels[0];
        assert_eq!(
            *a.image
                .get_pixel((l.rect.x + 1) as u32, (l.rect.y + 1) as u32),
            Rgb([0xA5, 0xF0, 0xB5])
        );
    }
}
