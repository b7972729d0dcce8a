//! `check_mp3_meta` (OSWorld's `others.py`): an MP3's ID3 tags, read as
//! mutagen's `EasyID3` reads them, each matched against a rule
//! (`_match_value_to_rule`, [`match_value`]).
//!
//! `EasyID3` names frames by keys: `title` is `TIT2`, `artist` `TPE1`, and
//! so on (its table of plain text frames below), a few keys read a `TXXX`
//! frame by its description, `date` and `originaldate` read the
//! timestamps `TDRC` and `TDOR` (an ID3v2.3 tag's `TYER`, `TDAT`, `TIME`
//! become a `TDRC`, as mutagen upgrades tags to v2.4). A key it does not
//! know, or a frame the file lacks, reads as `""`; several values join
//! with commas. `genre` (mutagen's own parsing of genre references), the
//! `performer:*` and `replaygain_*` patterns, `musicbrainz_trackid` and
//! `website` are refused rather than approximated.

use std::path::Path;

use id3::{Tag, TagLike};
use serde_json::Value;

use super::structured::match_value;
use super::{CheckError, Cx};

/// EasyID3's keys of plain text frames.
const TEXT_KEYS: &[(&str, &str)] = &[
    ("album", "TALB"),
    ("bpm", "TBPM"),
    ("compilation", "TCMP"),
    ("composer", "TCOM"),
    ("copyright", "TCOP"),
    ("encodedby", "TENC"),
    ("lyricist", "TEXT"),
    ("length", "TLEN"),
    ("media", "TMED"),
    ("mood", "TMOO"),
    ("grouping", "TIT1"),
    ("title", "TIT2"),
    ("version", "TIT3"),
    ("artist", "TPE1"),
    ("albumartist", "TPE2"),
    ("conductor", "TPE3"),
    ("arranger", "TPE4"),
    ("discnumber", "TPOS"),
    ("organization", "TPUB"),
    ("tracknumber", "TRCK"),
    ("author", "TOLY"),
    ("albumsort", "TSOA"),
    ("composersort", "TSOC"),
    ("artistsort", "TSOP"),
    ("titlesort", "TSOT"),
    ("isrc", "TSRC"),
    ("discsubtitle", "TSST"),
    ("language", "TLAN"),
];

/// EasyID3's keys of `TXXX` frames, by description (`albumartistsort` is
/// registered twice in mutagen; the `TXXX` one, registered last, wins).
const TXXX_KEYS: &[(&str, &str)] = &[
    ("musicbrainz_artistid", "MusicBrainz Artist Id"),
    ("musicbrainz_albumid", "MusicBrainz Album Id"),
    ("musicbrainz_albumartistid", "MusicBrainz Album Artist Id"),
    ("musicbrainz_trmid", "MusicBrainz TRM Id"),
    ("musicip_puid", "MusicIP PUID"),
    ("musicip_fingerprint", "MusicMagic Fingerprint"),
    ("musicbrainz_albumstatus", "MusicBrainz Album Status"),
    ("musicbrainz_albumtype", "MusicBrainz Album Type"),
    ("releasecountry", "MusicBrainz Album Release Country"),
    ("musicbrainz_discid", "MusicBrainz Disc Id"),
    ("asin", "ASIN"),
    ("albumartistsort", "ALBUMARTISTSORT"),
    ("performer", "PERFORMER"),
    ("barcode", "BARCODE"),
    ("catalognumber", "CATALOGNUMBER"),
    ("musicbrainz_releasetrackid", "MusicBrainz Release Track Id"),
    ("musicbrainz_releasegroupid", "MusicBrainz Release Group Id"),
    ("musicbrainz_workid", "MusicBrainz Work Id"),
    ("acoustid_fingerprint", "Acoustid Fingerprint"),
    ("acoustid_id", "Acoustid Id"),
];

