//! The task desktop as OSWorld's VM (issue 39): as root, each task's
//! desktop runs as the unprivileged account `ufo-task`, its home — the
//! task's own fresh folder — at `/home/user` in a private mount namespace.
//! Two tasks of `tests/task-desktop/` (OSWorld's format) run side by side:
//! the first writes to `/home/user/...` (a shell step, a download), sets a
//! GSettings key, launches a GTK 2 application (whose window ufo, as root,
//! reads through the accessibility bus) and reads it all back
//! through getters, with Python's `Xlib` (as `pyautogui`) on a 1920×1080
//! screen and a window manager; the second sees none of it.

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

    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/task-desktop");
    let (tasks, errors) = load_suite(&suite);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(tasks.len(), 2);
    let reply = json!({"observation": "", "thought": "done", "status": "FINISH", "result": "done"});
    let model = ScriptedModel::start((0..8).map(|_| fixed(reply.to_string())).collect()).await;
    let m = model.agent_yaml();
    let cfg = config(&format!("HOST_AGENT:\n{m}APP_AGENT:\n{m}"));
    let out = tempfile::tempdir().unwrap();
    let opts = EvalOptions {
        prompts: Arc::new(ufo_agent::PromptSet::load(&cfg.prompts).unwrap()),
        config: cfg,
        out: out.path().to_path_buf(),
        parallel: 2,
        max_steps: Some(3),
        mode: EvalMode::Normal,
        task_timeout: Duration::from_secs(240),
        fetcher: Arc::new(Fetcher::new(out.path().join("downloads"), None)),
        desktop,
        max_cost: None,
        max_task_cost: None,
    };
    let results = run_tasks(&opts, tasks, |_| {}).await;
    for r in &results {
        // Every checker held: the file is in the task's home, gsettings
        // kept the key, gpicview runs as ufo-task, Xlib connected to a
        // 1920×1080 screen, the downloaded file was the account's to
        // change, a window manager runs; the other task saw none of it.
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
    assert!(!out.path().join("os/home-b/work/Desktop").exists());
    assert!(out.path().join("os/home-b/work/mine-b.txt").is_file());
}
