//! Qt popup menus: where their entries really are.
//!
//! Qt makes one accessible object per action and measures it in the first
//! menu that showed it. An action shared by a hidden menu bar's menu and an
//! open popup (Dolphin's "Open Menu": "Create New", "Filter...") is reported
//! at that hidden menu's place (`0,181` on a popup at `665,28`), and says it
//! is neither showing nor visible. The popup itself answers hit tests
//! rightly: its entries are found by asking what lies at points down its
//! middle, and an entry no point hits is not in this popup at all.

use super::objref::ObjRef;
use super::toolkit::Toolkit;
use super::{AtspiBackend, call};
use atspi::CoordType;
use futures::future::join_all;
use std::collections::HashMap;
use ufo_core::{Rect, Screen, States, UiNode};

/// Pixels between two points asked down a popup (an entry is 20+ px high).
const STEP: i32 = 4;

/// Most points asked down one popup.
const MAX_POINTS: i32 = 200;

/// Roles of a menu's entries.
pub(super) fn is_entry(role: &str) -> bool {
    matches!(
        role,
        "menu item" | "check menu item" | "radio menu item" | "separator" | "menu"
    )
}

impl AtspiBackend {
    /// Places the entries of every open Qt popup menu of `nodes` where the
    /// popup draws them (see the module docs). Entries the popup does not
    /// hold are marked not showing.
    pub(super) async fn place_qt_popup_entries(&self, nodes: &mut [UiNode]) {
        let popups: Vec<(usize, Rect<Screen>)> = nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                n.role == "popup menu"
                    && n.states.contains(States::SHOWING)
                    && ObjRef::parse(&n.handle)
                        .is_ok_and(|h| self.known_toolkit(h.bus()) == Some(Toolkit::Qt))
            })
            .filter_map(|(i, n)| Some((i, n.rect?)))
            .collect();
        for (p, r) in popups {
            let entries: Vec<usize> = nodes[p]
                .children
                .iter()
                .copied()
                .filter(|&c| nodes.get(c).is_some_and(|n| is_entry(&n.role)))
                .collect();
            let misplaced = entries
                .iter()
                .any(|&c| nodes[c].rect.is_none_or(|e| r.intersection(&e) != Some(e)));
            if !misplaced {
                continue;
            }
            let spans = match ObjRef::parse(&nodes[p].handle) {
                Ok(h) => self.entry_spans(&h, r).await,
                Err(_) => HashMap::new(),
            };
            for c in entries {
                let entry = ObjRef::parse(&nodes[c].handle).ok();
                match spans.get(entry.as_ref().map_or("", ObjRef::path)) {
                    Some(&(top, bottom)) => {
                        nodes[c].rect = Some(Rect::new(r.x, top, r.width, bottom - top));
                        nodes[c].states |= States::SHOWING | States::VISIBLE;
                    }
                    None => nodes[c].states.remove(States::SHOWING | States::VISIBLE),
                }
            }
        }
    }

    /// What popup `h` (at `r`) holds down its middle: object path → the
    /// first and past-the-last row of pixels where it answers a hit test.
    async fn entry_spans(&self, h: &ObjRef, r: Rect<Screen>) -> HashMap<String, (i32, i32)> {
        let mut spans: HashMap<String, (i32, i32)> = HashMap::new();
        let Ok(comp) = self.component(h).await else {
            return spans;
        };
        let (bus, own) = (h.bus(), h.path());
        let step = STEP.max(r.height / MAX_POINTS + 1);
        let x = r.x + r.width / 2;
        let ys: Vec<i32> = (r.y + 1..r.y + r.height - 1)
            .step_by(step as usize)
            .collect();
        let hits = join_all(ys.iter().map(|&y| {
            let comp = &comp;
            async move {
                call(
                    h,
                    "GetAccessibleAtPoint",
                    comp.get_accessible_at_point(x, y, CoordType::Screen),
                )
                .await
                .ok()
            }
        }))
        .await;
        for (y, hit) in ys.into_iter().zip(hits) {
            let Some(o) = hit else { continue };
            let path = o.path_as_str();
            let from = o.name_as_str().filter(|n| !n.is_empty()).unwrap_or(bus);
            if path == "/org/a11y/atspi/null" || path == own || from != bus {
                continue;
            }
            let span = spans.entry(path.to_owned()).or_insert((y, y + step));
            span.0 = span.0.min(y);
            span.1 = span.1.max(y + step);
        }
        spans
    }
}

#[cfg(test)]
mod tests {
    use super::is_entry;

    #[test]
    fn a_popups_entries_are_its_items_separators_and_submenus() {
        for r in ["menu item", "check menu item", "separator", "menu"] {
            assert!(is_entry(r), "{r}");
        }
        assert!(!is_entry("push button"));
    }
}
