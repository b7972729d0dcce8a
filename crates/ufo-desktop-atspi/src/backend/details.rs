//! What is read of a shown node besides its identity: its rectangle, its
//! text (how much of it, and how toolkits answer), its numeric value.

use super::AtspiBackend;
use super::dbus::call;
use super::objref::ObjRef;
use super::plan::showing_may_be_stale;
use atspi::{Interface, InterfaceSet, Role, State, StateSet};
use ufo_core::{Rect, Screen};

/// An element's rectangle as its toolkit reports it: on screen, or (GTK 4)
/// relative to its window; not yet checked for sense.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Extents {
    /// Left edge.
    pub(crate) x: i32,
    /// Top edge.
    pub(crate) y: i32,
    /// Width.
    pub(crate) width: i32,
    /// Height.
    pub(crate) height: i32,
}

impl From<(i32, i32, i32, i32)> for Extents {
    fn from((x, y, width, height): (i32, i32, i32, i32)) -> Self {
        Self {
            x,
            y,
            width,
            height,
        }
    }
}

impl Extents {
    /// It has no area: the element is not laid out.
    pub(crate) fn is_empty(self) -> bool {
        self.width <= 0 || self.height <= 0
    }

    /// The rectangle on screen, moved by `offset` (GTK 4's window origin),
    /// as reported.
    pub(crate) fn moved(self, offset: (i32, i32)) -> Rect<Screen> {
        Rect::new(
            self.x.saturating_add(offset.0),
            self.y.saturating_add(offset.1),
            self.width,
            self.height,
        )
    }

    /// [`Extents::moved`] when it makes sense: toolkits park hidden
    /// elements far off screen, and absurd values from a misbehaving
    /// application must not overflow either; `None` then, and for an empty
    /// rectangle.
    pub(crate) fn on_screen(self, offset: (i32, i32)) -> Option<Rect<Screen>> {
        let sane = |v: i32| (-10_000..100_000).contains(&v);
        let fits = |v: i32| v < 100_000;
        (!self.is_empty() && sane(self.x) && sane(self.y) && fits(self.width) && fits(self.height))
            .then(|| self.moved(offset))
    }
}

/// A node's extents, text and value (see [`AtspiBackend::read_details`]).
pub(super) struct Details {
    /// Its rectangle as the toolkit reports it.
    pub(super) extents: Option<Extents>,
    /// Its text.
    pub(super) text: Option<String>,
    /// Its numeric value, asked only where there is no text.
    pub(super) value: Option<f64>,
}

/// The text [`AtspiBackend::read_details`] gives a node.
pub(super) enum Text {
    /// Already read.
    Known(String),
    /// To read, at most this many characters (0: none).
    Read(usize),
}

impl AtspiBackend {
    /// How much of an element's text to read: none of an element that says
    /// it is not showing — a person cannot read it, and Evince dies when
    /// asked for the text of a page it has not laid out yet (measured: 3 of 3
    /// launches) — except in GTK 4, which says "showing" of nothing below
    /// the window, and of an item whose state may be stale (see
    /// [`showing_may_be_stale`]: its caption is its name).
    pub(super) fn text_budget(
        &self,
        h: &ObjRef,
        role: Role,
        states: StateSet,
        max_text: usize,
    ) -> usize {
        let gtk4 = self
            .known_toolkit(h.bus())
            .is_some_and(|t| t == super::Toolkit::Gtk(4));
        if states.contains(State::Showing)
            || gtk4
            || showing_may_be_stale(role, states, self.menu_entries_unshown(h))
        {
            max_text
        } else {
            0
        }
    }

