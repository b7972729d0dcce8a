//! Third-party test tools installed once per machine under a cache folder
//! (the target directory's): a Python venv with given PyPI packages, npm
//! packages. A half-finished install is never used: each goes into a
//! temporary folder that is renamed into place.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `cmd` and panics with its output (and `what` to do) when it fails.
pub fn run(cmd: &mut Command, what: &str) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Installs into `<dir>.tmp-<pid>` with `install` and renames it to `dir`,
/// unless `ready` (a file inside `dir`) exists already. Two processes never
/// clash: the second rename loses and its copy is dropped.
pub fn install_once(dir: &Path, ready: &Path, install: impl FnOnce(&Path)) {
    if ready.exists() {
        return;
    }
    if let Some(parent) = dir.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let tmp = dir.with_extension(format!("tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    install(&tmp);
    if std::fs::rename(&tmp, dir).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    assert!(
        ready.exists(),
        "{} is missing after install",
        ready.display()
    );
}

/// The python of a venv `root/name` holding `packages` (pinned PyPI
/// requirements), made with Debian's `/usr/bin/python3` (the `python3` on
/// PATH may be a pyenv shim). Needs python3-venv (scripts/bootstrap.sh).
pub fn python_venv(root: &Path, name: &str, packages: &[&str]) -> PathBuf {
    let dir = root.join(name);
    let py = dir.join("bin/python");
    install_once(&dir, &py, |tmp| {
        run(
            Command::new("/usr/bin/python3")
                .args(["-m", "venv"])
                .arg(tmp),
            "python3 -m venv (apt-get install python3-venv, or run scripts/bootstrap.sh)",
        );
        run(
            Command::new(tmp.join("bin/python"))
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .args(packages),
            "pip install",
        );
    });
    // A renamed venv still works: `bin/python` finds `pyvenv.cfg` next to it
    // (only scripts' shebangs name the old path; use `python -m`).
    py
}
