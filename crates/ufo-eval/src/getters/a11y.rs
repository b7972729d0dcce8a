//! The accessibility tree in OSWorld's XML form (its VM server's
//! `/accessibility`, `_create_atspi_node`), and the getters that read it:
//! `accessibility_tree`, the address bar of `active_url_from_accessTree`,
//! `vm_terminal_output`.
//!
//! ```xml
//! <desktop-frame xmlns:st="uri:deskat:state.at-spi.gnome.org" ...>
//!   <application name="Chromium">
//!     <frame name="New Tab - Chromium" st:active="true" st:enabled="true" ...
//!            cp:screencoord="(0, 0)" cp:size="(1920, 1080)">
//!       <entry name="Address and search bar" st:focused="true" ...>example.com/a</entry>
//! ```
//!
//! - One `application` element per application with a window, named as
//!   the registry names it, holding its windows' trees.
//! - An element per node, named by its role with spaces as `-`
//!   (`push-button`; `unknown` when it has none).
//! - `name`; each state as `st:<state>="true"` (AT-SPI's names:
//!   `multi_line`, `read_only`); `cp:screencoord="(x, y)"` and
//!   `cp:size="(w, h)"` for a visible and showing node with a geometry;
//!   `selection="true"` for one with selectable children; `val:value`
//!   for a numeric value (Python's `str(float)`).
//! - A node's text (its value, U+FFFC and U+FFFD removed) as the
//!   element's text.
//!
//! The namespaces are the ones OSWorld's checkers and Chrome getters bind
//! the prefixes to (`uri:deskat:…`), so `[st|focused=true]` selectors of
//! real tasks match. (The server of the OSWorld tree we read writes
//! `https://accessibility.ubuntu.example.org/ns/...` instead, which its own
//! checker's prefixes would not match.)
//!
//! - Each AT-SPI attribute as `attr:<name>="<value>"` (`attr:toolkit`,
//!   `attr:id`, `attr:class`: some Thunderbird selectors use them), read
//!   for the `accessibility_tree` getter only ([`with_attributes`], one call
//!   per node), sorted by name.
//!
//! Not written, as the backend does not read them: actions (`act:`),
//! `image`, and `val:min`/`max`/`step`.

use crate::checkers::NAMESPACES;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt::Write as _;
use ufo_core::{UiNode, UiTree};
use ufo_desktop::{Backend, TreeBudget};

/// One application and its windows' trees.
pub(crate) struct App {
    /// The registry's name of it.
    pub name: String,
    /// Its windows' trees.
    pub trees: Vec<UiTree>,
    /// Each node's toolkit attributes, by element handle, when they were
    /// read ([`with_attributes`]).
    pub attributes: HashMap<String, Vec<(String, String)>>,
}

/// The most nodes whose attributes are read for one tree (one call each).
const MAX_ATTRIBUTE_READS: usize = 5000;

/// Reads every node's toolkit attributes (`attr:` in the XML), a few
/// calls at a time; a node that does not answer has none.
pub(crate) async fn with_attributes(backend: &dyn Backend, apps: &mut [App]) {
    use futures::StreamExt as _;
    for app in apps.iter_mut() {
        let handles: Vec<ufo_core::ElementHandle> = app
            .trees
            .iter()
            .flat_map(|t| t.nodes.iter().take(MAX_ATTRIBUTE_READS))
            .map(|n| n.handle.clone())
            .collect();
        let read: Vec<(String, Vec<(String, String)>)> = futures::stream::iter(handles)
            .map(|h| async move {
                let attrs = backend.attributes(&h).await.unwrap_or_default();
                (h.0, attrs)
            })
            .buffer_unordered(8)
            .collect()
            .await;
        app.attributes
            .extend(read.into_iter().filter(|(_, a)| !a.is_empty()));
    }
}

/// Every application with a window, and its windows' trees (in the
/// backend's window order; an application's first window places it).
pub(crate) async fn capture(backend: &dyn Backend) -> Vec<App> {
    let mut apps: Vec<(Option<u32>, App)> = Vec::new();
    // OSWorld reads each node's whole text (a terminal's, a document's).
    let budget = TreeBudget {
        max_text_chars: 1_000_000,
        ..TreeBudget::default()
    };
    for w in backend.list_windows().await.unwrap_or_default() {
        let Ok(tree) = backend.capture_tree(&w, &budget).await else {
            continue;
        };
        let key = (w.pid, w.app_name.clone());
        match apps
            .iter_mut()
            .find(|(pid, a)| (*pid, a.name.clone()) == key)
        {
            Some((_, a)) => a.trees.push(tree),
            None => apps.push((
                w.pid,
                App {
                    name: w.app_name.clone(),
                    trees: vec![tree],
                    attributes: HashMap::new(),
                },
            )),
        }
    }
    apps.into_iter().map(|(_, a)| a).collect()
}

