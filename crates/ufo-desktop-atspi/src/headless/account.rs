//! A desktop run as an unprivileged account, with a home of its own seen at
//! a fixed path (OSWorld's VM: the user `user`, home `/home/user`).
//!
//! Needs root. The desktop gets a private mount namespace, held open by a
//! `sleep infinity` that `unshare --mount --propagation private` started
//! (marked like every process of the desktop, so it ends with it); in it
//! the desktop's home folder is bind-mounted at [`DesktopUser::home_at`].
//! Every process of the desktop — Xvfb, both buses, the registry, the
//! window manager, applications and whatever a caller runs through
//! [`DesktopState::command`] — is started by `nsenter` into that namespace
//! as the account, so it sees its own home at `/home/user` and nobody
//! else's: two desktops side by side each see their own, the host's
//! `/home/user` is untouched. The caller (root) reads and writes the home
//! through its folder on the host.
//!
//! The buses belong to the account. The accessibility bus's own
//! configuration (at-spi2-core's `accessibility.conf`) lets root connect
//! besides its owner; the session bus, started here, gets a configuration
//! that adds the same to the standard session configuration, so that ufo
//! (root) reads the desktop's applications while they run as the account.

use super::error::{HeadlessError, Result, io_err};
use super::{DESKTOP_ID_VAR, DesktopState, log_tail, open_log};
use serde::{Deserialize, Serialize};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The account `ufo eval` runs task desktops as.
pub const TASK_ACCOUNT: &str = "ufo-task";
/// Where a task desktop's applications find their home, as on OSWorld's VM.
pub const TASK_HOME: &str = "/home/user";

/// The unprivileged account a desktop runs as, and where its home is seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DesktopUser {
    /// The account's name.
    pub name: String,
    /// Its user id (never 0).
    pub uid: u32,
    /// Its primary group id.
    pub gid: u32,
    /// Where the desktop's programs see their home (`/home/user`): the
    /// desktop's home folder is mounted there, for them only.
    pub home_at: PathBuf,
}

