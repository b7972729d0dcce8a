//! The tabs of a tab control (`SysTabControl32`), read and selected with
//! its own messages: `TCM_GETITEMCOUNT`, `TCM_GETITEMW` (the `TCITEMW` and
//! its text buffer in the application's memory), `TCM_GETITEMRECT` (a
//! rectangle in the control's client area, mapped to the screen),
//! `TCM_GETCURSEL` and `TCM_GETCURFOCUS`; `TCM_SETCURFOCUS` selects a tab
//! the way a click does (the owner hears `TCN_SELCHANGING`/`TCN_SELCHANGE`
//! and shows the tab's page).

use super::{AT_STRUCT, AT_TEXT, BLOCK, Ctx, Item, Read, Remote, Scope, TEXT_UNITS};
use crate::items::{ItemFacts, ItemKind, utf16_until_nul};
use crate::record::bounded as bounded_text;
use std::time::Instant;

const TCM_GETITEMCOUNT: u32 = 0x1304;
const TCM_GETITEMRECT: u32 = 0x130A;
const TCM_GETCURSEL: u32 = 0x130B;
const TCM_GETCURFOCUS: u32 = 0x132F;
const TCM_SETCURFOCUS: u32 = 0x1330;
const TCM_GETITEMW: u32 = 0x133C;
/// A tab control has far fewer tabs; a larger count is not believed.
const MAX_TABS: usize = 4096;

impl Ctx {
    /// The number of tabs (`None` when the control does not answer).
    fn tab_count(&self) -> Option<usize> {
        let n = usize::try_from(self.send(TCM_GETITEMCOUNT, 0, 0)?).ok()?;
        Some(n.min(MAX_TABS))
    }

    /// The selected tab, if any.
    fn tab_selected(&self) -> Option<usize> {
        usize::try_from(self.send(TCM_GETCURSEL, 0, 0)?).ok()
    }

    /// The text of tab `i`, written by the control into the block.
    fn tab_text(&self, m: &Remote, i: usize) -> String {
        m.clear(AT_TEXT, 2);
        let ask = m.layout.tcitem(m.addr(AT_TEXT), TEXT_UNITS as u32);
        let answered = m.write(AT_STRUCT, &ask)
            && self
                .send(TCM_GETITEMW, i, m.addr(AT_STRUCT) as isize)
                .unwrap_or(0)
                != 0;
        if !answered {
            return String::new();
        }
        let at = m
            .read(AT_STRUCT, ask.len())
            .map_or(0, |got| m.layout.tcitem_text(&got));
        if at == m.addr(AT_TEXT) || at == 0 {
            self.text(m)
        } else {
            // The control pointed at its own copy of the text.
            let b = m.read_at(at, 2 * TEXT_UNITS).unwrap_or_default();
            bounded_text(&utf16_until_nul(&b), self.max_text)
        }
    }

    pub(super) fn tab_control(&self, scope: Scope, until: Instant) -> Option<Read> {
        let total = self.tab_count()?;
        let range = scope.range(total, 0);
        let mut r = Read::of(&range, total);
        if range.is_empty() {
            return Some(r);
        }
        let m = Remote::new(self.h, BLOCK)?;
        let selected = self.tab_selected();
        let focus = usize::try_from(self.send(TCM_GETCURFOCUS, 0, 0).unwrap_or(-1)).ok();
        for i in range {
            if Instant::now() > until {
                r.cut = Some(format!("deadline after {} of {total}", r.items.len()));
                break;
            }
            let mut f = ItemFacts::new(ItemKind::TabItem);
            f.name = self.tab_text(&m, i);
            f.selected = selected == Some(i);
            f.focused = self.focused && focus == Some(i);
            match self.remote_rect(&m, TCM_GETITEMRECT, i, 0, false) {
                Some(rc) => self.place(&mut f, rc),
                None => f.showing = false,
            }
            r.items.push(Item {
                id: i as u64,
                parent: None,
                facts: f,
            });
        }
        Some(r)
    }

    /// Selects tab `id` as a click does; false when there is no such tab or
    /// the control did not select it (a button-style tab control moves only
    /// its focus; the owner may refuse the change).
    pub(super) fn tab_select(&self, id: u64) -> bool {
        let Some(total) = self.tab_count() else {
            return false;
        };
        let Ok(i) = usize::try_from(id) else {
            return false;
        };
        if i >= total {
            return false;
        }
        if self.tab_selected() == Some(i) {
            return true;
        }
        self.send(TCM_SETCURFOCUS, i, 0);
        self.tab_selected() == Some(i)
    }
}
