//! Starting a desktop, one function per component: Xvfb, the session bus,
//! the accessibility bus and its registry, a window manager. Each waits
//! until its component answers; a failure anywhere ends every process
//! started so far (they all carry the desktop's marker).

use super::account::{self, Sandbox};
use super::error::{HeadlessError, Result, io_err};
use super::launch::{gtk_modules, package_for};
use super::processes::kill_marked;
use super::{DESKTOP_ID_VAR, DesktopOptions, log_tail, open_log, read_line_within, which};
use crate::bus;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A desktop being started: its marker and directories. Dropped before
/// [`Starting::done`], it ends every process carrying its marker.
pub(super) struct Starting {
    pub(super) id: String,
    pub(super) state_dir: PathBuf,
    pub(super) runtime_dir: PathBuf,
    /// `HOME` and the XDG directories of a desktop with its own home.
    home_env: Vec<(String, String)>,
    /// The account and namespace of a desktop run as an account.
    sandbox: Option<Sandbox>,
    armed: bool,
}

impl Drop for Starting {
    fn drop(&mut self) {
        if self.armed {
            kill_marked(&self.id, Duration::from_secs(1));
        }
    }
}

impl Starting {
    pub(super) fn new(
        id: String,
        state_dir: PathBuf,
        runtime_dir: PathBuf,
        home_env: Vec<(String, String)>,
        sandbox: Option<Sandbox>,
    ) -> Self {
        Self {
            id,
            state_dir,
            runtime_dir,
            home_env,
            sandbox,
            armed: true,
        }
    }

    /// The desktop is up: its processes now belong to the caller.
    pub(super) fn done(mut self) {
        self.armed = false;
    }

    fn log(&self, name: &str) -> PathBuf {
        self.state_dir.join(name)
    }

