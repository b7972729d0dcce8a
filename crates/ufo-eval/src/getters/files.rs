//! Getters of files: the task's files copied out (`vm_file`, the apps'
//! configuration files), downloads (`cloud_file`), folders, and files
//! inside a presentation (`audio_in_slide`, `background_image_in_slide`).

use super::{GetContext, GetError};
use crate::checkers::Got;
use crate::fetch::Fetcher;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The file name a copied result gets: `dest`'s name, else the source's.
pub(super) fn dest_name(dest: Option<String>, src: &Path) -> PathBuf {
    let name = dest.unwrap_or_else(|| {
        src.file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| "result".into())
    });
    PathBuf::from(Path::new(&name).file_name().unwrap_or_default())
}

/// The `path`s, `dest`s and the indices `gives` names.
type Files = (Vec<String>, Vec<String>, Vec<usize>);

/// `path` and `dest` (one each, or lists with `multi`) and the indices
/// `gives` names (default `[0]`), sorted and each once (OSWorld's set).
pub(super) fn files(spec: &Map<String, Value>) -> Result<Files, GetError> {
    let kind = spec.get("type").and_then(Value::as_str).unwrap_or_default();
    let list = |k: &str| -> Vec<String> {
        match spec.get(k) {
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            Some(Value::String(s)) => vec![s.clone()],
            _ => Vec::new(),
        }
    };
    let (paths, dests) = (list("path"), list("dest"));
    if paths.is_empty() {
        return Err(GetError::Unsupported(format!("{kind} needs `path`")));
    }
    let mut gives: Vec<usize> = match spec.get("gives") {
        Some(Value::Array(g)) => g
            .iter()
            .map(|i| {
                i.as_u64().map(|i| i as usize).ok_or_else(|| {
                    GetError::Unsupported(format!(
                        "{kind}: `gives` must list file indices, got {i}"
                    ))
                })
            })
            .collect::<Result<_, _>>()?,
        None | Some(Value::Null) => vec![0],
        Some(other) => {
            return Err(GetError::Unsupported(format!(
                "{kind}: `gives` must be a list of indices, got {other}"
            )));
        }
    };
    gives.sort_unstable();
    gives.dedup();
    Ok((paths, dests, gives))
}

/// What OSWorld returns for the files `gives` names: the one file, or a
/// list (of paths, `null` for a file that is missing) when it names
/// several.
fn given(got: Vec<(usize, Got)>, gives: &[usize]) -> Got {
    let mut picked: Vec<Got> = got
        .into_iter()
        .filter(|(i, _)| gives.contains(i))
        .map(|(_, g)| g)
        .collect();
    match picked.len() {
        0 => Got::Missing,
        1 => picked.swap_remove(0),
        _ => Got::Json(Value::Array(
            picked
                .into_iter()
                .map(|g| match g {
                    Got::File(p) => Value::String(p.display().to_string()),
                    _ => Value::Null,
                })
                .collect(),
        )),
    }
}

/// `time_suffix`: the date in `format` (`strftime`'s `%Y %m %d %H %M %S
/// %y %%`, in UTC) inserted before the first `.` of a name, as OSWorld
/// does (`name.split(".")[0] + date + "." + name.split(".")[1]`).
fn with_time_suffix(name: &str, format: &str) -> Result<String, String> {
    let now = time::OffsetDateTime::now_utc();
    let mut date = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            date.push(c);
            continue;
        }
        match chars.next() {
            Some('Y') => date.push_str(&now.year().to_string()),
            Some('y') => date.push_str(&format!("{:02}", now.year().rem_euclid(100))),
            Some('m') => date.push_str(&format!("{:02}", u8::from(now.month()))),
            Some('d') => date.push_str(&format!("{:02}", now.day())),
            Some('H') => date.push_str(&format!("{:02}", now.hour())),
            Some('M') => date.push_str(&format!("{:02}", now.minute())),
            Some('S') => date.push_str(&format!("{:02}", now.second())),
            Some('%') => date.push('%'),
            other => {
                return Err(format!(
                    "time_format directive %{} is not supported",
                    other.unwrap_or(' ')
                ));
            }
        }
    }
    let mut parts = name.split('.');
    Ok(match (parts.next(), parts.next()) {
        (Some(a), Some(b)) => format!("{a}{date}.{b}"),
        _ => name.to_owned(),
    })
}

/// Copies the task's file `path` (as a task names it) into the output
/// folder as `dest` (else its own name).
pub(super) fn copy_out(cx: &GetContext<'_>, path: &str, dest: Option<&str>) -> Got {
    let _ = std::fs::create_dir_all(cx.out);
    let src = cx.places.path(path);
    let dest = cx
        .out
        .join(dest_name(dest.map(|d| cx.places.expand(d)), &src));
    match std::fs::copy(&src, &dest) {
        Ok(_) => Got::File(dest),
        Err(_) => Got::Missing,
    }
}

