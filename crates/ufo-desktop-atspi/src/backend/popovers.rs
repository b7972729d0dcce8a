//! GTK 4 popovers: where their contents really are.
//!
//! GTK 4.8 reports a popover's elements in its window's coordinates as if
//! the popover sat at its anchor (gnome-text-editor's main menu is reported
//! at the Menu button, 109 px right of and 18 px above where it is drawn; a
//! drop-down's list 32 px above its rows), while the popover is a surface
//! of its own: an override-redirect X window of the application. Only the
//! popover's size is right. Each popover is matched to its X window by
//! size and its subtree moved there.

use super::context::Capture;
use ufo_core::{Rect, Screen, UiNode};

/// Largest difference between a popover's reported height (or width) and
/// its surface's: the surface also holds the arrow pointing at the anchor.
const TAIL: i32 = 20;

/// The shift moving popover `p`'s reported box onto the X window `surface`:
/// origin onto origin, plus the arrow's room on the side facing its
/// `anchor` (a popover below its button has its arrow on top).
fn shift(p: Rect<Screen>, surface: Rect<Screen>, anchor: Option<Rect<Screen>>) -> (i32, i32) {
    let (extra_w, extra_h) = (surface.width - p.width, surface.height - p.height);
    let (below, right) = anchor.map_or((true, true), |a| {
        (
            surface.center().y > a.center().y,
            surface.center().x > a.center().x,
        )
    });
    (
        surface.x - p.x + if right { extra_w } else { 0 },
        surface.y - p.y + if below { extra_h } else { 0 },
    )
}

/// True when a popover reported as `p` may be drawn in `surface`: the same
/// width and at most an arrow taller, or the other way round.
fn fits(p: Rect<Screen>, surface: Rect<Screen>) -> bool {
    let (dw, dh) = (surface.width - p.width, surface.height - p.height);
    (dw == 0 && (0..=TAIL).contains(&dh)) || (dh == 0 && (0..=TAIL).contains(&dw))
}

/// Moves every popover of `nodes` (parents first) that fits one of
/// `surfaces` onto it, with its subtree, and marks it `modal` (what GTK 3
/// says of a popover: it takes the input while open). A popover is an
/// element that pokes out of its parent (it hangs from a button); the first
/// such element fitting a surface wins it. Returns how many moved.
pub(super) fn place_popovers(nodes: &mut [UiNode], surfaces: &[Rect<Screen>]) -> usize {
    let mut taken = vec![false; surfaces.len()];
    // node index → shift of its popover (parents first: inherited).
    let mut shifts: Vec<Option<(i32, i32)>> = vec![None; nodes.len()];
    let mut moved = 0;
    for i in 1..nodes.len() {
        let parent = nodes[i].parent;
        if let Some(s) = parent.and_then(|p| shifts.get(p).copied().flatten()) {
            shifts[i] = Some(s);
            continue;
        }
        let (Some(r), Some(p)) = (nodes[i].rect, parent) else {
            continue;
        };
        let anchor = nodes.get(p).and_then(|n| n.rect);
        if p == 0 || anchor.is_some_and(|a| a.intersection(&r) == Some(r)) {
            continue;
        }
        let Some(k) = (0..surfaces.len()).find(|&k| !taken[k] && fits(r, surfaces[k])) else {
            continue;
        };
        taken[k] = true;
        shifts[i] = Some(shift(r, surfaces[k], anchor));
        moved += 1;
        nodes[i].states |= ufo_core::States::MODAL;
    }
    for (n, s) in nodes.iter_mut().zip(shifts) {
        if let (Some((dx, dy)), Some(r)) = (s, n.rect) {
            n.rect = Some(r.translate(dx, dy));
        }
    }
    moved
}

impl Capture<'_> {
    /// Places GTK 4's open popovers where they are drawn and remembers
    /// whether the window has one open (it is then always captured in
    /// full).
    pub(super) fn note_popovers(&self, nodes: &mut [UiNode]) {
        let placed = self.place_gtk4_popovers(nodes);
        self.backend
            .reuse
            .note_popover(&self.window.handle.0, placed);
    }

    /// Moves the open popovers of a GTK 4 window's capture to their
    /// surfaces (see the module docs). True when one was open.
    fn place_gtk4_popovers(&self, nodes: &mut [UiNode]) -> bool {
        let Some(id) = self.window.native_id else {
            return false;
        };
        let surfaces = match self.backend.x11.popups_of(id as u32) {
            Ok(s) if !s.is_empty() => s,
            _ => return false,
        };
        place_popovers(nodes, &surfaces) > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ufo_core::ElementHandle;
    use ufo_core::ui::Capabilities;

    fn node(i: usize, parent: Option<usize>, rect: (i32, i32, i32, i32)) -> UiNode {
        UiNode {
            index: i,
            parent,
            children: vec![],
            depth: 0,
            handle: ElementHandle(format!(":1.0|/n{i}")),
            role: "filler".into(),
            control_type: ufo_core::ControlType::Pane,
            name: String::new(),
            description: String::new(),
            value: None,
            states: ufo_core::States::VISIBLE,
            rect: Some(Rect::new(rect.0, rect.1, rect.2, rect.3)),
            actions: vec![],
            capabilities: Capabilities::default(),
        }
    }

    #[test]
    fn a_drop_down_list_and_a_menu_move_to_their_surfaces() {
        // gtk4-demo's drop-down (GTK 4.8.3): the popover is reported at
        // (20,57) 165x152, its X window is 165x158 at (17,83), below the
        // combo: the rows are drawn 32 px lower and 3 px left.
        let mut nodes = vec![
            node(0, None, (0, 0, 408, 315)),
            node(1, Some(0), (20, 51, 159, 34)),
            node(2, Some(1), (30, 56, 139, 24)),
            node(3, Some(1), (20, 57, 165, 152)),
            node(4, Some(3), (32, 76, 141, 16)),
        ];
        let surfaces = [Rect::new(17, 83, 165, 158)];
        assert_eq!(place_popovers(&mut nodes, &surfaces), 1);
        assert_eq!(nodes[4].rect, Some(Rect::new(29, 108, 141, 16)));
        assert!(nodes[3].states.contains(ufo_core::States::MODAL));
        // The button inside the combo stays where it is.
        assert_eq!(nodes[2].rect, Some(Rect::new(30, 56, 139, 24)));

        // gnome-text-editor's main menu: reported at its button, drawn
        // 109 px left and 18 px lower; the same size as its surface.
        let mut nodes = vec![
            node(0, None, (0, 0, 690, 510)),
            node(1, Some(0), (536, 6, 34, 34)),
            node(2, Some(1), (536, 6, 263, 587)),
            node(3, Some(2), (578, 170, 179, 32)),
        ];
        assert_eq!(
            place_popovers(&mut nodes, &[Rect::new(427, 24, 263, 587)]),
            1
        );
        assert_eq!(nodes[3].rect, Some(Rect::new(469, 188, 179, 32)));
        // Nothing fits: nothing moves.
        let mut nodes = vec![
            node(0, None, (0, 0, 690, 510)),
            node(1, Some(0), (5, 5, 900, 40)),
        ];
        assert_eq!(place_popovers(&mut nodes, &[Rect::new(0, 0, 50, 50)]), 0);
        assert_eq!(nodes[1].rect, Some(Rect::new(5, 5, 900, 40)));
    }
}
