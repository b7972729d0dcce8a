//! # ufo-desktop — backend-neutral eyes and hands
//!
//! Owns the [`Backend`] contract (list windows, capture a window's tree within a
//! budget, take a screenshot, perform one primitive action), the UI tool catalog
//! with UFO's tool names executed over any backend, the pywinauto-style key syntax,
//! control filtering and labelling, and the image side of perception: set-of-marks
//! annotation, concatenation and selected-control overlays.
//!
//! ## One observation, one action
//!
//! ```no_run
//! use ufo_desktop::{Backend, annotate, encode, filter, tools};
//! use ufo_core::Command;
//! # async fn demo(backend: &dyn Backend) -> ufo_desktop::Result<()> {
//! let mut ctx = tools::ToolContext::default();
//! // HostAgent: list windows, pick one (ids are 1-based positions in the list).
//! tools::execute(backend, &mut ctx, &Command::data("get_desktop_app_info", serde_json::json!({}))).await;
//! tools::execute(backend, &mut ctx, &Command::action(
//!     "select_application_window", serde_json::json!({"id": "1", "name": "Calculator"}))).await;
//! // AppAgent data collection: labelled controls (stored in ctx) and a screenshot.
//! tools::execute(backend, &mut ctx, &Command::data("get_app_window_controls_target_info", serde_json::json!({}))).await;
//! tools::execute(backend, &mut ctx, &Command::data("capture_window_screenshot", serde_json::json!({}))).await;
//! if let Some(shot) = &ctx.last_screenshot {
//!     let marked = annotate::annotate(shot, &ctx.controls, &annotate::AnnotationStyle::default())?;
//!     let _url = encode::png_data_url(&marked.image, encode::PngCompression::Fast)?;
//!     let _for_prompt = filter::prompt_json(&ctx.controls);
//! }
//! // The model's action.
//! let r = tools::execute(backend, &mut ctx, &Command::action(
//!     "click_input", serde_json::json!({"id": "4", "name": "7"}))).await;
//! assert!(r.is_success() || r.error.is_some());
//! # Ok(()) }
//! ```
//!
//! ## Modules
//! - [`backend`]: the platform contract; [`keys`]: key events it receives.
//! - [`filter`]: tree → numbered controls; [`names`]: lenient name matching.
//! - [`keyparse`]: pywinauto key syntax → key events.
//! - [`annotate`], [`compose`], [`encode`], [`font`]: set-of-marks images,
//!   side-by-side and selected-control images, PNG and data URLs.
//! - [`tools`]: the tool catalog and its executor.
//! - [`observe`]: one [`observe::Observation`] of a window and the model's
//!   images of it; [`dispatch`]: the seam agents observe and act through.
//!
//! ## What this crate must not know
//! D-Bus, X11, Win32 or any other OS API (those live in backend crates), and
//! agents, prompts or models.

pub mod annotate;
pub mod backend;
pub mod commands;
pub mod compose;
pub mod designate;
pub mod dispatch;
pub mod encode;
pub mod error;
pub mod filter;
pub mod follow;
pub mod font;
pub mod keyparse;
pub mod keys;
pub mod launch;
pub mod names;
pub mod observe;
pub mod screenshot;
pub mod tools;

pub use backend::{Backend, Identity, Launched, MouseButton, ScreenshotTarget, TreeBudget};
pub use error::{DesktopError, Result};
pub use screenshot::Screenshot;
pub use tools::{ToolContext, catalog, execute};