    /// A command for the desktop: marked, in its own process group, with
    /// the desktop's runtime directory and none of the caller's display or
    /// buses; as the desktop's account when it has one. GSettings are
    /// dconf's (the default backend) on a desktop with a home of its own,
    /// kept in memory otherwise (the user's own settings stay untouched).
    fn command(&self, program: &Path) -> Command {
        let mut cmd = account::command(self.sandbox.as_ref(), program.as_os_str(), None);
        match self.home_env.is_empty() {
            true => cmd.env("GSETTINGS_BACKEND", "memory"),
            false => cmd.env_remove("GSETTINGS_BACKEND"),
        };
        cmd.env(DESKTOP_ID_VAR, &self.id)
            .env("XDG_RUNTIME_DIR", &self.runtime_dir)
            .env(
                "GTK_MODULES",
                gtk_modules(std::env::var("GTK_MODULES").ok()),
            )
            .env("NO_AT_BRIDGE", "0")
            .env_remove("GTK_A11Y")
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .env_remove("AT_SPI_BUS_ADDRESS")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .envs(self.home_env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .process_group(0);
        cmd
    }

    /// Xvfb picks a free display itself and prints its number.
    pub(super) fn xvfb(&self, xvfb: &Path, opts: &DesktopOptions) -> Result<(Child, String)> {
        let log = self.log("xvfb.log");
        let (w, h, d) = opts.screen;
        let mut child = self
            .command(xvfb)
            .args(["-displayfd", "1", "-screen", "0"])
            .arg(format!("{w}x{h}x{d}"))
            .args(["-nolisten", "tcp", "-noreset", "+extension", "XTEST"])
            .stdout(Stdio::piped())
            .stderr(open_log(&log)?)
            .spawn()
            .map_err(io_err("starting Xvfb"))?;
        let line = child
            .stdout
            .take()
            .map(|o| read_line_within(o, opts.start_timeout));
        match line {
            Some(Ok(n)) if n.parse::<u32>().is_ok() => Ok((child, format!(":{n}"))),
            other => {
                let _ = child.kill();
                Err(HeadlessError::StartFailed {
                    component: "Xvfb".into(),
                    detail: format!("{:?}; log: {}", other.map(|r| r.err()), log_tail(&log, 5)),
                    source: None,
                })
            }
        }
    }

    /// The private session bus; its address.
    pub(super) fn session_bus(
        &self,
        dbus_daemon: &Path,
        display: &str,
        timeout: Duration,
    ) -> Result<(Child, String)> {
        let mut cmd = self.command(dbus_daemon);
        // A bus run by an account: its socket in the account's runtime
        // directory, root (ufo) let in besides the account.
        let socket = match &self.sandbox {
            Some(_) => {
                let conf = account::session_bus_config(&self.state_dir)?;
                cmd.arg(format!("--config-file={}", conf.display()));
                self.runtime_dir.join("bus")
            }
            None => {
                cmd.arg("--session");
                self.log("session_bus")
            }
        };
        let mut child = cmd
            .args(["--nofork", "--nopidfile", "--print-address=1"])
            .arg(format!("--address=unix:path={}", socket.display()))
            .env("DISPLAY", display)
            .stdout(Stdio::piped())
            .stderr(open_log(&self.log("dbus.log"))?)
            .spawn()
            .map_err(io_err("starting dbus-daemon"))?;
        match child.stdout.take().map(|o| read_line_within(o, timeout)) {
            Some(Ok(addr)) => Ok((child, addr)),
            other => Err(HeadlessError::StartFailed {
                component: "dbus-daemon (session bus)".into(),
                detail: format!("{:?}", other.map(|r| r.err())),
                source: None,
            }),
        }
    }

    /// The accessibility bus's launcher.
    pub(super) fn a11y_launcher(
        &self,
        launcher: &Path,
        display: &str,
        session_bus: &str,
    ) -> Result<Child> {
        self.command(launcher)
            .args(["--launch-immediately", "--a11y=1"])
            .env("DISPLAY", display)
            .env("DBUS_SESSION_BUS_ADDRESS", session_bus)
            .stdout(Stdio::null())
            .stderr(open_log(&self.log("at-spi-bus-launcher.log"))?)
            .spawn()
            .map_err(io_err("starting at-spi-bus-launcher"))
    }

    /// Waits until our launcher owns `org.a11y.Bus`, then asks it for the
    /// accessibility bus's address: the launcher's pid and the address.
    /// Calling the name earlier would make the session bus activate a
    /// second launcher, which could win the name.
    pub(super) async fn a11y_bus(
        &self,
        session_bus: &str,
        deadline: Instant,
    ) -> Result<(u32, String)> {
        // The daemon printed its address, so it is listening: one connection
        // serves every question to the session bus below.
        let session = bus::connect(session_bus)
            .await
            .map_err(|e| HeadlessError::StartFailed {
                component: "dbus-daemon (session bus)".into(),
                detail: e.to_string(),
                source: Some(e.into()),
            })?;
        let failed =
            |detail: String, source: Option<ufo_core::BoxError>| HeadlessError::StartFailed {
                component: "at-spi-bus-launcher (accessibility bus)".into(),
                detail: format!(
                    "{detail}; log: {}",
                    log_tail(&self.log("at-spi-bus-launcher.log"), 5)
                ),
                source,
            };
        let pid = loop {
            match bus::a11y_bus_owner(&session).await {
                Ok(Some(pid)) => break pid,
                _ if Instant::now() > deadline => {
                    return Err(failed("it never took the name org.a11y.Bus".into(), None));
                }
                _ => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        };
        loop {
            match bus::a11y_address(&session).await {
                Ok(addr) => return Ok((pid, addr)),
                Err(e) if Instant::now() > deadline => {
                    return Err(failed(e.to_string(), Some(e.into())));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    }

    /// Activates the registry daemon and waits until it answers.
    pub(super) async fn registry(&self, a11y_bus: &str, deadline: Instant) -> Result<()> {
        let mut a11y: Option<zbus::Connection> = None;
        loop {
            if a11y.is_none() {
                a11y = bus::connect(a11y_bus).await.ok();
            }
            let count = match &a11y {
                Some(c) => bus::registry_app_count(c).await,
                None => Err(bus::BusError::NoConnection),
            };
            match count {
                Ok(_) => return Ok(()),
                Err(e) if Instant::now() > deadline => {
                    return Err(HeadlessError::StartFailed {
                        component: "at-spi2-registryd".into(),
                        detail: e.to_string(),
                        source: Some(e.into()),
                    });
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    }

    /// Starts window manager `wm` and waits until it announces itself.
    pub(super) async fn window_manager(
        &self,
        wm: &str,
        display: &str,
        session_bus: &str,
        deadline: Instant,
    ) -> Result<()> {
        let path = which(wm).ok_or_else(|| HeadlessError::MissingProgram {
            program: wm.to_owned(),
            package: package_for(wm).into(),
        })?;
        let log = self.log("window-manager.log");
        let mut cmd = self.command(&path);
        if wm == "xfwm4" {
            cmd.arg("--compositor=off");
        }
        cmd.env("DISPLAY", display)
            .env("DBUS_SESSION_BUS_ADDRESS", session_bus)
            .stdout(Stdio::null())
            .stderr(open_log(&log)?)
            .spawn()
            .map_err(io_err(&format!("starting {wm}")))?;
        loop {
            if crate::x11::X11::connect(display).is_ok_and(|x| x.has_window_manager()) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(HeadlessError::StartFailed {
                    component: wm.to_owned(),
                    detail: log_tail(&log, 5),
                    source: None,
                });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
