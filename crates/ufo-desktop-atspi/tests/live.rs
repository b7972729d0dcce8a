//! Event-driven settling and the live tree on real applications: an action's
//! effect is there when the settle returns, and a kept capture never serves
//! what the application has since changed.

mod common;
use common::*;
use serde_json::json;
use std::time::Duration;
use ufo_core::{ControlType, UiTree};
use ufo_desktop::keyparse::literal_text;
use ufo_desktop::{Backend, TreeBudget};

/// What a person could tell apart in two captures, node by node.
fn facts(t: &UiTree) -> Vec<String> {
    t.nodes
        .iter()
        .map(|n| {
            format!(
                "{} {} {:?} {:?} {:?} {:?} {:?}",
                n.handle, n.role, n.name, n.value, n.states, n.rect, n.children
            )
        })
        .collect()
}

/// Asserts that two captures hold the same facts, showing the lines that
/// differ.
fn assert_same(kept: &UiTree, full: &UiTree, when: &str) {
    let (k, f) = (facts(kept), facts(full));
    let only_kept: Vec<&String> = k.iter().filter(|l| !f.contains(l)).collect();
    let only_full: Vec<&String> = f.iter().filter(|l| !k.contains(l)).collect();
    assert!(
        only_kept.is_empty() && only_full.is_empty() && k.len() == f.len(),
        "{when}, the kept capture holds {only_kept:#?}\nand a full one {only_full:#?}"
    );
}

