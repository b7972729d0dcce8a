//! The choice a closed combo box shows, where the tree does not say it.
//!
//! Chromium's `<select>` is a combo box named by its label ("Color") whose
//! text is only the placeholder of its list, and the list is not showing
//! while closed, so the capture does not read its items. The list's
//! selection says which item the combo shows: it is asked once per such
//! combo, and the item's name becomes the combo's value.

use super::objref::ObjRef;
use super::{AtspiBackend, call};
use futures::future::join_all;
use ufo_core::{States, UiNode};

/// Most combo boxes asked about in one capture.
const MAX_ASKED: usize = 32;

impl AtspiBackend {
    /// Gives every showing combo box whose text is empty once its list's
    /// placeholder is left out, and whose closed list was not read, the
    /// name of the item that list has selected (see the module docs).
    pub(super) async fn read_closed_choices(&self, nodes: &mut [UiNode]) {
        let asked: Vec<(usize, usize)> = nodes
            .iter()
            .enumerate()
            // Only a combo whose text holds nothing but its list's
            // placeholder: GTK's and Qt's combos have no text (their name
            // is the choice), and are not asked on every capture.
            .filter(|(_, n)| {
                n.role == "combo box"
                    && n.states.contains(States::SHOWING)
                    && n.capabilities.text
                    && n.value.as_deref().is_none_or(|v| v.trim().is_empty())
            })
            .filter_map(|(i, n)| {
                let list = n.children.iter().copied().find(|&c| {
                    nodes.get(c).is_some_and(|l| {
                        l.capabilities.selection
                            && l.children.is_empty()
                            && !l.states.contains(States::SHOWING)
                    })
                })?;
                Some((i, list))
            })
            .take(MAX_ASKED)
            .collect();
        if asked.is_empty() {
            return;
        }
        let names = join_all(asked.iter().map(|&(_, list)| {
            let h = ObjRef::parse(&nodes[list].handle);
            async move { self.selected_item_name(&h.ok()?).await }
        }))
        .await;
        for ((combo, _), name) in asked.into_iter().zip(names) {
            if let Some(name) = name {
                nodes[combo].value = Some(name);
            }
        }
    }

    /// The name of the first selected child of `h` (a list with the
    /// Selection interface), when it has one with a name.
    async fn selected_item_name(&self, h: &ObjRef) -> Option<String> {
        let sel = self.selection(h).await.ok()?;
        let child = call(h, "GetSelectedChild", sel.get_selected_child(0))
            .await
            .ok()?;
        let item = ObjRef::answered(h.bus(), &child);
        if item.is_null() {
            return None;
        }
        let acc = self.accessible(&item).await.ok()?;
        let name = call(&item, "Name", acc.name()).await.ok()?;
        Some(name.trim().to_owned()).filter(|n| !n.is_empty())
    }
}
