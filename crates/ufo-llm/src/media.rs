//! Image (and audio/video) references: what a string in `url` or an `image_url` part
//! points at, and how it is turned into something a provider accepts.
//!
//! Resolution rules, in order:
//! 1. `data:<mime>;base64,<data>` — inline data, passed as is.
//! 2. `http://` / `https://` — a remote URL, passed through where the API accepts
//!    URLs; Ollama and Gemini need it downloaded and inlined (see
//!    [`crate::provider`]).
//! 3. `file://…`, an absolute or `./`-relative path, or any existing file — read
//!    and base64-encoded, with the MIME type from the extension (`.jpg` →
//!    `image/jpeg`).
//! 4. Anything else (e.g. `url_to_png1`, an `oss://` URL) — passed through unchanged.
//!
//! A reference whose extension is not an image (`test.mp3` for a vision API), or a
//! local image that cannot be read, is *ignored with a warning*, never an error.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;

/// What kind of media a reference is, by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MediaKind {
    /// png, jpg, jpeg, gif, webp, bmp, tif, tiff, ico.
    Image,
    /// mp3, wav, m4a, flac, ogg, aac, amr.
    Audio,
    /// mp4, mov, avi, mkv, webm.
    Video,
    /// No extension: assumed to be an image where one is expected.
    Unknown,
    /// Some other extension (txt, pdf, …).
    Other,
}

/// A resolved media reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Media {
    /// A URL (or opaque reference) to pass through.
    Url {
        /// The URL as given.
        url: String,
        /// Kind by extension.
        kind: MediaKind,
    },
    /// Inline data.
    Inline {
        /// MIME type, e.g. `image/png`.
        mime: String,
        /// Standard base64, no `data:` prefix.
        data: String,
        /// Kind by MIME type.
        kind: MediaKind,
    },
}

impl Media {
    /// The kind.
    pub(crate) fn kind(&self) -> MediaKind {
        match self {
            Self::Url { kind, .. } | Self::Inline { kind, .. } => *kind,
        }
    }

    /// A URL string: the URL, or a `data:` URI for inline data.
    pub(crate) fn to_url(&self) -> String {
        match self {
            Self::Url { url, .. } => url.clone(),
            Self::Inline { mime, data, .. } => format!("data:{mime};base64,{data}"),
        }
    }
}

/// Whether `s` is an http(s) URL.
pub(crate) fn is_http(s: &str) -> bool {
    let l = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    l.starts_with("http://") || l.starts_with("https://")
}

/// The kind of a file name or URL path by its extension.
pub(crate) fn kind_of(name: &str) -> MediaKind {
    let path = if is_http(name) {
        url::Url::parse(name)
            .map(|u| u.path().to_owned())
            .unwrap_or_else(|_| name.to_owned())
    } else {
        name.to_owned()
    };
    let file = path.rsplit(['/', '\\']).next().unwrap_or(&path);
    let Some((_, ext)) = file.rsplit_once('.') else {
        return MediaKind::Unknown;
    };
    match ext.to_ascii_lowercase().as_str() {
        "png" | "jpg" | "jpeg" | "gif" | "webp" | "bmp" | "tif" | "tiff" | "ico" => {
            MediaKind::Image
        }
        "mp3" | "wav" | "m4a" | "flac" | "ogg" | "aac" | "amr" => MediaKind::Audio,
        "mp4" | "mov" | "avi" | "mkv" | "webm" => MediaKind::Video,
        _ => MediaKind::Other,
    }
}

fn kind_of_mime(mime: &str) -> MediaKind {
    match mime.split('/').next() {
        Some("image") => MediaKind::Image,
        Some("audio") => MediaKind::Audio,
        Some("video") => MediaKind::Video,
        _ => MediaKind::Other,
    }
}

/// The local path a reference names, if it names one.
fn local_path(reference: &str) -> Option<PathBuf> {
    if let Some(rest) = reference.strip_prefix("file://") {
        return Some(PathBuf::from(rest));
    }
    if reference.contains("://") {
        return None;
    }
    let p = Path::new(reference);
    let bytes = reference.as_bytes();
    let windows_drive =
        bytes.len() > 2 && bytes[1] == b':' && (bytes[2] == b'\\' || bytes[2] == b'/');
    if p.is_absolute()
        || reference.starts_with("./")
        || reference.starts_with("../")
        || reference.starts_with("~/")
        || windows_drive
        || p.is_file()
    {
        if let Some(rest) = reference.strip_prefix("~/")
            && let Some(home) = std::env::var_os("HOME")
        {
            return Some(PathBuf::from(home).join(rest));
        }
        return Some(p.to_path_buf());
    }
    None
}

