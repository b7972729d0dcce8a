//! No function of library code is longer than [`MAX_LINES`] lines: a longer
//! one does several things in a row, and is split into one function per
//! phase, named for what the phase does.
//!
//! Read from the sources under `crates/*/src` with `syn`: every free
//! function, method and provided trait method (nested ones included), its
//! body measured from its opening to its closing brace, comments and blank
//! lines counted (clippy's `too_many_lines` counts code lines only).
//! `#[cfg(test)]` modules (inline, or files of their own) and `#[test]`
//! functions are left out. A function over the limit fails the test with
//! `file:line name (N lines)`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use syn::visit::{self, Visit};

/// The longest body allowed, in lines.
const MAX_LINES: usize = 120;

/// One function's body: where it starts, what it is called, how long it is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Body {
    line: usize,
    name: String,
    lines: usize,
}

/// `attrs` hold `#[cfg(test)]`.
fn cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
    })
}

/// `attrs` make a test function: `#[test]`, `#[tokio::test]`, ...
fn test_fn(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().segments.last().is_some_and(|s| s.ident == "test"))
        || cfg_test(attrs)
}

/// The lines `block` spans, braces included.
fn span_lines(block: &syn::Block) -> (usize, usize) {
    let start = block.brace_token.span.open().start().line;
    let end = block.brace_token.span.close().end().line;
    (start, end - start + 1)
}

/// The name an `impl` block's methods are shown under (`Type`).
fn type_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default(),
        syn::Type::Reference(r) => type_name(&r.elem),
        _ => "_".into(),
    }
}

/// Collects the bodies of one file, and the `#[cfg(test)] mod x;` it names.
#[derive(Default)]
struct Scan {
    bodies: Vec<Body>,
    test_mods: Vec<(String, Option<String>)>,
    owner: Vec<String>,
}

impl Scan {
    fn body(&mut self, name: &syn::Ident, block: &syn::Block) {
        let (line, lines) = span_lines(block);
        let name = match self.owner.last() {
            Some(o) => format!("{o}::{name}"),
            None => name.to_string(),
        };
        self.bodies.push(Body { line, name, lines });
    }
}

impl<'ast> Visit<'ast> for Scan {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !cfg_test(&m.attrs) {
            return visit::visit_item_mod(self, m);
        }
        if m.content.is_none() {
            // A `#[path = "…"]` names the file itself.
            let path = m.attrs.iter().find_map(|a| match &a.meta {
                syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            });
            self.test_mods.push((m.ident.to_string(), path));
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if test_fn(&f.attrs) {
            return;
        }
        self.body(&f.sig.ident, &f.block);
        visit::visit_item_fn(self, f);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if cfg_test(&i.attrs) {
            return;
        }
        self.owner.push(type_name(&i.self_ty));
        visit::visit_item_impl(self, i);
        self.owner.pop();
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        if cfg_test(&t.attrs) {
            return;
        }
        self.owner.push(t.ident.to_string());
        visit::visit_item_trait(self, t);
        self.owner.pop();
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if test_fn(&f.attrs) {
            return;
        }
        self.body(&f.sig.ident, &f.block);
        visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if test_fn(&f.attrs) {
            return;
        }
        if let Some(block) = &f.default {
            self.body(&f.sig.ident, block);
        }
        visit::visit_trait_item_fn(self, f);
    }
}

/// The files a `#[cfg(test)] mod name;` in `file` may be:
/// `dir/name.rs` and `dir/name/mod.rs`, or its `#[path]`.
fn test_files(file: &Path, name: &str, path: Option<&str>) -> Vec<PathBuf> {
    let parent = file.parent().unwrap();
    if let Some(p) = path {
        return vec![parent.join(p)];
    }
    // `mod tests;` in `a.rs` is `a/tests.rs`; in `a/mod.rs` or a crate root,
    // `a/tests.rs`.
    let dir = match file.file_stem().and_then(|s| s.to_str()) {
        Some("mod" | "lib" | "main") => parent.to_path_buf(),
        _ => file.with_extension(""),
    };
    vec![
        dir.join(format!("{name}.rs")),
        dir.join(name).join("mod.rs"),
    ]
}

