//! The same perception and actions with a reparenting window manager (xfwm4):
//! windows come from `_NET_CLIENT_LIST`, focus goes through `_NET_ACTIVE_WINDOW`,
//! and decorations shift client windows away from the screen origin.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;
use std::time::Duration;
use ufo_core::ControlType;
use ufo_desktop::Backend;
use ufo_desktop_atspi::{AtspiBackend, DesktopTarget};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calculator_and_mousepad_under_xfwm4() {
    let mut opts = ufo_testkit::test_options("wm");
    opts.window_manager = Some("xfwm4".into());
    let d = match ufo_desktop_atspi::HeadlessDesktop::start(opts).await {
        Ok(d) => d,
        Err(e) => panic!(
            "{e}\nhelp: {}",
            ufo_core::Diagnostic::help(&e).unwrap_or_default()
        ),
    };
    ufo_testkit::launch(&d, &["mousepad"]).await;
    ufo_testkit::launch(&d, &["gnome-calculator"]).await;
    let b = AtspiBackend::connect(&DesktopTarget::from_private(&d))
        .await
        .unwrap();

    let windows = b.list_windows().await.unwrap();
    let apps: Vec<&str> = windows.iter().map(|w| w.app_name.as_str()).collect();
    assert!(
        apps.contains(&"mousepad") && apps.contains(&"gnome-calculator"),
        "{apps:?}"
    );
    assert!(
        !apps.contains(&"xfwm4"),
        "the window manager's helper window is not a window: {apps:?}"
    );
    assert!(
        windows.iter().all(|w| w.native_id.is_some()),
        "every window matched to its X client window: {windows:?}"
    );

    // The calculator, placed by the window manager away from the origin —
    // once it is placed: a click computed while xfwm4 still moves a window
    // just launched lands where it was (a full-suite run lost the "4";
    // checking the window before a pointer click is for the tool to do).
    let calc = placed_window(&b, "gnome-calculator").await;
    let mut ctx = observe(&b, &calc).await;
    let win = ctx.window.clone().unwrap().rect.unwrap();
    let four = find(
        &ctx,
        |c| c.name == "4" && c.control_type == ControlType::Button,
        "4",
    )
    .clone();
    let r = act(&b, &mut ctx, "click_input", args(&four, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    // "2" by coordinates: the fraction must land on the button despite the frame.
    let two = find(
        &ctx,
        |c| c.name == "2" && c.control_type == ControlType::Button,
        "2",
    )
    .rect
    .center();
    let (x, y) = (
        f64::from(two.x - win.x) / f64::from(win.width),
        f64::from(two.y - win.y) / f64::from(win.height),
    );
    let r = act(
        &b,
        &mut ctx,
        "click_on_coordinates",
        json!({"x": x, "y": y}),
    )
    .await;
    assert!(r.is_success(), "{r:?}");
    let display = || async {
        let tree = b
            .capture_tree(&calc, &ufo_desktop::TreeBudget::default())
            .await
            .unwrap();
        tree.nodes
            .iter()
            .find(|n| n.role == "text" && n.capabilities.editable_text)
            .and_then(|n| n.value.clone())
            .unwrap_or_default()
    };
    assert_eq!(eventually("42", display).await, "42");

    clicks_follow_a_moved_window(&d, &b, &calc, &mut ctx, win, (x, y), display).await;

    // Keyboard input reaches mousepad although the calculator had focus.
    let pad = main_window(&b, "mousepad").await;
    let mut ctx = observe(&b, &pad).await;
    let doc = editor(&ctx);
    let r = act(
        &b,
        &mut ctx,
        "keyboard_input",
        args(&doc, json!({"keys": "under a{SPACE}WM{ENTER}ok"})),
    )
    .await;
    assert!(r.is_success(), "{r:?}");
    assert_eq!(
        eventually("under a WM\nok", || async {
            b.read_text(&doc.handle).await.unwrap()
        })
        .await,
        "under a WM\nok"
    );

    // The window screenshot has the window's size and the labels stay inside it.
    let mut ctx = ufo_desktop::tools::ToolContext::for_window(calc.clone(), Vec::new());
    ctx.app_window = Some(calc.clone());
    let mut o = ufo_desktop::observe::observe(&b, &mut ctx, Default::default())
        .await
        .unwrap();
    let images = o
        .model_images(
            &ufo_desktop::annotate::AnnotationStyle::default(),
            &ufo_desktop::encode::ModelImage::default(),
        )
        .unwrap();
    let bounds = o.screenshot.as_ref().unwrap().bounds();
    assert!(images.annotated.labels.iter().all(|l| l.rect.x >= 0
        && l.rect.right() <= bounds.width
        && l.rect.bottom() <= bounds.height));
    tokio::time::sleep(Duration::from_millis(10)).await;
    d.stop().unwrap();
}

/// The window moves after it was observed (a person drags it): a click at
/// coordinates relative to it still lands on the "2" the model saw at
/// `(x, y)` of `win` (the display then reads "422").
async fn clicks_follow_a_moved_window<F, Fut>(
    d: &ufo_desktop_atspi::HeadlessDesktop,
    b: &AtspiBackend,
    calc: &ufo_core::WindowInfo,
    ctx: &mut ufo_desktop::tools::ToolContext,
    win: ufo_core::Rect<ufo_core::Screen>,
    (x, y): (f64, f64),
    display: F,
) where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = String>,
{
    let id = calc.native_id.expect("the calculator's X window");
    let moved = std::process::Command::new("xdotool")
        .args(["windowmove", &id.to_string()])
        .args([(win.x + 120).to_string(), (win.y + 90).to_string()])
        .envs(ufo_testkit::desktop_env(d))
        .status()
        .expect("xdotool runs");
    assert!(moved.success());
    let now = eventually("moved", || async {
        let r = b.refresh_node(&calc.handle, 0).await.unwrap().rect.unwrap();
        if (r.x, r.y) != (win.x, win.y) {
            "moved".to_owned()
        } else {
            format!("{r:?}")
        }
    })
    .await;
    assert_eq!(now, "moved");
    let r = act(b, ctx, "click_on_coordinates", json!({"x": x, "y": y})).await;
    assert!(r.is_success(), "{r:?}");
    assert_eq!(eventually("422", display).await, "422");
}

/// `app`'s main window once the window manager has stopped moving it: two
/// reads 100 ms apart agree (at most 3 s).
async fn placed_window(b: &AtspiBackend, app: &str) -> ufo_core::WindowInfo {
    let mut last = main_window(b, app).await;
    for _ in 0..30 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = main_window(b, app).await;
        if now.rect == last.rect {
            return now;
        }
        last = now;
    }
    last
}
