//! The processes of a desktop, found by the environment marker they carry
//! (`UFO_DESKTOP_ID`, `UFO_LAUNCH_ID`), and ending them.

use super::DESKTOP_ID_VAR;
use std::time::{Duration, Instant};

/// True when `pid` exists and is not a zombie.
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state field follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|st| st != "Z" && st != "X"),
        Err(_) => false,
    }
}

pub(super) fn process_has_var(pid: u32, var: &str, value: &str) -> bool {
    let needle = format!("{var}={value}");
    std::fs::read(format!("/proc/{pid}/environ"))
        .map(|env| env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()))
        .unwrap_or(false)
}

/// True when `pid` is `ancestor` or its descendant (at most [`ANCESTRY`]
/// generations up). For a process that rewrites its environment's memory
/// to show a title (Chromium), where its launch marker can no longer be read.
pub(super) fn descends_from(pid: u32, ancestor: u32) -> bool {
    let mut cur = pid;
    for _ in 0..ANCESTRY {
        if cur == ancestor {
            return true;
        }
        match parent_of(cur) {
            Some(p) if p > 1 => cur = p,
            _ => return false,
        }
    }
    false
}

/// Generations looked up by [`descends_from`].
const ANCESTRY: usize = 8;

/// The parent of `pid`, from `/proc/PID/stat` (its fourth field, after the
/// command name in parentheses, which may itself hold spaces or ')').
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

pub(super) fn process_has_marker(pid: u32, id: &str) -> bool {
    process_has_var(pid, DESKTOP_ID_VAR, id)
}

/// Live processes whose environment contains `var=value`.
pub fn marked_pids(var: &str, value: &str) -> Vec<u32> {
    let me = std::process::id();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me && process_has_var(pid, var, value) && process_alive(pid))
        .collect()
}

pub(super) fn signal(pid: u32, sig: nix::sys::signal::Signal) {
    if let Ok(p) = i32::try_from(pid) {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(p), sig);
    }
}

/// Sends SIGTERM to every process of desktop `id`, waits up to `grace`, then
/// SIGKILLs the rest. Returns how many processes were found.
pub(super) fn kill_marked(id: &str, grace: Duration) -> usize {
    let pids = marked_pids(DESKTOP_ID_VAR, id);
    for &pid in &pids {
        signal(pid, nix::sys::signal::Signal::SIGTERM);
    }
    let deadline = Instant::now() + grace;
    loop {
        let left = marked_pids(DESKTOP_ID_VAR, id);
        if left.is_empty() {
            break;
        }
        if Instant::now() > deadline {
            for pid in left {
                signal(pid, nix::sys::signal::Signal::SIGKILL);
            }
            std::thread::sleep(Duration::from_millis(50));
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    pids.len()
}

#[cfg(test)]
mod ancestry_tests {
    use super::descends_from;

    #[test]
    fn a_process_descends_from_itself_and_its_parents_not_from_a_child() {
        let me = std::process::id();
        let parent = std::os::unix::process::parent_id();
        assert!(descends_from(me, me));
        assert!(descends_from(me, parent));
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        assert!(descends_from(child.id(), me));
        assert!(!descends_from(me, child.id()));
        child.kill().unwrap();
        let _ = child.wait();
    }
}
