//! The private headless desktop: Xvfb + a private D-Bus session bus + the AT-SPI
//! accessibility bus, for servers, CI and tests.
//!
//! ```text
//! Xvfb :N            (free display picked by Xvfb itself via -displayfd)
//! dbus-daemon        (session bus, socket in the state directory)
//! at-spi-bus-launcher --a11y=1  → dbus-daemon (a11y bus) → at-spi2-registryd (bus-activated)
//! apps launched with `launch`
//! ```
//!
//! Every process started for a desktop — directly, as a descendant, or activated
//! by one of its buses (registryd double-forks to pid 1) — carries the environment
//! variable `UFO_DESKTOP_ID=<random id>`. [`HeadlessDesktop::stop`] ends exactly
//! the processes carrying that id, so several desktops can run side by side and
//! nothing of the user's own session is touched.
//!
//! A desktop may run as an unprivileged account whose home, seen at a fixed
//! path (`/home/user`), is its own folder in a private mount namespace
//! ([`DesktopOptions::user`], needs root; see `account.rs`).
//!
//! A desktop's state (display, bus addresses, pids) is written to
//! `<state root>/desktops/<name>/state.json`, so `ufo desktop start` in one process
//! and `ufo desktop launch|env|stop` in another find the same desktop.

mod account;
mod error;
mod gtk_settings;
mod launch;
mod processes;
pub mod quiet;
mod start;
mod sudo;

pub use account::{DesktopUser, Sandbox, TASK_ACCOUNT, TASK_HOME, is_root, nobody};
pub use error::HeadlessError;
use error::{Result, io_err};
pub use launch::office_profile;

use processes::{kill_marked, process_has_marker};
pub use processes::{marked_pids, process_alive};
use serde::{Deserialize, Serialize};
use start::Starting;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// The environment variable that marks every process of one desktop.
pub const DESKTOP_ID_VAR: &str = "UFO_DESKTOP_ID";
/// The environment variable that marks the processes of one `launch`.
pub const LAUNCH_ID_VAR: &str = "UFO_LAUNCH_ID";

/// How to start a desktop.
#[derive(Debug, Clone)]
pub struct DesktopOptions {
    /// Name of the desktop (state lives under this name).
    pub name: String,
    /// Screen size and depth, e.g. `(1280, 1024, 24)`.
    pub screen: (u32, u32, u32),
    /// Where state directories live; defaults to [`default_state_root`].
    pub state_root: PathBuf,
    /// When true, the desktop is stopped automatically when the current process
    /// exits (normally, by panic, or killed). Used by tests.
    pub stop_with_process: bool,
    /// How long to wait for each component to come up.
    pub start_timeout: Duration,
    /// A window manager to run (e.g. `xfwm4`); `None` runs none, which is how
    /// CI and most tests work.
    pub window_manager: Option<String>,
    /// A home directory of its own for the desktop's applications (`HOME` and
    /// the XDG config, data, cache and state directories under it): their
    /// settings, recent files and profiles stay there instead of the user's.
    /// `None` keeps the user's home. Such a desktop's GSettings are
    /// dconf's, kept in it; `.Xauthority` is written in it.
    pub home: Option<PathBuf>,
    /// Run every process of the desktop as this unprivileged account, its
    /// home (`home`, else a folder in the state directory) mounted at
    /// [`DesktopUser::home_at`] in a private mount namespace. Needs root.
    pub user: Option<DesktopUser>,
    /// Folders under `/tmp` that a desktop run as an account still sees
    /// where the host has them, through its own `/tmp` (a task suite's
    /// folder its steps copy from).
    pub shared_tmp: Vec<PathBuf>,
    /// Keep GTK's animations on. Off by default (see
    /// `headless/gtk_settings.rs`): steps do not wait for them.
    pub animations: bool,
}

impl Default for DesktopOptions {
    fn default() -> Self {
        Self {
            name: "default".into(),
            screen: (1280, 1024, 24),
            state_root: default_state_root(),
            stop_with_process: false,
            start_timeout: Duration::from_secs(15),
            window_manager: None,
            home: None,
            user: None,
            shared_tmp: Vec::new(),
            animations: false,
        }
    }
}

/// `$UFO_STATE_DIR`, else `$XDG_RUNTIME_DIR/ufo-rs`, else `/tmp/ufo-rs-<uid>`.
pub fn default_state_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("UFO_STATE_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_RUNTIME_DIR") {
        let p = PathBuf::from(dir);
        if p.is_dir() {
            return p.join("ufo-rs");
        }
    }
    PathBuf::from(format!("/tmp/ufo-rs-{}", nix::unistd::getuid()))
}

