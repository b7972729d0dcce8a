//! How one node's reads go, worked out before any call: what its toolkit
//! answers, what is remembered of it, and what is expected of it.

use super::AtspiBackend;
use super::identity::Identity;
use super::objref::ObjRef;
use atspi::{Interface, InterfaceSet, Role, State, StateSet};

/// True for a container of widgets (a window, a panel, a tool bar, a tab
/// list, a scrolled pane): it holds a handful of children, never the
/// thousands of a list or a document, so when it manages no descendants its
/// children are asked for without counting them first — one call and one
/// round less per container where no cache counts them (Qt, GTK 4,
/// Firefox): a widget tree ten levels deep is ten rounds shorter. A menu
/// holds widgets too, its items, and GTK 3's cache gives it no count (−1
/// for every menu of mousepad and gedit, measured); a long one (a combo
/// box's list of fonts) costs one GetChildren instead of a call per item
/// up to the budget. Lists, tables, trees, documents and web sections are
/// counted first.
pub(super) fn widget_container(role: Role) -> bool {
    matches!(
        role,
        Role::Frame
            | Role::Window
            | Role::Dialog
            | Role::Panel
            | Role::Filler
            | Role::ToolBar
            | Role::MenuBar
            | Role::Menu
            | Role::StatusBar
            | Role::PageTabList
            | Role::PageTab
            | Role::ScrollPane
            | Role::SplitPane
            | Role::Viewport
            | Role::RootPane
            | Role::LayeredPane
            | Role::InternalFrame
            | Role::OptionPane
            | Role::Grouping
    )
}

/// True for a box that only lays out others, as GTK 3's cache describes
/// it: a filler or panel (GtkBox, GtkGrid, GtkEventBox …) without a name,
/// neither modal (a popover) nor focusable (a custom widget). Its rectangle
/// is not asked: such a box is never listed (UFO's control list holds no
/// Pane, and an unnamed one would tell a model nothing), never a label, and
/// where a popup's extent is wanted its children's boxes are used. In GTK
/// 3 every rectangle is a round trip to the X server: these boxes were 89
/// of gnumeric's 177 rectangles, 52 of abiword's 100, 11 of gedit's 29 and
/// 4 of zenity's 14 (measured), and a full observation took 20 % less on
/// gnumeric and abiword, 13 % on zenity without them.
pub(super) fn layout_box(role: Role, states: StateSet, name: Option<&str>) -> bool {
    matches!(role, Role::Filler | Role::Panel)
        && name.is_some_and(|n| n.trim().is_empty())
        && !states.contains(State::Modal)
        && !states.contains(State::Focusable)
}

/// `ifaces` without the Component interface: no rectangle is asked.
pub(super) fn without_component(ifaces: InterfaceSet) -> InterfaceSet {
    ifaces.iter().filter(|&i| i != Interface::Component).fold(
        InterfaceSet::empty(),
        |mut set, i| {
            set.insert(i);
            set
        },
    )
}

/// How one node's reads go, worked out before any call.
pub(super) struct Plan {
    /// Its toolkit answers `Properties.GetAll`.
    pub(super) get_all: bool,
    /// Its toolkit is one where a round costs more than a call: GTK 3's
    /// bridge (over its private socket) and Gecko (whose main thread waits
    /// between rounds). A node that may turn out hidden and was not read
    /// before (see [`Expect`]) is asked its name, description and count (one
    /// GetAll) with its states anyway, one call lost if it is hidden, a round
    /// saved if it is not (the rows of a list read by what is on screen all
    /// are). Firefox's captures went from 17 to 21 ms to 13 to 15 ms (`ufo
    /// bench apps --apps firefox-esr`, four runs each); Qt's got slower
    /// (qpdfview 10.8 → 14.5 ms): not for Qt.
    pub(super) eager: bool,
    /// Its role and interfaces, read before (see `identity.rs`).
    pub(super) remembered: Option<Identity>,
    /// `Some(0)`: its remembered role never has children in its toolkit
    /// (see `Toolkit::leaf_role`): not asked its child count.
    pub(super) leaf: Option<i32>,
    /// Its remembered role is a widget container (see [`widget_container`]).
    pub(super) uncounted: bool,
    /// The states it said it had when last read (see [`Expect`]).
    pub(super) last_states: Option<StateSet>,
}

/// How far one read of a node goes, by what it reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ReadKind {
    /// Everything: identity, states, name, description, children (as
    /// many as asked), rectangle, text and value.
    #[default]
    Full,
    /// Everything, of the window captured: it shows, so once its role and
    /// interfaces are known (remembered from an earlier capture) all of it
    /// is asked in one round, children included (see
    /// `AtspiBackend::read_shown_window`).
    Window,
    /// Its identity and states, and the rest only when it shows: its
    /// parent is showing and is not the window, so a node that says it is
    /// not showing cannot be seen (a closed popover, another notebook page,
    /// KCalc's 63 hidden buttons of 100 nodes), is never listed, and its
    /// branch is not entered; its rectangle, actions, text, value and
    /// children are not read — nor its name and description unless the
    /// cache holds them. A live re-read of it (an event) reads it in full.
    IfShown,
    /// As [`ReadKind::IfShown`], of a child of the window, where hidden ones
    /// abound (Firefox keeps 24 closed menus there beside 6 shown bars and
    /// panes): its states are asked before its name, description and count
    /// even where a round costs more than a call (see [`Plan::eager`]).
    IfShownStatesFirst,
    /// Its states and text, and the rest only when it holds text or is
    /// focused or selected: one of a table's many visible cells, of which
    /// an empty one's name and rectangle are not asked. A control list shows
    /// no such cell of a table with more than
    /// [`ufo_desktop::filter::MAX_EMPTY_CELLS`] of them; a Calc sheet shows
    /// some 500, mostly empty.
    IfFilled,
    /// [`ReadKind::IfFilled`], of a cell whose table shows: one that says it
    /// is not showing is read as [`ReadKind::IfShown`] reads it.
    IfShownAndFilled,
}

