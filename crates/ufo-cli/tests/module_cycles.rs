//! No two top-level modules of a crate use each other: when `a` uses items
//! of `b` (`use crate::b::…`, `crate::b::f()`, `use crate::{b::X, …}`), `b`
//! uses nothing of `a`. A pair that does is one module split in two files
//! (or a helper in the wrong one); it is broken by moving what both use
//! into a small module of its own, or by turning one use around.
//!
//! Read from the sources under `crates/*/src` (comments and `#[cfg(test)]`
//! modules left out: a test may use any sibling). A cycle fails the test
//! with both modules and the lines of each direction. [`KNOWN`] lists the
//! cycles left on purpose, each with its reason; an entry that no longer
//! matches a cycle fails too, so the list only shrinks.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Cycles left as they are: (crate, module, module, why).
const KNOWN: &[(&str, &str, &str, &str)] = &[];

/// Where one module uses another: `a → b` with the `file:line`s.
type Edges = BTreeMap<(String, String), Vec<String>>;

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

/// The first path segment after each `crate::` in `text`, with its line;
/// `crate::{a::X, b}` gives `a` and `b`.
fn crate_uses(text: &str) -> Vec<(String, usize)> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let mut out = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue; // `foo_crate::`, `$crate::`
        }
        let rest = &text[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level names of the group: after `{` and after each `,` at depth 0.
            let (mut depth, mut start) = (0usize, true);
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && !c.is_whitespace() => {
                        start = false;
                        let name = ident(&group[k..]);
                        let pos = at + "crate::{".len() + k;
                        out.push((name, line_of(pos)));
                    }
                    _ => {}
                }
            }
        } else {
            out.push((ident(rest), line_of(at)));
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file of `src` belongs to (`None` for the crate
/// root and for binaries).
fn top_module(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_string_lossy();
    let name = first.trim_end_matches(".rs").to_owned();
    match name.as_str() {
        "lib" | "main" | "bin" => None,
        _ => Some(name),
    }
}

/// Every `a → b` use between top-level modules of the crate at `src`.
fn module_edges(src: &Path) -> Edges {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let modules: BTreeSet<String> = files.iter().filter_map(|f| top_module(src, f)).collect();
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
        let Some(from) = top_module(src, f).filter(|_| !test_only.contains(f)) else {
            continue;
        };
        let shown = f.strip_prefix(src.parent().unwrap()).unwrap().display();
        for (to, line) in crate_uses(text) {
            if to != from && modules.contains(&to) {
                let at = format!("{shown}:{line}");
                let lines = edges.entry((from.clone(), to)).or_default();
                if lines.last() != Some(&at) {
                    lines.push(at);
                }
            }
        }
    }
    edges
}

/// The pairs of modules that use each other: (a, b, lines a → b, lines b → a).
fn cycles(edges: &Edges) -> Vec<(String, String, Vec<String>, Vec<String>)> {
    edges
        .iter()
        .filter(|((a, b), _)| a < b)
        .filter_map(|((a, b), there)| {
            let back = edges.get(&(b.clone(), a.clone()))?;
            Some((a.clone(), b.clone(), there.clone(), back.clone()))
        })
        .collect()
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
        for (a, b, there, back) in cycles(&module_edges(&dir.join("src"))) {
            let known = KNOWN
                .iter()
                .any(|(c, x, y, _)| *c == name && ((*x, *y) == (&a, &b) || (*y, *x) == (&a, &b)));
            if known {
                found.insert((name.clone(), a, b));
                continue;
            }
            failures.push(format!(
                "{name}: `{a}` and `{b}` use each other\n  {a} → {b}: {}\n  {b} → {a}: {}",
                there.join(", "),
                back.join(", ")
            ));
        }
    }
    for (c, x, y, _) in KNOWN {
        let (a, b) = if x < y { (x, y) } else { (y, x) };
        if !found.contains(&((*c).to_owned(), (*a).to_owned(), (*b).to_owned())) {
            failures.push(format!(
                "{c}: `{x}` and `{y}` no longer use each other; remove them from KNOWN"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "module cycles (move what both use into a module of its own, or turn one use around):\n{}",
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
    let keys: Vec<(&str, &str)> = edges
        .keys()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    // `Root` is no module; the string, the doc link, the block comment and
    // the test module are no uses.
    assert_eq!(keys, [("a", "b"), ("b", "a")], "{edges:?}");
    assert_eq!(edges[&("b".into(), "a".into())], ["src/b.rs:4"]);
    let found = cycles(&edges);
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].0.as_str(), found[0].1.as_str()), ("a", "b"));
    assert_eq!(found[0].2, ["src/a.rs:1"]);

    // An inline test module of `b` may use `a`: no cycle then.
    write(
        "b.rs",
        "pub struct Y;\n#[cfg(test)]\nmod tests {\n    fn t() { let _ = crate::a::X; }\n}\n",
    );
    assert!(cycles(&module_edges(&src)).is_empty());
}