    /// Extents, text and value — each only when the interface is there —
    /// concurrently. Action names are not read: a click asks them of the
    /// one control it acts on (`Backend::action_names`), which saved 42 of
    /// Firefox's 280 calls a capture and 24 of qt6ct's 230.
    pub(super) async fn read_details(
        &self,
        h: &ObjRef,
        ifaces: InterfaceSet,
        text: Text,
    ) -> Details {
        let extents_f = async {
            if !ifaces.contains(Interface::Component) {
                return None;
            }
            self.extents(h).await.ok()
        };
        let text_f = async {
            match text {
                Text::Known(t) => Some(t),
                Text::Read(max) if ifaces.contains(Interface::Text) => self.read_text(h, max).await,
                Text::Read(_) => None,
            }
        };
        let value_f = async {
            if !ifaces.contains(Interface::Value) {
                return None;
            }
            self.current_value(h).await.ok()
        };
        // A node's text, when read, is its value (see `to_node`): its
        // numeric value is asked only when there is no text to read or
        // reading it failed (LibreOffice's cells have both: 500 calls of a
        // Calc capture saved).
        let text_then_value = async {
            match text_f.await {
                Some(text) => (Some(text), None),
                None => (None, value_f.await),
            }
        };
        let (extents, (text, value)) = futures::join!(extents_f, text_then_value);
        Details {
            extents,
            text,
            value,
        }
    }

    /// Up to `max_text` characters of `h`'s text (`None`: none to read, or
    /// the call failed), without the object replacement characters that
    /// stand for its children (see [`without_embedded`]).
    pub(super) async fn read_text(&self, h: &ObjRef, max_text: usize) -> Option<String> {
        self.read_raw_text(h, max_text).await.map(without_embedded)
    }

    /// [`Self::read_text`] as the application says it.
    async fn read_raw_text(&self, h: &ObjRef, max_text: usize) -> Option<String> {
        if max_text == 0 {
            return None;
        }
        let end = i32::try_from(max_text.saturating_add(1)).unwrap_or(i32::MAX);
        let bus = h.bus();
        // LibreOffice answers "" to GetText past the end of the text (and
        // GTK 4 to GetText(0, -1)): once seen, that application's texts
        // are read whole, in one call as for the others.
        if self.apps.reads_whole_text(bus) {
            return self.text_to(h, -1).await.ok();
        }
        let got = self.text_to(h, end).await.ok()?;
        if !got.is_empty() {
            return Some(got);
        }
        let t = self.text(h).await.ok()?;
        let n = call(h, "CharacterCount", t.character_count()).await.ok()?;
        if n <= 0 {
            return Some(got);
        }
        let whole = call(h, "GetText", t.get_text(0, -1)).await.ok()?;
        if !whole.is_empty() {
            self.apps.note_whole_text(bus);
        }
        Some(whole)
    }
}

/// A numeric value as text: an integer without a fraction.
pub(super) fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// The object replacement character: where a container's text (Gecko's
/// pages, paragraphs and sections; LibreOffice's paragraphs with a frame)
/// holds a child element, whose own text is read with it. A person sees the
/// child, never the character: Firefox's page read as "\u{fffc}\u{fffc}".
const EMBEDDED_OBJECT: char = '\u{fffc}';

/// `text` without [`EMBEDDED_OBJECT`] characters.
fn without_embedded(text: String) -> String {
    match text.contains(EMBEDDED_OBJECT) {
        true => text.replace(EMBEDDED_OBJECT, ""),
        false => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_containers_placeholders_for_its_children_are_not_text() {
        assert_eq!(without_embedded("\u{fffc}\u{fffc}".into()), "");
        assert_eq!(
            without_embedded("Name \u{fffc} and more".into()),
            "Name  and more"
        );
        assert_eq!(without_embedded("plain".into()), "plain");
    }

    #[test]
    fn extents_make_a_screen_rectangle_only_when_they_make_sense() {
        let e = Extents::from((10, 20, 30, 40));
        assert_eq!(e.on_screen((100, 5)), Some(Rect::new(110, 25, 30, 40)));
        // Parked far off screen, absurdly large, or with no area: none.
        assert_eq!(Extents::from((-32_000, 0, 30, 40)).on_screen((0, 0)), None);
        assert_eq!(Extents::from((0, 0, 200_000, 40)).on_screen((0, 0)), None);
        assert!(Extents::from((5, 5, 0, 40)).is_empty());
        assert_eq!(Extents::from((5, 5, 0, 40)).on_screen((0, 0)), None);
        // Moved as reported, without overflowing.
        assert_eq!(
            Extents::from((i32::MAX, 0, 1, 1)).moved((1, 0)),
            Rect::new(i32::MAX, 0, 1, 1)
        );
    }
}
