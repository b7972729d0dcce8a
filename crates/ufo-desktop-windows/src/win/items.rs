//! The items of list boxes, list views, tree views, toolbars, headers and
//! tab controls ([`tabs`]), read with each control's own messages (those with pointers through
//! [`Remote`] memory), selected the same way. Used where MSAA does not
//! describe them (Wine's `oleacc` has no proxies for these controls) and
//! in place of MSAA's proxies on Windows, which read the same messages.
#![allow(unsafe_code)]

mod tabs;

use super::remote::Remote;
use super::win32;
use crate::items::{ItemFacts, ItemKind, read_window, utf16_until_nul};
use crate::record::bounded as bounded_text;
use std::time::Instant;
use windows::Win32::Foundation::{HWND, POINT, RECT};

// List box.
const LB_GETTEXT: u32 = 0x0189;
const LB_GETTEXTLEN: u32 = 0x018A;
const LB_GETCOUNT: u32 = 0x018B;
const LB_GETTOPINDEX: u32 = 0x018E;
const LB_GETSEL: u32 = 0x0187;
const LB_SETSEL: u32 = 0x0185;
const LB_SETCURSEL: u32 = 0x0186;
const LB_GETITEMRECT: u32 = 0x0198;
const LB_GETCARETINDEX: u32 = 0x019F;
const LBS_MULTI: u32 = 0x8 | 0x800;
const LBS_OWNERDRAW: u32 = 0x10 | 0x20;
const LBS_HASSTRINGS: u32 = 0x40;
const WM_COMMAND: u32 = 0x0111;
const LBN_SELCHANGE: usize = 1;
// Tree view.
const TVM_EXPAND: u32 = 0x1102;
const TVM_GETITEMRECT: u32 = 0x1104;
const TVM_GETCOUNT: u32 = 0x1105;
const TVM_GETNEXTITEM: u32 = 0x110A;
const TVM_SELECTITEM: u32 = 0x110B;
const TVM_ENSUREVISIBLE: u32 = 0x1114;
const TVM_GETITEMW: u32 = 0x113E;
const TVGN_ROOT: usize = 0;
const TVGN_PARENT: usize = 3;
const TVGN_FIRSTVISIBLE: usize = 5;
const TVGN_NEXTVISIBLE: usize = 6;
const TVGN_CARET: usize = 9;
const TVS_CHECKBOXES: u32 = 0x100;
// List view.
const LVM_GETITEMCOUNT: u32 = 0x1004;
const LVM_GETITEMRECT: u32 = 0x100E;
const LVM_ENSUREVISIBLE: u32 = 0x1013;
const LVM_GETHEADER: u32 = 0x101F;
const LVM_GETTOPINDEX: u32 = 0x1027;
const LVM_SETITEMSTATE: u32 = 0x102B;
const LVM_GETITEMSTATE: u32 = 0x102C;
const LVM_GETITEMTEXTW: u32 = 0x1073;
const LVIS_FOCUSED: u32 = 1;
const LVIS_SELECTED: u32 = 2;
const LVIR_SELECTBOUNDS: i32 = 3;
const LVS_SINGLESEL: u32 = 0x4;
// Toolbar.
const TB_GETBUTTON: u32 = 0x0417;
const TB_BUTTONCOUNT: u32 = 0x0418;
const TB_GETITEMRECT: u32 = 0x041D;
const TB_GETBUTTONTEXTW: u32 = 0x044B;
// Header.
const HDM_GETITEMCOUNT: u32 = 0x1200;
const HDM_GETITEMRECT: u32 = 0x1207;
const HDM_GETITEMW: u32 = 0x120B;

/// Where the parts of one request lie in the remote block: the structure,
/// a rectangle, the text buffer.
const AT_STRUCT: usize = 0;
const AT_RECT: usize = 128;
const AT_TEXT: usize = 256;
/// UTF-16 units of the text buffer.
const TEXT_UNITS: usize = 1024;
const BLOCK: usize = AT_TEXT + 2 * TEXT_UNITS + 16;
/// Columns of a list view row read into its description.
const MAX_COLUMNS: usize = 8;
/// Tree items looked through (handles only) to find one item again.
const MAX_TREE_SEARCH: usize = 20_000;

/// One item read.
pub(crate) struct Item {
    /// Its id in its handle (`HTREEITEM` or index).
    pub(crate) id: u64,
    /// A tree item's parent item, if it was read too.
    pub(crate) parent: Option<u64>,
    /// What was read.
    pub(crate) facts: ItemFacts,
}

