//! Items that a control draws itself: list box rows, list view rows, tree
//! view items, toolbar buttons, header items, tabs and, in general, the simple
//! elements of a window's MSAA client object. They are no windows, so the
//! window walk does not see them; the capture reads them with the control's
//! own messages (or MSAA) and this module turns what it read into records.
//!
//! Plain code, compiled on every OS: the facts read ([`ItemFacts`],
//! [`MsaaChild`]), their records (in MSAA's terms, as Windows' own MSAA
//! proxies of these controls describe them), which items to read of a long
//! list ([`read_window`]), the nesting of MSAA's flat outline items
//! ([`parents_from_levels`]), and the byte layouts of the common-control
//! structures that another process's control fills ([`Layout`]).

use crate::record::{ElementRecord, Layer};
use std::ops::Range;

/// MSAA state bits (`STATE_SYSTEM_*`) the item records use (see [`crate::state`]).
pub use crate::state;

/// MSAA roles (`ROLE_SYSTEM_*`) the item records use.
pub mod role {
    /// `ROLE_SYSTEM_COLUMNHEADER`.
    pub const COLUMN_HEADER: u32 = 0x19;
    /// `ROLE_SYSTEM_LISTITEM`.
    pub const LIST_ITEM: u32 = 0x22;
    /// `ROLE_SYSTEM_OUTLINEITEM` (a tree item).
    pub const OUTLINE_ITEM: u32 = 0x24;
    /// `ROLE_SYSTEM_PAGETAB` (a tab of a tab control).
    pub const PAGE_TAB: u32 = 0x25;
    /// `ROLE_SYSTEM_PUSHBUTTON`.
    pub const PUSH_BUTTON: u32 = 0x2B;
    /// `ROLE_SYSTEM_CHECKBUTTON`.
    pub const CHECK_BUTTON: u32 = 0x2C;
}

/// Which control drew the item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// A row of a list box (`ListBox`, `ComboLBox`).
    ListBoxRow,
    /// A row (or icon) of a list view (`SysListView32`).
    ListViewRow,
    /// An item of a tree view (`SysTreeView32`).
    TreeItem,
    /// A button of a toolbar (`ToolbarWindow32`).
    ToolbarButton,
    /// A column header (`SysHeader32`).
    HeaderItem,
    /// A tab of a tab control (`SysTabControl32`).
    TabItem,
}

/// What the capture read of one item through its control's messages.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemFacts {
    /// The control that drew it.
    pub kind: ItemKind,
    /// Its text (a list view row's first column; empty for an owner-drawn
    /// list box that keeps no strings).
    pub name: String,
    /// The other columns of a list view row, `"Type: REG_SZ, Data: 1"`.
    pub description: String,
    /// Screen rectangle `[x, y, width, height]`.
    pub rect: Option<[i32; 4]>,
    /// Inside its control's visible area (not scrolled away).
    pub showing: bool,
    /// Takes input (a toolbar button can be disabled).
    pub enabled: bool,
    /// Selected.
    pub selected: bool,
    /// Has the keyboard focus (the control's caret item while it has focus).
    pub focused: bool,
    /// A tree item with children: whether they are shown.
    pub expanded: Option<bool>,
    /// A check box item (tree view check boxes, check-style toolbar
    /// buttons): whether it is checked.
    pub checked: Option<bool>,
    /// The container lets several items be selected.
    pub multiselect: bool,
}

impl ItemFacts {
    /// An item of `kind` with no facts yet (enabled, showing).
    pub fn new(kind: ItemKind) -> Self {
        Self {
            kind,
            name: String::new(),
            description: String::new(),
            rect: None,
            showing: true,
            enabled: true,
            selected: false,
            focused: false,
            expanded: None,
            checked: None,
            multiselect: false,
        }
    }

