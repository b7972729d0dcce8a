//! `check_python_file_by_test_suite` (OSWorld's `vscode.py`, desktop-env
//! 1.0.2): a task's own Python test file, imported and its test function
//! called; the function's verdict is the score.
//!
//! OSWorld's imports the file in the evaluating process, with the file's
//! folder as working directory and first on `sys.path` (the folder where
//! the task's result files were copied too, so the test imports them).
//! Here the same steps run in a separate `python3` (the driver below, one
//! fixed program with arguments, no shell), so a test that hangs, exits or
//! crashes cannot take the run down: it is stopped after
//! [`PYTHON`]'s limit and scores 0 with the reason logged. Its environment
//! is `PATH`, `LANG` and `HOME` only (no keys of the caller's). When ufo
//! runs as root the test runs as the unprivileged `nobody`, never
//! as root (the file is the task's code), in a copy of the regular files
//! of its folder owned by `nobody`.
//!
//! The score, as OSWorld's: 0 when the test file is missing or not a
//! file, cannot be imported (syntax or import error, any exception), has
//! no callable `test_function_name` (default `test`), or the call raises;
//! otherwise a boolean is 1 or 0, a number is clamped to 0..1, anything
//! else counts by its truth. The result files are not read (OSWorld's
//! `actual_files` is unused).

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::time::Duration;

use serde_json::Value;

use super::program::{self, Failure, Tool, file_arg};
use super::{CheckError, Cx, Got};

/// The interpreter.
const PYTHON: Tool = Tool {
    name: "python3",
    what: "the Python 3 interpreter",
    limit: Duration::from_secs(120),
};
/// The line before the score on the driver's output.
const MARK: &str = "\u{1}ufo-test-suite-score\u{1}";

/// OSWorld's loading and calling, in Python, run as
/// `python3 -c DRIVER TEST_FILE FUNCTION MARK`.
const DRIVER: &str = r#"
import importlib.util, os, sys, uuid
path, name, mark = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
sys.argv = [path]
def score():
    folder = os.path.dirname(path)
    os.chdir(folder)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        module_name = "dynamic_test_module_" + uuid.uuid4().hex[:8]
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            return 0.0
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    except Exception:
        return 0.0
    function = getattr(module, name, None)
    if function is None or not callable(function):
        return 0.0
    try:
        result = function()
    except Exception:
        return 0.0
    if isinstance(result, bool):
        return 1.0 if result else 0.0
    if isinstance(result, (int, float)):
        return max(0.0, min(1.0, float(result)))
    return 1.0 if bool(result) else 0.0
value = score()
sys.stdout.flush()
print("\n" + mark + "\n" + repr(value), flush=True)
"#;

/// `check_python_file_by_test_suite(actual_files, test_file,
/// test_function_name="test")`.
pub(super) fn check_python_file_by_test_suite(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let test_file = match cx.expected {
        Some(Got::File(p)) => p.clone(),
        Some(Got::Text(t)) if !t.is_empty() => t.into(),
        _ => return Ok(0.0),
    };
    let function = match cx.options.get("test_function_name") {
        None | Some(Value::Null) => "test",
        Some(Value::String(s)) => s.as_str(),
        Some(v) => {
            return Err(cx.bad(format!(
                "option test_function_name must be a string, got {v}"
            )));
        }
    };
    let Ok(test_file) = test_file.canonicalize() else {
        return Ok(0.0);
    };
    if !test_file.is_file() {
        return Ok(0.0);
    }
    let Some(folder) = test_file.parent() else {
        return Ok(0.0);
    };
    // As root, the test runs as `nobody` in a copy of its folder that
    // `nobody` may read (the task's output folder may not be).
    let nobody = match ufo_desktop_atspi::headless::is_root() {
        true => match ufo_desktop_atspi::headless::nobody() {
            Some(ids) => Some(ids),
            None => {
                tracing::warn!(
                    "check_python_file_by_test_suite: running as root and no account `nobody` to run the task's test as: scored 0"
                );
                return Ok(0.0);
            }
        },
        false => None,
    };
    let copy = match nobody {
        Some(ids) => match private_copy(folder, ids) {
            Ok(dir) => Some(dir),
            Err(e) => {
                tracing::info!(
                    "check_python_file_by_test_suite: no copy of {}: {e}",
                    folder.display()
                );
                return Ok(0.0);
            }
        },
        None => None,
    };
    let (folder, test_file) = match &copy {
        Some(dir) => (
            dir.path(),
            dir.path().join(test_file.file_name().unwrap_or_default()),
        ),
        None => (folder, test_file.clone()),
    };
    let args: Vec<OsString> = vec![
        "-c".into(),
        DRIVER.into(),
        file_arg(&test_file),
        function.into(),
        MARK.into(),
    ];
    let ran = program::run(
        &PYTHON,
        &args,
        Some(folder),
        None,
        |command| unprivileged(command, nobody),
        read_score,
    );
    match ran {
        Ok(done) => match done.output {
            Some(score) => Ok(score),
            None => {
                tracing::info!(
                    test = %test_file.display(),
                    "check_python_file_by_test_suite: the test gave no score ({}; {})",
                    done.status,
                    done.messages.trim()
                );
                Ok(0.0)
            }
        },
        Err(Failure::NoTool(why)) => Err(CheckError::MissingTool {
            func: cx.func.to_owned(),
            message: format!("{why}: this checker runs the task's Python test file with it"),
        }),
        Err(Failure::Unreadable(why)) => {
            tracing::info!(test = %test_file.display(), "check_python_file_by_test_suite: {why}");
            Ok(0.0)
        }
    }
}

