//! The pretty print: libxml2's `htmlNodeDumpFormatOutput` with `format = 1`.

use super::tables::{BOOLEAN_ATTRS, info};
use super::{Element, Node, is_blank};

/// `htmlNodeDumpFormatOutput` with `format = 1`, for `e` whose parent is
/// named `parent` (none for the root) and which a non-text sibling follows
/// (`next_is_markup`).
pub(super) fn dump_element(
    e: &Element,
    parent: Option<&str>,
    next_is_markup: bool,
    out: &mut String,
) {
    let info = info(&e.name);
    let block = info.as_ref().is_some_and(|i| !i.inline);
    out.push('<');
    out.push_str(&e.name);
    for (name, value) in &e.attrs {
        dump_attr(&e.name, name, value.as_deref(), out);
    }
    let not_p = |n: &str| !n.starts_with('p');
    if info.as_ref().is_some_and(|i| i.empty) {
        out.push('>');
    } else if e.children.is_empty() {
        if info.as_ref().is_some_and(|i| i.save_end) {
            out.push('>');
        } else {
            out.push_str("></");
            out.push_str(&e.name);
            out.push('>');
        }
    } else {
        out.push('>');
        let several = e.children.len() > 1;
        let markup = |n: Option<&Node>| !matches!(n, Some(Node::Text(_)));
        if block && several && markup(e.children.first()) && not_p(&e.name) {
            out.push('\n');
        }
        for (i, child) in e.children.iter().enumerate() {
            let next = e.children.get(i + 1);
            match child {
                Node::Element(c) => {
                    let next_markup = next.is_some_and(|n| !matches!(n, Node::Text(_)));
                    dump_element(c, Some(&e.name), next_markup, out);
                }
                Node::Text(t) if matches!(e.name.as_str(), "script" | "style") => out.push_str(t),
                Node::Text(t) => escape_text(t, out),
                Node::Comment(c) => {
                    out.push_str("<!--");
                    out.push_str(c);
                    out.push_str("-->");
                }
            }
        }
        if block && several && markup(e.children.last()) && not_p(&e.name) {
            out.push('\n');
        }
        out.push_str("</");
        out.push_str(&e.name);
        out.push('>');
    }
    if block && next_is_markup && parent.is_some_and(not_p) {
        out.push('\n');
    }
}

fn escape_text(t: &str, out: &mut String) {
    for c in t.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
}

/// `htmlAttrDumpOutput`.
fn dump_attr(element: &str, name: &str, value: Option<&str>, out: &mut String) {
    out.push(' ');
    out.push_str(name);
    let Some(value) = value else { return };
    if BOOLEAN_ATTRS.contains(&name) {
        return;
    }
    let mut escaped = String::new();
    escape_text(value, &mut escaped);
    let uri = matches!(name, "href" | "action" | "src") || (name == "name" && element == "a");
    let value = match uri {
        true => uri_escape(escaped.trim_start_matches(is_blank)),
        false => escaped,
    };
    out.push('=');
    match (value.contains('"'), value.contains('\'')) {
        (true, true) => {
            out.push('"');
            out.push_str(&value.replace('"', "&quot;"));
            out.push('"');
        }
        (true, false) => {
            out.push('\'');
            out.push_str(&value);
            out.push('\'');
        }
        _ => {
            out.push('"');
            out.push_str(&value);
            out.push('"');
        }
    }
}

/// `xmlURIEscapeStr(value, "\"#$%&+,/:;<=>?@[\\]^`{|}")`: every byte that
/// is not unreserved, `@` or in that list as `%XX`.
fn uri_escape(value: &str) -> String {
    const KEEP: &[u8] = b"\"#$%&+,/:;<=>?@[\\]^`{|}-_.!~*'()";
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || KEEP.contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
