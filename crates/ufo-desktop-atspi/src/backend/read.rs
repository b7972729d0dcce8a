//! Reading one node: what the application's cache says of it, what is
//! remembered of it, and the calls for the rest (name, description,
//! children, extents, actions, text, value), as few and as concurrent as
//! the toolkit allows.

use super::cache::Hint;
use super::children::{Children, Count};
use super::dbus::call;
use super::details::{Details, Text};
use super::identity::Identity;
use super::objref::ObjRef;
use super::plan::{
    Expect, Plan, ReadKind, layout_box, showing_may_be_stale, widget_container, without_component,
};
use super::raw::{RawNode, Said};
use super::{AtspiBackend, Result};
use atspi::proxy::accessible::AccessibleProxy;
use atspi::{InterfaceSet, Role, State, StateSet};
use ufo_core::{ControlType, UiNode};

/// What is known of a node before its second round of calls: name,
/// description and child count (`None`: not yet).
#[derive(Default)]
struct Known {
    name: Option<String>,
    description: Option<String>,
    count: Option<i32>,
    /// Its children are asked for without counting them (see
    /// [`widget_container`]).
    uncounted: bool,
}

/// What the first round of a node's reads told.
struct First {
    identity: Identity,
    states: StateSet,
    known: Known,
    /// Its text, read first (a sparse cell's).
    glance: Option<String>,
    /// What was read with its states, expected to show (see [`Expect`]).
    early: Option<Early>,
}

/// What a node expected to show is asked with its states (see [`Expect`]).
struct Early {
    /// The states it was expected to have (its last ones).
    expected: StateSet,
    details: Details,
    /// A widget container's children.
    kids: Option<Children>,
}

impl Early {
    /// Whether these reads hold for a node that says it has `states`: it
    /// still shows, or still does not, and still manages its descendants,
    /// or not (else its text budget and its children are read again).
    fn holds_for(&self, states: StateSet) -> bool {
        [State::Showing, State::ManagesDescendants]
            .iter()
            .all(|&s| self.expected.contains(s) == states.contains(s))
    }
}

/// What one read of a node asks for (see [`AtspiBackend::read_node`]).
#[derive(Clone, Default)]
pub(crate) struct ReadNode {
    /// Most characters of its text.
    pub(crate) max_text: usize,
    /// Most children read; `None`: none.
    pub(crate) max_children: Option<usize>,
    /// What the application's cache says of it.
    pub(crate) hint: Option<Hint>,
    /// How far it is read.
    pub(crate) kind: ReadKind,
}

impl ReadNode {
    /// A full read of one node: `max_text` characters, no children.
    pub(crate) fn node(max_text: usize) -> Self {
        ReadNode {
            max_text,
            ..ReadNode::default()
        }
    }
}

/// Marks `node` (read from an element of `role` with AT-SPI `states`)
/// showing when it is drawn although its state says otherwise (see
/// [`showing_may_be_stale`]): an icon that overlaps its showing parent's
/// rectangle; a GTK 2 or Qt menu entry with a rectangle on screen under a
/// showing parent.
pub(crate) fn mark_seen_despite_state(
    role: Role,
    states: StateSet,
    node: &mut UiNode,
    parent: &UiNode,
    unshown_entries: bool,
) {
    if !showing_may_be_stale(role, states, unshown_entries)
        || !parent.states.contains(ufo_core::States::SHOWING)
    {
        return;
    }
    let drawn = match role {
        Role::Icon => node
            .rect
            .zip(parent.rect)
            .is_some_and(|(r, p)| r.intersection(&p).is_some()),
        _ => node.rect.is_some_and(|r| {
            r.x > i32::MIN / 2 && r.y > i32::MIN / 2 && r.width > 1 && r.height > 1
        }),
    };
    if drawn {
        node.states |= ufo_core::States::SHOWING;
    }
}

/// A control named `name`, of type `t`, whose description would be read as
/// its name: the description is asked (where it costs a call of its own)
/// only then.
fn needs_description(name: &str, t: &ControlType) -> bool {
    crate::labels::needs_name(name) && crate::labels::wants_name(t)
}