/// A budget the live tree has not kept a capture for: a full capture.
fn fresh_budget(n: usize) -> TreeBudget {
    TreeBudget {
        max_nodes: TreeBudget::default().max_nodes - 1 - n,
        ..TreeBudget::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_settles_on_the_applications_events_with_its_effect_shown() {
    let (d, b) = desktop_with("gnome-calculator").await;
    let w = main_window(&b, "gnome-calculator").await;
    let mut ctx = observe(&b, &w).await;
    // The tool's own wait is off: the settle below is the only wait.
    ctx.settings.action_settle = Duration::ZERO;
    for digit in ["7", "3"] {
        let c = find(
            &ctx,
            |c| c.name == digit && c.control_type == ControlType::Button,
            digit,
        )
        .clone();
        let mark = b.event_mark().expect("the backend hears AT-SPI events");
        let r = act(&b, &mut ctx, "click_input", args(&c, json!({}))).await;
        assert!(r.is_success(), "{r:?}");
        let heard = b
            .settle(ctx.window.as_ref(), Some(mark), Duration::from_secs(10))
            .await;
        assert!(
            heard.is_some_and(|n| n > 0),
            "the click's changes were heard: {heard:?}"
        );
        // Read once, no polling: settled, the display already shows the digit
        // (and the live tree has it).
        let tree = b.capture_tree(&w, &TreeBudget::default()).await.unwrap();
        let shown = tree
            .nodes
            .iter()
            .filter(|n| n.capabilities.editable_text && n.role == "text")
            .find_map(|n| n.value.clone())
            .unwrap_or_default();
        assert!(
            shown.trim().ends_with(digit),
            "display {shown:?} after {digit}"
        );
    }
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_tree_equals_a_full_capture_and_follows_outside_changes() {
    let (d, b) = desktop_with("mousepad").await;
    let w = main_window(&b, "mousepad").await;
    let budget = TreeBudget::default();
    let _first = b.capture_tree(&w, &budget).await.unwrap();
    // Unchanged: the kept capture says what a full one says.
    let kept = b.capture_tree(&w, &budget).await.unwrap();
    let full = b.capture_tree(&w, &fresh_budget(0)).await.unwrap();
    assert_same(&kept, &full, "unchanged");

    // Typed with the keyboard (X input, not through the tree): the text shows.
    let ctx = observe(&b, &w).await;
    let editor = editor(&ctx);
    b.focus_element(&editor.handle).await.unwrap();
    let mark = b.event_mark();
    b.send_keys(&literal_text("live tree")).await.unwrap();
    b.settle(Some(&w), mark, Duration::from_secs(5)).await;
    let t = b.capture_tree(&w, &budget).await.unwrap();
    let after = t
        .nodes
        .iter()
        .find(|n| n.handle == editor.handle)
        .and_then(|n| n.value.clone())
        .unwrap_or_default();
    assert!(after.contains("live tree"), "{after:?}");
    let kept = b.capture_tree(&w, &budget).await.unwrap();
    let full = b.capture_tree(&w, &fresh_budget(1)).await.unwrap();
    assert_same(&kept, &full, "after typing");

    // A menu opened and closed: its items come and go. Closed, they are not
    // read at all (a closed menu's first item tells).
    let items = |t: &UiTree| {
        t.nodes
            .iter()
            .filter(|n| n.role == "menu item" && n.name.contains("Save As"))
            .count()
    };
    assert_eq!(items(&full), 0, "a closed menu's items were read");
    let mark = b.event_mark();
    b.send_keys(&ufo_desktop::keyparse::parse_keys("%f").unwrap())
        .await
        .unwrap();
    b.settle(Some(&w), mark, Duration::from_secs(5)).await;
    let open = b.capture_tree(&w, &budget).await.unwrap();
    assert!(items(&open) > 0, "the File menu's items are listed");
    let mark = b.event_mark();
    b.send_keys(&ufo_desktop::keyparse::parse_keys("{ESC}").unwrap())
        .await
        .unwrap();
    b.settle(Some(&w), mark, Duration::from_secs(5)).await;
    let closed = b.capture_tree(&w, &budget).await.unwrap();
    let full = b.capture_tree(&w, &fresh_budget(2)).await.unwrap();
    assert_eq!(
        items(&closed),
        items(&full),
        "the closed menu as a full capture sees it"
    );
    assert_same(&closed, &full, "after the menu");
    d.stop().unwrap();
}

/// A full capture asks ahead what the last one asked (rectangles, texts,
/// children): the answers must be of this capture. Between two captures
/// the window is moved and text typed into it, with nothing read between.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capture_asked_ahead_sees_the_window_moved_and_the_text_typed_since() {
    let (d, b) = desktop_with("mousepad").await;
    let w = main_window(&b, "mousepad").await;
    let ctx = observe(&b, &w).await;
    let editor = editor(&ctx);
    let first = b.capture_tree(&w, &fresh_budget(0)).await.unwrap();
    let taken = b.answers_asked_ahead();
    let again = b.capture_tree(&w, &fresh_budget(1)).await.unwrap();
    assert!(
        b.answers_asked_ahead() >= taken + 10,
        "the second capture took {} answers asked ahead",
        b.answers_asked_ahead() - taken
    );
    assert_same(&first, &again, "unchanged, asked ahead");

    b.focus_element(&editor.handle).await.unwrap();
    let mark = b.event_mark();
    b.send_keys(&literal_text("asked ahead")).await.unwrap();
    b.settle(Some(&w), mark, Duration::from_secs(5)).await;
    let before = first.nodes[0].rect.unwrap();
    let moved = std::process::Command::new("xdotool")
        .args(["windowmove", &w.native_id.unwrap().to_string()])
        .args([(before.x + 70).to_string(), (before.y + 40).to_string()])
        .envs(ufo_testkit::desktop_env(&d))
        .status()
        .expect("xdotool runs");
    assert!(moved.success());
    let now = eventually("moved", || async {
        let r = b.refresh_node(&w.handle, 0).await.unwrap().rect.unwrap();
        match (r.x, r.y) == (before.x + 70, before.y + 40) {
            true => "moved".to_owned(),
            false => format!("{r:?}"),
        }
    })
    .await;
    assert_eq!(now, "moved");

    let taken = b.answers_asked_ahead();
    let after = b.capture_tree(&w, &fresh_budget(2)).await.unwrap();
    assert!(b.answers_asked_ahead() >= taken + 10);
    let node = |t: &UiTree, h: &ufo_core::ElementHandle| {
        t.nodes.iter().find(|n| &n.handle == h).cloned().unwrap()
    };
    let typed = node(&after, &editor.handle);
    assert!(
        typed
            .value
            .as_deref()
            .unwrap_or_default()
            .contains("asked ahead"),
        "{:?}",
        typed.value
    );
    // Every rectangle read in both moved with the window.
    let mut compared = 0;
    for n in &after.nodes {
        // A label whose text changed (the status bar's cursor position)
        // may have changed its width too.
        let Some(old) = first
            .nodes
            .iter()
            .find(|o| o.handle == n.handle && o.name == n.name && o.value == n.value)
        else {
            continue;
        };
        if let (Some(r), Some(o)) = (n.rect, old.rect) {
            assert_eq!(
                (r.x, r.y, r.width, r.height),
                (o.x + 70, o.y + 40, o.width, o.height),
                "{} {:?}",
                n.role,
                n.name
            );
            compared += 1;
        }
    }
    assert!(compared >= 10, "{compared} rectangles compared");
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_switched_since_is_not_asked_ahead() {
    let app = "gtk3-widget-factory";
    let (d, b) = desktop_with(app).await;
    let w = main_window(&b, app).await;
    b.capture_tree(&w, &fresh_budget(0)).await.unwrap();
    let (sent, taken) = (b.calls_asked_ahead(), b.answers_asked_ahead());
    let page1 = b.capture_tree(&w, &fresh_budget(1)).await.unwrap();
    let asked = b.calls_asked_ahead() - sent;
    assert!(
        asked >= 100 && b.answers_asked_ahead() - taken >= 100,
        "page 1 again: {asked} asked ahead, {} taken",
        b.answers_asked_ahead() - taken
    );

    // Another page: the stack's branch changed, the rest of the window
    // did not.
    let button = page1
        .nodes
        .iter()
        .find(|n| n.name == "Page 2")
        .expect("a Page 2 button");
    let mark = b.event_mark();
    assert!(b.do_action(&button.handle, "click").await.unwrap());
    b.settle(Some(&w), mark, Duration::from_secs(5)).await;
    let (sent, taken) = (b.calls_asked_ahead(), b.answers_asked_ahead());
    let page2 = b.capture_tree(&w, &fresh_budget(2)).await.unwrap();
    let (asked, took) = (
        b.calls_asked_ahead() - sent,
        b.answers_asked_ahead() - taken,
    );
    // Asking page 1's calls again cost about a whole capture in vain.
    assert!(
        asked <= took + 8 && asked < 40,
        "after the switch: {asked} asked ahead, {took} taken"
    );
    // What the capture shows is page 2's, and what a capture asked ahead
    // of page 2 shows too.
    let names = |t: &UiTree| {
        let names = t.nodes.iter().map(|n| n.name.clone());
        names.collect::<std::collections::HashSet<_>>()
    };
    let new: Vec<_> = names(&page2).difference(&names(&page1)).cloned().collect();
    assert!(new.len() >= 5, "page 2 shows what page 1 did not: {new:?}");
    let again = b.capture_tree(&w, &fresh_budget(0)).await.unwrap();
    assert_same(&page2, &again, "page 2, asked ahead");
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_window_list_follows_a_dialog_opened_and_closed() {
    let (d, b) = desktop_with("mousepad").await;
    let w = main_window(&b, "mousepad").await;
    // What a listing of every window says of this application right now.
    let fresh = async |b: &ufo_desktop_atspi::AtspiBackend| -> Vec<String> {
        let mut v: Vec<String> = b
            .list_windows()
            .await
            .unwrap()
            .into_iter()
            .filter(|x| x.same_app(&w))
            .map(|x| format!("{} {:?} {} {}", x.handle, x.title, x.dialog, x.focused))
            .collect();
        v.sort();
        v
    };
    let kept = async |b: &ufo_desktop_atspi::AtspiBackend| -> Vec<String> {
        let mut v: Vec<String> = b
            .app_windows(&w)
            .await
            .unwrap()
            .into_iter()
            .map(|x| format!("{} {:?} {} {}", x.handle, x.title, x.dialog, x.focused))
            .collect();
        v.sort();
        v
    };
    // Listed, then kept: the same list.
    assert_eq!(kept(&b).await, fresh(&b).await);
    assert_eq!(kept(&b).await, fresh(&b).await);
    let dialogs = |v: &Vec<String>| v.iter().filter(|s| s.contains(" true ")).count();
    assert_eq!(dialogs(&kept(&b).await), 0);

    // Keys pressed, the application settled: the kept list shows `want`
    // dialogs, and says what a fresh listing says.
    let press = async |keys: &str, want: &str, what: &str| {
        let mark = b.event_mark();
        b.send_keys(&ufo_desktop::keyparse::parse_keys(keys).unwrap())
            .await
            .unwrap();
        b.settle(Some(&w), mark, Duration::from_secs(5)).await;
        let n = eventually(want, async || dialogs(&kept(&b).await).to_string()).await;
        assert_eq!(
            n,
            want,
            "{what}: {:?} (listed afresh: {:?})",
            kept(&b).await,
            fresh(&b).await
        );
        assert_eq!(kept(&b).await, fresh(&b).await, "{what}");
    };
    // The Open dialog: the kept list has it as soon as the application said
    // so; closed, it is gone from the kept list too.
    b.activate_window(&w).await.unwrap();
    press("^o", "1", "with the dialog open").await;
    press("{ESC}", "0", "with the dialog closed").await;
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_that_grew_a_row_and_said_only_its_bounds_is_read_again() {
    // GTK 4 reports the history row gnome-calculator adds on "=" only by
    // the list's new bounds: the kept capture must still show the row.
    let (d, b) = desktop_with("gnome-calculator").await;
    let w = main_window(&b, "gnome-calculator").await;
    let budget = TreeBudget::default();
    let history = |t: &UiTree| -> Vec<String> {
        t.nodes
            .iter()
            .filter(|n| n.role == "list item" && n.name.contains(" = "))
            .map(|n| n.name.clone())
            .collect()
    };
    for (round, (keys, sum)) in [("2+3=", "5"), ("40+2=", "42"), ("6+1=", "7")]
        .into_iter()
        .enumerate()
    {
        let _kept = b.capture_tree(&w, &budget).await.unwrap();
        let mark = b.event_mark();
        b.send_keys(&literal_text(keys)).await.unwrap();
        b.settle(Some(&w), mark, Duration::from_secs(5)).await;
        // The display's new text and the list's new bounds may be heard
        // after the settle: wait for both (bounded) in the kept capture,
        // then compare it with a full one.
        let display = |t: &UiTree| {
            t.nodes
                .iter()
                .filter(|n| n.capabilities.editable_text && n.role == "text")
                .find_map(|n| n.value.clone())
                .unwrap_or_default()
        };
        let mut kept = b.capture_tree(&w, &budget).await.unwrap();
        for _ in 0..50 {
            let row = history(&kept).iter().any(|h| h.ends_with(sum));
            if display(&kept).trim() == sum && row {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            kept = b.capture_tree(&w, &budget).await.unwrap();
        }
        let full = b.capture_tree(&w, &fresh_budget(round)).await.unwrap();
        // What is drawn must agree. (The value of the history's unplaced
        // scroll adjustment, a filler without a rectangle never listed,
        // changes again after its last event: 118 kept, 0 read.)
        let drawn = |t: &UiTree| {
            let mut t = t.clone();
            t.nodes.retain(|n| n.rect.is_some());
            t
        };
        assert_same(&drawn(&kept), &drawn(&full), &format!("after {keys}"));
        assert!(
            history(&kept).iter().any(|h| h.ends_with(sum)),
            "the history shows {keys}{sum}: {:?}",
            history(&kept)
        );
    }
    d.stop().unwrap();
}
