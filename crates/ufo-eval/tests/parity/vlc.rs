//! VLC checkers (`vlc.py`): `vlcrc` settings written here (set, commented
//! out, repeated, spaced, CRLF, not UTF-8, missing) against rules of every
//! type, VLC web status XML, window and screen sizes.

use std::path::Path;

use serde_json::{Value, json};
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};

fn write(dir: &Path, name: &str, content: &[u8]) -> Got {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    Got::File(p)
}

/// `vlcrc` variants, as files.
fn configs(dir: &Path) -> Vec<(String, Got)> {
    let texts: &[&[u8]] = &[
        b"",
        b"# VLC media player preferences\n\n[qt]\n#qt-bgcone=1\n#qt-max-volume=125\n#qt-minimal-view=0\n#qt-slider-colours=153;210;153;20;210;20;255;199;15;245;39;29\n[core]\n#one-instance-when-started-from-file=1\n#global-key-play-pause=\n#input-record-path=\n",
        b"[qt]\nqt-bgcone=0\nqt-max-volume=200\nqt-minimal-view=1\nqt-slider-colours=0;0;0;10;10;10;20;20;20;30;30;30\n[core]\none-instance-when-started-from-file=0\nglobal-key-play-pause=Space\ninput-record-path=/home/user/Desktop\n",
        b"qt-bgcone = 0 \r\nqt-max-volume= 125\r\nqt-minimal-view=1\r\nglobal-key-play-pause=  \r\ninput-record-path = /home/user/Desktop \r\n",
        b"qt-bgcone=0\n#qt-bgcone=1\nqt-max-volume=300\nqt-max-volume=150\nqt-slider-colours=0;0;0;10;200;10\n# input-record-path=/tmp\ninput-record-path=/home/user/Videos\ninput-record-path=/home/user/Desktop\n",
        b"qt-slider-colours=a;b;c\nqt-bgcone=x=1\nglobal-key-play-pause=Ctrl+Space\none-instance-when-started-from-file=true\n",
        b"qt-slider-colours= 1 ; 2 ;3;4\nqt-minimal-view\nqt-max-volume=\n",
        b"qt-slider-colours=1_0;+5;-3;99;99;99\n   \ninput-record-path\n",
        b"qt-slider-colours=\n",
        b"qt-slider-colours=0;0;0;\n",
        b"qt-slider-colours=50;60;70;80;90;99;100;0;0\n",
        b"\xff\xfeqt-bgcone=0\n",
    ];
    let mut out: Vec<(String, Got)> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("vlcrc {i}"), write(dir, &format!("vlcrc{i}"), t)))
        .collect();
    out.push(("absent".into(), Got::File(dir.join("absent"))));
    out
}

/// Every config against every rule of `key`.
fn setting_cases(dir: &Path, key: &str, values: &[Value]) -> Vec<Case> {
    let mut cases = Vec::new();
    for (name, file) in configs(dir) {
        for v in values {
            cases.push(Case::new(
                format!("{name} {key}={v}"),
                file.clone(),
                Got::Json(json!({ key: v })),
            ));
        }
        cases.push(Case::new(
            format!("{name} without {key}"),
            file.clone(),
            Got::Json(json!({"other": 1})),
        ));
    }
    cases
}

#[test]
fn check_qt_bgcone() {
    let dir = tempfile::tempdir().unwrap();
    let values = [
        json!("1"),
        json!(0),
        json!("0"),
        json!(1),
        json!(1.0),
        json!(true),
        json!("x=1"),
    ];
    let cases = setting_cases(dir.path(), "expected_qt_bgcone", &values);
    compare("vlc", "check_qt_bgcone", &cases);
}

#[test]
fn check_qt_max_volume() {
    let dir = tempfile::tempdir().unwrap();
    let values = [
        json!("125"),
        json!(125),
        json!(200),
        json!("150"),
        json!(""),
        json!(null),
    ];
    let cases = setting_cases(dir.path(), "expected_qt_max_volume", &values);
    compare("vlc", "check_qt_max_volume", &cases);
}

