//! OSWorld's Chrome tasks without Chrome: one task of `tests/chrome/`
//! (OSWorld's format) on a task desktop as OSWorld's VM, with Debian's
//! Chromium standing in for `google-chrome`. Its setup writes a browsing
//! history (`update_browse_history`, from a mirrored history database) and
//! a bookmark, launches the browser as OSWorld's tasks do, opens three
//! pages of a server started here, activates the window "Google Chrome"
//! (Chromium's) and closes the first page; every checker then
//! holds only if the getters read the browser back: the open tabs (the
//! default tab and the closed one gone), the address bar in the
//! accessibility tree (OSWorld's XML form), the active tab's page, its
//! query and last path part, its elements by class and XPath, another
//! page's content and a PDF of a third, the bookmark, the history.
//! A second task opens a page nothing serves: it is `unavailable`, not
//! scored, since its checker reads the cookies visits would have left.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::config;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use ufo_eval::fetch::{Fetcher, mirror_path};
use ufo_eval::run::{EvalMode, EvalOptions, RunStatus, TaskDesktop, run_tasks};
use ufo_eval::suite::load_suite;
use ufo_testkit::scripted::{ScriptedModel, fixed};

/// Pages `a.html`, `b.html`, `c.html` titled `A`, `B`, `C`.
async fn pages() -> String {
    let app = axum::Router::new().route(
        "/{name}",
        axum::routing::get(
            |axum::extract::Path(name): axum::extract::Path<String>| async move {
                let title = name.trim_end_matches(".html").to_uppercase();
                axum::response::Html(format!(
                    "<!DOCTYPE html><html><head><title>{title}</title></head><body><p class=\"x\">{title}</p></body></html>"
                ))
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

/// A history database as Chromium makes it (`fixtures/History.sql`):
/// one it cannot read, it replaces with an empty one.
fn history_template(sql: &Path, path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(&std::fs::read_to_string(sql).unwrap())
        .unwrap();
}

/// Runs the suite in `dir/suite` on a task desktop as OSWorld's VM, by an
/// agent that says FINISH at once; results and files go to `dir/out`.
async fn run_suite(
    dir: &Path,
    mirror: Option<std::path::PathBuf>,
) -> Vec<ufo_eval::run::TaskResult> {
    let (tasks, errors) = load_suite(&dir.join("suite"));
    assert!(errors.is_empty(), "{errors:?}");
    let reply = json!({"observation": "", "thought": "done", "status": "FINISH", "result": "done"});
    let model = ScriptedModel::start((0..4).map(|_| fixed(reply.to_string())).collect()).await;
    let m = model.agent_yaml();
    let cfg = config(&format!("HOST_AGENT:\n{m}APP_AGENT:\n{m}"));
    let opts = EvalOptions {
        prompts: Arc::new(ufo_agent::PromptSet::load(&cfg.prompts).unwrap()),
        config: cfg,
        out: dir.join("out"),
        parallel: 1,
        max_steps: Some(2),
        mode: EvalMode::Normal,
        task_timeout: Duration::from_secs(300),
        fetcher: Arc::new(Fetcher::new(dir.join("downloads"), mirror)),
        desktop: TaskDesktop::like_osworld(),
        max_cost: None,
        max_task_cost: None,
    };
    run_tasks(&opts, tasks, |_| {}).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_the_setup_cannot_reach_leaves_no_cookies_to_score() {
    assert!(
        ufo_eval::command::installed("chromium"),
        "chromium is not installed: run scripts/bootstrap.sh"
    );
    let base = pages().await;
    // An address nothing listens on: Chromium shows its error page.
    let gone = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/gone.html", l.local_addr().unwrap())
    };
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite/chrome");
    std::fs::create_dir_all(&suite).unwrap();
    let task = json!({"id": "cookies", "snapshot": "chrome", "source": "ufo-rs",
        "instruction": "Delete the cookies of the sites you were shown.",
        "related_apps": ["chrome"],
        "config": [
            {"type": "launch", "parameters": {"command": ["google-chrome", "--remote-debugging-port=1337"]}},
            {"type": "launch", "parameters": {"command": ["socat", "tcp-listen:9222,fork", "tcp:localhost:1337"]}},
            {"type": "chrome_open_tabs", "parameters": {"urls_to_open": [format!("{base}/a.html"), gone.clone()]}}
        ],
        "evaluator": {"func": "is_cookie_deleted",
            "result": {"type": "cookie_data", "dest": "Cookies"},
            "expected": {"type": "rule", "rules": {"type": "domains", "domains": [".example.com"]}}}});
    std::fs::write(suite.join("cookies.json"), task.to_string()).unwrap();
    let results = run_suite(dir.path(), None).await;
    let [r] = &results[..] else {
        panic!("{results:?}")
    };
    // Not scored: no cookie of a site never reached would read as deleted.
    assert_eq!(r.status, RunStatus::Unavailable, "{r:#?}");
    assert!(
        r.error.as_deref().unwrap_or_default().contains(&gone),
        "{r:#?}"
    );
    assert_eq!(r.unreached, std::slice::from_ref(&gone), "{r:#?}");
    assert!(
        r.step_problems
            .iter()
            .any(|p| p.contains(&gone) && !p.contains("a.html")),
        "{r:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_stands_in_for_chrome_and_the_getters_read_it_back() {
    assert!(
        ufo_eval::command::installed("chromium"),
        "chromium is not installed: run scripts/bootstrap.sh"
    );
    let base = pages().await;
    let dir = tempfile::tempdir().unwrap();
    // The suite, with the server's address written into the task.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/chrome/chrome");
    let suite = dir.path().join("suite/chrome");
    std::fs::create_dir_all(suite.join("fixtures")).unwrap();
    let task = std::fs::read_to_string(src.join("tabs.json")).unwrap();
    std::fs::write(suite.join("tabs.json"), task.replace("{BASE}", &base)).unwrap();
    std::fs::copy(
        src.join("fixtures/Bookmarks"),
        suite.join("fixtures/Bookmarks"),
    )
    .unwrap();
    let mirror = dir.path().join("mirror");
    let url = url::Url::parse(ufo_eval::chrome::HISTORY_DB_URL).unwrap();
    history_template(
        &src.join("fixtures/History.sql"),
        &mirror_path(&mirror, &url).unwrap(),
    );

    let out = dir.path().join("out");
    let results = run_suite(dir.path(), Some(mirror)).await;
    let [r] = &results[..] else {
        panic!("{results:?}")
    };
    // Every checker held (see the module docs); no setup step failed.
    assert!(r.step_problems.is_empty(), "{r:#?}");
    assert_eq!((r.status, r.score), (RunStatus::Scored, 1.0), "{r:#?}");
    // The history step added its entry to OSWorld's database, which
    // became the profile's; the history getter copied it out.
    let task = out.join("chrome/tabs");
    let db = rusqlite::Connection::open(task.join("cache/history_new.sqlite")).unwrap();
    let title: String = db
        .query_row(
            "SELECT title FROM urls WHERE url = 'https://www.example.org/visited-an-hour-ago'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(title, "An hour ago");
    assert!(task.join("files/History").is_file());
    assert!(
        std::fs::read(task.join("files/a.pdf"))
            .unwrap()
            .starts_with(b"%PDF")
    );
    // Chromium kept its profile where OSWorld's tasks look for Chrome's.
    assert!(
        task.join("work/.config/google-chrome/Default/Cookies")
            .is_file()
    );
}
