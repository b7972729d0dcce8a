//! OSWorld's tasks as they are: downloads over real HTTP (a server started
//! here) with a cache, and from a mirror; the statuses of tasks that cannot
//! run here (decided before a desktop starts); and, on a real private
//! desktop, setup with OSWorld's semantics (verbatim shell strings,
//! fire-and-forget helpers, failed steps passed over and recorded).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::config;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use ufo_eval::fetch::Fetcher;
use ufo_eval::run::{EvalMode, EvalOptions, RunStatus, TaskDesktop, TaskResult, run_tasks};
use ufo_eval::suite::load_suite;
use ufo_session::config::UfoConfig;
use ufo_testkit::scripted::{ScriptedModel, fixed};

/// A file server on 127.0.0.1: `/files/a.txt` and nothing else; counts the
/// requests it answers.
async fn server() -> (String, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let app = axum::Router::new().route(
        "/files/{name}",
        axum::routing::get(
            move |axum::extract::Path(name): axum::extract::Path<String>| {
                let h = h.clone();
                async move {
                    h.fetch_add(1, Ordering::SeqCst);
                    match name.as_str() {
                        "a.txt" => (axum::http::StatusCode::OK, "from http".to_owned()),
                        _ => (axum::http::StatusCode::NOT_FOUND, String::new()),
                    }
                }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), hits)
}

fn options(config: UfoConfig, out: &Path, fetcher: Fetcher) -> EvalOptions {
    EvalOptions {
        prompts: Arc::new(ufo_agent::PromptSet::load(&config.prompts).unwrap()),
        config,
        out: out.to_path_buf(),
        parallel: 2,
        max_steps: Some(5),
        mode: EvalMode::Normal,
        task_timeout: Duration::from_secs(120),
        fetcher: Arc::new(fetcher),
        desktop: TaskDesktop::like_osworld(),
        max_cost: None,
        max_task_cost: None,
    }
}

fn write(path: &Path, v: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

fn task(id: &str, config: Value, result: Value) -> Value {
    json!({"id": id, "snapshot": "x", "instruction": "Do it.", "source": ["a", "b"],
           "trajectory": "trajectories/", "related_apps": ["os"], "config": config,
           "evaluator": {"func": "exact_match", "result": result,
                         "expected": {"type": "rule", "rules": {"expected": "x"}}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downloads_are_cached_and_a_missing_one_is_named() {
    let (base, hits) = server().await;
    let cache = tempfile::tempdir().unwrap();
    let fetcher = Fetcher::new(cache.path().to_path_buf(), None);
    let url = format!("{base}/files/a.txt");
    let first = fetcher.fetch(&url).await.unwrap();
    assert_eq!(std::fs::read_to_string(&first).unwrap(), "from http");
    assert!(first.starts_with(cache.path()));
    // Fetched once: the second time comes from the cache.
    let again = fetcher.fetch(&url).await.unwrap();
    assert_eq!((again, hits.load(Ordering::SeqCst)), (first, 1));
    // A 404 is an error naming the URL and the status.
    let gone = format!("{base}/files/gone.xlsx");
    let e = fetcher.fetch(&gone).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("{gone} is unavailable: the server answered 404 Not Found")
    );
    // Nothing listens: the request's error is the cause.
    let e = fetcher.fetch("http://127.0.0.1:9/x").await.unwrap_err();
    assert!(ufo_core::render(&e).contains("caused by"), "{e}");
    // A mirror serves what it has and never goes to the network.
    let mirror = tempfile::tempdir().unwrap();
    let host = base.trim_start_matches("http://");
    std::fs::create_dir_all(mirror.path().join(host).join("files")).unwrap();
    std::fs::write(mirror.path().join(host).join("files/a.txt"), "mirrored").unwrap();
    let offline = Fetcher::new(
        cache.path().join("other"),
        Some(mirror.path().to_path_buf()),
    );
    let m = offline.fetch(&url).await.unwrap();
    assert_eq!(std::fs::read_to_string(m).unwrap(), "mirrored");
    assert!(offline.fetch(&gone).await.is_err());
    assert_eq!(hits.load(Ordering::SeqCst), 2, "only the 404 went out");
}

/// Tasks that cannot run here end in a named status before any desktop
/// starts; the same id in two domains is two tasks, each with its result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_that_cannot_run_here_say_why() {
    let (base, _) = server().await;
    let root = tempfile::tempdir().unwrap();
    let ex = root.path().join("examples");
    let drive = json!([{"type": "googledrive", "parameters": {"settings_file": "x", "operation": ["delete"], "args": [{}]}}]);
    write(
        &ex.join("chrome/same.json"),
        &task(
            "same",
            drive,
            json!({"type": "vm_file", "path": "~/a", "dest": "a"}),
        ),
    );
    let launch =
        json!([{"type": "launch", "parameters": {"command": "no-such-program-ufo --flag"}}]);
    write(
        &ex.join("thunderbird/same.json"),
        &task(
            "same",
            launch,
            json!({"type": "vm_file", "path": "~/a", "dest": "a"}),
        ),
    );
    let gone = format!("{base}/files/gone.xlsx");
    let dl =
        json!([{"type": "download", "parameters": {"files": [{"url": gone, "path": "~/g.xlsx"}]}}]);
    write(
        &ex.join("os/dl.json"),
        &task(
            "dl",
            dl,
            json!({"type": "vm_file", "path": "~/a", "dest": "a"}),
        ),
    );
    let cloud =
        json!({"type": "cloud_file", "path": format!("{base}/files/none.pdf"), "dest": "n.pdf"});
    write(&ex.join("os/cloud.json"), &task("cloud", json!([]), cloud));
    write(
        &root.path().join("test_all.json"),
        &json!({"chrome": ["same"], "thunderbird": ["same"], "os": ["dl", "cloud"]}),
    );
    let (tasks, errors) = load_suite(root.path());
    assert!(errors.is_empty(), "{errors:?}");
    let out = tempfile::tempdir().unwrap();
    let fetcher = Fetcher::new(out.path().join("downloads"), None);
    let results = run_tasks(&options(config(""), out.path(), fetcher), tasks, |_| {}).await;
    let by: std::collections::BTreeMap<&str, &TaskResult> =
        results.iter().map(|r| (r.id.as_str(), r)).collect();
    let status = |k: &str| (by[k].status, by[k].error.clone().unwrap_or_default());

    let (s, e) = status("chrome/same");
    assert_eq!(s, RunStatus::NeedsAccount, "{e}");
    assert!(e.contains("setup step `googledrive`"), "{e}");
    let (s, e) = status("thunderbird/same");
    assert_eq!(s, RunStatus::AppMissing, "{e}");
    assert_eq!(e, "not installed: no-such-program-ufo");
    let (s, e) = status("os/dl");
    assert_eq!(s, RunStatus::Unavailable, "{e}");
    assert!(
        e.contains(&format!("{gone} is unavailable: the server answered 404")),
        "{e}"
    );
    let (s, e) = status("os/cloud");
    assert_eq!(s, RunStatus::Unavailable, "{e}");
    assert!(e.contains("files/none.pdf is unavailable"), "{e}");
    for r in &results {
        assert_eq!((r.score, r.session_status.as_deref()), (0.0, None), "{r:?}");
        assert_eq!(r.domain, r.id.split('/').next().unwrap());
    }
    // Each has its own result, by domain.
    for d in ["chrome", "thunderbird"] {
        let stored = out.path().join(d).join("same/result.json");
        let r: TaskResult =
            serde_json::from_str(&std::fs::read_to_string(stored).unwrap()).unwrap();
        assert_eq!(r.id, format!("{d}/same"));
    }
    let table = ufo_eval::report::status_table(&results);
    assert!(
        table.contains("| os | 0 | 2 | 0 | 0 | 0 | 0 | 0 | 0 | 0 |"),
        "{table}"
    );
    assert!(table.contains("| chrome | 0 | 0 | 1 | 0 |"), "{table}");
    assert!(table.contains("| thunderbird | 0 | 0 | 0 | 1 |"), "{table}");
}

/// On a real private desktop: a shell string runs verbatim (`"shell":
/// "true"`), a helper is launched and left running without waiting for a
/// window, failed steps are passed over and recorded, downloads come from
/// the mirror (for a getter too), and the task is scored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_runs_as_osworld_runs_it() {
    let root = tempfile::tempdir().unwrap();
    let mirror = root.path().join("mirror");
    std::fs::create_dir_all(mirror.join("files.example/a")).unwrap();
    std::fs::write(
        mirror.join("files.example/a/b.txt?id=1&export=download"),
        "mirrored",
    )
    .unwrap();
    let script = "printf '%s|%s\\n' 'a  b' \"$(basename \"$HOME\")\" > ~/shell.txt\necho second >> ~/shell.txt";
    let config_steps = json!([
        {"type": "download", "parameters": {"files": [
            {"url": "https://files.example/a/b.txt?id=1&export=download", "path": "~/dl/b.txt"}]}},
        {"type": "execute", "parameters": {"command": script, "shell": "true"}},
        {"type": "launch", "parameters": {"command": ["sleep", "300"]}},
        {"type": "execute", "parameters": {"command": ["false"]}},
        {"type": "open", "parameters": {"path": "~/missing.pptx"}},
        {"type": "launch", "parameters": {"command": ["sh", "-c", "echo started > ~/launched.txt"]}},
        {"type": "sleep", "parameters": {"seconds": 0.5}},
        // The desktop's default opener, as OSWorld's `xdg-open`.
        {"type": "open", "parameters": {"path": "~/dl/b.txt"}},
        {"type": "activate_window", "parameters": {"window_name": "b.txt"}},
        // As OSWorld's `wmctrl -c`: the window goes (confirmed, or a problem).
        {"type": "close_window", "parameters": {"window_name": "b.txt"}},
        // By X class, as `wmctrl -x`: gedit's is `gedit.Gedit`.
        {"type": "launch", "parameters": {"command": ["gedit"]}},
        {"type": "activate_window", "parameters": {"window_name": "gedit.Gedit", "strict": true, "by_class": true}},
        {"type": "close_window", "parameters": {"window_name": "gedit", "by_class": true}}
    ]);
    let cat = |f: &str| json!({"type": "vm_command_line", "command": ["cat", f]});
    // As root the task's home is /home/user (its account's); else its folder.
    let home = match ufo_eval::run::is_root() {
        true => "user",
        false => "work",
    };
    let rule = |t: &str| json!({"type": "rule", "rules": {"expected": t}});
    let t = json!({"id": "setup", "instruction": "Nothing.", "source": "ufo-rs", "related_apps": ["os"],
        "config": config_steps,
        "evaluator": {"func": ["exact_match", "exact_match", "exact_match", "compare_text_file", "check_include_exclude"],
            "result": [cat("~/shell.txt"), cat("~/dl/b.txt"), cat("~/launched.txt"),
                // The list form: the file `gives` names (the second), not the first.
                {"type": "vm_file", "multi": true, "path": ["~/shell.txt", "~/dl/b.txt"],
                 "dest": ["s.txt", "b.txt"], "gives": [1]},
                // The window list outside ufo: the closed editor is not in it.
                {"type": "vm_command_line", "command": ["wmctrl", "-l"]}],
            "expected": [rule(&format!("a  b|{home}\nsecond\n")), rule("mirrored"), rule("started\n"),
                {"type": "cloud_file", "path": "https://files.example/a/b.txt?id=1&export=download",
                 "dest": "b-expected.txt"},
                {"type": "rule", "rules": {"include": [], "exclude": ["b.txt", "gedit"]}}]}});
    write(&root.path().join("tasks/os/setup.json"), &t);
    let (tasks, errors) = load_suite(&root.path().join("tasks"));
    assert!(errors.is_empty(), "{errors:?}");
    let reply = json!({"observation": "", "thought": "done", "status": "FINISH", "result": "done"});
    let model = ScriptedModel::start((0..4).map(|_| fixed(reply.to_string())).collect()).await;
    let m = model.agent_yaml();
    let cfg = config(&format!("HOST_AGENT:\n{m}APP_AGENT:\n{m}"));
    let out = tempfile::tempdir().unwrap();
    let fetcher = Fetcher::new(out.path().join("downloads"), Some(mirror));
    let results = run_tasks(&options(cfg, out.path(), fetcher), tasks, |_| {}).await;
    let r = &results[0];
    assert_eq!(
        (r.id.as_str(), r.status, r.score),
        ("os/setup", RunStatus::Scored, 1.0),
        "{r:?}"
    );
    // `launch sleep 300` did not wait for a window (that took 60 s and failed).
    assert!(r.time_s < 50.0, "{r:?}");
    assert_eq!(r.step_problems.len(), 2, "{r:?}");
    assert!(
        r.step_problems[0].contains("execute step 4: exit code 1"),
        "{r:?}"
    );
    assert!(
        r.step_problems[1].contains("open step 5: ")
            && r.step_problems[1].contains("missing.pptx does not exist"),
        "{r:?}"
    );
}
