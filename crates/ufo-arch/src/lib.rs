//! The workspace's architecture, kept by tests: this crate has no code of
//! its own. Its tests read the other crates' sources and `cargo metadata`:
//!
//! - `tests/crate_graph.rs`: what a device links carries no agents, models
//!   or search index; the vocabulary and the backend contract carry no OS
//!   API;
//! - `tests/module_cycles.rs`: no sibling modules use each other, at any
//!   depth of any crate;
//! - `tests/function_length.rs`: no function of library code is longer
//!   than 120 lines.
//!
//! docs/ARCHITECTURE.md names each invariant and the test that keeps it.