/// The items read of one control.
pub(crate) struct Read {
    pub(crate) items: Vec<Item>,
    /// Why not all were read (`"first 500 of 2000"`, the deadline).
    pub(crate) cut: Option<String>,
}

/// Which items to read.
#[derive(Clone, Copy)]
pub(crate) enum Scope {
    /// At most this many, from the first one shown when there are more.
    All(usize),
    /// The item with this id.
    One(u64),
}

impl Scope {
    /// The indices to read of `total` items, the first one shown being
    /// `top` (0 where the control scrolls none away).
    fn range(self, total: usize, top: usize) -> std::ops::Range<usize> {
        match self {
            Scope::All(cap) => read_window(total, top, cap),
            Scope::One(i) => (i as usize).min(total)..(i as usize + 1).min(total),
        }
    }
}

impl Read {
    /// No items yet; notes how many of `total` items `range` leaves out.
    fn of(range: &std::ops::Range<usize>, total: usize) -> Self {
        Read {
            items: Vec::new(),
            cut: cut_note(range.len(), total),
        }
    }
}

/// True for the classes whose items this module reads.
pub(crate) fn handles(class: &str) -> bool {
    kind_of(class).is_some()
}

fn kind_of(class: &str) -> Option<ItemKind> {
    Some(match class.to_ascii_lowercase().as_str() {
        "listbox" | "combolbox" => ItemKind::ListBoxRow,
        "syslistview32" => ItemKind::ListViewRow,
        "systreeview32" => ItemKind::TreeItem,
        "toolbarwindow32" => ItemKind::ToolbarButton,
        "sysheader32" => ItemKind::HeaderItem,
        "systabcontrol32" => ItemKind::TabItem,
        _ => return None,
    })
}

/// Reads the items of the control `h`; `None` for a class without items
/// or a control that does not answer.
pub(crate) fn read(h: HWND, scope: Scope, until: Instant, max_text: usize) -> Option<Read> {
    let c = Ctx::new(h, max_text);
    match kind_of(&win32::class_name(h))? {
        ItemKind::ListBoxRow => c.list_box(scope, until),
        ItemKind::ListViewRow => c.list_view(scope, until),
        ItemKind::TreeItem => c.tree_view(scope, until),
        ItemKind::ToolbarButton => c.toolbar(scope, until),
        ItemKind::HeaderItem => c.header(scope, until),
        ItemKind::TabItem => c.tab_control(scope, until),
    }
}

/// Selects the item `id` of the control `h` (the control tells its owner,
/// as when a person selects it); `Ok(false)` when the control has no
/// selection or the item is gone.
pub(crate) fn select(h: HWND, id: u64) -> bool {
    let c = Ctx::new(h, 0);
    match kind_of(&win32::class_name(h)) {
        Some(ItemKind::ListBoxRow) => c.list_box_select(id),
        Some(ItemKind::ListViewRow) => c.list_view_select(id),
        Some(ItemKind::TabItem) => c.tab_select(id),
        Some(ItemKind::TreeItem) => {
            let found = c
                .tree_view(
                    Scope::One(id),
                    Instant::now() + std::time::Duration::from_secs(2),
                )
                .is_some_and(|r| !r.items.is_empty());
            found && {
                let ok = c.send(TVM_SELECTITEM, TVGN_CARET, id as isize).unwrap_or(0) != 0;
                c.send(TVM_ENSUREVISIBLE, 0, id as isize);
                ok
            }
        }
        _ => false,
    }
}

/// Expands or collapses the tree item `id` (no notification to the owner:
/// an owner that fills items when they expand fills none).
pub(crate) fn expand(h: HWND, id: u64, open: bool) -> bool {
    let c = Ctx::new(h, 0);
    let found = c
        .tree_view(
            Scope::One(id),
            Instant::now() + std::time::Duration::from_secs(2),
        )
        .is_some_and(|r| !r.items.is_empty());
    found
        && c.send(TVM_EXPAND, if open { 2 } else { 1 }, id as isize)
            .unwrap_or(0)
            != 0
}

/// The id of the `index`-th item (in display order) of the control `h`.
pub(crate) fn nth(h: HWND, index: usize) -> Option<u64> {
    let until = Instant::now() + std::time::Duration::from_secs(3);
    let r = read(h, Scope::All(index + 1), until, 0)?;
    r.items.get(index).map(|i| i.id)
}

