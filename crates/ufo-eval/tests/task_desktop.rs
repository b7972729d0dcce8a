//! The task desktop as OSWorld's VM (issue 39): as root, each task's
//! desktop runs as the unprivileged account `ufo-task`, its home — the
//! task's own fresh folder — at `/home/user` in a private mount namespace.
//! Two tasks of `tests/task-desktop/` (OSWorld's format) run side by side:
//! the first writes to `/home/user/...` (a shell step, a download), sets a
//! GSettings key (the second finds the VM's own value of another: the
//! screen lock off, where Debian's schema says on), launches a GTK 2 application (whose window ufo, as root,
//! reads through the accessibility bus) and reads it all back
//! through getters, with Python's `Xlib` (as `pyautogui`) on a 1920×1080
//! screen and a window manager, writes to its own `/tmp` and uses `sudo` as
//! OSWorld's tasks do; the second sees none of it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::config;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use ufo_eval::fetch::Fetcher;
use ufo_eval::run::{EvalMode, EvalOptions, RunStatus, TaskDesktop, is_root, run_tasks};
use ufo_eval::suite::load_suite;
use ufo_testkit::scripted::{ScriptedModel, fixed};

/// Options for tasks run `parallel` at a time on `desktop`, by an agent (a
/// scripted model with `replies` replies, kept alive by the caller) that
/// says FINISH at once: the setup and the checkers do all the work.
async fn finishing(
    out: &Path,
    desktop: TaskDesktop,
    parallel: usize,
    replies: usize,
) -> (ScriptedModel, EvalOptions) {
    let reply = json!({"observation": "", "thought": "done", "status": "FINISH", "result": "done"});
    let model =
        ScriptedModel::start((0..replies).map(|_| fixed(reply.to_string())).collect()).await;
    let m = model.agent_yaml();
    let cfg = config(&format!("HOST_AGENT:\n{m}APP_AGENT:\n{m}"));
    let opts = EvalOptions {
        prompts: Arc::new(ufo_agent::PromptSet::load(&cfg.prompts).unwrap()),
        config: cfg,
        out: out.to_path_buf(),
        parallel,
        max_steps: Some(3),
        mode: EvalMode::Normal,
        task_timeout: Duration::from_secs(240),
        fetcher: Arc::new(Fetcher::new(out.join("downloads"), None)),
        desktop,
        max_cost: None,
        max_task_cost: None,
    };
    (model, opts)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_task_has_its_own_home_as_an_unprivileged_account() {
    let desktop = TaskDesktop::like_osworld();
    if !is_root() {
        // Not root: the fallback, today's desktop run as the caller.
        assert_eq!(desktop.user, None);
        return;
    }
    assert_eq!(desktop.user.as_deref(), Some("ufo-task"));
    assert_eq!(desktop.screen, (1920, 1080));
    let host_file = Path::new("/home/user/Desktop/ufo-home-test.txt");
    assert!(!host_file.exists(), "left by an earlier run: {host_file:?}");
    // Each task writes its own /tmp/ufo-tmp-test.txt; none reaches the host's.
    let host_tmp_file = Path::new("/tmp/ufo-tmp-test.txt");
    let _ = std::fs::remove_file(host_tmp_file);

    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/task-desktop");
    let (tasks, errors) = load_suite(&suite);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(tasks.len(), 2);
    let out = tempfile::tempdir().unwrap();
    let (_model, opts) = finishing(out.path(), desktop, 2, 8).await;
    let results = run_tasks(&opts, tasks, |_| {}).await;
    for r in &results {
        // Every checker held: the file is in the task's home, gsettings
        // kept the key, gpicview runs as ufo-task, Xlib connected to a
        // 1920×1080 screen, the downloaded file was the account's to
        // change, a window manager runs, /tmp is the task's own, `sudo`
        // installs nothing new and makes a folder as the account; the other
        // task saw none of it, and has the VM's screen-lock setting.
        assert_eq!((r.status, r.score), (RunStatus::Scored, 1.0), "{r:?}");
        // gpicview (GTK 2) registered on the accessibility bus, and ufo
        // (root) reads its window: its launch and `activate_window` wait
        // for that and would be step problems otherwise (the accessibility
        // tree getter checks it too).
        assert!(r.step_problems.is_empty(), "{r:?}");
    }
    // The home is the task's folder, owned by the account; the host's
    // /home/user is untouched.
    let a = out.path().join("os/home-a/work");
    assert_eq!(
        std::fs::read_to_string(a.join("Desktop/ufo-home-test.txt")).unwrap(),
        "task-a\n"
    );
    let owner = |p: &Path| std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(p).unwrap());
    let account = owner(&a.join("Desktop/ufo-home-test.txt"));
    assert_ne!(account, 0);
    assert_eq!(owner(&a.join("Documents/hello.txt")), account);
    assert_eq!(owner(&a.join(".Xauthority")), account);
    assert!(!host_file.exists());
    assert!(
        !host_tmp_file.exists(),
        "a task's /tmp file reached the host's /tmp"
    );
    assert!(!out.path().join("os/home-b/work/Desktop").exists());
    assert!(out.path().join("os/home-b/work/mine-b.txt").is_file());
}