/// What is persisted about a running desktop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DesktopState {
    /// The desktop's name.
    pub name: String,
    /// The marker value of `UFO_DESKTOP_ID`.
    pub id: String,
    /// X display, e.g. `:3`.
    pub display: String,
    /// Address of the private session bus.
    pub session_bus: String,
    /// Address of the accessibility bus.
    pub a11y_bus: String,
    /// The desktop's XDG runtime directory.
    pub runtime_dir: PathBuf,
    /// The desktop's state directory (logs, state file, sockets).
    pub state_dir: PathBuf,
    /// Pid of Xvfb.
    pub xvfb_pid: u32,
    /// Pid of the session bus daemon.
    pub dbus_pid: u32,
    /// Pid of at-spi-bus-launcher.
    pub launcher_pid: u32,
    /// The applications' own home directory, when the desktop has one, as
    /// they see it (`/home/user` on a desktop run as an account).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<PathBuf>,
    /// The account the desktop runs as and its namespace, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<Sandbox>,
    /// The configuration folder holding the desktop's GTK settings
    /// (animations off), added to `XDG_CONFIG_DIRS`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gtk_settings: Option<PathBuf>,
}

/// `HOME` and the XDG base directories inside `home`: where the programs
/// of a desktop with its own home keep their settings.
fn home_env(home: &Path) -> Vec<(String, String)> {
    let mut env = vec![("HOME".to_owned(), home.display().to_string())];
    for (k, sub) in [
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_STATE_HOME", ".local/state"),
    ] {
        env.push((k.into(), home.join(sub).display().to_string()));
    }
    env
}

impl DesktopState {
    /// The environment a program needs to live on this desktop: its
    /// display and buses, `GTK_MODULES` with `gail:atk-bridge` (GTK 2
    /// applications join the accessibility bus, as a Debian session's
    /// Xsession scripts arrange), and the desktop's home when it has one.
    pub fn env(&self) -> Vec<(String, String)> {
        let mut env = vec![
            ("DISPLAY".into(), self.display.clone()),
            ("DBUS_SESSION_BUS_ADDRESS".into(), self.session_bus.clone()),
            (
                "XDG_RUNTIME_DIR".into(),
                self.runtime_dir.display().to_string(),
            ),
            ("UFO_DESKTOP".into(), self.name.clone()),
            (
                "GTK_MODULES".into(),
                launch::gtk_modules(std::env::var("GTK_MODULES").ok()),
            ),
        ];
        if let Some(home) = &self.home {
            env.extend(home_env(home));
        }
        if let Some(dir) = &self.gtk_settings {
            let existing = std::env::var("XDG_CONFIG_DIRS").ok();
            env.push((
                "XDG_CONFIG_DIRS".into(),
                gtk_settings::config_dirs(existing, dir),
            ));
        }
        if let Some(s) = &self.sandbox {
            env.push(("USER".into(), s.user.name.clone()));
            env.push(("LOGNAME".into(), s.user.name.clone()));
        }
        env
    }

    /// Writes the state to `state.json` in its state directory.
    fn save(&self) -> Result<()> {
        let path = self.state_dir.join("state.json");
        let json = serde_json::to_string_pretty(self).map_err(|e| HeadlessError::BadState {
            path: path.clone(),
            source: e,
        })?;
        std::fs::write(path, json).map_err(io_err("writing state.json"))
    }