/// Every function body of the Rust files under `src` that is not test code,
/// with the file it is in.
fn bodies(src: &Path) -> Vec<(PathBuf, Body)> {
    let mut files = Vec::new();
    ufo_arch::rust_files(src, &mut files);
    files.sort();
    let mut scans = Vec::new();
    let mut test_only = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let ast =
            syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: cannot parse: {e}", f.display()));
        let mut scan = Scan::default();
        scan.visit_file(&ast);
        for (name, path) in &scan.test_mods {
            test_only.extend(test_files(&f, name, path.as_deref()));
        }
        scans.push((f, scan.bodies));
    }
    scans
        .into_iter()
        .filter(|(f, _)| !test_only.contains(f))
        .flat_map(|(f, bodies)| bodies.into_iter().map(move |b| (f.clone(), b)))
        .collect()
}

/// The bodies over [`MAX_LINES`], as `file:line name (N lines)` with the
/// file relative to `root`.
fn too_long(root: &Path, src: &Path) -> Vec<String> {
    bodies(src)
        .into_iter()
        .filter(|(_, b)| b.lines > MAX_LINES)
        .map(|(f, b)| {
            let shown = f.strip_prefix(root).unwrap_or(&f).display().to_string();
            format!("{shown}:{} {} ({} lines)", b.line, b.name, b.lines)
        })
        .collect()
}

#[test]
fn no_library_function_is_over_the_limit() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let root = crates.join("..");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&crates)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() > 5, "no crates under {}", crates.display());
    let root = root.canonicalize().unwrap();
    let mut failures = Vec::new();
    let mut seen = 0;
    for dir in dirs {
        let src = dir.join("src").canonicalize().unwrap();
        seen += bodies(&src).len();
        failures.extend(too_long(&root, &src));
    }
    assert!(seen > 1000, "only {seen} functions found");
    assert!(
        failures.is_empty(),
        "functions over {MAX_LINES} lines (split each into one function per phase):\n  {}",
        failures.join("\n  ")
    );
}

/// The scanner on a crate made up for it: what it measures and what it
/// leaves out.
#[test]
fn the_scanner_measures_bodies_and_skips_tests() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("a")).unwrap();
    let write = |p: &str, text: &str| std::fs::write(src.join(p), text).unwrap();
    let long = |name: &str, attr: &str| {
        format!(
            "{attr}fn {name}() {{\n{}}}\n",
            "    let _ = 1;\n".repeat(MAX_LINES - 1)
        )
    };
    write(
        "lib.rs",
        &format!(
            "mod a;\n{}\nfn short() {{}}\n#[cfg(test)]\nmod tests {{\n{}}}\n",
            long("too_long", ""),
            long("in_tests", "")
        ),
    );
    write(
        "a.rs",
        &format!(
            "#[cfg(test)]\nmod tests;\nstruct S;\nimpl S {{\n{}{}}}\ntrait T {{\n{}}}\n",
            long("method", "    "),
            long("test_method", "#[test]\n"),
            long("provided", "")
        ),
    );
    write("a/tests.rs", &long("in_test_file", ""));
    let root = dir.path();
    let got = too_long(root, &src);
    assert_eq!(
        got,
        [
            "src/a.rs:5 S::method (121 lines)",
            "src/a.rs:250 T::provided (121 lines)",
            "src/lib.rs:2 too_long (121 lines)",
        ],
        "{got:?}"
    );
    let all = bodies(&src);
    let short = all.iter().find(|(_, b)| b.name == "short").unwrap();
    assert_eq!(short.1.lines, 1);
    // One line shorter is within the limit.
    write("a.rs", "fn f() {\n}\n");
    std::fs::remove_file(src.join("a/tests.rs")).unwrap();
    write(
        "lib.rs",
        &long("fits", "").replacen("    let _ = 1;\n", "", 1),
    );
    assert!(too_long(root, &src).is_empty());
}
