//! The one rule for what a tool call's `id` and `name` designate.
//!
//! Models name a control (or a window) twice: by its label `id` and by its
//! `name`. The item is the one with that id when the name, if given, names it
//! too (leniently: [`names_match`]). When they disagree or the id is missing or
//! unknown, a checker that may repair (the agents, before anything runs) takes
//! the one item the name designates, if exactly one does; the tools themselves
//! never guess. A blank name counts as no name.

use crate::names::names_match;
use ufo_core::{Control, WindowInfo};

/// Something listed for the model with a label id and a name.
pub trait Designated {
    /// Its label id; `index` is its position in the list.
    fn label(&self, index: usize) -> u32;
    /// The name the model was shown.
    fn shown_name(&self) -> &str;
    /// Whether `given` (from the model) names it.
    fn answers_to(&self, given: &str) -> bool {
        names_match(given, self.shown_name())
    }
}

impl Designated for Control {
    fn label(&self, _index: usize) -> u32 {
        self.id
    }
    fn shown_name(&self) -> &str {
        &self.name
    }
}

/// Windows are numbered 1..N in the order listed.
impl Designated for WindowInfo {
    fn label(&self, index: usize) -> u32 {
        u32::try_from(index + 1).unwrap_or(u32::MAX)
    }
    fn shown_name(&self) -> &str {
        &self.title
    }
    /// A window answers to its title or its application's name.
    fn answers_to(&self, given: &str) -> bool {
        names_match(given, &self.title) || names_match(given, &self.app_name)
    }
}

/// The item a call designates.
#[derive(Debug)]
pub struct Resolved<'a, T> {
    /// The item.
    pub item: &'a T,
    /// True when the id was missing, unknown or named another item and the
    /// name found this one.
    pub repaired: bool,
}

/// Why a call's `id` and `name` designate no item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresolved {
    /// No usable id (and no name that designates one item).
    NoId,
    /// No item has this id.
    UnknownId {
        /// The id given.
        id: u32,
        /// How many items there are.
        count: usize,
    },
    /// The item with this id has another name.
    NameMismatch {
        /// The id given.
        id: u32,
        /// The item's name.
        actual: String,
        /// The name given.
        given: String,
    },
}

/// Applies the rule (see the module docs) to `items`.
pub fn resolve<'a, T: Designated>(
    items: &'a [T],
    id: Option<u32>,
    name: Option<&str>,
    repair: bool,
) -> Result<Resolved<'a, T>, Unresolved> {
    let name = name.filter(|n| !n.trim().is_empty());
    let by_id = id.and_then(|i| {
        items
            .iter()
            .enumerate()
            .find(|(k, t)| t.label(*k) == i)
            .map(|(_, t)| t)
    });
    if let Some(t) = by_id
        && name.is_none_or(|n| t.answers_to(n))
    {
        return Ok(Resolved {
            item: t,
            repaired: false,
        });
    }
    if repair && let Some(n) = name {
        let mut named = items.iter().filter(|t| t.answers_to(n));
        if let (Some(t), None) = (named.next(), named.next()) {
            return Ok(Resolved {
                item: t,
                repaired: true,
            });
        }
    }
    Err(match (id, by_id) {
        (None, _) => Unresolved::NoId,
        (Some(id), None) => Unresolved::UnknownId {
            id,
            count: items.len(),
        },
        (Some(id), Some(t)) => Unresolved::NameMismatch {
            id,
            actual: t.shown_name().to_owned(),
            given: name.unwrap_or_default().to_owned(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ufo_core::{ControlType, ElementHandle, Rect};

    fn c(id: u32, name: &str) -> Control {
        Control {
            id,
            name: name.into(),
            control_type: ControlType::Button,
            value: None,
            column: None,
            rect: Rect::new(0, 0, 1, 1),
            handle: ElementHandle(format!(":1.1|/{id}")),
            role: "push button".into(),
            states: ufo_core::States::empty(),
            actions: Vec::new(),
            capabilities: Default::default(),
        }
    }

    #[test]
    fn id_and_name_agree_or_the_name_repairs_when_allowed() {
        let list = [
            c(1, "7 7"),
            c(2, "Save"),
            c(3, "Save as"),
            c(4, "Open"),
            c(5, "Open"),
        ];
        let got =
            |id, name, repair| resolve(&list, id, name, repair).map(|r| (r.item.id, r.repaired));
        assert_eq!(got(Some(1), Some("7"), false), Ok((1, false)));
        assert_eq!(got(Some(2), None, false), Ok((2, false)));
        assert_eq!(got(Some(2), Some("  "), false), Ok((2, false)));
        assert_eq!(
            got(Some(2), Some("Save as"), false),
            Err(Unresolved::NameMismatch {
                id: 2,
                actual: "Save".into(),
                given: "Save as".into()
            })
        );
        assert_eq!(got(Some(2), Some("save AS"), true), Ok((3, true)));
        assert_eq!(got(None, Some("Save"), true), Ok((2, true)));
        assert_eq!(got(Some(9), Some("Save"), true), Ok((2, true)));
        // Two items answer to "Open": no guess.
        assert_eq!(
            got(Some(9), Some("Open"), true),
            Err(Unresolved::UnknownId { id: 9, count: 5 })
        );
        assert_eq!(got(None, None, true), Err(Unresolved::NoId));
    }
}
