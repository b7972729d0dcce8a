//! # ufo-session — sessions, rounds and modes
//!
//! Context, rounds, sessions and modes (normal, follower, batch, service), the
//! command dispatcher (local or remote), logs and trajectory reports.
//!
//! ## What this crate must not know
//! Provider wire formats and D-Bus.