/// One control being read.
struct Ctx {
    h: HWND,
    max_text: usize,
    /// The control's client area on screen.
    area: Option<[i32; 4]>,
    /// The control has the keyboard focus.
    focused: bool,
}

fn client_on_screen(h: HWND) -> Option<[i32; 4]> {
    let mut r = RECT::default();
    let mut p = POINT::default();
    // SAFETY: `r` and `p` outlive the calls; a stale window fails them.
    unsafe {
        windows::Win32::UI::WindowsAndMessaging::GetClientRect(h, &mut r).ok()?;
        windows::Win32::Graphics::Gdi::ClientToScreen(h, &mut p)
            .as_bool()
            .then_some([p.x, p.y, r.right - r.left, r.bottom - r.top])
    }
}

fn rect_of(bytes: &[u8]) -> Option<RECT> {
    let v = |i: usize| -> Option<i32> {
        Some(i32::from_le_bytes(
            bytes.get(i * 4..i * 4 + 4)?.try_into().ok()?,
        ))
    };
    Some(RECT {
        left: v(0)?,
        top: v(1)?,
        right: v(2)?,
        bottom: v(3)?,
    })
}

impl Ctx {
    fn new(h: HWND, max_text: usize) -> Ctx {
        let (_, tid) = win32::pid_tid(h);
        Ctx {
            h,
            max_text: max_text.max(1),
            area: client_on_screen(h),
            focused: win32::focus_of_thread(tid) == Some(h),
        }
    }

    fn send(&self, msg: u32, w: usize, l: isize) -> Option<isize> {
        win32::send(self.h, msg, w, l)
    }

    /// Places a client rectangle on screen: the item's rect and whether it
    /// shows inside the control.
    fn place(&self, f: &mut ItemFacts, r: RECT) {
        let Some([x, y, w, h]) = self.area else {
            return;
        };
        let rect = [x + r.left, y + r.top, r.right - r.left, r.bottom - r.top];
        f.showing = rect[2] > 0
            && rect[3] > 0
            && rect[0] < x + w
            && rect[0] + rect[2] > x
            && rect[1] < y + h
            && rect[1] + rect[3] > y;
        f.rect = Some(rect);
    }

    /// Text the control wrote into the block's text buffer.
    fn text(&self, m: &Remote) -> String {
        let t = m
            .read(AT_TEXT, 2 * TEXT_UNITS)
            .map(|b| utf16_until_nul(&b))
            .unwrap_or_default();
        bounded_text(&t, self.max_text)
    }

    /// Asks for a rectangle whose first field says which (`seed`, written
    /// with the process's pointer width when `pointer`).
    fn remote_rect(
        &self,
        m: &Remote,
        msg: u32,
        w: usize,
        seed: u64,
        pointer: bool,
    ) -> Option<RECT> {
        m.clear(AT_RECT, 16);
        let bytes = if pointer && m.layout.ptr == 8 {
            seed.to_le_bytes().to_vec()
        } else {
            (seed as u32).to_le_bytes().to_vec()
        };
        m.write(AT_RECT, &bytes);
        let ok = self.send(msg, w, m.addr(AT_RECT) as isize).unwrap_or(0) != 0;
        ok.then(|| m.read(AT_RECT, 16).and_then(|b| rect_of(&b)))
            .flatten()
    }

