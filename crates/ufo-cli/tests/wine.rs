//! The Windows build under Wine: `ufo.exe` (cross-built for
//! x86_64-pc-windows-gnu) lists and drives Wine's notepad, regedit,
//! winefile and Task Manager through the Win32/MSAA layer, and registers
//! as a device of a Linux `ufo serve`, whose AppAgent types into notepad
//! through it.
//!
//! Needs `wine64` and `x86_64-w64-mingw32-gcc` (the test builds the small
//! `bcryptprimitives.dll` Rust programs import and Wine 8 lacks) and the
//! Windows build at `target/x86_64-pc-windows-gnu/debug/ufo.exe`
//! (`cargo build --target x86_64-pc-windows-gnu -p ufo-cli`; under an
//! absolute `CARGO_TARGET_DIR` when that is set; or set
//! `UFO_WINDOWS_EXE`). Wine runs on the test's private headless desktop,
//! with its own prefix in a temporary directory; its wineserver is ended
//! with the test.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use ufo_testkit::scripted::{Reply, ScriptedModel, fixed, reply};
use ufo_testkit::{desktop_env, start_desktop};

const KEY: &str = "wine-test-key-0123456789";
const WINE: &str = "/usr/lib/wine/wine64";

/// A `ProcessPrng` over `RtlGenRandom`: what Rust's std imports from
/// `bcryptprimitives.dll` (Windows 10+), which Wine 8 does not have.
const SHIM: &str = r#"#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID, ULONG);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!SystemFunction036(data, n)) return FALSE;
        data += n; len -= n;
    }
    return TRUE;
}
"#;

/// A child process killed when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A private Wine prefix on a private display; its wineserver (and every
/// Wine process of the prefix) is ended on drop.
struct Wine {
    dir: tempfile::TempDir,
    env: Vec<(String, String)>,
}

impl Wine {
    fn new(desktop_env: &[(String, String)]) -> Wine {
        assert!(
            Path::new(WINE).exists(),
            "{WINE} is missing: apt-get install wine64"
        );
        let dir = tempfile::tempdir().unwrap();
        // The display, not the desktop's name: Windows programs have no
        // private desktops (`--desktop`/UFO_DESKTOP is refused there).
        let mut env: Vec<(String, String)> = desktop_env
            .iter()
            .filter(|(k, _)| !k.starts_with("UFO_"))
            .cloned()
            .collect();
        env.push((
            "WINEPREFIX".into(),
            dir.path().join("prefix").display().to_string(),
        ));
        env.push(("WINEDEBUG".into(), "-all".into()));
        // No Mono/Gecko installer dialogs.
        env.push(("WINEDLLOVERRIDES".into(), "mscoree,mshtml=".into()));
        std::fs::create_dir_all(dir.path().join("prefix")).unwrap();
        let w = Wine { dir, env };
        // Wine's own processes (wineserver, services, explorer) outlive the
        // command that started them and would hold its pipes open: the
        // server is started first, and every command writes to files.
        let server = Command::new("/usr/lib/wine/wineserver")
            .arg("-p")
            .envs(w.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(server.success(), "wineserver did not start");
        let boot = w.run(w.cmd(&["wineboot", "-i"]));
        assert!(
            boot.status.success(),
            "wineboot: {}",
            String::from_utf8_lossy(&boot.stderr)
        );
        let c = w.dir.path().join("shim.c");
        std::fs::write(&c, SHIM).unwrap();
        let dll = w
            .dir
            .path()
            .join("prefix/drive_c/windows/system32/bcryptprimitives.dll");
        let cc = Command::new("x86_64-w64-mingw32-gcc")
            .args(["-shared", "-O2", "-o"])
            .arg(&dll)
            .arg(&c)
            .arg("-ladvapi32")
            .output()
            .expect("x86_64-w64-mingw32-gcc is missing: apt-get install mingw-w64");
        assert!(
            cc.status.success(),
            "{}",
            String::from_utf8_lossy(&cc.stderr)
        );
        w
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(WINE);
        // Nothing of the shell's ufo setup: a Linux desktop's name makes
        // ufo.exe refuse to start (Windows has no private desktops).
        c.args(args)
            .env_remove("DISPLAY")
            .env_remove("UFO_DESKTOP")
            .env_remove("UFO_CONFIG")
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null());
        c
    }

