//! The PNGs of a step's observation that the log keeps.

use crate::step::StepImages;
use ufo_desktop::encode::{PngCompression, encode_png};
use ufo_desktop::observe::ModelImages;

/// Encodes a step's log images as PNG on a blocking thread: the clean and
/// annotated screenshots (reused as they are when the model was sent PNG)
/// and, when asked, the side-by-side concatenation.
pub(super) fn log_pngs(
    mi: &ModelImages,
    concat: Option<(image::RgbImage, Option<ufo_desktop::encode::Encoded>)>,
    png: PngCompression,
) -> tokio::task::JoinHandle<StepImages> {
    let as_png =
        |e: &ufo_desktop::encode::Encoded| (e.mime == "image/png").then(|| e.bytes.clone());
    let clean = as_png(&mi.clean).ok_or_else(|| mi.shot.image.clone());
    let annotated = as_png(&mi.marked).ok_or_else(|| mi.annotated.image.clone());
    let concat = concat.map(|(img, enc)| enc.as_ref().and_then(as_png).ok_or(img));
    tokio::task::spawn_blocking(move || {
        let done = |x: Result<Vec<u8>, image::RgbImage>| match x {
            Ok(bytes) => Some(bytes),
            Err(img) => encode_png(&img, png).ok(),
        };
        StepImages {
            clean: done(clean),
            annotated: done(annotated),
            concat: concat.and_then(done),
            selected: None,
        }
    })
}
