//! Getters: what a checker compares (OSWorld's `result` and `expected`).
//!
//! | type | parameters | gives |
//! |---|---|---|
//! | `vm_file` | `path`, `dest` | a copy of the file in the task's output folder (missing: scores 0) |
//! | `vm_command_line` | `command`, `shell` | the command's standard output |
//! | `rule` | `rules` | the rules object |
//! | `accessibility_tree` | | every window's accessibility tree as XML (elements named by role, with `name` and `states` attributes, values as text) |
//! | `list_directory` | `path` | `{type, name, children}` of the folder, recursively |
//! | `cloud_file`, `local_file` | `path` (`$SUITE/...`) | a fixture of the suite |

use crate::checkers::Got;
use crate::setup::run_command;
use crate::task::Places;
use serde_json::{Map, Value, json};
use std::path::Path;
use std::time::Duration;
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
}

/// Runs the getter `spec`; an unknown getter type is an error (the task is
/// reported as unsupported), a missing file or failing command is
/// [`Got::Missing`] (it scores 0).
pub async fn get(cx: &GetContext<'_>, spec: &Map<String, Value>) -> Result<Got, String> {
    let kind = spec.get("type").and_then(Value::as_str).unwrap_or_default();
    let text = |k: &str| {
        spec.get(k)
            .and_then(Value::as_str)
            .map(|s| cx.places.expand(s))
    };
    Ok(match kind {
        "vm_file" => {
            let Some(path) = text("path") else {
                return Err("vm_file needs `path`".into());
            };
            let src = Path::new(&path);
            let dest_name = text("dest").unwrap_or_else(|| {
                src.file_name()
                    .map(|n| n.to_string_lossy().to_string())
                    .unwrap_or_else(|| "result".into())
            });
            let dest = cx
                .out
                .join(Path::new(&dest_name).file_name().unwrap_or_default());
            let _ = std::fs::create_dir_all(cx.out);
            match std::fs::copy(src, &dest) {
                Ok(_) => Got::File(dest),
                Err(_) => Got::Missing,
            }
        }
        "cloud_file" | "local_file" => match text("path") {
            Some(p) if Path::new(&p).is_file() => Got::File(p.into()),
            Some(_) => Got::Missing,
            None => return Err(format!("{kind} needs `path`")),
        },
        "vm_command_line" => {
            let words: Vec<String> = match spec.get("command") {
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|w| cx.places.expand(w.as_str().unwrap_or_default()))
                    .collect(),
                Some(Value::String(s)) => shlex::split(s)
                    .unwrap_or_default()
                    .iter()
                    .map(|w| cx.places.expand(w))
                    .collect(),
                _ => return Err("vm_command_line needs `command`".into()),
            };
            if words.is_empty() {
                return Err("vm_command_line: `command` is empty".into());
            }
            let sh = spec.get("shell").and_then(Value::as_bool).unwrap_or(false);
            match run_command(cx.desktop, cx.places, &words, sh, Duration::from_secs(60)).await {
                Ok((_, out, _)) => Got::Text(out),
                Err(_) => Got::Missing,
            }
        }
        "rule" => Got::Json(spec.get("rules").cloned().unwrap_or(Value::Null)),
        "accessibility_tree" => Got::Text(accessibility_xml(cx.backend).await),
        "list_directory" => match text("path") {
            Some(p) if Path::new(&p).is_dir() => Got::Json(listing(Path::new(&p), 0)),
            Some(_) => Got::Missing,
            None => return Err("list_directory needs `path`".into()),
        },
        other => return Err(format!("getter {other:?} is not supported")),
    })
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