    /// Runs `cmd` to its end with its output in files (a pipe would stay
    /// open as long as any Wine process it started).
    fn run(&self, mut cmd: Command) -> Output {
        let out = tempfile::NamedTempFile::new_in(self.dir.path()).unwrap();
        let err = tempfile::NamedTempFile::new_in(self.dir.path()).unwrap();
        let status = cmd
            .stdout(out.reopen().unwrap())
            .stderr(err.reopen().unwrap())
            .status()
            .unwrap();
        Output {
            status,
            stdout: std::fs::read(out.path()).unwrap(),
            stderr: std::fs::read(err.path()).unwrap(),
        }
    }

    /// `ufo.exe` with `args`.
    fn ufo(&self, args: &[&str]) -> Command {
        let mut c = self.cmd(&[]);
        c.arg(ufo_exe())
            .args(args)
            .env_remove("UFO_CONFIG")
            .env("UFO_API_KEY", KEY)
            .env("UFO_LOG", "warn");
        c
    }

    /// Runs `ufo.exe act` on notepad and returns its JSON result.
    fn act(&self, tool: &str, args: Value) -> Value {
        self.act_on("notepad", tool, args)
    }

    /// Runs `ufo.exe act` on `app` and returns its JSON result.
    fn act_on(&self, app: &str, tool: &str, args: Value) -> Value {
        let out = self.run(self.ufo(&["act", "--app", app, tool, "--args", &args.to_string()]));
        json_of(&out)
    }
}

impl Drop for Wine {
    fn drop(&mut self) {
        let _ = Command::new("/usr/lib/wine/wineserver")
            .arg("-k")
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .status();
        let _ = Command::new("/usr/lib/wine/wineserver")
            .arg("-w")
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .status();
    }
}

fn ufo_exe() -> PathBuf {
    // The build's own target directory when cargo was told another one.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let p = std::env::var_os("UFO_WINDOWS_EXE")
        .map(PathBuf::from)
        .unwrap_or_else(|| target.join("x86_64-pc-windows-gnu/debug/ufo.exe"));
    assert!(
        p.exists(),
        "{} is missing: cargo build --target x86_64-pc-windows-gnu -p ufo-cli",
        p.display()
    );
    p
}

