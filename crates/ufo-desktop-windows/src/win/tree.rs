//! The Win32/MSAA capture: a window's child windows (class, style, text),
//! its menu bar and open popup menus, enriched by MSAA where standard
//! controls answer it, and the items that controls draw themselves (list
//! rows, tree items, toolbar buttons, headers, MSAA's simple elements).

use super::items::{self, Scope};
use super::{menu, msaa, win32};
use crate::handle::WinHandle;
use crate::items::parents_from_levels;
use crate::kinds;
use crate::labels::label_fields;
use crate::record::{ElementRecord, Layer, Toggle};
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};
use ufo_core::{ElementHandle, UiNode, UiTree, WindowInfo};
use ufo_desktop::{DesktopError, Result, TreeBudget};
use windows::Win32::Foundation::HWND;

/// `BM_GETCHECK`.
const BM_GETCHECK: u32 = 0x00F0;

/// The longest one control's items may take to read.
const ITEMS_BOUND: Duration = Duration::from_secs(3);

/// Reads one window (top-level or child) into a record.
pub(crate) fn window_record(h: HWND, focus: Option<HWND>, max_text: usize) -> ElementRecord {
    window_read(h, focus, max_text).record
}

/// One window read.
struct WindowRead {
    record: ElementRecord,
    /// The number of children its MSAA client object has (child windows
    /// and simple elements).
    msaa_children: i32,
    /// A field whose name is MSAA's (which may be a label's that is not
    /// its own: checked by [`label_fields`]).
    msaa_named: bool,
}

/// Reads one window into a record.
fn window_read(h: HWND, focus: Option<HWND>, max_text: usize) -> WindowRead {
    let class = win32::class_name(h);
    let style = win32::style(h);
    let (t, _) = kinds::win32_class(&class, style);
    let content = kinds::text_is_content(&class);
    let text = win32::text(h, max_text.max(1) * 4);
    let info = msaa::client_info(h).unwrap_or_default();
    let msaa_children = info.children;
    let msaa_named = content && !info.name.is_empty() && info.name != text;
    let r = win32::rect(h);
    let mut rec = ElementRecord {
        layer: Layer::Win32,
        class_name: class.clone(),
        style: Some(style),
        msaa_role: info.role,
        msaa_state: info.state,
        default_action: info.default_action,
        // A field's MSAA name that is only its content (as Wine's generic
        // client object says) is no name: the label before it names it.
        name: match content {
            true if info.name == text => String::new(),
            true => info.name,
            false => text.clone(),
        },
        automation_id: win32::control_id(h).to_string(),
        rect: r.map(|r| [r.x, r.y, r.width, r.height]),
        enabled: win32::enabled(h),
        visible: win32::visible(h),
        focused: focus == Some(h),
        focusable: style & kinds::style::TABSTOP != 0 || content,
        password: style & kinds::style::ES_PASSWORD != 0 && class.eq_ignore_ascii_case("edit"),
        value: content.then_some(text),
        read_only: style & kinds::style::ES_READONLY != 0
            || (class.eq_ignore_ascii_case("combobox")
                && style & 0x3 == kinds::style::CBS_DROPDOWNLIST),
        ..Default::default()
    };
    if matches!(
        t,
        ufo_core::ControlType::CheckBox | ufo_core::ControlType::RadioButton
    ) {
        rec.toggle = match win32::send(h, BM_GETCHECK, 0, 0) {
            Some(1) => Some(Toggle::On),
            Some(2) => Some(Toggle::Indeterminate),
            _ => Some(Toggle::Off),
        };
    }
    WindowRead {
        record: rec,
        msaa_children,
        msaa_named,
    }
}

struct Builder {
    nodes: Vec<UiNode>,
    budget: TreeBudget,
    started: Instant,
    truncation: Option<String>,
    /// The nodes of fields MSAA named.
    msaa_named: Vec<usize>,
}