    /// The MSAA role and state bits Windows' proxy of the control reports
    /// for this item.
    pub fn msaa(&self) -> (u32, u32) {
        use state as s;
        // Items their container selects (one tab at a time).
        let rowlike = matches!(
            self.kind,
            ItemKind::ListBoxRow | ItemKind::ListViewRow | ItemKind::TreeItem | ItemKind::TabItem
        );
        let role = match self.kind {
            ItemKind::ListBoxRow | ItemKind::ListViewRow => role::LIST_ITEM,
            ItemKind::TreeItem => role::OUTLINE_ITEM,
            ItemKind::HeaderItem => role::COLUMN_HEADER,
            ItemKind::TabItem => role::PAGE_TAB,
            ItemKind::ToolbarButton if self.checked.is_some() => role::CHECK_BUTTON,
            ItemKind::ToolbarButton => role::PUSH_BUTTON,
        };
        let mut bits = 0;
        let mut set = |on: bool, b: u32| {
            if on {
                bits |= b;
            }
        };
        set(rowlike, s::SELECTABLE | s::FOCUSABLE);
        set(
            rowlike && self.multiselect && self.kind != ItemKind::TabItem,
            s::MULTISELECTABLE,
        );
        set(self.selected, s::SELECTED);
        set(self.focused, s::FOCUSED);
        set(self.checked == Some(true), s::CHECKED);
        set(self.expanded == Some(true), s::EXPANDED);
        set(self.expanded == Some(false), s::COLLAPSED);
        set(!self.showing, s::OFFSCREEN);
        set(!self.enabled, s::UNAVAILABLE);
        (role, bits)
    }

    /// The record of this item.
    pub fn record(&self) -> ElementRecord {
        let (role, bits) = self.msaa();
        ElementRecord {
            layer: Layer::Msaa,
            msaa_role: Some(role),
            msaa_state: Some(bits),
            name: self.name.clone(),
            help_text: self.description.clone(),
            rect: self.rect,
            enabled: self.enabled,
            visible: self.showing,
            focused: self.focused,
            focusable: bits & state::FOCUSABLE != 0,
            ..Default::default()
        }
    }
}

/// What MSAA says of one simple element (a child id of a client object).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MsaaChild {
    /// `accRole`.
    pub role: u32,
    /// `accState`.
    pub state: u32,
    /// `accName`.
    pub name: String,
    /// `accValue` (a tree item's level, a slider's position...).
    pub value: String,
    /// `accDescription` (a list view row's other columns).
    pub description: String,
    /// `accDefaultAction`.
    pub default_action: String,
    /// `accLocation`, screen `[x, y, width, height]`.
    pub rect: Option<[i32; 4]>,
}

impl MsaaChild {
    /// The record of this element.
    pub fn record(&self) -> ElementRecord {
        // An outline item's value is its level, not a value a person reads.
        let value = (self.role != role::OUTLINE_ITEM && !self.value.trim().is_empty())
            .then(|| self.value.clone());
        ElementRecord {
            layer: Layer::Msaa,
            msaa_role: Some(self.role),
            msaa_state: Some(self.state),
            name: self.name.clone(),
            help_text: self.description.clone(),
            default_action: self.default_action.clone(),
            rect: self.rect,
            enabled: self.state & state::UNAVAILABLE == 0,
            visible: self.state & (state::OFFSCREEN | 0x8000) == 0,
            focused: self.state & state::FOCUSED != 0,
            focusable: self.state & state::FOCUSABLE != 0,
            value,
            read_only: true,
            ..Default::default()
        }
    }

    /// The outline level MSAA gives a tree item as its value (`"0"`, `"1"`).
    pub fn level(&self) -> Option<u32> {
        (self.role == role::OUTLINE_ITEM)
            .then(|| self.value.trim().parse().ok())
            .flatten()
    }
}