    fn list_box(&self, scope: Scope, until: Instant) -> Option<Read> {
        let total = usize::try_from(self.send(LB_GETCOUNT, 0, 0)?).ok()?;
        let style = win32::style(self.h);
        let strings = style & LBS_OWNERDRAW == 0 || style & LBS_HASSTRINGS != 0;
        let top = usize::try_from(self.send(LB_GETTOPINDEX, 0, 0).unwrap_or(0)).unwrap_or(0);
        let caret = self.send(LB_GETCARETINDEX, 0, 0).unwrap_or(-1);
        let range = scope.range(total, top);
        let mut r = Read::of(&range, total);
        for i in range {
            if Instant::now() > until {
                r.cut = Some(format!("deadline after {} of {total}", r.items.len()));
                break;
            }
            let mut f = ItemFacts::new(ItemKind::ListBoxRow);
            if strings {
                let len = self.send(LB_GETTEXTLEN, i, 0).unwrap_or(-1);
                if let Ok(len) = usize::try_from(len).map(|l| l.min(1 << 16)) {
                    let mut buf = vec![0u16; len + 1];
                    // LB_GETTEXT is carried across processes by the system;
                    // `buf` has room for the length the control gave.
                    let got = self.send(LB_GETTEXT, i, buf.as_mut_ptr() as isize);
                    let got = got.and_then(|g| usize::try_from(g).ok()).unwrap_or(0);
                    let t = String::from_utf16_lossy(buf.get(..got.min(len)).unwrap_or(&[]));
                    f.name = bounded_text(&t, self.max_text);
                }
            }
            f.selected = self.send(LB_GETSEL, i, 0).unwrap_or(0) > 0;
            f.focused = self.focused && caret == i as isize;
            f.multiselect = style & LBS_MULTI != 0;
            let mut rc = RECT::default();
            // LB_GETITEMRECT is carried across processes by the system.
            let ok = self.send(LB_GETITEMRECT, i, &mut rc as *mut RECT as isize);
            if ok.is_some_and(|v| v != -1) {
                self.place(&mut f, rc);
            }
            r.items.push(Item {
                id: i as u64,
                parent: None,
                facts: f,
            });
        }
        Some(r)
    }

    fn list_box_select(&self, id: u64) -> bool {
        let i = id as usize;
        let total = usize::try_from(self.send(LB_GETCOUNT, 0, 0).unwrap_or(0)).unwrap_or(0);
        if i >= total {
            return false;
        }
        let ok = if win32::style(self.h) & LBS_MULTI != 0 {
            self.send(LB_SETSEL, 1, i as isize).is_some_and(|v| v != -1)
        } else {
            self.send(LB_SETCURSEL, i, 0).is_some_and(|v| v != -1)
        };
        // The owner hears of the change as if the user made it.
        if ok && let Some(parent) = win32::parent(self.h) {
            let id = win32::control_id(self.h) as u16 as usize;
            win32::post(
                parent,
                WM_COMMAND,
                (LBN_SELCHANGE << 16) | id,
                self.h.0 as isize,
            );
        }
        ok
    }

    /// The text of column `sub` of list view row `i`.
    fn list_view_text(&self, m: &Remote, i: usize, sub: i32) -> String {
        m.clear(AT_TEXT, 2);
        let item = m
            .layout
            .lvitem(sub, m.addr(AT_TEXT), TEXT_UNITS as u32, 0, 0);
        if !m.write(AT_STRUCT, &item) {
            return String::new();
        }
        match self.send(LVM_GETITEMTEXTW, i, m.addr(AT_STRUCT) as isize) {
            Some(n) if n > 0 => self.text(m),
            _ => String::new(),
        }
    }

    fn list_view(&self, scope: Scope, until: Instant) -> Option<Read> {
        let total = usize::try_from(self.send(LVM_GETITEMCOUNT, 0, 0)?).ok()?;
        let top = usize::try_from(self.send(LVM_GETTOPINDEX, 0, 0).unwrap_or(0)).unwrap_or(0);
        let range = scope.range(total, top);
        let mut r = Read::of(&range, total);
        if range.is_empty() {
            return Some(r);
        }
        let m = Remote::new(self.h, BLOCK)?;
        let columns: Vec<String> = self
            .send(LVM_GETHEADER, 0, 0)
            .filter(|h| *h != 0)
            .map(|hdr| {
                let hc = Ctx::new(win32::hwnd(hdr as u64), self.max_text);
                hc.header_items(&m, Scope::All(MAX_COLUMNS), until)
                    .into_iter()
                    .map(|i| i.facts.name)
                    .collect()
            })
            .unwrap_or_default();
        let multi = win32::style(self.h) & LVS_SINGLESEL == 0;
        for i in range {
            if Instant::now() > until {
                r.cut = Some(format!("deadline after {} of {total}", r.items.len()));
                break;
            }
            let mut f = ItemFacts::new(ItemKind::ListViewRow);
            f.name = self.list_view_text(&m, i, 0);
            let cells: Vec<String> = (1..columns.len())
                .filter_map(|c| {
                    let t = self.list_view_text(&m, i, c as i32);
                    let head = columns.get(c).map(String::as_str).unwrap_or_default();
                    (!t.trim().is_empty()).then(|| format!("{head}: {t}"))
                })
                .collect();
            f.description = bounded_text(&cells.join(", "), self.max_text);
            let mask = (LVIS_SELECTED | LVIS_FOCUSED) as isize;
            let st = self.send(LVM_GETITEMSTATE, i, mask).unwrap_or(0) as u32;
            f.selected = st & LVIS_SELECTED != 0;
            f.focused = self.focused && st & LVIS_FOCUSED != 0;
            f.multiselect = multi;
            let seed = LVIR_SELECTBOUNDS as u64;
            if let Some(rc) = self.remote_rect(&m, LVM_GETITEMRECT, i, seed, false) {
                self.place(&mut f, rc);
            }
            r.items.push(Item {
                id: i as u64,
                parent: None,
                facts: f,
            });
        }
        Some(r)
    }