/// `vm_file`: copies of the task's files in its output folder, as `dest`;
/// the ones `gives` names are returned (missing: [`Got::Missing`], or
/// `null` in a list).
pub(super) fn vm_file(cx: &GetContext<'_>, spec: &Map<String, Value>) -> Result<Got, GetError> {
    let (mut paths, mut dests, gives) = files(spec)?;
    let multi = crate::command::truthy(spec.get("multi"));
    if !multi && crate::command::truthy(spec.get("time_suffix")) {
        let format = spec
            .get("time_format")
            .and_then(Value::as_str)
            .unwrap_or("%Y_%m_%d");
        let suffix = |s: &String| with_time_suffix(s, format).map_err(GetError::Unsupported);
        paths = paths.iter().map(suffix).collect::<Result<_, _>>()?;
        dests = dests.iter().map(suffix).collect::<Result<_, _>>()?;
    }
    let got = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (i, copy_out(cx, p, dests.get(i).map(String::as_str))))
        .collect();
    Ok(given(got, &gives))
}

/// `cloud_file`: a URL (or, with `multi`, several) fetched into the task's
/// output as `dest`; a `$SUITE` path is a fixture of the suite. Every file
/// is fetched; the ones `gives` names are returned.
pub(super) async fn cloud_file(
    cx: &GetContext<'_>,
    spec: &Map<String, Value>,
) -> Result<Got, GetError> {
    let (paths, dests, gives) = files(spec)?;
    let mut got = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let g = match Fetcher::is_remote(path) {
            true => {
                let local = cx
                    .fetcher
                    .fetch(path)
                    .await
                    .map_err(|e| GetError::Unavailable(ufo_core::render(&e)))?;
                let dest = cx.out.join(dest_name(dests.get(i).cloned(), &local));
                let _ = std::fs::create_dir_all(cx.out);
                match std::fs::copy(&local, &dest) {
                    Ok(_) => Got::File(dest),
                    Err(_) => Got::Missing,
                }
            }
            false => match cx.places.path(path) {
                p if p.is_file() => Got::File(p),
                _ => Got::Missing,
            },
        };
        got.push((i, g));
    }
    Ok(given(got, &gives))
}

/// `list_directory`: `{type, name, children}` of a folder, recursively.
pub(super) fn listing(dir: &Path, depth: usize) -> Value {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let mut children: Vec<Value> = Vec::new();
    if depth < 8
        && let Ok(entries) = std::fs::read_dir(dir)
    {
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            children.push(match p.is_dir() {
                true => listing(&p, depth + 1),
                false => json!({"type": "file", "name": e.file_name().to_string_lossy()}),
            });
        }
    }
    json!({"type": "directory", "name": name, "children": children})
}

/// A string parameter a getter needs (OSWorld's `config[key]` raises
/// without it: the task file is wrong).
pub(super) fn need<'a>(spec: &'a Map<String, Value>, key: &str) -> Result<&'a str, GetError> {
    let kind = spec.get("type").and_then(Value::as_str).unwrap_or_default();
    spec.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| GetError::Unsupported(format!("{kind} needs `{key}` (a string)")))
}

/// `vlc_config`, `gimp_config_file`: an application's configuration file
/// in the task's home, copied out as `dest`.
pub(super) fn config_file(cx: &GetContext<'_>, spec: &Map<String, Value>) -> Result<Got, GetError> {
    let kind = spec.get("type").and_then(Value::as_str).unwrap_or_default();
    let dest = need(spec, "dest")?;
    let path = match kind {
        "vlc_config" => "~/.config/vlc/vlcrc".to_owned(),
        _ => format!("~/.config/GIMP/2.10/{}", need(spec, "file_name")?),
    };
    Ok(copy_out(cx, &path, Some(dest)))
}

/// `content_from_vm_file`: the file copied out, and with `file_type`
/// `xlsx` and `file_content` `last_row` its last row as strings
/// ([`crate::checkers::last_row_strings`]); other kinds raise in OSWorld.
pub(super) fn content(cx: &GetContext<'_>, spec: &Map<String, Value>) -> Result<Got, GetError> {
    let path = need(spec, "path")?;
    let (kind, what) = (need(spec, "file_type")?, need(spec, "file_content")?);
    if kind != "xlsx" {
        return Err(GetError::Unsupported(format!(
            "content_from_vm_file: file type {kind:?} is not supported (OSWorld raises)"
        )));
    }
    let name = Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let Got::File(copy) = copy_out(cx, path, name.as_deref()) else {
        return Ok(Got::Missing);
    };
    if what != "last_row" {
        // OSWorld returns `None` for another `file_content`.
        return Ok(Got::Missing);
    }
    match crate::checkers::last_row_strings(&copy) {
        Ok(Some(row)) => Ok(Got::Json(Value::Array(
            row.into_iter().map(Value::String).collect(),
        ))),
        Ok(None) => Ok(Got::Missing),
        Err(why) => Err(GetError::Unsupported(format!(
            "content_from_vm_file: {why}"
        ))),
    }
}

