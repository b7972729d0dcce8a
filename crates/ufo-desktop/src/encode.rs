//! PNG encoding and `data:` URLs (how screenshots travel to models and over the
//! wire).

use crate::error::{DesktopError, Result};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ExtendedColorType, ImageEncoder, RgbImage};
use serde::{Deserialize, Serialize};

/// How hard to compress a PNG. Encoding is deterministic for every level:
/// the same image always gives the same bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PngCompression {
    /// Fastest (about 2 ms for a 1280×1024 screen, ~2× larger files); what
    /// UFO's `DEFAULT_PNG_COMPRESS_LEVEL: 1` aims at.
    #[default]
    Fast,
    /// Balanced (about 10 ms for a screen).
    Default,
    /// Smallest files, slowest.
    Best,
    /// No compression.
    None,
    /// A zlib level 1–9, as UFO's `DEFAULT_PNG_COMPRESS_LEVEL`.
    Level(u8),
}

impl PngCompression {
    /// From UFO's `DEFAULT_PNG_COMPRESS_LEVEL` (PIL's 0–9; larger values are
    /// treated as 9).
    pub fn from_ufo_level(level: u8) -> Self {
        match level {
            0 => PngCompression::None,
            n => PngCompression::Level(n.min(9)),
        }
    }

    fn to_image(self) -> CompressionType {
        match self {
            PngCompression::Fast => CompressionType::Fast,
            PngCompression::Default => CompressionType::Default,
            PngCompression::Best => CompressionType::Best,
            PngCompression::None => CompressionType::Uncompressed,
            PngCompression::Level(0) => CompressionType::Uncompressed,
            PngCompression::Level(n) => CompressionType::Level(n.min(9)),
        }
    }
}

/// Encodes an RGB image as PNG.
pub fn encode_png(img: &RgbImage, compression: PngCompression) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(img.as_raw().len() / 4);
    PngEncoder::new_with_quality(&mut out, compression.to_image(), FilterType::Adaptive)
        .write_image(
            img.as_raw(),
            img.width(),
            img.height(),
            ExtendedColorType::Rgb8,
        )
        .map_err(|e| DesktopError::Image(format!("PNG encoding failed: {e}")))?;
    Ok(out)
}

/// `data:<mime>;base64,<bytes>`.
pub fn data_url(mime: &str, bytes: &[u8]) -> String {
    let mut s = format!("data:{mime};base64,");
    STANDARD.encode_string(bytes, &mut s);
    s
}

/// Encodes `img` as PNG and wraps it in a `data:image/png;base64,...` URL.
pub fn png_data_url(img: &RgbImage, compression: PngCompression) -> Result<String> {
    Ok(data_url("image/png", &encode_png(img, compression)?))
}

/// Splits a base64 `data:` URL into its MIME type and decoded bytes.
pub fn decode_data_url(url: &str) -> Result<(String, Vec<u8>)> {
    let bad = |why: &str| DesktopError::Image(format!("not a base64 data URL: {why}"));
    let rest = url
        .trim()
        .strip_prefix("data:")
        .ok_or_else(|| bad("missing 'data:'"))?;
    let (meta, payload) = rest.split_once(',').ok_or_else(|| bad("missing ','"))?;
    let mime = meta
        .strip_suffix(";base64")
        .ok_or_else(|| bad("not ';base64'"))?;
    let bytes = STANDARD
        .decode(payload.trim())
        .map_err(|e| DesktopError::Image(format!("bad base64 in data URL: {e}")))?;
    Ok((mime.to_owned(), bytes))
}

/// Decodes an image (PNG or JPEG) given as a base64 `data:` URL.
pub fn decode_image_data_url(url: &str) -> Result<RgbImage> {
    let (_, bytes) = decode_data_url(url)?;
    image::load_from_memory(&bytes)
        .map(|i| i.to_rgb8())
        .map_err(|e| DesktopError::Image(format!("cannot decode image: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    fn sample() -> RgbImage {
        RgbImage::from_fn(64, 48, |x, y| {
            Rgb([(x * 4) as u8, (y * 5) as u8, ((x + y) % 7) as u8])
        })
    }

    #[test]
    fn round_trips_at_every_level_deterministically() {
        let img = sample();
        for c in [
            PngCompression::Fast,
            PngCompression::Default,
            PngCompression::Best,
            PngCompression::None,
            PngCompression::from_ufo_level(1),
            PngCompression::from_ufo_level(12),
        ] {
            let a = encode_png(&img, c).unwrap();
            assert_eq!(a, encode_png(&img, c).unwrap(), "{c:?}");
            assert_eq!(&a[..8], b"\x89PNG\r\n\x1a\n");
            let url = png_data_url(&img, c).unwrap();
            assert!(url.starts_with("data:image/png;base64,iVBORw0KGgo"));
            assert_eq!(decode_image_data_url(&url).unwrap(), img, "{c:?}");
        }
    }

    #[test]
    fn rejects_bad_data_urls() {
        for bad in [
            "",
            "http://x",
            "data:image/png,abc",
            "data:image/png;base64",
            "data:image/png;base64,@@",
        ] {
            assert!(decode_data_url(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            decode_data_url("data:text/plain;base64,aGk=").unwrap(),
            ("text/plain".to_owned(), b"hi".to_vec())
        );
        assert!(decode_image_data_url("data:image/png;base64,aGk=").is_err());
    }

    #[test]
    fn serde_names() {
        assert_eq!(
            serde_json::to_string(&PngCompression::Fast).unwrap(),
            "\"fast\""
        );
        let l: PngCompression = serde_json::from_str(r#"{"level":3}"#).unwrap();
        assert_eq!(l, PngCompression::Level(3));
    }
}
