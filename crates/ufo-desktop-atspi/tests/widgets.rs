//! gtk3-widget-factory: check button, switch, spin button, slider and combo box
//! driven through the tool catalog; states read back changed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;
use ufo_core::ControlType;
use ufo_desktop::Backend;

const APP: &str = "gtk3-widget-factory";

/// The first enabled horizontal slider.
fn horizontal_slider(ctx: &ufo_desktop::ToolContext) -> ufo_core::Control {
    find(
        ctx,
        |c| {
            c.control_type == ControlType::Slider
                && c.states.contains(ufo_core::States::HORIZONTAL)
                && c.states.contains(ufo_core::States::ENABLED)
        },
        "horizontal slider",
    )
    .clone()
}

/// Clicks a two-state control and waits until its "checked" state flipped.
async fn click_and_expect_toggle(
    b: &ufo_desktop_atspi::AtspiBackend,
    ctx: &mut ufo_desktop::ToolContext,
    c: &ufo_core::Control,
) {
    let was = c.states.contains(ufo_core::States::CHECKED);
    let r = act(b, ctx, "click_input", args(c, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    let now = eventually(&(!was).to_string(), || async {
        states(b, c)
            .await
            .contains(ufo_core::States::CHECKED)
            .to_string()
    })
    .await;
    assert_eq!(now, (!was).to_string(), "{:?} did not toggle", c.name);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toggles_values_and_combo_selection_change_state() {
    let (d, b) = desktop_with(APP).await;
    let w = main_window(&b, APP).await;
    let mut ctx = observe(&b, &w).await;

    // A check button flips its "checked" state.
    let check = find(
        &ctx,
        |c| c.control_type == ControlType::CheckBox && c.states.contains(ufo_core::States::ENABLED),
        "enabled check button",
    )
    .clone();
    click_and_expect_toggle(&b, &mut ctx, &check).await;

    // The switch (a toggle button with a Toggle action) turns on. A capture
    // reads no action names: they are asked of the candidates.
    let mut switch = None;
    for c in ctx
        .controls
        .iter()
        .filter(|c| c.role == "toggle button" && c.states.contains(ufo_core::States::ENABLED))
    {
        assert!(c.actions.is_empty(), "a capture read actions: {c:?}");
        let names = b.action_names(&c.handle).await.unwrap();
        if names.iter().any(|a| a.eq_ignore_ascii_case("toggle")) {
            switch = Some(c.clone());
            break;
        }
    }
    let switch = switch.expect("a switch");
    click_and_expect_toggle(&b, &mut ctx, &switch).await;

    // The spin button goes up by two with the keyboard.
    let spin = find(
        &ctx,
        |c| c.control_type == ControlType::Spinner && c.states.contains(ufo_core::States::ENABLED),
        "spin button",
    )
    .clone();
    let before: f64 = spin.value.clone().unwrap_or_default().parse().unwrap();
    let r = act(
        &b,
        &mut ctx,
        "keyboard_input",
        args(&spin, json!({"keys": "{UP}{UP}"})),
    )
    .await;
    assert!(r.is_success(), "{r:?}");
    let want = format!("{}", before + 2.0);
    let now = eventually(&want, || async { b.read_text(&spin.handle).await.unwrap() }).await;
    assert_eq!(now, want);

    // The horizontal slider moves with the mouse wheel.
    let slider = horizontal_slider(&ctx);
    let before = b.read_text(&slider.handle).await.unwrap();
    let r = act(
        &b,
        &mut ctx,
        "wheel_mouse_input",
        args(&slider, json!({"wheel_dist": -3})),
    )
    .await;
    assert!(r.is_success(), "{r:?}");
    let mut after = before.clone();
    for _ in 0..200 {
        after = b.read_text(&slider.handle).await.unwrap();
        if after != before {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_ne!(after, before, "slider value did not change");

    // A combo box: pressing it opens a popup (a separate top-level of the app);
    // observing the window again lists the popup's items with the window's
    // controls, as an agent needs it.
    let combo = find(
        &ctx,
        |c| c.control_type == ControlType::ComboBox && c.name == "Left",
        "combo 'Left'",
    )
    .clone();
    let r = act(&b, &mut ctx, "click_input", args(&combo, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    let mut ctx = {
        let mut again = observe(&b, &w).await;
        for _ in 0..200 {
            if again
                .controls
                .iter()
                .any(|c| c.control_type == ControlType::MenuItem && c.name == "Middle")
            {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            again = observe(&b, &w).await;
        }
        again
    };
    let item = find(
        &ctx,
        |c| c.control_type == ControlType::MenuItem && c.name == "Middle",
        "menu item 'Middle'",
    )
    .clone();
    let r = act(&b, &mut ctx, "click_input", args(&item, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    let name = eventually("Middle", || async {
        b.refresh_node(&combo.handle, 10).await.unwrap().name
    })
    .await;
    assert_eq!(name, "Middle");
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drag_on_coordinates_moves_a_slider() {
    let (d, b) = desktop_with(APP).await;
    let w = main_window(&b, APP).await;
    let mut ctx = observe(&b, &w).await;
    let win = ctx.window.clone().unwrap().rect.unwrap();
    let slider = horizontal_slider(&ctx);
    let before: f64 = b.read_text(&slider.handle).await.unwrap().parse().unwrap();
    // From the slider's centre (its knob at 50 %) to its right end.
    let (from, to) = (
        slider.rect.center(),
        ufo_core::Point::<ufo_core::Screen>::new(slider.rect.right() - 2, slider.rect.center().y),
    );
    let frac = |p: ufo_core::Point<ufo_core::Screen>| {
        (
            f64::from(p.x - win.x) / f64::from(win.width),
            f64::from(p.y - win.y) / f64::from(win.height),
        )
    };
    let ((sx, sy), (ex, ey)) = (frac(from), frac(to));
    let r = act(
        &b,
        &mut ctx,
        "drag_on_coordinates",
        json!({"start_x": sx, "start_y": sy, "end_x": ex, "end_y": ey, "duration": 0.3}),
    )
    .await;
    assert!(r.is_success(), "{r:?}");
    let mut after = before;
    for _ in 0..200 {
        after = b.read_text(&slider.handle).await.unwrap().parse().unwrap();
        if after > before {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(after > before, "slider stayed at {after} (was {before})");
    d.stop().unwrap();
}
