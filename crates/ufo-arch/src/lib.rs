//! The workspace's architecture, kept by tests: this crate's only code is
//! [`rust_files`], which its tests share. They read the other crates'
//! sources and `cargo metadata`:
//!
//! - `tests/crate_graph.rs`: what a device links carries no agents, models
//!   or search index; the vocabulary and the backend contract carry no OS
//!   API;
//! - `tests/module_cycles.rs`: no sibling modules use each other, at any
//!   depth of any crate;
//! - `tests/function_length.rs`: no function of library code is longer
//!   than 120 lines;
//! - `tests/file_map.rs`: docs/ARCHITECTURE.md's file map lists every
//!   source file.
//!
//! docs/ARCHITECTURE.md names each invariant and the test that keeps it.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, at any depth, appended to `out` (nothing
/// for a folder that cannot be read).
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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
