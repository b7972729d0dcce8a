//! Which desktop a command talks to.
//!
//! Order: an explicitly named private desktop (`--desktop NAME` or `UFO_DESKTOP`);
//! else the private desktop `default` when one is running; else the caller's own
//! environment (`DISPLAY`, `DBUS_SESSION_BUS_ADDRESS`) — running `ufo` on your own
//! desktop is how you ask it to act there.

use crate::headless::{HeadlessDesktop, HeadlessError};
use serde::Serialize;
use std::path::Path;

/// The coordinates of one desktop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DesktopTarget {
    /// X display (`:3`), when known.
    pub display: Option<String>,
    /// Session bus address, when known.
    pub session_bus: Option<String>,
    /// Human-readable origin: `private desktop "default"` or `environment`.
    pub source: String,
    /// The private desktop's name and state root, when it is one (where
    /// applications are launched into).
    pub private: Option<(String, std::path::PathBuf)>,
}

impl DesktopTarget {
    /// Resolves the target as described in the module docs.
    pub fn resolve(name: Option<&str>, state_root: &Path) -> Result<Self, HeadlessError> {
        let named = name
            .map(str::to_owned)
            .or_else(|| std::env::var("UFO_DESKTOP").ok().filter(|s| !s.is_empty()));
        if let Some(name) = named {
            let d = HeadlessDesktop::open(&name, state_root)?;
            return Ok(Self::from_private(&d));
        }
        if let Ok(d) = HeadlessDesktop::open("default", state_root) {
            return Ok(Self::from_private(&d));
        }
        Ok(Self::from_env())
    }

    /// The target of a running private desktop.
    pub fn from_private(d: &HeadlessDesktop) -> Self {
        let s = d.state();
        Self {
            display: Some(s.display.clone()),
            session_bus: Some(s.session_bus.clone()),
            source: format!("private desktop {:?}", s.name),
            private: s
                .state_dir
                .parent()
                .and_then(Path::parent)
                .map(|root| (s.name.clone(), root.to_path_buf())),
        }
    }

    /// The caller's own environment.
    pub fn from_env() -> Self {
        Self {
            display: std::env::var("DISPLAY").ok().filter(|s| !s.is_empty()),
            session_bus: std::env::var("DBUS_SESSION_BUS_ADDRESS")
                .ok()
                .filter(|s| !s.is_empty())
                .or_else(|| {
                    // The systemd default location of the user bus.
                    let p = format!("/run/user/{}/bus", nix::unistd::getuid());
                    Path::new(&p).exists().then(|| format!("unix:path={p}"))
                }),
            source: "environment".into(),
            private: None,
        }
    }
}