/// `known`, or the element's name asked (empty when that fails).
async fn name_or_ask(h: &ObjRef, acc: &AccessibleProxy<'static>, known: Option<String>) -> String {
    match known {
        Some(n) => n,
        None => call(h, "Name", acc.name()).await.unwrap_or_default(),
    }
}

/// `known`, or the element's description asked (empty when that fails).
async fn description_or_ask(
    h: &ObjRef,
    acc: &AccessibleProxy<'static>,
    known: Option<String>,
) -> String {
    match known {
        Some(d) => d,
        None => call(h, "Description", acc.description())
            .await
            .unwrap_or_default(),
    }
}

impl AtspiBackend {
    /// Reads everything about one node, issuing its calls concurrently. With a
    /// `hint` from the application's cache, role, states, interfaces and child
    /// count are taken from it and every remaining call goes out in a single
    /// round; without one, identity goes first and the rest in a second round.
    /// `max_children` (`None`: no children) bounds how many children are read:
    /// see [`AtspiBackend::read_children`]. How far it is read is the
    /// read's [`ReadKind`].
    pub(crate) async fn read_node(&self, h: &ObjRef, ask: ReadNode) -> Result<RawNode> {
        let acc = self.accessible(h).await?;
        let plan = self.plan(h);
        let cached = ask.hint.is_some();
        if ask.kind == ReadKind::Window
            && ask.hint.is_none()
            && let (Some(identity), Some(limit)) = (plan.remembered, ask.max_children)
        {
            return self
                .read_shown_window(h, &acc, identity, plan.get_all, ask.max_text, limit)
                .await;
        }
        let ReadNode {
            max_text,
            max_children,
            kind,
            ..
        } = ask;
        let First {
            identity,
            states,
            mut known,
            glance,
            early,
        } = self.first_round(h, &acc, ask, &plan).await?;
        let Identity { role, ifaces } = identity;
        let (early, early_kids) = match early.filter(|e| e.holds_for(states)) {
            Some(e) => (Some(e.details), e.kids),
            None => (None, None),
        };
        self.identity.saw(h, states);
        if max_children.is_none() {
            known.count = Some(0);
        }
        known.count = known.count.or(plan.leaf);
        if kind.stops_if_hidden()
            && !states.contains(State::Showing)
            && !states.contains(State::Defunct)
            && !showing_may_be_stale(role, states, self.menu_entries_unshown(h))
        {
            let mut raw = RawNode::identity(role, states, ifaces, None, None);
            raw.unseen = true;
            return Ok(raw);
        }
        if kind.stops_if_empty()
            && glance.as_deref().is_none_or(|t| t.trim().is_empty())
            && !states.contains(State::Focused)
            && !states.contains(State::Selected)
        {
            let mut raw = RawNode::identity(role, states, ifaces, None, None);
            raw.glanced = true;
            return Ok(raw);
        }
        let acc = &acc;
        let named_as = crate::roles::control_type_of(role, states);
        // A control known to be unnamed is asked what labels it in the same
        // round: naming would ask after the walk, one round more.
        let label_it = known.name.as_deref().is_some_and(crate::labels::needs_name)
            && crate::labels::wants_name(&named_as);
        known.uncounted = widget_container(role) && !states.contains(State::ManagesDescendants);
        let uncounted = known.uncounted;
        // A layout box the cache describes is not asked its rectangle.
        let measured = match cached && layout_box(role, states, known.name.as_deref()) {
            true => without_component(ifaces),
            false => ifaces,
        };
        let (rest, details, labelled_by) = futures::join!(
            self.rest_of_node(h, acc, known, plan.get_all, &named_as, |count| async move {
                let count = Count::of(count, uncounted);
                if let Some(kids) = early_kids.filter(|_| uncounted) {
                    return kids;
                }
                match max_children {
                    Some(limit) => self
                        .read_children(h, acc, limit, states, ifaces, count)
                        .await
                        .unwrap_or_default(),
                    None => Children::default(),
                }
            }),
            async {
                match early {
                    Some(d) => d,
                    None => {
                        let text = match glance {
                            Some(t) => Text::Known(t),
                            None => Text::Read(self.text_budget(h, role, states, max_text)),
                        };
                        self.read_details(h, measured, text).await
                    }
                }
            },
            async {
                match label_it {
                    true => self.labelled_by(h, acc).await,
                    false => None,
                }
            }
        );
        let mut raw = RawNode::shown(identity, states, rest, details, max_text);
        raw.labelled_by = labelled_by;
        Ok(raw)
    }