fn json_of(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {text}\nexit: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Waits until `check` holds (at most `secs`), panicking with `what`.
fn eventually<T>(secs: u64, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(start.elapsed() < Duration::from_secs(secs), "{what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The windows `ufo.exe windows --json` lists. A run that printed nothing
/// at all (under load, Wine now and then ends a process before it writes,
/// status and stderr empty) is run again, up to three times; anything it
/// did print must be the JSON list.
fn windows(wine: &Wine) -> Vec<Value> {
    let mut out = wine.run(wine.ufo(&["windows", "--json"]));
    for _ in 0..3 {
        if !out.stdout.is_empty() || !out.stderr.is_empty() {
            break;
        }
        eprintln!("ufo.exe windows printed nothing ({}); again", out.status);
        std::thread::sleep(Duration::from_millis(500));
        out = wine.run(wine.ufo(&["windows", "--json"]));
    }
    json_of(&out).as_array().cloned().unwrap_or_default()
}

/// The windows listed, or none while `ufo.exe windows` fails (an
/// application still starting).
fn windows_or_none(wine: &Wine) -> Vec<Value> {
    let out = wine.run(wine.ufo(&["windows", "--json"]));
    serde_json::from_slice::<Value>(&out.stdout)
        .ok()
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
}

/// The labelled controls of notepad (or its open dialog).
fn controls(wine: &Wine) -> Vec<Value> {
    controls_of(wine, "notepad")
}

/// The labelled controls of `app` (what the agent is shown).
fn controls_of(wine: &Wine, app: &str) -> Vec<Value> {
    // None while the application is still starting (no window to inspect
    // yet: the callers look again); what ufo.exe said is shown.
    let out = wine.run(wine.ufo(&["inspect", "--app", app, "--json"]));
    match serde_json::from_slice::<Value>(&out.stdout) {
        Ok(v) => v.as_array().cloned().unwrap_or_default(),
        Err(_) => {
            eprintln!("inspect {app}: {}", String::from_utf8_lossy(&out.stderr));
            Vec::new()
        }
    }
}

/// Every node of `app`'s window tree.
fn nodes_of(wine: &Wine, app: &str) -> Vec<Value> {
    let out = wine.run(wine.ufo(&["inspect", "--app", app, "--all", "--json"]));
    json_of(&out)["nodes"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn has_state(c: &Value, state: &str) -> bool {
    c["states"]
        .as_array()
        .is_some_and(|s| s.iter().any(|x| x == state))
}

/// `click_input` arguments for the control `c`.
fn click(c: &Value, double: bool) -> Value {
    json!({"id": c["id"].as_u64().unwrap().to_string(), "name": c["name"], "double": double})
}

fn find<'a>(controls: &'a [Value], ty: &str, name: &str) -> Option<&'a Value> {
    controls
        .iter()
        .find(|c| c["type"] == ty && (name.is_empty() || c["name"] == name))
}

fn start_notepad(wine: &Wine) -> Proc {
    start_app(wine, "notepad")
}

/// Starts one of Wine's programs (in the prefix's directory, Z:\ to it)
/// and waits for its window.
fn start_app(wine: &Wine, program: &str) -> Proc {
    let p = Proc(
        wine.cmd(&[program])
            .current_dir(wine.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    eventually(60, &format!("{program} never showed a window"), || {
        windows_or_none(wine)
            .into_iter()
            .find(|w| w["app_name"] == program)
    });
    p
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_win32_layer_lists_types_into_and_reads_back_notepad_and_cancels_a_dialog() {
    let desktop = start_desktop("wine-notepad").await;
    let wine = Wine::new(&desktop_env(&desktop));
    let _notepad = start_notepad(&wine);

    let c = controls(&wine);
    let edit = find(&c, "Edit", "").unwrap_or_else(|| panic!("no Edit in {c:#?}"));

    // Keys typed by SendInput, read back through WM_GETTEXT.
    let id = edit["id"].as_u64().unwrap().to_string();
    let name = edit["name"].as_str().unwrap().to_owned();
    let typed = wine.act(
        "keyboard_input",
        json!({"id": id, "name": name, "keys": "Hello from ufo{ENTER}second line", "control_focus": true}),
    );
    assert_eq!(typed["status"], "success", "{typed}");
    let read = wine.act("texts", json!({"id": id, "name": name}));
    assert_eq!(read["result"], "Hello from ufo\r\nsecond line", "{read}");

    // Ctrl+O opens Wine's Open dialog (Wine keeps a menu in its owner's
    // process, so another process reads no menu items there).
    let r = wine.act(
        "keyboard_input",
        json!({"id": id, "name": name, "keys": "^o"}),
    );
    assert_eq!(r["status"], "success", "{r}");
    let dialog = eventually(30, "no Open dialog appeared", || {
        windows(&wine)
            .into_iter()
            .find(|w| w["app_name"] == "notepad" && w["dialog"] == true)
    });
    assert_eq!(dialog["title"], "Open", "{dialog}");
    // The application is observed in its dialog: the labels, the fields and
    // the buttons of Wine's file dialog.
    let c = controls(&wine);
    for (ty, name) in [
        ("Text", "File name:"),
        // The field inside the file name combo box, named by its label.
        ("Edit", "File name"),
        ("Button", "Open"),
        ("Button", "Cancel"),
    ] {
        assert!(
            find(&c, ty, name).is_some(),
            "no {ty} {name:?} in the dialog: {c:#?}"
        );
    }
    let cancel = find(&c, "Button", "Cancel").unwrap();
    let r = wine.act(
        "click_input",
        json!({"id": cancel["id"].as_u64().unwrap().to_string(), "name": "Cancel"}),
    );
    assert_eq!(r["status"], "success", "{r}");
    eventually(30, "the dialog stayed open after Cancel", || {
        (!windows(&wine)
            .iter()
            .any(|w| w["app_name"] == "notepad" && w["dialog"] == true))
        .then_some(())
    });
    // The text is still there.
    let read = wine.act("texts", json!({"id": id, "name": name}));
    assert!(read.to_string().contains("Hello from ufo"), "{read}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regedit_tree_items_are_observed_and_clicking_one_selects_it_and_shows_its_values() {
    let desktop = start_desktop("wine-regedit").await;
    let wine = Wine::new(&desktop_env(&desktop));
    let _regedit = start_app(&wine, "regedit");

    // The keys are tree items (drawn by the tree view, no windows of their
    // own), read through the tree view's messages.
    let c = controls_of(&wine, "regedit");
    for key in ["My Computer", "HKEY_CURRENT_USER", "HKEY_LOCAL_MACHINE"] {
        assert!(
            find(&c, "TreeItem", key).is_some(),
            "no tree item {key:?} in regedit: {c:#?}"
        );
    }
    let hkcu = find(&c, "TreeItem", "HKEY_CURRENT_USER").unwrap().clone();
    assert!(!has_state(&hkcu, "selected"), "{hkcu}");
    assert!(has_state(&hkcu, "expandable"), "{hkcu}");
    assert!(find(&c, "ListItem", "(Default)").is_none(), "{c:#?}");

    // A click selects the key, as a person's would: regedit shows its
    // values in the list view (read through the list view's messages).
    let r = wine.act_on("regedit", "click_input", click(&hkcu, false));
    assert_eq!(r["status"], "success", "{r}");
    assert_eq!(r["result"]["selected"], true, "{r}");
    let c = eventually(30, "the key's values never showed", || {
        let c = controls_of(&wine, "regedit");
        find(&c, "ListItem", "(Default)").is_some().then_some(c)
    });
    let hkcu = find(&c, "TreeItem", "HKEY_CURRENT_USER").unwrap().clone();
    assert!(has_state(&hkcu, "selected"), "{hkcu}");
    let root = find(&c, "TreeItem", "My Computer").unwrap();
    assert!(!has_state(root, "selected"), "{root}");

    // A double click opens it: its subkeys show below it.
    let r = wine.act_on("regedit", "click_input", click(&hkcu, true));
    assert_eq!(r["status"], "success", "{r}");
    eventually(30, "HKEY_CURRENT_USER never showed its subkeys", || {
        let nodes = nodes_of(&wine, "regedit");
        let at = nodes
            .iter()
            .find(|n| n["name"] == "HKEY_CURRENT_USER")?
            .get("index")?
            .clone();
        let software = nodes
            .iter()
            .find(|n| n["name"] == "Software" && n["control_type"] == "TreeItem")?;
        (software["parent"] == at).then_some(())
    });
    let c = controls_of(&wine, "regedit");
    let hkcu = find(&c, "TreeItem", "HKEY_CURRENT_USER").unwrap();
    assert!(has_state(hkcu, "expanded"), "{hkcu}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn winefile_drive_buttons_and_rows_are_observed_and_a_drive_button_opens_the_drive() {
    let desktop = start_desktop("wine-winefile").await;
    let wine = Wine::new(&desktop_env(&desktop));
    let _winefile = start_app(&wine, "winefile");

    // The drive bar's buttons (toolbar items) by name, and the rows of the
    // owner-drawn lists (which keep no text: unnamed, but there to click).
    let c = eventually(30, "winefile showed no drive buttons", || {
        let c = controls_of(&wine, "winefile");
        find(&c, "Button", "Z:\\").is_some().then_some(c)
    });
    assert!(find(&c, "Button", "C:\\").is_some(), "{c:#?}");
    let rows = c.iter().filter(|c| c["type"] == "ListItem").count();
    assert!(rows >= 2, "{c:#?}");
    let pane_c = |wine: &Wine| {
        nodes_of(wine, "winefile")
            .iter()
            .any(|n| n["name"] == "C:\\" && n["control_type"] == "Pane")
    };
    assert!(!pane_c(&wine), "winefile started on C:");

    // Clicking C:\ opens a window on the drive, with its folders as rows.
    let drive = find(&c, "Button", "C:\\").unwrap();
    let r = wine.act_on("winefile", "click_input", click(drive, false));
    assert_eq!(r["status"], "success", "{r}");
    eventually(30, "C:\\ never opened", || pane_c(&wine).then_some(()));
    let nodes = nodes_of(&wine, "winefile");
    let pane = nodes
        .iter()
        .position(|n| n["name"] == "C:\\" && n["control_type"] == "Pane")
        .unwrap();
    let below = |mut i: usize| loop {
        match nodes[i]["parent"].as_u64() {
            Some(p) if p as usize == pane => return true,
            Some(p) => i = p as usize,
            None => return false,
        }
    };
    let rows_of_c = (0..nodes.len())
        .filter(|i| nodes[*i]["control_type"] == "ListItem" && below(*i))
        .count();
    // C:\ holds at least "Program Files", "ProgramData", "users", "windows".
    assert!(rows_of_c >= 4, "{nodes:#?}");
}

/// `(x, y, width, height)` of a control, node or window.
fn rect_of(v: &Value) -> (i64, i64, i64, i64) {
    let r = &v["rect"];
    let n = |k: &str| r[k].as_i64().unwrap_or_else(|| panic!("no rect in {v}"));
    (n("x"), n("y"), n("width"), n("height"))
}

/// Each of Task Manager's Performance fields is named by the label on
/// its row: one field per label, at the label's height, to its right.
fn assert_fields_take_their_row_labels(c: &[Value]) {
    for label in [
        "Handles",
        "Threads",
        "Processes",
        "Limit",
        "Peak",
        "Available",
        "System Cache",
        "Paged",
        "Nonpaged",
    ] {
        let text = find(c, "Text", label).unwrap_or_else(|| panic!("no label {label:?}"));
        let edits: Vec<&Value> = c
            .iter()
            .filter(|e| e["type"] == "Edit" && e["name"] == label)
            .collect();
        assert_eq!(edits.len(), 1, "fields named {label:?}: {edits:#?}");
        let ((tx, ty, tw, _), (ex, ey, _, _)) = (rect_of(text), rect_of(edits[0]));
        assert!(
            (ey - ty).abs() <= 3 && ex >= tx + tw - 4,
            "{label:?} names a field off its row: {text} / {}",
            edits[0]
        );
    }
    // "Total" heads three groups: three fields.
    let totals = c
        .iter()
        .filter(|e| e["type"] == "Edit" && e["name"] == "Total")
        .count();
    assert_eq!(totals, 3, "{c:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_manager_tabs_are_observed_and_switch_pages_and_its_fields_take_their_row_labels() {
    let desktop = start_desktop("wine-taskmgr").await;
    let wine = Wine::new(&desktop_env(&desktop));
    let _taskmgr = start_app(&wine, "taskmgr");

    // The tabs (drawn by the tab control, no windows of their own) left to
    // right inside it; the first one's page is the one shown.
    let c = eventually(30, "Task Manager showed no tabs", || {
        let c = controls_of(&wine, "taskmgr");
        find(&c, "TabItem", "Performance").is_some().then_some(c)
    });
    let tabs: Vec<Value> = ["Applications", "Processes", "Performance"]
        .iter()
        .map(|n| {
            find(&c, "TabItem", n)
                .unwrap_or_else(|| panic!("no tab {n:?} in {c:#?}"))
                .clone()
        })
        .collect();
    let nodes = nodes_of(&wine, "taskmgr");
    let list = nodes.iter().find(|n| n["control_type"] == "Tab").unwrap();
    let (lx, ly, lw, lh) = rect_of(list);
    let mut right = lx;
    for t in &tabs {
        let (x, y, w, h) = rect_of(t);
        assert!(w > 0 && h > 0 && x >= right, "{t} after {right}");
        assert!(
            y >= ly && x + w <= lx + lw && y + h <= ly + lh,
            "{t} out of {list}"
        );
        right = x + w;
    }
    assert!(has_state(&tabs[0], "selected"), "{}", tabs[0]);
    assert!(!has_state(&tabs[2], "selected"), "{}", tabs[2]);
    assert!(find(&c, "Button", "New Task...").is_some(), "{c:#?}");
    assert!(find(&c, "Text", "Handles").is_none(), "{c:#?}");

    // Clicking Performance selects it: its page shows (its windows become
    // visible), the Applications page hides.
    let r = wine.act_on("taskmgr", "click_input", click(&tabs[2], false));
    assert_eq!(r["status"], "success", "{r}");
    let c = eventually(30, "the Performance page never showed", || {
        let c = controls_of(&wine, "taskmgr");
        (find(&c, "Text", "Handles").is_some() && find(&c, "Button", "New Task...").is_none())
            .then_some(c)
    });
    let tab = |c: &[Value], n: &str| find(c, "TabItem", n).unwrap().clone();
    assert!(has_state(&tab(&c, "Performance"), "selected"), "{c:#?}");
    assert!(!has_state(&tab(&c, "Applications"), "selected"), "{c:#?}");

    // Each read-only field is named by the label on its row (Wine's MSAA
    // names the three "Totals" fields all "Processes": the last static
    // before them in child order).
    assert_fields_take_their_row_labels(&c);
    // The field named "Processes" shows the count the status bar shows
    // (both refreshed together).
    eventually(
        30,
        "the Processes field never matched the status bar",
        || {
            let nodes = nodes_of(&wine, "taskmgr");
            let bar = nodes.iter().find(|n| n["control_type"] == "StatusBar")?;
            let count = bar["name"].as_str()?.strip_prefix("Processes: ")?.trim();
            let field = nodes
                .iter()
                .find(|n| n["control_type"] == "Edit" && n["name"] == "Processes")?;
            (field["value"].as_str()? == count).then_some(())
        },
    );

    // A pointer click in the middle of the Processes tab, where it is
    // listed, selects it: its page (list and check box) shows.
    let w = windows(&wine)
        .into_iter()
        .find(|w| w["app_name"] == "taskmgr")
        .unwrap();
    let (wx, wy, ww, wh) = rect_of(&w);
    let (x, y, tw, th) = rect_of(&tab(&c, "Processes"));
    let at = json!({
        "x": (x + tw / 2 - wx) as f64 / ww as f64,
        "y": (y + th / 2 - wy) as f64 / wh as f64,
    });
    let r = wine.act_on("taskmgr", "click_on_coordinates", at);
    assert_eq!(r["status"], "success", "{r}");
    let c = eventually(30, "the Processes page never showed", || {
        let c = controls_of(&wine, "taskmgr");
        find(&c, "CheckBox", "Show processes from all users")
            .is_some()
            .then_some(c)
    });
    assert!(has_state(&tab(&c, "Processes"), "selected"), "{c:#?}");
    assert!(find(&c, "Text", "Handles").is_none(), "{c:#?}");
}

fn ufo_linux() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ufo"));
    c.env_remove("UFO_CONFIG")
        .env("UFO_API_KEY", KEY)
        .env("UFO_LOG", "warn");
    c
}

fn serve(dir: &Path, model: &ScriptedModel) -> (Proc, String) {
    let cfg = dir.join("agents.yaml");
    let m = model.agent_yaml();
    std::fs::write(
        &cfg,
        format!("HOST_AGENT:\n{m}APP_AGENT:\n{m}MAX_STEP: 20\nSLEEP_TIME: 0\nEVA_SESSION: false\n"),
    )
    .unwrap();
    let mut child = ufo_linux()
        .args(["serve", "--port", "0", "--config"])
        .arg(&cfg)
        .arg("--log-dir")
        .arg(dir.join("logs"))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("ws://")
        .nth(1)
        .and_then(|s| s.split("/ws").next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned();
    (Proc(child), addr)
}

async fn api(addr: &str, path: &str) -> Value {
    reqwest::Client::new()
        .get(format!("http://{addr}{path}"))
        .header("X-API-Key", KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn host_assign() -> Reply {
    reply(|r| {
        let (id, name) = r
            .window("notepad")
            .unwrap_or_else(|| panic!("no notepad window in the host prompt:\n{}", r.text()));
        json!({"observation": "notepad is open", "thought": "assign", "current_subtask": "type the note",
               "message": [], "plan": [], "status": "ASSIGN", "function": "select_application_window",
               "arguments": {"id": id, "name": name}, "questions": [], "comment": "", "result": ""})
        .to_string()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_linux_server_types_into_notepad_through_the_windows_device() {
    let desktop = start_desktop("wine-device").await;
    let wine = Wine::new(&desktop_env(&desktop));
    let _notepad = start_notepad(&wine);
    let dir = tempfile::tempdir().unwrap();
    let model = ScriptedModel::start(vec![
        host_assign(),
        reply(|r| {
            let id = r
                .control_id_of_type("Edit")
                .unwrap_or_else(|| panic!("no Edit in the app prompt:\n{}", r.text()));
            json!({"observation": "an empty note", "thought": "type",
                   "action": {"function": "set_edit_text",
                              "arguments": {"id": id, "name": "", "text": "typed by a remote agent"},
                              "status": "CONTINUE"}})
            .to_string()
        }),
        fixed(json!({"observation": "done", "thought": "complete",
                     "action": {"function": "summary", "arguments": {"text": "typed"}, "status": "FINISH"},
                     "result": "typed"}).to_string()),
        fixed(json!({"observation": "done", "thought": "finished", "status": "FINISH", "result": "typed"}).to_string()),
    ])
    .await;
    let (_server, addr) = serve(dir.path(), &model);
    let _device = Proc(
        wine.ufo(&[
            "client",
            "--server",
            &format!("ws://{addr}/ws"),
            "--client-id",
            "win1",
        ])
        .spawn()
        .unwrap(),
    );
    let start = Instant::now();
    loop {
        let v = api(&addr, "/api/clients").await;
        if v["online_clients"]
            .as_array()
            .is_some_and(|a| a.iter().any(|c| c == "win1"))
        {
            assert_eq!(v["clients"][0]["platform"], "windows", "{v}");
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(90),
            "the Windows device never came online: {v}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let sent: Value = reqwest::Client::new()
        .post(format!("http://{addr}/api/dispatch"))
        .header("X-API-Key", KEY)
        .json(&json!({"client_id": "win1", "request": "type a note in notepad", "task_name": "note-1"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(sent["status"], "dispatched", "{sent}");
    let start = Instant::now();
    let result = loop {
        let v = api(&addr, "/api/task_result/note-1").await;
        if v["status"] == "done" {
            break v["result"].clone();
        }
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "the task never ended: {v}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let last = result.as_array().and_then(|a| a.last()).cloned().unwrap();
    assert_eq!(last["status"], "FINISH", "{result}");
    // The text is in notepad, read back through the Windows build.
    let c = controls(&wine);
    let edit = find(&c, "Edit", "").unwrap_or_else(|| panic!("no Edit in {c:#?}"));
    assert_eq!(edit["value"], "typed by a remote agent", "{edit}");
    assert_eq!(model.remaining(), 0);
}
