//! Programs a checker runs where OSWorld's metric calls a library with no
//! faithful Rust counterpart: MuPDF's `mutool` (PyMuPDF), `ffmpeg`
//! (OpenCV's video reader), `python3` (a task's own Python test suite).
//!
//! A program runs as a fixed executable with arguments (no shell), with
//! standard input closed, at most its [`Tool::limit`], its standard output
//! read by a function on a thread (so a reader can stream and bound what it
//! keeps), a few KiB of its messages kept, and, when asked, an output file
//! or folder watched: the program is killed past its size.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How much of a program's messages is kept.
const MAX_STDERR: u64 = 4096;

/// A program a checker runs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tool {
    /// The executable, looked up on `PATH`.
    pub name: &'static str,
    /// What it is, for messages ("MuPDF's command-line tool").
    pub what: &'static str,
    /// How long one run may take.
    pub limit: Duration,
}

/// Why a program gave nothing to score.
#[derive(Debug)]
pub(super) enum Failure {
    /// The program is not installed or could not be started: no score can
    /// be given on this machine.
    NoTool(String),
    /// The program could not read its input, took too long, or wrote more
    /// than allowed: OSWorld's library raises there too.
    Unreadable(String),
}

/// How a run ended: its exit status, what the reader made of its output,
/// and the start of its messages.
pub(super) struct Finished<R> {
    /// The exit status.
    pub status: ExitStatus,
    /// The reader's result.
    pub output: R,
    /// The first [`MAX_STDERR`] bytes of its standard error.
    pub messages: String,
}

/// What reads a program's standard output.
pub(super) type Reader<R> = fn(&mut dyn Read) -> std::io::Result<R>;

/// `path` as a file argument: never taken for an option.
pub(super) fn file_arg(path: &Path) -> OsString {
    if path.as_os_str().to_string_lossy().starts_with('-') {
        PathBuf::from(".").join(path).into_os_string()
    } else {
        path.as_os_str().to_owned()
    }
}

/// Runs `tool args` (in `cwd`, when given), configured further by
/// `setup` (its environment, its user), its standard output read by
/// `read` on a thread, at most the tool's limit; `watch` is an output file,
/// or a folder of them, killed past its size. Any exit status is returned:
/// what a failure means is the caller's to say.
pub(super) fn run<R: Send + 'static>(
    tool: &Tool,
    args: &[OsString],
    cwd: Option<&Path>,
    watch: Option<(&Path, u64)>,
    setup: impl FnOnce(&mut Command),
    read: Reader<R>,
) -> Result<Finished<R>, Failure> {
    let mut command = Command::new(tool.name);
    if let Some(dir) = cwd {
        command.current_dir(dir);
    }
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    setup(&mut command);
    let mut child = command.spawn().map_err(|e| {
        Failure::NoTool(if e.kind() == std::io::ErrorKind::NotFound {
            format!("{} ({}) is not installed", tool.name, tool.what)
        } else {
            format!("{} could not be started: {e}", tool.name)
        })
    })?;
    let failed = Arc::new(AtomicBool::new(false));
    let reader = child.stdout.take().map(|mut out| {
        let failed = Arc::clone(&failed);
        thread::spawn(move || {
            let r = read(&mut out);
            if r.is_err() {
                failed.store(true, Ordering::SeqCst);
                // Keep the pipe drained until the process is killed.
                let _ = std::io::copy(&mut out, &mut std::io::sink());
            }
            r
        })
    });
    let messages = child.stderr.take().map(|mut err| {
        thread::spawn(move || {
            let mut kept = Vec::new();
            let _ = (&mut err).take(MAX_STDERR).read_to_end(&mut kept);
            let _ = std::io::copy(&mut err, &mut std::io::sink());
            kept
        })
    });
    let status = wait(tool, &mut child, watch, &failed);
    let output = reader.map(join);
    let messages = messages.map(join).and_then(Result::ok).unwrap_or_default();
    let status = status?;
    let output = match output {
        Some(Ok(Ok(r))) => r,
        Some(Ok(Err(e))) => {
            return Err(Failure::Unreadable(format!(
                "reading {}'s output: {e}",
                tool.name
            )));
        }
        Some(Err(())) | None => {
            return Err(Failure::Unreadable(format!(
                "{}'s output could not be read",
                tool.name
            )));
        }
    };
    Ok(Finished {
        status,
        output,
        messages: String::from_utf8_lossy(&messages).into_owned(),
    })
}

/// A thread's result, `Err(())` when it panicked.
fn join<T>(handle: JoinHandle<T>) -> Result<T, ()> {
    handle.join().map_err(|_| ())
}

/// Waits for `child` at most the tool's limit, killing it when it runs
/// over, when the reader gave up (`failed`), or when `watch`'s file
/// outgrows its bound.
fn wait(
    tool: &Tool,
    child: &mut Child,
    watch: Option<(&Path, u64)>,
    failed: &AtomicBool,
) -> Result<ExitStatus, Failure> {
    let name = tool.name;
    let deadline = Instant::now() + tool.limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => {}
            Err(e) => return Err(Failure::Unreadable(format!("waiting for {name}: {e}"))),
        }
        let why = if Instant::now() > deadline {
            Some(format!("{name} took longer than {:?}", tool.limit))
        } else if failed.load(Ordering::SeqCst) {
            Some(format!("{name}'s output is not what was expected"))
        } else {
            watch.and_then(|(file, max)| {
                (size(file) > max).then(|| format!("{name}'s output is over {max} bytes"))
            })
        };
        if let Some(why) = why {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Failure::Unreadable(why));
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// The size of a file, or of the files in a folder (0 when absent).
fn size(path: &Path) -> u64 {
    match std::fs::read_dir(path) {
        Ok(entries) => entries
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum(),
        Err(_) => std::fs::metadata(path).map_or(0, |m| m.len()),
    }
}

/// Drains a program's output, keeping nothing.
pub(super) fn discard(out: &mut dyn Read) -> std::io::Result<()> {
    std::io::copy(out, &mut std::io::sink()).map(|_| ())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    const ABSENT: Tool = Tool {
        name: "a-program-not-installed-here",
        what: "nothing",
        limit: Duration::from_secs(5),
    };

    #[test]
    fn a_missing_program_is_no_tool() {
        match run(&ABSENT, &[], None, None, |_| {}, discard) {
            Err(Failure::NoTool(why)) => assert!(why.contains("not installed"), "{why}"),
            Err(other) => panic!("{other:?}"),
            Ok(_) => panic!("ran"),
        }
    }

    #[test]
    fn a_program_past_its_limit_is_killed() {
        let sleep = Tool {
            name: "sleep",
            what: "coreutils",
            limit: Duration::from_millis(200),
        };
        match run(&sleep, &["30".into()], None, None, |_| {}, discard) {
            Err(Failure::Unreadable(why)) => assert!(why.contains("longer than"), "{why}"),
            Err(other) => panic!("{other:?}"),
            Ok(_) => panic!("finished"),
        }
    }

    #[test]
    fn a_dash_file_is_not_an_option() {
        assert_eq!(file_arg(Path::new("-x.pdf")), OsString::from("./-x.pdf"));
        assert_eq!(file_arg(Path::new("/a/b.pdf")), OsString::from("/a/b.pdf"));
    }
}
