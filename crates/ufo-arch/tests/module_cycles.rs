//! No sibling modules use each other, at any depth: when `a` uses items
//! of its sibling `b` (`use crate::b::…`, `super::b::f()`, `crate::x::b`
//! from `crate::x::a`, `use super::{b::X, …}`), `b` uses nothing of `a`,
//! directly or through other siblings. A circle is one module split in
//! several files (or a helper in the wrong one); it is broken by moving
//! what they share into a small module of its own, or by turning one use
//! around.
//!
//! Read from the sources under `crates/*/src` (comments, strings and
//! `#[cfg(test)]` modules left out: a test may use any sibling). Each file
//! is a module (`a/b.rs` and `a/b/mod.rs` are `a::b`); each use of a path
//! starting `crate::`, `super::` or `self::` is resolved to the module it
//! names, and counted as an edge between the two children of the deepest
//! module that holds both the user and the used. A circle among the
//! children of one module (a strongly connected group) fails the test with
//! its modules and the lines of each edge. [`KNOWN`] lists the circles left
//! on purpose, each with its reason; an entry that no longer matches a
//! circle fails too, so the list only shrinks.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Circles left as they are: (crate, the modules of the circle as
/// `parent::a parent::b …` in name order, why).
const KNOWN: &[(&str, &str, &str)] = &[];

/// Where one module uses a sibling: (their parent, `a`, `b`) for `a → b`,
/// with the `file:line`s. The crate root's children have the parent `""`.
type Edges = BTreeMap<(String, String, String), Vec<String>>;

/// The code of `src`: comments, string and character literals blanked
/// (newlines kept, so lines still count), so that doc links, commented-out
/// code and text are not uses.
fn code_only(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let ident = |i: usize| i > 0 && (c[i - 1].is_ascii_alphanumeric() || c[i - 1] == '_');
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        match c[i] {
            '/' if next == Some('/') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while i < c.len() {
                    if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        blank(&mut out, c[i]);
                        i += 1;
                    }
                }
            }
            // A raw string: r"…", r#"…"#, br"…".
            'r' if !ident(i) || (c[i - 1] == 'b' && !ident(i - 1)) => {
                let hashes = c[i + 1..].iter().take_while(|&&h| h == '#').count();
                if c.get(i + 1 + hashes) != Some(&'"') {
                    out.push('r');
                    i += 1;
                    continue;
                }
                i += 2 + hashes;
                while i < c.len() {
                    let closes = c[i] == '"'
                        && c[i + 1..]
                            .iter()
                            .take(hashes)
                            .filter(|&&h| h == '#')
                            .count()
                            == hashes;
                    if closes {
                        i += 1 + hashes;
                        break;
                    }
                    blank(&mut out, c[i]);
                    i += 1;
                }
                out.push_str("\"\"");
            }
            '"' => {
                i += 1;
                while i < c.len() && c[i] != '"' {
                    if c[i] == '\\' {
                        i += 1;
                    }
                    if let Some(&ch) = c.get(i) {
                        blank(&mut out, ch);
                    }
                    i += 1;
                }
                i += 1;
                out.push_str("\"\"");
            }
            // A character literal ('x', '\n', '\''); a lifetime has no closing quote.
            '\'' if next == Some('\\') => {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            }
            '\'' if c.get(i + 2) == Some(&'\'') => {
                i += 3;
                out.push_str("' '");
            }
            ch => {
                out.push(ch);
                i += 1;
            }
        }
    }
    out
}

