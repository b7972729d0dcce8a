//! `compare_videos` (OSWorld's `vlc.py`, desktop-env 1.0.2): two videos
//! read frame by frame, each pair of frames compared by perceptual hash.
//!
//! OSWorld's reads both with OpenCV's `VideoCapture` (FFmpeg underneath,
//! frames converted to BGR by libswscale, the stream's rotation applied),
//! turns each frame into a Pillow RGB image and hashes it with ImageHash's
//! `phash`. Here `ffmpeg` decodes the first `max_frames_to_check` frames of
//! the first video stream, converted to RGB by the same libswscale with
//! OpenCV's matrix (BT.601: OpenCV leaves libswscale's default even for a
//! stream tagged BT.709) and rotated the same way, as a stream of PPM
//! images (every frame as it is
//! decoded: `-fps_mode passthrough`, no frame repeated or dropped), and
//! each frame is hashed as it arrives (`pdfimages::phash`, Pillow's
//! grey conversion and Lanczos resize), so memory holds one frame.
//!
//! The score, as OSWorld's loop gives it: frames are taken in pairs until
//! `max_frames_to_check`; when either video has no next frame, 1 if both
//! ended together, else 0; a pair whose hashes are more than `threshold`
//! bits apart is a mismatch, and more than `threshold` mismatches is 0;
//! otherwise 1. A file that cannot be opened (missing, not a video) has no
//! frames, as `VideoCapture.read()` then says: two of them score 1.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::pdfimages::phash;
use super::pil::{Mode, Pil};
use super::program::{self, Failure, Tool, file_arg};
use super::{CheckError, Cx, Got};

/// The decoder.
const FFMPEG: Tool = Tool {
    name: "ffmpeg",
    what: "FFmpeg's command-line tool",
    limit: Duration::from_secs(300),
};
/// The largest frame read, in pixels (8K): anything larger is not a frame
/// `ffmpeg` would write.
const MAX_PIXELS: usize = 7680 * 4320;

/// `compare_videos(video_path1, video_path2, max_frames_to_check=100,
/// threshold=5)`.
pub(super) fn compare_videos(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let (Some(first), Some(second)) = (file(cx.result), cx.expected.and_then(file)) else {
        return Ok(0.0);
    };
    let max_frames = count(cx, "max_frames_to_check", 100)?;
    let threshold = count(cx, "threshold", 5)?;
    let a = hashes(cx, &first, max_frames)?;
    let b = hashes(cx, &second, max_frames)?;
    let mut mismatches = 0;
    // Each video has at most `max_frames` hashes: the loop ends when one
    // runs out, long before a huge `max_frames_to_check`.
    for i in 0..usize::try_from(max_frames).unwrap_or(usize::MAX) {
        match (a.get(i), b.get(i)) {
            (Some(x), Some(y)) => {
                if u64::from((x ^ y).count_ones()) > threshold {
                    mismatches += 1;
                    if mismatches > threshold {
                        return Ok(0.0);
                    }
                }
            }
            (None, None) => return Ok(1.0),
            _ => return Ok(0.0),
        }
    }
    Ok(1.0)
}

/// The path a getter's output names (OpenCV opens any string).
fn file(got: &Got) -> Option<std::path::PathBuf> {
    match got {
        Got::File(p) => Some(p.clone()),
        Got::Text(t) => Some(t.into()),
        Got::Json(_) | Got::Missing => None,
    }
}

/// A whole-number option (OSWorld compares ints with them).
fn count(cx: &Cx<'_>, key: &str, default: u64) -> Result<u64, CheckError> {
    match cx.options.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .ok_or_else(|| cx.bad(format!("option {key} must be a whole number, got {v}"))),
    }
}

