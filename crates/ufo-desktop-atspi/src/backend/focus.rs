//! Who holds the keyboard: an element's parent, and whether an element
//! holds the focus where its toolkit's "focused" state does not tell.

use super::objref::ObjRef;
use super::{AtspiBackend, Result, Toolkit, call};
use ufo_desktop::Backend;

impl AtspiBackend {
    /// The handle of `h`'s parent.
    pub(crate) async fn parent_of(&self, h: &ObjRef) -> Result<ObjRef> {
        let acc = self.accessible(h).await?;
        let parent = call(h, "Parent", acc.parent()).await?;
        Ok(ObjRef::answered(h.bus(), &parent))
    }

    /// Whether `h` holds the keyboard focus (see
    /// [`Backend::has_keyboard_focus`]).
    pub(super) async fn keyboard_focus(&self, h: &ObjRef) -> Result<Option<bool>> {
        let node = self.refresh_node(h, 0).await?;
        if !node.states.contains(ufo_core::States::FOCUSED) {
            return Ok(Some(false));
        }
        // Qt says "focused" of the current item of every view and tab bar,
        // focused or not, and of the views themselves says nothing (DB
        // Browser for SQLite: the current cell of a table that had lost the
        // keyboard to the cell editor beside it). Such an item holds the
        // focus when it, or its view, is what the application last said
        // took the focus; when it said nothing since we listened, no one
        // can tell.
        let (bus, path) = (h.bus(), h.path());
        let item = matches!(
            node.role.as_str(),
            "table cell" | "list item" | "tree item" | "page tab" | "icon"
        );
        if !item || self.known_toolkit(bus) != Some(Toolkit::Qt) {
            return Ok(Some(true));
        }
        let Some(last) = self.events.as_ref().and_then(|w| w.focused(bus)) else {
            return Ok(None);
        };
        if last == path {
            return Ok(Some(true));
        }
        let view = self.parent_of(h).await?;
        Ok(Some(view.path() == last))
    }
}