impl DesktopUser {
    /// The account `name`, its home seen at `home_at`. A missing account is
    /// created (a system account with its own group, no password, home
    /// `home_at`, not created on the host); that needs root, as running a
    /// desktop as another account does.
    pub fn ensure(name: &str, home_at: &Path) -> Result<Self> {
        if !nix::unistd::geteuid().is_root() {
            return Err(HeadlessError::NeedsRoot {
                what: format!("running a desktop as the account {name:?}"),
            });
        }
        if let Some(u) = lookup(name)? {
            return Self::from_account(u, home_at);
        }
        // One `useradd` at a time in this process; another process may
        // still win the race, so its failure is read as "look again".
        static CREATING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one = CREATING.lock();
        if let Some(u) = lookup(name)? {
            return Self::from_account(u, home_at);
        }
        let out = Command::new("useradd")
            .args(["--system", "--user-group", "--no-create-home"])
            .arg("--home-dir")
            .arg(home_at)
            .args(["--shell", "/bin/bash", name])
            .stdin(Stdio::null())
            .output()
            .map_err(io_err("running useradd"))?;
        match lookup(name)? {
            Some(u) => Self::from_account(u, home_at),
            None => Err(HeadlessError::Account {
                name: name.to_owned(),
                detail: format!(
                    "useradd failed ({}): {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            }),
        }
    }

    fn from_account(u: nix::unistd::User, home_at: &Path) -> Result<Self> {
        if u.uid.is_root() {
            return Err(HeadlessError::Account {
                name: u.name,
                detail: "it is root (uid 0); a task desktop runs as an unprivileged account".into(),
            });
        }
        Ok(Self {
            name: u.name,
            uid: u.uid.as_raw(),
            gid: u.gid.as_raw(),
            home_at: home_at.to_path_buf(),
        })
    }
}

/// Whether this process runs as root (its effective user id is 0).
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The user and group ids of the unprivileged account `nobody`, when the
/// system has it and it is not root.
pub fn nobody() -> Option<(u32, u32)> {
    let u = nix::unistd::User::from_name("nobody").ok().flatten()?;
    (!u.uid.is_root()).then(|| (u.uid.as_raw(), u.gid.as_raw()))
}

fn lookup(name: &str) -> Result<Option<nix::unistd::User>> {
    nix::unistd::User::from_name(name).map_err(|e| HeadlessError::Account {
        name: name.to_owned(),
        detail: format!("cannot read the account database: {e}"),
    })
}

/// What is persisted of a desktop run as an account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sandbox {
    /// The account.
    pub user: DesktopUser,
    /// The process holding the desktop's private mount namespace.
    pub namespace_pid: u32,
    /// The host folder mounted at [`DesktopUser::home_at`].
    pub host_home: PathBuf,
    /// The host folder mounted at `/tmp` for the desktop's programs (its
    /// own `/tmp`, as a VM's), when it has one.
    #[serde(default)]
    pub host_tmp: Option<PathBuf>,
    /// A folder put first on the programs' `PATH` (the `sudo` of
    /// `headless/sudo.rs`), when there is one.
    #[serde(default)]
    pub bin: Option<PathBuf>,
}

impl Sandbox {
    /// `path` as the host sees it: under [`DesktopUser::home_at`], the same
    /// place in [`Sandbox::host_home`]; anything else as it is.
    /// Under `/tmp`, the desktop's own `/tmp` folder when it has one.
    pub fn host_path(&self, path: &Path) -> PathBuf {
        if let Ok(rest) = path.strip_prefix(&self.user.home_at) {
            return self.host_home.join(rest);
        }
        match (&self.host_tmp, path.strip_prefix("/tmp")) {
            (Some(tmp), Ok(rest)) => tmp.join(rest),
            _ => path.to_path_buf(),
        }
    }

    /// Gives `path` and everything under it to the account.
    pub fn give(&self, path: &Path) -> std::io::Result<()> {
        chown_tree(path, self.user.uid, self.user.gid)
    }
}

/// Owns `path` (not following a symlink) and, for a folder, all it holds
/// by `uid`:`gid`.
pub(super) fn chown_tree(path: &Path, uid: u32, gid: u32) -> std::io::Result<()> {
    std::os::unix::fs::lchown(path, Some(uid), Some(gid))?;
    let meta = std::fs::symlink_metadata(path)?;
    if meta.is_dir() {
        for e in std::fs::read_dir(path)? {
            chown_tree(&e?.path(), uid, gid)?;
        }
    }
    Ok(())
}

/// A command running `program` on a desktop: as it is, or, for a desktop
/// run as an account, through `nsenter` into its namespace as the account,
/// in `dir` (a path as the desktop sees it). `dir` is the working
/// directory either way.
pub(super) fn command(sandbox: Option<&Sandbox>, program: &OsStr, dir: Option<&Path>) -> Command {
    let Some(s) = sandbox else {
        let mut cmd = Command::new(program);
        if let Some(d) = dir {
            cmd.current_dir(d);
        }
        return cmd;
    };
    let mut cmd = Command::new("nsenter");
    cmd.arg(format!("--target={}", s.namespace_pid))
        .arg("--mount")
        .arg(format!("--setuid={}", s.user.uid))
        .arg(format!("--setgid={}", s.user.gid));
    if let Some(d) = dir {
        cmd.arg(format!("--wd={}", d.display()));
    }
    cmd.arg("--")
        .arg(program)
        .env("USER", &s.user.name)
        .env("LOGNAME", &s.user.name);
    if let Some(path) = std::env::var_os("PATH") {
        let mut dirs: Vec<PathBuf> = s.bin.iter().cloned().collect();
        dirs.extend(std::env::split_paths(&searchable_by_all(&path)));
        cmd.env("PATH", std::env::join_paths(dirs).unwrap_or_default());
    }
    cmd
}

/// The folders of `path` (a `PATH` value) that any user may search: a
/// program the account cannot run (root's own, under `/root`) is not
/// found, rather than found and refused ("Permission denied").
fn searchable_by_all(path: &OsStr) -> std::ffi::OsString {
    use std::os::unix::fs::PermissionsExt;
    let open = |d: &Path| {
        d.ancestors().all(|a| {
            std::fs::metadata(a).is_ok_and(|m| m.is_dir() && m.permissions().mode() & 0o001 != 0)
        })
    };
    let dirs: Vec<PathBuf> = std::env::split_paths(path)
        .filter(|d| d.is_absolute() && open(d))
        .collect();
    std::env::join_paths(dirs).unwrap_or_default()
}

/// Starts the namespace holder of desktop `id` and mounts `host_home` at
/// the account's home in it. The holder is returned with what the desktop
/// persists; `state_dir` gets the log of the mount.
pub(super) fn private_namespace(
    id: &str,
    user: &DesktopUser,
    host_home: &Path,
    state_dir: &Path,
    shared_tmp: &[PathBuf],
    timeout: Duration,
) -> Result<(Child, Sandbox)> {
    let failed = |detail: String| HeadlessError::StartFailed {
        component: format!("the private mount namespace ({})", user.home_at.display()),
        detail,
        source: None,
    };
    std::fs::create_dir_all(host_home).map_err(io_err("creating the desktop's home"))?;
    chown_tree(host_home, user.uid, user.gid).map_err(io_err(format!(
        "giving {} to {}",
        host_home.display(),
        user.name
    )))?;
    // The mount point: an empty folder on the host when there is none.
    if !user.home_at.is_dir() {
        std::fs::create_dir_all(&user.home_at).map_err(io_err(format!(
            "creating the mount point {}",
            user.home_at.display()
        )))?;
    }
    let log = state_dir.join("namespace.log");
    let mut holder = Command::new("unshare")
        .args([
            "--mount",
            "--propagation",
            "private",
            "--",
            "sleep",
            "infinity",
        ])
        .env(DESKTOP_ID_VAR, id)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(open_log(&log)?)
        .spawn()
        .map_err(io_err("starting unshare (util-linux)"))?;
    let pid = holder.id();
    // `unshare` has made the namespace once its process's differs from ours.
    let ours = std::fs::read_link("/proc/self/ns/mnt").map_err(io_err("reading /proc/self/ns"))?;
    let deadline = Instant::now() + timeout;
    loop {
        match std::fs::read_link(format!("/proc/{pid}/ns/mnt")) {
            Ok(ns) if ns != ours => break,
            _ if Instant::now() > deadline => {
                let _ = holder.kill();
                return Err(failed(format!(
                    "unshare made no namespace; log: {}",
                    log_tail(&log, 5)
                )));
            }
            _ => std::thread::sleep(Duration::from_millis(10)),
        }
        if let Ok(Some(status)) = holder.try_wait() {
            return Err(failed(format!(
                "unshare exited ({status}): {}",
                log_tail(&log, 5)
            )));
        }
    }
    let out = Command::new("nsenter")
        .arg(format!("--target={pid}"))
        .args(["--mount", "--", "mount", "--bind"])
        .arg(host_home)
        .arg(&user.home_at)
        .stdin(Stdio::null())
        .output()
        .map_err(io_err("running nsenter (util-linux)"))?;
    if !out.status.success() {
        let _ = holder.kill();
        return Err(failed(format!(
            "mount --bind {} {} failed ({}): {}",
            host_home.display(),
            user.home_at.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let host_tmp = match private_tmp(pid, state_dir, shared_tmp) {
        Ok(tmp) => tmp,
        Err(e) => {
            let _ = holder.kill();
            return Err(e);
        }
    };
    let bin = super::sudo::write(state_dir)?;
    Ok((
        holder,
        Sandbox {
            user: user.clone(),
            namespace_pid: pid,
            host_home: host_home.to_path_buf(),
            host_tmp: Some(host_tmp),
            bin: Some(bin),
        },
    ))
}

/// Gives the namespace of process `pid` a `/tmp` of its own, as a VM has:
/// the folder `tmp` of `state_dir`, sticky and writable by all, mounted at
/// `/tmp`. Two desktops run as the same account otherwise meet there:
/// LibreOffice finds a running instance by a socket in `/tmp` named after
/// the account and its profile's path (the same `/home/user/...` in every
/// task), and hands its documents to the other desktop's. Seen through it
/// as before: the X servers' socket folder (`/tmp/.X11-unix`, the host's),
/// and `state_dir` (the buses' sockets) and the `shared` folders when they
/// are under `/tmp`.
fn private_tmp(pid: u32, state_dir: &Path, shared: &[PathBuf]) -> Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let tmp = state_dir.join("tmp");
    let sticky = |d: &Path| {
        std::fs::create_dir_all(d)
            .and_then(|()| std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o1777)))
            .map_err(io_err(format!("making {}", d.display())))
    };
    sticky(&tmp)?;
    super::x11_socket_dir()?;
    sticky(&tmp.join(".X11-unix"))?;
    let mut binds: Vec<(PathBuf, PathBuf)> = vec![("/tmp/.X11-unix".into(), tmp.join(".X11-unix"))];
    let state = std::path::absolute(state_dir).map_err(io_err("resolving the state folder"))?;
    for dir in std::iter::once(&state).chain(shared.iter().filter(|d| d.is_dir())) {
        if let Ok(rest) = dir.strip_prefix("/tmp") {
            let at = tmp.join(rest);
            std::fs::create_dir_all(&at).map_err(io_err(format!("making {}", at.display())))?;
            binds.push((dir.clone(), at));
        }
    }
    // Last, recursively: the two binds above, made inside it, come along.
    binds.push((tmp.clone(), "/tmp".into()));
    let last = binds.len() - 1;
    for (i, (from, to)) in binds.into_iter().enumerate() {
        let how = if i == last { "--rbind" } else { "--bind" };
        let out = Command::new("nsenter")
            .arg(format!("--target={pid}"))
            .args(["--mount", "--", "mount", how])
            .arg(&from)
            .arg(&to)
            .stdin(Stdio::null())
            .output()
            .map_err(io_err("running nsenter (util-linux)"))?;
        if !out.status.success() {
            return Err(HeadlessError::StartFailed {
                component: "the desktop's own /tmp".into(),
                detail: format!(
                    "mount {how} {} {} failed ({}): {}",
                    from.display(),
                    to.display(),
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
                source: None,
            });
        }
    }
    Ok(tmp)
}

/// The session bus's configuration for a desktop run as an account: the
/// standard session configuration, plus root (ufo) allowed to connect, as
/// at-spi2-core's accessibility bus allows it. Written into `dir`.
pub(super) fn session_bus_config(dir: &Path) -> Result<PathBuf> {
    let path = dir.join("session-bus.conf");
    std::fs::write(
        &path,
        r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <include>/usr/share/dbus-1/session.conf</include>
  <policy context="default">
    <allow user="root"/>
  </policy>
</busconfig>
"#,
    )
    .map_err(io_err(format!("writing {}", path.display())))?;
    Ok(path)
}

/// Writes `home/.Xauthority` with a MIT-MAGIC-COOKIE-1 entry for this
/// host's `display` (Xlib, and Python's `Xlib` under `pyautogui`, refuse
/// to connect without the file). The server itself admits local clients
/// without a cookie, as the desktop's have always been admitted.
pub(super) fn write_xauthority(home: &Path, display: &str) -> Result<PathBuf> {
    use rand::RngCore;
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_default();
    let number = display.trim_start_matches(':');
    let number = number.split('.').next().unwrap_or(number);
    let mut cookie = [0u8; 16];
    rand::rng().fill_bytes(&mut cookie);
    let path = home.join(".Xauthority");
    std::fs::write(&path, xauth_entry(&host, number, &cookie))
        .map_err(io_err(format!("writing {}", path.display())))?;
    Ok(path)
}

/// One entry of an Xauthority file: family `FamilyLocal` (256), then the
/// address, display number, auth name and data, each a big-endian `u16`
/// length and its bytes.
fn xauth_entry(host: &str, number: &str, cookie: &[u8]) -> Vec<u8> {
    let mut out = 256u16.to_be_bytes().to_vec();
    for field in [
        host.as_bytes(),
        number.as_bytes(),
        b"MIT-MAGIC-COOKIE-1".as_slice(),
        cookie,
    ] {
        let len = u16::try_from(field.len()).unwrap_or(u16::MAX);
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&field[..usize::from(len)]);
    }
    out
}

impl DesktopState {
    /// A command running `program` on this desktop, in `dir` (a path as
    /// the desktop's programs see it), with none of the desktop's
    /// environment yet (add [`DesktopState::env`]). On a desktop run as an
    /// account it runs as the account in the desktop's mount namespace.
    pub fn command(&self, program: impl AsRef<OsStr>, dir: Option<&Path>) -> Command {
        command(self.sandbox.as_ref(), program.as_ref(), dir)
    }

    /// `path` (as the desktop's programs see it) as this process sees it:
    /// a path in the home of a desktop run as an account is in its folder
    /// on the host.
    pub fn host_path(&self, path: &Path) -> PathBuf {
        match &self.sandbox {
            Some(s) => s.host_path(path),
            None => path.to_path_buf(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn an_xauthority_entry_is_length_prefixed_fields() {
        let e = xauth_entry("h", "12", &[1, 2]);
        let mut want = vec![1, 0, 0, 1, b'h', 0, 2, b'1', b'2', 0, 18];
        want.extend_from_slice(b"MIT-MAGIC-COOKIE-1");
        want.extend_from_slice(&[0, 2, 1, 2]);
        assert_eq!(e, want);
    }

    #[test]
    fn the_accounts_path_leaves_out_what_it_cannot_search() {
        let dir = tempfile::tempdir().unwrap();
        let closed = dir.path().join("closed");
        std::fs::create_dir(&closed).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o700)).unwrap();
        let path =
            std::env::join_paths([Path::new("/usr/bin"), &closed, Path::new("rel")]).unwrap();
        assert_eq!(searchable_by_all(&path), "/usr/bin");
    }

    #[test]
    fn home_paths_map_to_the_host_folder() {
        let s = Sandbox {
            user: DesktopUser {
                name: "u".into(),
                uid: 5,
                gid: 5,
                home_at: "/home/user".into(),
            },
            namespace_pid: 1,
            host_home: "/out/t/work".into(),
            host_tmp: Some("/state/tmp".into()),
            bin: Some("/state/bin".into()),
        };
        assert_eq!(
            s.host_path(Path::new("/home/user/Desktop/a.txt")),
            Path::new("/out/t/work/Desktop/a.txt")
        );
        assert_eq!(
            s.host_path(Path::new("/home/userx")),
            Path::new("/home/userx")
        );
        assert_eq!(s.host_path(Path::new("/tmp/a")), Path::new("/state/tmp/a"));
        assert_eq!(s.host_path(Path::new("/var/a")), Path::new("/var/a"));
        let cmd = command(
            Some(&s),
            OsStr::new("gsettings"),
            Some(Path::new("/home/user")),
        );
        let args: Vec<_> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(cmd.get_program(), "nsenter");
        assert_eq!(
            args,
            [
                "--target=1",
                "--mount",
                "--setuid=5",
                "--setgid=5",
                "--wd=/home/user",
                "--",
                "gsettings"
            ]
        );
        // The desktop's own `sudo` comes first.
        let path = cmd
            .get_envs()
            .find(|(k, _)| *k == "PATH")
            .and_then(|(_, v)| v);
        assert!(
            path.unwrap().to_string_lossy().starts_with("/state/bin:"),
            "{path:?}"
        );
    }
}
