//! The applications people use, driven through the agent's tools the way the
//! AppAgent drives them: LibreOffice Calc and Writer (VCL on GTK 3), Firefox
//! (a web form), gnome-text-editor (GTK 4) and FeatherPad (Qt 5). Each test
//! checks what a person would: the cell holds 10, the file exists with the
//! text, the form field holds the name.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::agent::*;
use serde_json::json;
use std::io::Read;
use std::path::Path;
use std::time::Duration;
use ufo_core::ControlType;
use ufo_desktop::Backend;

/// A LibreOffice profile that starts without the tip-of-the-day dialog.
fn office_profile(dir: &Path) -> String {
    ufo_desktop_atspi::headless::office_profile(dir).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calc_cells_hold_what_the_agent_typed_and_memory_stays_flat() {
    let _serial = SERIAL.lock().await;
    let d = ufo_testkit::start_desktop("calc").await;
    let profile = tempfile::tempdir().unwrap();
    let env = office_profile(profile.path());
    ufo_testkit::launch(&d, &["soffice", &env, "--calc", "--norestore", "--nologo"]).await;
    let b = backend(&d).await;
    let w = window_titled(&b, "soffice", "LibreOffice Calc").await;
    let mut ctx = context(w.clone());

    // The sheet is read by what is visible: cells by address, no deadline hit.
    let first = look(&b, &mut ctx).await;
    assert_eq!(first["truncated"], json!(false), "{first}");
    let a1 = wait_for(&b, &mut ctx, ControlType::DataItem, "A1").await;
    assert!(
        ctx.controls
            .iter()
            .any(|c| c.control_type == ControlType::Edit && c.value.as_deref() == Some("A1")),
        "the Name Box shows the cursor cell: {}",
        listing(&ctx)
    );
    assert!(
        control(&ctx, ControlType::Document, "Input line").is_some(),
        "the formula bar is a control: {}",
        listing(&ctx)
    );
    let soffice = pid_of(&d, "soffice.bin");
    let rss_before = rss_kib(soffice);

    ok(&b, &mut ctx, "click_input", on(&a1, json!({}))).await;
    // The click landed on the cell, not 25 px higher on the column header
    // (which would select the whole column A1:A1048576).
    look(&b, &mut ctx).await;
    assert!(
        ctx.controls
            .iter()
            .any(|c| c.control_type == ControlType::Edit && c.value.as_deref() == Some("A1")),
        "the Name Box should say A1: {}",
        listing(&ctx)
    );
    press(&b, &mut ctx, "5{ENTER}=A1*2{ENTER}").await;

    let mut last = String::new();
    for _ in 0..50 {
        look(&b, &mut ctx).await;
        let v = |n: &str| control(&ctx, ControlType::DataItem, n).and_then(|c| c.value);
        if v("A1").as_deref() == Some("5") && v("A2").as_deref() == Some("10") {
            last.clear();
            break;
        }
        last = listing(&ctx);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(last.is_empty(), "A1 should hold 5 and A2 10: {last}");
    // Of the hundreds of cells on screen, an empty one (neither focused nor
    // selected) is read no further than its text: no name, no rectangle.
    // The ones holding a value are read in full.
    let tree = b
        .capture_tree(
            &w,
            &ufo_desktop::TreeBudget {
                max_nodes: 2_001,
                ..ufo_desktop::TreeBudget::default()
            },
        )
        .await
        .unwrap();
    let cells: Vec<&ufo_core::UiNode> = tree
        .nodes
        .iter()
        .filter(|n| n.role == "table cell")
        .collect();
    let read = cells.iter().filter(|n| n.rect.is_some()).count();
    assert!(cells.len() > 100, "{} cells on screen", cells.len());
    assert!(
        (2..=4).contains(&read),
        "{read} of {} cells read in full (A1, A2, the cursor's A3)",
        cells.len()
    );
    assert!(
        cells
            .iter()
            .any(|n| n.name == "A2" && n.value.as_deref() == Some("10") && n.rect.is_some())
    );
    // The cursor moved down twice: the Name Box says A3.
    assert!(
        ctx.controls
            .iter()
            .any(|c| c.control_type == ControlType::Edit && c.value.as_deref() == Some("A3")),
        "{}",
        listing(&ctx)
    );

    // Observing again and again does not make LibreOffice grow: cells already
    // obtained are reused (it never frees one).
    for _ in 0..8 {
        let r = look(&b, &mut ctx).await;
        assert_eq!(r["truncated"], json!(false));
    }
    let grown = rss_kib(soffice).saturating_sub(rss_before);
    assert!(
        grown < 40 * 1024,
        "soffice grew by {grown} KiB over 10 observations"
    );

    // A second launch hands the request to the running LibreOffice and exits:
    // the launch still succeeds, and the new window is there.
    let writer = ufo_testkit::launch(
        &d,
        &["soffice", &env, "--writer", "--norestore", "--nologo"],
    )
    .await;
    assert_eq!(writer.pid, soffice, "{writer:?}");
    window_titled(&b, "soffice", "LibreOffice Writer").await;
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writer_saves_through_the_save_as_dialog() {
    let _serial = SERIAL.lock().await;
    let d = ufo_testkit::start_desktop("writer").await;
    let profile = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let env = office_profile(profile.path());
    ufo_testkit::launch(
        &d,
        &["soffice", &env, "--writer", "--norestore", "--nologo"],
    )
    .await;
    let b = backend(&d).await;
    let w = window_titled(&b, "soffice", "LibreOffice Writer").await;
    let mut ctx = context(w);
    look(&b, &mut ctx).await;
    let doc = ctx
        .controls
        .iter()
        .find(|c| c.control_type == ControlType::Document && c.name.contains("Document"))
        .cloned()
        .unwrap_or_else(|| panic!("no document: {}", listing(&ctx)));
    ok(
        &b,
        &mut ctx,
        "keyboard_input",
        on(
            &doc,
            json!({"keys": "Dear ufo, this was typed by an agent."}),
        ),
    )
    .await;
    press(&b, &mut ctx, "^+s").await;

    // The agent now sees the dialog, not the document behind it; a context
    // pinned to the document (`ufo act --window`) stays there.
    wait_window(&b, &mut ctx, "Save").await;
    let document = ctx.app_window.clone().unwrap();
    let mut pinned = context(document.clone());
    pinned.pin_window = true;
    look(&b, &mut pinned).await;
    assert_eq!(pinned.window.as_ref().unwrap().handle, document.handle);
    let path = out.path().join("letter.odt");
    let (dialog, bytes) = save_in_dialog(&b, &mut ctx, "Save", "Name:", &path).await;
    assert!(dialog.modal, "{dialog:?}");
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut content = String::new();
    zip.by_name("content.xml")
        .unwrap()
        .read_to_string(&mut content)
        .unwrap();
    assert!(
        content.contains("Dear ufo, this was typed by an agent."),
        "{content}"
    );
    // The dialog closed: the agent is back on the document, renamed.
    wait_window(&b, &mut ctx, "letter.odt").await;
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_form_fields_take_text_choice_and_check() {
    let _serial = SERIAL.lock().await;
    let d = ufo_testkit::start_desktop("firefox").await;
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("form.html");
    std::fs::write(&page, ufo_testkit::apps::fixture("form.html")).unwrap();
    let url = format!("file://{}", page.display());
    launch_firefox(&d, &url, &dir.path().join("profile")).await;
    let b = backend(&d).await;
    let w = window_titled(&b, "Firefox", "Signup").await;
    let mut ctx = context(w);

    // The text field: EditableText is a no-op on web fields; the tool types.
    let name = wait_for(&b, &mut ctx, ControlType::Edit, "Name").await;
    let r = ok(
        &b,
        &mut ctx,
        "set_edit_text",
        on(
            &name,
            json!({"text": "Ada Lovelace", "clear_current_text": true}),
        ),
    )
    .await;
    assert_eq!(r["verified"], json!(true), "{r}");
    assert_eq!(b.read_text(&name.handle).await.unwrap(), "Ada Lovelace");

    // The select: focused, a letter picks the option, as with a keyboard.
    let color = wait_for(&b, &mut ctx, ControlType::ComboBox, "Color").await;
    ok(
        &b,
        &mut ctx,
        "keyboard_input",
        on(&color, json!({"keys": "G"})),
    )
    .await;
    let mut chosen = None;
    for _ in 0..50 {
        let tree = b
            .capture_tree(ctx.window.as_ref().unwrap(), &Default::default())
            .await
            .unwrap();
        chosen = tree
            .nodes
            .iter()
            .find(|n| n.role == "menu item" && n.states.contains(ufo_core::States::SELECTED))
            .map(|n| n.name.clone());
        if chosen.as_deref() == Some("Green") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(chosen.as_deref(), Some("Green"));

    // The page's text reaches the agent; the characters Gecko puts in a
    // container's text where its children are (U+FFFC) never do.
    let tree = b
        .capture_tree(ctx.window.as_ref().unwrap(), &Default::default())
        .await
        .unwrap();
    let values: Vec<&str> = tree
        .nodes
        .iter()
        .filter_map(|n| n.value.as_deref())
        .collect();
    assert!(values.iter().all(|v| !v.contains('\u{fffc}')), "{values:?}");
    assert!(
        values
            .iter()
            .any(|v| v.contains(ufo_testkit::apps::form_paragraph())),
        "{values:?}"
    );

    // The checkbox: its state is in the control list the model gets.
    look(&b, &mut ctx).await;
    let sub = control(&ctx, ControlType::CheckBox, "Subscribe")
        .unwrap_or_else(|| panic!("{}", listing(&ctx)));
    assert_eq!(sub.to_prompt().state.as_deref(), Some("unchecked"));
    ok(&b, &mut ctx, "click_input", on(&sub, json!({}))).await;
    let mut state = None;
    for _ in 0..50 {
        look(&b, &mut ctx).await;
        state = control(&ctx, ControlType::CheckBox, "Subscribe").and_then(|c| c.to_prompt().state);
        if state.as_deref() == Some("checked") || state.as_deref() == Some("checked,focused") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        state.as_deref().is_some_and(|s| s.starts_with("checked")),
        "{state:?}"
    );
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gtk4_text_editor_types_with_focus_and_saves_through_its_dialog() {
    let _serial = SERIAL.lock().await;
    let d = ufo_testkit::start_desktop("gte").await;
    let out = tempfile::tempdir().unwrap();
    ufo_testkit::launch(&d, &["gnome-text-editor", "--standalone"]).await;
    let b = backend(&d).await;
    let w = window_titled(&b, "gnome-text-editor", "").await;
    let mut ctx = context(w);
    look(&b, &mut ctx).await;
    // The text view: GTK 4 names it after its class; the model never sees that.
    assert!(
        ctx.controls
            .iter()
            .all(|c| !c.name.starts_with("Gtk") && c.name != "EditorSourceView"),
        "{}",
        listing(&ctx)
    );
    let view = editable(&ctx);
    // control_focus = true: GTK 4 refuses GrabFocus; the tool clicks it instead.
    ok(
        &b,
        &mut ctx,
        "keyboard_input",
        on(
            &view,
            json!({"keys": "written in GTK four", "control_focus": true}),
        ),
    )
    .await;
    let mut text = String::new();
    for _ in 0..50 {
        text = b.read_text(&view.handle).await.unwrap();
        if text.contains("written in GTK four") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(text.contains("written in GTK four"), "{text:?}");

    press(&b, &mut ctx, "^+s").await;
    let path = out.path().join("gtk4.txt");
    let (_, bytes) = save_in_dialog(&b, &mut ctx, "Save", "Name:", &path).await;
    let saved = String::from_utf8(bytes).unwrap();
    assert!(saved.contains("written in GTK four"), "{saved:?}");
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qt_menu_opens_a_modal_dialog_that_saves() {
    let _serial = SERIAL.lock().await;
    let d = ufo_testkit::start_desktop("qt").await;
    let out = tempfile::tempdir().unwrap();
    ufo_testkit::launch(&d, &["featherpad"]).await;
    let b = backend(&d).await;
    let w = window_titled(&b, "FeatherPad", "").await;
    let mut ctx = context(w);
    look(&b, &mut ctx).await;
    let editor = editable(&ctx);
    ok(
        &b,
        &mut ctx,
        "set_edit_text",
        on(
            &editor,
            json!({"text": "saved from Qt", "clear_current_text": true}),
        ),
    )
    .await;

    // File → Save As: Qt's menu items are clicked with the pointer (their
    // action answers only when the dialog it opens closes, and leaves the
    // menu open); the tool names the window the click opened.
    let file = wait_for(&b, &mut ctx, ControlType::MenuItem, "File").await;
    ok(&b, &mut ctx, "click_input", on(&file, json!({}))).await;
    let save_as = wait_for(&b, &mut ctx, ControlType::MenuItem, "Save As").await;
    let r = ok(&b, &mut ctx, "click_input", on(&save_as, json!({}))).await;
    // Not a timeout failure: either the dialog it opened is named, or the
    // action is reported as sent for the agent to look.
    assert!(r.get("opened").is_some() || r.get("note").is_some(), "{r}");
    let path = out.path().join("qt.txt");
    let (_, bytes) = save_in_dialog(&b, &mut ctx, "Save as", "File name:", &path).await;
    let saved = String::from_utf8(bytes).unwrap();
    assert_eq!(saved.trim_end(), "saved from Qt");
    // Back on the main window once the dialog is gone.
    wait_window(&b, &mut ctx, "qt.txt").await;
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modifier_left_held_by_a_killed_run_is_released_by_the_next_one() {
    use ufo_desktop::keys::{Key, KeyEvent, NamedKey};
    use ufo_desktop_atspi::x11::X11;
    let d = ufo_testkit::start_desktop("keys").await;
    let display = d.state().display.clone();
    let run = X11::connect(&display).unwrap();
    run.send_keys(&[KeyEvent::Down(Key::Named(NamedKey::Shift))])
        .unwrap();
    assert!(!run.pressed_keys().unwrap().is_empty());
    // The run dies here with Shift down; the X server keeps it down.
    drop(run);
    let probe = X11::connect(&display).unwrap();
    assert_eq!(probe.pressed_keys().unwrap(), Vec::<u8>::new());
    d.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_desktop_is_reported_as_unreachable_not_as_a_stale_element() {
    use ufo_desktop::{DesktopError, ScreenshotTarget};
    let d = ufo_testkit::start_desktop("gone").await;
    ufo_testkit::launch(&d, &["mousepad"]).await;
    let b = backend(&d).await;
    let w = window_titled(&b, "mousepad", "").await;
    b.screenshot(&ScreenshotTarget::Window(w.clone()))
        .await
        .unwrap();
    d.stop().unwrap();
    for target in [ScreenshotTarget::Window(w), ScreenshotTarget::Desktop] {
        let e = b.screenshot(&target).await.unwrap_err();
        assert!(matches!(e, DesktopError::Unreachable { .. }), "{e:?}");
        assert!(e.to_string().contains("stopped or crashed"), "{e}");
        // What X said is kept as the cause, shown under the message, and
        // the help says what to do.
        assert!(std::error::Error::source(&e).is_some(), "{e:?}");
        let shown = ufo_core::render(&e);
        assert!(
            shown.starts_with("error[ufo::desktop::unreachable]"),
            "{shown}"
        );
        assert!(shown.contains("caused by:"), "{shown}");
        assert!(shown.contains("ufo desktop start"), "{shown}");
    }
}

/// GTK 3 answers `DoAction` and then runs the action inside the dispatch of
/// that message: a button that opens a `gtk_dialog_run` modal dialog keeps the
/// connection it came on busy until the dialog closes. One long-lived backend
/// (as in a session) must still observe and drive the dialog, and the main
/// window afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gtk3_modal_dialog_opened_by_an_action_is_driven_by_the_same_backend() {
    let _serial = SERIAL.lock().await;
    let d = ufo_testkit::start_desktop("gtk3modal").await;
    ufo_testkit::launch(&d, &["gtk3-demo"]).await;
    let b = backend(&d).await;
    let w = window_titled(&b, "gtk3-demo", "").await;
    let mut ctx = context(w);
    let demo = wait_for(
        &b,
        &mut ctx,
        ControlType::DataItem,
        "Dialogs and Message Boxes",
    )
    .await;
    // A click selects the demo's row; a double click runs it, as for a person.
    ok(
        &b,
        &mut ctx,
        "click_input",
        on(&demo, json!({"double": true})),
    )
    .await;
    wait_window(&b, &mut ctx, "Dialogs and Message Boxes").await;
    let open = wait_for(&b, &mut ctx, ControlType::Button, "Interactive Dialog").await;
    ok(&b, &mut ctx, "click_input", on(&open, json!({}))).await;

    let dialog = wait_window(&b, &mut ctx, "Interactive Dialog").await;
    assert!(dialog.dialog, "not a dialog: {dialog:?}");
    let entry = wait_for(&b, &mut ctx, ControlType::Edit, "Entry 1").await;
    let r = ok(
        &b,
        &mut ctx,
        "set_edit_text",
        on(
            &entry,
            json!({"text": "from the dialog", "clear_current_text": true}),
        ),
    )
    .await;
    assert_eq!(r["verified"], json!(true), "{r}");
    let done = control(&ctx, ControlType::Button, "OK")
        .unwrap_or_else(|| panic!("no OK button: {}", listing(&ctx)));
    ok(&b, &mut ctx, "click_input", on(&done, json!({}))).await;

    // The dialog copied its entry back into the demo window's.
    wait_window(&b, &mut ctx, "Dialogs and Message Boxes").await;
    let mut value = String::new();
    for _ in 0..50 {
        look(&b, &mut ctx).await;
        value = control(&ctx, ControlType::Edit, "Entry 1")
            .and_then(|c| c.value)
            .unwrap_or_default();
        if value == "from the dialog" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(value, "from the dialog", "{}", listing(&ctx));
    d.stop().unwrap();
}

/// GTK 3's Save dialog: the Name field is set in one piece (EditableText)
/// to a path in another folder, and the next `{ENTER}` saves. The dialog
/// switches its file list to that folder after the text arrives; an Enter
/// sent before it is done was dropped (3 of 3 by hand) while both actions
/// reported success. What is checked is the file on disk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gtk3_save_dialog_saves_on_the_enter_right_after_its_name_is_set() {
    let _serial = SERIAL.lock().await;
    let d = ufo_testkit::start_desktop("gtk3save").await;
    let out = tempfile::tempdir().unwrap();
    ufo_testkit::launch(&d, &["mousepad"]).await;
    let b = backend(&d).await;
    let w = window_titled(&b, "mousepad", "").await;
    let mut ctx = context(w);
    look(&b, &mut ctx).await;
    let view = editable(&ctx);
    let r = ok(
        &b,
        &mut ctx,
        "set_edit_text",
        on(
            &view,
            json!({"text": "saved by Enter", "clear_current_text": true}),
        ),
    )
    .await;
    assert_eq!(r["verified"], json!(true), "{r}");
    press(&b, &mut ctx, "^+s").await;
    wait_window(&b, &mut ctx, "Save As").await;
    let name = wait_for(&b, &mut ctx, ControlType::Edit, "Name:").await;
    let path = out.path().join("entered.txt");
    let r = ok(
        &b,
        &mut ctx,
        "set_edit_text",
        on(
            &name,
            json!({"text": path.display().to_string(), "clear_current_text": true}),
        ),
    )
    .await;
    assert_eq!(r["verified"], json!(true), "{r}");
    press(&b, &mut ctx, "{ENTER}").await;
    let saved = String::from_utf8(wait_file(&path).await).unwrap();
    assert_eq!(saved.trim_end(), "saved by Enter");
    d.stop().unwrap();
}