/// The parent of each item of a flat list of outline items given their
/// levels (MSAA's tree items: level 0 at the top): the nearest earlier item
/// at a shallower level, or `None` (the container) for the top level and
/// for an item whose ancestors are not in the list.
pub fn parents_from_levels(levels: &[Option<u32>]) -> Vec<Option<usize>> {
    // The chain of open ancestors: (level, index), deepest last.
    let mut stack: Vec<(u32, usize)> = Vec::new();
    let mut out = Vec::with_capacity(levels.len());
    for (i, level) in levels.iter().enumerate() {
        let Some(l) = *level else {
            out.push(None);
            continue;
        };
        while stack.last().is_some_and(|(sl, _)| *sl >= l) {
            stack.pop();
        }
        out.push(stack.last().map(|(_, at)| *at));
        stack.push((l, i));
    }
    out
}

/// Which of `total` items to read when at most `cap` may be: all of them
/// when they fit, else `cap` items from the first one shown (`top`), moved
/// back so that the range stays full at the end of the list.
pub fn read_window(total: usize, top: usize, cap: usize) -> Range<usize> {
    if total <= cap {
        return 0..total;
    }
    let start = top.min(total - cap);
    start..start + cap
}

/// The byte layouts of the common-control structures that carry pointers
/// (`TVITEMW`, `LVITEMW`, `TBBUTTON`, `HDITEMW`, `TCITEMW`), for a process of either
/// pointer width: such a structure is written into the other process's
/// memory, where its control fills it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// 8 for a 64-bit process, 4 for a 32-bit one.
    pub ptr: usize,
}

fn put(buf: &mut [u8], at: usize, bytes: &[u8]) {
    if let Some(dst) = buf.get_mut(at..at + bytes.len()) {
        dst.copy_from_slice(bytes);
    }
}

