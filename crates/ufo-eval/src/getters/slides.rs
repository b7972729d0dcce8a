//! Files inside a presentation (OSWorld `impress.py`): `audio_in_slide`
//! (the first audio a slide's relationships name) and
//! `background_image_in_slide` (the picture of a slide's background).
//! A file inside the package is extracted next to the copy of the
//! presentation, at its path in the package; one the package links to
//! (`file://...`) is copied out of the task as `dest`.

use super::files::{copy_out, need};
use super::{GetContext, GetError};
use crate::checkers::Got;
use serde_json::{Map, Value};
use std::io::Read;
use std::path::{Path, PathBuf};

const REL_NS: &str = "http://schemas.openxmlformats.org/package/2006/relationships";
const P_NS: &str = "http://schemas.openxmlformats.org/presentationml/2006/main";
const A_NS: &str = "http://schemas.openxmlformats.org/drawingml/2006/main";
const R_NS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/// Where a relationship's target is.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    /// A part of the package (`ppt/media/x.wav`).
    Part(String),
    /// A file the package links to (a path in the task).
    Linked(String),
}

/// `os.path.normpath(os.path.join("ppt/slides", target))`.
fn part_path(target: &str) -> String {
    let mut parts: Vec<&str> = vec!["ppt", "slides"];
    for p in target.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// A relationship target as OSWorld reads it: relative (`..`) into the
/// package, else it must be a `file://` link (OSWorld asserts so).
fn target(t: &str) -> Option<Target> {
    match t.starts_with("..") {
        true => Some(Target::Part(part_path(t))),
        false => t
            .strip_prefix("file://")
            .map(|p| Target::Linked(p.to_owned())),
    }
}

fn read_part(zip: &mut zip::ZipArchive<std::fs::File>, name: &str) -> Option<String> {
    let mut s = String::new();
    zip.by_name(name).ok()?.read_to_string(&mut s).ok()?;
    Some(s)
}

/// The first relationship of `rels` for which `pick(type, id)` holds.
fn find_rel(rels: &str, pick: impl Fn(&str, &str) -> bool) -> Option<Option<Target>> {
    let doc = roxmltree::Document::parse(rels).ok()?;
    doc.root_element()
        .children()
        .filter(|n| n.has_tag_name((REL_NS, "Relationship")))
        .find(|n| {
            pick(
                n.attribute("Type").unwrap_or_default(),
                n.attribute("Id").unwrap_or_default(),
            )
        })
        .map(|n| target(n.attribute("Target").unwrap_or_default()))
}

/// The id of the picture in the first background (`p:bgPr`) that has one.
fn background_id(slide: &str) -> Option<String> {
    let doc = roxmltree::Document::parse(slide).ok()?;
    doc.descendants()
        .filter(|n| n.has_tag_name((P_NS, "bgPr")))
        .find_map(|bg| {
            bg.descendants()
                .find(|n| n.has_tag_name((A_NS, "blip")))
                .and_then(|b| b.attribute((R_NS, "embed")))
                .map(str::to_owned)
        })
}

/// Extracts `part` of the package into `dir` (at its path there).
fn extract(zip: &mut zip::ZipArchive<std::fs::File>, part: &str, dir: &Path) -> Option<PathBuf> {
    let mut bytes = Vec::new();
    zip.by_name(part).ok()?.read_to_end(&mut bytes).ok()?;
    let dest = dir.join(part);
    std::fs::create_dir_all(dest.parent()?).ok()?;
    std::fs::write(&dest, bytes).ok()?;
    Some(dest)
}

/// `audio_in_slide` and `background_image_in_slide`.
pub(super) fn in_slide(cx: &GetContext<'_>, spec: &Map<String, Value>) -> Result<Got, GetError> {
    let kind = spec.get("type").and_then(Value::as_str).unwrap_or_default();
    let deck = need(spec, "ppt_file_path")?;
    let dest = need(spec, "dest")?;
    let index = match spec.get("slide_index") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    }
    .ok_or_else(|| GetError::Unsupported(format!("{kind} needs `slide_index` (a number)")))?;
    let name = Path::new(deck)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let Got::File(copy) = copy_out(cx, deck, name.as_deref()) else {
        return Ok(Got::Missing);
    };
    let Some(mut zip) = std::fs::File::open(&copy)
        .ok()
        .and_then(|f| zip::ZipArchive::new(f).ok())
    else {
        return Ok(Got::Missing);
    };
    let n = index + 1;
    let rels = read_part(&mut zip, &format!("ppt/slides/_rels/slide{n}.xml.rels"));
    let found = match kind {
        "audio_in_slide" => rels.and_then(|r| find_rel(&r, |t, _| t.contains("audio"))),
        _ => {
            let Some(slide) = read_part(&mut zip, &format!("ppt/slides/slide{n}.xml")) else {
                return Ok(Got::Missing);
            };
            let Some(id) = background_id(&slide) else {
                return Ok(Got::Missing);
            };
            rels.and_then(|r| find_rel(&r, |t, i| t.contains("image") && i == id))
        }
    };
    let dir = copy.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok(match found {
        Some(Some(Target::Part(p))) => extract(&mut zip, &p, &dir).map_or(Got::Missing, Got::File),
        Some(Some(Target::Linked(p))) => copy_out(cx, &p, Some(dest)),
        // No such relationship, or one OSWorld's assertion refuses.
        _ => Got::Missing,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn relationships_and_backgrounds_are_read_as_osworld_does() {
        assert_eq!(part_path("../media/a.wav"), "ppt/media/a.wav");
        assert_eq!(
            target("file:///home/user/a.mp3"),
            Some(Target::Linked("/home/user/a.mp3".into()))
        );
        assert_eq!(target("media/a.wav"), None);
        let rels = format!(
            r#"<Relationships xmlns="{REL_NS}"><Relationship Id="rId1" Type="http://x/image" Target="../media/i.png"/><Relationship Id="rId2" Type="http://x/audio" Target="../media/a.wav"/></Relationships>"#
        );
        assert_eq!(
            find_rel(&rels, |t, _| t.contains("audio")),
            Some(Some(Target::Part("ppt/media/a.wav".into())))
        );
        assert_eq!(
            find_rel(&rels, |t, i| t.contains("image") && i == "rId9"),
            None
        );
        let slide = format!(
            r#"<p:sld xmlns:p="{P_NS}" xmlns:a="{A_NS}" xmlns:r="{R_NS}"><p:cSld><p:bg><p:bgPr><a:blipFill><a:blip r:embed="rId1"/></a:blipFill></p:bgPr></p:bg></p:cSld></p:sld>"#
        );
        assert_eq!(background_id(&slide).as_deref(), Some("rId1"));
        assert_eq!(background_id("<x/>"), None);
    }
}
