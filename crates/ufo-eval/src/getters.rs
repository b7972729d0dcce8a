//! Getters: what a checker compares (OSWorld's `result` and `expected`).
//!
//! | type | parameters | gives |
//! |---|---|---|
//! | `vm_file` | `path`, `dest`, `multi`, `gives` | a copy of the file in the task's output folder (missing: scores 0); with `multi`, each file copied and the one `gives` names returned |
//! | `vm_command_line`, `vm_command_error` | `command`, `shell` | the command's standard output (error), whatever its exit code; nothing when it cannot run or takes over 120 s (as OSWorld) |
//! | `rule` | `rules` | the rules object |
//! | `accessibility_tree` | | every window's accessibility tree as XML (elements named by role, with `name` and `states` attributes, values as text) |
//! | `list_directory` | `path` | `{type, name, children}` of the folder, recursively |
//! | `cloud_file` | `path`, `dest`, `multi`, `gives` | the file at the URL (through the cache or the mirror, [`crate::fetch`]; one that cannot be had makes the task `unavailable`), or a fixture (`$SUITE/...`) |
//! | `local_file` | `path` (`$SUITE/...`) | a fixture of the suite |
//! | `cache_file` | `path` | a file in the task's cache folder (`execute`'s `stdout`) |
//! | `googledrive_file` | | the task is `needs_account` |

use crate::checkers::Got;
use crate::command::{COMMAND_TIMEOUT, command, run};
use crate::fetch::Fetcher;
use crate::task::Places;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use ufo_desktop::{Backend, TreeBudget};
use ufo_desktop_atspi::HeadlessDesktop;

/// Everything a getter may read.
pub struct GetContext<'a> {
    /// The task's desktop.
    pub desktop: &'a HeadlessDesktop,
    /// A backend connected to it.
    pub backend: &'a dyn Backend,
    /// `$WORK` and `$SUITE`.
    pub places: &'a Places,
    /// Where copies of result files go.
    pub out: &'a Path,
    /// Downloads (`cloud_file`).
    pub fetcher: &'a Fetcher,
    /// The task's cache folder (`cache_file`, `execute`'s `stdout` files).
    pub cache: &'a Path,
}

/// Why a getter gave nothing a checker could be trusted with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GetError {
    /// A getter type (or form) this build lacks: the task is `unsupported`.
    Unsupported(String),
    /// A file to download could not be had: the task is `unavailable`.
    Unavailable(String),
    /// The getter reads an account's files (Google Drive): `needs_account`.
    NeedsAccount(String),
}

/// Runs the getter `spec`. A missing file or a command that cannot run is
/// [`Got::Missing`] (it scores 0, as OSWorld's `None`); see [`GetError`]
/// for what is not.
pub async fn get(cx: &GetContext<'_>, spec: &Map<String, Value>) -> Result<Got, GetError> {
    let kind = spec.get("type").and_then(Value::as_str).unwrap_or_default();
    let unsupported = |m: String| GetError::Unsupported(m);
    // A path as this process reads it.
    let text = |k: &str| {
        spec.get(k)
            .and_then(Value::as_str)
            .map(|s| cx.places.path(s).display().to_string())
    };
    Ok(match kind {
        "vm_file" => vm_file(cx, spec)?,
        "cloud_file" => cloud_file(cx, spec).await?,
        "local_file" => match text("path") {
            Some(p) if Path::new(&p).is_file() => Got::File(p.into()),
            Some(_) => Got::Missing,
            None => return Err(unsupported(format!("{kind} needs `path`"))),
        },
        "cache_file" => match spec.get("path").and_then(Value::as_str) {
            Some(p) => match cx.cache.join(p) {
                f if f.is_file() => Got::File(f),
                _ => Got::Missing,
            },
            None => return Err(unsupported("cache_file needs `path`".into())),
        },
        "vm_command_line" | "vm_command_error" => {
            let cmd = command(spec, cx.places).map_err(|e| unsupported(format!("{kind}: {e}")))?;
            // OSWorld: the output of a command that ran, whatever its exit
            // code; nothing when it could not run or timed out.
            match run(cx.desktop, cx.places, &cmd, COMMAND_TIMEOUT).await {
                Ok(out) if kind == "vm_command_line" => Got::Text(out.stdout),
                Ok(out) => Got::Text(out.stderr),
                Err(_) => Got::Missing,
            }
        }
        "rule" => Got::Json(spec.get("rules").cloned().unwrap_or(Value::Null)),
        "accessibility_tree" => Got::Text(accessibility_xml(cx.backend).await),
        "list_directory" => match text("path") {
            Some(p) if Path::new(&p).is_dir() => Got::Json(listing(Path::new(&p), 0)),
            Some(_) => Got::Missing,
            None => return Err(unsupported("list_directory needs `path`".into())),
        },
        "googledrive_file" => {
            return Err(GetError::NeedsAccount(
                "the getter googledrive_file reads a Google Drive account".into(),
            ));
        }
        other => return Err(unsupported(format!("getter {other:?} is not supported"))),
    })
}

/// The file name a copied result gets: `dest`'s name, else the source's.
fn dest_name(dest: Option<String>, src: &Path) -> PathBuf {
    let name = dest.unwrap_or_else(|| {
        src.file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| "result".into())
    });
    PathBuf::from(Path::new(&name).file_name().unwrap_or_default())
}

