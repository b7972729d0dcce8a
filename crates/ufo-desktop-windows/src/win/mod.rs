//! The Windows implementation of `ufo_desktop::Backend`.

mod gdi;
mod input;
mod items;
mod menu;
mod msaa;
mod remote;
mod tree;
mod uia;
mod win32;
mod worker;

use crate::handle::WinHandle;
use async_trait::async_trait;
use std::time::Duration;
use ufo_core::{ElementHandle, Point, Screen, UiNode, UiTree, WindowInfo};
use ufo_desktop::keys::{KeyEvent, strokes};
use ufo_desktop::tools::Tool;
use ufo_desktop::{
    Backend, DesktopError, Launched, MouseButton, Result, Screenshot, ScreenshotTarget, TreeBudget,
};
use worker::{State, Worker};

/// How long one action may take before it is reported as a timeout.
const ACTION_BOUND: Duration = Duration::from_secs(5);
/// The pause between key strokes (the application's message queue drains).
const STROKE_PAUSE: Duration = Duration::from_millis(15);

/// `BM_CLICK`, `CB_SETCURSEL`, `LB_SETCURSEL`.
const BM_CLICK: u32 = 0x00F5;
const CB_SETCURSEL: u32 = 0x014E;
const LB_SETCURSEL: u32 = 0x0186;
/// `WM_COMMAND` and the selection-change notifications sent with it.
const WM_COMMAND: u32 = 0x0111;
const CBN_SELCHANGE: usize = 1;
const LBN_SELCHANGE: usize = 1;

/// Which layer reads trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// UI Automation when it is available, else Win32/MSAA.
    Auto,
    /// Win32/MSAA only.
    Win32,
}

/// The Windows backend (see the crate documentation).
pub struct WindowsBackend {
    worker: Worker,
    uia: bool,
}

fn unsupported(what: &str, handle: &ElementHandle) -> DesktopError {
    DesktopError::Unsupported {
        what: what.to_owned(),
        handle: handle.0.clone(),
    }
}

fn parse(handle: &ElementHandle) -> Result<WinHandle> {
    WinHandle::parse(handle).ok_or_else(|| DesktopError::StaleElement {
        handle: handle.0.clone(),
        detail: "not a handle of this Windows desktop; observe again".into(),
    })
}

fn stale_window(handle: &ElementHandle) -> DesktopError {
    DesktopError::StaleElement {
        handle: handle.0.clone(),
        detail: "the window is closed".into(),
    }
}

/// The UIA element of a handle from the worker's captures.
fn element<'s>(
    s: &'s State,
    handle: &ElementHandle,
) -> Result<&'s windows::Win32::UI::Accessibility::IUIAutomationElement> {
    s.elements
        .get(&handle.0)
        .ok_or_else(|| DesktopError::StaleElement {
            handle: handle.0.clone(),
            detail: "not among the elements of the last capture; observe again".into(),
        })
}

impl WindowsBackend {
    /// Starts the backend. `UFO_WINDOWS_LAYER=win32` in the environment
    /// (or `layer`) keeps to Win32/MSAA; otherwise UI Automation is used
    /// when it is available.
    pub async fn connect(layer: Layer) -> Result<Self> {
        let env_win32 = std::env::var("UFO_WINDOWS_LAYER")
            .is_ok_and(|v| v.trim().eq_ignore_ascii_case("win32"));
        let want_uia = layer == Layer::Auto && !env_win32;
        let worker = Worker::start(want_uia)?;
        let uia = worker.uia_available().await;
        Ok(Self { worker, uia })
    }

    async fn on<T: Send + 'static>(
        &self,
        what: &str,
        f: impl FnOnce(&mut State) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.worker.run(what, ACTION_BOUND, f).await?
    }

    /// Clicks a menu item where it is drawn (the way a person opens a
    /// menu; posting its command would leave an open menu's loop running).
    fn click_menu_item(
        hwnd: u64,
        hmenu: u64,
        position: u32,
        handle: &ElementHandle,
    ) -> Result<bool> {
        let r = menu::item_rect(hwnd, hmenu, position).ok_or_else(|| stale_window(handle))?;
        let h = win32::hwnd(hwnd);
        if win32::class_name(h) != "#32768" {
            win32::activate(h);
        }
        input::move_to(r.center())?;
        input::button(MouseButton::Left, true)?;
        input::button(MouseButton::Left, false)?;
        Ok(true)
    }
}

