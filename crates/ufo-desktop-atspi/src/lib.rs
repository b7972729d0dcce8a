//! # ufo-desktop-atspi — the Linux backend
//!
//! AT-SPI over D-Bus (via `atspi`/`zbus`) for trees and semantic actions, X11 (via
//! `x11rb`) for screenshots, XTEST input and window focus, and the private headless
//! desktop (Xvfb + session bus + accessibility bus) used by servers, CI and tests.
//!
//! ## What this crate must not know
//! Agents, prompts and models. It implements `ufo_desktop::Backend` and nothing
//! above it.

pub mod backend;
pub mod bus;
pub mod doctor;
pub(crate) mod events;
pub mod headless;
pub mod labels;
pub mod record;
pub mod roles;
pub mod target;
pub mod x11;

pub use backend::AtspiBackend;
pub use headless::{DesktopOptions, HeadlessDesktop, HeadlessError};
pub use target::DesktopTarget;
