//! The `ufo` binary.
fn main() {}
