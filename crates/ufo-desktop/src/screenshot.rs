//! A screenshot with the frame that says where its pixels sit on the screen.

use image::RgbImage;
use ufo_core::geometry::Frame;
use ufo_core::{Image, Rect, Screen};

/// An RGB screenshot plus its [`Frame`] (screen origin and scale), so image,
/// window and screen coordinates never mix.
#[derive(Debug, Clone)]
pub struct Screenshot {
    /// The pixels.
    pub image: RgbImage,
    /// Where the image's top-left pixel is on the screen, and its scale.
    pub frame: Frame,
}

impl Screenshot {
    /// Converts a screen rectangle into this image's pixel space.
    pub fn to_image_rect(&self, r: &Rect<Screen>) -> Rect<Image> {
        self.frame.screen_to_image(r)
    }

    /// The image's own bounds.
    pub fn bounds(&self) -> Rect<Image> {
        Rect::new(
            0,
            0,
            i32::try_from(self.image.width()).unwrap_or(i32::MAX),
            i32::try_from(self.image.height()).unwrap_or(i32::MAX),
        )
    }
}
