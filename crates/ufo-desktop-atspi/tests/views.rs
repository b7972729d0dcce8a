//! Icon and grid views, read back independently of ufo (a pyatspi process):
//! GTK 3's icon view lists its items by caption whatever their stale state
//! says, GTK 4's grid view its cells by the label they show, and a click on
//! either does what a person's click does.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;
use std::process::Command as Proc;
use std::time::Duration;
use ufo_core::ControlType;
use ufo_desktop::Backend;
use ufo_desktop_atspi::HeadlessDesktop;

/// A pyatspi snippet whose `body` (indented by four spaces) runs on
/// application `app`, bound to `a`, with `find(n, role)`: the first element
/// of `role` below `n`, depth first.
fn in_app(app: &str, body: &str) -> String {
    format!(
        r#"
def find(n, role):
    for c in n:
        if c is None: continue
        if c.getRoleName() == role: return c
        r = find(c, role)
        if r is not None: return r
for a in pyatspi.Registry.getDesktop(0):
    if a is None or a.name != {app:?}: continue
{body}"#
    )
}

/// Runs `code`, which prints `text<TAB>x<TAB>y[<TAB>more]` lines; each as
/// `(text, x, y, more)`.
fn placed(d: &HeadlessDesktop, code: &str) -> Vec<(String, i32, i32, String)> {
    pyatspi(d, code)
        .lines()
        .map(|l| {
            let p: Vec<&str> = l.split('\t').collect();
            let more = p.get(3).copied().unwrap_or_default().to_owned();
            (
                p[0].to_owned(),
                p[1].parse().unwrap(),
                p[2].parse().unwrap(),
                more,
            )
        })
        .collect()
}

