//! Private headless desktops for tests: one per test binary or one per test,
//! app launch and wait, and what a test reads back off them.

use std::time::Duration;
use tokio::sync::OnceCell;
use ufo_core::Diagnostic;
use ufo_desktop::{Backend, TreeBudget};
use ufo_desktop_atspi::headless::LaunchedApp;
use ufo_desktop_atspi::{AtspiBackend, DesktopOptions, DesktopTarget, HeadlessDesktop};

static SHARED: OnceCell<HeadlessDesktop> = OnceCell::const_new();

/// Options for a test desktop: a unique name, a private state root under the
/// system temp dir, and automatic stop when the test process exits.
pub fn test_options(label: &str) -> DesktopOptions {
    let unique = format!("{label}-{}-{}", std::process::id(), next_serial());
    let root = std::env::temp_dir().join(format!("ufo-testkit-{}", nix_uid()));
    DesktopOptions {
        // Applications keep their settings and recent files away from the
        // developer's home and from other tests.
        home: Some(root.join("homes").join(&unique)),
        name: unique,
        state_root: root,
        stop_with_process: true,
        ..DesktopOptions::default()
    }
}

fn nix_uid() -> u32 {
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
        .unwrap_or(0)
}

fn next_serial() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Starts a fresh desktop owned by the caller (stopped on `stop()` or when the
/// process exits). Panics with the fix when it cannot start.
pub async fn start_desktop(label: &str) -> HeadlessDesktop {
    match HeadlessDesktop::start(test_options(label)).await {
        Ok(d) => d,
        Err(e) => panic!(
            "cannot start a headless desktop: {}\nhelp: {}",
            e,
            e.help().unwrap_or_default()
        ),
    }
}

/// The desktop shared by all tests of this test binary, started on first use.
pub async fn shared_desktop() -> &'static HeadlessDesktop {
    SHARED.get_or_init(|| start_desktop("shared")).await
}

/// Launches `argv` on `desktop` and waits up to 60 s for it to register.
/// Panics with the fix (e.g. the package to install) when it cannot.
pub async fn launch(desktop: &HeadlessDesktop, argv: &[&str]) -> LaunchedApp {
    let argv: Vec<String> = argv.iter().map(|s| (*s).to_owned()).collect();
    match desktop.launch(&argv, Duration::from_secs(60)).await {
        Ok(app) => app,
        Err(e) => panic!(
            "cannot launch {argv:?}: {e}\nhelp: {}",
            e.help().unwrap_or_default()
        ),
    }
}

/// A fresh desktop with `apps` running, and a backend connected to it.
pub async fn desktop_with_apps(label: &str, apps: &[&str]) -> (HeadlessDesktop, AtspiBackend) {
    let d = start_desktop(label).await;
    for a in apps {
        launch(&d, &[a]).await;
    }
    let b = AtspiBackend::connect(&DesktopTarget::from_private(&d))
        .await
        .unwrap_or_else(|e| panic!("cannot connect to the desktop: {e}"));
    (d, b)
}

/// What gnome-calculator's display shows (its editable text), trimmed; empty
/// when it has no window. Waits up to 2 s for a result other than "0".
pub async fn calculator_display(b: &AtspiBackend) -> String {
    let mut shown = String::new();
    for _ in 0..40 {
        let windows = b.list_windows().await.unwrap_or_default();
        let Some(w) = windows.iter().find(|w| w.app_name == "gnome-calculator") else {
            return String::new();
        };
        if let Ok(tree) = b.capture_tree(w, &TreeBudget::default()).await {
            shown = tree
                .nodes
                .iter()
                .filter(|n| n.capabilities.editable_text && n.role == "text")
                .find_map(|n| n.value.clone())
                .unwrap_or_default();
        }
        if !shown.trim().is_empty() && shown.trim() != "0" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    shown.trim().to_owned()
}

/// The text of every editable control of `app_name`'s windows on
/// `backend`'s desktop, read over AT-SPI; read again (for up to 5 s) until
/// one of them is `want`.
pub async fn editable_texts(b: &AtspiBackend, app_name: &str, want: &str) -> Vec<String> {
    let mut seen = Vec::new();
    for _ in 0..100 {
        seen.clear();
        let windows = b.list_windows().await.unwrap_or_default();
        for w in windows.iter().filter(|w| w.app_name == app_name) {
            let Ok(tree) = b.capture_tree(w, &TreeBudget::default()).await else {
                continue;
            };
            for n in tree.nodes.iter().filter(|n| n.capabilities.editable_text) {
                if let Ok(t) = b.read_text(&n.handle).await {
                    seen.push(t);
                }
            }
        }
        if seen.iter().any(|t| t == want) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    seen
}

/// The environment that points a child process (e.g. the `ufo` binary under
/// test) at `desktop` — and only at it.
pub fn desktop_env(desktop: &HeadlessDesktop) -> Vec<(String, String)> {
    let mut env = desktop.state().env();
    env.push((
        "UFO_STATE_DIR".into(),
        desktop
            .state()
            .state_dir
            .parent()
            .and_then(|p| p.parent())
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
    ));
    env
}
