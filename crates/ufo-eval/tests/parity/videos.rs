//! `compare_videos` (`vlc.py`: OpenCV's frames, ImageHash's `phash`)
//! against ours (`ffmpeg`'s frames): videos made here by `ffmpeg` from its
//! own test sources, in several containers, codecs and pixel formats;
//! equal, re-encoded, flipped, rotated by metadata, shorter, partly
//! different; files that are no video and files that are missing.

use std::path::Path;
use std::process::Command;

use serde_json::json;
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};

/// `ffmpeg` with `args`, writing `out` in `dir`.
fn ffmpeg(dir: &Path, args: &[&str], out: &str) -> Got {
    ufo_testkit::deps::run(
        Command::new("ffmpeg")
            .current_dir(dir)
            .args(["-nostdin", "-v", "error", "-y"])
            .args(args)
            .arg(out),
        "ffmpeg (apt-get install ffmpeg)",
    );
    Got::File(dir.join(out))
}

/// A lavfi test source of `frames` frames at 10 per second, 96×64.
fn source(kind: &str, frames: u32) -> String {
    format!(
        "{kind}=size=96x64:rate=10:duration={}",
        f64::from(frames) / 10.0
    )
}

/// The videos (and non-videos) compared, each with a name.
fn corpus(d: &Path) -> Vec<(&'static str, Got)> {
    let lavfi = |kind: &str, frames: u32, extra: &[&str], out: &str| {
        let src = source(kind, frames);
        let mut args = vec!["-f", "lavfi", "-i", src.as_str()];
        args.extend(extra);
        ffmpeg(d, &args, out)
    };
    let base = lavfi("testsrc", 20, &["-pix_fmt", "yuv420p"], "base.mp4");
    let again = lavfi("testsrc", 20, &["-pix_fmt", "yuv420p"], "again.mp4");
    let rough = lavfi(
        "testsrc",
        20,
        &["-pix_fmt", "yuv420p", "-crf", "45"],
        "rough.mp4",
    );
    let flipped = lavfi(
        "testsrc",
        20,
        &["-vf", "vflip", "-pix_fmt", "yuv420p"],
        "flipped.mp4",
    );
    let turned = lavfi(
        "testsrc",
        20,
        &["-vf", "hflip,vflip", "-pix_fmt", "yuv420p"],
        "turned.mp4",
    );
    let short = lavfi("testsrc", 10, &["-pix_fmt", "yuv420p"], "short.mp4");
    let other = lavfi("smptebars", 20, &["-pix_fmt", "yuv420p"], "other.mp4");
    let webm = lavfi(
        "testsrc",
        20,
        &["-c:v", "libvpx", "-b:v", "1M"],
        "base.webm",
    );
    let avi = lavfi("testsrc", 20, &["-c:v", "mjpeg", "-q:v", "3"], "base.avi");
    let full = lavfi("testsrc", 20, &["-pix_fmt", "yuv444p"], "full.mkv");
    let tagged = lavfi(
        "testsrc",
        20,
        &[
            "-pix_fmt",
            "yuv420p",
            "-colorspace",
            "bt709",
            "-color_primaries",
            "bt709",
            "-color_trc",
            "bt709",
        ],
        "tagged.mp4",
    );
    let mut all = vec![
        ("base", base),
        ("again", again),
        ("rough", rough),
        ("flipped", flipped),
        ("turned", turned),
        ("short", short),
        ("other", other),
        ("webm", webm),
        ("avi", avi),
        ("yuv444 mkv", full),
        ("bt709", tagged),
    ];
    all.extend(edited(d));
    all
}

/// Files made from the base: rotated by metadata, spliced with another
/// picture, cut short; and files that are no video.
fn edited(d: &Path) -> Vec<(&'static str, Got)> {
    // The base upside down by its display matrix only (as a phone films).
    let rotated = ffmpeg(
        d,
        &[
            "-i",
            "base.mp4",
            "-c",
            "copy",
            "-metadata:s:v:0",
            "rotate=180",
        ],
        "rotated.mp4",
    );
    // Frames 0–14 of the base, then 4 or 6 frames of another picture.
    let splice = |n: u32, out: &str| {
        let filter = format!(
            "[0:v]trim=end_frame={}[a];[1:v]trim=end_frame={n}[b];[a][b]concat=n=2:v=1[v]",
            20 - n
        );
        let (a, b) = (source("testsrc", 20), source("smptebars", 20));
        ffmpeg(
            d,
            &[
                "-f",
                "lavfi",
                "-i",
                &a,
                "-f",
                "lavfi",
                "-i",
                &b,
                "-filter_complex",
                &filter,
                "-map",
                "[v]",
                "-pix_fmt",
                "yuv420p",
            ],
            out,
        )
    };
    let spliced4 = splice(4, "spliced4.mp4");
    let spliced6 = splice(6, "spliced6.mp4");
    let audio = ffmpeg(
        d,
        &["-f", "lavfi", "-i", "sine=frequency=440:duration=1"],
        "tone.mp3",
    );
    std::fs::write(d.join("notes.mp4"), "not a video").unwrap();
    let text = Got::File(d.join("notes.mp4"));
    let absent = Got::File(d.join("absent.mp4"));
    let cut = {
        let bytes = std::fs::read(d.join("base.mp4")).unwrap();
        std::fs::write(d.join("cut.mp4"), &bytes[..bytes.len() / 2]).unwrap();
        Got::File(d.join("cut.mp4"))
    };
    vec![
        ("rotated", rotated),
        ("spliced 4", spliced4),
        ("spliced 6", spliced6),
        ("mp3", audio),
        ("text", text),
        ("absent", absent),
        ("cut", cut),
    ]
}

#[test]
fn compare_videos() {
    let dir = tempfile::tempdir().unwrap();
    let videos = corpus(dir.path());
    let mut cases = Vec::new();
    for (a, va) in &videos {
        for (b, vb) in &videos {
            cases.push(Case::new(format!("{a} / {b}"), va.clone(), vb.clone()));
        }
    }
    let named = |name: &str| {
        videos
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    let (base, short, rough) = (named("base"), named("short"), named("rough"));
    let (flipped, spliced4, spliced6) = (named("flipped"), named("spliced 4"), named("spliced 6"));
    for options in [
        json!({"max_frames_to_check": 5}),
        json!({"max_frames_to_check": 0}),
        json!({"threshold": 0}),
        json!({"threshold": 20}),
        json!({"max_frames_to_check": 12, "threshold": 3}),
    ] {
        for (a, b) in [
            (&base, &short),
            (&base, &spliced4),
            (&base, &spliced6),
            (&base, &rough),
            (&base, &flipped),
            (&short, &short),
        ] {
            cases.push(Case::new(format!("{options}"), a.clone(), b.clone()).with(options.clone()));
        }
    }
    compare("vlc", "compare_videos", &cases);
}
