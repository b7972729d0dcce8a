//! Rectangles and points in typed coordinate spaces.
//!
//! Three spaces exist and must never be mixed silently:
//! - [`Screen`]: pixels of the whole X screen / desktop (origin top-left of the root).
//! - [`Window`]: pixels relative to a top-level window's top-left corner.
//! - [`Image`]: pixels of a screenshot, which may be scaled relative to what it shows.
//!
//! Conversions go through an explicit [`Frame`], which records where a window or an
//! image sits on the screen and at what scale.

use serde::{Deserialize, Serialize};
use std::marker::PhantomData;

/// Marker: coordinates on the whole screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Screen;
/// Marker: coordinates relative to a window's top-left corner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Window;
/// Marker: pixel coordinates inside a screenshot image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Image;

/// An axis-aligned rectangle in coordinate space `S`.
///
/// Serialised as `{"x","y","width","height"}`; the space is a compile-time marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Rect<S> {
    /// Left edge.
    pub x: i32,
    /// Top edge.
    pub y: i32,
    /// Width in pixels (never negative).
    pub width: i32,
    /// Height in pixels (never negative).
    pub height: i32,
    #[serde(skip)]
    space: PhantomData<S>,
}

/// A point in coordinate space `S`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Point<S> {
    /// Horizontal position.
    pub x: i32,
    /// Vertical position.
    pub y: i32,
    #[serde(skip)]
    space: PhantomData<S>,
}

impl<S> Point<S> {
    /// A point at `(x, y)`.
    pub const fn new(x: i32, y: i32) -> Self {
        Self {
            x,
            y,
            space: PhantomData,
        }
    }
}

impl<S> Rect<S> {
    /// A rectangle; negative sizes are clamped to zero.
    pub const fn new(x: i32, y: i32, width: i32, height: i32) -> Self {
        Self {
            x,
            y,
            width: if width < 0 { 0 } else { width },
            height: if height < 0 { 0 } else { height },
            space: PhantomData,
        }
    }

    /// Right edge (exclusive).
    pub const fn right(&self) -> i32 {
        self.x.saturating_add(self.width)
    }

    /// Bottom edge (exclusive).
    pub const fn bottom(&self) -> i32 {
        self.y.saturating_add(self.height)
    }

    /// True when the rectangle has no area.
    pub const fn is_empty(&self) -> bool {
        self.width <= 0 || self.height <= 0
    }

    /// Area in square pixels.
    pub fn area(&self) -> i64 {
        i64::from(self.width.max(0)) * i64::from(self.height.max(0))
    }

    /// The centre point.
    pub const fn center(&self) -> Point<S> {
        Point::new(self.x + self.width / 2, self.y + self.height / 2)
    }

    /// True when `p` lies inside (left/top inclusive, right/bottom exclusive).
    pub const fn contains(&self, p: Point<S>) -> bool {
        p.x >= self.x && p.y >= self.y && p.x < self.right() && p.y < self.bottom()
    }

    /// The overlapping part of two rectangles, if any.
    pub fn intersection(&self, other: &Self) -> Option<Self> {
        let x = self.x.max(other.x);
        let y = self.y.max(other.y);
        let r = self.right().min(other.right());
        let b = self.bottom().min(other.bottom());
        (r > x && b > y).then(|| Self::new(x, y, r - x, b - y))
    }

    /// The smallest rectangle holding both.
    pub fn union(&self, other: &Self) -> Self {
        let x = self.x.min(other.x);
        let y = self.y.min(other.y);
        let r = self.right().max(other.right());
        let b = self.bottom().max(other.bottom());
        Self::new(x, y, r - x, b - y)
    }

    /// Intersection over union, 0.0 when disjoint.
    pub fn iou(&self, other: &Self) -> f64 {
        let inter = self.intersection(other).map_or(0, |r| r.area());
        let union = self.area() + other.area() - inter;
        if union <= 0 {
            0.0
        } else {
            inter as f64 / union as f64
        }
    }

    /// Moves the rectangle by `(dx, dy)`, staying in the same space.
    pub const fn translate(&self, dx: i32, dy: i32) -> Self {
        Self::new(self.x + dx, self.y + dy, self.width, self.height)
    }

    /// Re-labels the rectangle into another space without changing numbers.
    ///
    /// Only for the places that *know* two spaces coincide (e.g. a backend whose
    /// toolkit reports window-relative extents where screen ones were asked for).
    pub const fn assume_space<T>(&self) -> Rect<T> {
        Rect::new(self.x, self.y, self.width, self.height)
    }
}

/// Where a window or a screenshot sits on the screen, and at what scale.
///
/// `scale` is image pixels per screen pixel (1.0 for an unscaled capture).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// Screen position of the frame's top-left corner.
    pub origin: Point<Screen>,
    /// Image pixels per screen pixel.
    pub scale: f64,
}

impl Frame {
    /// An unscaled frame at `origin`.
    pub const fn at(origin: Point<Screen>) -> Self {
        Self { origin, scale: 1.0 }
    }

    /// Screen rectangle → window-relative rectangle.
    pub const fn screen_to_window(&self, r: &Rect<Screen>) -> Rect<Window> {
        Rect::new(r.x - self.origin.x, r.y - self.origin.y, r.width, r.height)
    }

    /// Window-relative rectangle → screen rectangle.
    pub const fn window_to_screen(&self, r: &Rect<Window>) -> Rect<Screen> {
        Rect::new(r.x + self.origin.x, r.y + self.origin.y, r.width, r.height)
    }

    /// Screen rectangle → image pixels (applies origin and scale).
    pub fn screen_to_image(&self, r: &Rect<Screen>) -> Rect<Image> {
        let s = self.scale;
        Rect::new(
            ((r.x - self.origin.x) as f64 * s).round() as i32,
            ((r.y - self.origin.y) as f64 * s).round() as i32,
            (r.width as f64 * s).round() as i32,
            (r.height as f64 * s).round() as i32,
        )
    }

    /// Image pixel → screen point.
    pub fn image_to_screen(&self, p: Point<Image>) -> Point<Screen> {
        let s = if self.scale > 0.0 { self.scale } else { 1.0 };
        Point::new(
            self.origin.x + (p.x as f64 / s).round() as i32,
            self.origin.y + (p.y as f64 / s).round() as i32,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intersection_and_iou() {
        let a: Rect<Screen> = Rect::new(0, 0, 10, 10);
        let b = Rect::new(5, 5, 10, 10);
        assert_eq!(a.intersection(&b), Some(Rect::new(5, 5, 5, 5)));
        assert!((a.iou(&b) - 25.0 / 175.0).abs() < 1e-9);
        assert_eq!(a.intersection(&Rect::new(10, 0, 5, 5)), None);
        assert_eq!(Rect::<Screen>::new(0, 0, -3, 4).width, 0);
    }

    #[test]
    fn frame_round_trips() {
        let f = Frame {
            origin: Point::new(100, 50),
            scale: 0.5,
        };
        let r: Rect<Screen> = Rect::new(120, 70, 40, 20);
        assert_eq!(f.screen_to_image(&r), Rect::new(10, 10, 20, 10));
        assert_eq!(f.image_to_screen(Point::new(10, 10)), Point::new(120, 70));
        let w = f.screen_to_window(&r);
        assert_eq!(w, Rect::new(20, 20, 40, 20));
        assert_eq!(f.window_to_screen(&w), r);
    }

    #[test]
    fn rect_serialises_without_space() {
        let r: Rect<Window> = Rect::new(1, 2, 3, 4);
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"x":1,"y":2,"width":3,"height":4}"#
        );
    }
}