/// `shortcuts_on_desktop`: the text of each `.desktop` file on the task's
/// desktop folder, by file name (`[]` when OSWorld finds no folder: its
/// server answers 404 and the getter raises, so nothing).
pub(super) fn shortcuts(cx: &GetContext<'_>) -> Got {
    let dir = cx.places.path("~/Desktop");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Got::Missing;
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".desktop"))
        .collect();
    names.sort();
    let mut out = Map::new();
    for n in names {
        match std::fs::read(dir.join(&n)).map(String::from_utf8) {
            Ok(Ok(text)) => {
                out.insert(n, Value::String(text));
            }
            // OSWorld's `.decode('utf-8')` raises.
            _ => return Got::Missing,
        }
    }
    Got::Json(Value::Object(out))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn file_lists_give_one_file_or_a_list() {
        let spec = |v: Value| v.as_object().unwrap().clone();
        let (p, d, g) = files(&spec(json!({"type": "vm_file", "path": ["/a", "/b"],
            "dest": ["a", "b"], "multi": true, "gives": [1]})))
        .unwrap();
        assert_eq!((p.len(), d[1].as_str(), g), (2, "b", vec![1]));
        let (p, _, g) =
            files(&spec(json!({"type": "vm_file", "path": "/a", "dest": "a"}))).unwrap();
        assert_eq!((p, g), (vec!["/a".to_owned()], vec![0]));
        let (_, _, g) = files(&spec(
            json!({"type": "vm_file", "path": ["/a", "/b"], "gives": [1, 0, 1]}),
        ))
        .unwrap();
        assert_eq!(g, vec![0, 1]);
        assert!(files(&spec(json!({"type": "cloud_file"}))).is_err());
        assert!(
            files(&spec(
                json!({"type": "vm_file", "path": "/a", "gives": ["x"]})
            ))
            .is_err()
        );
        let two = given(
            vec![
                (0, Got::File("/o/a".into())),
                (1, Got::Missing),
                (2, Got::File("/o/c".into())),
            ],
            &[0, 1],
        );
        assert_eq!(two, Got::Json(json!(["/o/a", null])));
        assert_eq!(given(vec![(0, Got::Missing)], &[0]), Got::Missing);
    }

    #[test]
    fn time_suffixes_go_before_the_first_dot() {
        let y = time::OffsetDateTime::now_utc().year().to_string();
        let s = with_time_suffix("/home/user/report.xlsx", "%Y_%m_%d").unwrap();
        assert!(s.starts_with(&format!("/home/user/report{y}_")), "{s}");
        assert!(s.ends_with(".xlsx"));
        assert_eq!(with_time_suffix("noext", "%Y").unwrap(), "noext");
        assert!(with_time_suffix("a.b", "%Q").is_err());
    }

    #[test]
    fn a_sheets_last_row_is_written_as_pandas_astype_str() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.xlsx");
        let mut book = rust_xlsxwriter::Workbook::new();
        let sheet = book.add_worksheet();
        for (c, h) in ["name", "n", "x", "ok"].iter().enumerate() {
            sheet.write_string(0, c as u16, *h).unwrap();
        }
        sheet.write_string(1, 0, "a").unwrap();
        sheet.write_number(1, 1, 1.0).unwrap();
        sheet.write_number(1, 2, 1.5).unwrap();
        sheet.write_boolean(1, 3, true).unwrap();
        sheet.write_string(2, 0, "b").unwrap();
        sheet.write_number(2, 1, 2.0).unwrap();
        sheet.write_boolean(2, 3, false).unwrap();
        book.save(&path).unwrap();
        let row = crate::checkers::last_row_strings(&path).unwrap().unwrap();
        assert_eq!(row, vec!["b", "2", "nan", "False"]);
        assert_eq!(
            crate::checkers::last_row_strings(&dir.path().join("none.xlsx")).unwrap(),
            None
        );
    }

    #[test]
    fn folders_are_listed_recursively() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/a.txt"), "x").unwrap();
        let l = listing(dir.path(), 0);
        assert_eq!(l["children"][0]["name"], "sub");
        assert_eq!(l["children"][0]["children"][0]["name"], "a.txt");
    }
}
