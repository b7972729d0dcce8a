//! # ufo-desktop — backend-neutral eyes and hands
//!
//! Owns the [`Backend`] contract (list windows, capture a window's tree within a
//! budget, take a screenshot, perform one primitive action), the UI tool catalog
//! with UFO's tool names executed over any backend, the pywinauto-style key syntax,
//! control filtering and labelling, and the image side of perception: set-of-marks
//! annotation, concatenation and selected-control overlays.
//!
//! ## What this crate must not know
//! D-Bus, X11, Win32 or any other OS API (those live in backend crates), and
//! agents, prompts or models.

pub mod annotate;
pub mod backend;
pub mod compose;
pub mod encode;
pub mod error;
pub mod filter;
pub mod font;
pub mod keyparse;
pub mod keys;
pub mod names;
pub mod screenshot;

pub use backend::{Backend, MouseButton, ScreenshotTarget, TreeBudget};
pub use error::{DesktopError, Result};
pub use screenshot::Screenshot;