    fn list_view_select(&self, id: u64) -> bool {
        let total = usize::try_from(self.send(LVM_GETITEMCOUNT, 0, 0).unwrap_or(0)).unwrap_or(0);
        if id as usize >= total {
            return false;
        }
        let Some(m) = Remote::new(self.h, BLOCK) else {
            return false;
        };
        let set = |index: usize, state: u32, mask: u32| -> bool {
            let item = m.layout.lvitem(0, 0, 0, state, mask);
            m.write(AT_STRUCT, &item)
                && self
                    .send(LVM_SETITEMSTATE, index, m.addr(AT_STRUCT) as isize)
                    .unwrap_or(0)
                    != 0
        };
        // Nothing else stays selected, as after a person's click.
        let _ = set(usize::MAX, 0, LVIS_SELECTED);
        let both = LVIS_SELECTED | LVIS_FOCUSED;
        let ok = set(id as usize, both, both);
        self.send(LVM_ENSUREVISIBLE, id as usize, 0);
        ok
    }

    /// The tree items in display order (items under collapsed ones are not
    /// shown, so not listed), from `from`, at most `cap`, by handle only.
    fn tree_order(&self, from: u64, cap: usize, until: Instant) -> Vec<u64> {
        let mut out = Vec::new();
        let mut at = from;
        while at != 0 && out.len() < cap && Instant::now() <= until {
            out.push(at);
            at = self.next(TVGN_NEXTVISIBLE, at);
        }
        out
    }

    fn next(&self, code: usize, item: u64) -> u64 {
        self.send(TVM_GETNEXTITEM, code, item as isize)
            .map_or(0, |v| v as u64)
    }

    fn tree_view(&self, scope: Scope, until: Instant) -> Option<Read> {
        let total = usize::try_from(self.send(TVM_GETCOUNT, 0, 0)?).unwrap_or(0);
        let root = self.next(TVGN_ROOT, 0);
        let mut cut = None;
        let ids = match scope {
            Scope::One(id) => {
                let order = self.tree_order(root, MAX_TREE_SEARCH, until);
                order.into_iter().filter(|i| *i == id).take(1).collect()
            }
            Scope::All(cap) => {
                let mut ids = self.tree_order(root, cap, until);
                let last = ids.last().copied().unwrap_or(0);
                if ids.len() == cap && self.next(TVGN_NEXTVISIBLE, last) != 0 {
                    // More than fit: read from the first one on screen.
                    let first = self.next(TVGN_FIRSTVISIBLE, 0);
                    if first != 0 && !ids.contains(&first) {
                        ids = self.tree_order(first, cap, until);
                    }
                    cut = Some(format!("{} shown items of {total}", ids.len()));
                }
                ids
            }
        };
        let mut r = Read {
            items: Vec::new(),
            cut,
        };
        if ids.is_empty() {
            return Some(r);
        }
        let m = Remote::new(self.h, BLOCK)?;
        let caret = self.next(TVGN_CARET, 0);
        let checkboxes = win32::style(self.h) & TVS_CHECKBOXES != 0;
        for id in ids {
            if Instant::now() > until {
                r.cut = Some(format!("deadline after {} of {total}", r.items.len()));
                break;
            }
            let mut f = ItemFacts::new(ItemKind::TreeItem);
            m.clear(AT_TEXT, 2);
            let ask = m.layout.tvitem(id, m.addr(AT_TEXT), TEXT_UNITS as u32);
            let answered = m.write(AT_STRUCT, &ask)
                && self
                    .send(TVM_GETITEMW, 0, m.addr(AT_STRUCT) as isize)
                    .unwrap_or(0)
                    != 0;
            if answered && let Some(got) = m.read(AT_STRUCT, ask.len()) {
                let (state, children) = m.layout.tvitem_state(&got);
                let at = m.layout.tvitem_text(&got);
                f.name = if at == m.addr(AT_TEXT) || at == 0 {
                    self.text(&m)
                } else {
                    // The control pointed at its own copy of the text.
                    let b = m.read_at(at, 2 * 260).unwrap_or_default();
                    bounded_text(&utf16_until_nul(&b), self.max_text)
                };
                f.selected = state & 0x2 != 0;
                f.expanded = (children != 0).then_some(state & 0x20 != 0);
                f.checked = checkboxes.then_some((state >> 12) & 0xF == 2);
            }
            f.focused = self.focused && caret == id;
            if let Some(rc) = self.remote_rect(&m, TVM_GETITEMRECT, 1, id, true) {
                self.place(&mut f, rc);
            } else {
                f.showing = false;
            }
            let parent = Some(self.next(TVGN_PARENT, id)).filter(|p| *p != 0);
            r.items.push(Item {
                id,
                parent,
                facts: f,
            });
        }
        Some(r)
    }