    /// The first round of reading `h`: what the cache says of it, else its
    /// identity and states, with what may go out before them (see
    /// [`Plan`]).
    async fn first_round(
        &self,
        h: &ObjRef,
        acc: &AccessibleProxy<'static>,
        ask: ReadNode,
        plan: &Plan,
    ) -> Result<First> {
        let ReadNode {
            max_text,
            hint,
            kind,
            ..
        } = ask;
        if let Some(x) = hint {
            // Caches count no managed descendants (LibreOffice's says 0);
            // a negative count is one not known yet.
            let count = (!x.states.contains(State::ManagesDescendants) && x.children >= 0)
                .then_some(x.children);
            return Ok(First {
                identity: Identity {
                    role: x.role,
                    ifaces: x.ifaces,
                },
                states: x.states,
                known: Known {
                    name: x.name,
                    description: Some(x.description),
                    count,
                    uncounted: false,
                },
                glance: None,
                early: None,
            });
        }
        let expect = Expect::of(plan, kind);
        let names_now = !kind.stops_if_empty()
            && match expect {
                Expect::Shown(_) => true,
                Expect::Hidden => false,
                Expect::Unknown => !kind.stops_if_hidden() || (plan.eager && !kind.states_first()),
            };
        // What the element is, unless read before (see `identity.rs`), and
        // its states, with what may go out before them (see [`Expect`]).
        let (identity, states, known, glance, early) = futures::join!(
            self.identity(h, acc, plan.remembered),
            self.states(h, acc),
            async {
                match names_now {
                    true => {
                        self.name_and_count(h, acc, plan.get_all, plan.leaf, plan.uncounted)
                            .await
                    }
                    false => Known::default(),
                }
            },
            async {
                match kind.stops_if_empty() {
                    true => self.read_text(h, max_text).await,
                    false => None,
                }
            },
            self.read_expected(h, acc, (max_text, ask.max_children), plan, expect),
        );
        Ok(First {
            identity: identity?,
            states: states?,
            known,
            glance,
            early,
        })
    }

    /// What node `h` is asked with its states when it is expected to show
    /// (see [`Expect`]): its details and, for a widget container, its
    /// children (at most `max_children`).
    async fn read_expected(
        &self,
        h: &ObjRef,
        acc: &AccessibleProxy<'static>,
        (max_text, max_children): (usize, Option<usize>),
        plan: &Plan,
        expect: Expect,
    ) -> Option<Early> {
        let (Expect::Shown(last), Some(Identity { role, ifaces })) = (expect, plan.remembered)
        else {
            return None;
        };
        let text = Text::Read(self.text_budget(h, role, last, max_text));
        let kids = max_children
            .filter(|_| widget_container(role) && !last.contains(State::ManagesDescendants));
        let (details, kids) = futures::join!(self.read_details(h, ifaces, text), async {
            match kids {
                Some(limit) => self
                    .read_children(h, acc, limit, last, ifaces, Count::Uncounted)
                    .await
                    .ok(),
                None => None,
            }
        });
        Some(Early {
            expected: last,
            details,
            kids,
        })
    }

    /// Window `h`, whose role and interfaces are known, in one round: its
    /// states, name, description, children (at most `limit`), extents and
    /// text all at once. A window shows and manages no descendants, so none
    /// of it waits for its states or its child count: one round of every
    /// capture saved.
    async fn read_shown_window(
        &self,
        h: &ObjRef,
        acc: &AccessibleProxy<'static>,
        identity: Identity,
        get_all: bool,
        max_text: usize,
        limit: usize,
    ) -> Result<RawNode> {
        let Identity { role, ifaces } = identity;
        // A window manages no descendants: its children are not counted.
        let (states, known, children, details) = futures::join!(
            call(h, "GetState", acc.get_state()),
            self.name_and_count(h, acc, get_all, None, true),
            self.read_children(h, acc, limit, StateSet::empty(), ifaces, Count::Uncounted),
            self.read_details(h, ifaces, Text::Read(max_text)),
        );
        let states = states?;
        let children = children.unwrap_or_default();
        // What GetAll did not say is asked as for any node.
        let named_as = crate::roles::control_type_of(role, states);
        let rest = self
            .rest_of_node(h, acc, known, get_all, &named_as, |_| async { children })
            .await;
        Ok(RawNode::shown(identity, states, rest, details, max_text))
    }

