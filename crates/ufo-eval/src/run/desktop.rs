//! The private desktop each task runs on ([`TaskDesktop`]): how it is
//! started for a task (its places, its account, its home seeded as
//! OSWorld's VM's), named, and stopped however the task ends.

use super::{EvalOptions, render, safe_name};
use crate::task::{Places, TaskFile, TaskHome};
use std::path::{Path, PathBuf};
use ufo_desktop_atspi::headless::{DesktopUser, TASK_HOME};
use ufo_desktop_atspi::{DesktopOptions, HeadlessDesktop};

/// The private desktop each task runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskDesktop {
    /// Screen width and height.
    pub screen: (u32, u32),
    /// A window manager to run (`xfwm4`), or none.
    pub window_manager: Option<String>,
    /// The unprivileged account the task's desktop runs as (needs root),
    /// its home (the task's folder) seen at `/home/user` in a private mount
    /// namespace, as on OSWorld's VM. `None`: the desktop runs as the
    /// caller, the task's folder its `$HOME`, `/home/user` the host's.
    pub user: Option<String>,
    /// The home gets what OSWorld's VM has in its user's home that tasks
    /// count on (see [`crate::vm_home`]: VLC's web interface).
    pub vm_home: bool,
}

impl Default for TaskDesktop {
    /// 1280×1024, no window manager, run as the caller.
    fn default() -> Self {
        Self {
            screen: (1280, 1024),
            window_manager: None,
            user: None,
            vm_home: false,
        }
    }
}

impl TaskDesktop {
    /// As OSWorld's VM: 1920×1080, a window manager, and, as root, the
    /// account [`ufo_desktop_atspi::headless::TASK_ACCOUNT`] with its home at
    /// `/home/user` (not root: the caller, see [`TaskDesktop::user`]).
    pub fn like_osworld() -> Self {
        Self {
            screen: (1920, 1080),
            window_manager: Some("xfwm4".into()),
            user: is_root().then(|| ufo_desktop_atspi::headless::TASK_ACCOUNT.to_owned()),
            vm_home: true,
        }
    }
}

/// Whether this process runs as root.
pub fn is_root() -> bool {
    ufo_desktop_atspi::headless::is_root()
}

/// The task's places and its desktop, started: as an account with the
/// task's folder as its `/home/user` when the options name one (see the
/// README's eval section), else as the caller with that folder as `$HOME`.
pub(super) async fn start_task_desktop(
    opts: &EvalOptions,
    task: &TaskFile,
    work: PathBuf,
) -> std::result::Result<(Places, HeadlessDesktop), String> {
    let user = match &opts.desktop.user {
        Some(name) => {
            Some(DesktopUser::ensure(name, Path::new(TASK_HOME)).map_err(|e| render(&e))?)
        }
        None => None,
    };
    let mut places = Places {
        work,
        // Absolute: a relative path of a task is in its home.
        suite: task
            .path
            .parent()
            .and_then(|p| std::path::absolute(p).ok())
            .unwrap_or_default(),
        home: user.as_ref().map(|u| TaskHome {
            at: u.home_at.clone(),
            uid: u.uid,
            gid: u.gid,
            tmp: None,
        }),
    };
    if opts.desktop.vm_home {
        crate::vm_home::seed(&places.work).map_err(|e| {
            format!(
                "cannot write the VM's settings into {}: {e}",
                places.work.display()
            )
        })?;
    }
    let (w, h) = opts.desktop.screen;
    let desktop = HeadlessDesktop::start(DesktopOptions {
        name: desktop_name(&task.key()),
        state_root: std::env::temp_dir().join(format!("ufo-eval-{}", uid())),
        stop_with_process: true,
        // The task's folder is its applications' home: `~` in the task means
        // it, and no task sees another's (or the user's) settings and recent
        // files. Run as an account, they see it at /home/user.
        home: Some(places.work.clone()),
        user,
        // Its steps copy from the suite's folder (`$SUITE`), also when that
        // is under /tmp, which is the task's own.
        shared_tmp: vec![places.suite.clone()],
        screen: (w, h, 24),
        window_manager: opts.desktop.window_manager.clone(),
        ..DesktopOptions::default()
    })
    .await
    .map_err(|e| render(&e))?;
    if let (Some(h), Some(s)) = (&mut places.home, &desktop.state().sandbox) {
        h.tmp = s.host_tmp.clone();
    }
    Ok((places, desktop))
}

/// Stops the task's desktop however the task ends (a timeout drops the
/// future).
pub(super) struct StopOnDrop(pub(super) Option<HeadlessDesktop>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if let Some(d) = self.0.take() {
            let _ = d.stop();
        }
    }
}

/// A desktop name no other task of any run in this process shares (the same
/// task may run twice at once, e.g. in two runs).
pub(super) fn desktop_name(id: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    let short: String = safe_name(id).chars().take(24).collect();
    format!(
        "eval-{short}-{}-{}",
        std::process::id(),
        SERIAL.fetch_add(1, Ordering::Relaxed)
    )
}

fn uid() -> u32 {
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
        .unwrap_or(0)
}