    fn toolbar(&self, scope: Scope, until: Instant) -> Option<Read> {
        let total = usize::try_from(self.send(TB_BUTTONCOUNT, 0, 0)?).ok()?;
        let range = scope.range(total, 0);
        let mut r = Read::of(&range, total);
        if range.is_empty() {
            return Some(r);
        }
        let m = Remote::new(self.h, BLOCK)?;
        let size = m.layout.tbbutton_size();
        for i in range {
            if Instant::now() > until {
                r.cut = Some(format!("deadline after {} of {total}", r.items.len()));
                break;
            }
            m.clear(AT_STRUCT, size);
            if self
                .send(TB_GETBUTTON, i, m.addr(AT_STRUCT) as isize)
                .unwrap_or(0)
                == 0
            {
                continue;
            }
            let Some(b) = m.read(AT_STRUCT, size) else {
                continue;
            };
            let (cmd, state, style) = m.layout.tbbutton(&b);
            // Separators and hidden buttons are not shown.
            if style & 0x1 != 0 || state & 0x8 != 0 {
                continue;
            }
            let mut f = ItemFacts::new(ItemKind::ToolbarButton);
            m.clear(AT_TEXT, 2);
            let n = self.send(
                TB_GETBUTTONTEXTW,
                cmd as u32 as usize,
                m.addr(AT_TEXT) as isize,
            );
            if n.is_some_and(|n| n > 0) {
                f.name = self.text(&m);
            }
            f.enabled = state & 0x4 != 0;
            f.checked = (style & 0x2 != 0).then_some(state & 0x1 != 0);
            if let Some(rc) = self.remote_rect(&m, TB_GETITEMRECT, i, 0, false) {
                self.place(&mut f, rc);
            }
            r.items.push(Item {
                id: i as u64,
                parent: None,
                facts: f,
            });
        }
        Some(r)
    }

    fn header(&self, scope: Scope, until: Instant) -> Option<Read> {
        let m = Remote::new(self.h, BLOCK)?;
        let items = self.header_items(&m, scope, until);
        Some(Read { items, cut: None })
    }

    fn header_items(&self, m: &Remote, scope: Scope, until: Instant) -> Vec<Item> {
        let total = usize::try_from(self.send(HDM_GETITEMCOUNT, 0, 0).unwrap_or(0)).unwrap_or(0);
        let range = scope.range(total, 0);
        let mut out = Vec::new();
        for i in range {
            if Instant::now() > until {
                break;
            }
            let mut f = ItemFacts::new(ItemKind::HeaderItem);
            m.clear(AT_TEXT, 2);
            let ask = m.layout.hditem(m.addr(AT_TEXT), TEXT_UNITS as u32);
            if m.write(AT_STRUCT, &ask)
                && self
                    .send(HDM_GETITEMW, i, m.addr(AT_STRUCT) as isize)
                    .unwrap_or(0)
                    != 0
            {
                f.name = self.text(m);
            }
            if let Some(rc) = self.remote_rect(m, HDM_GETITEMRECT, i, 0, false) {
                self.place(&mut f, rc);
            }
            out.push(Item {
                id: i as u64,
                parent: None,
                facts: f,
            });
        }
        out
    }
}

fn cut_note(read: usize, total: usize) -> Option<String> {
    (read < total).then(|| format!("{read} of {total} items"))
}
