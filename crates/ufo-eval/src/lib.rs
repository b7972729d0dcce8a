//! # ufo-eval — benchmark tasks in OSWorld's format on private desktops
//!
//! `ufo eval` runs task files in OSWorld's JSON format ([`task`]), each on
//! its own fresh private headless desktop: setup ([`setup`]), the agent's
//! session, postconfig, getters ([`getters`]) and OSWorld's metric functions
//! ([`checkers`]), combined by OSWorld's scoring rules ([`score`]). The
//! harness ([`run`]) runs N tasks at a time, records crashes, hangs and
//! unsupported checkers per task and resumes where a run stopped; [`report`]
//! writes `results.json`, `report.md` and comparisons.
//!
//! ## What this crate must not know
//! How agents decide: it runs a session through `ufo-session` like
//! `ufo run` does, and reads only what a user could check afterwards.

pub mod cdp;
pub mod checkers;
pub mod chrome;
pub mod command;
pub mod fetch;
pub mod getters;
pub mod preflight;
pub mod report;
pub mod run;
pub mod score;
pub mod setup;
pub mod suite;
pub mod task;
pub mod vm_home;
