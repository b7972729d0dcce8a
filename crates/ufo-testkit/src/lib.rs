//! # ufo-testkit — test support only
//!
//! A private headless desktop per test binary (started once, stopped when the
//! process exits, even on panic), app launch and wait, a scripted model served
//! over real HTTP, and an in-process [`fake::FakeDesktop`] for session and agent
//! tests that are not about the desktop. A dev-dependency of every crate but
//! `ufo-bench`, which links [`scripted`] and [`apps`] alone (see below).
//!
//! ```no_run
//! # async fn t() {
//! let desktop = ufo_testkit::shared_desktop().await;
//! let app = ufo_testkit::launch(desktop, &["gnome-calculator"]).await;
//! assert_eq!(app.app_name, "gnome-calculator");
//! # }
//! ```
//!
//! Without its default `desktop` feature only [`scripted`] and [`apps`] are
//! built: the scripted model that `ufo bench step` also serves (the one
//! scripted model of the project) and the files the applications open
//! (`ufo bench apps`), without the desktop fixtures.
//!
//! Nothing is skipped: when Xvfb or an application is missing the test fails
//! with a message naming the Debian package to install.

// Test support panics on purpose: a failed fixture is a failed test.
#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)]

pub mod apps;
#[cfg(feature = "desktop")]
pub mod deps;
#[cfg(feature = "desktop")]
mod desktop;
#[cfg(feature = "desktop")]
pub mod fake;
pub mod scripted;

#[cfg(feature = "desktop")]
pub use desktop::*;
