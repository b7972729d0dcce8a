//! # ufo-bench — the benchmarks behind `ufo bench`
//!
//! Each benchmark runs ufo-rs and its baseline side by side, in the same
//! desktop, in the same run, and returns a report that prints as text
//! ([`std::fmt::Display`]) or JSON ([`serde::Serialize`]). The `ufo` binary
//! parses the arguments and prints; everything else is here.
//!
//! | module | `ufo bench …` | measures | baseline |
//! |---|---|---|---|
//! | [`perception`] | `perception` | one observation, phase by phase | (`scripts/bench/pyatspi_walk.py`) |
//! | [`apps`] | `apps` | full and live observation per application, in its own desktop | a careful pyatspi walk: pruned as ufo prunes, reading what ufo reads |
//! | [`step`] | `step` | one agent step's own cost, model scripted | a Python agent doing the same steps |
//! | [`service`] | `service` | devices held and command round trips | a bare WebSocket echo |
//! | [`tokens`] | `tokens` | prompt tokens of a control list | UFO's layouts of the same controls |
//!
//! Some benchmarks start the running executable again as a helper process
//! (the simulated devices, the scripted model), so that the helper's memory
//! and CPU are not the measured process's: the binary embedding this crate
//! routes `bench service-devices` to [`service::devices`] and
//! `bench step-model` to [`step::serve_model`].
//!
//! `ufo eval` (OSWorld-format tasks, scored) is no benchmark of ufo's speed
//! and stays with its library, `ufo-eval`.

pub mod apps;
mod error;
pub mod perception;
pub mod service;
pub mod step;
pub mod tokens;

pub use error::BenchError;

/// The median of `v` (sorted here); 0 for none.
pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    median_sorted(&v)
}

/// The median of a sorted slice; 0 for none.
pub(crate) fn median_sorted(v: &[f64]) -> f64 {
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// `v` rounded to `places` decimals.
pub(crate) fn round(v: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (v * f).round() / f
}

/// This process's resident memory now and at its peak (`VmRSS`, `VmHWM`),
/// in KiB; 0 where `/proc` does not say.
pub fn memory_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}
