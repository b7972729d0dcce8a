//! What an element is, remembered: its role and its interfaces.
//!
//! Neither changes while the element lives. Qt derives both from the
//! object's accessible class (its ids count up and are not reused), GTK 4
//! fixes the role when the widget is made, Gecko makes a new accessible
//! (a new path) when an element's kind changes. An application without a
//! cache of its own (Qt, GTK 4; Firefox's holds only its application
//! objects) would otherwise be asked both again at every capture: two of
//! the eight calls a shown element costs and two of the three a hidden one
//! costs. A remembered element is asked only what can change (states,
//! name, description, children, extents, actions, text, value).
//!
//! Beside them, the states an element last said it had: an element that
//! showed last time is asked everything at once, and one that did not is
//! asked its states first (see `plan.rs`).
//!
//! The memo is bounded ([`MAX_REMEMBERED`]): past it, it starts afresh. An
//! element that turns out gone is forgotten.

use atspi::{InterfaceSet, Role, StateSet};
use std::collections::HashMap;
use std::sync::Mutex;
use ufo_core::ElementHandle;

/// Most elements remembered over all applications.
const MAX_REMEMBERED: usize = 50_000;

/// What an element is: its role and interfaces, fixed while it lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Identity {
    /// Its role.
    pub(crate) role: Role,
    /// The interfaces it implements.
    pub(crate) ifaces: InterfaceSet,
}

/// What is remembered of one element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Remembered {
    /// What it is.
    pub(crate) identity: Identity,
    /// The states it said it had when last read.
    pub(crate) states: Option<StateSet>,
}

/// Role and interfaces of the elements read so far, and their last states
/// (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct IdentityMemo {
    known: Mutex<HashMap<String, Remembered>>,
}

impl IdentityMemo {
    /// The role and interfaces of `h`, if read before, and the states it
    /// said it had when last read.
    pub(crate) fn get(&self, h: &ElementHandle) -> Option<Remembered> {
        self.known.lock().ok()?.get(&h.0).copied()
    }

    /// Remembers the states `h` just said it has (if its identity is
    /// remembered).
    pub(crate) fn saw(&self, h: &ElementHandle, states: StateSet) {
        if let Ok(mut m) = self.known.lock()
            && let Some(e) = m.get_mut(&h.0)
        {
            e.states = Some(states);
        }
    }

    /// Remembers what `h` is.
    pub(crate) fn remember(&self, h: &ElementHandle, identity: Identity) {
        let Ok(mut m) = self.known.lock() else {
            return;
        };
        if m.len() >= MAX_REMEMBERED && !m.contains_key(&h.0) {
            m.clear();
        }
        m.insert(
            h.0.clone(),
            Remembered {
                identity,
                states: None,
            },
        );
    }

    /// Forgets `h` (it is gone, or answered unlike what was remembered).
    pub(crate) fn forget(&self, h: &ElementHandle) {
        if let Ok(mut m) = self.known.lock() {
            m.remove(&h.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atspi::Interface;

    #[test]
    fn remembers_forgets_and_stays_bounded() {
        let memo = IdentityMemo::default();
        let h = |i: usize| ElementHandle(format!(":1.9|/org/a11y/atspi/accessible/{i}"));
        let ifaces = InterfaceSet::new(Interface::Accessible | Interface::Component);
        let id = |role| Identity { role, ifaces };
        let got = |identity, states| Some(Remembered { identity, states });
        assert_eq!(memo.get(&h(1)), None);
        memo.remember(&h(1), id(Role::Button));
        assert_eq!(memo.get(&h(1)), got(id(Role::Button), None));
        let showing = StateSet::new(atspi::State::Showing);
        memo.saw(&h(1), showing);
        assert_eq!(memo.get(&h(1)), got(id(Role::Button), Some(showing)));
        // States of an element whose identity is not remembered are not kept.
        memo.saw(&h(2), showing);
        assert_eq!(memo.get(&h(2)), None);
        memo.forget(&h(1));
        assert_eq!(memo.get(&h(1)), None);
        for i in 0..MAX_REMEMBERED {
            memo.remember(&h(i), id(Role::Label));
        }
        assert_eq!(memo.get(&h(0)), got(id(Role::Label), None));
        // One more starts afresh: the memo never grows past its bound.
        memo.remember(&h(MAX_REMEMBERED), id(Role::Label));
        assert_eq!(memo.get(&h(0)), None);
        assert_eq!(memo.get(&h(MAX_REMEMBERED)), got(id(Role::Label), None));
    }
}