impl Builder {
    /// Adds a node; false (and the reason kept) when a budget is spent.
    fn push(
        &mut self,
        rec: &ElementRecord,
        h: &WinHandle,
        parent: Option<usize>,
        depth: u32,
    ) -> Option<usize> {
        if self.nodes.len() >= self.budget.max_nodes {
            self.truncation = Some(format!("max_nodes ({})", self.budget.max_nodes));
            return None;
        }
        if depth > self.budget.max_depth {
            self.truncation = Some(format!("max_depth ({})", self.budget.max_depth));
            return None;
        }
        if self.started.elapsed() > self.budget.deadline {
            self.truncation = Some(format!(
                "deadline ({} ms)",
                self.budget.deadline.as_millis()
            ));
            return None;
        }
        let index = self.nodes.len();
        let node = rec.to_node(h.encode(), index, parent, depth, self.budget.max_text_chars);
        if let Some(p) = parent.and_then(|p| self.nodes.get_mut(p)) {
            p.children.push(index);
        }
        self.nodes.push(node);
        Some(index)
    }

    /// Says why the tree is not whole (each reason once, in order).
    fn note(&mut self, why: String) {
        match &mut self.truncation {
            Some(t) if !t.contains(&why) => {
                t.push_str("; ");
                t.push_str(&why);
            }
            Some(_) => {}
            None => self.truncation = Some(why),
        }
    }

    /// Adds the items the window `h` (node `at`) draws itself: those of
    /// the controls whose messages read them, else MSAA's simple elements
    /// when its client object has more children than child windows.
    fn items(&mut self, h: HWND, class: &str, msaa_children: i32, at: usize, depth: u32) {
        let until = (self.started + self.budget.deadline).min(Instant::now() + ITEMS_BOUND);
        let cap = self.budget.max_children;
        let hwnd = win32::num(h);
        if items::handles(class) {
            let Some(read) = items::read(h, Scope::All(cap), until, self.budget.max_text_chars)
            else {
                return;
            };
            if let Some(cut) = read.cut {
                self.note(format!("items of {class} w32:{hwnd:x}: {cut}"));
            }
            // Where each item went: its node and the depth of its children.
            let mut placed: HashMap<u64, (usize, u32)> = HashMap::new();
            for it in read.items {
                let (p, d) = it
                    .parent
                    .and_then(|p| placed.get(&p).copied())
                    .unwrap_or((at, depth));
                let handle = WinHandle::Item { hwnd, id: it.id };
                match self.push(&it.facts.record(), &handle, Some(p), d) {
                    Some(i) => {
                        placed.insert(it.id, (i, d + 1));
                    }
                    None => return,
                }
            }
            return;
        }
        let windows = win32::children(h).len();
        if usize::try_from(msaa_children).unwrap_or(0) <= windows {
            return;
        }
        let (kids, total) = msaa::simple_children(h, cap, until);
        if total > cap {
            self.note(format!(
                "MSAA children of {class} w32:{hwnd:x}: {cap} of {total}"
            ));
        }
        let levels: Vec<Option<u32>> = kids.iter().map(|(_, c)| c.level()).collect();
        let parents = parents_from_levels(&levels);
        let mut placed: Vec<(usize, u32)> = Vec::with_capacity(kids.len());
        for (k, (child, c)) in kids.iter().enumerate() {
            let (p, d) = parents
                .get(k)
                .copied()
                .flatten()
                .and_then(|pi| placed.get(pi).copied())
                .unwrap_or((at, depth));
            let handle = WinHandle::Msaa {
                hwnd,
                child: *child,
            };
            match self.push(&c.record(), &handle, Some(p), d) {
                Some(i) => placed.push((i, d + 1)),
                None => return,
            }
        }
    }

    fn menu(&mut self, owner: HWND, bar: bool, parent: usize, depth: u32) {
        let Some((hmenu, items)) = menu::items(owner, bar) else {
            return;
        };
        let container = ElementRecord {
            layer: Layer::Msaa,
            msaa_role: Some(if bar { 0x02 } else { 0x0B }),
            msaa_state: Some(0),
            name: if bar {
                "Application".into()
            } else {
                String::new()
            },
            rect: win32::rect(owner)
                .filter(|_| !bar)
                .map(|r| [r.x, r.y, r.width, r.height]),
            ..Default::default()
        };
        let h = WinHandle::MenuItem {
            hwnd: win32::num(owner),
            hmenu,
            position: u32::MAX,
        };
        let Some(at) = self.push(&container, &h, Some(parent), depth) else {
            return;
        };
        for it in items {
            if self
                .push(&it.record, &it.handle, Some(at), depth + 1)
                .is_none()
            {
                return;
            }
        }
    }
}

