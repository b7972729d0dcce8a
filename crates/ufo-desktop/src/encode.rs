//! Image encoding and `data:` URLs (how screenshots travel to models and
//! over the wire): PNG for logs and the wire, and the format and size a model
//! is sent ([`ModelImage`]: PNG, JPEG or WebP, optionally downscaled through
//! the screenshot's frame so that coordinates stay exact).

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
            // Level 1 asks for speed: the fastest encoder gives it (zlib
            // level 1 takes several times longer for a similar size).
            1 => PngCompression::Fast,
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

/// The format a model is sent images in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    /// PNG (lossless; what UFO sends).
    #[default]
    Png,
    /// JPEG at [`ModelImage::quality`] (smallest, fastest to encode).
    Jpeg,
    /// Lossless WebP.
    Webp,
}

impl std::str::FromStr for ImageFormat {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "png" => Ok(ImageFormat::Png),
            "jpeg" | "jpg" => Ok(ImageFormat::Jpeg),
            "webp" => Ok(ImageFormat::Webp),
            other => Err(format!(
                "unknown image format {other:?}; use png, jpeg or webp"
            )),
        }
    }
}

/// How screenshots are prepared for a model: format, JPEG quality, PNG
/// compression and the largest side in pixels (larger images are scaled
/// down; the screenshot's [`Frame`](ufo_core::geometry::Frame) records the
/// scale, so marks and coordinates stay exact).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelImage {
    /// The format.
    pub format: ImageFormat,
    /// JPEG quality, 1–100.
    pub quality: u8,
    /// PNG compression.
    pub png: PngCompression,
    /// Largest width or height sent; `None`: the screenshot's own size.
    pub max_side: Option<u32>,
}

impl Default for ModelImage {
    fn default() -> Self {
        Self {
            format: ImageFormat::Png,
            quality: 85,
            png: PngCompression::Fast,
            max_side: None,
        }
    }
}

/// Encoded image bytes and their media type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// `image/png`, `image/jpeg` or `image/webp`.
    pub mime: &'static str,
    /// The bytes.
    pub bytes: Vec<u8>,
}

impl Encoded {
    /// As a `data:` URL.
    pub fn data_url(&self) -> String {
        data_url(self.mime, &self.bytes)
    }
}

impl ModelImage {
    /// Encodes `img` in this format.
    pub fn encode(&self, img: &RgbImage) -> Result<Encoded> {
        let fail = |what: &str, e: image::ImageError| {
            DesktopError::image_by(format!("{what} encoding failed"), e)
        };
        match self.format {
            ImageFormat::Png => Ok(Encoded {
                mime: "image/png",
                bytes: encode_png(img, self.png)?,
            }),
            ImageFormat::Jpeg => {
                let mut out = Vec::with_capacity(img.as_raw().len() / 10);
                image::codecs::jpeg::JpegEncoder::new_with_quality(
                    &mut out,
                    self.quality.clamp(1, 100),
                )
                .write_image(
                    img.as_raw(),
                    img.width(),
                    img.height(),
                    ExtendedColorType::Rgb8,
                )
                .map_err(|e| fail("JPEG", e))?;
                Ok(Encoded {
                    mime: "image/jpeg",
                    bytes: out,
                })
            }
            ImageFormat::Webp => {
                let mut out = Vec::with_capacity(img.as_raw().len() / 8);
                image::codecs::webp::WebPEncoder::new_lossless(&mut out)
                    .write_image(
                        img.as_raw(),
                        img.width(),
                        img.height(),
                        ExtendedColorType::Rgb8,
                    )
                    .map_err(|e| fail("WebP", e))?;
                Ok(Encoded {
                    mime: "image/webp",
                    bytes: out,
                })
            }
        }
    }

    /// `shot` scaled down to [`ModelImage::max_side`] when it is larger
    /// (its frame's scale says by how much); otherwise unchanged.
    pub fn fit(&self, shot: crate::Screenshot) -> crate::Screenshot {
        let (w, h) = shot.image.dimensions();
        let Some(max) = self.max_side.filter(|&m| m > 0 && w.max(h) > m) else {
            return shot;
        };
        let factor = f64::from(max) / f64::from(w.max(h));
        let nw = ((f64::from(w) * factor).round() as u32).max(1);
        let nh = ((f64::from(h) * factor).round() as u32).max(1);
        let image =
            image::imageops::resize(&shot.image, nw, nh, image::imageops::FilterType::Triangle);
        let mut frame = shot.frame;
        frame.scale *= f64::from(nw) / f64::from(w);
        crate::Screenshot { image, frame }
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
        .map_err(|e| DesktopError::image_by("PNG encoding failed", e))?;
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
    let bad = |why: &str| DesktopError::image(format!("not a base64 data URL: {why}"));
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
        .map_err(|e| DesktopError::image_by("bad base64 in data URL", e))?;
    Ok((mime.to_owned(), bytes))
}

/// Decodes an image (PNG or JPEG) given as a base64 `data:` URL.
pub fn decode_image_data_url(url: &str) -> Result<RgbImage> {
    let (_, bytes) = decode_data_url(url)?;
    image::load_from_memory(&bytes)
        .map(|i| i.to_rgb8())
        .map_err(|e| DesktopError::image_by("cannot decode image", e))
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