impl ReadKind {
    /// A node that says it is not showing is read no further than its
    /// identity (see [`ReadKind::IfShown`]).
    pub(super) fn stops_if_hidden(self) -> bool {
        matches!(
            self,
            ReadKind::IfShown | ReadKind::IfShownStatesFirst | ReadKind::IfShownAndFilled
        )
    }

    /// Its states go out before its name (see
    /// [`ReadKind::IfShownStatesFirst`]).
    pub(super) fn states_first(self) -> bool {
        self == ReadKind::IfShownStatesFirst
    }

    /// An empty cell is read no further than its states and text (see
    /// [`ReadKind::IfFilled`]).
    pub(super) fn stops_if_empty(self) -> bool {
        matches!(self, ReadKind::IfFilled | ReadKind::IfShownAndFilled)
    }
}

/// What a node read again is expected to be, from the states it said it
/// had when last read. One that showed is asked everything with its states
/// — name, description, count, rectangle, text, a widget container's
/// children — one round instead of two, three calls lost should it now be
/// hidden; one that did not is asked its states alone first (Firefox keeps
/// 24 closed menus under its window, beside 6 shown bars and panes). A
/// window's controls rarely change between two observations: Writer's
/// captures went from 55 to 28–40 ms, qpdfview's from 14 to 10–13 ms
/// (`ufo bench apps`). A node not read before goes as [`Plan::eager`] says.
#[derive(Clone, Copy)]
pub(super) enum Expect {
    /// Not known (first read, a sparse cell).
    Unknown,
    /// It showed (or will be read in full anyway), with these states.
    Shown(StateSet),
    /// It did not show, and is read lean.
    Hidden,
}

impl Expect {
    /// What a node read as `kind` says under `plan` is expected to be.
    pub(super) fn of(plan: &Plan, kind: ReadKind) -> Self {
        match plan.last_states {
            _ if kind.stops_if_empty() => Expect::Unknown,
            Some(last) if last.contains(State::Showing) || !kind.stops_if_hidden() => {
                Expect::Shown(last)
            }
            Some(_) => Expect::Hidden,
            None => Expect::Unknown,
        }
    }
}

impl AtspiBackend {
    /// How the reads of `h` go, from its toolkit and what is remembered of
    /// it.
    pub(super) fn plan(&self, h: &ObjRef) -> Plan {
        let toolkit = self.known_toolkit(h.bus());
        let get_all = toolkit.is_some_and(super::Toolkit::answers_get_all);
        let memo = self.identity.get(h);
        let remembered = memo.map(|m| m.identity);
        let eager = get_all
            && matches!(
                toolkit,
                Some(super::Toolkit::Gtk(3) | super::Toolkit::Gecko)
            );
        Plan {
            get_all,
            eager,
            remembered,
            leaf: toolkit
                .zip(remembered)
                .is_some_and(|(t, id)| t.leaf_role(id.role))
                .then_some(0),
            uncounted: remembered.is_some_and(|id| widget_container(id.role)),
            last_states: memo.and_then(|m| m.states),
        }
    }
}

/// True for an element whose "not showing" may be stale: the items of GTK
/// 3's GtkIconView (role icon, selectable; gtk3-icon-browser's icons) work
/// out "showing" when they are made, before the view lays them out, and
/// keep it: after the view's model changes (another folder, another
/// category) every item drawn says visible but not showing. So do the
/// entries of menus in toolkits whose entries never say they show
/// (`unshown_entries`: GTK 2, Qt), open or closed. Such an item is read in
/// full; its rectangle tells (see `read.rs`'s `mark_seen_despite_state`).
pub(crate) fn showing_may_be_stale(role: Role, states: StateSet, unshown_entries: bool) -> bool {
    let not_showing = !states.contains(State::Showing);
    let icon = role == Role::Icon && states.contains(State::Selectable | State::Visible);
    not_showing && (icon || (unshown_entries && is_menu_entry(role)))
}

/// An entry of a menu. GTK 2's (gail's) never say they are showing, open
/// or closed; an open menu's entries have their rectangles on screen, a
/// closed one's are at `i32::MIN` (1×1). Qt's entries without a submenu
/// say neither showing nor visible, in an open popup too.
fn is_menu_entry(role: Role) -> bool {
    matches!(
        role,
        Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem | Role::Menu | Role::Separator
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_unnamed_plain_filler_or_panel_is_a_layout_box() {
        let shown = StateSet::new(State::Showing | State::Visible);
        assert!(layout_box(Role::Filler, shown, Some("")));
        assert!(layout_box(Role::Panel, shown, Some("  ")));
        // Named, a popover, a custom widget, another role, or a name not
        // known (no cache): its rectangle is read.
        assert!(!layout_box(Role::Panel, shown, Some("Input line")));
        assert!(!layout_box(
            Role::Panel,
            StateSet::new(State::Showing | State::Modal),
            Some("")
        ));
        assert!(!layout_box(
            Role::Filler,
            StateSet::new(State::Showing | State::Focusable),
            Some("")
        ));
        assert!(!layout_box(Role::ScrollPane, shown, Some("")));
        assert!(!layout_box(Role::Filler, shown, None));
    }

    #[test]
    fn without_component_keeps_the_other_interfaces() {
        let all = InterfaceSet::new(Interface::Component | Interface::Text | Interface::Action);
        let left = without_component(all);
        assert!(!left.contains(Interface::Component));
        assert!(left.contains(Interface::Text) && left.contains(Interface::Action));
    }
}