/// A mono 16-bit WAV of a 440 Hz tone, `seconds` long.
fn write_wav(path: &Path, seconds: u32) {
    let rate = 8000u32;
    let samples: Vec<i16> = (0..rate * seconds)
        .map(|i| {
            ((i as f64 * 440.0 * std::f64::consts::TAU / f64::from(rate)).sin() * 8000.0) as i16
        })
        .collect();
    let data = u32::try_from(samples.len() * 2).unwrap();
    let mut b = Vec::new();
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + data).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&rate.to_le_bytes());
    b.extend_from_slice(&(rate * 2).to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&data.to_le_bytes());
    for s in samples {
        b.extend_from_slice(&s.to_le_bytes());
    }
    std::fs::write(path, b).unwrap();
}

/// VLC, which refuses to run as root, runs on the task desktop as the
/// account; its web interface is on, as on OSWorld's VM, on a port of the
/// task's own; OSWorld's `vlc_playing_info` getter and `is_vlc_playing`
/// checker read back the file it plays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vlc_runs_as_the_account_and_its_web_interface_says_what_it_plays() {
    if !is_root() {
        return;
    }
    assert!(
        ufo_eval::command::installed("vlc"),
        "VLC is not installed: apt-get install vlc (scripts/bootstrap.sh does)"
    );
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("tasks/vlc");
    std::fs::create_dir_all(&dir).unwrap();
    write_wav(&dir.join("tone.wav"), 30);
    let t = json!({"id": "plays", "snapshot": "vlc", "instruction": "Nothing.", "source": "ufo-rs",
        "related_apps": ["vlc"],
        "config": [
            {"type": "download", "parameters": {"files": [
                {"url": "file://$SUITE/tone.wav", "path": "/home/user/Music/tone.wav"}]}},
            {"type": "launch", "parameters": {"command": ["vlc", "--loop", "/home/user/Music/tone.wav"]}},
            {"type": "sleep", "parameters": {"seconds": 2}}
        ],
        "evaluator": {"func": ["is_vlc_playing", "exact_match"],
            "result": [{"type": "vlc_playing_info", "dest": "status.xml"},
                {"type": "vm_command_line", "command": "stat -c %U /proc/$(pgrep -n -x vlc)", "shell": true}],
            "expected": [{"type": "rule", "rules": {"type": "file_name", "file_name": "tone.wav"}},
                {"type": "rule", "rules": {"expected": "ufo-task\n"}}]}});
    std::fs::write(dir.join("plays.json"), serde_json::to_string(&t).unwrap()).unwrap();
    let (tasks, errors) = load_suite(&root.path().join("tasks"));
    assert!(errors.is_empty(), "{errors:?}");
    let out = tempfile::tempdir().unwrap();
    let (_model, opts) = finishing(out.path(), TaskDesktop::like_osworld(), 1, 4).await;
    let results = run_tasks(&opts, tasks, |_| {}).await;
    let r = &results[0];
    assert_eq!((r.status, r.score), (RunStatus::Scored, 1.0), "{r:?}");
    assert!(r.step_problems.is_empty(), "{r:?}");
    // The port was the task's own, not OSWorld's 8080.
    let vlcrc =
        std::fs::read_to_string(out.path().join("vlc/plays/work/.config/vlc/vlcrc")).unwrap();
    assert!(!vlcrc.contains("http-port=8080\n"), "{vlcrc}");
}