/// The tree as OSWorld's server writes it (see the module docs).
pub(crate) fn xml(apps: &[App]) -> String {
    let mut out = String::from("<desktop-frame");
    for (p, ns) in NAMESPACES {
        let _ = write!(out, " xmlns:{p}=\"{ns}\"");
    }
    out.push('>');
    for app in apps {
        let _ = write!(out, "<application name=\"{}\">", escape(&app.name));
        for tree in &app.trees {
            if !tree.nodes.is_empty() {
                node(tree, &app.attributes, 0, &mut out);
            }
        }
        out.push_str("</application>");
    }
    out.push_str("</desktop-frame>");
    out
}

/// An element name for a role: spaces as `-`, `unknown` for none; a
/// character XML refuses in a name as `-` too.
fn tag(role: &str) -> String {
    let role = role.trim();
    if role.is_empty() {
        return "unknown".into();
    }
    let t: String = role
        .chars()
        .map(|c| match c {
            c if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') => c,
            _ => '-',
        })
        .collect();
    match t.chars().next() {
        Some(c) if c.is_alphabetic() || c == '_' => t,
        _ => format!("_{t}"),
    }
}

/// The node's text as OSWorld reads it (its Text interface).
pub(crate) fn text(n: &UiNode) -> Option<String> {
    (n.capabilities.text || n.capabilities.editable_text).then(|| {
        n.value
            .as_deref()
            .unwrap_or_default()
            .replace(['\u{fffc}', '\u{fffd}'], "")
    })
}

fn node(
    tree: &UiTree,
    attributes: &HashMap<String, Vec<(String, String)>>,
    i: usize,
    out: &mut String,
) {
    let Some(n) = tree.nodes.get(i) else { return };
    let tag = tag(&n.role);
    let _ = write!(out, "<{tag} name=\"{}\"", escape(&n.name));
    for (key, value) in attributes.get(&n.handle.0).into_iter().flatten() {
        // A name XML cannot hold is left out (OSWorld's lxml would refuse it).
        let name_ok = key.chars().next().is_some_and(char::is_alphabetic)
            && key
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if name_ok {
            let _ = write!(out, " attr:{key}=\"{}\"", escape(value));
        }
    }
    for s in n.states.names() {
        let _ = write!(out, " st:{}=\"true\"", s.replace('-', "_"));
    }
    let shown = n
        .states
        .contains(ufo_core::States::VISIBLE | ufo_core::States::SHOWING);
    if let (true, Some(r)) = (shown, n.rect.as_ref()) {
        let _ = write!(
            out,
            " cp:screencoord=\"({}, {})\" cp:size=\"({}, {})\"",
            r.x, r.y, r.width, r.height
        );
    }
    if n.capabilities.selection {
        out.push_str(" selection=\"true\"");
    }
    if n.capabilities.value
        && let Some(v) = n
            .value
            .as_deref()
            .and_then(|v| v.trim().parse::<f64>().ok())
    {
        let _ = write!(out, " val:value=\"{v:?}\"");
    }
    out.push('>');
    if let Some(t) = text(n) {
        out.push_str(&escape(&t));
    }
    for &c in &n.children {
        node(tree, attributes, c, out);
    }
    let _ = write!(out, "</{tag}>");
}

/// Text and attribute values escaped, and characters XML 1.0 refuses left
/// out.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}

/// The nodes of `apps` (with their tree) below an application `app_ok`
/// accepts, for which `pick` holds.
fn find(
    apps: &[App],
    app_ok: impl Fn(&str) -> bool,
    pick: impl Fn(&UiTree, &UiNode) -> bool,
) -> Vec<(&UiTree, &UiNode)> {
    apps.iter()
        .filter(|a| app_ok(&a.name))
        .flat_map(|a| a.trees.iter())
        .flat_map(|t| t.nodes.iter().map(move |n| (t, n)))
        .filter(|(t, n)| pick(t, n))
        .collect()
}

/// `active_url_from_accessTree`: the text of Chrome's address bar
/// (`application[name=Google Chrome] entry[name=Address and search bar]`;
/// Chromium's application stands in) with `goto_prefix` (default
/// `https://`) before it. Nothing when there is no address bar, or the
/// last one found has no text (as OSWorld); the first one's text is used.
pub(crate) fn address_bar_url(
    apps: &[App],
    spec: &serde_json::Map<String, Value>,
) -> Option<String> {
    let bars = find(
        apps,
        |a| matches!(a, "Google Chrome" | "Chromium"),
        |_, n| n.role == "entry" && n.name == "Address and search bar",
    );
    let (_, last) = bars.last()?;
    text(last).filter(|t| !t.is_empty())?;
    let prefix = spec
        .get("goto_prefix")
        .and_then(Value::as_str)
        .unwrap_or("https://");
    let (_, first) = bars.first()?;
    Some(format!("{prefix}{}", text(first).unwrap_or_default()))
}