fn get_u32(buf: &[u8], at: usize) -> u32 {
    buf.get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

impl Layout {
    fn put_ptr(&self, buf: &mut [u8], at: usize, v: u64) {
        match self.ptr {
            8 => put(buf, at, &v.to_le_bytes()),
            _ => put(buf, at, &(v as u32).to_le_bytes()),
        }
    }

    fn get_ptr(&self, buf: &[u8], at: usize) -> u64 {
        match self.ptr {
            8 => buf
                .get(at..at + 8)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u64::from_le_bytes),
            _ => u64::from(get_u32(buf, at)),
        }
    }

    /// `TVITEMW` asking for an item's text, state and children:
    /// `(bytes, offset of state, offset of cChildren)`.
    pub fn tvitem(&self, item: u64, text: u64, cch: u32) -> Vec<u8> {
        // TVIF_TEXT | TVIF_STATE | TVIF_HANDLE | TVIF_CHILDREN
        const MASK: u32 = 0x1 | 0x8 | 0x10 | 0x40;
        let w = self.ptr;
        let mut b = vec![0u8; if w == 8 { 56 } else { 40 }];
        put(&mut b, 0, &MASK.to_le_bytes());
        self.put_ptr(&mut b, w, item);
        put(&mut b, 2 * w + 4, &0xFFFFu32.to_le_bytes()); // stateMask
        self.put_ptr(&mut b, 2 * w + 8, text);
        put(&mut b, 3 * w + 8, &cch.to_le_bytes());
        b
    }

    /// The state and `cChildren` of a `TVITEMW` the control filled.
    pub fn tvitem_state(&self, b: &[u8]) -> (u32, i32) {
        let w = self.ptr;
        (get_u32(b, 2 * w), get_u32(b, 3 * w + 20) as i32)
    }

    /// `LVITEMW` asking for the text of column `sub` (for
    /// `LVM_GETITEMTEXTW`), or setting `state` under `mask` (for
    /// `LVM_SETITEMSTATE`).
    pub fn lvitem(&self, sub: i32, text: u64, cch: u32, state: u32, mask: u32) -> Vec<u8> {
        let w = self.ptr;
        let mut b = vec![0u8; if w == 8 { 88 } else { 60 }];
        put(&mut b, 0, &0x1u32.to_le_bytes()); // LVIF_TEXT
        put(&mut b, 8, &sub.to_le_bytes());
        put(&mut b, 12, &state.to_le_bytes());
        put(&mut b, 16, &mask.to_le_bytes());
        let text_at = if w == 8 { 24 } else { 20 };
        self.put_ptr(&mut b, text_at, text);
        put(&mut b, text_at + w, &cch.to_le_bytes());
        b
    }

    /// The size of a `TBBUTTON`.
    pub fn tbbutton_size(&self) -> usize {
        if self.ptr == 8 { 32 } else { 20 }
    }

    /// `(idCommand, fsState, fsStyle)` of a `TBBUTTON`.
    pub fn tbbutton(&self, b: &[u8]) -> (i32, u8, u8) {
        (
            get_u32(b, 4) as i32,
            b.get(8).copied().unwrap_or(0),
            b.get(9).copied().unwrap_or(0),
        )
    }

    /// `HDITEMW` asking for a column header's text.
    pub fn hditem(&self, text: u64, cch: u32) -> Vec<u8> {
        let w = self.ptr;
        let mut b = vec![0u8; if w == 8 { 72 } else { 48 }];
        put(&mut b, 0, &0x2u32.to_le_bytes()); // HDI_TEXT
        self.put_ptr(&mut b, 8, text);
        put(&mut b, 8 + 2 * w, &cch.to_le_bytes());
        b
    }

    /// The text pointer of a `TVITEMW` (a control may point it at its own
    /// buffer instead of filling the one given).
    pub fn tvitem_text(&self, b: &[u8]) -> u64 {
        self.get_ptr(b, 2 * self.ptr + 8)
    }

    /// `TCITEMW` asking for a tab's text into `text` (`cch` UTF-16 units).
    pub fn tcitem(&self, text: u64, cch: u32) -> Vec<u8> {
        let w = self.ptr;
        // mask, dwState, dwStateMask, then pszText at pointer alignment.
        let text_at = if w == 8 { 16 } else { 12 };
        let mut b = vec![0u8; if w == 8 { 40 } else { 28 }];
        put(&mut b, 0, &0x1u32.to_le_bytes()); // TCIF_TEXT
        self.put_ptr(&mut b, text_at, text);
        put(&mut b, text_at + w, &cch.to_le_bytes());
        b
    }

    /// The text pointer of a `TCITEMW` the control filled (it may point
    /// at its own copy of the text).
    pub fn tcitem_text(&self, b: &[u8]) -> u64 {
        self.get_ptr(b, if self.ptr == 8 { 16 } else { 12 })
    }
}

