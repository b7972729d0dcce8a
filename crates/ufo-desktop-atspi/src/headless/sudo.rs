//! The `sudo` of a desktop run as an account (OSWorld's VM gives its user
//! `sudo` with the password `password`, and 14 of its tasks use it, nearly
//! all to install a package or to make a folder).
//!
//! The account gets no root here: a task desktop shares the host's
//! filesystem outside its home and `/tmp`, and whatever a model types into
//! a terminal would reach it. So this `sudo` takes the password as `sudo -S`
//! does (a line from standard input) and runs the command *as the account*:
//! `sudo mkdir ~/Desktop/x` works, `sudo useradd` fails as the account's
//! own attempt would. `apt`/`apt-get update` does nothing and succeeds;
//! `install` succeeds when every package is installed on the host, and
//! otherwise fails naming the packages to install there.

use super::error::{Result, io_err};
use std::path::{Path, PathBuf};

/// The script, for `sh`.
const SUDO: &str = r#"#!/bin/sh
# sudo on a ufo task desktop: runs the command as this account, not root.
stdin=0
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; break ;;
    -u|-g|-p|-C|-h|-U|-r|-t|-T|-D) shift 2 ;;
    --stdin) stdin=1; shift ;;
    --*) shift ;;
    -*) case "$1" in *S*) stdin=1 ;; esac; shift ;;
    *) break ;;
  esac
done
if [ "$stdin" = 1 ]; then read -r _password || true; fi
[ $# -gt 0 ] || exit 0
case "${1##*/}" in
  apt|apt-get)
    shift
    action=""; missing=""
    for a in "$@"; do
      case "$a" in
        -*) ;;
        *) if [ -z "$action" ]; then action="$a"
           elif [ "$action" = install ]; then
             pkg="${a%%=*}"
             dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' \
               || missing="$missing $pkg"
           fi ;;
      esac
    done
    case "$action" in
      install)
        if [ -n "$missing" ]; then
          echo "E: ufo's task desktop installs no packages (its sudo is not root); install them on the host:$missing (apt-get install$missing)" >&2
          exit 100
        fi
        echo "All packages are already installed." ;;
      update|"") ;;
      *) echo "E: ufo's task desktop does not run apt $action (its sudo is not root)" >&2; exit 100 ;;
    esac
    exit 0 ;;
esac
exec "$@"
"#;

/// Writes the `sudo` into `bin` of `state_dir` (readable and runnable by
/// all) and returns that folder, for the front of the desktop's `PATH`.
pub(super) fn write(state_dir: &Path) -> Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let bin = state_dir.join("bin");
    let sudo = bin.join("sudo");
    std::fs::create_dir_all(&bin)
        .and_then(|()| std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)))
        .and_then(|()| std::fs::write(&sudo, SUDO))
        .and_then(|()| std::fs::set_permissions(&sudo, std::fs::Permissions::from_mode(0o755)))
        .map_err(io_err(format!("writing {}", sudo.display())))?;
    Ok(bin)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::process::{Command, Stdio};

    fn sudo(args: &[&str], stdin: &str) -> (i32, String, String) {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let bin = write(dir.path()).unwrap();
        let mut child = Command::new(bin.join("sudo"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
        (
            out.status.code().unwrap(),
            text(out.stdout),
            text(out.stderr),
        )
    }

    #[test]
    fn sudo_runs_the_command_as_the_caller_after_reading_the_password() {
        let (code, out, _) = sudo(
            &["-S", "sh", "-c", "read l; echo \"$l|$(id -u)\""],
            "password\nrest\n",
        );
        let uid = nix::unistd::getuid().as_raw();
        assert_eq!((code, out.as_str()), (0, format!("rest|{uid}\n").as_str()));
        let (code, out, _) = sudo(&["-k", "-u", "root", "--", "echo", "-n", "x"], "");
        assert_eq!((code, out.as_str()), (0, "x"));
    }

    #[test]
    fn sudo_apt_installs_nothing_and_names_what_is_missing() {
        let (code, _, err) = sudo(&["-S", "apt-get", "update", "-y"], "password\n");
        assert_eq!((code, err.as_str()), (0, ""));
        // dpkg is installed wherever dpkg-query runs.
        let (code, out, _) = sudo(&["-S", "apt-get", "install", "-y", "dpkg"], "password\n");
        assert_eq!(code, 0, "{out}");
        let (code, _, err) = sudo(&["apt", "install", "ufo-no-such-package", "-y"], "");
        assert_eq!(code, 100);
        assert!(err.contains("apt-get install ufo-no-such-package"), "{err}");
        let (code, _, err) = sudo(&["apt-get", "remove", "dpkg"], "");
        assert_eq!(code, 100);
        assert!(err.contains("does not run apt remove"), "{err}");
    }
}