/// Captures `window` through Win32 and MSAA within `budget`.
pub(crate) fn capture(window: &WindowInfo, budget: &TreeBudget) -> Result<UiTree> {
    let top = window
        .native_id
        .map(win32::hwnd)
        .filter(|h| win32::exists(*h))
        .ok_or_else(|| DesktopError::StaleElement {
            handle: window.handle.0.clone(),
            detail: "the window is closed".into(),
        })?;
    let (_, tid) = win32::pid_tid(top);
    let focus = win32::focus_of_thread(tid);
    let mut b = Builder {
        nodes: Vec::new(),
        budget: *budget,
        started: Instant::now(),
        truncation: None,
        msaa_named: Vec::new(),
    };
    let mut root = window_record(top, focus, budget.max_text_chars);
    root.modal = window.modal;
    let Some(root_at) = b.push(&root, &WinHandle::Window(win32::num(top)), None, 0) else {
        return Err(DesktopError::backend("the tree budget allows no node"));
    };
    b.menu(top, true, root_at, 1);
    let mut queue: VecDeque<(HWND, usize, u32)> = VecDeque::from([(top, root_at, 1)]);
    'walk: while let Some((h, at, depth)) = queue.pop_front() {
        let kids = win32::children(h);
        for (n, c) in kids.into_iter().enumerate() {
            if n >= b.budget.max_children {
                b.truncation
                    .get_or_insert_with(|| format!("max_children ({})", b.budget.max_children));
                break;
            }
            let read = window_read(c, focus, budget.max_text_chars);
            let rec = &read.record;
            match b.push(rec, &WinHandle::Window(win32::num(c)), Some(at), depth) {
                Some(i) => {
                    if read.msaa_named {
                        b.msaa_named.push(i);
                    }
                    if rec.visible {
                        b.items(c, &rec.class_name, read.msaa_children, i, depth + 1);
                    }
                    queue.push_back((c, i, depth + 1));
                }
                None => break 'walk,
            }
        }
    }
    for popup in menu::open_popups(tid) {
        b.menu(popup, false, root_at, 1);
    }
    label_fields(&mut b.nodes, &b.msaa_named);
    Ok(UiTree {
        window: window.clone(),
        nodes: b.nodes,
        truncated: b.truncation.is_some(),
        truncation: b.truncation,
    })
}

/// Re-reads one window element.
pub(crate) fn refresh_window(h: HWND, max_text: usize) -> Result<UiNode> {
    if !win32::exists(h) {
        return Err(DesktopError::StaleElement {
            handle: WinHandle::Window(win32::num(h)).encode().0,
            detail: "the window is closed".into(),
        });
    }
    let (_, tid) = win32::pid_tid(h);
    let rec = window_record(h, win32::focus_of_thread(tid), max_text);
    Ok(rec.to_node(
        WinHandle::Window(win32::num(h)).encode(),
        0,
        None,
        0,
        max_text,
    ))
}

fn stale(handle: &ElementHandle, detail: &str) -> DesktopError {
    DesktopError::StaleElement {
        handle: handle.0.clone(),
        detail: detail.into(),
    }
}

/// Re-reads one item of the control `h`.
pub(crate) fn refresh_item(
    h: HWND,
    id: u64,
    handle: &ElementHandle,
    max_text: usize,
) -> Result<UiNode> {
    if !win32::exists(h) {
        return Err(stale(handle, "the window is closed"));
    }
    let until = Instant::now() + ITEMS_BOUND;
    let it = items::read(h, Scope::One(id), until, max_text)
        .and_then(|r| r.items.into_iter().find(|i| i.id == id))
        .ok_or_else(|| {
            stale(
                handle,
                "the item is gone (or no longer shown); observe again",
            )
        })?;
    Ok(it
        .facts
        .record()
        .to_node(handle.clone(), 0, None, 0, max_text))
}

/// Re-reads one simple element of `h`'s MSAA client object.
pub(crate) fn refresh_msaa(
    h: HWND,
    child: i32,
    handle: &ElementHandle,
    max_text: usize,
) -> Result<UiNode> {
    if !win32::exists(h) {
        return Err(stale(handle, "the window is closed"));
    }
    let c = msaa::simple_child(h, child)
        .ok_or_else(|| stale(handle, "the element is gone; observe again"))?;
    Ok(c.record().to_node(handle.clone(), 0, None, 0, max_text))
}
