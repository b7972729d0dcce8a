//! Widget classes on applications outside the original suite, each effect
//! read back independently of ufo (a pyatspi process, the application's own
//! output, the window's title): typing into a calculator loses no key, a row
//! click selects and a double click opens, a short side pane lists every
//! row, an open menu hides what it covers and is on screen, a PDF's text
//! reaches the agent without taking the viewer down, a password field is
//! verified by its masks, a window's closed popovers are not walked, a
//! capture lists the children the application gives (most taken from its
//! cache without asking), and a hung application is named.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;
use std::process::{Command as Proc, Stdio};
use std::time::Duration;
use ufo_core::{Control, ControlType};
use ufo_desktop::Backend;
use ufo_desktop_atspi::HeadlessDesktop;

/// A pyatspi walk printing `role<TAB>name<TAB>text<TAB>states` of every
/// element of application `app`, depth first.
fn dump(d: &HeadlessDesktop, app: &str) -> Vec<(String, String, String, String)> {
    let code = format!(
        r#"
def walk(n, depth=0):
    for c in n:
        if c is None: continue
        t = ""
        try:
            if c.getState().contains(pyatspi.STATE_SHOWING):
                t = c.queryText().getText(0, -1)
        except Exception: pass
        st = ",".join(pyatspi.stateToString(s) for s in c.getState().getStates())
        print("%s\t%s\t%s\t%s" % (c.getRoleName(), c.name, t.replace("\n", " ").replace("\t", " "), st))
        if depth < 25 and c.childCount < 400: walk(c, depth + 1)
for a in pyatspi.Registry.getDesktop(0):
    if a is not None and a.name == {app:?}:
        walk(a)
"#
    );
    pyatspi(d, &code)
        .lines()
        .map(|l| {
            let mut p = l.split('\t').map(str::to_owned);
            (
                p.next().unwrap_or_default(),
                p.next().unwrap_or_default(),
                p.next().unwrap_or_default(),
                p.next().unwrap_or_default(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_into_a_calculator_loses_no_key() {
    let (d, b) = desktop_with("galculator").await;
    let w = main_window(&b, "galculator").await;
    // Repeated digits and a key struck again a few keys later: galculator
    // dropped both when keys came 2 ms apart (98-19 read 97).
    for (keys, want) in [
        ("98-19", "79"),
        ("7766-5544", "2222"),
        ("1122-33", "1089"),
        ("321-123", "198"),
        ("9988-1", "9987"),
        ("1000-1", "999"),
    ] {
        let mut ctx = observe(&b, &w).await;
        let r = act(
            &b,
            &mut ctx,
            "keyboard_input",
            json!({"keys": format!("{{ESC}}{keys}{{ENTER}}")}),
        )
        .await;
        assert!(r.is_success(), "{r:?}");
        // The display, read by pyatspi: galculator's only showing text.
        let shown = dump(&d, "galculator")
            .into_iter()
            .find(|(role, _, text, st)| {
                role == "text" && st.contains("showing") && !text.is_empty()
            })
            .map(|(_, _, text, _)| text.trim().to_owned())
            .unwrap_or_default();
        assert_eq!(shown, want, "{keys} typed into galculator");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_click_selects_a_double_click_opens_and_short_lists_show_every_row() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["alpha", "beta", "gamma"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    let d = ufo_testkit::start_desktop("thunar").await;
    let path = dir.path().to_string_lossy().to_string();
    let (d, b, w, _) = fresh_thunar(d, &path, None).await;
    let mut ctx = observe(&b, &w).await;
    // The side pane is a short tree: its rows after the first are listed.
    find(
        &ctx,
        |c| c.name == "File System",
        "the side pane's File System row",
    );

    let beta = find(
        &ctx,
        |c| c.control_type == ControlType::DataItem && c.name == "beta",
        "row beta",
    )
    .clone();
    let title = |rows: &[(String, String, String, String)]| {
        rows.iter()
            .find(|(role, _, _, _)| role == "frame")
            .map(|(_, n, _, _)| n.clone())
            .unwrap_or_default()
    };
    let r = act(&b, &mut ctx, "click_input", args(&beta, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    // Selected, not opened: pyatspi sees the row selected and the folder
    // still the one opened.
    let rows = dump(&d, "thunar");
    assert!(
        rows.iter().any(|(role, name, _, st)| role == "table cell"
            && name == "beta"
            && st.contains("selected")),
        "beta not selected: {rows:?}"
    );
    let dirname = dir
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    assert!(title(&rows).starts_with(&dirname), "{:?}", title(&rows));

    // A double click on another row right after a click opens that row's
    // folder: its two clicks must not join the one before into a triple
    // click (GTK counts presses within its double-click time as one
    // gesture, even on another row; this failed in 6 of 6 runs).
    let alpha = find(
        &ctx,
        |c| c.control_type == ControlType::DataItem && c.name == "alpha",
        "row alpha",
    )
    .clone();
    let r = act(&b, &mut ctx, "click_input", args(&alpha, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    let gamma = find(
        &ctx,
        |c| c.control_type == ControlType::DataItem && c.name == "gamma",
        "row gamma",
    )
    .clone();
    let r = act(
        &b,
        &mut ctx,
        "click_input",
        args(&gamma, json!({"double": true})),
    )
    .await;
    assert!(r.is_success(), "{r:?}");
    let opened = eventually("gamma - Thunar", || async {
        let rows = dump(&d, "thunar");
        title(&rows)
    })
    .await;
    assert_eq!(opened, "gamma - Thunar");

    // An open menu: its items listed, what it covers not, and it is on
    // screen (the window was raised for the screenshot without burying it).
    let mut ctx = observe(&b, &w).await;
    let before = b
        .screenshot(&ufo_desktop::ScreenshotTarget::Desktop)
        .await
        .unwrap();
    let file = find(&ctx, |c| c.name == "File", "File menu").clone();
    let r = act(&b, &mut ctx, "click_input", args(&file, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    let ctx = observe(&b, &w).await;
    let item = find(&ctx, |c| c.name == "Close Window", "menu item Close Window").clone();
    assert!(
        !ctx.controls.iter().any(|c| c.name == "File System"),
        "the side pane's rows under the menu are still listed: {:?}",
        ctx.controls.iter().map(|c| &c.name).collect::<Vec<_>>()
    );
    let after = b
        .screenshot(&ufo_desktop::ScreenshotTarget::Desktop)
        .await
        .unwrap();
    // The item's text is drawn where the item is: pixels there changed.
    let r = item.rect;
    let changed = (r.y..r.bottom())
        .flat_map(|y| (r.x..r.right()).map(move |x| (x as u32, y as u32)))
        .filter(|&(x, y)| before.image.get_pixel(x, y) != after.image.get_pixel(x, y))
        .count();
    assert!(changed > 20, "the open menu is not on screen at {r:?}");
    d.stop().ok();
}

/// Thunar showing `path` on `d`; the Thunar started before (`previous`,
/// its pid) is ended first.
async fn fresh_thunar(
    d: HeadlessDesktop,
    path: &str,
    previous: Option<u32>,
) -> (
    HeadlessDesktop,
    ufo_desktop_atspi::AtspiBackend,
    ufo_core::WindowInfo,
    u32,
) {
    if let Some(pid) = previous {
        let _ = Proc::new("kill").arg(pid.to_string()).status();
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // The list of files is the details view (a tree table): Thunar's icon
    // view, its default on a fresh home, lists no item to accessibility.
    let home = d.state().home.clone().expect("test desktops have a home");
    let channel = home.join(".config/xfce4/xfconf/xfce-perchannel-xml");
    std::fs::create_dir_all(&channel).unwrap();
    std::fs::write(
        channel.join("thunar.xml"),
        r#"<?xml version="1.0" encoding="UTF-8"?>
<channel name="thunar" version="1.0">
  <property name="last-view" type="string" value="ThunarDetailsView"/>
</channel>
"#,
    )
    .unwrap();
    let app = ufo_testkit::launch(&d, &["thunar", path]).await;
    let b = ufo_desktop_atspi::AtspiBackend::connect(
        &ufo_desktop_atspi::DesktopTarget::from_private(&d),
    )
    .await
    .unwrap();
    let w = main_window(&b, "thunar").await;
    (d, b, w, app.pid)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pdf_page_text_reaches_the_agent_and_the_viewer_stays_up() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.pdf");
    std::fs::write(&file, ufo_testkit::apps::fixture("doc.pdf")).unwrap();
    let line = ufo_testkit::apps::pdf_line();
    let d = ufo_testkit::start_desktop("evince").await;
    let b = ufo_desktop_atspi::AtspiBackend::connect(
        &ufo_desktop_atspi::DesktopTarget::from_private(&d),
    )
    .await
    .unwrap();
    // Observed right after each launch, while the viewer lays its pages out
    // (asking a page it had not laid out for its text killed Evince).
    for _ in 0..3 {
        let app = ufo_testkit::launch(&d, &["evince", &file.to_string_lossy()]).await;
        let w = main_window(&b, "evince").await;
        let _ = b
            .capture_tree(&w, &ufo_desktop::TreeBudget::default())
            .await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(
            std::path::Path::new(&format!("/proc/{}", app.pid)).exists()
                && !std::fs::read_to_string(format!("/proc/{}/stat", app.pid))
                    .unwrap_or_default()
                    .contains(") Z "),
            "evince died under observation"
        );
        let _ = Proc::new("kill").arg(app.pid.to_string()).status();
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    ufo_testkit::launch(&d, &["evince", &file.to_string_lossy()]).await;
    let w = main_window(&b, "evince").await;
    // The text as pyatspi reads it from the page.
    let page = eventually(line, || async {
        dump(&d, "evince")
            .into_iter()
            .find(|(role, _, _, _)| role == "page")
            .map(|(_, _, t, _)| t.trim().to_owned())
            .unwrap_or_default()
    })
    .await;
    assert_eq!(page, line);
    let mut ctx = observe(&b, &w).await;
    let doc = find(
        &ctx,
        |c| c.control_type == ControlType::Document,
        "the document view",
    )
    .clone();
    assert!(
        doc.value
            .as_deref()
            .unwrap_or_default()
            .contains("A PDF page"),
        "the control list carries no excerpt: {doc:?}"
    );
    let r = act(&b, &mut ctx, "texts", args(&doc, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    assert!(
        r.result.as_str().unwrap_or_default().contains(line),
        "{r:?}"
    );
    d.stop().ok();
}

/// A zenity dialog started with `args` on `d` (its stdout piped: what it
/// prints is the independent read-back) and its window.
async fn zenity(
    d: &HeadlessDesktop,
    b: &ufo_desktop_atspi::AtspiBackend,
    args: &[&str],
) -> (std::process::Child, ufo_core::WindowInfo) {
    let mut child = Proc::new("zenity")
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("NO_AT_BRIDGE", "0")
        .env("GSETTINGS_BACKEND", "memory")
        .envs(ufo_testkit::desktop_env(d))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("zenity starts");
    for _ in 0..100 {
        if let Some(found) = b
            .list_windows()
            .await
            .unwrap_or_default()
            .into_iter()
            .find(|w| w.app_name == "zenity")
        {
            return (child, found);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    child.kill().ok();
    child.wait().ok();
    panic!("zenity's dialog does not show");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_calendar_is_listed_by_its_label_and_a_date_is_picked_on_it() {
    let d = ufo_testkit::start_desktop("zenity-calendar").await;
    let b = ufo_desktop_atspi::AtspiBackend::connect(
        &ufo_desktop_atspi::DesktopTarget::from_private(&d),
    )
    .await
    .unwrap();
    let (child, w) = zenity(
        &d,
        &b,
        &[
            "--calendar",
            "--day=10",
            "--month=3",
            "--year=2024",
            "--date-format=%Y-%m-%d",
        ],
    )
    .await;
    let mut ctx = observe(&b, &w).await;
    // GTK 3's calendar has no name of its own: the label above it names it.
    let cal = find(
        &ctx,
        |c| c.control_type == ControlType::Calendar && c.name.trim_end_matches(':') == "Calendar",
        "the calendar, named",
    )
    .clone();
    // A month on and a year on, with the keyboard on the calendar (its
    // arrows move a focus ring that starts apart from the selection;
    // Ctrl+arrows move the selected date).
    let r = act(
        &b,
        &mut ctx,
        "keyboard_input",
        args(&cal, json!({"keys": "^{RIGHT}^{DOWN}"})),
    )
    .await;
    assert!(r.is_success(), "{r:?}");
    let ok = find(
        &ctx,
        |c| c.control_type == ControlType::Button && c.name == "OK",
        "OK",
    )
    .clone();
    let r = act(&b, &mut ctx, "click_input", args(&ok, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "2025-04-10");
    d.stop().ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_field_is_verified_by_its_masks_and_the_dialog_returns_it() {
    let d = ufo_testkit::start_desktop("zenity").await;
    let b = ufo_desktop_atspi::AtspiBackend::connect(
        &ufo_desktop_atspi::DesktopTarget::from_private(&d),
    )
    .await
    .unwrap();
    // zenity prints the password it was given: the independent read-back.
    let (child, w) = zenity(&d, &b, &["--password", "--title", "Unlock"]).await;
    let mut ctx = observe(&b, &w).await;
    let field = find(&ctx, |c| c.role == "password text", "the password field").clone();
    let r = act(
        &b,
        &mut ctx,
        "set_edit_text",
        args(&field, json!({"text": "s3cret!"})),
    )
    .await;
    assert!(
        r.is_success(),
        "a password that went in was reported: {r:?}"
    );
    assert_eq!(r.result["verified"], json!(true), "{r:?}");
    assert!(
        !r.result.to_string().contains("s3cret"),
        "the result repeats the password: {r:?}"
    );
    let ok = find(
        &ctx,
        |c| c.control_type == ControlType::Button && c.name == "OK",
        "OK",
    )
    .clone();
    let r = act(&b, &mut ctx, "click_input", args(&ok, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "s3cret!");
    d.stop().ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_popovers_are_not_walked_and_a_hung_application_is_named() {
    let (d, b) = ufo_testkit::desktop_with_apps("gedit-mousepad", &["gedit", "mousepad"]).await;
    let w = main_window(&b, "gedit").await;
    let tree = b
        .capture_tree(&w, &ufo_desktop::TreeBudget::default())
        .await
        .unwrap();
    // gedit's closed popovers (children of its window that are not showing)
    // held a 152-row list that made every observation truncated.
    assert!(!tree.truncated, "{:?}", tree.truncation);
    assert!(tree.nodes.len() < 150, "{} nodes read", tree.nodes.len());

    let pad = main_window(&b, "mousepad").await;
    let pid = pad.pid.expect("mousepad's pid");
    let _ = Proc::new("kill").args(["-STOP", &pid.to_string()]).status();
    let listed = b.list_windows().await.unwrap();
    let _ = Proc::new("kill").args(["-CONT", &pid.to_string()]).status();
    assert!(!listed.iter().any(|w| w.app_name == "mousepad"));
    let silent = b.unresponsive_apps();
    assert!(
        silent
            .iter()
            .any(|s| s.contains("mousepad") && s.contains(&pid.to_string())),
        "{silent:?}"
    );
    d.stop().ok();
}

/// What each `bus|path` element answers to GetChildren now, one line of
/// space-separated object paths per element (Debian's python3 and Gio: a
/// D-Bus call ufo takes no part in).
fn live_children(d: &HeadlessDesktop, elements: &[(String, String)]) -> Vec<String> {
    let code = format!(
        r#"
import json
from gi.repository import Gio
s = Gio.bus_get_sync(Gio.BusType.SESSION)
a = s.call_sync('org.a11y.Bus', '/org/a11y/bus', 'org.a11y.Bus', 'GetAddress', None, None, 0, -1, None).unpack()[0]
c = Gio.DBusConnection.new_for_address_sync(a, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
for bus, path in json.loads({json:?}):
    kids = c.call_sync(bus, path, 'org.a11y.atspi.Accessible', 'GetChildren', None, None, 0, 5000, None).unpack()[0]
    print(" ".join(p for (_, p) in kids))
"#,
        json = serde_json::to_string(elements).unwrap()
    );
    python(d, &code).lines().map(str::to_owned).collect()
}

/// GTK 3's cache lists most elements' children, and a capture takes them
/// from it without asking: every element whose children a capture entered
/// must have exactly the children, in the order, the application gives
/// GetChildren now (gedit and thunar both have scrolled windows, whose scroll
/// bars the cache gives no index, and containers it cannot vouch for).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capture_lists_the_children_the_application_gives() {
    let (d, b) = ufo_testkit::desktop_with_apps("gedit-thunar", &["gedit", "thunar"]).await;
    for app in ["gedit", "thunar"] {
        let w = main_window(&b, app).await;
        let tree = b
            .capture_tree(&w, &ufo_desktop::TreeBudget::default())
            .await
            .unwrap();
        let entered: Vec<&ufo_core::UiNode> = tree
            .nodes
            .iter()
            .filter(|n| {
                !n.children.is_empty() && !n.states.contains(ufo_core::States::MANAGES_DESCENDANTS)
            })
            .collect();
        assert!(entered.len() > 10, "{app}: {} containers", entered.len());
        let split = |h: &str| -> (String, String) {
            let (bus, path) = h.split_once('|').expect("bus|path");
            (bus.to_owned(), path.to_owned())
        };
        let elements: Vec<(String, String)> = entered.iter().map(|n| split(&n.handle.0)).collect();
        let live = live_children(&d, &elements);
        assert_eq!(live.len(), entered.len());
        for (n, live) in entered.iter().zip(live) {
            let ours: Vec<String> = n
                .children
                .iter()
                .map(|&c| split(&tree.nodes[c].handle.0).1)
                .collect();
            assert_eq!(
                ours.join(" "),
                live,
                "{app}: the children of {} {:?} ({})",
                n.role,
                n.name,
                n.handle.0
            );
        }
    }
    d.stop().ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gtk4_popover_lists_every_item_where_it_is_drawn_and_a_ticked_box_reads_ticked() {
    let (d, b) = desktop_with("gnome-text-editor").await;
    let w = main_window(&b, "gnome-text-editor").await;
    let mut ctx = observe(&b, &w).await;
    let menu = find(
        &ctx,
        |c| c.control_type == ControlType::Button && c.name == "Menu",
        "the main menu button",
    )
    .clone();
    let r = act(&b, &mut ctx, "click_input", args(&menu, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    // The popover maps a moment after the click on a loaded machine: observe
    // again, as the next step would, until it is there (at most 5 s).
    let is_about =
        |c: &Control| c.control_type == ControlType::MenuItem && c.name == "About Text Editor";
    let mut ctx = observe(&b, &w).await;
    for _ in 0..50 {
        if ctx.controls.iter().any(is_about) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        ctx = observe(&b, &w).await;
    }
    // The popover reaches below the window: its last item is listed whole,
    // below the window's bottom edge.
    let about = find(
        &ctx,
        |c| c.control_type == ControlType::MenuItem && c.name == "About Text Editor",
        "the popover's last item",
    )
    .clone();
    let bottom = w.rect.map_or(0, |r| r.bottom());
    assert!(
        about.rect.y >= bottom - 40,
        "{:?} vs window {:?}",
        about.rect,
        w.rect
    );
    // Where it is drawn: a pointer click on the style check box (it has no
    // action of its own to fall back on) ticks that one, and the next
    // observation reads it ticked, as pyatspi does.
    let dark = find(
        &ctx,
        |c| c.control_type == ControlType::CheckBox && c.name == "Dark style",
        "the Dark style check box",
    )
    .clone();
    assert_eq!(dark.to_prompt().state.as_deref(), Some("unchecked"));
    let r = act(&b, &mut ctx, "click_input", args(&dark, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    let ticked = eventually("checked", || async {
        dump(&d, "gnome-text-editor")
            .into_iter()
            .find(|(role, name, _, _)| role == "check box" && name == "Dark style")
            .map(|(_, _, _, st)| {
                if st.split(',').any(|s| s == "checked") {
                    "checked"
                } else {
                    "unchecked"
                }
                .to_owned()
            })
            .unwrap_or_default()
    })
    .await;
    assert_eq!(
        ticked, "checked",
        "pyatspi: the click did not tick Dark style"
    );
    let ctx = observe(&b, &w).await;
    let dark = find(
        &ctx,
        |c| c.control_type == ControlType::CheckBox && c.name == "Dark style",
        "the Dark style check box",
    );
    assert!(
        dark.to_prompt()
            .state
            .as_deref()
            .is_some_and(|s| s.starts_with("checked")),
        "{dark:?}"
    );
    d.stop().ok();
}