/// The most bytes of a test's folder copied for `nobody`.
const MAX_COPY: u64 = 256 << 20;

/// A fresh folder owned by `nobody` with a copy of each regular file at
/// the top of `folder` (the test and the result files beside it), at most
/// [`MAX_COPY`] bytes in all.
fn private_copy(
    folder: &std::path::Path,
    (uid, gid): (u32, u32),
) -> std::io::Result<tempfile::TempDir> {
    let dir = tempfile::tempdir()?;
    std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid))?;
    let mut total = 0;
    for entry in std::fs::read_dir(folder)?.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let size = entry.metadata().map_or(0, |m| m.len());
        if !kind.is_file() || total + size > MAX_COPY {
            continue;
        }
        let to = dir.path().join(entry.file_name());
        std::fs::copy(entry.path(), &to)?;
        std::os::unix::fs::chown(&to, Some(uid), Some(gid))?;
        total += size;
    }
    Ok(dir)
}

/// Runs the test as `nobody` (its ids, when ufo is root), with a plain
/// environment (no secrets of the caller's).
fn unprivileged(command: &mut std::process::Command, nobody: Option<(u32, u32)>) {
    // (std drops root's supplementary groups when it sets the uid.)
    use std::os::unix::process::CommandExt;
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    command.env_clear().env("PATH", path).env("LANG", "C.UTF-8");
    match nobody {
        Some((uid, gid)) => {
            command.uid(uid).gid(gid).env("HOME", "/nonexistent");
        }
        None => {
            if let Some(home) = std::env::var_os("HOME") {
                command.env("HOME", home);
            }
        }
    }
}

/// The score after the driver's mark, reading the test's own output
/// without keeping it.
fn read_score(out: &mut dyn Read) -> std::io::Result<Option<f64>> {
    let mut out = BufReader::new(out.take(1 << 30));
    let mut line = Vec::new();
    let mut marked = false;
    let mut score = None;
    loop {
        line.clear();
        if out.read_until(b'\n', &mut line)? == 0 {
            return Ok(score);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end();
        if marked {
            score = text.parse::<f64>().ok().filter(|s| (0.0..=1.0).contains(s));
            marked = false;
        } else if text == MARK {
            marked = true;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn the_score_follows_the_last_mark() {
        let said = format!("noise\n{MARK}\n0.25\nmore\n{MARK}\n1.0\n");
        assert_eq!(read_score(&mut said.as_bytes()).unwrap(), Some(1.0));
        let no_mark = "1.0\n";
        assert_eq!(read_score(&mut no_mark.as_bytes()).unwrap(), None);
        let bad = format!("{MARK}\nnan\n");
        assert_eq!(read_score(&mut bad.as_bytes()).unwrap(), None);
    }
}
