//! Connecting to a desktop and picking a window, shared by the perception
//! commands.
//!
//! The one place that chooses the platform backend: AT-SPI and X11 on
//! Linux (a private desktop or $DISPLAY), UI Automation and Win32 on
//! Windows (the interactive desktop the program runs on).

use clap::Args;
use std::path::PathBuf;
use ufo_core::{Diagnostic, ErrorReport, WindowInfo};
use ufo_desktop::Backend;

/// The backend of the platform this binary is built for.
#[cfg(not(windows))]
pub(crate) type PlatformBackend = ufo_desktop_atspi::AtspiBackend;
/// The backend of the platform this binary is built for.
#[cfg(windows)]
pub(crate) type PlatformBackend = ufo_desktop_windows::WindowsBackend;

/// Which desktop to talk to.
#[derive(Debug, Clone, Args)]
pub(crate) struct DesktopArgs {
    /// Use this private desktop (default: the running "default" one, else $DISPLAY).
    #[arg(long, env = "UFO_DESKTOP", global = true)]
    pub(crate) desktop: Option<String>,
    /// Directory for desktop state.
    #[arg(long, global = true)]
    pub(crate) state_dir: Option<PathBuf>,
}

/// Which window to act on.
#[derive(Debug, Clone, Args)]
pub(crate) struct WindowArgs {
    /// The application's name on the accessibility registry (e.g. gnome-calculator).
    #[arg(long, short = 'a')]
    pub(crate) app: Option<String>,
    /// A window id from `ufo windows` (X id like 0x400007, or a handle), or a
    /// title (part of it); with `--app`, a window of that application.
    #[arg(long, short = 'w')]
    pub(crate) window: Option<String>,
}

/// Connects to the desktop `args` name.
#[cfg(not(windows))]
pub(crate) async fn connect(args: &DesktopArgs) -> Result<PlatformBackend, ErrorReport> {
    use ufo_desktop_atspi::DesktopTarget;
    use ufo_desktop_atspi::headless::default_state_root;
    let root = args.state_dir.clone().unwrap_or_else(default_state_root);
    let target = DesktopTarget::resolve(args.desktop.as_deref(), &root).map_err(|e| e.report())?;
    PlatformBackend::connect(&target)
        .await
        .map_err(|e| e.report())
}

/// Connects to the desktop this program runs on (Windows has one
/// interactive desktop per session; `--desktop` names none).
#[cfg(windows)]
pub(crate) async fn connect(args: &DesktopArgs) -> Result<PlatformBackend, ErrorReport> {
    if let Some(d) = &args.desktop {
        return Err(crate::error::CliError::BadOption {
            option: "--desktop",
            message: format!("{d:?}: private desktops are a Linux feature"),
            help: "leave out --desktop (and UFO_DESKTOP) on Windows",
        }
        .report());
    }
    PlatformBackend::connect(ufo_desktop_windows::WindowsLayer::Auto)
        .await
        .map_err(|e| e.report())
}

/// Picks the window named by `args`: `--app`'s foreground window (its open
/// dialog first), `--window`'s (among `--app`'s windows when both are
/// given); with neither option, the focused window.
pub(crate) async fn pick_window(
    backend: &dyn Backend,
    args: &WindowArgs,
) -> Result<WindowInfo, ErrorReport> {
    let windows = backend.list_windows().await.map_err(|e| e.report())?;
    let not_found = |what: String| {
        crate::error::CliError::WindowNotFound {
            what,
            open: windows
                .iter()
                .map(|w| format!("{} ({}: {:?})", w.id, w.app_name, w.title))
                .collect(),
            silent: backend.unresponsive_apps(),
        }
        .report()
    };
    let pick = |mut v: Vec<&WindowInfo>| {
        v.sort_by_key(|w| !w.focused);
        v.first().map(|w| (*w).clone())
    };
    let of_app = |w: &&WindowInfo| {
        args.app.as_ref().is_none_or(|app| {
            ufo_core::app_name_matches(app, &w.app_name)
                || w.pid
                    .is_some_and(|p| program_of(p).is_some_and(|c| c == *app))
        })
    };
    let found = match (&args.app, &args.window) {
        // An application is shown as a person sees it: its open dialog first.
        (Some(_), None) => pick(windows.iter().filter(of_app).collect()).and_then(|first| {
            let own: Vec<WindowInfo> = windows
                .iter()
                .filter(|w| w.same_app(&first))
                .cloned()
                .collect();
            ufo_desktop::follow::foreground(&own, &first).cloned()
        }),
        // A window pinned by id or title; with --app, among its windows.
        (_, Some(id)) => {
            let mine: Vec<&WindowInfo> = windows.iter().filter(of_app).collect();
            mine.iter()
                .find(|w| &w.id == id || &w.handle.0 == id)
                .or_else(|| {
                    mine.iter()
                        .find(|w| w.title.to_lowercase().contains(&id.to_lowercase()))
                })
                .map(|w| (*w).clone())
        }
        (None, None) => pick(windows.iter().collect()),
    };
    found.ok_or_else(|| {
        not_found(match (&args.app, &args.window) {
            (Some(a), Some(w)) => format!("--window {w:?} of --app {a:?}"),
            (Some(a), None) => format!("--app {a:?}"),
            (None, Some(w)) => format!("--window {w:?}"),
            _ => "(any)".into(),
        })
    })
}

/// The program a process runs (its `comm`, at most 15 characters), so that
/// `--app inkscape` finds the application that registered as
/// `org.inkscape.Inkscape`.
fn program_of(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}