/// Clicks `control` and waits for a window titled `title` to open.
async fn click_opens_window(
    b: &ufo_desktop_atspi::AtspiBackend,
    ctx: &mut ufo_desktop::ToolContext,
    control: &ufo_core::Control,
    title: &str,
) {
    let r = act(b, ctx, "click_input", args(control, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    let opened = eventually("true", || async {
        let windows = b.list_windows().await.unwrap_or_default();
        windows.iter().any(|w| w.title == title).to_string()
    })
    .await;
    assert_eq!(opened, "true", "the window of {title} did not open");
}

/// The icons GTK 3's icon view places inside itself, as pyatspi reads them:
/// `(caption, x, y, showing)` of each selectable icon overlapping the
/// showing layered pane.
fn drawn_icons(d: &HeadlessDesktop) -> Vec<(String, i32, i32, bool)> {
    let code = in_app(
        "gtk3-icon-browser",
        r#"
    view = find(a, "layered pane")
    v = view.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    for i in view:
        s = i.getState()
        e = i.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        inside = e.x < v.x + v.width and v.x < e.x + e.width and e.y < v.y + v.height and v.y < e.y + e.height
        if s.contains(pyatspi.STATE_SELECTABLE) and e.width > 0 and inside:
            print("%s\t%d\t%d\t%s" % (i.queryText().getText(0, -1), e.x, e.y, s.contains(pyatspi.STATE_SHOWING)))
"#,
    );
    placed(d, &code)
        .into_iter()
        .map(|(caption, x, y, showing)| (caption, x, y, showing == "True"))
        .collect()
}

/// GTK 3's icon view works out its items' "showing" when it makes them:
/// after the view changes model (another category) every item drawn says
/// visible but not showing. Each is still listed, as a list item named by
/// its caption where it is drawn, and a click on one does what a person's
/// does (this view opens an icon on one click).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_icon_views_items_are_listed_by_caption_whatever_their_state_says() {
    let (d, b) = desktop_with("gtk3-icon-browser").await;
    let w = main_window(&b, "gtk3-icon-browser").await;
    let mut ctx = observe(&b, &w).await;
    let emotes = find(
        &ctx,
        |c| c.control_type == ControlType::ListItem && c.name == "Emotes",
        "the category Emotes",
    )
    .clone();
    let r = act(&b, &mut ctx, "click_input", args(&emotes, json!({}))).await;
    assert!(r.is_success(), "{r:?}");
    let mut drawn = Vec::new();
    for _ in 0..40 {
        drawn = drawn_icons(&d);
        if drawn.iter().any(|(c, ..)| c == "face-cool") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(drawn.len() >= 10, "{drawn:?}");
    let mut ctx = observe(&b, &w).await;
    for (caption, x, y, _) in &drawn {
        let item = find(
            &ctx,
            |c| c.control_type == ControlType::ListItem && &c.name == caption,
            caption,
        );
        let rect = item.rect;
        assert_eq!((rect.x, rect.y), (*x, *y), "{caption} is listed elsewhere");
    }
    let cool = find(&ctx, |c| c.name == "face-cool", "face-cool").clone();
    click_opens_window(&b, &mut ctx, &cool, "face-cool").await;
    // Back in the view, the arrow key moves the focus to the next icon:
    // the kept capture re-reads the two whose states changed, alone, and
    // both stay listed.
    let _ = Proc::new("xdotool")
        .args(["key", "Escape"])
        .envs(ufo_testkit::desktop_env(&d))
        .status();
    let mut ctx = observe(&b, &w).await;
    let r = act(&b, &mut ctx, "keyboard_input", json!({"keys": "{RIGHT}"})).await;
    assert!(r.is_success(), "{r:?}");
    let ctx = observe(&b, &w).await;
    for name in ["face-cool", "face-crying"] {
        find(
            &ctx,
            |c| c.control_type == ControlType::ListItem && c.name == name,
            &format!("{name} after its states changed"),
        );
    }
    d.stop().ok();
}

/// The cells GTK 4's grid view draws, as pyatspi reads them: `(the label
/// each shows, x, y)`.
fn grid_cells(d: &HeadlessDesktop) -> Vec<(String, i32, i32)> {
    let code = in_app(
        "gtk4-icon-browser",
        r#"
    grid = find(a, "table")
    for cell in grid:
        e = cell.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        label = find(cell, "label")
        if label is not None and e.width > 0:
            print("%s\t%d\t%d" % (label.name, e.x, e.y))
"#,
    );
    placed(d, &code)
        .into_iter()
        .map(|(text, x, y, _)| (text, x, y))
        .collect()
}

/// GTK 4's grid view names every cell "GtkListItemWidget" and shows its
/// text in a label two levels down, an icon name that looks like a widget
/// id ("audio-volume-high"). Each cell is listed by that text where it is
/// drawn; the menu button labelled by its own wrapper ("GtkMenuButton") is
/// never shown under a class name; a click on a cell opens it, as a
/// person's click does in this view.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gtk4_grid_lists_each_cell_by_the_text_it_shows() {
    let (d, b) = desktop_with("gtk4-icon-browser").await;
    let w = main_window(&b, "gtk4-icon-browser").await;
    let mut cells = Vec::new();
    for _ in 0..40 {
        cells = grid_cells(&d);
        if cells.len() >= 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(cells.len() >= 4, "{cells:?}");
    let mut ctx = observe(&b, &w).await;
    for (text, x, y) in &cells {
        let cell = find(
            &ctx,
            |c| c.control_type == ControlType::DataItem && &c.name == text,
            text,
        );
        assert_eq!(
            (cell.rect.x, cell.rect.y),
            (*x, *y),
            "{text} is listed elsewhere"
        );
    }
    assert!(
        !ctx.controls.iter().any(|c| c.name.starts_with("Gtk")),
        "a class name is shown: {:?}",
        ctx.controls.iter().map(|c| &c.name).collect::<Vec<_>>()
    );
    let (second, ..) = cells[1].clone();
    let cell = find(&ctx, |c| c.name == second, &second).clone();
    click_opens_window(&b, &mut ctx, &cell, &second).await;
    d.stop().ok();
}

/// A GTK 3 tree view with column headers and more rows than fit (zenity's
/// list, 80 rows of two columns): every column's cells on screen are listed
/// by the text they show, as many as pyatspi finds showing. Its first column
/// was lost (the top-left corner hit the header, and the rows read instead
/// were probed right of it), and 60 or more cells named by their text were
/// all taken for empty ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tree_views_columns_are_all_listed_under_its_headers() {
    let d = ufo_testkit::start_desktop("treeview").await;
    let mut argv: Vec<String> = [
        "zenity",
        "--list",
        "--height=1000",
        "--width=500",
        "--column=Name",
        "--column=Size",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    for i in 1..=80 {
        argv.push(format!("file{i}.txt"));
        argv.push(format!("{}KB", i * 3));
    }
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    ufo_testkit::launch(&d, &argv).await;
    let b = ufo_desktop_atspi::AtspiBackend::connect(
        &ufo_desktop_atspi::DesktopTarget::from_private(&d),
    )
    .await
    .unwrap();
    let w = main_window(&b, "zenity").await;
    let ctx = observe(&b, &w).await;
    let cells: Vec<&str> = ctx
        .controls
        .iter()
        .filter(|c| c.control_type == ControlType::DataItem)
        .map(|c| c.name.as_str())
        .collect();
    // The cells drawn inside the table's scrolled window, read independently
    // (GTK says every row is showing, scrolled out or not).
    let code = in_app(
        "zenity",
        r#"    t = find(a, "table")
    v = t.parent.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    n = 0
    for i in range(t.childCount):
        c = t.getChildAtIndex(i)
        if c is None or c.getRoleName() != "table cell": continue
        e = c.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        if v.y <= e.y + e.height // 2 < v.y + v.height: n += 1
    print(n)"#,
    );
    let showing: usize = pyatspi(&d, &code).trim().parse().unwrap();
    assert!(showing > 60, "{showing} cells on screen");
    assert!(cells.contains(&"file1.txt"), "{cells:?}");
    assert!(cells.contains(&"3KB"), "{cells:?}");
    assert!(
        cells.len() + 4 >= showing && cells.len() <= showing,
        "{} cells listed, {showing} on screen: {cells:?}",
        cells.len()
    );
    d.stop().ok();
}