/// `text` without its `#[cfg(test)] mod x { … }` blocks (lines kept), and
/// the names of its `#[cfg(test)] mod x;` files.
fn without_tests(text: &str) -> (String, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut test_files = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "#[cfg(test)]" {
            out.push(lines[i].to_owned());
            i += 1;
            continue;
        }
        // The item the attribute gates, past any further attributes.
        let mut j = i + 1;
        while j < lines.len() && lines[j].trim_start().starts_with("#[") {
            j += 1;
        }
        let item = lines.get(j).map_or("", |l| l.trim());
        let is_mod = item.starts_with("mod ") || item.starts_with("pub(crate) mod ");
        if is_mod && item.ends_with(';') {
            let name = item.trim_end_matches(';').rsplit(' ').next().unwrap_or("");
            test_files.push(name.to_owned());
        }
        if !(is_mod && item.ends_with('{')) {
            out.push(lines[i].to_owned());
            i += 1;
            continue;
        }
        let mut depth = 0i64;
        let mut k = j;
        loop {
            depth += lines[k].matches('{').count() as i64 - lines[k].matches('}').count() as i64;
            k += 1;
            if depth <= 0 || k == lines.len() {
                break;
            }
        }
        out.extend(std::iter::repeat_n(String::new(), k - i));
        i = k;
    }
    (out.join("\n"), test_files)
}

/// Every path starting `crate::`, `super::` or `self::` in `text`, as
/// its segments (a group `{a::X, b}` gives one path per member), with
/// the line it starts on.
fn paths(text: &str) -> Vec<(Vec<String>, usize)> {
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let mut out = Vec::new();
    for (at, _) in text.match_indices("::") {
        // The path's first segment: the identifier just before this `::`,
        // when it is one of the three and starts the path.
        let head: String = text[..at]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if !matches!(head.as_str(), "crate" | "super" | "self") {
            continue;
        }
        let start = at - head.len();
        let before = text[..start].trim_end();
        if before.ends_with("::") || before.ends_with('$') {
            continue; // inside a longer path (`super::super::`), or `$crate`
        }
        for mut segments in expand(&text[at + 2..]) {
            segments.insert(0, head.clone());
            out.push((segments, line_of(start)));
        }
    }
    out
}

/// The paths `rest` (what follows a `::`) continues with: `a::b::X` is one,
/// `{a, b::{c, d}}` three.
fn expand(rest: &str) -> Vec<Vec<String>> {
    let rest = rest.trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        let (mut depth, mut from) = (0usize, 0usize);
        let mut out = Vec::new();
        for (k, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    out.extend(expand(&group[from..k]));
                    return out;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.extend(expand(&group[from..k]));
                    from = k + 1;
                }
                _ => {}
            }
        }
        return out;
    }
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if name.is_empty() {
        return vec![Vec::new()];
    }
    let after = rest[name.len()..].trim_start();
    match after.strip_prefix("::") {
        Some(more) => expand(more)
            .into_iter()
            .map(|mut tail| {
                tail.insert(0, name.clone());
                tail
            })
            .collect(),
        None => vec![vec![name]],
    }
}

/// The module a file of `src` is (`[]` for the crate root; `None` for a
/// binary of `src/bin`, a crate of its own).
fn module_path(src: &Path, file: &Path) -> Option<Vec<String>> {
    let rel = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    let last = parts.pop()?;
    match last.trim_end_matches(".rs") {
        "mod" => {}
        "lib" | "main" if parts.is_empty() => {}
        stem => parts.push(stem.to_owned()),
    }
    Some(parts)
}

/// The module `segments` (a path as [`paths`] gives it) resolves to from
/// the module `at`: `crate` is the root, `self` the module, each `super`
/// its parent.
fn resolve(at: &[String], segments: &[String]) -> Vec<String> {
    let mut base: Vec<String> = match segments[0].as_str() {
        "crate" => Vec::new(),
        _ => at.to_vec(),
    };
    let mut rest = &segments[1..];
    if segments[0] == "super" {
        base.pop();
    }
    while rest.first().is_some_and(|s| s == "super") {
        base.pop();
        rest = &rest[1..];
    }
    base.extend(rest.iter().filter(|s| *s != "self").cloned());
    base
}