    /// The environment as `export K='V'` lines for a POSIX shell.
    pub fn shell_exports(&self) -> String {
        let mut vars = self.env();
        // The exports change XDG_RUNTIME_DIR, from which the default state root
        // is derived: name the root and the desktop, so `ufo` commands run in
        // that shell still find this desktop.
        if let Some(root) = self.state_dir.parent().and_then(Path::parent) {
            vars.push(("UFO_STATE_DIR".into(), root.display().to_string()));
        }
        vars.iter()
            .map(|(k, v)| format!("export {k}={}\n", shell_quote(v)))
            .collect()
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A running private desktop.
#[derive(Debug)]
pub struct HeadlessDesktop {
    state: DesktopState,
    /// Processes this handle started, kept so they can be reaped after `stop`.
    children: std::sync::Mutex<Vec<Child>>,
    /// Held open for the life of the process when `stop_with_process` is set; its
    /// closing (at process exit) wakes the watchdog, which stops the desktop.
    _watchdog: Option<(Child, ChildStdin)>,
}

/// An application started with [`HeadlessDesktop::launch`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchedApp {
    /// Name on the accessibility registry.
    pub app_name: String,
    /// Pid of the registered application process.
    pub pid: u32,
    /// Pid of the process we started (may differ for launcher scripts).
    pub launcher_pid: u32,
    /// Where the application's output goes.
    pub log: PathBuf,
    /// How long it took to register, in milliseconds.
    pub startup_ms: u64,
}

fn which(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let p = PathBuf::from(program);
        return p.is_file().then_some(p);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}

fn require(program: &str, package: &str) -> Result<PathBuf> {
    which(program).ok_or_else(|| HeadlessError::MissingProgram {
        program: program.into(),
        package: package.into(),
    })
}

/// Finds at-spi-bus-launcher, which Debian keeps in /usr/libexec.
fn bus_launcher() -> Result<PathBuf> {
    [
        "/usr/libexec/at-spi-bus-launcher",
        "/usr/lib/at-spi2-core/at-spi-bus-launcher",
        "/usr/lib/at-spi2/at-spi-bus-launcher",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.is_file())
    .or_else(|| which("at-spi-bus-launcher"))
    .ok_or_else(|| HeadlessError::MissingProgram {
        program: "at-spi-bus-launcher".into(),
        package: "at-spi2-core".into(),
    })
}

fn random_id() -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    (0..16)
        .map(|_| char::from(b"0123456789abcdef"[rng.random_range(0..16)]))
        .collect()
}

/// Reads one line from a child's stdout within `timeout`.
fn read_line_within(
    out: std::process::ChildStdout,
    timeout: Duration,
) -> std::result::Result<String, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let mut r = BufReader::new(out);
        let res = r.read_line(&mut line).map(|_| line);
        // Keep draining so the child never blocks or gets SIGPIPE on stdout.
        let _ = tx.send(res);
        let mut sink = Vec::new();
        let _ = r.read_to_end(&mut sink);
    });
    match rx.recv_timeout(timeout) {
        Ok(Ok(line)) if !line.trim().is_empty() => Ok(line.trim().to_owned()),
        Ok(Ok(_)) => Err("exited without printing".into()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("no answer within {} ms", timeout.as_millis())),
    }
}

fn log_tail(path: &Path, lines: usize) -> String {
    std::fs::read_to_string(path)
        .map(|s| {
            let v: Vec<&str> = s.lines().collect();
            v[v.len().saturating_sub(lines)..].join(" | ")
        })
        .unwrap_or_default()
}