/// Resolves one reference. `Err` is the warning to report when it is ignored.
///
/// `accept` lists the kinds the caller can send; a reference of another kind is
/// ignored. `Unknown` (no extension) is accepted wherever `Image` is.
pub(crate) fn resolve(reference: &str, accept: &[MediaKind]) -> Result<Media, String> {
    let reference = reference.trim();
    let accepts = |k: MediaKind| {
        accept.contains(&k) || (k == MediaKind::Unknown && accept.contains(&MediaKind::Image))
    };
    if let Some(rest) = reference.strip_prefix("data:") {
        let Some((meta, data)) = rest.split_once(',') else {
            return Err(format!(
                "ignored an invalid data URI ({} bytes)",
                reference.len()
            ));
        };
        let mime = meta.trim_end_matches(";base64").to_owned();
        let kind = kind_of_mime(&mime);
        if !meta.ends_with(";base64") || !accepts(kind) {
            return Err(format!("ignored a data URI of type `{meta}`"));
        }
        return Ok(Media::Inline {
            mime,
            data: data.to_owned(),
            kind,
        });
    }
    let kind = kind_of(reference);
    if !accepts(kind) {
        return Err(format!(
            "ignored `{reference}`: not a supported media type here (expected {})",
            accept
                .iter()
                .map(|k| format!("{k:?}").to_ascii_lowercase())
                .collect::<Vec<_>>()
                .join(" or ")
        ));
    }
    if let Some(path) = local_path(reference) {
        let bytes = std::fs::read(&path)
            .map_err(|e| format!("ignored image `{}`: cannot read it ({e})", path.display()))?;
        let mime = mime_guess::from_path(&path)
            .first()
            .map(|m| m.essence_str().to_owned())
            .or_else(|| {
                image::guess_format(&bytes)
                    .ok()
                    .map(|f| f.to_mime_type().to_owned())
            })
            .unwrap_or_else(|| "image/png".to_owned());
        let kind = kind_of_mime(&mime);
        if !accepts(kind) {
            return Err(format!(
                "ignored `{}`: type {mime} not accepted here",
                path.display()
            ));
        }
        return Ok(Media::Inline {
            mime,
            data: B64.encode(bytes),
            kind,
        });
    }
    Ok(Media::Url {
        url: reference.to_owned(),
        kind,
    })
}

/// Resolves many references, collecting the ignored ones as warnings.
pub(crate) fn resolve_all(
    refs: &[String],
    accept: &[MediaKind],
    warnings: &mut Vec<String>,
) -> Vec<Media> {
    let mut out = Vec::new();
    for r in refs {
        match resolve(r, accept) {
            Ok(m) => out.push(m),
            Err(w) => {
                tracing::warn!(target: "ufo_llm", "{w}");
                warnings.push(w);
            }
        }
    }
    out
}

/// Image dimensions of inline base64 data, when the format is known.
pub(crate) fn inline_dimensions(data_b64: &str) -> Option<(u32, u32)> {
    let bytes = B64.decode(data_b64).ok()?;
    image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?
        .into_dimensions()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const IMG: &[MediaKind] = &[MediaKind::Image];

    #[test]
    fn classifies_references() {
        assert_eq!(
            resolve("https://x/a.png", IMG).unwrap(),
            Media::Url {
                url: "https://x/a.png".into(),
                kind: MediaKind::Image
            }
        );
        assert!(resolve("/Users/xxx/test.mp3", IMG).is_err());
        assert!(
            resolve("/definitely/not/here.png", IMG)
                .unwrap_err()
                .contains("cannot read")
        );
        assert_eq!(resolve("url_to_png1", IMG).unwrap().to_url(), "url_to_png1");
        let d = resolve("data:image/png;base64,AAAA", IMG).unwrap();
        assert_eq!(d.to_url(), "data:image/png;base64,AAAA");
        assert_eq!(kind_of("https://h/p.mp3?x=1"), MediaKind::Audio);
    }

    #[test]
    fn local_jpg_is_image_jpeg() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.jpg");
        std::fs::write(&p, b"abcdef").unwrap();
        let m = resolve(p.to_str().unwrap(), IMG).unwrap();
        assert_eq!(m.to_url(), "data:image/jpeg;base64,YWJjZGVm");
    }
}
