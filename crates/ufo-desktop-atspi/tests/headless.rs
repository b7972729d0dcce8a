//! The private headless desktop on real Xvfb, D-Bus and AT-SPI.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;
use ufo_core::Diagnostic;
use ufo_desktop_atspi::bus;
use ufo_desktop_atspi::headless::{DESKTOP_ID_VAR, HeadlessError, marked_pids};

async fn app_names(a11y: &str) -> Vec<String> {
    let conn = bus::connect(a11y).await.expect("a11y bus");
    bus::registered_apps(&conn)
        .await
        .expect("registry")
        .into_iter()
        .map(|a| a.name)
        .collect()
}

/// `XDG_CONFIG_DIRS` as process `pid` has it.
fn config_dirs(pid: u32) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    environ
        .split(|&b| b == 0)
        .filter_map(|v| std::str::from_utf8(v).ok())
        .find_map(|v| v.strip_prefix("XDG_CONFIG_DIRS="))
        .map(str::to_owned)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_desktop_gives_its_applications_gtk_settings_without_animations() {
    let d = ufo_desktop_atspi::HeadlessDesktop::start(ufo_testkit::test_options("no-anim"))
        .await
        .unwrap();
    let calc = ufo_testkit::launch(&d, &["gnome-calculator"]).await;
    // Its configuration folders end with the desktop's, whose settings
    // turn GTK's animations off.
    let dirs = config_dirs(calc.pid).expect("XDG_CONFIG_DIRS is set");
    let ours = std::path::Path::new(dirs.rsplit(':').next().unwrap());
    assert!(ours.starts_with(&d.state().state_dir), "{dirs}");
    let ini = std::fs::read_to_string(ours.join("gtk-4.0/settings.ini")).unwrap();
    assert!(ini.contains("gtk-enable-animations=false"), "{ini}");
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_desktops_do_not_see_each_others_apps_and_stop_cleanly() {
    let animated = async {
        ufo_desktop_atspi::HeadlessDesktop::start(ufo_desktop_atspi::DesktopOptions {
            animations: true,
            ..ufo_testkit::test_options("iso-b")
        })
        .await
        .unwrap()
    };
    let (a, b) = tokio::join!(ufo_testkit::start_desktop("iso-a"), animated);
    assert_ne!(a.state().display, b.state().display);
    assert_ne!(a.state().session_bus, b.state().session_bus);

    let (calc, pad) = tokio::join!(
        ufo_testkit::launch(&a, &["gnome-calculator"]),
        ufo_testkit::launch(&b, &["mousepad"])
    );
    assert_eq!(calc.app_name, "gnome-calculator");
    assert_eq!(pad.app_name, "mousepad");
    // A desktop that keeps animations leaves GTK's settings alone.
    let ours = a.state().state_dir.join("xdg");
    assert!(config_dirs(calc.pid).is_some_and(|d| d.ends_with(&*ours.to_string_lossy())));
    assert!(config_dirs(pad.pid).is_none_or(|d| !d.contains("/xdg")));

    let on_a = app_names(&a.state().a11y_bus).await;
    let on_b = app_names(&b.state().a11y_bus).await;
    assert!(on_a.contains(&"gnome-calculator".to_owned()), "{on_a:?}");
    assert!(!on_a.contains(&"mousepad".to_owned()), "{on_a:?}");
    assert!(on_b.contains(&"mousepad".to_owned()), "{on_b:?}");
    assert!(!on_b.contains(&"gnome-calculator".to_owned()), "{on_b:?}");

    // Stopping A ends exactly A's processes (registryd included) and leaves B alone.
    let id_a = a.state().id.clone();
    let id_b = b.state().id.clone();
    let before_b = marked_pids(DESKTOP_ID_VAR, &id_b).len();
    assert!(!marked_pids(DESKTOP_ID_VAR, &id_a).is_empty());
    let n = a.stop().expect("stop a");
    assert!(
        n >= 4,
        "expected Xvfb, buses, registryd and the app, got {n}"
    );
    assert!(
        marked_pids(DESKTOP_ID_VAR, &id_a).is_empty(),
        "processes of A survived stop"
    );
    assert_eq!(marked_pids(DESKTOP_ID_VAR, &id_b).len(), before_b);
    assert!(
        app_names(&b.state().a11y_bus)
            .await
            .contains(&"mousepad".to_owned())
    );
    b.stop().expect("stop b");
    assert!(marked_pids(DESKTOP_ID_VAR, &id_b).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn launch_of_a_program_that_never_registers_times_out_clearly() {
    let d = ufo_testkit::shared_desktop().await;
    let argv = vec!["sleep".to_owned(), "600".to_owned()];
    let started = std::time::Instant::now();
    let err = d.launch(&argv, Duration::from_secs(2)).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(
        matches!(err, HeadlessError::LaunchTimeout { .. }),
        "{err:?}"
    );
    assert_eq!(err.code(), "ufo::headless::launch_timeout");
    assert!(err.to_string().contains("sleep 600"));
    assert!(err.help().unwrap().contains("NO_AT_BRIDGE"));
    // The stray process was ended.
    let sleepers = marked_pids(DESKTOP_ID_VAR, &d.state().id)
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == "sleep")
        })
        .count();
    assert_eq!(sleepers, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn launch_of_a_missing_program_names_what_to_install() {
    let d = ufo_testkit::shared_desktop().await;
    let err = d
        .launch(&["no-such-program-ufo".to_owned()], Duration::from_secs(2))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "ufo::headless::missing_program");
    assert!(err.help().unwrap().contains("apt-get install"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_desktop_with_the_same_name_is_refused() {
    let d = ufo_testkit::shared_desktop().await;
    let opts = ufo_desktop_atspi::DesktopOptions {
        name: d.state().name.clone(),
        state_root: d
            .state()
            .state_dir
            .parent()
            .unwrap()
            .parent()
            .unwrap()
            .to_owned(),
        ..Default::default()
    };
    let err = ufo_desktop_atspi::HeadlessDesktop::start(opts)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "ufo::headless::already_running");
}
