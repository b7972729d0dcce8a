//! gnome-calculator (GTK4) driven through the tool catalog over the AT-SPI backend.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;
use std::time::Duration;
use ufo_core::{Command, Control};
use ufo_desktop::tools::{ToolContext, execute};
use ufo_desktop::{Backend, TreeBudget, filter};
use ufo_desktop_atspi::{AtspiBackend, DesktopTarget};

async fn observe(b: &AtspiBackend, app: &str) -> ToolContext {
    let windows = b.list_windows().await.unwrap();
    let w = windows
        .iter()
        .find(|w| w.app_name == app)
        .unwrap_or_else(|| panic!("no window of {app} in {windows:?}"))
        .clone();
    let tree = b.capture_tree(&w, &TreeBudget::default()).await.unwrap();
    let controls = filter::label_controls(&tree, &filter::FilterConfig::default(), None);
    ToolContext::for_window(tree.window.clone(), controls)
}

fn find<'a>(controls: &'a [Control], name: &str) -> &'a Control {
    controls
        .iter()
        .find(|c| {
            ufo_desktop::names::names_match(name, &c.name)
                && c.control_type == ufo_core::ControlType::Button
        })
        .unwrap_or_else(|| {
            panic!(
                "no button {name:?} among {:?}",
                controls
                    .iter()
                    .map(|c| (&c.id, &c.name))
                    .collect::<Vec<_>>()
            )
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twelve_times_seven_is_84_by_label() {
    let desktop = ufo_testkit::start_desktop("calc").await;
    ufo_testkit::launch(&desktop, &["gnome-calculator"]).await;
    let b = AtspiBackend::connect(&DesktopTarget::from_private(&desktop))
        .await
        .unwrap();
    let mut ctx = observe(&b, "gnome-calculator").await;
    assert!(ctx.controls.len() > 20, "{}", ctx.controls.len());
    for key in ["1", "2", "×", "7", "="] {
        let c = find(&ctx.controls, key).clone();
        let r = execute(
            &b,
            &mut ctx,
            &Command::action("click_input", json!({"id": c.id.to_string(), "name": key})),
        )
        .await;
        assert!(r.is_success(), "{key}: {r:?}");
    }
    let mut shown = String::new();
    for _ in 0..200 {
        shown = ufo_testkit::calculator_display(&b).await;
        if shown.trim() == "84" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(shown.trim(), "84");
    desktop.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn click_on_coordinates_hits_the_button_under_the_fraction() {
    let desktop = ufo_testkit::start_desktop("calc-xy").await;
    ufo_testkit::launch(&desktop, &["gnome-calculator"]).await;
    let b = AtspiBackend::connect(&DesktopTarget::from_private(&desktop))
        .await
        .unwrap();
    let mut ctx = observe(&b, "gnome-calculator").await;
    let win = ctx.window.clone().unwrap().rect.unwrap();
    for key in ["4", "2"] {
        let c = find(&ctx.controls, key).rect.center();
        let x = f64::from(c.x - win.x) / f64::from(win.width);
        let y = f64::from(c.y - win.y) / f64::from(win.height);
        let r = execute(
            &b,
            &mut ctx,
            &Command::action("click_on_coordinates", json!({"x": x, "y": y})),
        )
        .await;
        assert!(r.is_success(), "{key}: {r:?}");
    }
    let mut shown = String::new();
    for _ in 0..200 {
        shown = ufo_testkit::calculator_display(&b).await;
        if shown.trim() == "42" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(shown.trim(), "42");
    // Fractions outside 0..1 are refused with a clear error.
    let r = execute(
        &b,
        &mut ctx,
        &Command::action("click_on_coordinates", json!({"x": 1.5, "y": 0.5})),
    )
    .await;
    assert!(!r.is_success());
    assert_eq!(r.error.unwrap().code, "ufo::tool::bad_arguments");
    desktop.stop().unwrap();
}