impl HeadlessDesktop {
    /// Starts a new desktop and waits until the accessibility registry answers.
    ///
    /// Fails with [`HeadlessError::MissingProgram`] naming the Debian package when
    /// Xvfb, D-Bus or AT-SPI is not installed.
    pub async fn start(opts: DesktopOptions) -> Result<Self> {
        let xvfb = require("Xvfb", "xvfb")?;
        let dbus_daemon = require("dbus-daemon", "dbus")?;
        let launcher = bus_launcher()?;

        let state_dir = opts.state_root.join("desktops").join(&opts.name);
        if let Ok(existing) = Self::load_state(&state_dir) {
            if process_alive(existing.xvfb_pid)
                && process_has_marker(existing.xvfb_pid, &existing.id)
            {
                return Err(HeadlessError::AlreadyRunning(opts.name));
            }
            // A stale state from a desktop that died: clean what is left of it.
            kill_marked(&existing.id, Duration::from_secs(2));
        }
        let _ = std::fs::remove_dir_all(&state_dir);
        let runtime_dir = state_dir.join("runtime");
        create_private_dir(&runtime_dir)?;
        let id = random_id();
        // A desktop run as an account: its namespace first, every other
        // process is started into it.
        let (home, host_home, sandbox, holder) = match &opts.user {
            Some(user) => {
                require("unshare", "util-linux")?;
                require("nsenter", "util-linux")?;
                let host_home = opts.home.clone().unwrap_or_else(|| state_dir.join("home"));
                let (holder, sandbox) = account::private_namespace(
                    &id,
                    user,
                    &host_home,
                    &state_dir,
                    &opts.shared_tmp,
                    opts.start_timeout,
                )?;
                let home = Some(user.home_at.clone());
                (home, Some(host_home), Some(sandbox), Some(holder))
            }
            None => {
                if let Some(h) = &opts.home {
                    std::fs::create_dir_all(h).map_err(io_err("creating the desktop's home"))?;
                }
                (opts.home.clone(), opts.home.clone(), None, None)
            }
        };
        // The buses start the services applications ask for (xfconfd,
        // dconf): with the desktop's home, so that what they save stays in
        // it, not in the caller's home.
        let run = Starting::new(
            id,
            state_dir.clone(),
            runtime_dir.clone(),
            home.as_deref().map(home_env).unwrap_or_default(),
            sandbox.clone(),
        );
        if let Some(s) = &sandbox {
            s.give(&runtime_dir)
                .map_err(io_err("giving the runtime directory to the account"))?;
            // The account reaches its runtime directory and the bus
            // configuration through the state directories (not listed).
            for dir in state_dir.ancestors().take(3) {
                let_traverse(dir)?;
            }
            x11_socket_dir()?;
        }
        let (xvfb_child, display) = run.xvfb(&xvfb, &opts)?;
        if let Some(h) = &host_home {
            let file = account::write_xauthority(h, &display)?;
            if let Some(s) = &sandbox {
                s.give(&file)
                    .map_err(io_err("giving .Xauthority to the account"))?;
            }
        }
        let (dbus_child, session_bus) =
            run.session_bus(&dbus_daemon, &display, opts.start_timeout)?;
        let launcher_child = run.a11y_launcher(&launcher, &display, &session_bus)?;
        let deadline = Instant::now() + opts.start_timeout;
        let (launcher_pid, a11y_bus) = run.a11y_bus(&session_bus, deadline).await?;
        run.registry(&a11y_bus, deadline).await?;
        if let Some(wm) = &opts.window_manager {
            run.window_manager(wm, &display, &session_bus, deadline)
                .await?;
        }
        let id = run.id.clone();
        let gtk_settings = gtk_settings::when(!opts.animations, &state_dir)
            .map_err(io_err("writing the GTK settings"))?;
        let state = DesktopState {
            name: opts.name.clone(),
            id,
            display,
            session_bus,
            a11y_bus,
            runtime_dir,
            state_dir: state_dir.clone(),
            xvfb_pid: xvfb_child.id(),
            dbus_pid: dbus_child.id(),
            launcher_pid,
            home,
            sandbox,
            gtk_settings,
        };
        state.save()?;

        let watchdog = if opts.stop_with_process {
            Some(spawn_watchdog(&state)?)
        } else {
            None
        };
        run.done();
        Ok(Self {
            state,
            children: std::sync::Mutex::new(
                [xvfb_child, dbus_child, launcher_child]
                    .into_iter()
                    .chain(holder)
                    .collect(),
            ),
            _watchdog: watchdog,
        })
    }

    /// Opens the running desktop called `name` under `state_root`.
    pub fn open(name: &str, state_root: &Path) -> Result<Self> {
        let dir = state_root.join("desktops").join(name);
        let state = match Self::load_state(&dir) {
            Ok(s) => s,
            Err(HeadlessError::Io { .. }) => return Err(HeadlessError::NotRunning(name.into())),
            Err(e) => return Err(e),
        };
        if !(process_alive(state.xvfb_pid) && process_has_marker(state.xvfb_pid, &state.id)) {
            return Err(HeadlessError::NotRunning(name.into()));
        }
        Ok(Self {
            state,
            children: std::sync::Mutex::new(Vec::new()),
            _watchdog: None,
        })
    }

    fn load_state(dir: &Path) -> Result<DesktopState> {
        let path = dir.join("state.json");
        let text = std::fs::read_to_string(&path)
            .map_err(io_err(format!("reading {}", path.display())))?;
        serde_json::from_str(&text).map_err(|e| HeadlessError::BadState { path, source: e })
    }

    /// The desktop's persisted state.
    pub fn state(&self) -> &DesktopState {
        &self.state
    }

    /// Stops the desktop called `name` under `state_root` even when it is only
    /// partly alive (e.g. Xvfb crashed but its buses and apps still run): every
    /// process carrying its marker is ended and its state removed. Returns how
    /// many processes were signalled.
    pub fn stop_by_name(name: &str, state_root: &Path) -> Result<usize> {
        let dir = state_root.join("desktops").join(name);
        let state = match Self::load_state(&dir) {
            Ok(s) => s,
            Err(HeadlessError::Io { .. }) => return Err(HeadlessError::NotRunning(name.into())),
            Err(e) => return Err(e),
        };
        let n = kill_marked(&state.id, Duration::from_secs(3));
        let _ = std::fs::remove_dir_all(&state.state_dir);
        Ok(n)
    }