/// `check_mp3_meta`: 1 when every key's value matches its rule (checked
/// in order, stopping at the first that fails). The rules (`expected`)
/// map keys to `{"method", "ref"}`. A result without an ID3 tag (v2, or
/// v1 at the end) or unreadable is refused, as mutagen raises.
pub(super) fn check_mp3_meta(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let meta = cx
        .rules()?
        .as_object()
        .ok_or_else(|| cx.bad("the rules must map tag keys to rules"))?;
    let Some(path) = cx.result_path() else {
        return Err(cx.bad("the result is not a file"));
    };
    let tag = read_tag(&path)
        .map_err(|e| cx.bad_because(format!("no readable ID3 tag in {}", path.display()), e))?;
    for (key, rule) in meta {
        let value = easy_value(cx, &tag, key)?;
        let rule = rule
            .as_object()
            .ok_or_else(|| cx.bad(format!("the rule for {key:?} is not an object")))?;
        if !match_value(cx, &Value::String(value), rule)? {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}

/// The ID3v2 tag, or else the ID3v1 tag as a v2 one (mutagen reads v1
/// only when there is no v2 tag).
fn read_tag(path: &Path) -> Result<Tag, id3::Error> {
    match Tag::read_from_path(path) {
        Err(e) if matches!(e.kind, id3::ErrorKind::NoTag) => {
            id3::v1::Tag::read_from_path(path).map(Tag::from)
        }
        other => other,
    }
}

/// `EasyID3(...).get(key, "")`, lists joined with commas.
fn easy_value(cx: &Cx<'_>, tag: &Tag, key: &str) -> Result<String, CheckError> {
    let key = key.to_lowercase();
    if let Some((_, desc)) = TXXX_KEYS.iter().find(|(k, _)| *k == key) {
        let values = tag
            .extended_texts()
            .find(|t| t.description == *desc)
            // A v2.4 value keeps its terminating NUL here; mutagen drops it.
            .map(|t| {
                let v = t.value.strip_suffix('\0').unwrap_or(&t.value);
                v.split('\0').map(str::to_owned).collect::<Vec<_>>()
            });
        return Ok(values.unwrap_or_default().join(","));
    }
    if let Some((_, id)) = TEXT_KEYS.iter().find(|(k, _)| *k == key) {
        return Ok(text_values(tag, id).unwrap_or_default().join(","));
    }
    match key.as_str() {
        "date" => Ok(timestamps(tag, "TDRC")),
        "originaldate" => Ok(timestamps(tag, "TDOR")),
        "genre" | "musicbrainz_trackid" | "website" => {
            Err(cx.bad(format!("the key {key:?} is not supported")))
        }
        k if k.starts_with("performer:") || k.starts_with("replaygain_") => {
            Err(cx.bad(format!("the key {key:?} is not supported")))
        }
        _ => Ok(String::new()),
    }
}

/// A text frame's values (`None`: no such frame).
fn text_values(tag: &Tag, id: &str) -> Option<Vec<String>> {
    let frame = tag.get(id)?;
    Some(frame.content().text_values()?.map(str::to_owned).collect())
}

/// A timestamp frame's values as mutagen's `ID3TimeStamp.text` gives
/// them, joined with commas; for `TDRC`, an ID3v2.3 tag's date frames
/// when there is no `TDRC`.
fn timestamps(tag: &Tag, id: &str) -> String {
    let values = match text_values(tag, id) {
        Some(v) => v,
        None if id == "TDRC" => v23_dates(tag),
        None => Vec::new(),
    };
    values
        .iter()
        .map(|v| normalise_stamp(v))
        .collect::<Vec<_>>()
        .join(",")
}

/// mutagen's upgrade of `TYER` (`YYYY`), `TDAT` (`DDMM`) and `TIME`
/// (`HHMM`) to `TDRC` timestamps, value by value.
fn v23_dates(tag: &Tag) -> Vec<String> {
    let get = |id| text_values(tag, id).unwrap_or_default();
    let (years, dates, times) = (get("TYER"), get("TDAT"), get("TIME"));
    let n = years.len().max(dates.len()).max(times.len());
    let at = |v: &[String], i: usize| v.get(i).cloned().unwrap_or_default();
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let mut out = Vec::new();
    for i in 0..n {
        let (y, d, t) = (at(&years, i), at(&dates, i), at(&times, i));
        let year_ok = digits(&y, 4)
            || (y.len() == 10
                && digits(&y[..4], 4)
                && y.as_bytes()[4] == b'-'
                && digits(&y[5..7], 2)
                && y.as_bytes()[7] == b'-'
                && digits(&y[8..], 2));
        if !year_ok {
            continue;
        }
        let mut stamp = y[..4].to_owned();
        let month_day = if digits(&d, 4) {
            Some(format!("-{}-{}", &d[2..], &d[..2]))
        } else if y.len() == 10 {
            Some(y[4..].to_owned())
        } else {
            None
        };
        if let Some(md) = month_day {
            stamp.push_str(&md);
            if digits(&t, 4) {
                stamp.push_str(&format!("T{}:{}:00", &t[..2], &t[2..]));
            }
        }
        out.push(stamp);
    }
    out
}

/// `ID3TimeStamp(text).text`: up to six numbers split on `-`, `T`, `:`,
/// `/`, `.` or whitespace, re-joined as `YYYY-MM-DD HH:MM:SS` up to the
/// first that is not a number.
fn normalise_stamp(text: &str) -> String {
    let padded = format!("{text}:::::");
    static SPLIT: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"[-T:/.]|\s+").ok());
    let Some(split) = SPLIT.as_ref() else {
        return String::new();
    };
    let parts: Vec<&str> = split.split(&padded).collect();
    let mut pieces = String::new();
    let seps = ["-", "-", " ", ":", ":", ""];
    for (i, part) in parts.iter().take(6).enumerate() {
        let Some(n) = py_int(part) else { break };
        if i == 0 {
            pieces.push_str(&format!("{n:04}"));
        } else {
            pieces.push_str(&format!("{n:02}"));
        }
        pieces.push_str(seps[i]);
    }
    if pieces.ends_with(['-', ' ', ':']) {
        pieces.pop();
    }
    pieces
}

/// Python's `int(s)` on a decimal string (sign, ASCII digits).
fn py_int(s: &str) -> Option<u64> {
    let digits = s.strip_prefix('+').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}