/// Every use between sibling modules of the crate at `src`.
fn module_edges(src: &Path) -> Edges {
    let mut files = Vec::new();
    ufo_arch::rust_files(src, &mut files);
    files.sort();
    let modules: BTreeSet<Vec<String>> = files.iter().filter_map(|f| module_path(src, f)).collect();
    let mut texts = BTreeMap::new();
    let mut test_only = BTreeSet::new();
    for f in &files {
        let raw = std::fs::read_to_string(f).unwrap();
        let (text, tests) = without_tests(&code_only(&raw));
        // `mod tests;` in `a.rs` or `a/mod.rs` is the file `a/tests.rs`.
        let dir = match f.file_stem().and_then(|s| s.to_str()) {
            Some("mod" | "lib" | "main") => f.parent().unwrap().to_path_buf(),
            _ => f.with_extension(""),
        };
        for t in tests {
            test_only.insert(dir.join(format!("{t}.rs")));
            test_only.insert(dir.join(t).join("mod.rs"));
        }
        texts.insert(f.clone(), text);
    }
    let mut edges = Edges::new();
    for (f, text) in &texts {
        let Some(from) = module_path(src, f).filter(|_| !test_only.contains(f)) else {
            continue;
        };
        let shown = f.strip_prefix(src.parent().unwrap()).unwrap().display();
        for (segments, line) in paths(text) {
            let to = resolve(&from, &segments);
            let k = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if k >= from.len() || k >= to.len() || !modules.contains(&to[..=k]) {
                continue; // the module itself, an ancestor, a descendant, or an item
            }
            let key = (from[..k].join("::"), from[k].clone(), to[k].clone());
            let at = format!("{shown}:{line}");
            let lines = edges.entry(key).or_default();
            if lines.last() != Some(&at) {
                lines.push(at);
            }
        }
    }
    edges
}

/// The circles among siblings: each strongly connected group of two or
/// more children of one module, as (parent, modules in name order, the
/// edges inside it with their lines).
fn cycles(edges: &Edges) -> Vec<(String, Vec<String>, Vec<String>)> {
    let mut by_parent: BTreeMap<&str, BTreeMap<&str, BTreeSet<&str>>> = BTreeMap::new();
    for (parent, a, b) in edges.keys() {
        by_parent
            .entry(parent)
            .or_default()
            .entry(a)
            .or_default()
            .insert(b);
    }
    let mut out = Vec::new();
    for (parent, graph) in by_parent {
        let reach = |from: &str| -> BTreeSet<String> {
            let mut seen = BTreeSet::new();
            let mut stack = vec![from.to_owned()];
            while let Some(m) = stack.pop() {
                for next in graph.get(m.as_str()).into_iter().flatten() {
                    if seen.insert((*next).to_owned()) {
                        stack.push((*next).to_owned());
                    }
                }
            }
            seen
        };
        let mut placed = BTreeSet::new();
        for &m in graph.keys() {
            if placed.contains(m) {
                continue;
            }
            let forward = reach(m);
            let group: Vec<String> = forward
                .iter()
                .filter(|o| reach(o).contains(m))
                .cloned()
                .collect();
            if group.len() < 2 {
                continue;
            }
            placed.extend(group.iter().cloned());
            let lines = edges
                .iter()
                .filter(|((p, a, b), _)| p == parent && group.contains(a) && group.contains(b))
                .map(|((_, a, b), at)| format!("{a} → {b}: {}", at.join(", ")))
                .collect();
            out.push((parent.to_owned(), group, lines));
        }
    }
    out
}