    /// Stops every process of this desktop (started, descended or bus-activated)
    /// and removes its state directory. Returns how many processes were signalled.
    pub fn stop(self) -> Result<usize> {
        let n = kill_marked(&self.state.id, Duration::from_secs(3));
        if let Ok(mut children) = self.children.lock() {
            for c in children.iter_mut() {
                let _ = c.try_wait();
            }
        }
        let _ = std::fs::remove_dir_all(&self.state.state_dir);
        Ok(n)
    }

    /// Pids of the live (non-zombie) processes of this desktop.
    pub fn processes(&self) -> Vec<u32> {
        marked_pids(DESKTOP_ID_VAR, &self.state.id)
    }
}

fn create_private_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io_err(format!("creating {}", dir.display())))
}

/// Lets every user pass through `dir` (search permission, not reading).
fn let_traverse(dir: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(dir).map_err(io_err(format!("reading {}", dir.display())))?;
    let mode = meta.permissions().mode();
    if mode & 0o111 != 0o111 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode | 0o111))
            .map_err(io_err(format!("opening {} to the account", dir.display())))?;
    }
    Ok(())
}

/// `/tmp/.X11-unix`, where an X server run by an account puts its socket:
/// made as the system makes it (sticky, writable by all) when missing.
fn x11_socket_dir() -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = Path::new("/tmp/.X11-unix");
    if !dir.is_dir() {
        std::fs::create_dir_all(dir).map_err(io_err("creating /tmp/.X11-unix"))?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o1777))
            .map_err(io_err("making /tmp/.X11-unix writable"))?;
    }
    Ok(())
}

fn open_log(path: &Path) -> Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io_err(format!("opening {}", path.display())))
}

/// A process that stops the desktop when our process exits: it waits for EOF on
/// its stdin (the write end lives in this process) and then kills every process
/// carrying the desktop's marker.
fn spawn_watchdog(state: &DesktopState) -> Result<(Child, ChildStdin)> {
    use std::os::unix::process::CommandExt;
    let script = format!(
        r#"cat >/dev/null
kill_all() {{ for d in /proc/[0-9]*; do
  if tr '\0' '\n' < "$d/environ" 2>/dev/null | grep -qx '{var}={id}'; then kill -"$1" "${{d#/proc/}}" 2>/dev/null; fi
done; }}
kill_all TERM; sleep 1; kill_all KILL
rm -rf {dir}
"#,
        var = DESKTOP_ID_VAR,
        id = state.id,
        dir = shell_quote(&state.state_dir.display().to_string()),
    );
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(script)
        .env_remove(DESKTOP_ID_VAR)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(io_err("starting the desktop watchdog"))?;
    let stdin = child
        .stdin
        .take()
        .ok_or_else(|| HeadlessError::StartFailed {
            component: "watchdog".into(),
            detail: "no stdin pipe".into(),
            source: None,
        })?;
    Ok((child, stdin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_exports_quote_values() {
        let s = DesktopState {
            name: "n".into(),
            id: "x".into(),
            display: ":7".into(),
            session_bus: "unix:path=/tmp/a b'c".into(),
            a11y_bus: String::new(),
            runtime_dir: "/r".into(),
            state_dir: "/root/desktops/n".into(),
            xvfb_pid: 1,
            dbus_pid: 2,
            launcher_pid: 3,
            home: Some("/h".into()),
            sandbox: None,
            gtk_settings: Some("/root/desktops/n/xdg".into()),
        };
        let out = s.shell_exports();
        // GTK's settings (animations off) come after the system's.
        assert!(out.contains(":/root/desktops/n/xdg'\n"), "{out}");
        assert!(out.contains("export DISPLAY=':7'\n"));
        assert!(out.contains("export UFO_DESKTOP='n'\n"));
        assert!(out.contains("export UFO_STATE_DIR='/root'\n"));
        assert!(out.contains(r"export DBUS_SESSION_BUS_ADDRESS='unix:path=/tmp/a b'\''c'"));
        // A desktop with a home of its own gives it to its applications.
        assert!(out.contains("export HOME='/h'\n"));
        assert!(out.contains("export XDG_CONFIG_HOME='/h/.config'\n"));
    }

    #[test]
    fn this_process_is_alive_and_unmarked() {
        assert!(process_alive(std::process::id()));
        assert!(!process_alive(u32::MAX - 1));
        assert!(!process_has_marker(std::process::id(), "nope"));
    }
}