#[test]
fn check_qt_minimal_view() {
    let dir = tempfile::tempdir().unwrap();
    let values = [
        json!("0"),
        json!(1),
        json!("1"),
        json!(false),
        json!("qt-minimal-view"),
    ];
    let cases = setting_cases(dir.path(), "expected_qt_minimal_view", &values);
    compare("vlc", "check_qt_minimal_view", &cases);
}

#[test]
fn check_one_instance_when_started_from_file() {
    let dir = tempfile::tempdir().unwrap();
    let values = [json!("1"), json!(0), json!("0"), json!("true"), json!(true)];
    let key = "expected_one_instance_when_started_from_file";
    let cases = setting_cases(dir.path(), key, &values);
    compare("vlc", "check_one_instance_when_started_from_file", &cases);
}

#[test]
fn check_global_key_play_pause() {
    let dir = tempfile::tempdir().unwrap();
    let values = [json!("0"), json!(1), json!("1"), json!(0), json!("Space")];
    let cases = setting_cases(dir.path(), "expected_global_key_play_pause", &values);
    compare("vlc", "check_global_key_play_pause", &cases);
}

#[test]
fn check_qt_slider_colours() {
    let dir = tempfile::tempdir().unwrap();
    let rules = [
        json!({"type": "blackish"}),
        json!({"type": "match", "expected_qt_slider_colours": "0;0;0;10;10;10;20;20;20;30;30;30"}),
        json!({"type": "match", "expected_qt_slider_colours": "153;210;153;20;210;20;255;199;15;245;39;29"}),
        json!({"type": "match"}),
        json!({"type": "match", "expected_qt_slider_colours": 0}),
        json!({"type": "other"}),
        json!({}),
    ];
    let mut cases = Vec::new();
    for (name, file) in configs(dir.path()) {
        for r in &rules {
            cases.push(Case::new(
                format!("{name} {r}"),
                file.clone(),
                Got::Json(r.clone()),
            ));
        }
    }
    compare("vlc", "check_qt_slider_colours", &cases);
}

#[test]
fn is_vlc_recordings_folder() {
    let dir = tempfile::tempdir().unwrap();
    let values = [
        json!("/home/user/Desktop"),
        json!("/home/user/Videos"),
        json!(""),
        json!("/tmp"),
        json!(1),
    ];
    let cases = setting_cases(dir.path(), "recording_file_path", &values);
    compare("vlc", "is_vlc_recordings_folder", &cases);
}

#[test]
fn is_vlc_fullscreen() {
    let sizes = [
        json!({"width": 1920, "height": 1080}),
        json!({"width": 1920.0, "height": 1080}),
        json!({"width": 1920, "height": 1000}),
        json!({"width": 800, "height": 1080}),
        json!({"width": 1920, "height": 1080, "x": 0}),
        json!({"width": "1920", "height": "1080"}),
        json!({"height": 1080}),
        json!([1920, 1080]),
    ];
    let mut cases = Vec::new();
    for a in &sizes {
        for b in &sizes[..4] {
            cases.push(Case::new(
                format!("{a} on {b}"),
                Got::Json(a.clone()),
                Got::Json(b.clone()),
            ));
        }
    }
    cases.push(Case::new(
        "no window",
        Got::Missing,
        Got::Json(sizes[0].clone()),
    ));
    compare("vlc", "is_vlc_fullscreen", &cases);
}

/// A VLC web-interface status with `state` and meta `info` entries.
fn status(state: Option<&str>, infos: &[(&str, &str, &str)]) -> String {
    let mut cats: Vec<(&str, String)> = Vec::new();
    for (cat, name, text) in infos {
        let item = format!("<info name='{name}'>{text}</info>");
        match cats.iter_mut().find(|(c, _)| c == cat) {
            Some((_, body)) => body.push_str(&item),
            None => cats.push((cat, item)),
        }
    }
    let cats: String = cats
        .iter()
        .map(|(c, body)| format!("<category name=\"{c}\">{body}</category>"))
        .collect();
    let state = state.map_or(String::new(), |s| format!("<state>{s}</state>"));
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\" ?>\n<root><fullscreen>false</fullscreen><volume>256</volume>{state}<information>{cats}</information></root>"
    )
}