/// `path` and `dest` (one each, or lists with `multi`) and the index of
/// the one `gives` names (default 0). Checkers take one file, so several
/// `gives` are unsupported.
fn files(spec: &Map<String, Value>) -> Result<(Vec<String>, Vec<String>, usize), GetError> {
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
    let gives: Vec<usize> = match spec.get("gives").and_then(Value::as_array) {
        Some(g) => g
            .iter()
            .filter_map(Value::as_u64)
            .map(|i| i as usize)
            .collect(),
        None => vec![0],
    };
    let [give] = gives[..] else {
        return Err(GetError::Unsupported(format!(
            "{kind} gives {} files at once; the checkers take one",
            gives.len()
        )));
    };
    Ok((paths, dests, give))
}

/// `vm_file`: copies of the task's files in its output folder, as `dest`;
/// the one `gives` names is returned (missing: [`Got::Missing`]).
fn vm_file(cx: &GetContext<'_>, spec: &Map<String, Value>) -> Result<Got, GetError> {
    let (paths, dests, give) = files(spec)?;
    let _ = std::fs::create_dir_all(cx.out);
    let mut given = Got::Missing;
    for (i, path) in paths.iter().enumerate() {
        let src = cx.places.path(path);
        let dest = cx
            .out
            .join(dest_name(dests.get(i).map(|d| cx.places.expand(d)), &src));
        let got = match std::fs::copy(&src, &dest) {
            Ok(_) => Got::File(dest),
            Err(_) => Got::Missing,
        };
        if i == give {
            given = got;
        }
    }
    Ok(given)
}

/// `cloud_file`: a URL (or, with `multi`, several) fetched into the task's
/// output as `dest`; a `$SUITE` path is a fixture of the suite. Every file
/// is fetched; the one `gives` names is returned.
async fn cloud_file(cx: &GetContext<'_>, spec: &Map<String, Value>) -> Result<Got, GetError> {
    let (paths, dests, give) = files(spec)?;
    let mut given = Got::Missing;
    for (i, path) in paths.iter().enumerate() {
        let got = match Fetcher::is_remote(path) {
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
        if i == give {
            given = got;
        }
    }
    Ok(given)
}

fn listing(dir: &Path, depth: usize) -> Value {
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

/// Every window's tree as XML: `<desktop-frame>` holding one element per
/// node, named by its role (`push-button`), with `name`, `description` and
/// `states` attributes and its value (a field's text) as element text.
pub async fn accessibility_xml(backend: &dyn Backend) -> String {
    let mut out = String::from("<desktop-frame>");
    let windows = backend.list_windows().await.unwrap_or_default();
    for w in &windows {
        let Ok(tree) = backend.capture_tree(w, &TreeBudget::default()).await else {
            continue;
        };
        if !tree.nodes.is_empty() {
            node_xml(&tree, 0, &mut out);
        }
    }
    out.push_str("</desktop-frame>");
    out
}

fn node_xml(tree: &ufo_core::UiTree, i: usize, out: &mut String) {
    let Some(n) = tree.nodes.get(i) else {
        return;
    };
    let tag = tag_of(&n.role);
    out.push('<');
    out.push_str(&tag);
    let mut attr = |k: &str, v: &str| {
        if !v.is_empty() {
            out.push_str(&format!(" {k}=\"{}\"", escape(v)));
        }
    };
    attr("name", &n.name);
    attr("description", &n.description);
    attr("states", &n.states.names().collect::<Vec<_>>().join(" "));
    out.push('>');
    // The node's value (a field's or a display's text) is the element's text.
    out.push_str(&escape(n.value.as_deref().unwrap_or_default()));
    for &c in &n.children {
        node_xml(tree, c, out);
    }
    out.push_str(&format!("</{tag}>"));
}

/// An XML element name for a role: `push button` → `push-button`.
fn tag_of(role: &str) -> String {
    let t: String = role
        .trim()
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' => c.to_ascii_lowercase(),
            _ => '-',
        })
        .collect();
    match t.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => t,
        _ => format!("node-{t}"),
    }
}

fn escape(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .map(|c| match c {
            '&' => "&amp;".to_owned(),
            '<' => "&lt;".to_owned(),
            '>' => "&gt;".to_owned(),
            '"' => "&quot;".to_owned(),
            other => other.to_string(),
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn file_lists_give_one_file() {
        let spec = |v: Value| v.as_object().unwrap().clone();
        let (p, d, g) = files(&spec(json!({"type": "vm_file", "path": ["/a", "/b"],
            "dest": ["a", "b"], "multi": true, "gives": [1]})))
        .unwrap();
        assert_eq!((p.len(), d[1].as_str(), g), (2, "b", 1));
        let (p, _, g) =
            files(&spec(json!({"type": "vm_file", "path": "/a", "dest": "a"}))).unwrap();
        assert_eq!((p, g), (vec!["/a".to_owned()], 0));
        assert_eq!(
            files(&spec(
                json!({"type": "vm_file", "path": ["/a", "/b"], "gives": [0, 1]})
            )),
            Err(GetError::Unsupported(
                "vm_file gives 2 files at once; the checkers take one".into()
            ))
        );
        assert!(files(&spec(json!({"type": "cloud_file"}))).is_err());
    }

    #[test]
    fn roles_become_element_names_and_text_is_escaped() {
        assert_eq!(tag_of("push button"), "push-button");
        assert_eq!(tag_of("3d"), "node-3d");
        assert_eq!(escape("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/a.txt"), "x").unwrap();
        let l = listing(dir.path(), 0);
        assert_eq!(l["children"][0]["name"], "sub");
        assert_eq!(l["children"][0]["children"][0]["name"], "a.txt");
    }
}