fn window_action(h: u64, name: &str, handle: &ElementHandle) -> Result<bool> {
    let w = win32::hwnd(h);
    if !win32::exists(w) {
        return Err(stale_window(handle));
    }
    if !matches!(name, "click" | "press" | "toggle" | "invoke") {
        return Ok(false);
    }
    let class = win32::class_name(w);
    if class.eq_ignore_ascii_case("button") {
        // Posted: a button that opens a modal dialog answers only when the
        // dialog closes.
        return Ok(win32::post(w, BM_CLICK, 0, 0));
    }
    Ok(msaa::do_default_action(w))
}

fn edit_window(h: u64, handle: &ElementHandle) -> Result<windows::Win32::Foundation::HWND> {
    let w = win32::hwnd(h);
    if !win32::exists(w) {
        return Err(stale_window(handle));
    }
    if crate::kinds::text_is_content(&win32::class_name(w)) {
        Ok(w)
    } else {
        Err(unsupported("editing text", handle))
    }
}

/// An action on an item a control draws: `click` and `select` select a
/// list row or tree item (a toolbar button is clicked where it is drawn:
/// `Ok(false)`), `expand`/`collapse` open or close a tree item.
fn item_action(h: u64, id: u64, action: &str, handle: &ElementHandle) -> Result<bool> {
    let w = win32::hwnd(h);
    if !win32::exists(w) {
        return Err(stale_window(handle));
    }
    Ok(match action {
        "click" | "select" => items::select(w, id),
        "expand" => items::expand(w, id, true),
        "collapse" => items::expand(w, id, false),
        _ => false,
    })
}

/// Selects an item a control draws, or an MSAA simple element.
fn select_item(h: &WinHandle, handle: &ElementHandle) -> Result<()> {
    let w = win32::hwnd(h.hwnd());
    if !win32::exists(w) {
        return Err(stale_window(handle));
    }
    let done = match h {
        WinHandle::Item { id, .. } => items::select(w, *id),
        WinHandle::Msaa { child, .. } => msaa::child_action(w, *child, true),
        _ => false,
    };
    if done {
        Ok(())
    } else {
        Err(DesktopError::backend(format!(
            "the control did not select {}",
            handle.0
        )))
    }
}