    /// Role and interfaces of `h`: `remembered`, or asked and remembered
    /// (see `identity.rs`).
    async fn identity(
        &self,
        h: &ObjRef,
        acc: &AccessibleProxy<'static>,
        remembered: Option<Identity>,
    ) -> Result<Identity> {
        if let Some(x) = remembered {
            return Ok(x);
        }
        let (role, ifaces) = futures::join!(
            call(h, "GetRole", acc.get_role()),
            call(h, "GetInterfaces", acc.get_interfaces()),
        );
        let role = role?;
        Ok(match ifaces {
            Ok(ifaces) => {
                let identity = Identity { role, ifaces };
                self.identity.remember(h, identity);
                identity
            }
            Err(_) => Identity {
                role,
                ifaces: InterfaceSet::empty(),
            },
        })
    }

    /// Name, description and child count of `h`: one `Properties.GetAll`
    /// where the toolkit answers it (see [`super::Toolkit::answers_get_all`]),
    /// else name and count (the description waits for the name: see
    /// [`AtspiBackend::rest_of_node`]). What fails stays unknown.
    async fn name_and_count(
        &self,
        h: &ObjRef,
        acc: &AccessibleProxy<'static>,
        get_all: bool,
        count: Option<i32>,
        uncounted: bool,
    ) -> Known {
        if get_all && let Ok(k) = self.accessible_properties(h).await {
            return k;
        }
        // The description waits for the name (see `rest_of_node`).
        let (name, count) = futures::join!(self.name(h, acc), async {
            match count {
                Some(n) => Some(Ok(n)),
                None if uncounted => None,
                None => Some(self.child_count(h, acc).await),
            }
        },);
        if let Some(Err(e)) = &count {
            tracing::debug!(%h, error = %e, "ChildCount failed");
        }
        Known {
            name: name.ok(),
            description: None,
            count: count.map(|c| c.unwrap_or(0)),
            uncounted,
        }
    }

    /// The Accessible interface's properties of `h` in one call.
    async fn accessible_properties(&self, h: &ObjRef) -> Result<Known> {
        let all = self.accessible_properties_all(h).await?;
        let text = |k: &str| {
            all.get(k)
                .and_then(|v| v.downcast_ref::<String>().ok())
                .unwrap_or_default()
        };
        Ok(Known {
            name: Some(text("Name")),
            description: Some(text("Description")),
            count: Some(
                all.get("ChildCount")
                    .and_then(|v| v.downcast_ref::<i32>().ok())
                    .unwrap_or(0),
            ),
            uncounted: false,
        })
    }

