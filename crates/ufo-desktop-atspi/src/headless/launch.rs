//! Launching an application on a private desktop and waiting until it is on
//! the accessibility registry, including single-instance hand-over.

use super::error::{HeadlessError, Result, io_err};
use super::processes::{descends_from, marked_pids, process_has_var, signal};
use super::{
    DESKTOP_ID_VAR, HeadlessDesktop, LAUNCH_ID_VAR, LaunchedApp, log_tail, open_log, random_id,
    which,
};
use crate::bus;
use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

impl HeadlessDesktop {
    /// Starts `argv` on this desktop and waits (at most `timeout`) until it shows
    /// up on the accessibility registry with at least one window.
    pub async fn launch(&self, argv: &[String], timeout: Duration) -> Result<LaunchedApp> {
        let Some((program, args)) = argv.split_first() else {
            return Err(HeadlessError::StartFailed {
                component: "launch".into(),
                detail: "no command given".into(),
                source: None,
            });
        };
        // Found as this process sees it; run as the desktop sees it (a path
        // in the home of a desktop run as an account is its folder here).
        let found = which(&self.state.host_path(Path::new(program)).to_string_lossy()).ok_or_else(
            || HeadlessError::MissingProgram {
                program: program.clone(),
                package: package_for(program).into(),
            },
        )?;
        let program_path = match program.contains('/') {
            true => Path::new(program).to_path_buf(),
            false => found,
        };
        let launch_id = random_id();
        let apps_dir = self.state.state_dir.join("apps");
        std::fs::create_dir_all(&apps_dir).map_err(io_err("creating the apps log directory"))?;
        let base = Path::new(program)
            .file_name()
            .map_or_else(|| "app".into(), |s| s.to_string_lossy().to_string());
        let log = apps_dir.join(format!("{base}-{launch_id}.log"));
        let mut cmd = self.app_command(&program_path, &base, args, &launch_id, &log)?;
        let started = Instant::now();
        let conn = tokio::time::timeout(Duration::from_secs(5), bus::connect(&self.state.a11y_bus))
            .await
            .ok()
            .and_then(Result::ok);
        // Windows per application before the launch: a single-instance
        // application (LibreOffice) hands the request to its running process
        // and the launched process exits; the new window then shows up there.
        let windows_before: HashMap<String, usize> = match &conn {
            Some(c) => tokio::time::timeout(timeout, bus::registered_apps(c))
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default()
                .into_iter()
                .map(|a| (a.bus_name, a.windows))
                .collect(),
            None => HashMap::new(),
        };
        let mut child = cmd.spawn().map_err(io_err(format!("starting {program}")))?;
        let launcher_pid = child.id();
        let deadline = started + timeout;
        let command = argv.join(" ");
        let mut handed_over = false;
        loop {
            // Each poll is bounded by what is left of the launch timeout.
            let left = deadline.saturating_duration_since(Instant::now());
            let apps = match &conn {
                Some(c) => tokio::time::timeout(left, bus::registered_apps(c))
                    .await
                    .unwrap_or(Err(bus::BusError::NoConnection)),
                None => Err(bus::BusError::NoConnection),
            };
            if let Ok(apps) = apps
                && let Some(app) = apps.into_iter().find(|a| {
                    a.windows > 0
                        && (a.pid.is_some_and(|p| {
                            process_has_var(p, LAUNCH_ID_VAR, &launch_id)
                                || descends_from(p, launcher_pid)
                        }) || (handed_over
                            && a.windows > windows_before.get(&a.bus_name).copied().unwrap_or(0)))
                })
            {
                if let Ok(mut c) = self.children.lock() {
                    c.push(child);
                }
                return Ok(LaunchedApp {
                    app_name: app.name,
                    pid: app.pid.unwrap_or_default(),
                    launcher_pid,
                    log,
                    startup_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                });
            }
            if let Ok(Some(status)) = child.try_wait() {
                // A launcher script may exit after handing over to the real app;
                // only give up when nothing of this launch is left.
                if marked_pids(LAUNCH_ID_VAR, &launch_id).is_empty() {
                    if status.success() && !windows_before.is_empty() {
                        // Possibly handed over: wait for a new window elsewhere.
                        handed_over = true;
                        if Instant::now() <= deadline {
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            continue;
                        }
                    }
                    return Err(HeadlessError::LaunchExited {
                        command,
                        status: status.to_string(),
                        tail: log_tail(&log, 5),
                    });
                }
            }
            if Instant::now() > deadline {
                end_launch(&launch_id).await;
                let _ = child.try_wait();
                return Err(HeadlessError::LaunchTimeout {
                    command,
                    secs: timeout.as_secs(),
                    log,
                });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The command that starts `program_path` with `args` on this desktop,
    /// marked with `launch_id`, its output going to `log`.
    fn app_command(
        &self,
        program_path: &Path,
        base: &str,
        args: &[String],
        launch_id: &str,
        log: &Path,
    ) -> Result<Command> {
        use std::os::unix::process::CommandExt;
        let mut cmd = self.state.command(program_path, None);
        // LibreOffice is one process per user profile: launched on a second
        // desktop with the same profile it hands the document to the first
        // desktop's process. Each desktop gets a profile of its own unless
        // the command names one.
        if is_office(base) && !args.iter().any(|a| a.starts_with("-env:UserInstallation")) {
            let dir = self.state.state_dir.join("office-profile");
            let arg = match dir.join("user").exists() {
                // Kept as LibreOffice left it.
                true => format!("-env:UserInstallation=file://{}", dir.display()),
                false => {
                    let arg =
                        office_profile(&dir).map_err(io_err("writing the LibreOffice profile"))?;
                    if let Some(s) = &self.state.sandbox {
                        s.give(&dir)
                            .map_err(io_err("giving the LibreOffice profile to the account"))?;
                    }
                    arg
                }
            };
            cmd.arg(arg);
        }
        cmd.args(args)
            .envs(self.state.env())
            .env(DESKTOP_ID_VAR, &self.state.id)
            .env(LAUNCH_ID_VAR, launch_id)
            .env("NO_AT_BRIDGE", "0")
            .env_remove("GTK_A11Y")
            .env_remove("AT_SPI_BUS_ADDRESS")
            .env_remove("WAYLAND_DISPLAY")
            .env("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1")
            .env("QT_ACCESSIBILITY", "1")
            .env("SAL_USE_VCLPLUGIN", "gtk3")
            .env("GTK_OVERLAY_SCROLLING", "0")
            .env(
                "GTK_MODULES",
                gtk_modules(std::env::var("GTK_MODULES").ok()),
            )
            .stdin(Stdio::null())
            .stdout(open_log(log)?)
            .stderr(open_log(log)?)
            .process_group(0);
        // As the desktop's buses: dconf with a home of its own, else memory.
        match self.state.home.is_some() {
            true => cmd.env_remove("GSETTINGS_BACKEND"),
            false => cmd.env("GSETTINGS_BACKEND", "memory"),
        };
        Ok(cmd)
    }
}

/// `GTK_MODULES` for a launched application: what ufo's environment had,
/// plus `gail` and `atk-bridge`, which a GTK 2 application needs to join the
/// accessibility bus at all (a desktop session sets them in its Xsession
/// scripts; GTK 3 and 4 ignore both).
pub(super) fn gtk_modules(existing: Option<String>) -> String {
    let mut modules: Vec<String> = existing
        .unwrap_or_default()
        .split(':')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
        .collect();
    for m in ["gail", "atk-bridge"] {
        if !modules.iter().any(|x| x == m) {
            modules.push(m.to_owned());
        }
    }
    modules.join(":")
}

/// Suggests a Debian package for common test applications.
pub(super) fn package_for(program: &str) -> &'static str {
    match program {
        "gedit" => "gedit",
        "gnome-calculator" => "gnome-calculator",
        "mousepad" => "mousepad",
        "gtk3-widget-factory" => "gtk-3-examples",
        "soffice" | "libreoffice" | "lowriter" => "libreoffice-writer libreoffice-gtk3",
        "localc" => "libreoffice-calc libreoffice-gtk3",
        "firefox-esr" | "firefox" => "firefox-esr",
        "gnome-text-editor" => "gnome-text-editor",
        "featherpad" => "featherpad",
        "xfwm4" => "xfwm4",
        _ => "the package that provides it",
    }
}

/// True for the programs that start LibreOffice.
fn is_office(program: &str) -> bool {
    matches!(
        program,
        "soffice" | "libreoffice" | "localc" | "lowriter" | "loimpress" | "lodraw" | "lobase"
    ) || program.starts_with("libreoffice")
}

/// Writes a LibreOffice user profile into `dir` that starts without the tip
/// of the day, the first-run information and Impress's template chooser,
/// and returns the argument that makes `soffice` use it
/// (`-env:UserInstallation=file://…`). A profile of
/// its own also keeps another running LibreOffice from taking the launch over.
pub fn office_profile(dir: &Path) -> std::io::Result<String> {
    let user = dir.join("user");
    std::fs::create_dir_all(&user)?;
    std::fs::write(
        user.join("registrymodifications.xcu"),
        r#"<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Impress/Misc/NewDoc"><prop oor:name="AutoPilot" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
"#,
    )?;
    Ok(format!("-env:UserInstallation=file://{}", dir.display()))
}

/// Ends every process of one launch (they carry its marker) and waits, at
/// most 2 s, until they are gone.
async fn end_launch(launch_id: &str) {
    for pid in marked_pids(LAUNCH_ID_VAR, launch_id) {
        signal(pid, nix::sys::signal::Signal::SIGKILL);
    }
    let until = Instant::now() + Duration::from_secs(2);
    while !marked_pids(LAUNCH_ID_VAR, launch_id).is_empty() && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