#[async_trait]
impl Backend for WindowsBackend {
    fn name(&self) -> &'static str {
        if self.uia { "uia" } else { "win32" }
    }

    async fn list_windows(&self) -> Result<Vec<WindowInfo>> {
        self.on("listing windows", |_| {
            let fg = win32::foreground();
            Ok(win32::top_levels()
                .into_iter()
                .filter_map(|h| win32::window_info(h, fg))
                .collect())
        })
        .await
    }

    async fn capture_tree(&self, window: &WindowInfo, budget: &TreeBudget) -> Result<UiTree> {
        let (w, b) = (window.clone(), *budget);
        let bound = budget.deadline + Duration::from_secs(5);
        self.worker
            .run("capturing a window", bound, move |s| match &s.uia {
                Some(u) => u.capture(&w, &b, &mut s.elements),
                None => tree::capture(&w, &b),
            })
            .await?
    }

    async fn refresh_node(&self, handle: &ElementHandle, max_text_chars: usize) -> Result<UiNode> {
        let (h, handle) = (parse(handle)?, handle.clone());
        self.on("reading an element", move |s| match h {
            WinHandle::Window(n) => tree::refresh_window(win32::hwnd(n), max_text_chars),
            WinHandle::MenuItem { hwnd, position, .. } => {
                let w = win32::hwnd(hwnd);
                let bar = win32::class_name(w) != "#32768";
                let (_, items) = menu::items(w, bar).ok_or_else(|| stale_window(&handle))?;
                let it = items
                    .into_iter()
                    .find(|i| matches!(i.handle, WinHandle::MenuItem { position: p, .. } if p == position))
                    .ok_or_else(|| stale_window(&handle))?;
                Ok(it.record.to_node(handle.clone(), 0, None, 0, max_text_chars))
            }
            WinHandle::Item { hwnd, id } => {
                tree::refresh_item(win32::hwnd(hwnd), id, &handle, max_text_chars)
            }
            WinHandle::Msaa { hwnd, child } => {
                tree::refresh_msaa(win32::hwnd(hwnd), child, &handle, max_text_chars)
            }
            WinHandle::Uia { .. } => {
                let e = element(s, &handle)?.clone();
                let u = s.uia.as_ref().ok_or_else(|| stale_window(&handle))?;
                u.refresh(&e, &handle.0, max_text_chars)
            }
        })
        .await
    }

    async fn screenshot(&self, target: &ScreenshotTarget) -> Result<Screenshot> {
        let target = target.clone();
        self.on("taking a screenshot", move |_| {
            let area = match target {
                ScreenshotTarget::Desktop => gdi::virtual_screen(),
                ScreenshotTarget::Region(r) => r,
                ScreenshotTarget::Window(w) => w
                    .native_id
                    .and_then(|n| win32::rect(win32::hwnd(n)))
                    .or(w.rect)
                    .ok_or_else(|| stale_window(&w.handle))?,
            };
            gdi::capture(area)
        })
        .await
    }

    async fn do_action(&self, handle: &ElementHandle, action: &str) -> Result<bool> {
        let (h, handle, action) = (parse(handle)?, handle.clone(), action.to_owned());
        self.on("performing an action", move |s| match h {
            WinHandle::Window(n) => window_action(n, &action, &handle),
            WinHandle::MenuItem {
                hwnd,
                hmenu,
                position,
            } => Self::click_menu_item(hwnd, hmenu, position, &handle),
            WinHandle::Item { hwnd, id } => item_action(hwnd, id, &action, &handle),
            WinHandle::Msaa { hwnd, child } => {
                let w = win32::hwnd(hwnd);
                if !win32::exists(w) {
                    return Err(stale_window(&handle));
                }
                Ok(msaa::child_action(w, child, action == "select"))
            }
            WinHandle::Uia { .. } => uia::action(element(s, &handle)?, &handle.0, &action),
        })
        .await
    }

    async fn set_text(&self, handle: &ElementHandle, text: &str) -> Result<()> {
        let (h, handle, text) = (parse(handle)?, handle.clone(), text.to_owned());
        self.on("setting text", move |s| match h {
            WinHandle::Window(n) => {
                let w = edit_window(n, &handle)?;
                if win32::set_text(w, &text) {
                    Ok(())
                } else {
                    Err(DesktopError::backend("the control refused WM_SETTEXT"))
                }
            }
            WinHandle::Uia { .. } => uia::set_value_text(element(s, &handle)?, &handle.0, &text),
            WinHandle::MenuItem { .. } | WinHandle::Item { .. } | WinHandle::Msaa { .. } => {
                Err(unsupported("setting text", &handle))
            }
        })
        .await
    }

    async fn insert_text(
        &self,
        handle: &ElementHandle,
        offset: Option<i32>,
        text: &str,
    ) -> Result<()> {
        let (h, handle, text) = (parse(handle)?, handle.clone(), text.to_owned());
        self.on("inserting text", move |s| {
            let splice = |old: String| -> String {
                let at = offset
                    .and_then(|o| usize::try_from(o).ok())
                    .map_or(old.chars().count(), |o| o.min(old.chars().count()));
                let byte = old.char_indices().nth(at).map_or(old.len(), |(i, _)| i);
                format!("{}{}{}", &old[..byte], text, &old[byte..])
            };
            match h {
                WinHandle::Window(n) => {
                    let w = edit_window(n, &handle)?;
                    let new = splice(win32::text(w, 1 << 24));
                    if win32::set_text(w, &new) {
                        Ok(())
                    } else {
                        Err(DesktopError::backend("the control refused WM_SETTEXT"))
                    }
                }
                WinHandle::Uia { .. } => {
                    let e = element(s, &handle)?;
                    let old = uia::read_text(e, &handle.0)?;
                    uia::set_value_text(e, &handle.0, &splice(old))
                }
                WinHandle::MenuItem { .. } | WinHandle::Item { .. } | WinHandle::Msaa { .. } => {
                    Err(unsupported("inserting text", &handle))
                }
            }
        })
        .await
    }

    async fn control_identity(&self, handle: &ElementHandle) -> Result<ufo_desktop::Identity> {
        let (h, handle) = (parse(handle)?, handle.clone());
        self.on("reading an element's class", move |s| match h {
            WinHandle::Window(n) => {
                let w = win32::hwnd(n);
                if !win32::exists(w) {
                    return Err(stale_window(&handle));
                }
                // UI Automation's AutomationId of a Win32 control: its id.
                let id = match win32::control_id(w) {
                    0 => String::new(),
                    id => id.to_string(),
                };
                Ok(ufo_desktop::Identity::of(win32::class_name(w), id))
            }
            WinHandle::Uia { .. } => Ok(uia::identity(element(s, &handle)?)),
            WinHandle::MenuItem { .. } | WinHandle::Item { .. } | WinHandle::Msaa { .. } => {
                Ok(ufo_desktop::Identity::default())
            }
        })
        .await
    }

    async fn read_text(&self, handle: &ElementHandle) -> Result<String> {
        let (h, handle) = (parse(handle)?, handle.clone());
        self.on("reading text", move |s| match h {
            WinHandle::Window(n) => {
                let w = win32::hwnd(n);
                if !win32::exists(w) {
                    return Err(stale_window(&handle));
                }
                Ok(win32::text(w, 1 << 24))
            }
            WinHandle::MenuItem { .. } => Ok(String::new()),
            WinHandle::Item { hwnd, id } => {
                tree::refresh_item(win32::hwnd(hwnd), id, &handle, 1 << 16).map(|n| n.name)
            }
            WinHandle::Msaa { hwnd, child } => {
                tree::refresh_msaa(win32::hwnd(hwnd), child, &handle, 1 << 16)
                    .map(|n| n.value.unwrap_or(n.name))
            }
            WinHandle::Uia { .. } => uia::read_text(element(s, &handle)?, &handle.0),
        })
        .await
    }

    async fn set_value(&self, handle: &ElementHandle, value: f64) -> Result<()> {
        let (h, handle) = (parse(handle)?, handle.clone());
        self.on("setting a value", move |s| match h {
            WinHandle::Uia { .. } => uia::set_range(element(s, &handle)?, &handle.0, value),
            _ => Err(unsupported("setting a numeric value", &handle)),
        })
        .await
    }

    async fn select_child(&self, handle: &ElementHandle, index: usize) -> Result<()> {
        let (h, handle) = (parse(handle)?, handle.clone());
        self.on("selecting an item", move |s| match h {
            WinHandle::Window(n) => {
                let w = win32::hwnd(n);
                let class = win32::class_name(w).to_ascii_lowercase();
                // Items with their own handles, selected as a click does
                // (a tab through `TCM_SETCURFOCUS`: its page is shown).
                if matches!(
                    class.as_str(),
                    "syslistview32" | "systreeview32" | "systabcontrol32"
                ) {
                    let id = items::nth(w, index).ok_or_else(|| DesktopError::BadArguments {
                        tool: "select".into(),
                        detail: format!("the container has no item {index}"),
                    })?;
                    return select_item(&WinHandle::Item { hwnd: n, id }, &handle);
                }
                let (msg, notify) = match class.as_str() {
                    "combobox" => (CB_SETCURSEL, CBN_SELCHANGE),
                    "listbox" => (LB_SETCURSEL, LBN_SELCHANGE),
                    _ => return Err(unsupported("selecting a child", &handle)),
                };
                match win32::send(w, msg, index, 0) {
                    Some(-1) | None => Err(DesktopError::BadArguments {
                        tool: "select".into(),
                        detail: format!("the container has no item {index}"),
                    }),
                    Some(_) => {
                        // The owner hears of the change as if the user made it.
                        if let Ok(parent) = unsafe_parent(w) {
                            let id = win32::control_id(w) as u16 as usize;
                            win32::post(parent, WM_COMMAND, (notify << 16) | id, w.0 as isize);
                        }
                        Ok(())
                    }
                }
            }
            WinHandle::Uia { .. } => {
                let u = s.uia.as_ref().ok_or_else(|| stale_window(&handle))?;
                let child = u.child(element(s, &handle)?, index)?;
                uia::select(&child, &handle.0)
            }
            WinHandle::MenuItem { .. } | WinHandle::Item { .. } | WinHandle::Msaa { .. } => {
                Err(unsupported("selecting a child", &handle))
            }
        })
        .await
    }

    async fn select_element(&self, handle: &ElementHandle) -> Result<()> {
        let (h, handle) = (parse(handle)?, handle.clone());
        self.on("selecting an element", move |s| match h {
            WinHandle::Uia { .. } => uia::select(element(s, &handle)?, &handle.0),
            WinHandle::Item { .. } | WinHandle::Msaa { .. } => select_item(&h, &handle),
            _ => Err(unsupported(
                "selecting an element through its container",
                &handle,
            )),
        })
        .await
    }

    async fn focus_element(&self, handle: &ElementHandle) -> Result<()> {
        let (h, handle) = (parse(handle)?, handle.clone());
        self.on("focusing an element", move |s| match h {
            WinHandle::Window(n) => {
                let w = win32::hwnd(n);
                if !win32::exists(w) {
                    return Err(stale_window(&handle));
                }
                win32::activate(root_of(w));
                if win32::focus_child(w) {
                    Ok(())
                } else {
                    Err(DesktopError::backend("the control did not take the focus"))
                }
            }
            WinHandle::Uia { .. } => uia::focus(element(s, &handle)?, &handle.0),
            WinHandle::Item { hwnd, .. } | WinHandle::Msaa { hwnd, .. } => {
                // The control takes the focus and the item the selection
                // (what a list's focus is on).
                let w = win32::hwnd(hwnd);
                if !win32::exists(w) {
                    return Err(stale_window(&handle));
                }
                win32::activate(root_of(w));
                win32::focus_child(w);
                select_item(&h, &handle)
            }
            WinHandle::MenuItem { .. } => Err(unsupported("focusing a menu item", &handle)),
        })
        .await
    }

    async fn activate_window(&self, window: &WindowInfo) -> Result<()> {
        let w = window.clone();
        self.on("raising a window", move |_| {
            let h = w
                .native_id
                .map(win32::hwnd)
                .filter(|h| win32::exists(*h))
                .ok_or_else(|| stale_window(&w.handle))?;
            if win32::activate(h) {
                Ok(())
            } else {
                Err(DesktopError::backend(format!(
                    "Windows did not bring {:?} to the foreground",
                    w.title
                )))
            }
        })
        .await
    }

    async fn click_at(
        &self,
        point: Point<Screen>,
        button: MouseButton,
        double: bool,
    ) -> Result<()> {
        self.on("clicking", move |_| {
            input::move_to(point)?;
            for _ in 0..if double { 2 } else { 1 } {
                input::button(button, true)?;
                input::button(button, false)?;
            }
            Ok(())
        })
        .await
    }

    async fn drag(
        &self,
        from: Point<Screen>,
        to: Point<Screen>,
        button: MouseButton,
        duration: Duration,
    ) -> Result<()> {
        self.on("pressing", move |_| {
            input::move_to(from)?;
            input::button(button, true)
        })
        .await?;
        let steps = 10;
        for i in 1..=steps {
            tokio::time::sleep(duration / steps).await;
            let p = Point::new(
                from.x + (to.x - from.x) * i as i32 / steps as i32,
                from.y + (to.y - from.y) * i as i32 / steps as i32,
            );
            self.on("dragging", move |_| input::move_to(p)).await?;
        }
        self.on("releasing", move |_| input::button(button, false))
            .await
    }

    async fn move_pointer(&self, point: Point<Screen>) -> Result<()> {
        self.on("moving the pointer", move |_| input::move_to(point))
            .await
    }

    async fn scroll_at(&self, point: Point<Screen>, clicks: i32) -> Result<()> {
        self.on("scrolling", move |_| {
            input::move_to(point)?;
            input::wheel(clicks)
        })
        .await
    }

    async fn send_keys(&self, events: &[KeyEvent]) -> Result<()> {
        let mut held = Vec::new();
        for (i, stroke) in strokes(events).into_iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(STROKE_PAUSE).await;
            }
            let (stroke, mut h) = (stroke.to_vec(), std::mem::take(&mut held));
            held = self
                .on("typing", move |_| input::keys(&stroke, &mut h).map(|()| h))
                .await?;
        }
        Ok(())
    }

    async fn launch_app(&self, argv: &[String], timeout: Duration) -> Result<Launched> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| DesktopError::BadArguments {
                tool: Tool::RunShell.name().to_owned(),
                detail: "no program to start".into(),
            })?;
        let child = std::process::Command::new(program)
            .args(args)
            .spawn()
            .map_err(|e| DesktopError::backend_by(format!("cannot start {program:?}"), e))?;
        let pid = child.id();
        let started = std::time::Instant::now();
        while started.elapsed() < timeout {
            if let Some(w) = self
                .list_windows()
                .await?
                .into_iter()
                .find(|w| w.pid == Some(pid))
            {
                return Ok(Launched {
                    app_name: w.app_name,
                    pid,
                });
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err(DesktopError::Timeout {
            what: format!("waiting for a window of {program:?}"),
            millis: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
        })
    }
}

/// The top-level window holding `h`.
fn root_of(h: windows::Win32::Foundation::HWND) -> windows::Win32::Foundation::HWND {
    #[allow(unsafe_code)]
    // SAFETY: any value is accepted; a null result keeps `h`.
    let r = unsafe {
        windows::Win32::UI::WindowsAndMessaging::GetAncestor(
            h,
            windows::Win32::UI::WindowsAndMessaging::GA_ROOT,
        )
    };
    if r.is_invalid() { h } else { r }
}

/// The parent window of `h`.
fn unsafe_parent(h: windows::Win32::Foundation::HWND) -> Result<windows::Win32::Foundation::HWND> {
    #[allow(unsafe_code)]
    // SAFETY: any value is accepted.
    unsafe { windows::Win32::UI::WindowsAndMessaging::GetParent(h) }
        .map_err(|e| DesktopError::backend_by("cannot read the parent window", e))
}