/// The perceptual hashes of the first `max` frames of the video at
/// `path`; none when `ffmpeg` cannot open it, the frames decoded before
/// an error when it fails part way (as `VideoCapture.read()` stops).
fn hashes(cx: &Cx<'_>, path: &Path, max: u64) -> Result<Vec<u64>, CheckError> {
    if !path.is_file() {
        return Ok(Vec::new());
    }
    let args: Vec<OsString> = ["-nostdin", "-hide_banner", "-v", "error", "-i"]
        .iter()
        .map(OsString::from)
        .chain([file_arg(path)])
        .chain(
            [
                "-map",
                "0:v:0",
                "-fps_mode",
                "passthrough",
                // OpenCV converts with libswscale's default matrix (BT.601)
                // whatever the stream is tagged; ffmpeg would follow the tag.
                "-vf",
                "scale=in_color_matrix=bt601",
                "-frames:v",
                &max.to_string(),
                "-f",
                "image2pipe",
                "-c:v",
                "ppm",
                "-pix_fmt",
                "rgb24",
                "pipe:1",
            ]
            .iter()
            .map(OsString::from),
        )
        .collect();
    match program::run(&FFMPEG, &args, None, None, |_| {}, read_frames) {
        Ok(done) => Ok(done.output),
        Err(Failure::NoTool(why)) => Err(CheckError::MissingTool {
            func: cx.func.to_owned(),
            message: format!("{why}: this checker decodes videos with it (Debian package ffmpeg)"),
        }),
        Err(Failure::Unreadable(why)) => {
            tracing::debug!(file = %path.display(), "compare_videos: {why}");
            Ok(Vec::new())
        }
    }
}

/// Reads `ffmpeg`'s stream of binary PPM frames to the end, hashing each.
fn read_frames(out: &mut dyn Read) -> std::io::Result<Vec<u64>> {
    let mut out = BufReader::new(out);
    let mut hashes = Vec::new();
    while let Some((w, h)) = ppm_header(&mut out)? {
        let mut px = vec![0_u8; w * h * 3];
        out.read_exact(&mut px)?;
        hashes.push(phash(&Pil {
            mode: Mode::Rgb,
            w,
            h,
            px,
            palette: Vec::new(),
            key: None,
        }));
    }
    Ok(hashes)
}

/// A PPM header (`P6`, width, height, 255, one whitespace byte), or `None`
/// at the end of the stream.
fn ppm_header(out: &mut impl BufRead) -> std::io::Result<Option<(usize, usize)>> {
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned());
    let mut fields: Vec<usize> = Vec::new();
    let mut magic = [0_u8; 2];
    match out.read_exact(&mut magic) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    if &magic != b"P6" {
        return Err(bad("ffmpeg wrote something other than a PPM frame"));
    }
    let mut token = String::new();
    while fields.len() < 3 {
        let mut byte = [0_u8; 1];
        out.read_exact(&mut byte)?;
        match byte[0] {
            b if b.is_ascii_digit() && token.len() < 9 => token.push(char::from(b)),
            b if b.is_ascii_whitespace() => {
                if !token.is_empty() {
                    fields.push(token.parse().map_err(|_| bad("a bad PPM header"))?);
                    token.clear();
                }
            }
            _ => return Err(bad("a bad PPM header")),
        }
    }
    let (w, h, max) = (fields[0], fields[1], fields[2]);
    if max != 255 || w == 0 || h == 0 || w.saturating_mul(h) > MAX_PIXELS {
        return Err(bad("a PPM frame of an unexpected size or depth"));
    }
    Ok(Some((w, h)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn frame(w: usize, h: usize, shade: impl Fn(usize, usize) -> u8) -> Vec<u8> {
        let mut bytes = format!("P6\n{w} {h}\n255\n").into_bytes();
        for y in 0..h {
            for x in 0..w {
                let v = shade(x, y);
                bytes.extend([v, v, v]);
            }
        }
        bytes
    }

    #[test]
    fn a_ppm_stream_gives_one_hash_per_frame() {
        let mut stream = frame(40, 30, |x, _| if x < 20 { 0 } else { 255 });
        stream.extend(frame(40, 30, |_, y| if y < 15 { 0 } else { 255 }));
        let hashes = read_frames(&mut stream.as_slice()).unwrap();
        assert_eq!(hashes.len(), 2);
        assert!((hashes[0] ^ hashes[1]).count_ones() > 5);
        assert!(read_frames(&mut &b""[..]).unwrap().is_empty());
    }

    #[test]
    fn a_bad_stream_is_an_error_not_a_panic() {
        assert!(read_frames(&mut &b"P5\n1 1\n255\n\0"[..]).is_err());
        assert!(read_frames(&mut &b"P6\n99999 99999\n255\n"[..]).is_err());
        assert!(read_frames(&mut &b"P6\n2 2\n255\n\0\0"[..]).is_err());
        assert!(read_frames(&mut &b"P6\nx"[..]).is_err());
    }
}
