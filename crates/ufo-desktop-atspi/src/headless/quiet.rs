//! Waiting for an application to be done starting: its processes' CPU time
//! stops growing. An application's window maps before it is done: Firefox
//! restores its session and compiles scripts for seconds after, and gedit
//! loads the file it opens after its window shows (text set in the
//! meantime is replaced). Whoever acts on it or measures it before then
//! meets an application still at work. Used by `ufo eval`'s setup and
//! `ufo bench apps`.

use std::collections::HashSet;
use std::time::{Duration, Instant};

/// How often the processes' CPU time is sampled.
const SAMPLE: Duration = Duration::from_millis(250);

/// Quiet: the processes used at most this much CPU time over one sample
/// (8 % of a core).
const QUIET_CPU: Duration = Duration::from_millis(20);

/// How many quiet samples in a row make the application idle.
const QUIET_SAMPLES: u32 = 3;

/// The longest wait: an application that never rests is measured anyway.
const MAX_WAIT: Duration = Duration::from_secs(20);

/// CPU time (user + system) of process `pid` so far; `None` when it is gone
/// or its stat is unreadable.
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    cpu_time_of_stat(&stat)
}

/// The CPU time in a `/proc/<pid>/stat` line: its 14th and 15th fields
/// (utime, stime, in clock ticks of 1/100 s), counted after the command
/// name, which may hold spaces and parentheses.
fn cpu_time_of_stat(stat: &str) -> Option<Duration> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

/// Waits until the processes `procs()` lists (the application's) are
/// quiet for [`QUIET_SAMPLES`] samples in a row, at most [`MAX_WAIT`].
/// Returns how long it waited.
pub async fn until_quiet(procs: impl Fn() -> HashSet<u32>) -> Duration {
    let start = Instant::now();
    let total = |ps: &HashSet<u32>| ps.iter().filter_map(|&p| cpu_time(p)).sum::<Duration>();
    let mut last = total(&procs());
    let mut quiet = 0;
    while quiet < QUIET_SAMPLES && start.elapsed() < MAX_WAIT {
        tokio::time::sleep(SAMPLE).await;
        let now = total(&procs());
        // A process that ended takes its time with it: no growth then.
        quiet = match now.saturating_sub(last) <= QUIET_CPU {
            true => quiet + 1,
            false => 0,
        };
        last = now;
    }
    start.elapsed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_is_read_after_a_command_name_with_spaces() {
        let stat = "4242 (Web Content (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 \
                    150 25 0 0 20 0 30 0 123 456 789";
        assert_eq!(cpu_time_of_stat(stat), Some(Duration::from_millis(1750)));
        assert_eq!(cpu_time_of_stat("garbage"), None);
    }

    #[test]
    fn this_process_has_spent_cpu_time() {
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        assert!(x != 1);
        assert!(cpu_time(std::process::id()).is_some());
    }
}