/// `vm_terminal_output`: the text of the focused terminal in the active
/// window of GNOME Terminal (`gnome-terminal-server`), right-stripped;
/// nothing when there is none or more than one.
pub(crate) fn terminal_output(apps: &[App]) -> Option<String> {
    let in_active_frame = |t: &UiTree, n: &UiNode| {
        t.nodes.first().is_some_and(|root| {
            root.role == "frame" && root.states.contains(ufo_core::States::ACTIVE)
        }) && n.role == "terminal"
            && n.states.contains(ufo_core::States::FOCUSED)
    };
    let found = find(apps, |a| a == "gnome-terminal-server", in_active_frame);
    match found.as_slice() {
        [(_, n)] => text(n).map(|t| t.trim_end().to_owned()),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ufo_core::ui::Capabilities;
    use ufo_core::{ControlType, ElementHandle, States};

    fn n(
        i: usize,
        role: &str,
        name: &str,
        value: Option<&str>,
        states: States,
        children: Vec<usize>,
    ) -> UiNode {
        UiNode {
            index: i,
            parent: None,
            children,
            depth: 0,
            handle: ElementHandle(format!("c|{i}")),
            role: role.into(),
            control_type: ControlType::Other(role.into()),
            name: name.into(),
            description: String::new(),
            value: value.map(str::to_owned),
            states,
            rect: None,
            actions: Vec::new(),
            capabilities: Capabilities {
                text: value.is_some(),
                ..Capabilities::default()
            },
        }
    }

    fn chrome(url: &str) -> Vec<App> {
        let active = States::ACTIVE | States::SHOWING | States::VISIBLE;
        let window = ufo_core::WindowInfo {
            id: "w1".into(),
            app_name: "Chromium".into(),
            pid: None,
            title: "New Tab - Chromium".into(),
            rect: None,
            focused: true,
            handle: ElementHandle(String::new()),
            native_id: None,
            dialog: false,
            modal: false,
            owner: None,
        };
        let tree = UiTree {
            window,
            truncated: false,
            truncation: None,
            nodes: vec![
                n(0, "frame", "New Tab - Chromium", None, active, vec![1]),
                n(
                    1,
                    "entry",
                    "Address and search bar",
                    Some(url),
                    States::FOCUSED | States::MULTI_LINE,
                    vec![],
                ),
            ],
        };
        let attributes = HashMap::from([(
            "c|1".to_owned(),
            vec![
                ("class".to_owned(), "omnibox".to_owned()),
                ("bad name".to_owned(), "x".to_owned()),
            ],
        )]);
        vec![App {
            name: "Chromium".into(),
            trees: vec![tree],
            attributes,
        }]
    }

    #[test]
    fn the_tree_has_application_roots_and_namespaced_states() {
        let x = xml(&chrome("a.com/?q=<b>"));
        assert!(
            x.starts_with("<desktop-frame xmlns:st=\"uri:deskat:state.at-spi.gnome.org\""),
            "{x}"
        );
        assert!(x.contains("<application name=\"Chromium\"><frame name=\"New Tab - Chromium\" st:showing=\"true\" st:visible=\"true\" st:active=\"true\">"), "{x}");
        assert!(x.contains("<entry name=\"Address and search bar\" attr:class=\"omnibox\" st:focused=\"true\" st:multi_line=\"true\">a.com/?q=&lt;b&gt;</entry>"), "{x}");
        // An attribute whose name XML cannot hold is left out.
        assert!(!x.contains("bad name"), "{x}");
        assert!(roxmltree::Document::parse(&x).is_ok());
        assert_eq!(tag("push button"), "push-button");
        assert_eq!(tag(""), "unknown");
        assert_eq!(escape("a\u{1}b"), "ab");
    }

    #[test]
    fn the_address_bar_gives_the_active_url() {
        let spec = serde_json::Map::new();
        assert_eq!(
            address_bar_url(&chrome("example.com/a"), &spec).as_deref(),
            Some("https://example.com/a")
        );
        let mut spec = serde_json::Map::new();
        spec.insert("goto_prefix".into(), Value::String("http://".into()));
        assert_eq!(
            address_bar_url(&chrome("x.org"), &spec).as_deref(),
            Some("http://x.org")
        );
        assert_eq!(address_bar_url(&chrome(""), &spec), None);
        assert_eq!(address_bar_url(&[], &spec), None);
        assert_eq!(terminal_output(&chrome("x")), None);
    }
}
