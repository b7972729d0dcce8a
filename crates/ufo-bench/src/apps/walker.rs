//! The pyatspi walk, run beside ufo's observations: one Python process per
//! application (`scripts/bench/apps_walk.py --serve`), asked for one walk at
//! a time, so that the walks alternate with ufo's full captures and the
//! machine's slow and fast moments fall on both sides alike.

use crate::error::BenchError;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use ufo_core::{Diagnostic, ErrorReport, WindowInfo};
use ufo_desktop_atspi::HeadlessDesktop;

/// The Python with pyatspi (Debian's).
const PYTHON: &str = "/usr/bin/python3";

/// What to do when the walk cannot run.
const HELP: &str = "install python3-pyatspi (scripts/bootstrap.sh)";

/// Longest wait for the window to be found and walked once.
const READY_WITHIN: Duration = Duration::from_secs(120);

/// Longest wait for one walk (a window of thousands of nodes takes seconds).
const WALK_WITHIN: Duration = Duration::from_secs(300);

/// A running walk process of one window.
pub(super) struct Walker {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    /// Nodes its last walk read.
    pub(super) nodes: usize,
}

impl Walker {
    /// Starts the walk of `w` in `desktop` and waits for its warm-up walk.
    pub(super) async fn start(
        desktop: &HeadlessDesktop,
        script: &Path,
        w: &WindowInfo,
    ) -> Result<Self, ErrorReport> {
        let mut child = Command::new(PYTHON)
            .arg(script)
            .args(["--pid", &w.pid.unwrap_or(0).to_string()])
            .args(["--app", &w.app_name, "--window", &w.title, "--serve"])
            .envs(desktop.state().env())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| failed(format!("cannot run {PYTHON}: {e}")))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(failed("the walk's pipes could not be opened".into()));
        };
        let mut walker = Walker {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            nodes: 0,
        };
        let ready = walker.answer(READY_WITHIN).await?;
        walker.nodes = nodes_of(&ready);
        Ok(walker)
    }

    /// One walk from a cold client cache: its milliseconds.
    pub(super) async fn walk(&mut self) -> Result<f64, ErrorReport> {
        if self.stdin.write_all(b"walk\n").await.is_err() || self.stdin.flush().await.is_err() {
            return Err(self.last_words().await);
        }
        let v = self.answer(WALK_WITHIN).await?;
        self.nodes = nodes_of(&v);
        v["ms"]
            .as_f64()
            .ok_or_else(|| failed(format!("the walk answered {v} (no \"ms\")")))
    }

    /// The next JSON line the walk prints, within `limit`.
    async fn answer(&mut self, limit: Duration) -> Result<serde_json::Value, ErrorReport> {
        let line = match tokio::time::timeout(limit, self.lines.next_line()).await {
            Err(_) => {
                return Err(failed(format!(
                    "the pyatspi walk gave no answer within {} s",
                    limit.as_secs()
                )));
            }
            Ok(Ok(Some(line))) => line,
            Ok(_) => return Err(self.last_words().await),
        };
        serde_json::from_str(&line)
            .map_err(|_| failed(format!("the walk printed {line:?}, not a JSON line")))
    }

    /// Why the walk stopped: the last line it wrote on stderr.
    async fn last_words(&mut self) -> ErrorReport {
        let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
        let mut err = String::new();
        if let Some(mut stderr) = self.child.stderr.take() {
            let read = stderr.read_to_string(&mut err);
            let _ = tokio::time::timeout(Duration::from_secs(5), read).await;
        }
        let last = err.lines().last().unwrap_or("it exited without a word");
        failed(last.to_owned())
    }
}

/// The `nodes` a walk's answer gives (0 when it gives none).
fn nodes_of(v: &serde_json::Value) -> usize {
    v["nodes"].as_u64().unwrap_or(0) as usize
}

/// The walk failed: `message`, with what to install.
fn failed(message: String) -> ErrorReport {
    BenchError::Baseline {
        message,
        help: HELP,
    }
    .report()
}