/// The UTF-16 text up to its first NUL, from little-endian bytes.
pub fn utf16_until_nul(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|u| *u != 0)
        .collect();
    String::from_utf16_lossy(&units)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ufo_core::{ControlType, ElementHandle, States};

    fn node(rec: &ElementRecord) -> ufo_core::UiNode {
        rec.to_node(ElementHandle("item:1:0".into()), 0, None, 1, 200)
    }

    #[test]
    fn a_selected_expanded_tree_item_reads_as_one() {
        let mut f = ItemFacts::new(ItemKind::TreeItem);
        f.name = "HKEY_CURRENT_USER".into();
        f.rect = Some([10, 20, 120, 16]);
        f.selected = true;
        f.focused = true;
        f.expanded = Some(true);
        let n = node(&f.record());
        assert_eq!(n.control_type, ControlType::TreeItem);
        assert_eq!(n.role, "tree item");
        assert_eq!(n.name, "HKEY_CURRENT_USER");
        for s in [
            States::SELECTED,
            States::SELECTABLE,
            States::FOCUSED,
            States::EXPANDED,
            States::EXPANDABLE,
            States::SHOWING,
            States::ENABLED,
        ] {
            assert!(n.states.contains(s), "{s:?} in {:?}", n.states);
        }
        assert_eq!(n.actions, vec!["select".to_owned()]);
        assert_eq!(n.rect.map(|r| (r.x, r.width)), Some((10, 120)));
    }

    #[test]
    fn a_collapsed_item_is_expandable_not_expanded_and_a_scrolled_row_is_not_showing() {
        let mut f = ItemFacts::new(ItemKind::TreeItem);
        f.expanded = Some(false);
        let s = node(&f.record()).states;
        assert!(s.contains(States::EXPANDABLE) && !s.contains(States::EXPANDED));
        let mut row = ItemFacts::new(ItemKind::ListViewRow);
        row.name = "(Default)".into();
        row.description = "Type: REG_SZ".into();
        row.showing = false;
        let n = node(&row.record());
        assert_eq!(n.control_type, ControlType::ListItem);
        assert_eq!(n.description, "Type: REG_SZ");
        assert!(!n.states.contains(States::SHOWING));
        assert!(!n.states.contains(States::SELECTED));
    }

    #[test]
    fn toolbar_buttons_and_headers_take_their_kind() {
        let mut b = ItemFacts::new(ItemKind::ToolbarButton);
        b.name = "C:\\".into();
        let n = node(&b.record());
        assert_eq!(n.control_type, ControlType::Button);
        assert_eq!(n.actions, vec!["click".to_owned()]);
        assert!(!n.states.contains(States::SELECTABLE));
        b.checked = Some(true);
        b.enabled = false;
        let n = node(&b.record());
        assert_eq!(n.control_type, ControlType::CheckBox);
        assert!(n.states.contains(States::CHECKED));
        assert!(!n.states.contains(States::ENABLED));
        let h = node(&ItemFacts::new(ItemKind::HeaderItem).record());
        assert_eq!(h.control_type, ControlType::HeaderItem);
        assert!(h.actions.is_empty());
    }

    #[test]
    fn a_selected_tab_is_a_selectable_page_tab() {
        let mut t = ItemFacts::new(ItemKind::TabItem);
        t.name = "Performance".into();
        t.selected = true;
        t.multiselect = true;
        let (role, bits) = t.msaa();
        assert_eq!(role, role::PAGE_TAB);
        assert_eq!(bits & state::MULTISELECTABLE, 0, "one tab at a time");
        let n = node(&t.record());
        assert_eq!(n.control_type, ControlType::TabItem);
        assert_eq!(n.role, "page tab");
        assert!(n.states.contains(States::SELECTED | States::SELECTABLE));
        assert_eq!(n.actions, vec!["select".to_owned()]);
        let other = node(&ItemFacts::new(ItemKind::TabItem).record());
        assert!(!other.states.contains(States::SELECTED));
    }

    #[test]
    fn msaa_simple_children_become_nodes() {
        let c = MsaaChild {
            role: role::LIST_ITEM,
            state: state::SELECTABLE | state::FOCUSABLE | state::SELECTED,
            name: "readme.txt".into(),
            description: "Size: 1 KB".into(),
            default_action: "Double Click".into(),
            rect: Some([0, 0, 50, 10]),
            ..Default::default()
        };
        let n = node(&c.record());
        assert_eq!(n.control_type, ControlType::ListItem);
        assert!(n.states.contains(States::SELECTED));
        assert_eq!(n.actions, vec!["click".to_owned(), "select".to_owned()]);
        let t = MsaaChild {
            role: role::OUTLINE_ITEM,
            value: "2".into(),
            ..Default::default()
        };
        assert_eq!(t.level(), Some(2));
        assert_eq!(node(&t.record()).value, None);
    }

    #[test]
    fn outline_levels_nest() {
        let l = |v: &[u32]| v.iter().map(|l| Some(*l)).collect::<Vec<_>>();
        assert_eq!(
            parents_from_levels(&l(&[0, 1, 2, 1, 0, 1])),
            vec![None, Some(0), Some(1), Some(0), None, Some(4)]
        );
        // A list cut above its first item: orphans go to the container.
        assert_eq!(
            parents_from_levels(&l(&[2, 2, 1, 2])),
            vec![None, None, None, Some(2)]
        );
        // A level skipped: the nearest shallower item.
        assert_eq!(parents_from_levels(&l(&[0, 2])), vec![None, Some(0)]);
        assert_eq!(parents_from_levels(&[None, Some(0)]), vec![None, None]);
    }

    #[test]
    fn long_lists_are_read_from_what_is_shown() {
        assert_eq!(read_window(10, 4, 500), 0..10);
        assert_eq!(read_window(1000, 300, 500), 300..800);
        assert_eq!(read_window(1000, 900, 500), 500..1000);
        assert_eq!(read_window(0, 0, 500), 0..0);
    }

    #[test]
    fn layouts_match_the_common_control_structures() {
        let l64 = Layout { ptr: 8 };
        let b = l64.tvitem(0xABCD, 0x1000, 260);
        assert_eq!(b.len(), 56);
        assert_eq!(get_u32(&b, 0), 0x59);
        assert_eq!(l64.get_ptr(&b, 8), 0xABCD);
        assert_eq!(get_u32(&b, 20), 0xFFFF);
        assert_eq!(l64.tvitem_text(&b), 0x1000);
        assert_eq!(get_u32(&b, 32), 260);
        let mut filled = b.clone();
        put(&mut filled, 16, &0x22u32.to_le_bytes());
        put(&mut filled, 44, &1i32.to_le_bytes());
        assert_eq!(l64.tvitem_state(&filled), (0x22, 1));

        let l32 = Layout { ptr: 4 };
        let b = l32.tvitem(0xABCD, 0x1000, 260);
        assert_eq!(b.len(), 40);
        assert_eq!(get_u32(&b, 4), 0xABCD);
        assert_eq!(get_u32(&b, 16), 0x1000);
        assert_eq!(get_u32(&b, 20), 260);
        let mut filled = b;
        put(&mut filled, 8, &0x20u32.to_le_bytes());
        put(&mut filled, 32, &0u32.to_le_bytes());
        assert_eq!(l32.tvitem_state(&filled), (0x20, 0));

        let b = l64.lvitem(2, 0x2000, 100, 3, 3);
        assert_eq!((b.len(), get_u32(&b, 8), get_u32(&b, 32)), (88, 2, 100));
        assert_eq!(l64.get_ptr(&b, 24), 0x2000);
        let b = l32.lvitem(1, 0x2000, 100, 0, 0);
        assert_eq!(
            (b.len(), get_u32(&b, 20), get_u32(&b, 24)),
            (60, 0x2000, 100)
        );

        let mut tb = vec![0u8; l64.tbbutton_size()];
        put(&mut tb, 4, &0x1234i32.to_le_bytes());
        put(&mut tb, 8, &[0x4, 0x2]);
        assert_eq!(l64.tbbutton(&tb), (0x1234, 4, 2));

        let b = l64.hditem(0x3000, 64);
        assert_eq!(
            (b.len(), l64.get_ptr(&b, 8), get_u32(&b, 24)),
            (72, 0x3000, 64)
        );
        let b = l32.hditem(0x3000, 64);
        assert_eq!((b.len(), get_u32(&b, 8), get_u32(&b, 16)), (48, 0x3000, 64));

        let b = l64.tcitem(0x4000, 260);
        assert_eq!(b.len(), 40);
        assert_eq!((get_u32(&b, 0), get_u32(&b, 24)), (1, 260));
        assert_eq!((l64.get_ptr(&b, 16), l64.tcitem_text(&b)), (0x4000, 0x4000));
        let b = l32.tcitem(0x4000, 260);
        assert_eq!(b.len(), 28);
        assert_eq!((get_u32(&b, 12), get_u32(&b, 16)), (0x4000, 260));
        assert_eq!(l32.tcitem_text(&b), 0x4000);

        let text: Vec<u8> = "C:\\\0junk"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(utf16_until_nul(&text), "C:\\");
    }
}
