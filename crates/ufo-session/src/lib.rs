//! # ufo-session — sessions, rounds and modes
//!
//! Context, rounds, sessions and modes (normal, follower, batch_normal and the
//! Linux single-tier session), the command dispatcher, logs and trajectory
//! reports.
//!
//! ```no_run
//! # async fn demo(backend: std::sync::Arc<dyn ufo_desktop::Backend>) -> Result<(), ufo_session::SessionError> {
//! use std::sync::Arc;
//! use ufo_session::{config::UfoConfig, dispatcher::local_dispatcher, session::*};
//! let config = UfoConfig::load("config.yaml".as_ref())?;
//! let services = Services {
//!     dispatcher: Arc::new(local_dispatcher(backend, &config.system)),
//!     io: Arc::new(ufo_session::console::ConsoleIo),
//!     prompts: Arc::new(ufo_agent::PromptSet::load(&config.prompts).map_err(|e| ufo_session::SessionError::Plan { path: "prompts".into(), message: e.to_string(), source: Some(e.into()) })?),
//!     log_root: "logs".into(),
//!     config,
//! };
//! let reports = run(&services, &RunOptions { task: "demo".into(), mode: Mode::Normal,
//!     request: Some("compute 12*7 in the calculator".into()), plan: None, app: None }).await?;
//! println!("{:?}", reports[0].status);
//! # Ok(()) }
//! ```
//!
//! ## What this crate must not know
//! Provider wire formats and D-Bus.

pub mod config;
pub mod console;
pub mod dispatcher;
pub mod error;
pub mod knowledge;
pub mod logs;
pub mod plan;
pub mod session;
pub mod user_io;

pub use error::SessionError;
pub use session::{Mode, RunOptions, Services, SessionReport, SessionStatus, run};
pub use user_io::{ScriptedIo, UserIo};