    /// Name, description and children of a shown node, asking only what
    /// `known` lacks; `children` reads them given the child count (`None`:
    /// to be asked). With `get_all`, a node lacking two of the three is
    /// asked for all three at once (if its count is among them, before its
    /// children); without it, the description only of a control of type
    /// `named_as` left without a name (see [`needs_description`]). What
    /// fails is empty.
    async fn rest_of_node<F, Fut>(
        &self,
        h: &ObjRef,
        acc: &AccessibleProxy<'static>,
        known: Known,
        get_all: bool,
        named_as: &ControlType,
        children: F,
    ) -> Said
    where
        F: FnOnce(Option<i32>) -> Fut,
        Fut: std::future::Future<Output = Children>,
    {
        let Known {
            name,
            description,
            count,
            uncounted,
        } = known;
        // One GetAll pays where it replaces two calls or more.
        let missing = [name.is_none(), description.is_none(), count.is_none()]
            .iter()
            .filter(|&&m| m)
            .count();
        if !get_all {
            // Without GetAll a description costs a call of its own, and it
            // is only ever read as the name of a control that has none: it
            // is asked after the name, and only then.
            let (name, kids) = futures::join!(name_or_ask(h, acc, name), children(count));
            let description = match description {
                Some(d) => d,
                None if needs_description(&name, named_as) => {
                    description_or_ask(h, acc, None).await
                }
                None => String::new(),
            };
            return Said {
                name,
                description,
                children: kids,
            };
        }
        if missing < 2 {
            let (name, description, kids) = futures::join!(
                name_or_ask(h, acc, name),
                description_or_ask(h, acc, description),
                children(count)
            );
            return Said {
                name,
                description,
                children: kids,
            };
        }
        let (all, kids) = match count {
            // Children need no count from it: both at once.
            Some(n) => {
                let (all, kids) = futures::join!(self.accessible_properties(h), children(Some(n)));
                (all.unwrap_or_default(), kids)
            }
            // A widget container's children need no count either.
            None if uncounted => {
                let (all, kids) = futures::join!(self.accessible_properties(h), children(None));
                (all.unwrap_or_default(), kids)
            }
            None => {
                let all = self.accessible_properties(h).await.unwrap_or_default();
                let kids = children(all.count).await;
                (all, kids)
            }
        };
        // What GetAll did not say (it failed), asked alone.
        let (name, description) = futures::join!(
            name_or_ask(h, acc, name.or(all.name)),
            description_or_ask(h, acc, description.or(all.description)),
        );
        Said {
            name,
            description,
            children: kids,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ufo_core::ElementHandle;

    #[test]
    fn a_description_is_asked_only_of_an_unnamed_control() {
        assert!(needs_description("", &ControlType::Button));
        assert!(needs_description("GtkButton", &ControlType::Button));
        assert!(!needs_description("Zoom in", &ControlType::Button));
        assert!(!needs_description("", &ControlType::Pane));
    }

    #[test]
    fn an_icon_views_stale_state_is_judged_by_its_rectangle() {
        let stale = StateSet::new(State::Visible | State::Selectable);
        assert!(showing_may_be_stale(Role::Icon, stale, false));
        assert!(!showing_may_be_stale(Role::Button, stale, false));
        assert!(!showing_may_be_stale(
            Role::Icon,
            StateSet::new(State::Visible),
            false
        ));
        // GTK 2's menu entries, only in GTK 2.
        let visible = StateSet::new(State::Visible);
        assert!(showing_may_be_stale(Role::MenuItem, visible, true));
        assert!(!showing_may_be_stale(Role::MenuItem, visible, false));
        // Qt's entries say neither showing nor visible in an open popup.
        let bare = StateSet::new(State::Enabled | State::Sensitive);
        assert!(showing_may_be_stale(Role::MenuItem, bare, true));
        assert!(!showing_may_be_stale(Role::Button, bare, true));
        let node = |x, states| UiNode {
            index: 0,
            parent: None,
            children: Vec::new(),
            depth: 0,
            handle: ElementHandle(":1.1|/icon".into()),
            role: "icon".into(),
            control_type: ControlType::ListItem,
            name: String::new(),
            description: String::new(),
            value: None,
            states,
            rect: Some(ufo_core::Rect::new(x, 10, 50, 50)),
            actions: Vec::new(),
            capabilities: ufo_core::ui::Capabilities::default(),
        };
        let seen = |x, parent: &UiNode| {
            let mut n = node(x, ufo_core::States::VISIBLE);
            mark_seen_despite_state(Role::Icon, stale, &mut n, parent, false);
            n.states.contains(ufo_core::States::SHOWING)
        };
        let view = node(0, ufo_core::States::SHOWING);
        assert!(seen(20, &view));
        // Scrolled out of the view (right of its 50 px), or under a hidden view.
        assert!(!seen(60, &view));
        assert!(!seen(20, &node(0, ufo_core::States::VISIBLE)));
        // A GTK 2 menu entry: drawn when its rectangle is on screen; a
        // closed menu's entries sit at i32::MIN, 1×1.
        let entry = |x, w| {
            let mut n = node(x, ufo_core::States::VISIBLE);
            n.rect = Some(ufo_core::Rect::new(x, 28, w, 21));
            mark_seen_despite_state(Role::MenuItem, visible, &mut n, &view, true);
            n.states.contains(ufo_core::States::SHOWING)
        };
        assert!(entry(5, 183));
        assert!(!entry(i32::MIN, 1));
    }
}