/// VLC web statuses: playing, paused, stopped, files, streams, codecs,
/// malformed.
fn statuses(url: &str) -> Vec<(&'static str, String)> {
    vec![
        (
            "playing a file",
            status(
                Some("playing"),
                &[
                    ("meta", "filename", "/home/user/Music/song.mp3"),
                    ("meta", "title", "Song"),
                ],
            ),
        ),
        (
            "playing, bare name",
            status(Some("playing"), &[("meta", "filename", "song.mp3")]),
        ),
        (
            "playing, title only",
            status(Some("playing"), &[("meta", "title", "my song.mp3")]),
        ),
        (
            "playing, empty filename",
            status(
                Some("playing"),
                &[
                    ("meta", "filename", ""),
                    ("meta", "uri", "file:///tmp/song.mp3"),
                ],
            ),
        ),
        (
            "paused",
            status(Some("paused"), &[("meta", "filename", "song.mp3")]),
        ),
        ("stopped", status(Some("stopped"), &[])),
        (
            "no state",
            status(None, &[("meta", "filename", "song.mp3")]),
        ),
        (
            "empty state",
            status(Some(""), &[("meta", "filename", "song.mp3")]),
        ),
        ("playing, no info", status(Some("playing"), &[])),
        (
            "playing the stream",
            status(Some("playing"), &[("meta", "url", url)]),
        ),
        (
            "playing the stream's file name",
            status(Some("playing"), &[("meta", "filename", "index.m3u8")]),
        ),
        (
            "playing the stream with a query",
            status(
                Some("playing"),
                &[(
                    "meta",
                    "URI",
                    "https://streams.example.org/live/channel1/index.m3u8?token=1",
                )],
            ),
        ),
        (
            "playing another host",
            status(
                Some("playing"),
                &[(
                    "meta",
                    "location",
                    "https://cdn.example.org/live/channel1/index.m3u8x",
                )],
            ),
        ),
        (
            "playing the same host, longer path",
            status(
                Some("playing"),
                &[(
                    "meta",
                    "title",
                    "http://streams.example.org/x/live/channel1/index.m3u8/seg",
                )],
            ),
        ),
        (
            "playing, codec only",
            status(
                Some("playing"),
                &[("Stream 0", "Codec", "H264 - MPEG-4 AVC (part 10) (h264)")],
            ),
        ),
        (
            "playing with a comment in the name",
            status(
                Some("playing"),
                &[("meta", "filename", "so<!-- x -->ng.mp3")],
            ),
        ),
        ("not XML", "<root><state>playing</state>".to_owned()),
        (
            "namespaced",
            "<root xmlns='urn:x'><state>playing</state></root>".to_owned(),
        ),
    ]
}

#[test]
fn is_vlc_playing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let url = "https://streams.example.org/live/channel1/index.m3u8";
    let statuses = statuses(url);
    let rules = [
        json!({"type": "file_name", "file_name": "song.mp3"}),
        json!({"type": "file_name", "file_name": "ong.mp3"}),
        json!({"type": "file_name", "file_name": "other.mp3"}),
        json!({"type": "file_name", "file_name": ""}),
        json!({"type": "file_name", "file_name": 3}),
        json!({"type": "file_name"}),
        json!({"type": "url", "url": url}),
        json!({"type": "url", "url": "https://streams.example.org/live/channel1/index.m3u8x"}),
        json!({"type": "url", "url": "http://[broken/index.m3u8"}),
        json!({"type": "url", "url": "H264"}),
        json!({"type": "url"}),
        json!({"type": "other"}),
        json!({}),
    ];
    let mut cases = Vec::new();
    for (i, (name, xml)) in statuses.iter().enumerate() {
        let file = write(d, &format!("status{i}.xml"), xml.as_bytes());
        for r in &rules {
            cases.push(Case::new(
                format!("{name} {r}"),
                file.clone(),
                Got::Json(r.clone()),
            ));
        }
    }
    cases.push(Case::new(
        "no status file",
        Got::File(d.join("absent.xml")),
        Got::Json(rules[0].clone()),
    ));
    compare("vlc", "is_vlc_playing", &cases);
}
