//! docs/ARCHITECTURE.md's "File map" lists every source file of every
//! crate (`crates/*/src/**/*.rs`), and every file it lists exists: a file
//! added, moved or removed without the map fails here, naming it
//! (`scripts/docs/file_map.py` writes the section again).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::Path;

/// The paths the map's lines name: "- `crates/…/src/….rs`: …".
fn listed(map: &str) -> BTreeSet<String> {
    map.lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split_once('`').map(|(p, _)| p.to_owned()))
        .filter(|p| p.starts_with("crates/") && p.ends_with(".rs"))
        .collect()
}

#[test]
fn the_file_map_lists_every_source_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let map = doc
        .split_once("\n## File map\n")
        .map(|(_, rest)| rest.split("\n## ").next().unwrap_or(rest))
        .expect("docs/ARCHITECTURE.md has no \"## File map\" section");
    let listed = listed(map);
    let mut files = Vec::new();
    for c in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        ufo_arch::rust_files(&c.path().join("src"), &mut files);
    }
    let present: BTreeSet<String> = files
        .iter()
        .map(|f| {
            f.strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert!(present.len() > 100, "{} files", present.len());
    let missing: Vec<_> = present.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&present).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/ARCHITECTURE.md's file map is out of date (run scripts/docs/file_map.py):\n  not listed: {missing:?}\n  listed but gone: {stale:?}"
    );
}

#[test]
fn map_lines_are_read_as_paths() {
    let map = "- `crates/a/src/x.rs`: X.\n- `crates/a/src/y.rs`: Y\n* `crates/b/src/z.rs`\n- `README.md`: no\n";
    let got: Vec<_> = listed(map).into_iter().collect();
    assert_eq!(got, ["crates/a/src/x.rs", "crates/a/src/y.rs"]);
}