/// A circle as [`KNOWN`] names it: `parent::a parent::b …`.
fn circle_name(parent: &str, group: &[String]) -> String {
    group
        .iter()
        .map(|m| match parent {
            "" => m.clone(),
            p => format!("{p}::{m}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn sibling_modules_do_not_use_each_other() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = BTreeSet::new();
    let mut failures = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&crates)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() > 5, "no crates under {}", crates.display());
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        for (parent, group, lines) in cycles(&module_edges(&dir.join("src"))) {
            let circle = circle_name(&parent, &group);
            if KNOWN.iter().any(|(c, k, _)| *c == name && *k == circle) {
                found.insert((name.clone(), circle));
                continue;
            }
            failures.push(format!(
                "{name}: {circle} use each other\n  {}",
                lines.join("\n  ")
            ));
        }
    }
    for (c, circle, _) in KNOWN {
        if !found.contains(&((*c).to_owned(), (*circle).to_owned())) {
            failures.push(format!(
                "{c}: {circle} no longer use each other; remove them from KNOWN"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "module circles (move what they share into a module of its own, or turn one use around):\n{}",
        failures.join("\n")
    );
}

/// The scanner on a crate made up for it: what counts as a use and what not.
#[test]
fn the_scanner_sees_uses_and_skips_comments_and_tests() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("c")).unwrap();
    let write = |p: &str, text: &str| std::fs::write(src.join(p), text).unwrap();
    write("lib.rs", "mod a;\nmod b;\nmod c;\nuse crate::a::X;\n");
    write(
        "a.rs",
        "use crate::{b::Y, Root};\n/// see [`crate::c::Z`]\npub struct X;\n",
    );
    write(
        "b.rs",
        "pub struct Y;\nfn f() { let _ = \"crate::c\"; }\n\nfn g() -> crate::a::X { crate::a::X }\n",
    );
    write("c/mod.rs", "mod inner;\n#[cfg(test)]\nmod tests;\n");
    write("c/inner.rs", "/* crate::a::X */ pub struct Z;\n");
    write("c/tests.rs", "use crate::a::X;\n");
    write(
        "c.rs.txt",
        "crate::a::X", // not a Rust file
    );
    let edges = module_edges(&src);
    let keys: Vec<(&str, &str, &str)> = edges
        .keys()
        .map(|(p, a, b)| (p.as_str(), a.as_str(), b.as_str()))
        .collect();
    // `Root` is no module; the string, the doc link, the block comment and
    // the test module are no uses.
    assert_eq!(keys, [("", "a", "b"), ("", "b", "a")], "{edges:?}");
    assert_eq!(
        edges[&(String::new(), "b".into(), "a".into())],
        ["src/b.rs:4"]
    );
    let found = cycles(&edges);
    assert_eq!(found.len(), 1);
    assert_eq!(circle_name(&found[0].0, &found[0].1), "a b");
    assert_eq!(found[0].2, ["a → b: src/a.rs:1", "b → a: src/b.rs:4"]);

    // An inline test module of `b` may use `a`: no cycle then.
    write(
        "b.rs",
        "pub struct Y;\n#[cfg(test)]\nmod tests {\n    fn t() { let _ = crate::a::X; }\n}\n",
    );
    assert!(cycles(&module_edges(&src)).is_empty());
}

/// A circle planted among the children of a nested module, through
/// `super::`, a group and a full path, is found; its parent's own items
/// and its children's are no edges.
#[test]
fn a_circle_among_nested_siblings_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("x/deep")).unwrap();
    let write = |p: &str, text: &str| std::fs::write(src.join(p), text).unwrap();
    write("lib.rs", "mod x;\n");
    write(
        "x/mod.rs",
        "mod p;\nmod q;\nmod r;\nmod deep;\npub struct Shared;\nfn f() { p::go() }\n",
    );
    write("x/p.rs", "use super::{Shared, q::Q};\npub fn go() {}\n");
    write("x/q.rs", "pub struct Q;\nfn f() { crate::x::r::R; }\n");
    write(
        "x/r.rs",
        "pub struct R;\nuse super::super::x::p::go;\nuse self::inner::I;\n",
    );
    write("x/deep/mod.rs", "use super::super::x::Shared;\n");
    let found = cycles(&module_edges(&src));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(circle_name(&found[0].0, &found[0].1), "x::p x::q x::r");
    assert_eq!(
        found[0].2,
        [
            "p → q: src/x/p.rs:1",
            "q → r: src/x/q.rs:2",
            "r → p: src/x/r.rs:2"
        ]
    );

    // Turning one use around breaks the circle.
    write("x/r.rs", "pub struct R;\n");
    assert!(cycles(&module_edges(&src)).is_empty());
}
