//! Composite images: clean|annotated side by side (UFO's `CONCAT_SCREENSHOT`),
//! selected-control overlays (UFO's `action_step{N}_selected_controls.png`) and
//! downscaling for models.

use crate::annotate::{Color, outline};
use crate::screenshot::Screenshot;
use image::RgbImage;
use image::imageops::{self, FilterType};
use ufo_core::{Control, Rect, Screen};

/// Puts `left` and `right` next to each other, `gap` pixels apart, on a
/// `background`-coloured canvas as tall as the taller image (tops aligned).
pub fn concat_horizontal(
    left: &RgbImage,
    right: &RgbImage,
    gap: u32,
    background: Color,
) -> RgbImage {
    let w = left
        .width()
        .saturating_add(gap)
        .saturating_add(right.width());
    let h = left.height().max(right.height());
    let mut out = RgbImage::from_pixel(w, h, background.rgb());
    imageops::replace(&mut out, left, 0, 0);
    imageops::replace(&mut out, right, i64::from(left.width()) + i64::from(gap), 0);
    out
}

/// UFO's concatenation: the clean screenshot on the left, the annotated one on
/// the right, no gap, white where heights differ.
pub fn concat_side_by_side(clean: &RgbImage, annotated: &RgbImage) -> RgbImage {
    concat_horizontal(clean, annotated, 0, Color::WHITE)
}

/// Draws `width`-pixel boxes of `color` around screen rectangles on a copy of
/// the screenshot (rectangles are converted through its frame; parts outside
/// the image are clipped).
pub fn draw_boxes(shot: &Screenshot, rects: &[Rect<Screen>], width: u32, color: Color) -> RgbImage {
    let mut img = shot.image.clone();
    let bounds = shot.bounds();
    for r in rects {
        if let Some(t) = shot.to_image_rect(r).intersection(&bounds) {
            outline(&mut img, &t, width, color.rgb());
        }
    }
    img
}

/// The "selected controls" image: red 3-pixel boxes around the controls whose
/// ids are in `ids` (ids not in `controls` are ignored).
pub fn selected_controls_image(shot: &Screenshot, controls: &[Control], ids: &[u32]) -> RgbImage {
    let rects: Vec<Rect<Screen>> = controls
        .iter()
        .filter(|c| ids.contains(&c.id))
        .map(|c| c.rect)
        .collect();
    draw_boxes(shot, &rects, 3, Color::RED)
}

/// Scales `img` down (never up) so that neither side exceeds `max_side`,
/// keeping the aspect ratio; returns the image and the scale applied (≤ 1).
/// Deterministic (triangle filter).
pub fn downscale_to_fit(img: &RgbImage, max_side: u32) -> (RgbImage, f64) {
    let longest = img.width().max(img.height());
    if max_side == 0 || longest <= max_side {
        return (img.clone(), 1.0);
    }
    let s = f64::from(max_side) / f64::from(longest);
    let w = ((f64::from(img.width()) * s).round() as u32).max(1);
    let h = ((f64::from(img.height()) * s).round() as u32).max(1);
    (imageops::resize(img, w, h, FilterType::Triangle), s)
}

/// [`downscale_to_fit`] for a screenshot, with its frame's scale updated so
/// control rectangles still map onto the smaller image.
pub fn downscale_screenshot(shot: &Screenshot, max_side: u32) -> Screenshot {
    let (image, s) = downscale_to_fit(&shot.image, max_side);
    let mut frame = shot.frame;
    frame.scale *= s;
    Screenshot { image, frame }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;
    use ufo_core::geometry::Frame;
    use ufo_core::ui::Capabilities;
    use ufo_core::{ControlType, ElementHandle, Point};

    fn shot(w: u32, h: u32) -> Screenshot {
        Screenshot {
            image: RgbImage::from_pixel(w, h, Rgb([10, 20, 30])),
            frame: Frame::at(Point::new(100, 100)),
        }
    }

    #[test]
    fn concatenates_side_by_side() {
        let a = RgbImage::from_pixel(10, 20, Rgb([1, 1, 1]));
        let b = RgbImage::from_pixel(5, 8, Rgb([2, 2, 2]));
        let c = concat_side_by_side(&a, &b);
        assert_eq!(c.dimensions(), (15, 20));
        assert_eq!(*c.get_pixel(9, 19), Rgb([1, 1, 1]));
        assert_eq!(*c.get_pixel(10, 0), Rgb([2, 2, 2]));
        assert_eq!(*c.get_pixel(10, 8), Rgb([255, 255, 255]));
        let g = concat_horizontal(&a, &b, 4, Color::BLACK);
        assert_eq!(g.dimensions(), (19, 20));
        assert_eq!(*g.get_pixel(12, 0), Rgb([0, 0, 0]));
    }

    #[test]
    fn selected_controls_get_red_boxes() {
        let s = shot(100, 100);
        let c = |id, x| Control {
            id,
            name: String::new(),
            control_type: ControlType::Button,
            value: None,
            column: None,
            rect: Rect::new(x, 110, 20, 20),
            handle: ElementHandle(String::new()),
            role: String::new(),
            states: ufo_core::States::empty(),
            actions: vec![],
            capabilities: Capabilities::default(),
        };
        let cs = [c(1, 110), c(2, 150), c(3, 500)];
        let img = selected_controls_image(&s, &cs, &[2, 3, 9]);
        // Control 2 sits at image (50,10); its 3-pixel border is red, its
        // centre and control 1 are untouched.
        assert_eq!(*img.get_pixel(50, 10), Rgb([255, 0, 0]));
        assert_eq!(*img.get_pixel(52, 12), Rgb([255, 0, 0]));
        assert_eq!(*img.get_pixel(60, 20), Rgb([10, 20, 30]));
        assert_eq!(*img.get_pixel(10, 10), Rgb([10, 20, 30]));
    }

    #[test]
    fn downscales_and_keeps_frame_consistent() {
        let s = shot(400, 200);
        let d = downscale_screenshot(&s, 100);
        assert_eq!(d.image.dimensions(), (100, 50));
        assert_eq!(
            d.to_image_rect(&Rect::new(140, 120, 40, 20)),
            Rect::new(10, 5, 10, 5)
        );
        let same = downscale_screenshot(&s, 1000);
        assert_eq!(same.image.dimensions(), (400, 200));
        assert_eq!(same.frame, s.frame);
    }
}
