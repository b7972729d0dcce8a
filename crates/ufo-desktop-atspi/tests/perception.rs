//! Perception on real captures: set-of-marks labels, budgets, stale elements.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;
use std::time::Duration;
use ufo_desktop::annotate::AnnotationStyle;
use ufo_desktop::encode::{ImageFormat, ModelImage};
use ufo_desktop::observe::observe as observe_all;
use ufo_desktop::tools::ToolContext;
use ufo_desktop::{Backend, TreeBudget};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotated_labels_lie_inside_the_image_and_map_to_their_controls() {
    let (d, b) = desktop_with("gnome-calculator").await;
    let w = main_window(&b, "gnome-calculator").await;
    // As sent by default (PNG, full size), and as JPEG scaled down to 240
    // pixels: the frame's scale keeps every mark on its control.
    let small = ModelImage {
        format: ImageFormat::Jpeg,
        max_side: Some(240),
        ..ModelImage::default()
    };
    for image in [ModelImage::default(), small] {
        let mut ctx = ToolContext::for_window(w.clone(), Vec::new());
        ctx.app_window = Some(w.clone());
        let mut o = observe_all(&b, &mut ctx, Default::default()).await.unwrap();
        let images = o.model_images(&AnnotationStyle::default(), &image).unwrap();
        let (shot, annotated) = (o.screenshot.as_ref().unwrap(), &images.annotated);
        if image.max_side.is_some() {
            assert_eq!(shot.image.width().max(shot.image.height()), 240);
            assert!(shot.frame.scale < 1.0, "{:?}", shot.frame);
            assert_eq!(images.marked.mime, "image/jpeg");
        }
        let bounds = shot.bounds();
        assert!(o.controls.len() > 20);
        assert_eq!(
            annotated.labels.len(),
            o.controls.len(),
            "every on-screen control gets a label"
        );
        for (i, l) in annotated.labels.iter().enumerate() {
            assert!(
                l.rect.x >= 0
                    && l.rect.y >= 0
                    && l.rect.right() <= bounds.width
                    && l.rect.bottom() <= bounds.height,
                "label {} at {:?} leaves {:?}",
                l.id,
                l.rect,
                bounds
            );
            let c = o
                .controls
                .iter()
                .find(|c| c.id == l.id)
                .unwrap_or_else(|| panic!("label {} has no control", l.id));
            let target = shot.to_image_rect(&c.rect).intersection(&bounds).unwrap();
            assert_eq!(
                l.target, target,
                "label {} points at {:?}, control is at {:?}",
                l.id, l.target, target
            );
            assert_eq!(l.id as usize, i + 1, "labels are numbered 1..N in order");
            // The label sits on or next to its control.
            let grown = ufo_core::Rect::<ufo_core::Image>::new(
                target.x - 40,
                target.y - 40,
                target.width + 80,
                target.height + 80,
            );
            assert!(
                grown.intersection(&l.rect).is_some(),
                "label {} is far from its control",
                l.id
            );
        }
        // The image really is annotated: pixels differ from the clean capture.
        assert_ne!(annotated.image.as_raw(), shot.image.as_raw());
        // What the model is sent decodes to the annotated image.
        let back = image::load_from_memory(&images.marked.bytes)
            .unwrap()
            .to_rgb8();
        assert_eq!(back.dimensions(), annotated.image.dimensions());
    }
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tiny_budgets_truncate_and_say_so() {
    let (d, b) = desktop_with("mousepad").await;
    let w = main_window(&b, "mousepad").await;
    let full = b.capture_tree(&w, &TreeBudget::default()).await.unwrap();
    assert!(!full.truncated, "{:?}", full.truncation);
    // Mousepad's window without the items of its closed menus.
    assert!(full.nodes.len() > 20, "{}", full.nodes.len());

    let t = b
        .capture_tree(
            &w,
            &TreeBudget {
                max_nodes: 5,
                ..TreeBudget::default()
            },
        )
        .await
        .unwrap();
    assert!(t.truncated);
    assert!(t.nodes.len() <= 5);
    assert!(t.truncation.unwrap().contains("node budget"));

    let t = b
        .capture_tree(
            &w,
            &TreeBudget {
                max_depth: 2,
                ..TreeBudget::default()
            },
        )
        .await
        .unwrap();
    assert!(t.truncated);
    assert!(t.nodes.iter().all(|n| n.depth <= 2));

    let t = b
        .capture_tree(
            &w,
            &TreeBudget {
                deadline: Duration::from_micros(1),
                ..TreeBudget::default()
            },
        )
        .await
        .unwrap();
    assert!(t.truncated);
    assert!(t.truncation.unwrap().contains("deadline"));
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acting_on_a_closed_window_fails_cleanly() {
    let d = ufo_testkit::start_desktop("stale").await;
    let app = ufo_testkit::launch(&d, &["gnome-calculator"]).await;
    let b = ufo_desktop_atspi::AtspiBackend::connect(
        &ufo_desktop_atspi::DesktopTarget::from_private(&d),
    )
    .await
    .unwrap();
    let w = main_window(&b, "gnome-calculator").await;
    let mut ctx = observe(&b, &w).await;
    let seven = find(
        &ctx,
        |c| ufo_desktop::names::names_match("7", &c.name),
        "button 7",
    )
    .clone();

    std::process::Command::new("kill")
        .arg(app.pid.to_string())
        .status()
        .unwrap();
    for _ in 0..100 {
        if !b
            .list_windows()
            .await
            .unwrap()
            .iter()
            .any(|x| x.app_name == "gnome-calculator")
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let r = act(&b, &mut ctx, "click_input", args(&seven, json!({}))).await;
    assert!(!r.is_success());
    let e = r.error.unwrap();
    assert_eq!(e.code, "ufo::desktop::stale_element", "{e:?}");
    assert!(e.help.unwrap().contains("observe again"));

    let e = b
        .capture_tree(&w, &TreeBudget::default())
        .await
        .unwrap_err();
    assert!(
        matches!(e, ufo_desktop::DesktopError::StaleElement { .. }),
        "{e:?}"
    );
    let e = b.refresh_node(&seven.handle, 10).await.unwrap_err();
    assert!(
        matches!(e, ufo_desktop::DesktopError::StaleElement { .. }),
        "{e:?}"
    );

    // Unknown ids and mismatched names are failures with the messages UFO uses.
    let r = act(
        &b,
        &mut ctx,
        "click_input",
        json!({"id": "999", "name": "7"}),
    )
    .await;
    assert!(
        r.error
            .unwrap()
            .message
            .contains("id 999 is not in the current control list")
    );
    let r = act(
        &b,
        &mut ctx,
        "click_input",
        json!({"id": seven.id.to_string(), "name": "Open"}),
    )
    .await;
    let msg = r.error.unwrap().message;
    assert!(
        msg.contains("name mismatch") && msg.contains("not \"Open\""),
        "{msg}"
    );
    d.stop().unwrap();
}
